//! The journal read as one sequence of steps with their events, whether they are sealed in
//! blocks (see [`crate::sealed`]) or still rows: every reader goes through [`Journal::walk`]
//! or the block lookups here, so that sealing changes how much the journal weighs, never what
//! it says.

use rusqlite::{OptionalExtension, params};

use crate::batch::Cause;
use crate::error::JournalError;
use crate::journal::Journal;
use crate::sealed::{self, SEAL_AT, SEAL_STEPS, StoredEvent, StoredStep};

/// A block's place in the journal (its blobs are read only when needed).
#[derive(Debug, Clone, Copy)]
pub(crate) struct BlockSpan {
    pub id: i64,
    pub first_seq: Option<u64>,
}

/// Blocks in id order, less those that repeat steps an earlier one holds (blocks are
/// written in step order, so a repeat starts at or before the end of what came before).
fn first_of_their_steps<T>(blocks: Vec<(T, i64, i64)>) -> Vec<T> {
    let mut last = i64::MIN;
    blocks
        .into_iter()
        .filter_map(|(block, first_step, last_step)| {
            let new = first_step > last;
            last = last.max(last_step);
            new.then_some(block)
        })
        .collect()
}

impl Journal {
    fn bad_block(&self, id: i64, e: impl std::fmt::Display) -> JournalError {
        JournalError::BadRow {
            path: self.path().to_path_buf(),
            detail: format!("block {id}: {e}"),
        }
    }

    /// The blocks matching `filter` (an SQL condition on the block's columns, `?1` bound to
    /// `arg`), in step order. A block that repeats an older one's steps (a journal written
    /// before two connections sealing at once were kept apart) is passed over.
    pub(crate) fn block_spans(
        &self,
        filter: &str,
        arg: i64,
    ) -> Result<Vec<BlockSpan>, JournalError> {
        if !self.has_blocks {
            return Ok(Vec::new());
        }
        let mut stmt = self
            .conn
            .prepare_cached(&format!(
                "SELECT id, first_seq, first_step, last_step FROM blocks WHERE {filter} ORDER BY id"
            ))
            .map_err(|e| self.err(e))?;
        stmt.query_map([arg], |r| {
            let span = BlockSpan {
                id: r.get(0)?,
                first_seq: r.get::<_, Option<i64>>(1)?.map(|s| s as u64),
            };
            Ok((span, r.get(2)?, r.get(3)?))
        })
        .and_then(|rows| rows.collect())
        .map(first_of_their_steps)
        .map_err(|e| self.err(e))
    }

