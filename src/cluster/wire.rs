//! What travels between nodes and the hub, as JSON.

use dgt_core::{Event, Operation};
use serde::{Deserialize, Serialize};

/// One message of a node's stream: the records of the journal steps after `from_step` up to
/// `to_step`, whole steps only. Published strictly in order, each only after the broker
/// acknowledged the one before, so the stream holds a node's journal with no gap; a retry
/// carries the same message id (`<node>:<to_step>`), so nothing is stored twice.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NodeBatch {
    pub node: String,
    pub from_step: u64,
    pub to_step: u64,
    /// Unix milliseconds at the node's core time 0: the hub puts every node's events on one
    /// clock (each daemon counts its own milliseconds).
    pub clock_unix_ms: u64,
    pub records: Vec<Record>,
}

/// A journaled event, or an acknowledgement (the core emits no event for it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Record {
    Event(Box<Event>),
    Ack {
        alert: u64,
        board: String,
        t_ms: u64,
    },
}

/// What the hub itself stores in the stream, so that every hub rebuilds the same view.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HubRecord {
    /// A node went silent, or is heard again.
    NodeState {
        node: String,
        online: bool,
        unix_ms: u64,
    },
    /// The arbiter acknowledged one of the hub's own alerts (a node's state), by hub seq.
    Ack { alert: u64, unix_ms: u64 },
    /// A round-wide action the chief arbiter took on the hub: pairings, a table result, or
    /// who took it (`by`). Passed back as the event it is, as a node's core does.
    Round { op: Operation, unix_ms: u64 },
    /// The stream was made anew (a broker lost its store) and this hub ran through it: it had
    /// read the old stream up to `read_up_to` and numbered events up to `hub_seq`. A hub that
    /// reads this without having run through the loss numbers events differently.
    StreamRemade {
        read_up_to: u64,
        hub_seq: u64,
        unix_ms: u64,
    },
}

/// A node's sign of life, every `heartbeat_ms`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Heartbeat {
    pub node: String,
    pub unix_ms: u64,
    /// The last event seq the node's journal committed.
    pub last_seq: u64,
    /// The last journal step the broker holds from this node.
    pub published_step: u64,
    /// The boards the node reads now (labels).
    pub boards: Vec<String>,
    /// False when the node's journal is failing or lagging.
    pub healthy: bool,
    /// Why the node publishes nothing, when it refuses to (one sentence with the fix).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
    /// What kind of problem (`refused`, `duplicate`, `permission_denied`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub problem_kind: Option<String>,
    pub version: String,
}

/// An arbiter action for one of the node's boards (the node's own label).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ActionRequest {
    pub board: String,
    pub op: Operation,
}

/// The node's answer, sent once the action is journaled (or refused).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ActionReply {
    pub ok: bool,
    /// Why not: the action was refused (`refused`) or could not be carried out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(default)]
    pub refused: bool,
}

/// Unix milliseconds now.
pub fn unix_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use dgt_core::EventBody;

    #[test]
    fn a_batch_reads_back_as_written() {
        let b = NodeBatch {
            node: "hall-a".into(),
            from_step: 3,
            to_step: 9,
            clock_unix_ms: 1_700_000_000_000,
            records: vec![
                Record::Ack {
                    alert: 4,
                    board: "7".into(),
                    t_ms: 10,
                },
                Record::Event(Box::new(Event::new(
                    5,
                    "7",
                    11,
                    EventBody::GameStart {
                        game: "7/1".into(),
                        start_fen: "x".into(),
                        found_under_way: false,
                    },
                ))),
            ],
        };
        let json = serde_json::to_string(&b).unwrap();
        assert_eq!(serde_json::from_str::<NodeBatch>(&json).unwrap(), b);
        let req = ActionRequest {
            board: "7".into(),
            op: Operation::Ack(4),
        };
        let json = serde_json::to_string(&req).unwrap();
        assert_eq!(json, r#"{"board":"7","op":{"ack":4}}"#);
    }
}
