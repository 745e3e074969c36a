//! Events written by hand, numbered as the core numbers them, for the tests of what is built
//! from journaled events (the rounds and their results, the PGN, the hall). Behind the
//! `test-support` feature: other crates' tests take it as a dev-dependency feature, so the
//! product never carries it.

use crate::event::{EndReason, MoveEvent};
use crate::{Alert, AlertKind, Event, EventBody, Severity, Side};

/// A stream of events with seqs from 1 and times `step_ms` apart.
#[derive(Debug, Clone, Default)]
pub struct EventScript {
    pub events: Vec<Event>,
    /// Event time between two events, in milliseconds.
    pub step_ms: u64,
}

impl EventScript {
    pub fn new(step_ms: u64) -> Self {
        EventScript {
            events: Vec::new(),
            step_ms,
        }
    }

    /// The seq of the last event (0 before any).
    pub fn seq(&self) -> u64 {
        self.events.len() as u64
    }

    pub fn push(&mut self, board: &str, body: EventBody) -> &Event {
        let seq = self.seq() + 1;
        self.events
            .push(Event::new(seq, board, seq * self.step_ms, body));
        self.events.last().expect("just pushed")
    }

    pub fn start(&mut self, board: &str, game: &str, start_fen: &str) {
        self.push(
            board,
            EventBody::GameStart {
                game: game.into(),
                start_fen: start_fen.into(),
                found_under_way: false,
            },
        );
    }

    /// Ply `ply` of `game` (odd plies White's), with the clocks after it.
    pub fn ply(
        &mut self,
        board: &str,
        game: &str,
        ply: u32,
        san: &str,
        fen: String,
        (white_ms, black_ms): (Option<u64>, Option<u64>),
    ) {
        self.push(
            board,
            EventBody::Move(MoveEvent {
                game: game.into(),
                ply,
                side: if ply % 2 == 1 {
                    Side::White
                } else {
                    Side::Black
                },
                uci: String::new(),
                san: san.into(),
                fen,
                white_ms,
                black_ms,
            }),
        );
    }

    /// `result` in PGN notation ("1-0", "1/2-1/2", …).
    pub fn end(&mut self, board: &str, game: &str, result: &str, reason: EndReason) {
        self.push(
            board,
            EventBody::GameEnd {
                game: game.into(),
                result: result.parse().expect("a PGN result"),
                reason,
            },
        );
    }

    /// The core's `clock_stopped` alert on `game` (6.11), numbered as the next event.
    pub fn clock_stopped(&mut self, board: &str, game: &str) {
        let mut a = Alert::new(
            AlertKind::ClockStopped,
            Severity::Review,
            "6.11",
            "The clock was stopped.".into(),
        );
        a.id = self.seq() + 1;
        a.game = Some(game.into());
        self.push(board, EventBody::Alert(a));
    }
}
