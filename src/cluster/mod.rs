//! One event across several venue PCs, on NATS JetStream (contract §5).
//!
//! Each daemon with `[cluster]` is a **node**: it keeps its own journal as the source of truth
//! and publishes it onward, step by step, to the event's JetStream stream; it heartbeats, and
//! answers the arbiter actions the hub sends it. The **hub** (`dgt-arbiter hub`) reads the
//! stream from its beginning and serves the dashboard for the whole event.
//!
//! Data flow: [`wire`] (what travels) → [`connect`] (reaching the broker) → [`node`]
//! (journal → stream, heartbeats, actions in) → [`hub`] (stream → hall, actions out, node
//! liveness).
//!
//! Names, for an event `open-2026` and a node `hall-a`:
//!
//! | what | name |
//! |---|---|
//! | the stream | `DGT_open-2026`, subjects `dgt.open-2026.*.events` |
//! | a node's journal, published | `dgt.open-2026.hall-a.events` (a chain: see [`history`]) |
//! | the hub's node status and acks | `dgt.open-2026._hub.events` |
//! | a node's heartbeat (not stored) | `dgt.open-2026.hall-a.heartbeat` |
//! | actions for a node (request/reply) | `dgt.open-2026.hall-a.actions` |

pub mod connect;
pub mod epochs;
pub mod history;
pub mod hub;
pub mod link_problem;
pub mod node;
mod packed_clock;
pub mod stream;
pub mod stream_seen;
pub mod tls_check;
pub mod wire;

/// The subject token of the hub's own records (not a valid node name, so never a node's).
pub const HUB_TOKEN: &str = "_hub";

/// The stream and subject names of one event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Names {
    event: String,
}

impl Names {
    pub fn new(event: &str) -> Self {
        Names {
            event: event.to_string(),
        }
    }

    pub fn stream(&self) -> String {
        format!("DGT_{}", self.event)
    }

    /// Every subject the stream stores.
    pub fn stream_subjects(&self) -> String {
        format!("dgt.{}.*.events", self.event)
    }

    /// Where a node (or the hub, with [`HUB_TOKEN`]) publishes its records.
    pub fn events(&self, node: &str) -> String {
        format!("dgt.{}.{node}.events", self.event)
    }

    /// Where a node tells its events as they are journaled (not stored: [`wire::Preview`]).
    pub fn live(&self, node: &str) -> String {
        format!("dgt.{}.{node}.live", self.event)
    }

    pub fn all_live(&self) -> String {
        format!("dgt.{}.*.live", self.event)
    }

    pub fn heartbeat(&self, node: &str) -> String {
        format!("dgt.{}.{node}.heartbeat", self.event)
    }

    pub fn all_heartbeats(&self) -> String {
        format!("dgt.{}.*.heartbeat", self.event)
    }

    pub fn actions(&self, node: &str) -> String {
        format!("dgt.{}.{node}.actions", self.event)
    }

    /// The node a stored subject belongs to.
    pub fn node_of<'a>(&self, subject: &'a str) -> Option<&'a str> {
        let rest = subject
            .strip_prefix("dgt.")?
            .strip_prefix(self.event.as_str())?;
        let rest = rest.strip_prefix('.')?;
        let (node, kind) = rest.split_once('.')?;
        matches!(kind, "events" | "heartbeat" | "live").then_some(node)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subjects_name_the_event_and_the_node() {
        let n = Names::new("open-2026");
        assert_eq!(n.stream(), "DGT_open-2026");
        assert_eq!(n.events("hall-a"), "dgt.open-2026.hall-a.events");
        assert_eq!(n.node_of("dgt.open-2026.hall-a.events"), Some("hall-a"));
        assert_eq!(n.node_of("dgt.open-2026.hall-a.heartbeat"), Some("hall-a"));
        assert_eq!(n.live("hall-a"), "dgt.open-2026.hall-a.live");
        assert_eq!(n.node_of(&n.live("hall-a")), Some("hall-a"));
        assert_eq!(n.node_of("dgt.other.hall-a.events"), None);
        assert_eq!(n.node_of("dgt.open-2026.hall-a.actions"), None);
    }
}