    /// A read transaction, so that a reader on another connection sees the blocks and the
    /// rows of one moment (a seal in between would otherwise hide the steps it moves); `None`
    /// inside a transaction already open.
    pub(crate) fn snapshot(&self) -> Result<Option<rusqlite::Transaction<'_>>, JournalError> {
        if !self.conn.is_autocommit() {
            return Ok(None);
        }
        self.conn
            .unchecked_transaction()
            .map(Some)
            .map_err(|e| self.err(e))
    }

    /// One block's steps, decoded.
    pub(crate) fn block(&self, id: i64) -> Result<Vec<StoredStep>, JournalError> {
        let (steps, events): (Vec<u8>, Vec<u8>) = self
            .conn
            .query_row(
                "SELECT steps, events FROM blocks WHERE id = ?1",
                [id],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .map_err(|e| self.err(e))?;
        sealed::unpack(&steps, &events).map_err(|e| self.bad_block(id, e))
    }

    /// This file's steps after `after_step` in journal order, each with its events,
    /// streamed to `f` (`false` stops): sealed blocks first, then the rows.
    pub(crate) fn walk_here(
        &self,
        after_step: u64,
        mut f: impl FnMut(StoredStep) -> bool,
    ) -> Result<(), JournalError> {
        let _snapshot = self.snapshot()?;
        for span in self.block_spans("last_step > ?1", after_step as i64)? {
            for step in self.block(span.id)? {
                if step.id > after_step && !f(step) {
                    return Ok(());
                }
            }
        }
        self.walk_rows(after_step, f)
    }

    /// The steps still in rows after `after_step`, with their events.
    fn walk_rows(
        &self,
        after_step: u64,
        mut f: impl FnMut(StoredStep) -> bool,
    ) -> Result<(), JournalError> {
        let after = after_step as i64;
        let mut steps = self
            .conn
            .prepare_cached(
                "SELECT id, t_ms, board, kind, bytes, json FROM steps WHERE id > ?1 ORDER BY id",
            )
            .map_err(|e| self.err(e))?;
        let mut events = self
            .conn
            .prepare_cached("SELECT step, seq, game, json FROM events WHERE step > ?1 ORDER BY seq")
            .map_err(|e| self.err(e))?;
        let mut step_rows = steps.query([after]).map_err(|e| self.err(e))?;
        let mut event_rows = events.query([after]).map_err(|e| self.err(e))?;
        let mut next_event = || -> Result<Option<(u64, StoredEvent)>, JournalError> {
            let Some(r) = event_rows.next().map_err(|e| self.err(e))? else {
                return Ok(None);
            };
            let read = || -> rusqlite::Result<(u64, StoredEvent)> {
                Ok((
                    r.get::<_, i64>(0)? as u64,
                    StoredEvent {
                        seq: r.get::<_, i64>(1)? as u64,
                        game: r.get(2)?,
                        json: r.get(3)?,
                    },
                ))
            };
            read().map(Some).map_err(|e| self.err(e))
        };
        let mut pending = next_event()?;
        while let Some(row) = step_rows.next().map_err(|e| self.err(e))? {
            let id = row.get::<_, i64>(0).map_err(|e| self.err(e))? as u64;
            let cause = self.read_step(row).map_err(|detail| JournalError::BadRow {
                path: self.path().to_path_buf(),
                detail: format!("step {id}: {detail}"),
            })?;
            let mut evs = Vec::new();
            // Events are in seq order, which is step order; an event of a step that is not
            // there (a damaged file) is skipped rather than given to the wrong step.
            while let Some((step, _)) = &pending
                && *step <= id
            {
                if let Some((step, e)) = pending.take()
                    && step == id
                {
                    evs.push(e);
                }
                pending = next_event()?;
            }
            if !f(StoredStep {
                id,
                cause,
                events: evs,
            }) {
                break;
            }
        }
        Ok(())
    }

    /// The events with `seq > after`, as journaled, oldest first.
    pub(crate) fn sealed_events_after(&self, after: u64) -> Result<Vec<String>, JournalError> {
        let mut out = Vec::new();
        for span in self.block_spans("coalesce(last_seq, 0) > ?1", after as i64)? {
            for step in self.block(span.id)? {
                out.extend(
                    step.events
                        .into_iter()
                        .filter(|e| e.seq > after)
                        .map(|e| e.json),
                );
            }
        }
        Ok(out)
    }

    /// The sealed events with `from <= seq <= to` for which `keep` holds, oldest first.
    pub(crate) fn sealed_events_between(
        &self,
        from: u64,
        to: u64,
        mut keep: impl FnMut(&StoredEvent) -> bool,
    ) -> Result<Vec<StoredEvent>, JournalError> {
        let mut out = Vec::new();
        for span in self.block_spans("coalesce(last_seq, 0) >= ?1", from as i64)? {
            match span.first_seq {
                Some(f) if f > to => break,
                None => continue,
                _ => {}
            }
            for step in self.block(span.id)? {
                out.extend(
                    step.events
                        .into_iter()
                        .filter(|e| e.seq >= from && e.seq <= to && keep(e)),
                );
            }
        }
        Ok(out)
    }

    /// The sealed steps of one board with `from_ms <= t_ms <= to_ms`.
    pub(crate) fn sealed_board_inputs(
        &self,
        board: &str,
        from_ms: u64,
        to_ms: u64,
    ) -> Result<Vec<dgt_core::Input>, JournalError> {
        if !self.has_blocks {
            return Ok(Vec::new());
        }
        let ids: Vec<i64> = {
            let mut stmt = self
                .conn
                .prepare_cached(
                    "SELECT id, first_step, last_step FROM blocks \
                     WHERE last_t_ms >= ?1 AND first_t_ms <= ?2 ORDER BY id",
                )
                .map_err(|e| self.err(e))?;
            stmt.query_map(params![from_ms as i64, to_ms as i64], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?))
            })
            .and_then(|rows| rows.collect())
            .map(first_of_their_steps)
            .map_err(|e| self.err(e))?
        };
        let mut out = Vec::new();
        for id in ids {
            for step in self.block(id)? {
                if let Cause::Input(i) = step.cause
                    && i.board == board
                    && i.t_ms >= from_ms
                    && i.t_ms <= to_ms
                {
                    out.push(i);
                }
            }
        }
        Ok(out)
    }

    /// `(min(first), max(last))` of two block columns, or `None` without blocks.
    pub(crate) fn block_range(
        &self,
        first: &str,
        last: &str,
    ) -> Result<Option<(i64, i64)>, JournalError> {
        if !self.has_blocks {
            return Ok(None);
        }
        self.conn
            .query_row(
                &format!("SELECT min({first}), max({last}) FROM blocks"),
                [],
                |r| Ok(r.get::<_, Option<i64>>(0)?.zip(r.get::<_, Option<i64>>(1)?)),
            )
            .map_err(|e| self.err(e))
    }

    /// Seals while the rows hold [`SEAL_AT`] steps or more, counting them afresh (another
    /// connection appends them); returns how many steps were sealed.
    pub(crate) fn seal_pending(&mut self) -> Result<u64, JournalError> {
        self.count_steps()?;
        let mut total = 0;
        while self.has_blocks && self.row_steps >= SEAL_AT {
            let n = self.seal_oldest(SEAL_STEPS)?;
            if n == 0 {
                break;
            }
            total += n;
        }
        Ok(total)
    }

    /// Seals every step still in rows (a round closed, tests); returns how many.
    pub fn seal_all(&mut self) -> Result<u64, JournalError> {
        let mut total = 0;
        while self.has_blocks && self.row_steps > 0 {
            let n = self.seal_oldest(SEAL_STEPS)?;
            if n == 0 {
                break;
            }
            total += n;
        }
        Ok(total)
    }

    /// Moves the oldest `n` row steps (and their events) into one block. The rows may be
    /// sealed by another connection between reading and writing them (the writer seals what
    /// is left when it closes a segment while the sealer thread runs): they are then counted
    /// afresh and read again, and never packed twice.
    fn seal_oldest(&mut self, n: u64) -> Result<u64, JournalError> {
        for _ in 0..3 {
            if let Some(count) = self.try_seal_oldest(n)? {
                return Ok(count);
            }
            self.count_steps()?;
        }
        Ok(0)
    }

    /// The oldest `n` row steps, as [`Journal::seal_block`] takes them.
    pub(crate) fn oldest_rows(&mut self, n: u64) -> Result<Vec<StoredStep>, JournalError> {
        let first_row: Option<i64> = self
            .conn
            .query_row("SELECT min(id) FROM steps", [], |r| r.get(0))
            .map_err(|e| self.err(e))?;
        let Some(first_row) = first_row else {
            self.row_steps = 0;
            return Ok(Vec::new());
        };
        let last_row: i64 = self
            .conn
            .query_row(
                "SELECT id FROM steps ORDER BY id LIMIT 1 OFFSET ?1",
                [n.saturating_sub(1) as i64],
                |r| r.get(0),
            )
            .optional()
            .map_err(|e| self.err(e))?
            .map_or_else(
                || {
                    self.conn
                        .query_row("SELECT max(id) FROM steps", [], |r| r.get(0))
                        .map_err(|e| self.err(e))
                },
                Ok,
            )?;
        let mut steps = Vec::new();
        self.walk_rows(first_row as u64 - 1, |s| {
            let more = s.id < last_row as u64;
            steps.push(s);
            more
        })?;
        Ok(steps)
    }

    /// [`Journal::seal_block`] on the oldest rows: `Some(0)` without rows, `None` when they
    /// were sealed meanwhile.
    fn try_seal_oldest(&mut self, n: u64) -> Result<Option<u64>, JournalError> {
        let steps = self.oldest_rows(n)?;
        if steps.is_empty() {
            return Ok(Some(0));
        }
        self.seal_block(&steps)
    }

    /// Packs `steps` (row steps read before) into one block and removes their rows, in one
    /// transaction; `None`, and nothing written, when their rows are no longer all there.
    pub(crate) fn seal_block(&mut self, steps: &[StoredStep]) -> Result<Option<u64>, JournalError> {
        let Some(last) = steps.last() else {
            return Ok(Some(0));
        };
        let packed = sealed::pack(steps).map_err(|e| self.bad_block(0, e))?;
        let seqs = steps.iter().flat_map(|s| s.events.iter().map(|e| e.seq));
        let (first_seq, last_seq) = (seqs.clone().min(), seqs.max());
        let times = steps.iter().map(|s| s.cause.t_ms());
        let (first_t, last_t) = (times.clone().min().unwrap_or(0), times.max().unwrap_or(0));
        let (first_step, last_step) = (steps[0].id as i64, last.id as i64);
        let count = steps.len() as u64;
        let path = self.path().to_path_buf();
        let err = |e| JournalError::from_sqlite(&path, e);
        let tx = self.conn.transaction().map_err(err)?;
        // The rows first (their events, then the steps they belong to): if another
        // connection sealed them since they were read, fewer steps are found, and the
        // transaction is dropped (rolled back) before any block is written.
        tx.execute("DELETE FROM events WHERE step <= ?1", [last_step])
            .map_err(err)?;
        let removed = tx
            .execute(
                "DELETE FROM steps WHERE id BETWEEN ?1 AND ?2",
                [first_step, last_step],
            )
            .map_err(err)?;
        if removed as u64 != count {
            return Ok(None);
        }
        tx.execute(
            "INSERT INTO blocks (first_step, last_step, first_seq, last_seq, first_t_ms, \
             last_t_ms, step_count, steps, events) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            params![
                first_step,
                last_step,
                first_seq.map(|s| s as i64),
                last_seq.map(|s| s as i64),
                first_t as i64,
                last_t as i64,
                count as i64,
                packed.steps,
                packed.events
            ],
        )
        .map_err(err)?;
        tx.commit().map_err(err)?;
        self.row_steps = self.row_steps.saturating_sub(count);
        Ok(Some(count))
    }
}

