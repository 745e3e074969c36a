//! One board's pipeline: bytes → messages → board state → moves, clocks, alerts.
//!
//! Decisions are taken at three moments: when the placement has **settled** (unchanged for
//! `settle_ms`), when the clock shows a **press** (6.2.1: the press completes the move), and
//! when a waiting period runs out (no press came; an unexplained placement persisted).
//!
//! The session coordinates parts it owns, each a type with its own module and tests: the
//! rules in force (`rules`), the link's facts and decoder (`link`), a bus board's log
//! (`bus_log`), the board as reported (`board_state`), the presses (`press_state`), what is
//! watched before a game (`before_game`), the offences counted (`offence_count`), the timer
//! table (`timers`) and what the reader remembers (`reader_state`, `shown`); the game phase
//! is derived (`phase`). The move reader (`reader`) is a read-only view of the session
//! (`Reader`) that reads the board into a `Reading` (settled) or a `PressReading`; the referee
//! (`referee`) acts on them: moves into the game record (`record`), games begun (`start`),
//! alerts on the handling of pieces (`hands`), offences (`offences`), flags (`flags`) and
//! the clock (`presses`, `clock_checks`). Bytes and the link are read in `link`; a bughouse
//! board's seat is in `seat`, its game's end in `bughouse_end`.

use dgt_protocol::{BoardMessage, ClockMessage, ClockTimes, Decoded, Decoder, LineMode};
use shakmaty::{ByColor, CastlingMode, Chess, Color, Move, Position};

use crate::arbiter;
use crate::board::{self, PhysicalBoard};
use crate::bus::{BusBoard, BusFact};
use crate::claim::ClaimKind;
use crate::clock::{ClockObservation, ClockTracker};
use crate::config::CoreConfig;
use crate::dead::MateAbility;
use crate::eeprom;
use crate::event::Emitted;
use crate::event::{
    Alert, AlertKind, BoardStatus, ClockEvent, EndReason, EventBody, LinkState, MoveEvent,
    Orientation, Severity, Side,
};
use crate::handling::{Handling, HandlingThresholds, Signal};
use crate::input::{ClockSide, InputKind, Link, Operation, SetupOp, Supervision};
use crate::outcome::GameResult;
use crate::reconstruct::{self, Game, Interpretation, fen};
use crate::time_control::TimeControl;
use crate::verdict::{CalledBy, ClaimDecision, ClaimVerdict, RecordVerdict};

mod before_game;
mod board_state;
mod bughouse_drops;
mod bughouse_end;
mod bus_log;
mod clock_checks;
mod flags;
mod hands;
mod link;
mod offence_count;
mod offences;
mod phase;
mod press_state;
mod presses;
mod reader;
mod reader_state;
mod record;
mod referee;
mod replacement;
mod rules;
mod seat;
mod shown;
mod shown_paths;
mod start;
mod timers;
mod under_way;
mod under_way_log;

use before_game::BeforeGame;
use board_state::BoardState;
use bus_log::BusLog;
use link::LinkFacts;
use offence_count::Offences;
use phase::Phase;
use press_state::{PressLook, PressState};
use reader_state::ReaderState;
use rules::Rules;
use timers::{Timer, Timers};

/// A flag down on the display that has not been called yet (`flag_counts = when_called`).
#[serde_with::serde_as]
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
struct UncalledFlag {
    #[serde_as(as = "ColorAs")]
    flagged: Color,
    t_ms: u64,
    /// The id the engine gave the flag alert (acknowledging it calls the flag).
    alert: Option<u64>,
}

/// Offences that count towards the loss (7.5.5; 2017: 7.5.3 / 7.8.2 separately).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
enum Offence {
    /// 7.5.1 / 7.5.2: an illegal move, a promotion left incomplete.
    IllegalMove,
    /// 7.5.3 (2017: 7.8.1): the clock pressed without a move.
    PressWithoutMove,
    /// 7.5.4 (2017: 7.7.1): a move made with two hands, once the arbiter confirms it.
    TwoHands,
}

