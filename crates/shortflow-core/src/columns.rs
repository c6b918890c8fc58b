//! The result tables (`results`) as typed column buffers: what a front end builds its
//! data frames from without JSON text (the PyO3 module's `run_columns`; Python's
//! `results.columns_frame` reads them as Arrow arrays).
//!
//! The columns come from each table's `Serialize` (the derive that also writes the JSON),
//! so both ways out have the same tables, columns and column order by construction: a
//! table is a struct of sequences, one per column, and each sequence's elements give
//! the column's kind. Buffers are little-endian and laid out as Arrow's: fixed-width
//! values; booleans as a bitmap (least significant bit first); strings and lists of
//! `u64` as `len + 1` `i64` offsets into their bytes or values. A non-finite `f64` is
//! null (a cleared bit of `validity`), as the JSON writes it (`null`).

use serde::ser::{self, Impossible, Serialize};

use crate::results::RunResults;

/// What a column holds (`Kind::name` is the front end's name for it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// No rows: the kind is unknown (the front end's schema gives the type).
    Empty,
    U8,
    U32,
    U64,
    I64,
    F64,
    Bool,
    /// UTF-8 strings: `offsets` (i64, bytes) into `data`.
    Str,
    /// Lists of `u64`: `offsets` (i64, values) into `data`.
    ListU64,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Empty => "empty",
            Kind::U8 => "u8",
            Kind::U32 => "u32",
            Kind::U64 => "u64",
            Kind::I64 => "i64",
            Kind::F64 => "f64",
            Kind::Bool => "bool",
            Kind::Str => "str",
            Kind::ListU64 => "list_u64",
        }
    }
}

/// One column of a table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Column {
    pub name: &'static str,
    pub kind: Kind,
    /// Rows.
    pub len: usize,
    /// The values (fixed width, little-endian), the bitmap (`Bool`), the strings' bytes
    /// (`Str`) or the lists' values (`ListU64`, u64 little-endian).
    pub data: Vec<u8>,
    /// `Str`, `ListU64`: `len + 1` offsets (i64 little-endian) into `data`; else empty.
    pub offsets: Vec<u8>,
    /// `F64` only: bit `i` set when row `i` is finite, cleared when it is null; empty
    /// when every row is finite.
    pub validity: Vec<u8>,
}

/// A table that is not a struct of sequences of the kinds above.
#[derive(Debug)]
pub struct ColumnError(String);

impl std::fmt::Display for ColumnError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "results as columns: {}", self.0)
    }
}

impl std::error::Error for ColumnError {}

impl ser::Error for ColumnError {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        ColumnError(msg.to_string())
    }
}

impl RunResults {
    /// Every table but `stats` as columns, in the struct's order: `each(table, column)`
    /// for each column of each table. Each table is taken out of `self` and freed as soon
    /// as its last column is out, so the caller's copy of the columns and the tables still
    /// to go are never held twice.
    pub fn drain_columns(&mut self, each: &mut dyn FnMut(&'static str, Column)) -> Result<(), ColumnError> {
        macro_rules! drain {
            ($($t:ident),*) => {$({
                let table = std::mem::take(&mut self.$t);
                table_columns(&table, &mut |c| each(stringify!($t), c))?;
            })*};
        }
        drain!(transfers, flows, links, acks, packets, cwnd, startup, cc, pages, objects);
        Ok(())
    }
}

/// A table's columns (`table` serialises as a struct whose fields are sequences),
/// handed to `each` one at a time, in field order.
pub fn table_columns<T: Serialize + ?Sized>(table: &T, each: &mut dyn FnMut(Column)) -> Result<(), ColumnError> {
    table.serialize(TableSer { each })
}

/// A column under construction.
struct Builder {
    kind: Kind,
    len: usize,
    /// Rows the sequence announced (to reserve the buffers at the first value).
    hint: usize,
    data: Vec<u8>,
    offsets: Vec<u8>,
    validity: Vec<u8>,
    /// A non-finite `f64` was seen (`validity` is kept).
    nulls: bool,
    /// `ListU64`: values so far.
    values: i64,
}

impl Builder {
    fn new(hint: usize) -> Builder {
        Builder {
            kind: Kind::Empty,
            len: 0,
            hint,
            data: Vec::new(),
            offsets: Vec::new(),
            validity: Vec::new(),
            nulls: false,
            values: 0,
        }
    }