#[cfg(test)]
mod tests {
    use dgt_core::{Input, InputKind};

    use crate::{Batch, Journal};

    fn blocks(journal: &Journal) -> (i64, i64) {
        journal
            .conn
            .query_row(
                "SELECT count(*), coalesce(sum(step_count), 0) FROM blocks",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .unwrap()
    }

    #[test]
    fn rows_sealed_by_another_connection_meanwhile_are_never_packed_twice() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("journal.sqlite");
        let mut writer = Journal::open(&path).unwrap();
        let mut batch = Batch::new();
        for t_ms in 0..40 {
            let input = Input {
                t_ms,
                board: "1".into(),
                kind: InputKind::Rx(vec![0x8e, 0x00, 0x05, 0x10, 0x01]),
            };
            batch.record_input(input, Vec::new());
        }
        writer.append(&batch).unwrap();
        // The sealer thread reads the oldest rows; before it writes their block, the writer
        // (closing a segment) seals every row.
        let mut sealer = Journal::open_sealer(&path).unwrap().unwrap();
        let read = sealer.oldest_rows(16).unwrap();
        assert_eq!(read.len(), 16);
        assert_eq!(writer.seal_all().unwrap(), 40);
        assert_eq!(sealer.seal_block(&read).unwrap(), None);
        // Every step stands in exactly one block, and the sealer goes on from what is there.
        let (_, sealed) = blocks(&writer);
        assert_eq!(sealed, 40);
        writer.append(&batch).unwrap();
        let read = sealer.oldest_rows(16).unwrap();
        assert_eq!(read.first().map(|s| s.id), Some(41));
        assert_eq!(sealer.seal_block(&read).unwrap(), Some(16));
        assert_eq!(blocks(&writer).1, 56);
        let mut walked = Vec::new();
        writer
            .walk(0, |s| {
                walked.push(s.id);
                true
            })
            .unwrap();
        assert_eq!(walked, (1..=80).collect::<Vec<u64>>());
    }

