//! What the daemons journaled, read back after the run: the truth each client's events are
//! compared with, and for every event what caused it (the journal's step: an input read
//! from a board's pty, or the core's timers).

use std::path::Path;

use rusqlite::{Connection, OpenFlags};

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

/// Every event of the journal at `path` up to seq `last`.
pub fn events(path: &Path, last: u64) -> Result<Vec<Journaled>, BenchError> {
    let fail = |source| BenchError::Journal {
        path: path.to_path_buf(),
        source,
    };
    let db = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY).map_err(fail)?;
    let mut query = db
        .prepare(
            "SELECT e.seq, e.t_ms, e.board, \
             coalesce(s.kind = 'rx' AND s.t_ms = e.t_ms AND s.board = e.board, 0) \
             FROM events e JOIN steps s ON s.id = e.step WHERE e.seq <= ?1 ORDER BY e.seq",
        )
        .map_err(fail)?;
    let rows = query
        .query_map([last as i64], |row| {
            Ok(Journaled {
                seq: row.get::<_, i64>(0)? as u64,
                t_ms: row.get::<_, i64>(1)? as u64,
                board: row.get(2)?,
                from_board: row.get::<_, i64>(3)? != 0,
            })
        })
        .map_err(fail)?;
    rows.collect::<Result<Vec<_>, _>>().map_err(fail)
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

/// The core times of the journal's first and last steps (ms).
pub fn time_span(path: &Path) -> Result<(u64, u64), BenchError> {
    let fail = |source| BenchError::Journal {
        path: path.to_path_buf(),
        source,
    };
    let db = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY).map_err(fail)?;
    db.query_row("SELECT min(t_ms), max(t_ms) FROM steps", [], |row| {
        Ok((
            row.get::<_, Option<i64>>(0)?.unwrap_or(0) as u64,
            row.get::<_, Option<i64>>(1)?.unwrap_or(0) as u64,
        ))
    })
    .map_err(fail)
}

/// The size of a journal with nothing in it (its schema), made under `dir`.
pub fn empty_size(dir: &Path) -> Result<u64, BenchError> {
    let path = dir.join("empty.sqlite");
    drop(dgt_journal::Journal::open(&path).map_err(BenchError::EmptyJournal)?);
    Ok(size(&path))
}