/// How deep the search goes for moves made in one go. While the board is watched, at most
/// two moves can appear together (a reply made before the press); searching deeper would
/// "explain" an illegal position by moves nobody made. Only after the board could not be
/// read (a dump that resynchronises, a reconnection) are several moves looked for.
const DEPTH_ON_CHANGE: usize = 2;
const DEPTH_WATCHED: usize = 2;
const DEPTH_AFTER_GAP: usize = 6;
/// A king move onto a centre square waits this long for a press: it may be the first half of
/// the kings-in-the-centre result gesture. A gesture whose other king has not moved yet
/// waits as long a calm (the players may still move it).
const CENTRE_KING_WAIT_MS: u64 = 2000;
/// How long a move completed by a press may still be corrected by a late board report.
const PRESS_CORRECTION_MS: u64 = 1000;
/// The longest a press waits for the board to be quiet before it is judged.
const PRESS_MAX_WAIT_MS: u64 = 1500;
/// Squares off the current position at once from which a disturbance is a displacement
/// (pieces knocked over), not a move: a move changes at most two squares before it is
/// complete (castling, four, is explained as a move).
const DISPLACED_SQUARES: usize = 3;
/// How long after the board showed a move another move of the same side may still replace
/// it (a slide's intermediate square that looked settled, castling begun with the rook).
const SIBLING_MAX_MS: u64 = 3000;
/// How late a board may report a change in rapid play (protocol §4.1: about 400 ms): a
/// sliding piece may still be reported on the squares after the one it seems to stop on.
const REPORT_LAG_MS: u64 = 400;
/// How long a bus board's three-ply reading that a lifted piece also explains is held:
/// two polls (about a second each, protocol §2.4), so the landing can be reported first.
const HELD_THREE_PLIES_BUS_MS: u64 = 2000;
/// The most presses logged between two moves recorded that are taken as proof of as many
/// moves (`plies_logged`): a bus board is polled about once a second (protocol §2.4), and
/// more than four presses a poll is more likely a fumbled lever than four moves.
const PLIES_LOGGED_MAX: usize = 4;
/// Equipment alerts of one kind on one board within this long of the last are one alert
/// with a count (a battery indicator flickering, a clock flapping): half an hour.
const EQUIPMENT_COALESCE_MS: u64 = 30 * 60_000;

/// The state kept for one game's watch — offences, flags, hints already given — reset as a
/// whole when a new game begins (so no part of it can be forgotten).
#[serde_with::serde_as]
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
struct GameWatch {
    illegal_alerted: bool,
    /// Offences counted per player, and two-handed moves the arbiter may confirm
    /// (`offence_count.rs`).
    offences: Offences,
    /// The flags seen in this game.
    flags: FlagWatch,
    /// Captures that showed the two-hands signature, per player (4.1, `capture_hands.rs`).
    capture_hands: crate::capture_hands::CaptureHands,
    /// Pieces gone from the board since an `illegal_position` that only showed pieces
    /// missing (knocked off, L17 T43): play is followed as if they stood on their squares
    /// until they are back or the position is reinstated.
    #[serde_as(as = "Vec<(SquareAs, PieceAs)>")]
    ghosts: Vec<(shakmaty::Square, shakmaty::Piece)>,
    /// What the clock readings were checked for, and what was told once per game.
    clock_hints: ClockHints,
    /// A press was seen in this game: the starting times are no longer on the clock.
    pressed_in_game: bool,
    /// The ply at which the "castling illegal" hint was given (once per position).
    castling_hint_at: Option<usize>,
    /// The arbiter was told that play went on after the game's end by rule.
    told_play_after_end: bool,
    /// A formally illegal move completed by a press and not (yet) corrected: the placement it
    /// left and who made it. If the opponent moves from there, tracking continues from it.
    #[serde_as(as = "Option<(BoardAs, ColorAs)>")]
    stood: Option<(shakmaty::Board, Color)>,
    /// Reduced supervision (A.4.4 / A.5.4): the ply at which an illegal position (both kings
    /// in check, a pawn on its last rank) was seen standing, and whether the draw was raised.
    illegal_standing: Option<(u32, bool)>,
    /// A player who made a move with their own clock still running and has not pressed
    /// since: their press, even after the opponent's reply, completes it (6.2.2).
    #[serde_as(as = "Option<ColorAs>")]
    owes_press: Option<Color>,
    /// The game's ply count right after an illegal move was taken into it as it stood
    /// (`adopt_illegal`): a second one before any legal move means tracking is lost.
    adopted_at: Option<usize>,
    /// The piece (its square) with which the player on move completed an illegal move from
    /// the position after this many plies: touched beyond any adjustment (4.3, 7.5.1).
    #[serde_as(as = "Option<(_, SquareAs)>")]
    illegal_piece: Option<(usize, shakmaty::Square)>,
    /// Tracking is lost: the board left every position the game explains, twice in a row.
    /// Nothing is read as a move until it shows a legal continuation, the last legal
    /// position (or an earlier one), or a set-up.
    lost_track: bool,
    /// The game was found under way (`under_way.rs`): its history before the position it
    /// was found in is not known.
    found_under_way: bool,
}