    /// The column's kind is `k` (set by its first row; later rows must agree).
    fn kind(&mut self, k: Kind) -> Result<(), ColumnError> {
        if self.kind == k {
            return Ok(());
        }
        if self.kind != Kind::Empty {
            return Err(ColumnError(format!("a column mixes {} and {} values", self.kind.name(), k.name())));
        }
        self.kind = k;
        let n = self.hint;
        match k {
            Kind::U8 => self.data.reserve_exact(n),
            Kind::U32 => self.data.reserve_exact(4 * n),
            Kind::U64 | Kind::I64 => self.data.reserve_exact(8 * n),
            Kind::F64 => {
                self.data.reserve_exact(8 * n);
                self.validity.reserve_exact(n.div_ceil(8));
            }
            Kind::Bool => self.data.reserve_exact(n.div_ceil(8)),
            Kind::Str | Kind::ListU64 => {
                self.offsets.reserve_exact(8 * (n + 1));
                self.offsets.extend_from_slice(&0i64.to_le_bytes());
            }
            Kind::Empty => {}
        }
        Ok(())
    }

    fn set_bit(bits: &mut Vec<u8>, i: usize, on: bool) {
        if i % 8 == 0 {
            bits.push(0);
        }
        if on {
            *bits.last_mut().expect("pushed above") |= 1 << (i % 8);
        }
    }

    fn row(&mut self) {
        self.len += 1;
    }

    fn fixed(&mut self, k: Kind, bytes: &[u8]) -> Result<(), ColumnError> {
        self.kind(k)?;
        self.data.extend_from_slice(bytes);
        self.row();
        Ok(())
    }

    fn f64(&mut self, v: f64) -> Result<(), ColumnError> {
        self.kind(Kind::F64)?;
        self.data.extend_from_slice(&v.to_le_bytes());
        self.nulls |= !v.is_finite();
        Self::set_bit(&mut self.validity, self.len, v.is_finite());
        self.row();
        Ok(())
    }

    fn bool(&mut self, v: bool) -> Result<(), ColumnError> {
        self.kind(Kind::Bool)?;
        Self::set_bit(&mut self.data, self.len, v);
        self.row();
        Ok(())
    }

    fn str(&mut self, v: &str) -> Result<(), ColumnError> {
        self.kind(Kind::Str)?;
        self.data.extend_from_slice(v.as_bytes());
        let end = i64::try_from(self.data.len()).map_err(|_| ColumnError("a string column over 2^63 bytes".into()))?;
        self.offsets.extend_from_slice(&end.to_le_bytes());
        self.row();
        Ok(())
    }

    /// A value of the list row under way (`ListU64`).
    fn list_value(&mut self, v: u64) {
        self.data.extend_from_slice(&v.to_le_bytes());
        self.values += 1;
    }

    fn end_list(&mut self) {
        self.offsets.extend_from_slice(&self.values.to_le_bytes());
        self.row();
    }

