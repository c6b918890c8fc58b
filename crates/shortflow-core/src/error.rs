//! Errors reported to users: always name the offending field and value.

use std::fmt;

/// A configuration problem found before or while building a simulation.
#[derive(Clone, Debug, PartialEq)]
pub struct ConfigError {
    /// Dotted path of the offending field, e.g. `links[2].rate_bps`.
    pub field: String,
    /// The offending value, as text.
    pub value: String,
    /// What is wrong and, where possible, what would be valid.
    pub message: String,
}

impl ConfigError {
    pub fn new(field: impl Into<String>, value: impl fmt::Display, message: impl Into<String>) -> Self {
        ConfigError { field: field.into(), value: value.to_string(), message: message.into() }
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} = {}: {}", self.field, self.value, self.message)
    }
}

impl std::error::Error for ConfigError {}

/// Shorthand for [`ConfigError::new`], used by every builder.
pub fn err(field: impl Into<String>, value: impl fmt::Display, msg: impl Into<String>) -> ConfigError {
    ConfigError::new(field, value, msg)
}

/// `v` must be finite and > 0.
///
/// The field path is any `Display` (a `&str`, or `format_args!("{f}.delay_s")`, which is
/// written out only for an error: builders call these once per replica copy).
pub fn positive(field: impl fmt::Display, v: f64) -> Result<f64, ConfigError> {
    if !v.is_finite() || v <= 0.0 {
        return Err(ConfigError::new(field.to_string(), v, "must be a finite number greater than 0"));
    }
    Ok(v)
}

/// `v` must be finite and >= 0.
pub fn non_negative(field: impl fmt::Display, v: f64) -> Result<f64, ConfigError> {
    if !v.is_finite() || v < 0.0 {
        return Err(ConfigError::new(field.to_string(), v, "must be a finite number >= 0"));
    }
    Ok(v)
}

/// `"; did you mean \"x\"?"` for the known name closest to `name` (edit distance),
/// or an empty string when none is close.
pub fn suggest<'a>(name: &str, known: impl Iterator<Item = &'a String>) -> String {
    fn dist(a: &str, b: &str) -> usize {
        let a: Vec<char> = a.chars().collect();
        let b: Vec<char> = b.chars().collect();
        let mut prev: Vec<usize> = (0..=b.len()).collect();
        for i in 1..=a.len() {
            let mut cur = vec![i; b.len() + 1];
            for j in 1..=b.len() {
                let c = if a[i - 1] == b[j - 1] { 0 } else { 1 };
                cur[j] = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + c);
            }
            prev = cur;
        }
        prev[b.len()]
    }
    let best = known.map(|k| (dist(name, k), k)).min_by_key(|(d, _)| *d);
    match best {
        Some((d, k)) if d <= 3.max(name.len() / 3) => format!("; did you mean \"{k}\"?"),
        _ => String::new(),
    }
}

/// The longest time a configuration may name (s): about 31.7 years. Times are kept in
/// integer nanoseconds (u64, up to about 584 years); the bound leaves room for sums
/// of several configured times (a start plus jitter plus idle periods) to stay exact.
pub const MAX_TIME_S: f64 = 1e9;

/// A time in seconds: finite, `>= 0` and at most [`MAX_TIME_S`], as simulator time.
/// The field path as for [`positive`].
pub fn time_s(field: impl fmt::Display, v: f64) -> Result<crate::time::SimTime, ConfigError> {
    let v = non_negative(&field, v)?;
    if v > MAX_TIME_S {
        return Err(ConfigError::new(
            field.to_string(),
            v,
            format!("is beyond the simulator's clock range: times must be at most {MAX_TIME_S:e} s (about 31 years)"),
        ));
    }
    Ok(crate::time::SimTime::from_secs_f64(v))
}

/// A time in seconds that must also be `> 0` (see [`time_s`]).
pub fn positive_time_s(field: impl fmt::Display, v: f64) -> Result<crate::time::SimTime, ConfigError> {
    positive(&field, v)?;
    time_s(field, v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_beyond_the_clock_are_refused_with_field_and_value() {
        assert_eq!(time_s("links[0].delay_s", 0.05).unwrap(), crate::time::SimTime::from_millis(50));
        let e = time_s("links[0].delay_s", 1e12).unwrap_err();
        assert_eq!((e.field.as_str(), e.value.as_str()), ("links[0].delay_s", "1000000000000"));
        assert!(e.message.contains("clock range"), "{e}");
        assert!(time_s("x", -1.0).unwrap_err().message.contains(">= 0"));
        assert!(time_s("x", f64::NAN).is_err());
        assert!(positive_time_s("duration_s", 0.0).is_err());
    }

    #[test]
    fn suggestion_names_the_closest_known_name() {
        let known = ["bottleneck".to_string(), "access".to_string()];
        assert_eq!(suggest("botleneck", known.iter()), "; did you mean \"bottleneck\"?");
        assert_eq!(suggest("zzzzzzzzzzzzzz", known.iter()), "");
    }
}