/// The flags of one game (`flags.rs`): periods completed, a flag waiting to count, the flag
/// that ended the game.
#[serde_with::serde_as]
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
struct FlagWatch {
    /// Periods of a multi-period control each player has completed (flags seen in time).
    #[serde_as(as = "ByColorAs<_>")]
    periods_reached: ByColor<usize>,
    /// A flag that fell without ending the game (reduced supervision: only on a claim, or
    /// for the arbiter to call), and whose it was.
    #[serde_as(as = "Option<ColorAs>")]
    pending: Option<Color>,
    /// A flag that has fallen on the display but counts only once called (`when_called`,
    /// 6.8): who flagged, when, and the id of the alert that reported it.
    uncalled: Option<UncalledFlag>,
    /// The flag that ended the game (who, when), until the other flag is reported too.
    #[serde_as(as = "Option<(ColorAs, _)>")]
    game_ending: Option<(Color, u64)>,
}

impl FlagWatch {
    /// The flag down but not yet counted (uncalled, or pending a claim): the uncalled one if
    /// both are set. Both are taken off the watch on purpose: each caller settles the flag —
    /// a called flag ends the game (6.8, 6.9), a claim made with the claimant's own flag down
    /// goes to the arbiter (A4.3 / A.4.3 / A.5.3) — and a flag falling while another still
    /// shows is read as both flags down, not as a second waiting flag.
    fn take_waiting(&mut self) -> Option<Color> {
        let uncalled = self.uncalled.take().map(|f| f.flagged);
        let pending = self.pending.take();
        uncalled.or(pending)
    }
}

/// The clock checks of one game (`clock_checks.rs`) and what they told once.
#[serde_with::serde_as]
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
struct ClockHints {
    /// Presses in a row per player that added less than half the increment due, and
    /// whether the clock setting was already reported for this game.
    #[serde_as(as = "ByColorAs<_>")]
    short_increments: ByColor<u32>,
    setting_reported: bool,
    /// Players already told of a quickplay-finish claim in this game.
    #[serde_as(as = "ByColorAs<_>")]
    quickplay_told: ByColor<bool>,
    /// The period per player for which 8.4 was last reported, plus one (0 = never).
    #[serde_as(as = "ByColorAs<_>")]
    recording_told: ByColor<usize>,
}

#[derive(Clone, serde::Serialize, serde::Deserialize)]
pub struct Session {
    label: String,
    /// The Laws in force and the waiting periods (`rules.rs`).
    rules: Rules,
    /// The link's facts and the byte decoder (`link.rs`).
    link: LinkFacts,
    /// What a bus board's log named since the last move (`bus_log.rs`).
    bus_log: BusLog,
    /// The squares as reported, and when and how they changed (`board_state.rs`).
    board: BoardState,
    clock: ClockTracker,

    game: Option<Game>,
    games_started: u32,

    /// What the move reader remembers between readings (`reader_state.rs`).
    reader: ReaderState,
    /// The presses seen, and the one waiting for its verdict with its deadline
    /// (`press_state.rs`).
    press: PressState,
    /// The deadlines of the waiting periods: the settle, a press awaited, an illegal
    /// placement persisting, corrections becoming final, the board's log awaited.
    timers: Timers,
    /// What is watched while no game is followed (`before_game.rs`).
    before: BeforeGame,

    /// What is watched over one game, reset as a whole when a game begins.
    watch: GameWatch,
    /// The board's seat in a bughouse match, if it plays in one.
    bughouse: Option<seat::Seat>,

    /// Equipment alerts raised on this board, coalesced (`equipment_alert`): kind, the id of
    /// the alert (0 until numbered), how many times, and the latest.
    equipment: Vec<(AlertKind, u64, u32, u64)>,
}

