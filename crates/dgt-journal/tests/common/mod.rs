//! Helpers shared by the journal's tests: the real capture, and a daemon-like loop that
//! fires timers at their deadlines and journals every step.
#![allow(dead_code)]

use dgt_core::capture::parse_capture;
use dgt_core::{Core, CoreConfig, Event, Input};
use dgt_journal::{Batch, Cause, Journal};
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

/// The real game played on `boards` boards at once (each its own label, a few ms apart),
/// merged in time order: a hall in miniature, thousands of steps.
pub fn hall(boards: usize) -> Vec<Input> {
    let game = real_capture();
    let mut all: Vec<Input> = (0..boards)
        .flat_map(|b| {
            game.iter().map(move |i| Input {
                t_ms: i.t_ms + b as u64 * 7,
                board: format!("{}-{b}", i.board),
                kind: i.kind.clone(),
            })
        })
        .collect();
    all.sort_by_key(|i| i.t_ms);
    all
}

/// The batches a daemon would journal for `inputs`.
pub fn batches(inputs: &[Input]) -> Vec<Batch> {
    let mut core = Core::new(CoreConfig::default());
    let mut batcher = Batcher::new(13);
    run_live(&mut core, inputs, |c, e| batcher.push(c, e));
    drain(&mut core, |c, e| batcher.push(c, e));
    batcher.finish()
}

/// Everything a reader can ask a journal, as one comparable value.
pub fn everything(j: &Journal) -> Vec<String> {
    let mut out = vec![
        format!("last_seq {}", j.last_seq().unwrap()),
        format!("first_seq {:?}", j.first_seq().unwrap()),
        format!("steps {}", j.step_count().unwrap()),
        format!("last_step {}", j.last_step().unwrap()),
        format!("span {:?}", j.time_span().unwrap()),
        format!("dropped {}", j.dropped_batches().unwrap()),
    ];
    let boards: Vec<String> = j
        .inputs()
        .unwrap()
        .iter()
        .map(|i| i.board.clone())
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    out.extend(j.events_since(0).unwrap());
    out.extend(j.events_since(j.last_seq().unwrap() / 2).unwrap());
    out.push(j.export_capture(None, None, None).unwrap());
    out.push(
        j.export_capture(boards.last().map(String::as_str), None, None)
            .unwrap(),
    );
    let (first, last) = j.time_span().unwrap();
    let mid = (first + last) / 2;
    out.push(
        j.export_capture(None, Some(mid), Some(mid + 60_000))
            .unwrap(),
    );
    out.extend(j.operations().unwrap());
    out.extend(j.open_alerts().unwrap());
    for game in j.games().unwrap() {
        out.push(format!("{game:?}"));
        out.extend(j.events_of_game(&game.id).unwrap());
    }
    for b in &boards {
        out.push(format!(
            "{:?}",
            j.board_inputs(b, mid, mid + 30_000).unwrap()
        ));
    }
    for step in [1, 2, j.last_step().unwrap() / 3, j.last_step().unwrap()] {
        out.push(format!("{step}: {:?}", j.last_seq_of_step(step).unwrap()));
    }
    // The cluster's tail, read in small pieces from the start.
    let mut after = 0;
    loop {
        let tail = j.tail(after, 50).unwrap();
        if tail.to_step == after {
            break;
        }
        out.push(format!("{tail:?}"));
        after = tail.to_step;
    }
    out
}

/// A clock event of board `board-7`, numbered `seq`, at `t_ms`; White's display names the seq.
pub fn clock_event(seq: u64, t_ms: u64) -> Event {
    Event::new(
        seq,
        "board-7",
        t_ms,
        dgt_core::EventBody::Clock(dgt_core::event::ClockEvent {
            white_ms: Some(1000 * seq),
            black_ms: None,
            running: None,
            left_ms: 1,
            right_ms: 2,
            white_side: None,
        }),
    )
}
