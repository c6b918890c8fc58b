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

/// `v` must be finite and > 0.
pub fn positive(field: &str, v: f64) -> Result<f64, ConfigError> {
    if !v.is_finite() || v <= 0.0 {
        return Err(ConfigError::new(field, v, "must be a finite number greater than 0"));
    }
    Ok(v)
}

/// `v` must be finite and >= 0.
pub fn non_negative(field: &str, v: f64) -> Result<f64, ConfigError> {
    if !v.is_finite() || v < 0.0 {
        return Err(ConfigError::new(field, v, "must be a finite number >= 0"));
    }
    Ok(v)
}

