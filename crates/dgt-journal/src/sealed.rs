//! Sealed blocks: the journal's older steps and events, a few thousand steps at a time, packed
//! into one row and deflated.
//!
//! A row per step and per event costs the journal far more than what it records: a clock
//! reading a second per board is 171 bytes of event JSON, plus its row, plus two index
//! entries, for 6 bytes the board sent. The newest steps stay in the row tables (`steps`,
//! `events`: what the writer appends and what a resuming client or the cluster publisher
//! reads most); once there are [`SEAL_AT`] of them, the oldest [`SEAL_STEPS`] are moved into
//! one `blocks` row in one transaction. Nothing is dropped or changed: a block decodes to the
//! very steps (raw bytes, operator actions, link changes, timer firings, with their ids) and
//! the very event JSON (with their seq and game), so replay, export and every reader see the
//! journal as it was written.
//!
//! The encoding (before deflate, two streams): `steps` holds, per step, its id and time as
//! deltas, its kind, its board (a dictionary index: a new name is written once per block),
//! its payload, and its events' seq (delta) and game (dictionary); `events` holds the events'
//! JSON, one per line (JSON text never holds a raw newline).

use std::io::{Read, Write};

use dgt_core::{Input, InputKind};
use flate2::Compression;
use flate2::read::DeflateDecoder;
use flate2::write::DeflateEncoder;

use crate::batch::Cause;

/// Once the row tables hold this many steps, the oldest [`SEAL_STEPS`] are sealed: the rows
/// (the part of the journal that weighs ten times its content) stay under a megabyte.
pub const SEAL_AT: u64 = 2_048;
/// Steps per block: at 1,000 boards about half a second, at 40 boards half a minute —
/// some hundred kilobytes of JSON, well past deflate's 32 KiB window, so it finds the
/// repeats (the same keys, the same boards); small enough that a reader decodes a block in
/// a millisecond.
pub const SEAL_STEPS: u64 = 1_536;

/// One event as stored: its seq, the game it belongs to (for `events_of_game`) and its JSON.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredEvent {
    pub seq: u64,
    pub game: Option<String>,
    pub json: String,
}

/// One step as stored, with the events it produced, in seq order.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredStep {
    pub id: u64,
    pub cause: Cause,
    pub events: Vec<StoredEvent>,
}

