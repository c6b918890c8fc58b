//! Optional queue stages, applied by the [`super::buffer::Buffer`] of any discipline:
//! the ack filter on the way in (`ack_filter`), acks-first scheduling on the way out
//! (`acks_first`). Configured as a list (`queue.stages`), held as one field per stage
//! so the hot path tests an `Option` per stage instead of walking a list.
//!
//! Adding a stage: a file with the stage's struct and its `from_config`, a field
//! here, a variant in `config::StageConfig`, and its call in `Buffer::on_arrival`
//! (enqueue side) or `Buffer::next` (dequeue side).

use super::ack_filter::AckFilter;
use super::acks_first::AcksFirst;
use crate::config::StageConfig;
use crate::error::ConfigError;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stages {
    pub ack_filter: Option<AckFilter>,
    pub acks_first: Option<AcksFirst>,
}

impl Stages {
    /// The stages listed at `field` (e.g. `links[0].queue.stages`); each kind at most once.
    pub fn from_config(field: &str, list: &[StageConfig]) -> Result<Stages, ConfigError> {
        let mut s = Stages::default();
        for (i, st) in list.iter().enumerate() {
            let f = format!("{field}[{i}]");
            let dup = match st {
                StageConfig::AckFilter { .. } => s.ack_filter.replace(AckFilter::from_config(&f, st)?).is_some(),
                StageConfig::AcksFirst => s.acks_first.replace(AcksFirst::from_config(&f, st)?).is_some(),
            };
            if dup {
                return Err(ConfigError::new(format!("{f}.kind"), st.kind_name(), "this stage is listed twice"));
            }
        }
        Ok(s)
    }

    /// No stage at all.
    pub fn is_empty(&self) -> bool {
        self.ack_filter.is_none() && self.acks_first.is_none()
    }
}
