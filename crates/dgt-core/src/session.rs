//! One board's pipeline: bytes → messages → board state → moves, clocks, alerts.

use crate::config::CoreConfig;
use crate::engine::Emitted;
use crate::input::InputKind;

pub struct Session {
    label: String,
}

impl Session {
    pub fn new(label: &str, _config: &CoreConfig) -> Self {
        Session {
            label: label.to_string(),
        }
    }
    pub fn label(&self) -> &str {
        &self.label
    }
    pub fn handle(&mut self, _t_ms: u64, _kind: &InputKind, _out: &mut Emitted) {}
    pub fn on_timer(&mut self, _t_ms: u64, _out: &mut Emitted) {}
    pub fn deadline(&self) -> Option<u64> {
        None
    }
}