impl Session {
    /// The board read afresh after a fault its reading could not handle (contained by the
    /// engine): the link, the decoder and the placement the board last reported are kept;
    /// the game and all that was read from it go. The placement is read again at `t` as at
    /// a start — a new game when it is the initial position — and every later report and
    /// dump updates it. Game numbers go on from the old reading's.
    pub fn after_fault(self, t: u64, config: &CoreConfig) -> Session {
        let mut s = Session::new(&self.label, config);
        s.games_started = self.games_started;
        s.link = self.link.after_fault();
        s.board = self.board.after_fault();
        s.timers.set(Timer::Settle, t);
        s
    }

    pub fn new(label: &str, config: &CoreConfig) -> Self {
        let s = config.for_board(label);
        let bughouse = config
            .bughouse
            .iter()
            .find(|m| m.boards.iter().any(|b| b == label));
        // Bughouse: the regulation's playing time unless the organiser set one (DJC 6.3).
        let tc = s.time_control.clone().or_else(|| {
            bughouse.and_then(|m| TimeControl::parse(m.rules.default_time_control()).ok())
        });
        Session {
            label: label.to_string(),
            rules: Rules {
                settle_ms: config.settle_ms,
                press_wait_ms: config.press_wait_ms,
                illegal_position_ms: config.illegal_position_ms,
                edition: arbiter::edition_with(s.edition.unwrap_or_default(), config.fivefold),
                fivefold: config.fivefold,
                supervision: s.supervision.unwrap_or(Supervision::Full),
                time_control: tc,
                blitz_max: config.blitz_max_minutes,
                rapid_max: config.rapid_max_minutes,
                flag_counts: config.flag_counts,
                guideline_iii: config.guideline_iii,
            },
            link: LinkFacts::default(),
            bus_log: BusLog::default(),
            board: BoardState::default(),
            clock: ClockTracker::new(s.white_clock_side),
            game: None,
            games_started: 0,
            reader: ReaderState::default(),
            press: PressState::default(),
            before: BeforeGame::default(),
            timers: Timers::default(),
            watch: GameWatch::default(),
            bughouse: bughouse.map(|m| seat::Seat::new(m, label)),
            equipment: Vec::new(),
        }
    }

    pub fn label(&self) -> &str {
        &self.label
    }

    /// The name of the edition of the Laws (or bughouse regulation) this board follows.
    pub fn edition_name(&self) -> &str {
        match &self.bughouse {
            Some(seat) => seat.regulation.name(),
            None => self.rules.edition.name,
        }
    }

    pub fn game(&self) -> Option<&Game> {
        self.game.as_ref()
    }

