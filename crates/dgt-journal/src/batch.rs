//! What the daemon hands to the journal: each thing the core was given — an input, or "fire
//! the timers due until t" — with the events it produced, in the order the core saw them.
//!
//! Timer firings are journaled as steps of their own because replay must give the core the
//! same calls in the same order: `Core::handle` first fires the timers due before its input,
//! but a live daemon may have fired a timer a little later than its deadline, just before an
//! input stamped earlier; only the recorded order reproduces that exactly.

use dgt_core::{Event, Input, InputKind};

use crate::core_snapshot::{CoreSnapshot, ImageSnapshot};

/// What made the core produce events.
#[derive(Debug, Clone, PartialEq)]
pub enum Cause {
    /// `Core::handle(input)`.
    Input(Input),
    /// `Core::advance(until_ms)`: timers due at or before `until_ms` fired.
    Timers { until_ms: u64 },
}

impl Cause {
    pub fn t_ms(&self) -> u64 {
        match self {
            Cause::Input(i) => i.t_ms,
            Cause::Timers { until_ms } => *until_ms,
        }
    }
}

/// One call into the core and what came out of it.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    pub cause: Cause,
    pub events: Vec<Event>,
}

/// Steps to be journaled together, in one transaction.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Batch {
    steps: Vec<Step>,
    /// A core snapshot taken after the first `n` steps of the batch (after the previous
    /// batch's last step when `n` is 0): its bytes, journaled in the same transaction, or
    /// the core's image, saved by the writer's snapshot thread once the batch is committed.
    snapshot: Option<(usize, Handed)>,
}

/// A core snapshot as the daemon hands it over.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Handed {
    Bytes(CoreSnapshot),
    Image(ImageSnapshot),
}

/// Rough in-memory size of an event, for the writer's queue limit (JSON is about this long).
const EVENT_BYTES: usize = 320;
/// Rough fixed cost of a step.
const STEP_BYTES: usize = 96;

impl Batch {
    pub fn new() -> Self {
        Self::default()
    }

    /// The steps before `at` and the steps from `at` on, as two batches (a new journal
    /// segment starts between them).
    pub(crate) fn split_at(&self, at: usize) -> (Batch, Batch) {
        let at = at.min(self.steps.len());
        let (before, after) = self.steps.split_at(at);
        // The snapshot goes with the step it follows.
        let (snap_before, snap_after) = match &self.snapshot {
            Some((n, s)) if *n <= at => (Some((*n, s.clone())), None),
            Some((n, s)) => (None, Some((n - at, s.clone()))),
            None => (None, None),
        };
        (
            Batch {
                steps: before.to_vec(),
                snapshot: snap_before,
            },
            Batch {
                steps: after.to_vec(),
                snapshot: snap_after,
            },
        )
    }

    /// Records `core.handle(&input)` and the events it returned.
    pub fn record_input(&mut self, input: Input, events: Vec<Event>) {
        self.steps.push(Step {
            cause: Cause::Input(input),
            events,
        });
    }

    /// Records `core.advance(until_ms)` and the events it returned. Two firings in a row
    /// merge into one: `advance(a); advance(b)` fires the same timers in the same order as
    /// `advance(b)` alone (the core fires them in time order), so nothing is lost.
    pub fn record_timers(&mut self, until_ms: u64, events: Vec<Event>) {
        // A snapshot taken after the last step holds the core before these timers fired:
        // they are a step of their own after it.
        let after_snapshot = self
            .snapshot
            .as_ref()
            .is_some_and(|(n, _)| *n == self.steps.len());
        if !after_snapshot
            && let Some(Step {
                cause: Cause::Timers { until_ms: last },
                events: last_events,
            }) = self.steps.last_mut()
        {
            *last = (*last).max(until_ms);
            last_events.extend(events);
            return;
        }
        self.steps.push(Step {
            cause: Cause::Timers { until_ms },
            events,
        });
    }

    /// Records the core's snapshot taken after the steps recorded so far (it replaces one
    /// recorded earlier in the batch).
    pub fn record_snapshot(&mut self, snapshot: CoreSnapshot) {
        self.snapshot = Some((self.steps.len(), Handed::Bytes(snapshot)));
    }

    /// Records the core's image taken after the steps recorded so far, to be saved as a
    /// snapshot off the core task: the writer serialises it after committing the batch and
    /// journals it as following the same step (it replaces a snapshot recorded earlier in
    /// the batch).
    pub fn record_image(&mut self, image: ImageSnapshot) {
        self.snapshot = Some((self.steps.len(), Handed::Image(image)));
    }

    /// The snapshot whose bytes the batch carries, and how many of the batch's steps it
    /// follows.
    pub fn snapshot(&self) -> Option<(usize, &CoreSnapshot)> {
        match &self.snapshot {
            Some((n, Handed::Bytes(s))) => Some((*n, s)),
            _ => None,
        }
    }

    /// The image the batch carries, and how many of the batch's steps it follows.
    pub fn image(&self) -> Option<(usize, &ImageSnapshot)> {
        match &self.snapshot {
            Some((n, Handed::Image(s))) => Some((*n, s)),
            _ => None,
        }
    }

    pub fn steps(&self) -> &[Step] {
        &self.steps
    }

    pub fn is_empty(&self) -> bool {
        self.steps.is_empty() && self.snapshot.is_none()
    }

    /// How many events the batch carries.
    pub fn event_count(&self) -> usize {
        self.steps.iter().map(|s| s.events.len()).sum()
    }

    /// An estimate of the memory the batch holds, for the writer's queue limit.
    pub fn approx_bytes(&self) -> usize {
        self.steps
            .iter()
            .map(|s| {
                let payload = match &s.cause {
                    Cause::Input(Input {
                        kind: InputKind::Rx(b) | InputKind::Tx(b),
                        ..
                    }) => b.len(),
                    _ => 64,
                };
                STEP_BYTES + payload + s.events.len() * EVENT_BYTES
            })
            .sum::<usize>()
            + match &self.snapshot {
                Some((_, Handed::Bytes(s))) => s.bytes.len(),
                // The image's memory is the core's own size; the daemon hands over one at a
                // time (`ImageSnapshot::in_flight`).
                _ => 0,
            }
    }
}
