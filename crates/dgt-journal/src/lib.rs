//! The journal: every byte a board sent, every event the core produced, every alert, ack and
//! operator action, in one SQLite file — so that a restart after SIGKILL or power loss
//! rebuilds every board's game exactly, and so that captures, PGN and broadcast folders can
//! be produced from it.
//!
//! The data flow of this crate:
//!
//! * [`batch`] — what the daemon hands over: each input (or timer firing) with the events it
//!   produced, in the order the core saw them;
//! * [`sealed`] — the older steps and events packed into deflated blocks (a tenth of the
//!   rows' size), read back unchanged through `Journal::walk`;
//! * [`segments`] — the journal as one file per round (or day): the open segment at
//!   `journal.path`, closed ones beside it, checked once and read-only; every reader spans
//!   them (the manifest and the files' names in `manifest`);
//! * [`journal`] — the SQLite file itself (WAL, `synchronous=FULL`, STRICT tables): append a
//!   batch in one transaction, read inputs back, events since a `seq`, capture export;
//! * [`writer`] — one thread owning the journal, fed by a channel, grouping whatever is queued
//!   into one transaction; it never blocks the live feed and reports its health;
//! * [`snapshots`] — the core's state after a step, written with that step's batch (what
//!   is handed over and its row in `core_snapshot`);
//! * [`recovery`] — restores the newest core snapshot (or a fresh core) and replays the steps
//!   after it, checking that it regenerates exactly the journaled events;
//! * [`pgn`] — games rebuilt from events (corrections applied) and written as PGN with
//!   `[%clk]`;
//! * [`broadcast`] — a LiveChess-style folder for relay tools, and its delayed public copy;
//! * [`tail`] — what was committed after a given step (events and acknowledgements, in
//!   journal order): what a node of a cluster publishes onward, and resumes from;
//! * [`view_snapshots`] — snapshots of views built from the events (the server's, the
//!   broadcast folders'), so a restart applies only the events after them;
//! * [`eeprom_recovery`] — moves made while a board was disconnected, read back from the
//!   board's own memory (protocol §3.6).

pub mod batch;
pub mod broadcast;
mod core_snapshot;
pub mod eeprom_recovery;
pub mod error;
pub mod journal;
mod manifest;
pub mod pgn;
pub mod recovery;
mod schema;
pub mod sealed;
pub mod segments;
pub mod snapshots;
mod stored;
pub mod tail;
pub mod view_snapshots;
pub mod writer;

pub use batch::{Batch, Cause, Step};
pub use error::JournalError;
pub use journal::{GameEntry, Journal};
pub use recovery::{
    Recovered, RecoveryReport, core_after_step, journaled_events, recover, recover_collecting,
};
pub use sealed::{StoredEvent, StoredStep};
pub use segments::{ClosedSegment, SegmentEntry, SegmentRule};
pub use snapshots::{CoreSnapshot, ImageSnapshot, InFlight, SnapshotEntry};
pub use tail::{Tail, TailRecord};
pub use writer::{
    CapState, DEFAULT_COMMIT_WINDOW, JournalHealth, JournalWriter, Submitted, WriterSettings,
};