    /// No game, a game being played, or a game over.
    fn phase(&self) -> Phase<'_> {
        Phase::of(self.game.as_ref())
    }

    /// The game, while it is being played (not before it starts nor after its result).
    fn playing(&self) -> Option<&Game> {
        self.phase().playing()
    }

    fn playing_mut(&mut self) -> Option<&mut Game> {
        self.game.as_mut().filter(|g| !g.is_over())
    }

    pub fn physical(&self) -> &PhysicalBoard {
        &self.board.physical
    }

    pub fn orientation(&self) -> Orientation {
        self.board.orientation
    }

    pub fn clock(&self) -> &ClockTracker {
        &self.clock
    }

    pub fn serial(&self) -> Option<&str> {
        self.link.serial.as_deref()
    }

    pub fn link(&self) -> LinkState {
        self.link.state
    }

    /// The earliest moment the session is to be woken: a waking timer's deadline or the
    /// verdict of the press waiting.
    pub fn deadline(&self) -> Option<u64> {
        self.timers
            .next_due()
            .into_iter()
            .chain(self.press.pending.due_at())
            .min()
    }

    /// A press is to be judged at `at`; `final_look`: after this look an unexplained board
    /// is an illegal move.
    fn look_at_press(&mut self, at: u64, display: ClockSide, final_look: bool) {
        self.press.pending.look_at(at, display, final_look);
    }

    /// The press waiting for its verdict, if any, taken off to be judged now.
    fn take_press_look(&mut self) -> Option<PressLook> {
        self.press.pending.take()
    }

    /// Makes the moves completed by a press final once their correction window is over.
    fn expire_corrections(&mut self, t: u64) {
        if self.timers.fired(Timer::Correction, t)
            && let Some(g) = &mut self.game
        {
            g.confirm_all();
        }
    }

    pub fn handle(&mut self, t: u64, kind: &InputKind, out: &mut Emitted) {
        self.expire_corrections(t);
        match kind {
            InputKind::Rx(bytes) => {
                self.link.decoder.push(bytes);
                while let Some(d) = self.link.decoder.next_decoded() {
                    self.on_decoded(t, d, out);
                }
            }
            InputKind::Tx(_) => {}
            InputKind::Link(link) => self.on_link(t, link, out),
            InputKind::Op(op) => self.on_op(t, op, out),
        }
    }

    /// Runs what is due at `t`: the verdict of the press waiting first (the press completes
    /// the move the board shows, 6.2.1, before the settled board is read), then the waiting
    /// periods in the order of [`Timer::WAKING`].
    pub fn on_timer(&mut self, t: u64, out: &mut Emitted) {
        self.expire_corrections(t);
        if let Some(look) = self.press.pending.take_due(t) {
            self.on_press_due(t, look, out);
        }
        for timer in Timer::WAKING {
            if self.timers.fired(timer, t) {
                self.on_due(timer, t, out);
            }
        }
    }

    /// The press waiting for its verdict is due at `t` (it is off the press state already).
    fn on_press_due(&mut self, t: u64, look: PressLook, out: &mut Emitted) {
        let PressLook {
            display,
            final_look,
        } = look;
        // The board reports a change up to ~400 ms late (protocol §4.1): while it is still
        // changing, wait for it to be quiet, within a bound.
        let quiet_at = self.board.last_change + self.rules.settle_ms;
        if quiet_at > t && t < self.press.seen_at + PRESS_MAX_WAIT_MS {
            self.look_at_press(quiet_at, display, final_look);
            return;
        }
        self.decide_press(t, display, final_look, out);
    }

    /// `timer` fired at `t` (it is off the table already).
    fn on_due(&mut self, timer: Timer, t: u64, out: &mut Emitted) {
        match timer {
            Timer::Settle => self.on_settled(t, out),
            Timer::PressWait => {
                // No press came: the move stands as the board shows it.
                if let Some(Interpretation::Ahead(path)) = self.interpret(self.decision_depth()) {
                    self.commit_shown(t, &path, false, self.board.last_change, out);
                }
            }
            Timer::IllegalPosition => self.raise_illegal_position(t, out),
            // Not waking timers: checked where they matter.
            Timer::Correction | Timer::LogWait => {}
        }
    }

    fn on_op(&mut self, t: u64, op: &Operation, out: &mut Emitted) {
        match op {
            Operation::Setup(s) => self.on_setup(t, s, out),
            Operation::Result(r) => {
                self.check_result(t, *r, out);
                if let Some(g) = self.playing_mut() {
                    let id = g.id.clone();
                    g.result = Some((*r, EndReason::Arbiter));
                    out.push((
                        t,
                        EventBody::GameEnd {
                            game: id,
                            result: *r,
                            reason: EndReason::Arbiter,
                        },
                    ));
                    self.resigned_out_of_turn(*r);
                }
            }
            Operation::Claim(c) if c.claim_kind() == ClaimKind::Flag => {
                self.flag_claimed(t, out);
            }
            Operation::Claim(c) => self.on_claim(t, c, out),
            Operation::Confirm(id) => self.confirm(t, *id, out),
            Operation::Ack(id) => {
                if self
                    .watch
                    .flags
                    .uncalled
                    .as_ref()
                    .is_some_and(|f| f.alert == Some(*id))
                {
                    self.flag_called(t, CalledBy::Arbiter, out);
                }
            }
            Operation::UnderWay(u) => self.arbiter_sets_to_move(t, u.to_move.into(), out),
            // Not rules, or between two boards: the engine handles these before any session
            // sees them.
            Operation::Pairings(_)
            | Operation::TableResult(_)
            | Operation::By(_)
            | Operation::TakeOver(_)
            | Operation::TableGame(_) => {}
        }
    }

    /// A draw claim (9.2 / 9.3) checked by the arbiter's claim checker: the verdict with its
    /// evidence.
    fn on_claim(&mut self, t: u64, c: &crate::input::ClaimOp, out: &mut Emitted) {
        let Some(g) = &self.game else { return };
        let (correct, why) =
            arbiter::check_claim(g, &self.rules.edition, c.intended_move.as_deref());
        // 9.2 / 9.3: the claim is the right of the player on move.
        let on_move = g.current().turn();
        let claimant = c.side.map_or(on_move, Color::from);
        let kind = if c.claim_kind() == ClaimKind::FiftyMoveRule {
            AlertKind::FiftyMoveRuleAvailable
        } else {
            AlertKind::ThreefoldRepetitionAvailable
        };
        let mut a = self.alert(
            kind,
            Severity::Review,
            None,
            format!("Claim checked: {why}"),
        );
        let written = c.intended_move.is_some();
        let a_article = match (kind == AlertKind::FiftyMoveRuleAvailable, written) {
            (true, true) => self.rules.edition.fifty_claim_with_move,
            (true, false) => self.rules.edition.fifty_claim,
            (false, true) => self.rules.edition.threefold_claim_with_move,
            (false, false) => self.rules.edition.threefold_claim,
        };
        a.article = Some(a_article.into());
        a.side = Some(claimant.into());
        a.uci = c.intended_move.clone();
        // 2017+ 9.4: a piece touched (lifted) since the position arose forfeits
        // the claim on this move.
        let touched = self
            .rules
            .edition
            .claim_lost_by_touch
            .filter(|_| claimant == on_move && !written)
            .and_then(|art| {
                self.board
                    .handling
                    .first_lift_since(self.board.same_since)
                    .map(|sq| (art, sq))
            });
        let decision = if let Some((article, square)) = touched {
            ClaimDecision::LostByTouch { square, article }
        } else if claimant != on_move {
            ClaimDecision::NotOnMove { on_move }
        } else if correct {
            ClaimDecision::Correct
        } else {
            ClaimDecision::Incorrect(self.wrong_claim_penalty(claimant))
        };
        let verdict = ClaimVerdict {
            claim: c.claim_kind(),
            claimant,
            article: a_article,
            written_move: written,
            decision,
            found_under_way: self.watch.found_under_way,
        };
        a.title = Some(verdict.title());
        a.prescription = Some(verdict.render());
        a.verdict = Some(Box::new(verdict.into()));
        out.push((t, EventBody::Alert(a)));
    }

    fn on_setup(&mut self, t: u64, s: &SetupOp, out: &mut Emitted) {
        if let Some(side) = s.white_clock_side {
            self.clock.set_white_side(side);
        }
        if let Some(e) = s.edition {
            self.rules.edition = arbiter::edition_with(e, self.rules.fivefold);
        }
        if let Some(sup) = s.supervision {
            self.rules.supervision = sup;
        }
        if let Some(tc) = &s.time_control {
            self.rules.time_control = Some(tc.clone());
        }
        if let Some(r) = s.rotated {
            self.board.orientation = if r {
                Orientation::Rotated
            } else {
                Orientation::Normal
            };
        }
        if let Some(f) = &s.fen
            && let Ok(start) = reconstruct::position_from_fen(f)
        {
            self.before.next_start = Some(start);
            // The board may already show it.
            self.try_start_game(t, out);
        }
    }

    /// The engine numbered an alert this session raised: remember the id of a flag alert
    /// that waits to be called.
    pub fn alert_numbered(&mut self, a: &Alert) {
        if a.repeats.is_none()
            && let Some(e) = self
                .equipment
                .iter_mut()
                .find(|(kind, id, ..)| *kind == a.kind && *id == 0)
        {
            e.1 = a.id;
        }
        if a.kind == AlertKind::TwoHandedMove
            && a.severity != Severity::Intervene
            && let Some(side) = a.side
        {
            let mover = if side == Side::White {
                Color::White
            } else {
                Color::Black
            };
            self.watch.offences.suspect(a.id, mover, a.ply.unwrap_or(0));
        }
        if a.kind == AlertKind::FlagFall
            && a.severity == Severity::Intervene
            && let Some(f) = &mut self.watch.flags.uncalled
            && f.alert.is_none()
        {
            f.alert = Some(a.id);
        }
    }

    /// The arbiter's result against the Laws and the board (L17 fn 138): a draw before both
    /// players have moved (5.2.3, 2017+), or a result that differs from the game's end by
    /// rule, which stands (events after the end never change the result).
    fn check_result(&mut self, t: u64, result: GameResult, out: &mut Emitted) {
        let Some(g) = &self.game else { return };
        let verdict = match &g.result {
            Some((ended, reason)) if *ended != result && *reason != EndReason::Arbiter => {
                RecordVerdict::AgainstEndByRule {
                    entered: result,
                    ended: *ended,
                    reason: *reason,
                    ply: g.plies(),
                }
            }
            None if result == GameResult::Drawn => {
                let Some(article) = self.rules.edition.draw_agreement_after_moves else {
                    return;
                };
                // Counted from the initial position only: a game set up from a FEN (an
                // adjourned game) had its first moves before.
                // A game found under way had its first moves before too.
                if g.positions[0].fullmoves().get() > 1 || self.watch.found_under_way {
                    return;
                }
                let start_white = g.positions[0].turn().is_white();
                let (white, black) = if start_white {
                    (g.plies().div_ceil(2), g.plies() / 2)
                } else {
                    (g.plies() / 2, g.plies().div_ceil(2))
                };
                if white > 0 && black > 0 {
                    return;
                }
                RecordVerdict::DrawBeforeBothMoved {
                    plies: g.plies(),
                    article,
                }
            }
            _ => return,
        };
        let message = verdict.message().unwrap_or_default();
        let mut a = self.alert(AlertKind::ResultConflict, Severity::Review, None, message);
        if let RecordVerdict::DrawBeforeBothMoved { article, .. } = &verdict {
            a.article = Some((*article).into());
        }
        a.prescription = Some(verdict.render());
        a.verdict = Some(Box::new(verdict.into()));
        out.push((t, EventBody::Alert(a)));
    }

    fn alert(
        &self,
        kind: AlertKind,
        severity: Severity,
        side: Option<Color>,
        message: String,
    ) -> Alert {
        let mut a = Alert::new(kind, severity, self.rules.edition.name, message);
        a.side = side.map(Side::from);
        if let Some(g) = &self.game {
            a.game = Some(g.id.clone());
            a.ply = Some(g.plies() as u32);
            a.fen = Some(fen(g.current()));
        }
        a
    }
}

