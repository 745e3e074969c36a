//! Helpers shared by the journal's tests: the real capture, and a daemon-like loop that
//! fires timers at their deadlines and journals every step.
#![allow(dead_code)]

use dgt_core::capture::parse_capture;
use dgt_core::{Core, Event, Input};
use dgt_journal::{Batch, Cause};
use dgt_testkit::fixtures::{real_game_capture, real_game_moves};

pub fn real_capture() -> Vec<Input> {
    parse_capture(&real_game_capture()).unwrap()
}

pub fn expected_moves() -> Vec<String> {
    real_game_moves()
}

/// Feeds inputs the way the daemon does: timers fire at their deadlines before a later
/// input arrives. Every call into the core goes to `step`.
pub fn run_live(core: &mut Core, inputs: &[Input], mut step: impl FnMut(Cause, Vec<Event>)) {
    for input in inputs {
        while let Some(d) = core.next_deadline() {
            if d >= input.t_ms {
                break;
            }
            let events = core.advance(d);
            step(Cause::Timers { until_ms: d }, events);
        }
        let events = core.handle(input);
        step(Cause::Input(input.clone()), events);
    }
}

/// Fires every pending timer (the end of a session).
pub fn drain(core: &mut Core, mut step: impl FnMut(Cause, Vec<Event>)) {
    while let Some(d) = core.next_deadline() {
        let events = core.advance(d);
        step(Cause::Timers { until_ms: d }, events);
    }
}

/// Collects steps into batches of `size` steps.
pub struct Batcher {
    pub size: usize,
    pub current: Batch,
    pub done: Vec<Batch>,
}

impl Batcher {
    pub fn new(size: usize) -> Self {
        Batcher {
            size,
            current: Batch::new(),
            done: Vec::new(),
        }
    }
    pub fn push(&mut self, cause: Cause, events: Vec<Event>) {
        match cause {
            Cause::Input(i) => self.current.record_input(i, events),
            Cause::Timers { until_ms } => self.current.record_timers(until_ms, events),
        }
        if self.current.steps().len() >= self.size {
            self.done.push(std::mem::take(&mut self.current));
        }
    }
    pub fn finish(mut self) -> Vec<Batch> {
        if !self.current.is_empty() {
            self.done.push(self.current);
        }
        self.done
    }
}

pub fn json(events: &[Event]) -> Vec<String> {
    events.iter().map(Event::to_json).collect()
}

/// The uninterrupted run: every event of the capture, daemon-style.
pub fn uninterrupted(inputs: &[Input]) -> Vec<Event> {
    let mut core = Core::new(dgt_core::CoreConfig::default());
    let mut all = Vec::new();
    run_live(&mut core, inputs, |_, e| all.extend(e));
    drain(&mut core, |_, e| all.extend(e));
    all
}
