//! ns-2.35 `Agent/TCPSink` (tcp-sink.cc `TcpSink::recv`): every segment is acked at
//! once.

use crate::config::SinkConfig;
use crate::error::ConfigError;

/// One ack per arriving segment. No parameters and no state.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EveryPacket;

impl EveryPacket {
    /// Nothing to validate beyond what [`super::AckPolicy::from_config`] checks; the
    /// constructor exists so every rule is built the same way.
    pub fn from_config(_field: &str, _cfg: &SinkConfig) -> Result<EveryPacket, ConfigError> {
        Ok(EveryPacket)
    }
}