/// The `move` event of the game's last move, with the clock readings it was completed with.
fn last_move_event(g: &Game, clocks: (Option<u64>, Option<u64>)) -> Option<EventBody> {
    let played = g.moves.last()?;
    Some(EventBody::Move(MoveEvent {
        game: g.id.clone(),
        ply: g.plies() as u32,
        side: (!g.current().turn()).into(),
        uci: played.uci.clone(),
        san: played.san.clone(),
        fen: fen(g.current()),
        white_ms: clocks.0,
        black_ms: clocks.1,
    }))
}

/// Whether `mover`'s move from `before` to `shown` took the opponent's king (1.4.1).
fn captures_king(before: &shakmaty::Board, shown: &shakmaty::Board, mover: Color) -> bool {
    before
        .king_of(!mover)
        .is_some_and(|sq| shown.king_of(!mover) != Some(sq) && shown.color_at(sq) == Some(mover))
}

/// Whether the board shows `m` played but for the moved side's own piece off the board.
fn own_piece_gone(pos: &Chess, m: &Move, shown: &shakmaty::Board) -> bool {
    let mut after = pos.clone();
    after.play_unchecked(*m);
    board::diff(after.board(), shown)
        .into_iter()
        .any(|sq| shown.piece_at(sq).is_none() && after.board().color_at(sq) == Some(pos.turn()))
}

/// Whether both kings stand in check on a placement (an illegal position, 2005 B6).
fn both_kings_in_check(b: &shakmaty::Board) -> bool {
    [Color::White, Color::Black].into_iter().all(|c| {
        b.king_of(c)
            .is_some_and(|k| b.attacks_to(k, !c, b.occupied()).any())
    })
}

use crate::snapshot_as::*;
use crate::verdict::mmss;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn taking_the_waiting_flag_prefers_the_uncalled_one_and_clears_both() {
        let mut flags = FlagWatch {
            pending: Some(Color::Black),
            uncalled: Some(UncalledFlag {
                flagged: Color::White,
                t_ms: 10,
                alert: None,
            }),
            ..FlagWatch::default()
        };
        assert_eq!(flags.take_waiting(), Some(Color::White));
        assert_eq!(flags.take_waiting(), None, "the pending flag went with it");
        flags.pending = Some(Color::Black);
        assert_eq!(flags.take_waiting(), Some(Color::Black));
        assert_eq!(flags.take_waiting(), None);
    }
}