    fn finish(mut self, name: &'static str) -> Column {
        if !self.nulls {
            self.validity = Vec::new();
        }
        Column { name, kind: self.kind, len: self.len, data: self.data, offsets: self.offsets, validity: self.validity }
    }
}

fn unsupported<T>(what: &str, level: &str) -> Result<T, ColumnError> {
    Err(ColumnError(format!("{what} where {level} was expected")))
}

/// The `Serializer` methods a level does not take, each an error naming the value.
macro_rules! refuse {
    ($level:expr; $($m:ident($($a:ty),*) -> $r:ty, $what:expr;)*) => {$(
        fn $m(self, $(_: $a),*) -> Result<$r, ColumnError> {
            unsupported($what, $level)
        }
    )*};
}

/// Every `Serializer` method but the sequences and the scalars a level takes.
macro_rules! refuse_compound {
    ($level:expr) => {
        refuse! { $level;
            serialize_none() -> Self::Ok, "an option";
            serialize_unit() -> Self::Ok, "a unit";
            serialize_unit_struct(&'static str) -> Self::Ok, "a unit struct";
            serialize_unit_variant(&'static str, u32, &'static str) -> Self::Ok, "an enum";
            serialize_tuple(usize) -> Self::SerializeTuple, "a tuple";
            serialize_tuple_struct(&'static str, usize) -> Self::SerializeTupleStruct, "a tuple struct";
            serialize_tuple_variant(&'static str, u32, &'static str, usize) -> Self::SerializeTupleVariant, "an enum";
            serialize_map(Option<usize>) -> Self::SerializeMap, "a map";
            serialize_struct_variant(&'static str, u32, &'static str, usize) -> Self::SerializeStructVariant, "an enum";
        }
        fn serialize_some<T: Serialize + ?Sized>(self, _: &T) -> Result<Self::Ok, ColumnError> {
            unsupported("an option", $level)
        }
        fn serialize_newtype_struct<T: Serialize + ?Sized>(
            self,
            _: &'static str,
            _: &T,
        ) -> Result<Self::Ok, ColumnError> {
            unsupported("a newtype struct", $level)
        }
        fn serialize_newtype_variant<T: Serialize + ?Sized>(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: &T,
        ) -> Result<Self::Ok, ColumnError> {
            unsupported("an enum", $level)
        }
    };
}

/// The scalar `Serializer` methods a level refuses (all but those it defines).
macro_rules! refuse_scalars {
    ($level:expr; $($m:ident($a:ty)),*) => {
        refuse! { $level; $($m($a) -> Self::Ok, stringify!($a);)* }
    };
}

type No = Impossible<(), ColumnError>;

/// A table: a struct whose fields are its columns.
struct TableSer<'a> {
    each: &'a mut dyn FnMut(Column),
}

impl<'a> ser::Serializer for TableSer<'a> {
    type Ok = ();
    type Error = ColumnError;
    type SerializeSeq = No;
    type SerializeTuple = No;
    type SerializeTupleStruct = No;
    type SerializeTupleVariant = No;
    type SerializeMap = No;
    type SerializeStruct = Self;
    type SerializeStructVariant = No;

    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self, ColumnError> {
        Ok(self)
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<No, ColumnError> {
        unsupported("a sequence", "a table")
    }
    refuse_compound!("a table");
    refuse_scalars!("a table"; serialize_bool(bool), serialize_i8(i8), serialize_i16(i16), serialize_i32(i32),
        serialize_i64(i64), serialize_u8(u8), serialize_u16(u16), serialize_u32(u32), serialize_u64(u64),
        serialize_f32(f32), serialize_f64(f64), serialize_char(char), serialize_str(&str), serialize_bytes(&[u8]));
}

impl<'a> ser::SerializeStruct for TableSer<'a> {
    type Ok = ();
    type Error = ColumnError;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<(), ColumnError> {
        let mut b = Builder::new(0);
        value.serialize(ColumnSer { b: &mut b }).map_err(|e| ColumnError(format!("column {key}: {}", e.0)))?;
        (self.each)(b.finish(key));
        Ok(())
    }
    fn end(self) -> Result<(), ColumnError> {
        Ok(())
    }
}

/// A column: a sequence of rows.
struct ColumnSer<'a> {
    b: &'a mut Builder,
}

impl<'a> ser::Serializer for ColumnSer<'a> {
    type Ok = ();
    type Error = ColumnError;
    type SerializeSeq = Self;
    type SerializeTuple = No;
    type SerializeTupleStruct = No;
    type SerializeTupleVariant = No;
    type SerializeMap = No;
    type SerializeStruct = No;
    type SerializeStructVariant = No;

    fn serialize_seq(self, len: Option<usize>) -> Result<Self, ColumnError> {
        self.b.hint = len.unwrap_or(0);
        Ok(self)
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<No, ColumnError> {
        unsupported("a struct", "a column")
    }
    refuse_compound!("a column");
    refuse_scalars!("a column"; serialize_bool(bool), serialize_i8(i8), serialize_i16(i16), serialize_i32(i32),
        serialize_i64(i64), serialize_u8(u8), serialize_u16(u16), serialize_u32(u32), serialize_u64(u64),
        serialize_f32(f32), serialize_f64(f64), serialize_char(char), serialize_str(&str), serialize_bytes(&[u8]));
}

impl<'a> ser::SerializeSeq for ColumnSer<'a> {
    type Ok = ();
    type Error = ColumnError;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), ColumnError> {
        value.serialize(RowSer { b: self.b })
    }
    fn end(self) -> Result<(), ColumnError> {
        Ok(())
    }
}

/// A row's value: a scalar or a list of `u64`.
struct RowSer<'a> {
    b: &'a mut Builder,
}

impl<'a> ser::Serializer for RowSer<'a> {
    type Ok = ();
    type Error = ColumnError;
    type SerializeSeq = ListSer<'a>;
    type SerializeTuple = No;
    type SerializeTupleStruct = No;
    type SerializeTupleVariant = No;
    type SerializeMap = No;
    type SerializeStruct = No;
    type SerializeStructVariant = No;

