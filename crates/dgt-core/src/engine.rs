//! The core's front door: routes inputs to one [`Session`] per board, fires timers in time
//! order, and numbers the events.

use std::collections::BTreeMap;

use crate::config::CoreConfig;
use crate::event::{Event, EventBody};
use crate::input::Input;
use crate::session::Session;

/// Events a stage produced, before they are numbered: (t_ms, body).
pub type Emitted = Vec<(u64, EventBody)>;

pub struct Core {
    config: CoreConfig,
    sessions: BTreeMap<String, Session>,
    next_seq: u64,
}

impl Core {
    pub fn new(config: CoreConfig) -> Self {
        Self::with_first_seq(config, 1)
    }

    /// A core whose first event gets `seq` (a journal continuing after a restart).
    pub fn with_first_seq(config: CoreConfig, seq: u64) -> Self {
        Core {
            config,
            sessions: BTreeMap::new(),
            next_seq: seq.max(1),
        }
    }

    pub fn config(&self) -> &CoreConfig {
        &self.config
    }

    /// The seq the next event will get.
    pub fn next_seq(&self) -> u64 {
        self.next_seq
    }

    /// Feeds one input. Timers due before `input.t_ms` fire first, so the result is the
    /// same however the caller interleaves `advance` and `handle`.
    pub fn handle(&mut self, input: &Input) -> Vec<Event> {
        let mut out = self.advance(input.t_ms);
        let config = &self.config;
        let session = self
            .sessions
            .entry(input.board.clone())
            .or_insert_with(|| Session::new(&input.board, config));
        let mut emitted = Emitted::new();
        session.handle(input.t_ms, &input.kind, &mut emitted);
        self.number(&input.board, emitted, &mut out);
        out
    }

    /// Fires every timer due at or before `t_ms`, in time order (board label breaks ties).
    pub fn advance(&mut self, t_ms: u64) -> Vec<Event> {
        let mut out = Vec::new();
        loop {
            let due = self
                .sessions
                .iter()
                .filter_map(|(b, s)| s.deadline().map(|d| (d, b.clone())))
                .filter(|(d, _)| *d <= t_ms)
                .min();
            let Some((d, board)) = due else { break };
            let mut emitted = Emitted::new();
            if let Some(s) = self.sessions.get_mut(&board) {
                s.on_timer(d, &mut emitted);
            }
            self.number(&board, emitted, &mut out);
        }
        out
    }

    /// The earliest pending timer over all boards.
    pub fn next_deadline(&self) -> Option<u64> {
        self.sessions.values().filter_map(|s| s.deadline()).min()
    }

    /// Read access to a board's session (for snapshots).
    pub fn session(&self, board: &str) -> Option<&Session> {
        self.sessions.get(board)
    }

    pub fn sessions(&self) -> impl Iterator<Item = (&String, &Session)> {
        self.sessions.iter()
    }

    fn number(&mut self, board: &str, emitted: Emitted, out: &mut Vec<Event>) {
        for (t_ms, mut body) in emitted {
            let seq = self.next_seq;
            self.next_seq += 1;
            if let EventBody::Alert(a) = &mut body {
                // An alert's id is the seq of the event that raised it: unique in the journal
                // and the same on every replay.
                a.id = seq;
                if let Some(s) = self.sessions.get_mut(board) {
                    s.alert_numbered(a);
                }
            }
            out.push(Event {
                seq,
                body,
                board: board.to_string(),
                t_ms,
            });
        }
    }
}
