//! Names of nodes, flows and result rows, stored compactly: one string buffer and one end offset per
//! name, instead of a `String` each (with 10^6 replica connections, three `String`s per
//! connection were ~170 bytes of headers and allocator chunks; here a name costs its
//! bytes plus 4).

use std::ops::Index;

/// A list of names, indexable like a `Vec<String>` (`names[i]` is a `&str`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Names {
    buf: String,
    /// `ends[i]`: where name `i` ends in `buf` (it starts where name `i - 1` ends).
    ends: Vec<u32>,
}

impl Names {
    /// An empty list with room for `n` names of `bytes` bytes in all.
    pub fn with_capacity(n: usize, bytes: usize) -> Names {
        Names { buf: String::with_capacity(bytes), ends: Vec::with_capacity(n) }
    }

    /// Room for `n` more names of `bytes` more bytes in all.
    pub fn reserve(&mut self, n: usize, bytes: usize) {
        self.buf.reserve_exact(bytes);
        self.ends.reserve_exact(n);
    }

    /// Append a name.
    pub fn push(&mut self, name: &str) {
        self.buf.push_str(name);
        self.ends.push(u32::try_from(self.buf.len()).expect("names: more than 4 GiB of names"));
    }

    /// Append `prefix` followed by `i` in decimal, as `push_fmt(format_args!("{prefix}{i}"))`
    /// without the formatting machinery (replicas name 10^5-10^6 nodes and flows).
    pub fn push_indexed(&mut self, prefix: &str, i: u64) {
        self.buf.push_str(prefix);
        push_decimal(&mut self.buf, i);
        self.ends.push(u32::try_from(self.buf.len()).expect("names: more than 4 GiB of names"));
    }

    /// Append a name written by `f` (e.g. `write!(s, "{}.{i}", base)`), without a
    /// temporary `String`.
    pub fn push_fmt(&mut self, args: std::fmt::Arguments) {
        use std::fmt::Write;
        let _ = self.buf.write_fmt(args);
        self.ends.push(u32::try_from(self.buf.len()).expect("names: more than 4 GiB of names"));
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Name `i`, if there is one.
    pub fn get(&self, i: usize) -> Option<&str> {
        let end = *self.ends.get(i)? as usize;
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        Some(&self.buf[start..end])
    }

    /// The names in order.
    pub fn iter(&self) -> impl Iterator<Item = &str> + '_ {
        (0..self.len()).map(move |i| &self[i])
    }

    /// Bytes held, by capacity.
    pub fn memory_bytes(&self) -> usize {
        self.buf.capacity() + self.ends.capacity() * 4
    }

    /// Release spare capacity (after the last `push`).
    pub fn shrink_to_fit(&mut self) {
        self.buf.shrink_to_fit();
        self.ends.shrink_to_fit();
    }
}

/// Append `v` in decimal to `s` (as `write!(s, "{v}")`, without the formatting
/// machinery).
pub fn push_decimal(s: &mut String, mut v: u64) {
    let mut d = [0u8; 20];
    let mut k = d.len();
    loop {
        k -= 1;
        d[k] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    for &c in &d[k..] {
        s.push(char::from(c));
    }
}

impl Index<usize> for Names {
    type Output = str;
    fn index(&self, i: usize) -> &str {
        match self.get(i) {
            Some(s) => s,
            None => panic!("name index {i} out of range ({} names)", self.len()),
        }
    }
}

/// Written out as a list of strings, as a `Vec<String>` would be.
impl serde::Serialize for Names {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
}

impl<S: AsRef<str>> FromIterator<S> for Names {
    fn from_iter<I: IntoIterator<Item = S>>(it: I) -> Names {
        let mut n = Names::default();
        for s in it {
            n.push(s.as_ref());
        }
        n
    }
}

#[cfg(test)]
mod tests {
    use super::Names;

    #[test]
    fn names_index_like_a_vec_of_strings() {
        let v = ["a", "", "host.s12", "é"];
        let mut n: Names = v.iter().collect();
        n.push_fmt(format_args!("{}.{}", "c", 7));
        assert_eq!(n.len(), 5);
        for (i, s) in v.iter().enumerate() {
            assert_eq!(&n[i], *s);
        }
        assert_eq!(&n[4], "c.7");
        assert_eq!(n.get(5), None);
        assert_eq!(n.iter().collect::<Vec<_>>(), ["a", "", "host.s12", "é", "c.7"]);
        assert_eq!(serde_json::to_string(&n).unwrap(), r#"["a","","host.s12","é","c.7"]"#);
    }

    #[test]
    fn indexed_names_are_the_formatted_ones() {
        let mut n = Names::default();
        let vals = [0u64, 1, 9, 10, 99, 100, 12_345, 1_000_000, u64::MAX];
        for &v in &vals {
            n.push_indexed("rep.s", v);
        }
        for (i, &v) in vals.iter().enumerate() {
            assert_eq!(&n[i], format!("rep.s{v}"));
        }
        let mut s = String::from("x.");
        super::push_decimal(&mut s, 4_200);
        assert_eq!(s, "x.4200");
    }
}
