//! Snapshots of the server's views (and of other views built from the events, such as the
//! broadcast folders' books), kept in the journal file: a restarted daemon restores the
//! newest and applies only the events after its seq instead of the whole history.
//!
//! The table is the views' own, created when the first snapshot is stored (`CREATE TABLE IF
//! NOT EXISTS`), not by the journal's migrations: a journal without it simply has no
//! snapshot, and an older program opening the file ignores it. A snapshot is only a
//! shortcut — the events stay the record — so the bytes are opaque here (their owner
//! versions them) and only the newest few of each kind are kept.

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, OpenFlags, params};

use crate::error::JournalError;
use crate::journal::Journal;

/// The server's views (`dgt_server::ViewsSnapshot`).
pub const SERVER_VIEWS: &str = "server";
/// The broadcast folders' books.
pub const BROADCAST_VIEWS: &str = "broadcast";

/// Snapshots kept of each kind: the newest, and one before it should the newest not decode.
const KEPT: i64 = 2;

const CREATE: &str = "CREATE TABLE IF NOT EXISTS view_snapshots (
    kind TEXT NOT NULL,
    seq INTEGER NOT NULL,
    bytes BLOB NOT NULL,
    PRIMARY KEY (kind, seq)
) STRICT;";

/// A snapshot read back: the views after every event with `seq <= seq`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredViews {
    pub seq: u64,
    pub bytes: Vec<u8>,
}

/// A connection of its own for storing snapshots while the journal's writer appends: a
/// snapshot is written between the writer's transactions (SQLite's busy timeout waits
/// for the lock), never inside them.
pub struct ViewSnapshotStore {
    conn: Connection,
    path: PathBuf,
}

impl ViewSnapshotStore {
    /// Opens the journal at `path` (which [`Journal::open`] created and checked) for
    /// storing snapshots.
    pub fn open(path: &Path) -> Result<Self, JournalError> {
        let err = |e| JournalError::from_sqlite(path, e);
        let conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(err)?;
        conn.busy_timeout(Duration::from_secs(10)).map_err(err)?;
        conn.pragma_update(None, "synchronous", "FULL")
            .map_err(err)?;
        conn.execute_batch(CREATE).map_err(err)?;
        Ok(ViewSnapshotStore {
            conn,
            path: path.to_path_buf(),
        })
    }

    /// Stores the views of `kind` after `seq` and drops the older ones beyond the newest
    /// two, in one transaction. The caller stores only views whose events are committed.
    pub fn store(&mut self, kind: &str, seq: u64, bytes: &[u8]) -> Result<(), JournalError> {
        let path = self.path.clone();
        let err = |e| JournalError::from_sqlite(&path, e);
        let tx = self.conn.transaction().map_err(err)?;
        tx.execute(
            "INSERT OR REPLACE INTO view_snapshots (kind, seq, bytes) VALUES (?1, ?2, ?3)",
            params![kind, seq as i64, bytes],
        )
        .map_err(err)?;
        tx.execute(
            "DELETE FROM view_snapshots WHERE kind = ?1 AND seq NOT IN \
             (SELECT seq FROM view_snapshots WHERE kind = ?1 ORDER BY seq DESC LIMIT ?2)",
            params![kind, KEPT],
        )
        .map_err(err)?;
        tx.commit().map_err(err)
    }
}

impl Journal {
    fn has_view_snapshots(&self) -> Result<bool, JournalError> {
        self.conn
            .query_row(
                "SELECT count(*) > 0 FROM sqlite_schema WHERE type = 'table' \
                 AND name = 'view_snapshots'",
                [],
                |r| r.get(0),
            )
            .map_err(|e| JournalError::from_sqlite(self.path(), e))
    }

    /// The bytes of every views snapshot held, all kinds: a bounded part of the file (the
    /// newest few of each kind), apart from what grows with the play.
    pub fn view_snapshots_size(&self) -> Result<u64, JournalError> {
        if !self.has_view_snapshots()? {
            return Ok(0);
        }
        self.conn
            .query_row(
                "SELECT coalesce(sum(length(bytes)), 0) FROM view_snapshots",
                [],
                |r| r.get::<_, i64>(0),
            )
            .map(|n| n as u64)
            .map_err(|e| JournalError::from_sqlite(self.path(), e))
    }

