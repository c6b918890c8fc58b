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
