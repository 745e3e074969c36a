//! The core's front door: routes inputs to one [`Session`] per board, fires timers in time
//! order, and numbers the events.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use crate::bughouse;
use crate::config::CoreConfig;
use crate::event::{Alert, AlertKind, Event, EventBody, Severity};
use crate::input::{Input, InputKind, Operation};
use crate::outcome::GameResult;
use crate::session::Session;
use crate::verdict::{Article, MatchVerdict, RecordVerdict, Team};

pub use crate::event::Emitted;
pub use snapshot::{CoreImage, SNAPSHOT_FORMAT, SNAPSHOT_VERSION, SnapshotError};

mod snapshot;

pub struct Core {
    config: CoreConfig,
    /// Each board's place in `slots`, by label (label order is the order of `sessions`).
    index: BTreeMap<String, usize>,
    /// One per board heard from, in the order they were first heard from: an input or a
    /// timer finds its board with one look-up, and everything after works on the slot.
    slots: Vec<Slot>,
    next_seq: u64,
    /// Bughouse matches whose score was told, by their two game ids.
    scored: std::collections::BTreeSet<(String, String)>,
    /// Every board's pending timer as (deadline, board label, slot), earliest first (board
    /// label breaks ties): the next timer is found without asking every session (a venue
    /// has hundreds of boards, and the daemon asks after every input).
    timers: BTreeSet<(u64, Arc<str>, usize)>,
    /// Kept between inputs so that a session's events need no new buffer each time.
    scratch: Emitted,
}

/// One board's session, with what the core's timer index holds for it.
struct Slot {
    label: Arc<str>,
    session: Session,
    /// The deadline this board has in `timers`.
    armed: Option<u64>,
}

impl Core {
    pub fn new(config: CoreConfig) -> Self {
        Self::with_first_seq(config, 1)
    }

    /// A core whose first event gets `seq` (a journal continuing after a restart).
    pub fn with_first_seq(config: CoreConfig, seq: u64) -> Self {
        Core {
            config,
            index: BTreeMap::new(),
            slots: Vec::new(),
            next_seq: seq.max(1),
            scored: Default::default(),
            timers: BTreeSet::new(),
            scratch: Emitted::new(),
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
            InputKind::Op(Operation::TableGame(g)) => Some(EventBody::TableGame(g.clone())),
            InputKind::Op(Operation::By(by)) => Some(EventBody::ArbiterAction(by.clone())),
            _ => None,
        };
        if let Some(body) = passed_back {
            let slot = self.index.get(&input.board).copied();
            let mut emitted = vec![(input.t_ms, body)];
            self.number(&input.board, slot, &mut emitted, &mut out);
            return out;
        }
        let i = match self.index.get(&input.board) {
            Some(&i) => i,
            None => {
                let i = self.slots.len();
                self.slots.push(Slot {
                    label: Arc::from(input.board.as_str()),
                    session: Session::new(&input.board, &self.config),
                    armed: None,
                });
                self.index.insert(input.board.clone(), i);
                i
            }
        };
        if let InputKind::Op(Operation::TakeOver(op)) = &input.kind {
            self.take_over(i, input.t_ms, &op.from, &mut out);
            return out;
        }
        let mut emitted = std::mem::take(&mut self.scratch);
        self.guarded(i, input.t_ms, &mut emitted, |s, e| {
            s.handle(input.t_ms, &input.kind, e)
        });
        self.number(&input.board, Some(i), &mut emitted, &mut out);
        self.scratch = emitted;
        self.bughouse(i, input.t_ms, &mut out);
        self.rearm_around(i);
        out
    }

    /// A replacement board: the game being played on board `from` continues on
    /// board `i` (the spare the arbiter set the position up on), with its history and id.
    fn take_over(&mut self, i: usize, t_ms: u64, from: &str, out: &mut Vec<Event>) {
        let to_label = self.slots[i].label.clone();
        let j = self.index.get(from).copied().filter(|&j| j != i);
        let mut given = Emitted::new();
        let moved = j.and_then(|j| self.slots[j].session.give_game(t_ms, &to_label, &mut given));
        if let Some(j) = j {
            let label = self.slots[j].label.clone();
            self.number(&label, Some(j), &mut given, out);
        }
        let mut taken = Emitted::new();
        self.slots[i]
            .session
            .take_game(t_ms, moved, from, &mut taken);
        self.number(&to_label, Some(i), &mut taken, out);
        self.rearm_around(i);
        if let Some(j) = j {
            self.rearm_around(j);
        }
    }

