//! What travels between nodes and the hub, as JSON.

use dgt_core::{Event, Operation};
use serde::{Deserialize, Serialize};

use super::packed_clock::{Cursor, PackedClock};

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

/// Messages shorter than this are sent as JSON: deflate gains little on a few events, and
/// the broker's own per-message cost is then most of the message.
const DEFLATE_FROM_BYTES: usize = 512;
/// What starts a deflated message (a JSON message starts with `{`).
const DEFLATED: &[u8] = b"\0dz";

/// A node's message as it travels: [`NodeBatch`] with its clock readings short
/// ([`PackedClock`]). A message of an earlier version (every event as JSON) reads the same.
#[derive(Serialize, Deserialize)]
struct WireBatch {
    node: String,
    from_step: u64,
    to_step: u64,
    clock_unix_ms: u64,
    records: Vec<WireRecord>,
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum WireRecord {
    Event(Box<Event>),
    Ack {
        alert: u64,
        board: String,
        t_ms: u64,
    },
    Clock(PackedClock),
}

impl WireBatch {
    fn of(b: &NodeBatch) -> WireBatch {
        let mut cursor = Cursor::default();
        let records = b
            .records
            .iter()
            .map(|r| match r {
                Record::Event(e) => {
                    let packed = PackedClock::pack(e, cursor);
                    cursor = Cursor::after(e);
                    match packed {
                        Some(p) => WireRecord::Clock(p),
                        None => WireRecord::Event(e.clone()),
                    }
                }
                Record::Ack { alert, board, t_ms } => WireRecord::Ack {
                    alert: *alert,
                    board: board.clone(),
                    t_ms: *t_ms,
                },
            })
            .collect();
        WireBatch {
            node: b.node.clone(),
            from_step: b.from_step,
            to_step: b.to_step,
            clock_unix_ms: b.clock_unix_ms,
            records,
        }
    }

    fn into_batch(self) -> Result<NodeBatch, DecodeError> {
        let mut cursor = Cursor::default();
        let mut records = Vec::with_capacity(self.records.len());
        for r in self.records {
            records.push(match r {
                WireRecord::Event(e) => {
                    cursor = Cursor::after(&e);
                    Record::Event(e)
                }
                WireRecord::Clock(p) => {
                    let e = p.unpack(cursor).ok_or(DecodeError::Clock)?;
                    cursor = Cursor::after(&e);
                    Record::Event(Box::new(e))
                }
                WireRecord::Ack { alert, board, t_ms } => Record::Ack { alert, board, t_ms },
            });
        }
        Ok(NodeBatch {
            node: self.node,
            from_step: self.from_step,
            to_step: self.to_step,
            clock_unix_ms: self.clock_unix_ms,
            records,
        })
    }
}

impl NodeBatch {
    /// The message's payload: its JSON with clock readings short, deflated when it is long
    /// (a node gathering over `publish_every_ms`, a catch-up after an outage, a republished
    /// journal): the stream holds the same events in a fraction of the bytes.
    pub fn encode(&self) -> serde_json::Result<Vec<u8>> {
        let json = serde_json::to_vec(&WireBatch::of(self))?;
        if json.len() < DEFLATE_FROM_BYTES {
            return Ok(json);
        }
        let mut out = DEFLATED.to_vec();
        let mut enc = flate2::write::DeflateEncoder::new(&mut out, flate2::Compression::default());
        let packed = std::io::Write::write_all(&mut enc, &json).and_then(|()| enc.finish());
        match packed {
            Ok(_) => Ok(out),
            Err(_) => Ok(json),
        }
    }