/// Why a block cannot be decoded.
#[derive(Debug, thiserror::Error)]
pub enum BlockError {
    #[error("inflating: {0}")]
    Inflate(#[from] std::io::Error),
    #[error("the block ends inside a step")]
    Truncated,
    #[error("unknown step kind {0}")]
    Kind(u8),
    #[error("a dictionary index out of range")]
    Index,
    #[error("text that is not UTF-8")]
    Utf8,
    #[error("{0}")]
    Json(#[from] serde_json::Error),
    #[error("fewer event lines than events")]
    MissingEvent,
}

/// The two deflated streams of a block.
pub struct Packed {
    pub steps: Vec<u8>,
    pub events: Vec<u8>,
}

const TIMERS: u8 = 0;
const RX: u8 = 1;
const TX: u8 = 2;
const LINK: u8 = 3;
const OP: u8 = 4;

/// Packs steps (in id order) into a block.
pub fn pack(steps: &[StoredStep]) -> std::io::Result<Packed> {
    let mut meta = Vec::new();
    let mut lines = Vec::new();
    let mut boards = Dictionary::default();
    let mut games = Dictionary::default();
    let (mut id, mut t, mut seq) = (0u64, 0u64, 0u64);
    for step in steps {
        put_varint(&mut meta, step.id.wrapping_sub(id));
        id = step.id;
        let t_ms = step.cause.t_ms();
        put_varint(&mut meta, zigzag(t_ms.wrapping_sub(t) as i64));
        t = t_ms;
        match &step.cause {
            Cause::Timers { .. } => meta.push(TIMERS),
            Cause::Input(i) => {
                let (kind, payload): (u8, Vec<u8>) = match &i.kind {
                    InputKind::Rx(b) => (RX, b.clone()),
                    InputKind::Tx(b) => (TX, b.clone()),
                    InputKind::Link(l) => (LINK, serde_json::to_vec(l)?),
                    InputKind::Op(o) => (OP, serde_json::to_vec(o)?),
                };
                meta.push(kind);
                boards.put(&mut meta, Some(&i.board));
                put_bytes(&mut meta, &payload);
            }
        }
        put_varint(&mut meta, step.events.len() as u64);
        for e in &step.events {
            put_varint(&mut meta, zigzag(e.seq.wrapping_sub(seq) as i64));
            seq = e.seq;
            games.put(&mut meta, e.game.as_deref());
            lines.extend_from_slice(e.json.as_bytes());
            lines.push(b'\n');
        }
    }
    Ok(Packed {
        steps: deflate(&meta)?,
        events: deflate(&lines)?,
    })
}

/// Unpacks a block into its steps, in id order.
pub fn unpack(steps: &[u8], events: &[u8]) -> Result<Vec<StoredStep>, BlockError> {
    let meta = inflate(steps)?;
    let text = inflate(events)?;
    let text = std::str::from_utf8(&text).map_err(|_| BlockError::Utf8)?;
    let mut lines = text.split_terminator('\n');
    let mut r = Reader { buf: &meta, at: 0 };
    let mut boards: Vec<String> = Vec::new();
    let mut games: Vec<String> = Vec::new();
    let (mut id, mut t, mut seq) = (0u64, 0u64, 0u64);
    let mut out = Vec::new();
    while !r.done() {
        id = id.wrapping_add(r.varint()?);
        t = t.wrapping_add(unzigzag(r.varint()?) as u64);
        let kind = r.byte()?;
        let cause = if kind == TIMERS {
            Cause::Timers { until_ms: t }
        } else {
            let board = r.entry(&mut boards)?.ok_or(BlockError::Index)?;
            let payload = r.bytes()?;
            let kind = match kind {
                RX => InputKind::Rx(payload.to_vec()),
                TX => InputKind::Tx(payload.to_vec()),
                LINK => InputKind::Link(serde_json::from_slice(payload)?),
                OP => InputKind::Op(serde_json::from_slice(payload)?),
                other => return Err(BlockError::Kind(other)),
            };
            Cause::Input(Input {
                t_ms: t,
                board,
                kind,
            })
        };
        let n = r.varint()?;
        let mut evs = Vec::with_capacity(n.min(1024) as usize);
        for _ in 0..n {
            seq = seq.wrapping_add(unzigzag(r.varint()?) as u64);
            let game = r.entry(&mut games)?;
            let json = lines.next().ok_or(BlockError::MissingEvent)?.to_string();
            evs.push(StoredEvent { seq, game, json });
        }
        out.push(StoredStep {
            id,
            cause,
            events: evs,
        });
    }
    Ok(out)
}

fn deflate(raw: &[u8]) -> std::io::Result<Vec<u8>> {
    let mut enc = DeflateEncoder::new(Vec::with_capacity(raw.len() / 8), Compression::default());
    enc.write_all(raw)?;
    enc.finish()
}

fn inflate(packed: &[u8]) -> std::io::Result<Vec<u8>> {
    let mut out = Vec::with_capacity(packed.len() * 8);
    DeflateDecoder::new(packed).read_to_end(&mut out)?;
    Ok(out)
}

/// Names seen in a block: index 0 is "none", k is the k-th name; a name seen for the first
/// time is written after its new index.
#[derive(Default)]
struct Dictionary {
    names: std::collections::HashMap<String, u64>,
}

impl Dictionary {
    fn put(&mut self, out: &mut Vec<u8>, name: Option<&str>) {
        let Some(name) = name else {
            put_varint(out, 0);
            return;
        };
        if let Some(k) = self.names.get(name) {
            put_varint(out, *k);
            return;
        }
        let k = self.names.len() as u64 + 1;
        self.names.insert(name.to_string(), k);
        put_varint(out, k);
        put_bytes(out, name.as_bytes());
    }
}

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn put_bytes(out: &mut Vec<u8>, b: &[u8]) {
    put_varint(out, b.len() as u64);
    out.extend_from_slice(b);
}

fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

fn unzigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

struct Reader<'a> {
    buf: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn done(&self) -> bool {
        self.at >= self.buf.len()
    }

    fn byte(&mut self) -> Result<u8, BlockError> {
        let b = *self.buf.get(self.at).ok_or(BlockError::Truncated)?;
        self.at += 1;
        Ok(b)
    }

    fn varint(&mut self) -> Result<u64, BlockError> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.byte()?;
            v |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(BlockError::Truncated)
    }

