//! What the daemons journaled, read back after the run: the truth each client's events are
//! compared with, and for every event what caused it (the journal's step: an input read
//! from a board's pty, or the core's timers).

use std::path::Path;

use dgt_core::InputKind;
use dgt_journal::{Cause, Journal, JournalError};

use super::BenchError;

/// One journaled event and its cause.
#[derive(Debug, Clone, PartialEq)]
pub struct Journaled {
    pub seq: u64,
    /// The event's time (the daemon's clock, ms).
    pub t_ms: u64,
    pub board: String,
    /// Caused by bytes read from the event's own board (`rx`), not by a timer, the host's
    /// own writes or the link. A timer that fell due before an input is fired by the core
    /// within that input's step (`Core::handle`): its events keep the timer's time, and are
    /// timer events here.
    pub from_board: bool,
}

/// The journal at `path`, opened (and checked) once for everything the bench reads of it.
pub fn open(path: &Path) -> Result<Journal, BenchError> {
    Journal::open_read_only(path).map_err(|source| BenchError::ReadJournal {
        path: path.to_path_buf(),
        source,
    })
}

fn read_error(journal: &Journal) -> impl Fn(JournalError) -> BenchError + '_ {
    |source| BenchError::ReadJournal {
        path: journal.path().to_path_buf(),
        source,
    }
}

/// Every event of the journal up to seq `last`.
pub fn events(journal: &Journal, last: u64) -> Result<Vec<Journaled>, BenchError> {
    let path = journal.path();
    let mut out = Vec::new();
    let mut bad = None;
    journal
        .walk(0, |step| {
            let rx = match &step.cause {
                Cause::Input(i) if matches!(i.kind, InputKind::Rx(_)) => Some(i),
                _ => None,
            };
            for e in step.events {
                if e.seq > last {
                    return false;
                }
                match serde_json::from_str::<Stamp>(&e.json) {
                    Ok(stamp) => out.push(Journaled {
                        seq: e.seq,
                        t_ms: stamp.t_ms,
                        from_board: rx
                            .is_some_and(|i| i.t_ms == stamp.t_ms && i.board == stamp.board),
                        board: stamp.board,
                    }),
                    Err(e) => {
                        bad = Some(e);
                        return false;
                    }
                }
            }
            true
        })
        .map_err(read_error(journal))?;
    match bad {
        Some(source) => Err(BenchError::EventJson {
            path: path.to_path_buf(),
            source,
        }),
        None => Ok(out),
    }
}

/// The fields of an event's JSON the bench needs.
#[derive(serde::Deserialize)]
struct Stamp {
    board: String,
    t_ms: u64,
}

/// The journal's size on disk (the database and its write-ahead log), in bytes.
pub fn size(path: &Path) -> u64 {
    let mut wal = path.as_os_str().to_os_string();
    wal.push("-wal");
    [path.to_path_buf(), wal.into()]
        .iter()
        .filter_map(|p| std::fs::metadata(p).ok())
        .map(|m| m.len())
        .sum()
}

/// The bytes of the snapshots the journal holds (the core's and the views'): the newest few
/// of each, a bounded part of the file that does not grow with the play.
pub fn snapshots_size(journal: &Journal) -> Result<u64, BenchError> {
    let core: u64 = journal
        .snapshots()
        .map_err(read_error(journal))?
        .iter()
        .map(|s| s.size)
        .sum();
    Ok(core + journal.view_snapshots_size().map_err(read_error(journal))?)
}

/// The core times of the journal's first and last steps (ms).
pub fn time_span(journal: &Journal) -> Result<(u64, u64), BenchError> {
    journal.time_span().map_err(read_error(journal))
}

/// The size of a journal with nothing in it (its schema), made under `dir`.
pub fn empty_size(dir: &Path) -> Result<u64, BenchError> {
    let path = dir.join("empty.sqlite");
    drop(dgt_journal::Journal::open(&path).map_err(BenchError::EmptyJournal)?);
    Ok(size(&path))
}