    /// Reads a payload written by [`NodeBatch::encode`] (JSON or deflated JSON, with or
    /// without short clock readings).
    pub fn decode(payload: &[u8]) -> Result<NodeBatch, DecodeError> {
        let Some(packed) = payload.strip_prefix(DEFLATED) else {
            return serde_json::from_slice::<WireBatch>(payload)?.into_batch();
        };
        let mut json = Vec::with_capacity(packed.len() * 6);
        std::io::Read::read_to_end(&mut flate2::read::DeflateDecoder::new(packed), &mut json)?;
        serde_json::from_slice::<WireBatch>(&json)?.into_batch()
    }
}

/// Why a node's message cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum DecodeError {
    #[error("not JSON: {0}")]
    Json(#[from] serde_json::Error),
    #[error("damaged deflate: {0}")]
    Inflate(#[from] std::io::Error),
    #[error("a short clock reading that stands for no event")]
    Clock,
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

/// A node's events as soon as its journal has committed them, on its live subject (core
/// NATS, not stored): the hub shows them to the dashboards that ask before the stream,
/// which gathers a node's events for `publish_every_ms`, has numbered them. Nothing is
/// decided from it — the stream stays the record — so a lost one is only a later sight.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Preview {
    pub node: String,
    /// Unix ms at the node's clock 0 (`t_ms` + this = Unix time), as in [`NodeBatch`].
    pub clock_unix_ms: u64,
    pub events: Vec<Event>,
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
    fn a_long_batch_is_deflated_and_reads_back_as_written() {
        let clock = |seq| {
            Record::Event(Box::new(Event::new(
                seq,
                "board-10010",
                seq * 1000,
                EventBody::Clock(dgt_core::event::ClockEvent {
                    white_ms: Some(300_000 - seq),
                    black_ms: Some(299_000),
                    running: None,
                    left_ms: 300_000 - seq,
                    right_ms: 299_000,
                    white_side: Some(dgt_core::side::ClockSide::Left),
                }),
            )))
        };
        let b = NodeBatch {
            node: "hall-a".into(),
            from_step: 1,
            to_step: 90,
            clock_unix_ms: 1_700_000_000_000,
            records: (1..90).map(clock).collect(),
        };
        let json = serde_json::to_vec(&b).unwrap();
        let payload = b.encode().unwrap();
        assert!(payload.starts_with(DEFLATED));
        assert!(
            payload.len() * 20 < json.len(),
            "{} vs {}",
            payload.len(),
            json.len()
        );
        assert_eq!(NodeBatch::decode(&payload).unwrap(), b);
        let damaged = &payload[..payload.len() / 2];
        assert!(NodeBatch::decode(damaged).is_err());
    }

    #[test]
    fn clock_readings_travel_short_among_other_records_and_read_back_exactly() {
        let clock = |seq, t_ms, running| {
            Record::Event(Box::new(Event::new(
                seq,
                "board-10002",
                t_ms,
                EventBody::Clock(dgt_core::event::ClockEvent {
                    white_ms: Some(100_000 + seq),
                    black_ms: Some(90_000),
                    running,
                    left_ms: 100_000 + seq,
                    right_ms: 90_000,
                    white_side: Some(dgt_core::side::ClockSide::Left),
                }),
            )))
        };
        let mut on_hub = Event::new(
            12,
            "board-10002",
            4_000,
            EventBody::GameStart {
                game: "board-10002/2".into(),
                start_fen: "x".into(),
                found_under_way: false,
            },
        );
        on_hub.node = Some("hall-b".into());
        let b = NodeBatch {
            node: "hall-b".into(),
            from_step: 40,
            to_step: 52,
            clock_unix_ms: 1_700_000_000_000,
            records: vec![
                clock(10, 3_000, Some(dgt_core::Side::White)),
                Record::Ack {
                    alert: 3,
                    board: "board-10002".into(),
                    t_ms: 3_500,
                },
                clock(11, 3_990, None),
                Record::Event(Box::new(on_hub)),
                clock(13, 3_995, Some(dgt_core::Side::Black)),
                clock(20, 2_000, None),
            ],
        };
        let payload = b.encode().unwrap();
        let text = String::from_utf8(payload.clone()).unwrap();
        assert_eq!(text.matches(r#"{"clock":["#).count(), 4, "{text}");
        assert_eq!(NodeBatch::decode(&payload).unwrap(), b);
        // What an earlier version wrote (every event as JSON) reads the same.
        let earlier = serde_json::to_vec(&b).unwrap();
        assert_eq!(NodeBatch::decode(&earlier).unwrap(), b);
        let nonsense = text.replacen(",0,1]", ",0,9]", 1);
        assert!(matches!(
            NodeBatch::decode(nonsense.as_bytes()),
            Err(DecodeError::Clock)
        ));
    }

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
        assert_eq!(b.encode().unwrap(), json.as_bytes());
        assert_eq!(NodeBatch::decode(json.as_bytes()).unwrap(), b);
        let req = ActionRequest {
            board: "7".into(),
            op: Operation::Ack(4),
        };
        let json = serde_json::to_string(&req).unwrap();
        assert_eq!(json, r#"{"board":"7","op":{"ack":4}}"#);
    }
}