    fn bytes(&mut self) -> Result<&'a [u8], BlockError> {
        let n = self.varint()? as usize;
        let end = self.at.checked_add(n).ok_or(BlockError::Truncated)?;
        let b = self.buf.get(self.at..end).ok_or(BlockError::Truncated)?;
        self.at = end;
        Ok(b)
    }

    /// A dictionary reference (see [`Dictionary`]), learning a new name.
    fn entry(&mut self, names: &mut Vec<String>) -> Result<Option<String>, BlockError> {
        let k = self.varint()? as usize;
        if k == 0 {
            return Ok(None);
        }
        if k == names.len() + 1 {
            let name = std::str::from_utf8(self.bytes()?).map_err(|_| BlockError::Utf8)?;
            names.push(name.to_string());
        }
        names.get(k - 1).cloned().map(Some).ok_or(BlockError::Index)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dgt_core::{Link, Operation};

    fn step(id: u64, cause: Cause, events: &[(u64, Option<&str>, &str)]) -> StoredStep {
        StoredStep {
            id,
            cause,
            events: events
                .iter()
                .map(|(seq, game, json)| StoredEvent {
                    seq: *seq,
                    game: game.map(String::from),
                    json: json.to_string(),
                })
                .collect(),
        }
    }

    fn input(t_ms: u64, board: &str, kind: InputKind) -> Cause {
        Cause::Input(Input {
            t_ms,
            board: board.into(),
            kind,
        })
    }

    #[test]
    fn every_kind_of_step_unpacks_as_packed() {
        let steps = vec![
            step(7, input(100, "b1", InputKind::Rx(vec![0x91, 0, 8])), &[]),
            step(
                8,
                input(90, "b2", InputKind::Tx(vec![0x45])),
                &[(3, None, r#"{"seq":3}"#)],
            ),
            step(
                9,
                input(
                    120,
                    "b1",
                    InputKind::Link(Link::Disconnected {
                        reason: Some("unplugged".into()),
                        stopping: false,
                    }),
                ),
                &[(4, Some("b1/1"), "{}"), (5, Some("b1/1"), "{\"a\":\"é\"}")],
            ),
            step(11, Cause::Timers { until_ms: 5_000 }, &[(9, None, "[]")]),
            step(
                12,
                input(4_000, "b2", InputKind::Op(Operation::Ack(4))),
                &[],
            ),
        ];
        let packed = pack(&steps).unwrap();
        assert_eq!(unpack(&packed.steps, &packed.events).unwrap(), steps);
    }

    #[test]
    fn a_damaged_block_is_an_error_not_a_panic() {
        let steps = vec![step(1, input(1, "b", InputKind::Rx(vec![1, 2])), &[])];
        let packed = pack(&steps).unwrap();
        assert!(unpack(&packed.steps[..packed.steps.len() / 2], &packed.events).is_err());
        assert!(unpack(b"not deflate", &packed.events).is_err());
    }
}
