//! The core saved to bytes and restored exactly: every board's session and what the core
//! numbers and remembers across boards. A restarted daemon restores the newest snapshot and
//! feeds only the steps after it, instead of replaying a whole event's journal.
//!
//! The bytes are a header naming the format and the program that wrote them, then the
//! state as JSON, deflated (docs/decisions/core-snapshot-format.md). A snapshot is read only
//! by the program version that wrote it: the state's types are the program's own and change
//! between versions; another version's snapshot is refused and the caller replays instead.
//! The configuration is not in the snapshot: it is given again on restore.

use std::collections::BTreeSet;
use std::io::Read;

use serde::{Deserialize, Serialize};

use super::{Core, Slot};
use crate::config::CoreConfig;
use crate::event::Emitted;
use crate::session::Session;

/// What the header says the bytes after it are.
pub const SNAPSHOT_FORMAT: &str = "json+deflate";

/// The program version a snapshot belongs to: the package version and the revision of the
/// state's shape, raised whenever a type reachable from [`Core`] changes within a version.
pub const SNAPSHOT_VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), "/state-1");

const MAGIC: &str = "dgt-core-snapshot";

/// Why a snapshot cannot be restored (the caller then replays the journal in full).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SnapshotError {
    #[error("not a core snapshot (no dgt-core-snapshot header)")]
    NotASnapshot,
    #[error("the snapshot's format is {found:?}; this program reads {SNAPSHOT_FORMAT:?}")]
    OtherFormat { found: String },
    #[error(
        "the snapshot was written by program version {found:?}; this one is {SNAPSHOT_VERSION:?}"
    )]
    OtherVersion { found: String },
    #[error("the snapshot does not decode: {0}")]
    Decode(String),
}

/// The core's state as written: sessions in the order their boards were first heard from
/// (that order breaks no ties, but slot numbers stay as they were).
#[derive(Serialize)]
struct Saved<'a> {
    next_seq: u64,
    scored: &'a BTreeSet<(String, String)>,
    sessions: Vec<&'a Session>,
}

#[derive(Deserialize)]
struct Loaded {
    next_seq: u64,
    scored: BTreeSet<(String, String)>,
    sessions: Vec<Session>,
}

/// The core's state copied as it stood after one step: taken on the core task (a clone of
/// each session, milliseconds at 300 boards) and turned into a snapshot's bytes elsewhere, so
/// that the core never waits for the serialisation (seconds at 300 boards).
#[derive(Clone)]
pub struct CoreImage {
    next_seq: u64,
    scored: BTreeSet<(String, String)>,
    sessions: Vec<Session>,
}

impl CoreImage {
    /// The seq the imaged core gives its next event.
    pub fn next_seq(&self) -> u64 {
        self.next_seq
    }

    /// The snapshot's bytes: the same as [`Core::snapshot`] of the core the image was taken of.
    pub fn to_bytes(&self) -> Vec<u8> {
        write(self.next_seq, &self.scored, self.sessions.iter().collect())
    }
}

fn write(next_seq: u64, scored: &BTreeSet<(String, String)>, sessions: Vec<&Session>) -> Vec<u8> {
    let saved = Saved {
        next_seq,
        scored,
        sessions,
    };
    let mut out = format!("{MAGIC}\n{SNAPSHOT_FORMAT}\n{SNAPSHOT_VERSION}\n").into_bytes();
    let mut z = flate2::write::DeflateEncoder::new(&mut out, flate2::Compression::fast());
    serde_json::to_writer(&mut z, &saved).expect("the core's state serialises");
    z.finish().expect("deflating into memory");
    out
}

impl Core {
    /// The core's state as bytes: [`Core::restore`] with the same configuration gives a core
    /// that answers every later input exactly as this one does.
    pub fn snapshot(&self) -> Vec<u8> {
        write(
            self.next_seq,
            &self.scored,
            self.slots.iter().map(|s| &s.session).collect(),
        )
    }

    /// A copy of the core's state to be saved later ([`CoreImage::to_bytes`]), on another
    /// thread.
    pub fn image(&self) -> CoreImage {
        CoreImage {
            next_seq: self.next_seq,
            scored: self.scored.clone(),
            sessions: self.slots.iter().map(|s| s.session.clone()).collect(),
        }
    }

    /// The core `bytes` were taken of, under `config` (the configuration it ran with).
    pub fn restore(config: CoreConfig, bytes: &[u8]) -> Result<Core, SnapshotError> {
        let (format, version, body) = header(bytes)?;
        if format != SNAPSHOT_FORMAT {
            return Err(SnapshotError::OtherFormat { found: format });
        }
        if version != SNAPSHOT_VERSION {
            return Err(SnapshotError::OtherVersion { found: version });
        }
        let mut json = Vec::new();
        flate2::read::DeflateDecoder::new(body)
            .read_to_end(&mut json)
            .map_err(|e| SnapshotError::Decode(format!("deflate: {e}")))?;
        let loaded: Loaded =
            serde_json::from_slice(&json).map_err(|e| SnapshotError::Decode(e.to_string()))?;
        let mut core = Core::with_first_seq(config, loaded.next_seq);
        core.scored = loaded.scored;
        for session in loaded.sessions {
            let label = session.label().to_string();
            if core.index.contains_key(&label) {
                return Err(SnapshotError::Decode(format!("board {label} twice")));
            }
            core.index.insert(label.clone(), core.slots.len());
            core.slots.push(Slot {
                label: label.as_str().into(),
                session,
                armed: None,
            });
        }
        // The timer index is derived: each board's pending deadline, filed again.
        for i in 0..core.slots.len() {
            core.rearm(i);
        }
        core.scratch = Emitted::new();
        Ok(core)
    }
}

/// The header's format and version, and the bytes after it.
fn header(bytes: &[u8]) -> Result<(String, String, &[u8]), SnapshotError> {
    let mut rest = bytes;
    let mut line = || -> Result<String, SnapshotError> {
        let end = rest
            .iter()
            .take(64)
            .position(|&b| b == b'\n')
            .ok_or(SnapshotError::NotASnapshot)?;
        let text = std::str::from_utf8(&rest[..end])
            .map_err(|_| SnapshotError::NotASnapshot)?
            .to_string();
        rest = &rest[end + 1..];
        Ok(text)
    };
    if line()? != MAGIC {
        return Err(SnapshotError::NotASnapshot);
    }
    let format = line()?;
    let version = line()?;
    Ok((format, version, rest))
}
