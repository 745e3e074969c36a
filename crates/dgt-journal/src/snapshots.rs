//! Core snapshots kept in the journal: the core's state (`Core::snapshot`) after a given
//! step, written in the same transaction as that step's batch. Recovery restores the newest
//! one that decodes and replays only the steps after it (`recovery.rs`); without a usable
//! snapshot it replays every step, as before.
//!
//! Only the newest [`KEPT`] snapshots are kept: an older one is never needed while a newer
//! one decodes, and a few guard against one that does not (written by a program version
//! that has since been replaced, or damaged).

use rusqlite::{OptionalExtension, Transaction, params};

use crate::error::JournalError;
use crate::journal::Journal;

/// Snapshots kept in the journal, newest first.
pub const KEPT: i64 = 3;

/// A core snapshot handed to the journal with the batch whose step it follows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CoreSnapshot {
    /// The seq the core gives its next event (`Core::next_seq`).
    pub next_seq: u64,
    /// The core time it was taken at (ms).
    pub t_ms: u64,
    /// What the bytes are (`dgt_core::SNAPSHOT_FORMAT`); the bytes' own header says it too.
    pub format: String,
    pub bytes: Vec<u8>,
}

/// A snapshot as the journal holds it: the step it follows, without its bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SnapshotEntry {
    pub id: u64,
    /// The id of the step the core had just run when the snapshot was taken.
    pub after_step: u64,
    pub next_seq: u64,
    pub t_ms: u64,
    pub format: String,
    pub size: u64,
}

/// Stores `snapshot` as following step `after_step` and drops those beyond [`KEPT`].
pub(crate) fn insert(
    tx: &Transaction<'_>,
    after_step: u64,
    snapshot: &CoreSnapshot,
) -> rusqlite::Result<()> {
    tx.prepare_cached(
        "INSERT INTO snapshots (after_step, next_seq, t_ms, format, bytes) VALUES (?1, ?2, ?3, ?4, ?5)",
    )?
    .execute(params![
        after_step as i64,
        snapshot.next_seq as i64,
        snapshot.t_ms as i64,
        snapshot.format,
        snapshot.bytes
    ])?;
    tx.prepare_cached(
        "DELETE FROM snapshots WHERE id NOT IN (SELECT id FROM snapshots ORDER BY id DESC LIMIT ?1)",
    )?
    .execute([KEPT])?;
    Ok(())
}

impl Journal {
    /// The snapshots held, newest first (none in a journal older than the table).
    pub fn snapshots(&self) -> Result<Vec<SnapshotEntry>, JournalError> {
        if !self.has_snapshots()? {
            return Ok(Vec::new());
        }
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT id, after_step, next_seq, t_ms, format, length(bytes) FROM snapshots ORDER BY id DESC",
            )
            .map_err(|e| self.err(e))?;
        stmt.query_map([], |r| {
            Ok(SnapshotEntry {
                id: r.get::<_, i64>(0)? as u64,
                after_step: r.get::<_, i64>(1)? as u64,
                next_seq: r.get::<_, i64>(2)? as u64,
                t_ms: r.get::<_, i64>(3)? as u64,
                format: r.get(4)?,
                size: r.get::<_, i64>(5)? as u64,
            })
        })
        .and_then(|rows| rows.collect())
        .map_err(|e| self.err(e))
    }

    /// The bytes of snapshot `id`, if it is still held.
    pub fn snapshot_bytes(&self, id: u64) -> Result<Option<Vec<u8>>, JournalError> {
        if !self.has_snapshots()? {
            return Ok(None);
        }
        self.conn
            .query_row(
                "SELECT bytes FROM snapshots WHERE id = ?1",
                [id as i64],
                |r| r.get(0),
            )
            .optional()
            .map_err(|e| self.err(e))
    }

    /// Batches the writer dropped after step `after_step` (a gap before a snapshot does not
    /// matter to a core restored from it: the snapshot is the live core's state).
    pub fn dropped_batches_after(&self, after_step: u64) -> Result<u64, JournalError> {
        self.conn
            .query_row(
                "SELECT coalesce(sum(dropped_batches), 0) FROM gaps WHERE after_step IS NULL OR after_step >= ?1",
                [after_step as i64],
                |r| r.get::<_, i64>(0),
            )
            .map(|n| n as u64)
            .map_err(|e| self.err(e))
    }

    /// The alerts acknowledged, in journal order.
    pub fn acked_alerts(&self) -> Result<Vec<u64>, JournalError> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT alert FROM acks ORDER BY step")
            .map_err(|e| self.err(e))?;
        stmt.query_map([], |r| r.get::<_, i64>(0).map(|a| a as u64))
            .and_then(|rows| rows.collect())
            .map_err(|e| self.err(e))
    }

    /// True when the file has the snapshots table (a journal opened read-only may predate it).
    fn has_snapshots(&self) -> Result<bool, JournalError> {
        self.conn
            .query_row(
                "SELECT count(*) > 0 FROM sqlite_schema WHERE type = 'table' AND name = 'snapshots'",
                [],
                |r| r.get(0),
            )
            .map_err(|e| self.err(e))
    }
}
