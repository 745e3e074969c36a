//! The core's front door: routes inputs to one [`Session`] per board, fires timers in time
//! order, and numbers the events.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::bughouse;
use crate::config::CoreConfig;
use crate::event::{Alert, AlertKind, Event, EventBody, Severity};
use crate::input::{Input, InputKind, Operation};
use crate::outcome::GameResult;
use crate::session::Session;

/// Events a stage produced, before they are numbered: (t_ms, body).
pub type Emitted = Vec<(u64, EventBody)>;

pub struct Core {
    config: CoreConfig,
    sessions: BTreeMap<String, Session>,
    next_seq: u64,
    /// Bughouse matches whose score was told, by their two game ids.
    scored: std::collections::BTreeSet<(String, String)>,
    /// Every board's pending timer as (deadline, board), earliest first: the next timer is
    /// found without asking every session (a venue has hundreds of boards, and the daemon
    /// asks after every input).
    timers: BTreeSet<(u64, String)>,
    /// The deadline each board has in `timers`.
    armed: HashMap<String, u64>,
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
            scored: Default::default(),
            timers: BTreeSet::new(),
            armed: HashMap::new(),
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
        // Pairings, table results and who took an action decide nothing here: they come back as events, numbered
        // and journaled like every action, for the views built from events.
        let passed_back = match &input.kind {
            InputKind::Op(Operation::Pairings(p)) => Some(EventBody::Pairings(p.clone())),
            InputKind::Op(Operation::TableResult(r)) => Some(EventBody::TableResult(r.clone())),
            InputKind::Op(Operation::By(by)) => Some(EventBody::ArbiterAction(by.clone())),
            _ => None,
        };
        if let Some(body) = passed_back {
            self.number(&input.board, vec![(input.t_ms, body)], &mut out);
            return out;
        }
        let config = &self.config;
        let session = self
            .sessions
            .entry(input.board.clone())
            .or_insert_with(|| Session::new(&input.board, config));
        let mut emitted = Emitted::new();
        session.handle(input.t_ms, &input.kind, &mut emitted);
        self.number(&input.board, emitted, &mut out);
        self.bughouse(&input.board, input.t_ms, &mut out);
        self.rearm_around(&input.board);
        out
    }

    /// Fires every timer due at or before `t_ms`, in time order (board label breaks ties).
    pub fn advance(&mut self, t_ms: u64) -> Vec<Event> {
        let mut out = Vec::new();
        loop {
            let due = self.timers.first().filter(|(d, _)| *d <= t_ms).cloned();
            let Some((d, board)) = due else { break };
            let mut emitted = Emitted::new();
            if let Some(s) = self.sessions.get_mut(&board) {
                s.on_timer(d, &mut emitted);
            }
            self.number(&board, emitted, &mut out);
            self.bughouse(&board, d, &mut out);
            self.rearm_around(&board);
        }
        out
    }

    /// Files the timers of `board` and of its bughouse partner (the only sessions an input
    /// or a timer of `board` can change) anew in `timers`.
    fn rearm_around(&mut self, board: &str) {
        let partner = self
            .sessions
            .get(board)
            .and_then(|s| s.bughouse_partner())
            .map(str::to_string);
        self.rearm(board);
        if let Some(p) = partner {
            self.rearm(&p);
        }
    }

    fn rearm(&mut self, board: &str) {
        let now = self.sessions.get(board).and_then(|s| s.deadline());
        let before = self.armed.get(board).copied();
        if now == before {
            return;
        }
        if let Some(d) = before {
            self.timers.remove(&(d, board.to_string()));
            self.armed.remove(board);
        }
        if let Some(d) = now {
            self.timers.insert((d, board.to_string()));
            self.armed.insert(board.to_string(), d);
        }
    }

    /// Bughouse: what changed on `board` reaches its partner board (captures fill reserves,
    /// promotions take pieces, an end makes a waiting mate final), and the partner's
    /// reaction comes back; then the match score once it is decided.
    fn bughouse(&mut self, board: &str, t_ms: u64, out: &mut Vec<Event>) {
        let Some(partner) = self
            .sessions
            .get(board)
            .and_then(|s| s.bughouse_partner())
            .map(str::to_string)
        else {
            return;
        };
        // A partner board not heard from yet has nothing to tell; it is told when it is.
        // Each side's view of the other, until neither changes (an end on one board can end
        // a waiting mate on the other, which the first must hear of).
        let pair = [board.to_string(), partner];
        for _ in 0..3 {
            let mut changed = false;
            for (from, to) in [(0, 1), (1, 0)] {
                let Some(view) = self.sessions.get(&pair[from]).map(|s| s.view_for_partner())
                else {
                    continue;
                };
                let Some(other) = self.sessions.get_mut(&pair[to]) else {
                    continue;
                };
                if other.partner_view() == Some(&view) {
                    continue;
                }
                changed = true;
                let mut emitted = Emitted::new();
                other.partner_update(t_ms, view, &mut emitted);
                self.number(&pair[to], emitted, out);
            }
            if !changed {
                break;
            }
        }
        self.match_score(board, t_ms, out);
    }

    /// 8.2 (DJC, KNSB): the match score is the sum of the two results, told when both games
    /// have ended; Flemish 5.d: a team wins the match as soon as it wins on either board.
    fn match_score(&mut self, board: &str, t_ms: u64, out: &mut Vec<Event>) {
        // Only the match of the board that changed: this runs after each of its inputs.
        let Some(m) = self
            .config
            .bughouse
            .iter()
            .find(|m| m.boards.iter().any(|b| b == board))
        else {
            return;
        };
        let game = |b: &str| self.sessions.get(b).and_then(|s| s.game());
        let (Some(g1), Some(g2)) = (game(&m.boards[0]), game(&m.boards[1])) else {
            return;
        };
        if g1.result.is_none() && g2.result.is_none() {
            return;
        }
        let key = (g1.id.clone(), g2.id.clone());
        if self.scored.contains(&key) {
            return;
        }
        let r1 = g1.result.map(|(r, _)| r);
        let r2 = g2.result.map(|(r, _)| r);
        // Team A has White on the first board and Black on the second (1.4).
        let a_wins = r1 == Some(GameResult::WhiteWins) || r2 == Some(GameResult::BlackWins);
        let b_wins = r1 == Some(GameResult::BlackWins) || r2 == Some(GameResult::WhiteWins);
        let (message, article) = match (r1, r2) {
            (Some(x), Some(y))
                if m.rules != bughouse::Regulation::Flemish || !(a_wins || b_wins) =>
            {
                let (a, b) = bughouse::score(x, y);
                (
                    format!(
                        "Both games have ended (board {} {x}, board {} {y}): team A {} – team B {}.",
                        m.boards[0],
                        m.boards[1],
                        bughouse::points(a),
                        bughouse::points(b)
                    ),
                    if m.rules == bughouse::Regulation::Flemish {
                        "5.d"
                    } else {
                        "5.1, 8.2"
                    },
                )
            }
            _ if m.rules == bughouse::Regulation::Flemish && (a_wins || b_wins) => {
                let team = if a_wins { 'A' } else { 'B' };
                let won_on = if r1.is_some_and(|r| r != GameResult::Drawn) {
                    &m.boards[0]
                } else {
                    &m.boards[1]
                };
                (
                    format!(
                        "Team {team} has won on board {won_on}: it wins the match, whatever happens on the other board (5.d)."
                    ),
                    "5.d",
                )
            }
            _ => return,
        };
        let mut a = Alert::new(
            AlertKind::MatchResult,
            Severity::Info,
            m.rules.name(),
            message,
        );
        a.article = Some(article.into());
        self.scored.insert(key);
        self.number(board, vec![(t_ms, EventBody::Alert(a))], out);
    }

    /// The earliest pending timer over all boards.
    pub fn next_deadline(&self) -> Option<u64> {
        self.timers.first().map(|(d, _)| *d)
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
                // and the same on every replay. A repeat of a coalesced equipment alert keeps
                // the id of the alert it repeats (`Alert::repeats`).
                if a.repeats.is_none() {
                    a.id = seq;
                }
                if let Some(s) = self.sessions.get_mut(board) {
                    s.alert_numbered(a);
                }
            }
            out.push(Event::new(seq, board, t_ms, body));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The timer index answers what asking every session would: three boards playing the
    /// real blitz game, shifted in time so their timers interleave.
    #[test]
    fn the_next_timer_is_the_earliest_of_all_boards() {
        let mut dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        while !dir.join("shared/captures").is_dir() {
            assert!(dir.pop(), "shared/ not found");
        }
        let text =
            std::fs::read_to_string(dir.join("shared/captures/real-blitz-game-1.jsonl")).unwrap();
        let game = crate::capture::parse_capture(&text).unwrap();
        let mut inputs = Vec::new();
        for (b, shift) in [(1, 0), (2, 37), (3, 211)] {
            for i in &game {
                let mut i = i.clone();
                i.board = format!("board-{b}");
                i.t_ms += shift;
                inputs.push(i);
            }
        }
        inputs.sort_by_key(|i| i.t_ms);
        let mut core = Core::new(CoreConfig::default());
        let mut fired = 0;
        for input in &inputs {
            while let Some(d) = core.next_deadline().filter(|&d| d <= input.t_ms) {
                fired += 1;
                core.advance(d);
            }
            core.handle(input);
            let scanned = core.sessions().filter_map(|(_, s)| s.deadline()).min();
            assert_eq!(
                core.next_deadline(),
                scanned,
                "after the input at {}",
                input.t_ms
            );
        }
        assert!(fired > 10, "timers fired ({fired})");
    }
}