    /// Fires every timer due at or before `t_ms`, in time order (board label breaks ties).
    pub fn advance(&mut self, t_ms: u64) -> Vec<Event> {
        let mut out = Vec::new();
        loop {
            let due = self
                .timers
                .first()
                .filter(|(d, _, _)| *d <= t_ms)
                .map(|(d, _, i)| (*d, *i));
            let Some((d, i)) = due else { break };
            let mut emitted = std::mem::take(&mut self.scratch);
            self.guarded(i, d, &mut emitted, |s, e| s.on_timer(d, e));
            let label = self.slots[i].label.clone();
            self.number(&label, Some(i), &mut emitted, &mut out);
            self.scratch = emitted;
            self.bughouse(i, d, &mut out);
            self.rearm_around(i);
        }
        out
    }

    /// Runs `f` on board `i`'s session. A panic inside — a state the reading did not
    /// foresee — stays with that board: its session is replaced by a fresh reading
    /// ([`Session::after_fault`]) and `tracking_failed` tells the arbiter; the other boards
    /// and the caller (the daemon, its journal) go on.
    fn guarded(
        &mut self,
        i: usize,
        t_ms: u64,
        emitted: &mut Emitted,
        f: impl FnOnce(&mut Session, &mut Emitted),
    ) {
        let session = &mut self.slots[i].session;
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(session, emitted)));
        let Err(payload) = caught else { return };
        let why = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "an internal fault".into());
        let label = self.slots[i].label.clone();
        let old = std::mem::replace(
            &mut self.slots[i].session,
            Session::new(&label, &self.config),
        );
        let game = old.game().map(|g| (g.id.clone(), g.plies()));
        let edition = old.edition_name().to_string();
        self.slots[i].session = old.after_fault(t_ms, &self.config);
        let verdict = RecordVerdict::TrackingFailed {
            board: label.to_string(),
            why,
            recorded: game.clone(),
        };
        let mut a = Alert::new(
            AlertKind::TrackingFailed,
            Severity::Review,
            &edition,
            verdict.message().unwrap_or_default(),
        );
        a.game = game.map(|(id, _)| id);
        a.prescription = Some(verdict.render());
        a.verdict = Some(Box::new(verdict.into()));
        emitted.push((t_ms, EventBody::Alert(a)));
    }

    /// The slot of `board`'s bughouse partner, once the partner board was heard from.
    fn partner_of(&self, i: usize) -> Option<usize> {
        let partner = self.slots[i].session.bughouse_partner()?;
        self.index.get(partner).copied()
    }

    /// Files the timers of board `i` and of its bughouse partner (the only sessions an input
    /// or a timer of the board can change) anew in `timers`.
    fn rearm_around(&mut self, i: usize) {
        let partner = self.partner_of(i);
        self.rearm(i);
        if let Some(p) = partner {
            self.rearm(p);
        }
    }

    fn rearm(&mut self, i: usize) {
        let slot = &mut self.slots[i];
        let now = slot.session.deadline();
        if now == slot.armed {
            return;
        }
        if let Some(d) = slot.armed {
            self.timers.remove(&(d, slot.label.clone(), i));
        }
        if let Some(d) = now {
            self.timers.insert((d, slot.label.clone(), i));
        }
        slot.armed = now;
    }

    /// Bughouse: what changed on `board` reaches its partner board (captures fill reserves,
    /// promotions take pieces, an end makes a waiting mate final), and the partner's
    /// reaction comes back; then the match score once it is decided.
    fn bughouse(&mut self, i: usize, t_ms: u64, out: &mut Vec<Event>) {
        if self.slots[i].session.bughouse_partner().is_none() {
            return;
        }
        // A partner board not heard from yet has nothing to tell; it is told when it is.
        // Each side's view of the other, until neither changes (an end on one board can end
        // a waiting mate on the other, which the first must hear of).
        if let Some(j) = self.partner_of(i) {
            let pair = [i, j];
            for _ in 0..3 {
                let mut changed = false;
                for (from, to) in [(0, 1), (1, 0)] {
                    let view = self.slots[pair[from]].session.view_for_partner();
                    let other = &self.slots[pair[to]].session;
                    if other.partner_view() == Some(&view) {
                        continue;
                    }
                    changed = true;
                    let mut emitted = Emitted::new();
                    self.guarded(pair[to], t_ms, &mut emitted, |s, e| {
                        s.partner_update(t_ms, view, e)
                    });
                    let label = self.slots[pair[to]].label.clone();
                    self.number(&label, Some(pair[to]), &mut emitted, out);
                }
                if !changed {
                    break;
                }
            }
        }
        let label = self.slots[i].label.clone();
        self.match_score(&label, i, t_ms, out);
    }

    /// 8.2 (DJC, KNSB): the match score is the sum of the two results, told when both games
    /// have ended; Flemish 5.d: a team wins the match as soon as it wins on either board.
    fn match_score(&mut self, board: &str, i: usize, t_ms: u64, out: &mut Vec<Event>) {
        // Only the match of the board that changed: this runs after each of its inputs.
        let Some(m) = self
            .config
            .bughouse
            .iter()
            .find(|m| m.boards.iter().any(|b| b == board))
        else {
            return;
        };
        let game = |b: &str| self.session(b).and_then(|s| s.game());
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
        let verdict = match (r1, r2) {
            (Some(x), Some(y))
                if m.rules != bughouse::Regulation::Flemish || !(a_wins || b_wins) =>
            {
                MatchVerdict::BothEnded {
                    boards: m.boards.clone(),
                    results: [x, y],
                    article: Article::new(if m.rules == bughouse::Regulation::Flemish {
                        "5.d"
                    } else {
                        "5.1, 8.2"
                    }),
                }
            }
            _ if m.rules == bughouse::Regulation::Flemish && (a_wins || b_wins) => {
                let won_on = if r1.is_some_and(|r| r != GameResult::Drawn) {
                    &m.boards[0]
                } else {
                    &m.boards[1]
                };
                MatchVerdict::WonOnBoard {
                    team: if a_wins { Team::A } else { Team::B },
                    board: won_on.clone(),
                }
            }
            _ => return,
        };
        let mut a = Alert::new(
            AlertKind::MatchResult,
            Severity::Info,
            m.rules.name(),
            verdict.message(),
        );
        a.article = Some(verdict.article().into());
        a.verdict = Some(Box::new(verdict.into()));
        self.scored.insert(key);
        self.number(board, Some(i), &mut vec![(t_ms, EventBody::Alert(a))], out);
    }

    /// The earliest pending timer over all boards.
    pub fn next_deadline(&self) -> Option<u64> {
        self.timers.first().map(|(d, _, _)| *d)
    }

    /// Read access to a board's session (for snapshots).
    pub fn session(&self, board: &str) -> Option<&Session> {
        self.index.get(board).map(|&i| &self.slots[i].session)
    }

    /// Every board's session, in label order.
    pub fn sessions(&self) -> impl Iterator<Item = (&String, &Session)> {
        self.index
            .iter()
            .map(|(label, &i)| (label, &self.slots[i].session))
    }

    /// Numbers `emitted` (leaving it empty) as events of `board`, whose slot is `slot` when
    /// the board has a session.
    fn number(
        &mut self,
        board: &str,
        slot: Option<usize>,
        emitted: &mut Emitted,
        out: &mut Vec<Event>,
    ) {
        out.reserve(emitted.len());
        for (t_ms, mut body) in emitted.drain(..) {
            let seq = self.next_seq;
            self.next_seq += 1;
            if let EventBody::Alert(a) = &mut body {
                // An alert's id is the seq of the event that raised it: unique in the journal
                // and the same on every replay. A repeat of a coalesced equipment alert keeps
                // the id of the alert it repeats (`Alert::repeats`).
                if a.repeats.is_none() {
                    a.id = seq;
                }
                if let Some(i) = slot {
                    self.slots[i].session.alert_numbered(a);
                }
            }
            out.push(Event::new(seq, board, t_ms, body));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verdict::Verdict;

    /// The timer index answers what asking every session would: three boards playing the
    /// real blitz game, shifted in time so their timers interleave.
    #[test]
    fn the_next_timer_is_the_earliest_of_all_boards() {
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/captures/real-blitz-game-1.jsonl"
        ))
        .unwrap();
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

    /// A fault in one board's reading (a panic, forced here) stays with that board: the
    /// arbiter is told, the other board's game goes on move by move, the core keeps
    /// numbering events, and the faulty board is read afresh — its next game numbered on.
    /// A `tracking_failed` alert's verdict, as data: a review, whose `message` and
    /// `prescription` are the verdict's text.
    fn tracking_failed(a: &Alert) -> &RecordVerdict {
        let v = a.verdict.as_deref().and_then(Verdict::record);
        let v = v.unwrap_or_else(|| panic!("no record verdict on {a:?}"));
        assert_eq!(a.severity, Severity::Review);
        assert_eq!(a.message, v.message().unwrap_or_default());
        assert_eq!(a.prescription, Some(v.render()));
        v
    }

    #[test]
    fn a_fault_on_one_board_leaves_the_others_running() {
        use crate::arbitrary_play::{START_CODES, clock_frame, phys};
        use shakmaty::Square;
        let rx = |t: u64, board: &str, bytes: Vec<u8>| Input {
            t_ms: t,
            board: board.into(),
            kind: InputKind::Rx(bytes),
        };
        let dump = |t, board| {
            let mut m = vec![0x86, 0, 0x43];
            m.extend(START_CODES);
            rx(t, board, m)
        };
        let field = |t, board, sq: Square, code| rx(t, board, vec![0x8E, 0, 5, phys(sq), code]);
        let clock = |t, board, running| rx(t, board, clock_frame((300, 300, running), 1));
        let mut core = Core::new(CoreConfig::default());
        let mut ev = Vec::new();
        for b in ["1", "2"] {
            ev.extend(core.handle(&dump(0, b)));
            ev.extend(core.handle(&clock(500, b, Some(false))));
        }
        for b in ["1", "2"] {
            ev.extend(core.handle(&field(1000, b, Square::E2, 0)));
            ev.extend(core.handle(&field(1100, b, Square::E4, 1)));
            ev.extend(core.handle(&clock(1400, b, Some(true))));
        }
        ev.extend(core.advance(3000));
        let mut emitted = Emitted::new();
        let one = core.index["1"];
        core.guarded(one, 3000, &mut emitted, |_, _| {
            panic!("a fault forced by the test")
        });
        core.number("1", Some(one), &mut emitted, &mut ev);
        // Board 2 plays on; board 1's pieces are set up again for a new game.
        ev.extend(core.handle(&field(4000, "2", Square::E7, 0)));
        ev.extend(core.handle(&field(4100, "2", Square::E5, 7)));
        ev.extend(core.handle(&clock(4400, "2", Some(false))));
        ev.extend(core.handle(&dump(5000, "1")));
        ev.extend(core.handle(&clock(5500, "1", Some(false))));
        ev.extend(core.handle(&field(6000, "1", Square::D2, 0)));
        ev.extend(core.handle(&field(6100, "1", Square::D4, 1)));
        ev.extend(core.handle(&clock(6400, "1", Some(true))));
        ev.extend(core.advance(20_000));

        let failed: Vec<&Alert> = ev
            .iter()
            .filter_map(|e| match &e.body {
                EventBody::Alert(a) if a.kind == AlertKind::TrackingFailed => Some(a),
                _ => None,
            })
            .collect();
        assert_eq!(failed.len(), 1);
        assert_eq!(failed[0].game.as_deref(), Some("1/1"));
        assert_eq!(
            tracking_failed(failed[0]),
            &RecordVerdict::TrackingFailed {
                board: "1".into(),
                why: "a fault forced by the test".into(),
                recorded: Some(("1/1".into(), 1)),
            }
        );
        let moves = |board: &str| -> Vec<(String, String)> {
            ev.iter()
                .filter(|e| e.board == board)
                .filter_map(|e| match &e.body {
                    EventBody::Move(m) => Some((m.game.clone(), m.uci.clone())),
                    _ => None,
                })
                .collect()
        };
        assert_eq!(
            moves("2"),
            [("2/1".into(), "e2e4".into()), ("2/1".into(), "e7e5".into())]
        );
        assert_eq!(
            moves("1"),
            [("1/1".into(), "e2e4".into()), ("1/2".into(), "d2d4".into())]
        );
        assert!(ev.windows(2).all(|w| w[0].seq < w[1].seq));
    }
}