    /// The newest snapshots of `kind`, newest first, none after the journal's last event
    /// (views of events the journal lost are not the journal's views). Empty when the
    /// journal has none.
    pub fn view_snapshots(&self, kind: &str) -> Result<Vec<StoredViews>, JournalError> {
        let err = |e| JournalError::from_sqlite(self.path(), e);
        if !self.has_view_snapshots()? {
            return Ok(Vec::new());
        }
        let last = self.last_seq()?;
        let mut stmt = self
            .conn
            .prepare(
                "SELECT seq, bytes FROM view_snapshots WHERE kind = ?1 AND seq <= ?2 \
                 ORDER BY seq DESC",
            )
            .map_err(err)?;
        let rows = stmt
            .query_map(params![kind, last as i64], |r| {
                Ok(StoredViews {
                    seq: r.get::<_, i64>(0)? as u64,
                    bytes: r.get(1)?,
                })
            })
            .and_then(|rows| rows.collect::<Result<Vec<_>, _>>())
            .map_err(err)?;
        Ok(rows)
    }

    /// The newest snapshot of `kind`, if any.
    pub fn newest_view_snapshot(&self, kind: &str) -> Result<Option<StoredViews>, JournalError> {
        Ok(self.view_snapshots(kind)?.into_iter().next())
    }
}

#[cfg(test)]
mod tests {
    use dgt_core::event::ClockEvent;
    use dgt_core::{Event, EventBody, Input, InputKind};

    use super::*;
    use crate::Batch;

    fn clock(seq: u64) -> Event {
        Event::new(
            seq,
            "1",
            seq * 1000,
            EventBody::Clock(ClockEvent {
                white_ms: Some(1000),
                black_ms: Some(1000),
                running: None,
                left_ms: 1000,
                right_ms: 1000,
                white_side: None,
            }),
        )
    }

    #[test]
    fn the_newest_snapshots_of_each_kind_are_kept_and_none_past_the_last_event() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j.sqlite");
        let mut journal = Journal::open(&path).unwrap();
        assert_eq!(journal.newest_view_snapshot(SERVER_VIEWS).unwrap(), None);
        assert_eq!(journal.view_snapshots_size().unwrap(), 0);
        let mut batch = Batch::new();
        batch.record_input(
            Input {
                t_ms: 1,
                board: "1".into(),
                kind: InputKind::Rx(vec![0x8e]),
            },
            (1..=3).map(clock).collect(),
        );
        journal.append(&batch).unwrap();

        let mut store = ViewSnapshotStore::open(&path).unwrap();
        for seq in 1..=3 {
            store.store(SERVER_VIEWS, seq, &[seq as u8; 4]).unwrap();
        }
        store.store(BROADCAST_VIEWS, 2, b"book").unwrap();
        let kept: Vec<u64> = journal
            .view_snapshots(SERVER_VIEWS)
            .unwrap()
            .iter()
            .map(|s| s.seq)
            .collect();
        assert_eq!(kept, [3, 2]);
        // The two kept of the server's views and the broadcast book's.
        assert_eq!(journal.view_snapshots_size().unwrap(), 4 + 4 + 4);
        assert_eq!(
            journal.newest_view_snapshot(SERVER_VIEWS).unwrap(),
            Some(StoredViews {
                seq: 3,
                bytes: vec![3; 4]
            })
        );
        assert_eq!(
            journal.newest_view_snapshot(BROADCAST_VIEWS).unwrap(),
            Some(StoredViews {
                seq: 2,
                bytes: b"book".to_vec()
            })
        );
        // Views of events the journal does not hold (lost with a damaged tail) are not its.
        store.store(SERVER_VIEWS, 9, b"ahead").unwrap();
        assert_eq!(
            journal
                .newest_view_snapshot(SERVER_VIEWS)
                .unwrap()
                .map(|s| s.seq),
            Some(3)
        );
    }
}
