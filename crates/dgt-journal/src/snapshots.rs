//! Core snapshots kept in the journal: the core's state (`Core::snapshot`) after a given
//! step. Handed over as bytes, a snapshot is written in the same transaction as that step's
//! batch; handed over as the core's image ([`ImageSnapshot`], what the daemon does: the
//! copy costs the core task milliseconds where the bytes cost it seconds), the writer's
//! snapshot thread makes the bytes once the batch is committed and the row, written later,
//! names the same step. Recovery restores the newest one (by the step it follows) that
//! decodes and replays only the steps after it (`recovery.rs`); without a usable snapshot
//! it replays every step, as before.
//!
//! Only the newest [`KEPT`] snapshots are kept: an older one is never needed while a newer
//! one decodes, and a few guard against one that does not (written by a program version
//! that has since been replaced, or damaged).

use rusqlite::OptionalExtension;

use crate::core_snapshot::insert;
pub use crate::core_snapshot::{CoreSnapshot, ImageSnapshot, InFlight, KEPT, SnapshotEntry};
use crate::error::JournalError;
use crate::journal::Journal;

impl Journal {
    /// Stores `snapshot`, made from an image after its batch was committed, as following
    /// step `after_step` (steps after it may be journaled already), in a transaction of its
    /// own.
    pub(crate) fn insert_snapshot(
        &mut self,
        after_step: u64,
        snapshot: &CoreSnapshot,
    ) -> Result<(), JournalError> {
        let path = self.path().to_path_buf();
        let err = |e| JournalError::from_sqlite(&path, e);
        let tx = self.conn.transaction().map_err(err)?;
        insert(&tx, after_step, snapshot).map_err(err)?;
        tx.commit().map_err(err)
    }

    /// The snapshots held, newest first: by the step they follow (an image's row is written
    /// after later steps), then by when they were written (none in a journal older than
    /// the table).
    pub fn snapshots(&self) -> Result<Vec<SnapshotEntry>, JournalError> {
        if !self.has_snapshots()? {
            return Ok(Vec::new());
        }
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT id, after_step, next_seq, t_ms, format, length(bytes) FROM snapshots \
                 ORDER BY after_step DESC, id DESC",
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
