//! The journal read from a step onwards: every event and every acknowledgement committed
//! after it, in the order the core took them. A cluster node publishes its journal onward
//! with this and resumes, after a broker outage, from the last step the broker holds — the
//! journal stays the source of truth, so nothing is lost or sent twice.

use dgt_core::{Input, InputKind, Operation};

use crate::batch::Cause;
use crate::error::JournalError;
use crate::journal::Journal;

/// One thing to publish: an event (its contract JSON, as journaled) or an acknowledgement
/// (the core emits no event for it, but every dashboard of the event must learn it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TailRecord {
    Event {
        step: u64,
        seq: u64,
        json: String,
    },
    Ack {
        step: u64,
        alert: u64,
        board: String,
        t_ms: u64,
    },
}

impl TailRecord {
    pub fn step(&self) -> u64 {
        match self {
            TailRecord::Event { step, .. } | TailRecord::Ack { step, .. } => *step,
        }
    }
}

/// What was committed after a step, up to `to_step` (whole steps only).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tail {
    /// The last step covered; the next read starts after it. Equal to the step asked for
    /// when nothing new was committed.
    pub to_step: u64,
    pub records: Vec<TailRecord>,
}

impl Journal {
    /// The events and acknowledgements of the steps after `after_step`, about `max_events`
    /// events at most but always whole steps (a step's events are never split between two
    /// reads), in journal order: a step's acknowledgement before the events it caused.
    pub fn tail(&self, after_step: u64, max_events: usize) -> Result<Tail, JournalError> {
        let mut tail = Tail {
            to_step: after_step,
            records: Vec::new(),
        };
        let mut events = 0usize;
        self.walk(after_step, |step| {
            if let Cause::Input(Input {
                kind: InputKind::Op(Operation::Ack(alert)),
                board,
                t_ms,
            }) = &step.cause
            {
                tail.records.push(TailRecord::Ack {
                    step: step.id,
                    alert: *alert,
                    board: board.clone(),
                    t_ms: *t_ms,
                });
                tail.to_step = step.id;
            }
            if !step.events.is_empty() {
                events += step.events.len();
                tail.to_step = step.id;
                tail.records
                    .extend(step.events.into_iter().map(|e| TailRecord::Event {
                        step: step.id,
                        seq: e.seq,
                        json: e.json,
                    }));
            }
            events < max_events.max(1)
        })?;
        Ok(tail)
    }

    /// The newest step's id in this file, 0 for none.
    pub(crate) fn last_step_here(&self) -> Result<u64, JournalError> {
        let rows: i64 = self
            .conn
            .query_row("SELECT coalesce(max(id), 0) FROM steps", [], |r| r.get(0))
            .map_err(|e| self.err(e))?;
        let sealed = self
            .block_range("first_step", "last_step")?
            .map_or(0, |r| r.1);
        Ok(rows.max(sealed) as u64)
    }
}