    fn serialize_u8(self, v: u8) -> Result<(), ColumnError> {
        self.b.fixed(Kind::U8, &[v])
    }
    fn serialize_u32(self, v: u32) -> Result<(), ColumnError> {
        self.b.fixed(Kind::U32, &v.to_le_bytes())
    }
    fn serialize_u64(self, v: u64) -> Result<(), ColumnError> {
        self.b.fixed(Kind::U64, &v.to_le_bytes())
    }
    fn serialize_i64(self, v: i64) -> Result<(), ColumnError> {
        self.b.fixed(Kind::I64, &v.to_le_bytes())
    }
    fn serialize_f64(self, v: f64) -> Result<(), ColumnError> {
        self.b.f64(v)
    }
    fn serialize_bool(self, v: bool) -> Result<(), ColumnError> {
        self.b.bool(v)
    }
    fn serialize_str(self, v: &str) -> Result<(), ColumnError> {
        self.b.str(v)
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<ListSer<'a>, ColumnError> {
        self.b.kind(Kind::ListU64)?;
        Ok(ListSer { b: self.b })
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<No, ColumnError> {
        unsupported("a struct", "a value")
    }
    refuse_compound!("a value");
    refuse_scalars!("a value"; serialize_i8(i8), serialize_i16(i16), serialize_i32(i32), serialize_u16(u16),
        serialize_f32(f32), serialize_char(char), serialize_bytes(&[u8]));
}

/// A list row's values (`u64` only).
struct ListSer<'a> {
    b: &'a mut Builder,
}

impl<'a> ser::SerializeSeq for ListSer<'a> {
    type Ok = ();
    type Error = ColumnError;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), ColumnError> {
        value.serialize(ListValueSer { b: self.b })
    }
    fn end(self) -> Result<(), ColumnError> {
        self.b.end_list();
        Ok(())
    }
}

/// One value of a list row.
struct ListValueSer<'a> {
    b: &'a mut Builder,
}

impl<'a> ser::Serializer for ListValueSer<'a> {
    type Ok = ();
    type Error = ColumnError;
    type SerializeSeq = No;
    type SerializeTuple = No;
    type SerializeTupleStruct = No;
    type SerializeTupleVariant = No;
    type SerializeMap = No;
    type SerializeStruct = No;
    type SerializeStructVariant = No;

    fn serialize_u64(self, v: u64) -> Result<(), ColumnError> {
        self.b.list_value(v);
        Ok(())
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<No, ColumnError> {
        unsupported("a sequence", "a u64 in a list")
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<No, ColumnError> {
        unsupported("a struct", "a u64 in a list")
    }
    refuse_compound!("a u64 in a list");
    refuse_scalars!("a u64 in a list"; serialize_bool(bool), serialize_i8(i8), serialize_i16(i16),
        serialize_i32(i32), serialize_i64(i64), serialize_u8(u8), serialize_u16(u16), serialize_u32(u32),
        serialize_f32(f32), serialize_f64(f64), serialize_char(char), serialize_str(&str), serialize_bytes(&[u8]));
}

#[cfg(test)]
mod tests;
