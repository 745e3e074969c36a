//! The journal read from a step onwards: every event and every acknowledgement committed
//! after it, in the order the core took them. A cluster node publishes its journal onward
//! with this and resumes, after a broker outage, from the last step the broker holds — the
//! journal stays the source of truth, so nothing is lost or sent twice.

use rusqlite::params;

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
        let after = after_step as i64;
        // The last step to cover: the step of the max_events-th event after `after_step`
        // (all of that step's events are taken), or the newest step with anything in it.
        let limit_step: Option<i64> = self
            .conn
            .query_row(
                "SELECT step FROM events WHERE step > ?1 ORDER BY seq LIMIT 1 OFFSET ?2",
                params![after, max_events.saturating_sub(1) as i64],
                |r| r.get(0),
            )
            .map(Some)
            .or_else(|e| match e {
                rusqlite::Error::QueryReturnedNoRows => Ok(None),
                e => Err(e),
            })
            .map_err(|e| self.err(e))?;
        let to_step: i64 = match limit_step {
            Some(s) => s,
            None => self
                .conn
                .query_row(
                    "SELECT max(coalesce((SELECT max(step) FROM events), 0), \
                            coalesce((SELECT max(step) FROM acks), 0))",
                    [],
                    |r| r.get(0),
                )
                .map_err(|e| self.err(e))?,
        };
        if to_step <= after {
            return Ok(Tail {
                to_step: after_step,
                records: Vec::new(),
            });
        }
        let mut records = Vec::new();
        {
            let mut acks = self
                .conn
                .prepare(
                    "SELECT step, alert, board, t_ms FROM acks \
                     WHERE step > ?1 AND step <= ?2 ORDER BY step",
                )
                .map_err(|e| self.err(e))?;
            let rows = acks
                .query_map(params![after, to_step], |r| {
                    Ok(TailRecord::Ack {
                        step: r.get::<_, i64>(0)? as u64,
                        alert: r.get::<_, i64>(1)? as u64,
                        board: r.get(2)?,
                        t_ms: r.get::<_, i64>(3)? as u64,
                    })
                })
                .map_err(|e| self.err(e))?;
            for row in rows {
                records.push(row.map_err(|e| self.err(e))?);
            }
        }
        let mut events = self
            .conn
            .prepare(
                "SELECT step, seq, json FROM events WHERE step > ?1 AND step <= ?2 ORDER BY seq",
            )
            .map_err(|e| self.err(e))?;
        let rows = events
            .query_map(params![after, to_step], |r| {
                Ok(TailRecord::Event {
                    step: r.get::<_, i64>(0)? as u64,
                    seq: r.get::<_, i64>(1)? as u64,
                    json: r.get(2)?,
                })
            })
            .map_err(|e| self.err(e))?;
        let mut evs = Vec::new();
        for row in rows {
            evs.push(row.map_err(|e| self.err(e))?);
        }
        // Merge by step (events are in seq order, which is step order); a step's ack first.
        let acks = std::mem::take(&mut records);
        let mut acks = acks.into_iter().peekable();
        for e in evs {
            while acks.peek().is_some_and(|a| a.step() <= e.step()) {
                records.extend(acks.next());
            }
            records.push(e);
        }
        records.extend(acks);
        Ok(Tail {
            to_step: to_step as u64,
            records,
        })
    }

    /// The newest step's id, 0 for an empty journal.
    pub fn last_step(&self) -> Result<u64, JournalError> {
        self.conn
            .query_row("SELECT coalesce(max(id), 0) FROM steps", [], |r| {
                r.get::<_, i64>(0)
            })
            .map(|s| s as u64)
            .map_err(|e| self.err(e))
    }
}