    #[test]
    fn a_block_repeating_an_older_ones_steps_is_read_once() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("journal.sqlite");
        let mut journal = Journal::open(&path).unwrap();
        let mut batch = Batch::new();
        for t_ms in 0..20 {
            let input = Input {
                t_ms,
                board: "1".into(),
                kind: InputKind::Rx(vec![0x8e, 0x00, 0x05, 0x10, 0x01]),
            };
            batch.record_input(input, Vec::new());
        }
        journal.append(&batch).unwrap();
        journal.seal_all().unwrap();
        // As a journal written before the sealer and the writer were kept apart may hold it.
        journal
            .conn
            .execute(
                "INSERT INTO blocks (first_step, last_step, first_seq, last_seq, first_t_ms, \
                 last_t_ms, step_count, steps, events) SELECT first_step, last_step, first_seq, \
                 last_seq, first_t_ms, last_t_ms, step_count, steps, events FROM blocks",
                [],
            )
            .unwrap();
        assert_eq!(blocks(&journal).0, 2);
        let mut walked = Vec::new();
        journal
            .walk(0, |s| {
                walked.push(s.id);
                true
            })
            .unwrap();
        assert_eq!(walked, (1..=20).collect::<Vec<u64>>());
        assert_eq!(journal.sealed_board_inputs("1", 0, 100).unwrap().len(), 20);
    }
}
