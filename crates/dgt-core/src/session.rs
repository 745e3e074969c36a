//! One board's pipeline: bytes → messages → board state → moves, clocks, alerts.
//!
//! Decisions are taken at three moments: when the placement has **settled** (unchanged for
//! `settle_ms`), when the clock shows a **press** (6.2.1: the press completes the move), and
//! when a waiting period runs out (no press came; an unexplained placement persisted).

use dgt_protocol::{BoardMessage, ClockMessage, ClockTimes, Decoded, Decoder, LineMode};
use shakmaty::{CastlingMode, Chess, Color, Move, Position};

use crate::arbiter::{self, Laws};
use crate::board::{self, PhysicalBoard};
use crate::bus::{BusBoard, BusFact};
use crate::clock::{ClockObservation, ClockTracker};
use crate::config::CoreConfig;
use crate::dead::MateAbility;
use crate::eeprom;
use crate::engine::Emitted;
use crate::event::{
    Alert, AlertKind, BoardStatus, ClockEvent, EndReason, EventBody, LinkState, MoveEvent,
    Orientation, Severity, Side,
};
use crate::handling::{Handling, HandlingLog, HandlingThresholds, Signal};
use crate::input::{ClockSide, InputKind, Link, Operation, SetupOp, Supervision};
use crate::reconstruct::{self, Game, Interpretation, fen};
use crate::time_control::TimeControl;

mod clock_checks;
mod flags;
mod offences;
mod seat;

/// A flag down on the display that has not been called yet (`flag_counts = when_called`).
#[derive(Debug, Clone)]
struct UncalledFlag {
    flagged: Color,
    t_ms: u64,
    /// The id the engine gave the flag alert (acknowledging it calls the flag).
    alert: Option<u64>,
}

/// A placement legal moves explained, as the position after `ply` plies of the game.
/// Positions repeat (a knight out and back, a king shuffling): the same placement shown at
/// another ply is no sign of a move played now.
#[derive(Debug, Clone)]
struct Shown {
    ply: usize,
    board: shakmaty::Board,
}

/// Offences that count towards the loss (7.5.5; 2017: 7.5.3 / 7.8.2 separately).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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
/// the kings-in-the-centre result gesture.
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
/// How many recent explained placements are remembered.
const SEEN_KEPT: usize = 32;
/// How late a board may report a change in rapid play (protocol §4.1: about 400 ms): a
/// sliding piece may still be reported on the squares after the one it seems to stop on.
const REPORT_LAG_MS: u64 = 400;
/// Equipment alerts of one kind on one board within this long of the last are one alert
/// with a count (a battery indicator flickering, a clock flapping): half an hour.
const EQUIPMENT_COALESCE_MS: u64 = 30 * 60_000;

/// The state kept for one game's watch — offences, flags, hints already given — reset as a
/// whole when a new game begins (so no part of it can be forgotten).
#[derive(Debug, Default)]
struct GameWatch {
    illegal_alerted: bool,
    /// Offences per counter and player ([class][white, black]); see [`Offence`].
    offences: [[u32; 2]; 3],
    /// Periods of a multi-period control each player has completed (flags seen in time).
    periods_reached: [usize; 2],
    /// A flag that fell without ending the game (reduced supervision: only on a claim, or
    /// for the arbiter to call), and whose it was.
    flag_pending: Option<Color>,
    /// A flag that has fallen on the display but counts only once called (`when_called`,
    /// 6.8): who flagged, when, and the id of the alert that reported it.
    uncalled_flag: Option<UncalledFlag>,
    /// Recent two-handed-move alerts the arbiter may confirm: (alert id, mover, ply).
    suspicions: Vec<(u64, Color, u32)>,
    /// Pieces gone from the board since an `illegal_position` that only showed pieces
    /// missing (knocked off, L17 T43): play is followed as if they stood on their squares
    /// until they are back or the position is reinstated.
    ghosts: Vec<(shakmaty::Square, shakmaty::Piece)>,
    /// Presses in a row per player ([white, black]) that added less than half the increment
    /// due, and whether the clock setting was already reported for this game.
    short_increments: [u32; 2],
    clock_setting_reported: bool,
    /// A press was seen in this game: the starting times are no longer on the clock.
    pressed_in_game: bool,
    /// Players already told of a quickplay-finish claim in this game ([white, black]).
    quickplay_told: [bool; 2],
    /// The period ([white, black]) for which 8.4 was last reported, plus one (0 = never).
    recording_told: [usize; 2],
    /// The ply at which the "castling illegal" hint was given (once per position).
    castling_hint_at: Option<usize>,
    /// The arbiter was told that play went on after the game's end by rule.
    told_play_after_end: bool,
    /// The flag that ended the game (who, when), until the other flag is reported too.
    game_ending_flag: Option<(Color, u64)>,
    /// A formally illegal move completed by a press and not (yet) corrected: the placement it
    /// left and who made it. If the opponent moves from there, tracking continues from it.
    stood: Option<(shakmaty::Board, Color)>,
    /// Reduced supervision (A.4.4 / A.5.4): the ply at which an illegal position (both kings
    /// in check, a pawn on its last rank) was seen standing, and whether the draw was raised.
    illegal_standing: Option<(u32, bool)>,
    /// A player who made a move with their own clock still running and has not pressed
    /// since: their press, even after the opponent's reply, completes it (6.2.2).
    owes_press: Option<Color>,
    /// The game's ply count right after an illegal move was taken into it as it stood
    /// (`adopt_illegal`): a second one before any legal move means tracking is lost.
    adopted_at: Option<usize>,
    /// The piece (its square) with which the player on move completed an illegal move from
    /// the position after this many plies: touched beyond any adjustment (4.3, 7.5.1).
    illegal_piece: Option<(usize, shakmaty::Square)>,
    /// Tracking is lost: the board left every position the game explains, twice in a row.
    /// Nothing is read as a move until it shows a legal continuation, the last legal
    /// position (or an earlier one), or a set-up.
    lost_track: bool,
}

impl GameWatch {
    /// The flag down but not yet counted (uncalled, or pending a claim), taken off the watch.
    fn take_waiting_flag(&mut self) -> Option<Color> {
        self.uncalled_flag
            .take()
            .map(|f| f.flagged)
            .or(self.flag_pending.take())
    }
}

pub struct Session {
    label: String,
    settle_ms: u64,
    press_wait_ms: u64,
    illegal_position_ms: u64,
    /// The edition in force, with the configured fivefold reading applied.
    edition: Laws,
    fivefold: Option<crate::config::FivefoldReading>,
    supervision: Supervision,
    time_control: Option<TimeControl>,
    /// Category boundaries in minutes when configured (else the edition's own; the 2017
    /// text contradicts itself).
    blitz_max: Option<u64>,
    rapid_max: Option<u64>,

    decoder: Decoder,
    /// The bus side of a board on a bus line (`Link::BusConnected`), else `None`.
    bus: Option<BusBoard>,
    board: PhysicalBoard,
    orientation: Orientation,
    clock: ClockTracker,

    game: Option<Game>,
    games_started: u32,
    /// A position an operator set up: the next game starts when the board shows it.
    next_start: Option<(Chess, CastlingMode)>,

    serial: Option<String>,
    version: Option<String>,
    clock_version: Option<String>,
    port: Option<String>,
    link: LinkState,
    was_disconnected: bool,

    /// The latest placement since the last commit that legal moves explain, and when.
    last_ahead: Option<(u64, Vec<Move>)>,
    /// A placement moves explained (`last_ahead`) that the opponent then began to answer,
    /// the mover's pieces still where those moves left them: its last move is complete.
    /// Kept with the game's ply count it starts from.
    answered: Option<(usize, Vec<Move>)>,
    /// Both displays gained time between two readings with the lever where it was: two
    /// presses (a move and its reply) came between the clock's reports.
    two_presses_unseen: bool,
    /// Recent placements that legal moves explained: the first of two moves seen together is
    /// believed only if the board once showed it by itself.
    seen: std::collections::VecDeque<Shown>,
    /// When the moves completed by the last press become final.
    confirm_at: Option<u64>,
    settle_at: Option<u64>,
    press_wait_at: Option<u64>,
    illegal_at: Option<u64>,
    /// A press whose board could not be read as a move yet; decided when the board settles.
    press_verdict_at: Option<(u64, ClockSide, bool)>,
    /// The clock reading that showed the press: the times of the move it completes.
    press_reading: Option<ClockTimes>,
    /// When the last press was seen.
    press_seen_at: u64,
    /// The board was not watched for a while (a dump changed it, or the link came back):
    /// the next decision may find several moves.
    after_gap: bool,
    /// Where the board's log (protocol §3.6) was last read; `None` until a board sends one.
    ee_mark: Option<eeprom::Mark>,
    /// After a reconnection, decisions wait until then for the log the edge asked for.
    ee_wait_until: Option<u64>,
    flag_counts: crate::config::FlagCounts,
    guideline_iii: bool,
    /// A board set up wrongly (`reconstruct::wrong_setup`) seen settled, with its
    /// orientation: a game starts from it only when a move is made there.
    wrong_setup: Option<(shakmaty::Board, Orientation, u64)>,
    /// When the clock last showed a press, game or no game.
    any_press_at: u64,
    /// Lifts and placements, for touch-move, rook-first castling and two-hands signals.
    handling: HandlingLog,
    /// When the board first showed the current position (the next move's handling began
    /// after it; a piece touched and put back stays in the window).
    same_since: u64,
    /// When the placement last changed.
    last_change: u64,
    /// The most squares the board has differed from the current position at once since the
    /// last move or the last return to it.
    displaced: usize,

    /// What is watched over one game, reset as a whole when a game begins.
    watch: GameWatch,
    /// The board's seat in a bughouse match, if it plays in one.
    bughouse: Option<seat::Seat>,

    /// Equipment alerts raised on this board, coalesced (`equipment_alert`): kind, the id of
    /// the alert (0 until numbered), how many times, and the latest.
    equipment: Vec<(AlertKind, u64, u32, u64)>,

    /// Counters for the metrics.
    pub garbage_bytes: u64,
    pub clock_rejected: u64,
}

impl Session {
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
            settle_ms: config.settle_ms,
            press_wait_ms: config.press_wait_ms,
            illegal_position_ms: config.illegal_position_ms,
            edition: arbiter::edition_with(s.edition.unwrap_or_default(), config.fivefold),
            fivefold: config.fivefold,
            supervision: s.supervision.unwrap_or(Supervision::Full),
            time_control: tc,
            blitz_max: config.blitz_max_minutes,
            rapid_max: config.rapid_max_minutes,
            decoder: Decoder::new(LineMode::Single),
            bus: None,
            board: PhysicalBoard::default(),
            orientation: Orientation::Normal,
            clock: ClockTracker::new(s.white_clock_side),
            game: None,
            games_started: 0,
            next_start: None,
            serial: None,
            version: None,
            clock_version: None,
            port: None,
            link: LinkState::Connected,
            was_disconnected: false,
            last_ahead: None,
            answered: None,
            two_presses_unseen: false,
            seen: std::collections::VecDeque::new(),
            confirm_at: None,
            settle_at: None,
            press_wait_at: None,
            illegal_at: None,
            press_verdict_at: None,
            press_reading: None,
            press_seen_at: 0,
            flag_counts: config.flag_counts,
            guideline_iii: config.guideline_iii,
            wrong_setup: None,
            any_press_at: 0,
            after_gap: false,
            ee_mark: None,
            ee_wait_until: None,
            handling: HandlingLog::default(),
            same_since: 0,
            last_change: 0,
            displaced: 0,
            watch: GameWatch::default(),
            bughouse: bughouse.map(|m| seat::Seat::new(m, label)),
            equipment: Vec::new(),
            garbage_bytes: 0,
            clock_rejected: 0,
        }
    }

    pub fn label(&self) -> &str {
        &self.label
    }
    pub fn game(&self) -> Option<&Game> {
        self.game.as_ref()
    }
    pub fn physical(&self) -> &PhysicalBoard {
        &self.board
    }
    pub fn orientation(&self) -> Orientation {
        self.orientation
    }
    pub fn clock(&self) -> &ClockTracker {
        &self.clock
    }
    pub fn serial(&self) -> Option<&str> {
        self.serial.as_deref()
    }
    pub fn link(&self) -> LinkState {
        self.link
    }

    /// The earliest pending timer.
    pub fn deadline(&self) -> Option<u64> {
        [
            self.settle_at,
            self.press_wait_at,
            self.illegal_at,
            self.press_verdict_at.map(|(t, _, _)| t),
        ]
        .into_iter()
        .flatten()
        .min()
    }

    /// Makes the moves completed by a press final once their correction window is over.
    fn expire_corrections(&mut self, t: u64) {
        if self.confirm_at.is_some_and(|c| c <= t) {
            self.confirm_at = None;
            if let Some(g) = &mut self.game {
                g.confirm_all();
            }
        }
    }

    pub fn handle(&mut self, t: u64, kind: &InputKind, out: &mut Emitted) {
        self.expire_corrections(t);
        match kind {
            InputKind::Rx(bytes) => {
                self.decoder.push(bytes);
                while let Some(d) = self.decoder.next_decoded() {
                    self.on_decoded(t, d, out);
                }
            }
            InputKind::Tx(_) => {}
            InputKind::Link(link) => self.on_link(t, link, out),
            InputKind::Op(op) => self.on_op(t, op, out),
        }
    }

    pub fn on_timer(&mut self, t: u64, out: &mut Emitted) {
        self.expire_corrections(t);
        if self.press_verdict_at.is_some_and(|(d, _, _)| d <= t)
            && let Some((_, display, final_look)) = self.press_verdict_at.take()
        {
            // The board reports a change up to ~400 ms late (protocol §4.1): while it is
            // still changing, wait for it to be quiet, within a bound.
            let quiet_at = self.last_change + self.settle_ms;
            if quiet_at > t && t < self.press_seen_at + PRESS_MAX_WAIT_MS {
                self.press_verdict_at = Some((quiet_at, display, final_look));
                return self.on_timer(t, out);
            }
            self.decide_press(t, display, final_look, out);
        }
        if self.settle_at.is_some_and(|d| d <= t) {
            self.settle_at = None;
            self.on_settled(t, out);
        }
        if self.press_wait_at.is_some_and(|d| d <= t) {
            self.press_wait_at = None;
            // No press came: the move stands as the board shows it.
            if let Some(Interpretation::Ahead(path)) = self.interpret(self.decision_depth()) {
                self.commit_shown(t, &path, false, self.last_change, out);
            }
        }
        if self.illegal_at.is_some_and(|d| d <= t) {
            self.illegal_at = None;
            self.raise_illegal_position(t, out);
        }
    }

    // ---- bytes ---------------------------------------------------------------------------

    fn on_decoded(&mut self, t: u64, d: Decoded, out: &mut Emitted) {
        match d {
            Decoded::Message(m) => self.on_message(t, m, out),
            Decoded::Garbage(g) => self.garbage_bytes += g.len() as u64,
            Decoded::Bus(reply) => self.on_bus_reply(t, reply, out),
            // The edge asks the board again (REPEAT_CHANGES, protocol §2.4); the repeat
            // follows as a good frame.
            Decoded::BadChecksum { .. } => {}
        }
    }

    /// A bus reply is read as what a single board would have sent ([`crate::bus`]).
    fn on_bus_reply(&mut self, t: u64, reply: dgt_protocol::BusReply, out: &mut Emitted) {
        let Some(bus) = self.bus.as_mut() else { return };
        let current = self.board.is_known().then(|| *self.board.codes());
        for fact in bus.interpret(reply, current.as_ref()) {
            match fact {
                BusFact::Message(m) => self.on_message(t, m, out),
                // A field update from the board's log. Its handling is not recorded: the
                // whole batch has the poll's time, which says nothing about the hands.
                BusFact::LoggedField { square, piece } => {
                    if self.board.is_known() && self.board.apply_update(square, piece) == Some(true)
                    {
                        self.on_change(t, out);
                    }
                }
                BusFact::Pressed { first_left } => self.on_logged_press(first_left),
            }
        }
    }

    /// The presses a bus board logged tell whose display is White's at the start of a game,
    /// where the readings, taken once a poll, may first show the clock after White's press
    /// ([`crate::bus`]). With White's move on the board (or under way) when the packet is
    /// in, the packet's first press completed it; with the start position still there, it
    /// started the opponent's clock (the usual start by Black). Misread only when Black
    /// starts the clock and White moves within one poll.
    fn on_logged_press(&mut self, first_left: bool) {
        let Some(g) = &self.game else { return };
        if g.plies() > 0 || g.is_over() {
            return;
        }
        let to_move = g.current().turn();
        let moved = self.board.placement(self.orientation).board != *g.current().board();
        let presser = if moved { to_move } else { !to_move };
        let display = if first_left {
            ClockSide::Left
        } else {
            ClockSide::Right
        };
        self.infer_from_press(display, presser);
    }

    fn on_message(&mut self, t: u64, m: BoardMessage, out: &mut Emitted) {
        match m {
            BoardMessage::BoardDump(codes) => {
                let before = *self.board.codes();
                let was_known = self.board.is_known();
                if self.board.apply_dump(&codes) {
                    // A dump that changes the board means changes were missed.
                    self.after_gap = was_known;
                    if was_known {
                        for (i, code) in before.iter().enumerate() {
                            self.record_handling(t, i, *code);
                        }
                    }
                    self.on_change(t, out);
                }
            }
            // Updates before the first dump cannot be placed on a known board.
            BoardMessage::FieldUpdate { square, piece }
                if self.board.is_known() && (square as usize) < 64 =>
            {
                let before = self.board.code(square as usize);
                if self.board.apply_update(square, piece) == Some(true) {
                    self.record_handling(t, square as usize, before);
                    self.on_change(t, out);
                }
            }
            BoardMessage::Clock(ClockMessage::Times(times)) => self.on_clock(t, times, out),
            BoardMessage::Clock(ClockMessage::Ack(ack)) => {
                if let Some((main, sub)) = ack.version() {
                    let name = if main == 2 { "DGT 3000" } else { "DGT XL" };
                    self.clock_version = Some(format!("{name} {main}.{sub}"));
                }
            }
            BoardMessage::Clock(ClockMessage::Implausible(_)) => self.clock_rejected += 1,
            BoardMessage::Clock(ClockMessage::Blank) => {}
            BoardMessage::SerialNumber(s) | BoardMessage::LongSerialNumber(s)
                if self.serial.is_none() =>
            {
                self.serial = Some(s);
                self.link = LinkState::Identified;
                self.emit_status(t, out);
            }
            BoardMessage::Version { major, minor } => {
                let v = format!("{major}.{minor}");
                if self.version.as_deref() != Some(&v) {
                    self.version = Some(v);
                    if self.serial.is_some() {
                        self.emit_status(t, out);
                    }
                }
            }
            BoardMessage::EeMoves(data) => self.on_ee_log(t, &data, out),
            _ => {}
        }
    }

    /// The board's log, asked for at every connection (protocol §3.6). After an outage it
    /// gives the moves made meanwhile, with the logged clock times ([`eeprom::outage_moves`]);
    /// what it cannot explain is raised for review. Every reading marks where the next
    /// one starts.
    fn on_ee_log(&mut self, t: u64, data: &[u8], out: &mut Emitted) {
        let entries = dgt_protocol::parse_ee_log(data);
        if self.ee_wait_until.take().is_some()
            && let (Some(mark), Some(g)) = (&self.ee_mark, &self.game)
        {
            let white_side = self.clock.white_side();
            let outage = eeprom::outage_moves(mark, g, self.orientation, white_side, &entries);
            let mut clocks = g
                .moves
                .last()
                .map_or(self.clock.white_black_ms(), |m| (m.white_ms, m.black_ms));
            for (m, logged) in &outage.moves {
                let Some(g) = self.game.as_mut().filter(|g| !g.is_over()) else {
                    break;
                };
                match (g.current().turn(), logged) {
                    (Color::White, Some(ms)) => clocks.0 = Some(*ms),
                    (Color::Black, Some(ms)) => clocks.1 = Some(*ms),
                    _ => {}
                }
                g.confirm_all();
                let ply = g.push(*m, t, clocks);
                let Some(p) = g.moves.last().cloned() else {
                    break;
                };
                let side: Side = (!g.current().turn()).into();
                let (game, fen) = (g.id.clone(), fen(g.current()));
                let (uci, san) = (p.uci, p.san);
                let (white_ms, black_ms) = clocks;
                let body = MoveEvent {
                    game,
                    ply,
                    side,
                    uci,
                    san,
                    fen,
                    white_ms,
                    black_ms,
                };
                out.push((t, EventBody::Move(body)));
                self.after_move(t, out);
            }
            if let Some(gap) = outage.gap {
                let message = format!(
                    "The board's memory does not explain the whole outage: {gap}. {} move(s) \
                     were recovered from it; check the board against the position given and \
                     enter any further moves by hand.",
                    outage.moves.len()
                );
                let mut a =
                    self.alert(AlertKind::BoardReconnected, Severity::Review, None, message);
                a.fen = Some(outage.fen);
                out.push((t, EventBody::Alert(a)));
            }
            if self.settle_at.is_some() {
                self.settle_at = Some(t.max(self.last_change + self.settle_ms));
            }
        }
        // The board went on while the log was sent (~8 s at 9600 baud): what it reports next
        // may hold several moves, as after any gap.
        if self.game.as_ref().is_some_and(|g| !g.is_over()) {
            self.after_gap = true;
        }
        self.ee_mark = Some(eeprom::Mark {
            squares: *self.board.codes(),
            game: self.game.as_ref().map(|g| g.id.clone()),
            plies: self.game.as_ref().map_or(0, |g| g.plies()),
        });
    }

    fn emit_status(&self, t: u64, out: &mut Emitted) {
        out.push((
            t,
            EventBody::BoardStatus(BoardStatus {
                state: self.link,
                serial: self.serial.clone(),
                version: self.version.clone(),
                orientation: self.orientation,
                port: self.port.clone(),
                clock_version: self.clock_version.clone(),
            }),
        ));
    }

    fn on_link(&mut self, t: u64, link: &Link, out: &mut Emitted) {
        match link {
            Link::Connected { port } | Link::BusConnected { port, .. } => {
                self.port = port.clone();
                self.after_gap = true;
                self.link = LinkState::Connected;
                // A bus line's bytes are bus frames (protocol §3.7).
                self.bus = match link {
                    Link::BusConnected { address, .. } => Some(BusBoard::new(*address)),
                    _ => None,
                };
                self.decoder = Decoder::new(if self.bus.is_some() {
                    LineMode::Bus
                } else {
                    LineMode::Single
                });
                self.emit_status(t, out);
                if self.was_disconnected {
                    self.was_disconnected = false;
                    // A board that sent its log before will send it again: the moves of the
                    // outage are read from it, not guessed from the dump ([`Self::on_ee_log`]).
                    if self.bus.is_none()
                        && self.ee_mark.is_some()
                        && self.game.as_ref().is_some_and(|g| !g.is_over())
                    {
                        self.ee_wait_until = Some(t + eeprom::LOG_WAIT_MS);
                    }
                    let a = self.alert(
                        AlertKind::BoardReconnected,
                        Severity::Info,
                        None,
                        "The board is connected again; its position is read afresh.".into(),
                    );
                    out.push((t, EventBody::Alert(a)));
                }
            }
            Link::Disconnected { reason, stopping } => {
                self.link = LinkState::Disconnected;
                self.was_disconnected = true;
                self.emit_status(t, out);
                let in_game = self.game.as_ref().is_some_and(|g| !g.is_over());
                // A planned stop of the daemon is no trouble with the board: info only.
                let severity = if in_game && !stopping {
                    Severity::Review
                } else {
                    Severity::Info
                };
                let message = if *stopping {
                    "The daemon is stopping: this board is not watched until it starts again; moves made meanwhile are recovered then.".to_string()
                } else {
                    format!(
                        "The link to the board is down{}; moves made meanwhile are recovered when it is back.",
                        reason
                            .as_deref()
                            .map(|r| format!(" ({r})"))
                            .unwrap_or_default()
                    )
                };
                let mut a = self.alert(AlertKind::BoardDisconnected, severity, None, message);
                a.fen = self.game.as_ref().map(|g| fen(g.current()));
                out.push((t, EventBody::Alert(a)));
            }
        }
    }

    fn on_op(&mut self, t: u64, op: &Operation, out: &mut Emitted) {
        match op {
            Operation::Setup(s) => self.on_setup(t, s, out),
            Operation::Result(r) => {
                self.check_result(t, r, out);
                if let Some(g) = &mut self.game
                    && !g.is_over()
                {
                    let id = g.id.clone();
                    g.result = Some((r.clone(), EndReason::Arbiter));
                    out.push((
                        t,
                        EventBody::GameEnd {
                            game: id,
                            result: r.clone(),
                            reason: EndReason::Arbiter,
                        },
                    ));
                    self.resigned_out_of_turn(r);
                }
            }
            Operation::Claim(c) if c.kind.as_deref().is_some_and(|k| k.contains("flag")) => {
                self.flag_claimed(t, out);
            }
            Operation::Claim(c) => {
                // The arbiter's claim checker (9.2 / 9.3): the verdict with its evidence.
                let Some(g) = &self.game else { return };
                let (correct, why) =
                    arbiter::check_claim(g, &self.edition, c.intended_move.as_deref());
                // 9.2 / 9.3: the claim is the right of the player on move.
                let on_move = g.current().turn();
                let claimant = match c.side.as_deref() {
                    Some("white") => Color::White,
                    Some("black") => Color::Black,
                    _ => on_move,
                };
                let kind = if c.kind.as_deref().is_some_and(|k| k.contains("fifty")) {
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
                a.article = Some(
                    match (kind == AlertKind::FiftyMoveRuleAvailable, written) {
                        (true, true) => self.edition.fifty_claim_with_move,
                        (true, false) => self.edition.fifty_claim,
                        (false, true) => self.edition.threefold_claim_with_move,
                        (false, false) => self.edition.threefold_claim,
                    }
                    .into(),
                );
                a.side = Some(claimant.into());
                a.uci = c.intended_move.clone();
                // 2017+ 9.4: a piece touched (lifted) since the position arose forfeits
                // the claim on this move.
                let touched = self
                    .edition
                    .claim_lost_by_touch
                    .filter(|_| claimant == on_move && !written)
                    .and_then(|art| {
                        self.handling
                            .first_lift_since(self.same_since)
                            .map(|sq| (art, sq))
                    });
                a.prescription = Some(if let Some((art, sq)) = touched {
                    format!(
                        "The claim is lost: {} lifted the piece on {sq} before claiming ({art}); the game goes on, and the touched piece must be moved if it can be (4.3).",
                        arbiter::side_name(claimant)
                    )
                } else if claimant != on_move {
                    format!(
                        "{} is not on move: a claim under 9.2 / 9.3 is no longer possible for this position (the right passes to {}).",
                        arbiter::side_name(claimant),
                        arbiter::side_name(on_move)
                    )
                } else if correct {
                    "The claim is correct: the game is drawn.".into()
                } else {
                    let mut p = format!(
                        "The claim is incorrect: the game goes on; {}",
                        self.wrong_claim_penalty(claimant)
                    );
                    if written {
                        p.push_str(" The written move must be played (Art. 4).");
                    }
                    p
                });
                out.push((t, EventBody::Alert(a)));
            }
            Operation::Confirm(id) => self.confirm(t, *id, out),
            Operation::Ack(id) => {
                if self
                    .watch
                    .uncalled_flag
                    .as_ref()
                    .is_some_and(|f| f.alert == Some(*id))
                {
                    self.flag_called(t, "the arbiter acknowledged the flag", out);
                }
            }
            // Not rules: the engine passes these back before any session sees them.
            Operation::Pairings(_) | Operation::TableResult(_) | Operation::By(_) => {}
        }
    }

    fn on_setup(&mut self, t: u64, s: &SetupOp, out: &mut Emitted) {
        if let Some(side) = s.white_clock_side {
            self.clock.set_white_side(side);
        }
        if let Some(e) = s.edition {
            self.edition = arbiter::edition_with(e, self.fivefold);
        }
        if let Some(sup) = s.supervision {
            self.supervision = sup;
        }
        if let Some(tc) = &s.time_control {
            self.time_control = Some(tc.clone());
        }
        if let Some(r) = s.rotated {
            self.orientation = if r {
                Orientation::Rotated
            } else {
                Orientation::Normal
            };
        }
        if let Some(f) = &s.fen
            && let Ok(start) = reconstruct::position_from_fen(f)
        {
            self.next_start = Some(start);
            // The board may already show it.
            self.try_start_game(t, out);
        }
    }

    // ---- board changes and decisions -----------------------------------------------------

    fn record_handling(&mut self, t: u64, physical: usize, before: u8) {
        let after = self.board.code(physical);
        if before == after {
            return;
        }
        let piece = |c: u8| board::chess_piece(dgt_protocol::DgtPiece::from_code(c));
        self.handling.record(Handling {
            t_ms: t,
            square: board::to_square(physical, self.orientation),
            before: piece(before),
            after: piece(after),
        });
    }

    fn on_change(&mut self, t: u64, _out: &mut Emitted) {
        self.settle_at = Some(t + self.settle_ms);
        self.illegal_at = None;
        self.last_change = t;
        if let Some(g) = self.game.as_ref().filter(|g| !g.is_over()) {
            let off = board::diff(g.current().board(), &self.seen_board()).count();
            self.displaced = self.displaced.max(off);
        }
        // The board reports only which piece stands on each square (protocol §3.2, §3.3), so
        // two pairs of moves can leave the same placement (g4 fxg3 e.p. and g3 fxg3): the
        // pair remembered is the one whose first move the board showed by itself, as when
        // the board settles or a press is judged (`prefer_shown`).
        let ahead = match self
            .interpret(DEPTH_ON_CHANGE)
            .map(|i| self.prefer_shown(i))
        {
            Some(Interpretation::Ahead(path)) => Some(self.followed_further(path)),
            Some(Interpretation::Unexplained) => {
                self.note_answered();
                self.chained()
            }
            _ => None,
        };
        if self.game.as_ref().is_some_and(|g| !g.is_over())
            && let Some(path) = ahead
        {
            if self.seen.len() == SEEN_KEPT {
                self.seen.pop_front();
            }
            let ply = self.game.as_ref().map_or(0, |g| g.plies()) + path.len();
            self.seen.push_back(Shown {
                ply,
                board: self.seen_board(),
            });
            self.last_ahead = Some((t, path));
        }
    }

    /// Moves made in quick succession (time trouble: each placement shown for less than a
    /// settle, the presses too fast for the clock's reports): the board followed from the
    /// last placement moves explained, a move or two at a time, as long as it was watched.
    fn chained(&self) -> Option<Vec<Move>> {
        let g = self.game.as_ref()?;
        let (_, prev) = self.last_ahead.as_ref()?;
        self.extended_to_board(g, prev)
    }

    /// `prev` (moves from the current position) followed by the moves that lead on from
    /// there to what the board shows, within the depth allowed while it is watched.
    fn extended_to_board(&self, g: &Game, prev: &[Move]) -> Option<Vec<Move>> {
        if self.after_gap || prev.len() + 1 > DEPTH_AFTER_GAP {
            return None;
        }
        let mut pos = g.current().clone();
        for m in prev {
            pos.play_unchecked(*m);
        }
        let target = self.seen_board();
        let mut budget = 50_000;
        let more =
            reconstruct::find_path_with(&pos, &target, DEPTH_ON_CHANGE, &mut budget, g.drops)?;
        let path: Vec<Move> = prev.iter().chain(&more).copied().collect();
        (path.len() <= DEPTH_AFTER_GAP).then_some(path)
    }

    /// The board shows the placement after `last_ahead` with the opponent's hands at work
    /// (his pieces lifted or moved, the mover's all where those moves left them): the reply
    /// has begun, so the last move was complete where it stood (4.7: a piece released on a
    /// square stays there; a slide does not wait for the opponent's hand).
    fn note_answered(&mut self) {
        let Some(g) = self.game.as_ref() else { return };
        let Some((_, path)) = self.last_ahead.as_ref() else {
            return;
        };
        let mut pos = g.current().clone();
        for m in path {
            pos.play_unchecked(*m);
        }
        let answerer = pos.turn();
        let shown = self.seen_board();
        let d = board::diff(pos.board(), &shown);
        let only_answerer = !d.is_empty()
            && d.into_iter().all(|sq| {
                pos.board().color_at(sq) != Some(!answerer) && shown.color_at(sq) != Some(!answerer)
            });
        if only_answerer {
            self.answered = Some((g.plies(), path.clone()));
        }
    }

    /// Moves that continue an answered placement (`note_answered`) to `target`: the answered
    /// moves, then the reply and what followed it.
    fn continued_after_answer(&self) -> Option<Vec<Move>> {
        let g = self.game.as_ref()?;
        let (plies, prev) = self.answered.as_ref()?;
        if *plies != g.plies() {
            return None;
        }
        self.extended_to_board(g, prev)
    }

    /// Moves in quick succession can reach a placement that fewer moves also reach (Kg4
    /// Kg2 Kf4 and Kf4 Kg2: the board tells only which piece stands where, protocol §3.3).
    /// The longer line is the one played when the board showed each of its placements in
    /// turn (`chained`, `shown_move_by_move`): the king did stand on g4 while the other
    /// moved.
    ///
    /// A move the opponent began to answer was complete (`note_answered`): when the reply
    /// and the mover's next lift fall in one scan (protocol §4.1: a scan reports every
    /// square that changed), the placement after the reply is never shown, and the piece
    /// moving on reads as one longer move (Bb2 Kc2 Bc3 read as Bc3 Kc2: the bishop
    /// left b2 in the scan that showed the king on c2). The answered line stands.
    fn followed_further(&self, path: Vec<Move>) -> Vec<Move> {
        match self.chained() {
            Some(c) if c.len() > path.len() && self.shown_move_by_move(&c) => c,
            _ => match self.continued_after_answer() {
                Some(c) if c.len() > path.len() => c,
                _ => path,
            },
        }
    }

    /// Whether the board showed the position after each move of `path` but the last, as
    /// that ply of the game: the moves were followed one by one, none inferred from a
    /// placement the board never showed.
    fn shown_move_by_move(&self, path: &[Move]) -> bool {
        let Some(g) = &self.game else { return false };
        let mut pos = g.current().clone();
        let (before_last, _) = path.split_at(path.len().saturating_sub(1));
        before_last.iter().enumerate().all(|(k, m)| {
            pos.play_unchecked(*m);
            self.shown_as(g.plies() + k + 1, pos.board()).is_some()
        })
    }

    /// How recently (a larger number is more recent) the board showed `board` as the
    /// position after `ply` plies.
    fn shown_as(&self, ply: usize, board: &shakmaty::Board) -> Option<usize> {
        self.seen
            .iter()
            .rposition(|s| s.ply == ply && &s.board == board)
    }

    /// Whether the board is the current position after a move it showed, with one piece of
    /// the reply lifted.
    fn reply_in_hand(&self, shown: &shakmaty::Board) -> bool {
        self.game.as_ref().is_some_and(|g| {
            reconstruct::one_move_with_reply_in_hand(g.current(), shown, |m| self.when_shown(m))
                .is_some()
        })
    }

    /// Two moves that end in the same placement (g2g4 hxg3 e.p. and g2g3 hxg3; f1=R Rxf1
    /// and f1=Q Rxf1): the pair whose first move the board showed by itself, the latest
    /// shown (a slide's intermediate square was shown before). A press relayed late, or a
    /// bus poll, often brings a move and its reply together.
    fn prefer_shown(&self, interp: Interpretation) -> Interpretation {
        let Interpretation::Ahead(path) = &interp else {
            return interp;
        };
        if path.len() != 2 {
            return interp;
        }
        let Some(g) = &self.game else { return interp };
        let target = self.seen_board();
        let mut best: Option<(usize, Move, Move)> = None;
        for m in reconstruct::legal_moves(g.current()) {
            let Some(when) = self.when_shown(&m) else {
                continue;
            };
            if best.as_ref().is_some_and(|(w, _, _)| *w >= when) {
                continue;
            }
            let mut after = g.current().clone();
            after.play_unchecked(m);
            if let Some(reply) = reconstruct::one_move_to(&after, &target) {
                best = Some((when, m, reply));
            }
        }
        match best {
            Some((_, m, reply)) => Interpretation::Ahead(vec![m, reply]),
            None => interp,
        }
    }

    /// Whether the board showed the current position with `m` played, not long ago.
    fn was_shown(&self, m: &Move) -> bool {
        self.when_shown(m).is_some()
    }

    /// How recently (a larger number is more recent) the board showed `m` played: the
    /// placement after it, shown as the next ply of this game (the same placement shown
    /// plies ago, before the position repeated, tells nothing about the move made now).
    fn when_shown(&self, m: &Move) -> Option<usize> {
        let g = self.game.as_ref()?;
        let mut after = g.current().clone();
        after.play_unchecked(*m);
        self.shown_as(g.plies() + 1, after.board())
    }

    /// Alerts for how the pieces of a move were handled (4.3, 4.4.2, 4.1/7.5.4).
    fn handling_signals(&self, t: u64, mover: Color, m: &Move, shown_at: u64, out: &mut Emitted) {
        let signals = self.handling.signals(
            mover,
            m,
            self.same_since,
            shown_at,
            HandlingThresholds {
                two_hands_window_ms: 2 * self.handling.scan_period_ms(),
                ..HandlingThresholds::default()
            },
        );
        let plies = self.game.as_ref().map_or(0, |g| g.plies());
        for s in signals {
            // A touch no announced adjustment excuses: the piece had made an illegal move
            // from this position, taken back (7.5.1 → 4.3: the replacement move is made with
            // it), D47.
            let mut unexcused = false;
            let (kind, article, message) = match s {
                Signal::TouchMove { square, .. }
                    if self.watch.illegal_piece == Some((plies, square)) =>
                {
                    unexcused = true;
                    (
                        AlertKind::TouchMove,
                        self.edition.touch_move,
                        format!(
                            "{} made an illegal move with the piece on {square}, put it back, then moved another piece: the replacement move must be made with that piece if it can move legally.",
                            arbiter::side_name(mover),
                        ),
                    )
                }
                Signal::TouchMove { square, off_ms } => (
                    AlertKind::TouchMove,
                    self.edition.touch_move,
                    format!(
                        "{} lifted the piece on {square} for {:.1} s and put it back, then moved another piece: a touch-move offence unless the adjustment was announced, which the board cannot hear.",
                        arbiter::side_name(mover),
                        off_ms as f64 / 1000.0
                    ),
                ),
                Signal::OpponentPieceHandled {
                    square,
                    lifted_at,
                    off_ms,
                } => {
                    // Lifted before the mover's turn began (the opponent's press): it was the
                    // opponent's own piece on his own time (knocked over, KNSB §4.1 #7).
                    let turn_began = self
                        .game
                        .as_ref()
                        .and_then(|g| g.moves.last())
                        .map_or(0, |m| m.t_ms);
                    if lifted_at < turn_began {
                        continue;
                    }
                    let owner = !mover;
                    let piece = self
                        .game
                        .as_ref()
                        .and_then(|g| g.current().board().role_at(square))
                        .map_or("piece", reconstruct::role_name);
                    let mut a = self.alert(
                        AlertKind::TouchMove,
                        Severity::Info,
                        Some(mover),
                        format!(
                            "The {} {piece} on {square} was lifted for {:.1} s and put back while {} was on move: either {} touched it (then he must capture it if he can) or {} handled a piece while not on move.",
                            if owner.is_white() { "white" } else { "black" },
                            off_ms as f64 / 1000.0,
                            arbiter::side_name(mover),
                            arbiter::side_name(mover),
                            arbiter::side_name(owner),
                        ),
                    );
                    a.article = Some(self.edition.touch_opponent_piece.into());
                    a.squares = vec![square.to_string()];
                    a.ply = a.ply.map(|p| p + 1);
                    a.prescription = Some(
                        "A hint only: the board cannot tell whose hand it was. On a claim, ask the players (4.3.2 for the mover, 4.2.1 for the other).".into(),
                    );
                    out.push((t, EventBody::Alert(a)));
                    continue;
                }
                Signal::CastlingRookFirst { rook } => (
                    AlertKind::CastlingRookFirst,
                    self.edition.castling_rook_first,
                    format!(
                        "{} began castling by lifting the rook on {rook}: castling with the rook first is not allowed.",
                        arbiter::side_name(mover)
                    ),
                ),
                Signal::PromotionChanged {
                    square,
                    first,
                    last,
                } => (
                    AlertKind::PromotionChoiceChanged,
                    self.edition.promotion_choice,
                    format!(
                        "{} put a {} on {square} and replaced it by a {}: the choice of the new piece was final when the first touched the square.",
                        arbiter::side_name(mover),
                        reconstruct::role_name(first),
                        reconstruct::role_name(last)
                    ),
                ),
                Signal::TwoHands {
                    first,
                    second,
                    gap_ms,
                } => (
                    AlertKind::TwoHandedMove,
                    self.edition.two_hands,
                    format!(
                        "The pieces on {first} and {second} left the board {gap_ms} ms apart and were off it together: possibly a move made with two hands."
                    ),
                ),
            };
            let severity = if self.edition.art4_on_claim_in_rapid_blitz && self.rapid_or_blitz() {
                Severity::Claim
            } else if kind == AlertKind::TouchMove && !unexcused {
                // A piece put back on its square: the Laws excuse it if "j'adoube" was said
                // first (4.2.1; 2005 4.2), and the board cannot hear it (D47).
                Severity::Info
            } else {
                Severity::Review
            };
            let mut a = self.alert(kind, severity, Some(mover), message);
            a.article = Some(article.into());
            // The alert is about the move being played now (the position is the one before).
            a.ply = a.ply.map(|p| p + 1);
            out.push((t, EventBody::Alert(a)));
        }
    }

    fn decision_depth(&self) -> usize {
        if self.after_gap {
            DEPTH_AFTER_GAP
        } else {
            DEPTH_WATCHED
        }
    }

    fn interpret(&self, depth: usize) -> Option<Interpretation> {
        let g = self.game.as_ref()?;
        Some(reconstruct::interpret(g, &self.seen_board(), depth))
    }

    /// Whether the player to move still has their clock running, so that the press (not the
    /// board alone) completes the move.
    /// The clock is connected and reads stopped (status byte D0 = 0, protocol §3.4):
    /// no player's time runs, as when the players stopped it at the end of the game.
    fn clock_stopped(&self) -> bool {
        self.clock.is_connected() && self.clock.last().is_some() && self.clock.running().is_none()
    }

    fn waits_for_press(&self) -> bool {
        let Some(running) = self.clock.running() else {
            return false;
        };
        if !self.clock.is_connected() {
            return false;
        }
        let Some(g) = &self.game else { return false };
        match self.clock.display_of(g.current().turn().is_white()) {
            Some(d) => d == running,
            None => true,
        }
    }

    fn on_settled(&mut self, t: u64, out: &mut Emitted) {
        if let Some(until) = self.ee_wait_until {
            if t < until {
                self.settle_at = Some(until);
                return;
            }
            self.ee_wait_until = None;
        }
        if !self.board.is_known() {
            return;
        }
        let depth = self.decision_depth();
        // A bus board's first report after an outage can end in the middle of a move (its
        // log holds the whole outage, its scan lags the press): the gap stays open until
        // the board shows a placement that moves explain.
        if self.bus.is_none() {
            self.after_gap = false;
        }
        // A start position set up again begins a new game — unless legal moves of this game
        // reach it (knights out and back home repeat the start position).
        let placement_now = self.board.placement(self.orientation).board;
        let new_game_possible = self.game.as_ref().is_none_or(|g| {
            g.is_over()
                || (g.plies() >= 2
                    && matches!(
                        reconstruct::interpret(g, &placement_now, depth),
                        Interpretation::Unexplained | Interpretation::Earlier(_)
                    ))
        });
        if new_game_possible && self.try_start_game(t, out) {
            self.wrong_setup = None;
            return;
        }
        if new_game_possible || self.game.as_ref().is_some_and(|g| g.plies() == 0) {
            self.watch_wrong_setup(t, out);
        }
        if self.bughouse.is_some() {
            self.expire_partner_takes(t, out);
        }
        let Some(game) = &self.game else { return };
        if game.is_over() {
            if self.bughouse.is_some() {
                self.watch_frozen_board(t, out);
            } else {
                self.watch_play_after_end(t, out);
            }
            return;
        }
        let placement = self.board.placement(self.orientation);
        if let Some((result, how)) = reconstruct::result_gesture(&placement) {
            // A move shown before the gesture began was played (unless it is the first king
            // put in the centre, which belongs to the gesture). Only the kings' gesture puts
            // a king there; a magic piece is a gesture of its own (protocol §4.5), and a king
            // moved to the centre before it was a move.
            let kings_gesture = placement.magic.is_empty();
            if let Some((shown_at, path)) = self.last_ahead.take()
                && let Some(g) = &self.game
                && !(kings_gesture
                    && path
                        .iter()
                        .any(|m| reconstruct::king_to_centre(g.current(), m, self.clock_stopped())))
            {
                self.commit_shown(t, &path, false, shown_at, out);
            }
            self.end_by_gesture(t, result, how, out);
            return;
        }
        let interp = match reconstruct::interpret(game, &placement.board, depth) {
            // Moves in quick succession (time trouble): each placement was shown for less
            // than a settle, so none was decided, but the board showed each of them in turn
            // while watched (`chained`, `shown_move_by_move`). They are decided now as if
            // shown together: earlier ones stand, the last waits for its press if its
            // player's clock runs (without a clock, the board alone completes moves).
            Interpretation::Unexplained => self
                .chained()
                .filter(|path| self.shown_move_by_move(path))
                .map_or(Interpretation::Unexplained, Interpretation::Ahead),
            Interpretation::Ahead(path) => Interpretation::Ahead(self.followed_further(path)),
            other => other,
        };
        if !matches!(interp, Interpretation::Unexplained) {
            self.after_gap = false;
        }
        match self.prefer_shown(interp) {
            Interpretation::Same => {
                // More pieces off their squares at once than any move disturbs (the table
                // bumped): putting them back is no touch (KNSB §4.1 #9). The handling of the
                // next move is read from here on.
                if self.displaced >= DISPLACED_SQUARES {
                    self.same_since = t;
                }
                self.displaced = 0;
                self.back_to_legal(t, out)
            }
            Interpretation::Ahead(path) => {
                self.back_to_legal(t, out);
                // Two presses seen on the clock and two moves on the board: both are
                // complete (6.2.1), though the board showed them together.
                if path.len() == 2 && self.two_presses_unseen {
                    self.commit(t, &path, true, out);
                    return;
                }
                if path.len() >= 2 && depth == DEPTH_WATCHED && !self.was_shown(&path[0]) {
                    // Two moves at once is rare (a reply before the press), and a move in
                    // progress can look like two (Nxc5 bxc5 = knight in hand, pawn b4
                    // lifted): give it a press, or a longer calm, before believing it.
                    let wait = if self.waits_for_press() {
                        self.press_wait_ms
                    } else {
                        4 * self.settle_ms
                    };
                    if t < self.last_change + wait {
                        self.settle_at = Some(self.last_change + wait);
                        return;
                    }
                }
                // A press is waiting to be judged: the clock's report can arrive before the
                // board has reported the last squares of a slide (a scan takes 200-250 ms, a
                // change can be reported ~400 ms late, protocol §1.1/§4.1), and the press
                // completes the move the board shows once caught up (6.2.1). The settled
                // placement is read after that verdict, not before it.
                if let Some((at, _, _)) = self.press_verdict_at {
                    self.settle_at = Some(at.max(t));
                    return;
                }
                let (first, last) = path.split_at(path.len() - 1);
                if !first.is_empty() {
                    // A reply on the board completes the earlier move (6.2.1).
                    self.commit(t, first, false, out);
                }
                let pos = self.game.as_ref().map(|g| g.current().clone());
                let centre = pos.as_ref().is_some_and(|p| {
                    reconstruct::king_to_centre(p, &last[0], self.clock_stopped())
                });
                // 6.2.1.1: a move that ends the game (checkmate, stalemate, dead position,
                // 9.6) is complete when made; the press, or a flag after it, changes nothing.
                // (Bughouse mates wait for the other game, 5.4: nothing ends at the move.)
                let ends_game = !centre
                    && self.bughouse.is_none()
                    && self.game.as_ref().is_some_and(|g| {
                        let mut after = g.clone();
                        after.push(last[0], t, (None, None));
                        arbiter::end_by_rule(&after, &self.edition).is_some()
                    });
                // A move that ends the game cannot be corrected once taken, so with the
                // mover's clock still running (no press yet) it waits until the board has
                // had time to report the rest of a slide (§4.1: sliding reports every
                // square passed, up to ~400 ms late): Qd5 mate shown on the way g5-c5.
                if ends_game && self.waits_for_press() && t < self.last_change + REPORT_LAG_MS {
                    self.settle_at = Some(self.last_change + REPORT_LAG_MS);
                    return;
                }
                if (self.waits_for_press() || centre) && !ends_game {
                    let wait = if centre {
                        CENTRE_KING_WAIT_MS.max(self.press_wait_ms)
                    } else {
                        self.press_wait_ms
                    };
                    self.press_wait_at = Some((self.last_change + wait).max(t));
                } else {
                    self.commit_shown(t, last, false, self.last_change, out);
                }
            }
            // A piece moved on from where it was released long ago is a second move, not the
            // end of a slide (or of castling begun with the rook): 4.7, the move was made.
            Interpretation::Sibling(m) if t < self.same_since + SIBLING_MAX_MS => {
                self.back_to_legal(t, out);
                self.correct_last(t, m, out);
            }
            // Bughouse: a piece lifted that leaves an earlier position (material grows with
            // drops) is most often the opponent capturing it, not a take-back.
            Interpretation::Earlier(_) if self.drop_lifted_waits(t) => {}
            Interpretation::Earlier(k) => self.restore(t, k, out),
            Interpretation::Sibling(_) | Interpretation::Unexplained => {
                if self.take_for_partner_promotion(t, out) {
                    // A piece taken for the partner board's promotion (bughouse 3.1): the
                    // board is read again against the edited position.
                    self.on_settled(t, out);
                    return;
                }
                if let Some(k) = self.drop_replaced() {
                    // Bughouse 7.4 / 7.6: the drop taken back and another move made.
                    self.restore(t, k, out);
                    self.on_settled(t, out);
                    return;
                }
                if self.adopt_illegal(t, out) {
                    return;
                }
                self.hint_illegal_castling(t, out);
                if !self.watch.illegal_alerted {
                    let wait = self.illegal_position_ms.saturating_sub(self.settle_ms);
                    self.illegal_at = Some(t + wait);
                }
            }
        }
    }

    /// L17 T10: the king put two squares towards a rook, the rook not moved, and castling on
    /// that side is illegal. Before any press the arbiter is told (as a hint, since a release
    /// cannot be told from a resting hand) that the touched king must make another move if it
    /// has one, castling on the other side included (4.4.3 / 4.7.2; 2005 4.4c / 4.6b).
    fn hint_illegal_castling(&mut self, t: u64, out: &mut Emitted) {
        use shakmaty::{File, Square};
        let Some(g) = self.game.as_ref().filter(|g| !g.is_over()) else {
            return;
        };
        if g.castling_mode != CastlingMode::Standard
            || self.watch.castling_hint_at == Some(g.plies())
        {
            return;
        }
        let pos = g.current();
        let mover = pos.turn();
        let placement = self.board.placement(self.orientation).board;
        let d = board::diff(pos.board(), &placement);
        let Some(from) = pos.board().king_of(mover) else {
            return;
        };
        if from.file() != File::E || d.count() != 2 || !d.contains(from) {
            return;
        }
        let Some(to) = d.into_iter().find(|&sq| sq != from) else {
            return;
        };
        let short = to == Square::from_coords(File::G, from.rank());
        let long = to == Square::from_coords(File::C, from.rank());
        if !(short || long) || placement.king_of(mover) != Some(to) {
            return;
        }
        let side = if short {
            shakmaty::CastlingSide::KingSide
        } else {
            shakmaty::CastlingSide::QueenSide
        };
        let legal = reconstruct::legal_moves(pos);
        if legal.iter().any(|m| m.castling_side() == Some(side)) {
            return;
        }
        let king_moves: Vec<String> = legal
            .iter()
            .filter(|m| m.role() == shakmaty::Role::King)
            .map(|m| shakmaty::san::San::from_move(pos, *m).to_string())
            .collect();
        self.watch.castling_hint_at = Some(g.plies());
        let name = arbiter::side_name(mover);
        let article = self.edition.castling_illegal;
        // 2005 rapid and blitz: Article 4 only on a claim (B5, C2).
        let severity = if self.edition.art4_on_claim_in_rapid_blitz && self.rapid_or_blitz() {
            Severity::Claim
        } else {
            Severity::Info
        };
        let mut a = self.alert(
            AlertKind::TouchMove,
            severity,
            Some(mover),
            format!(
                "{name}'s king stands on {to} as if castling {}, which is illegal here.",
                if short { "short" } else { "long" }
            ),
        );
        a.article = Some(article.into());
        a.squares = vec![from.to_string(), to.to_string()];
        a.prescription = Some(if king_moves.is_empty() {
            "The king has no legal move: any legal move may be made (4.5).".to_string()
        } else {
            format!(
                "If the king was touched to castle, another king move must be made ({article}): {}.",
                king_moves.join(", ")
            )
        });
        out.push((t, EventBody::Alert(a)));
    }

    /// A game that ended by rule at the move made — players often do not notice a fivefold
    /// repetition, the 75-move rule or a dead position — and the board then shows a move
    /// from the final position: the arbiter is told once; the result stands (events after
    /// the end never change it; L05 T15).
    fn watch_play_after_end(&mut self, t: u64, out: &mut Emitted) {
        if self.watch.told_play_after_end {
            return;
        }
        let Some(g) = &self.game else { return };
        let Some((result, reason)) = g.result.clone() else {
            return;
        };
        if !matches!(
            reason,
            EndReason::FivefoldRepetition
                | EndReason::SeventyFiveMoveRule
                | EndReason::DeadPosition
                | EndReason::Stalemate
                | EndReason::Checkmate
        ) {
            return;
        }
        let placement = self.board.placement(self.orientation).board;
        let Some(m) = reconstruct::one_move_to(g.current(), &placement) else {
            return;
        };
        let san = shakmaty::san::SanPlus::from_move(g.current().clone(), m).to_string();
        let why = reason.words();
        let ply = g.plies();
        self.watch.told_play_after_end = true;
        // The end by rule itself was `info`; play going on past it is where the arbiter must
        // act now (D46).
        let mut a = self.alert(
            AlertKind::MoveAfterGameEnd,
            Severity::Intervene,
            Some(g.current().turn()),
            format!(
                "The game ended at ply {ply} by {why} ({result}), but play went on with {san}."
            ),
        );
        a.uci = Some(m.to_uci(g.castling_mode).to_string());
        a.prescription = Some(format!(
            "The result {result} stands: stop the clock and tell the players the game is over."
        ));
        out.push((t, EventBody::Alert(a)));
    }

    /// 7.2.1 (2005 7.1a): a board set up wrongly is remembered; when a move is made from it,
    /// the game is followed from there and the arbiter told at once (before the first move
    /// is completed, when the game can still be set up again).
    fn watch_wrong_setup(&mut self, t: u64, out: &mut Emitted) {
        for orientation in [Orientation::Normal, Orientation::Rotated] {
            let placement = self.board.placement(orientation).board;
            if reconstruct::wrong_setup(&placement).is_some() {
                self.wrong_setup = Some((placement, orientation, t));
                return;
            }
        }
        let Some((setup, orientation, seen_at)) = self.wrong_setup.clone() else {
            return;
        };
        let Some((pos, what)) = reconstruct::wrong_setup(&setup) else {
            return;
        };
        let placement = self.board.placement(orientation).board;
        if reconstruct::one_move_to(&pos, &placement).is_none() {
            return;
        }
        self.wrong_setup = None;
        // Started as if the board showed the set-up; the move is then read as usual.
        self.begin_game(t, pos, CastlingMode::Standard, orientation, out);
        // White's press may have come before the board settled: then Black's clock runs.
        if self.any_press_at > seen_at
            && let Some(d) = self.clock.running()
        {
            self.clock.reset_inference();
            self.clock.infer_white_side(d.other());
        }
        let (window, moves) = self.edition.setup_claim_window;
        let remedy = if self.reduced() {
            format!(
                "A claim is possible only until each player has made {moves} moves ({window}); after that the game goes on, and a misplaced king or rook may not castle."
            )
        } else {
            format!(
                "Before the first move is completed, set the pieces up correctly; once the game has begun, it is cancelled and a new game played ({}).",
                self.edition.setup_invalid
            )
        };
        let mut a = self.alert(
            AlertKind::SetupInvalid,
            Severity::Intervene,
            None,
            format!("The game began from a wrong set-up: {what}."),
        );
        a.article = Some(
            if self.reduced() {
                window
            } else {
                self.edition.setup_invalid
            }
            .into(),
        );
        a.prescription = Some(remedy);
        if let Some(seat) = &self.bughouse
            && !seat.regulation.fide_underneath()
        {
            // DJC 7.1: restarted if found before Black completed his third move; 10.1:
            // the arbiter acts on request.
            a.severity = Severity::Claim;
            a.edition = seat.regulation.name().into();
            a.article = Some("7.1".into());
            a.prescription = Some(
                "If it is noticed before Black has completed his third move, this game is restarted; after that it continues (7.1). Only colours reversed on one board restart both games (7.2)."
                    .into(),
            );
        }
        out.push((t, EventBody::Alert(a)));
    }

    fn try_start_game(&mut self, t: u64, out: &mut Emitted) -> bool {
        for orientation in [Orientation::Normal, Orientation::Rotated] {
            let placement = self.board.placement(orientation);
            let start = match &self.next_start {
                Some((pos, mode)) if pos.board() == &placement.board => Some((pos.clone(), *mode)),
                _ => reconstruct::start_position(&placement.board),
            };
            let Some((pos, mode)) = start else { continue };
            if let Some(g) = &self.game
                && !g.is_over()
                && g.positions.len() == 1
                && g.current() == &pos
            {
                return false;
            }
            self.begin_game(t, pos, mode, orientation, out);
            return true;
        }
        false
    }

    fn begin_game(
        &mut self,
        t: u64,
        pos: Chess,
        mode: CastlingMode,
        orientation: Orientation,
        out: &mut Emitted,
    ) {
        self.next_start = None;
        self.orientation = orientation;
        self.games_started += 1;
        let id = format!("{}/{}", self.label, self.games_started);
        let mut game = Game::new(id.clone(), pos, mode);
        game.drops = self.bughouse.is_some();
        if let Some(seat) = &mut self.bughouse {
            seat.reset();
        }
        out.push((
            t,
            EventBody::GameStart {
                game: id,
                start_fen: game.start_fen.clone(),
            },
        ));
        self.game = Some(game);
        self.clock.reset_inference();
        // The clock of the player to move runs at the start (White's, unless a set-up
        // position has Black to move).
        if let Some(d) = self.clock.running() {
            self.infer_running_side_to_move(d);
        }
        self.last_ahead = None;
        self.answered = None;
        self.handling.clear();
        self.same_since = t;
        self.watch = GameWatch::default();
        // Bughouse: the reserves the partner board has given so far.
        self.tell_reserves(t, out);
        self.press_wait_at = None;
        self.illegal_at = None;
        self.emit_status(t, out);
    }

    /// Plays moves into the game and emits them; `pressed` marks them final. `shown_at` is
    /// when the board showed the result (for reading how the pieces were handled).
    fn commit_shown(
        &mut self,
        t: u64,
        path: &[Move],
        pressed: bool,
        shown_at: u64,
        out: &mut Emitted,
    ) {
        if let ([m], Some(g)) = (path, &self.game) {
            let mover = g.current().turn();
            self.handling_signals(t, mover, m, shown_at, out);
        }
        self.commit(t, path, pressed, out);
        self.same_since = shown_at;
    }

    /// Plays moves into the game and emits them; `pressed` marks them final.
    fn commit(&mut self, t: u64, path: &[Move], pressed: bool, out: &mut Emitted) {
        let clocks = match (pressed, self.press_reading.take()) {
            (true, Some(reading)) => self.clock.white_black_of(&reading),
            _ => self.clock.white_black_ms(),
        };
        if pressed {
            self.watch.owes_press = None;
        }
        for m in path {
            let Some(g) = &mut self.game else { return };
            if g.is_over() {
                return;
            }
            let mover = g.current().turn();
            if !pressed
                && self.clock.running().is_some()
                && self.clock.display_of(mover.is_white()) == self.clock.running()
            {
                self.watch.owes_press = Some(mover);
            }
            let Some(g) = &mut self.game else { return };
            // A move that follows an unconfirmed one confirms it (the opponent has replied).
            g.confirm_all();
            g.push(*m, t, clocks);
            if let Some(e) = last_move_event(g, clocks) {
                out.push((t, e));
            }
            self.after_move(t, out);
        }
        if pressed {
            // The board may still be reporting the last square of a slide (up to ~400 ms
            // behind, protocol §4.1): the move stays correctable for a moment.
            self.confirm_at = Some(t + PRESS_CORRECTION_MS);
        }
        // The board showed the placement after `last_ahead` (protocol §3.3: it tells only
        // which piece stands where): when the moves committed are its first ones, the rest
        // (the reply already on the board) is still what the board showed last, for the
        // reply's own press to complete even if the board is mid-slide by then (§4.1).
        self.last_ahead = self.last_ahead.take().and_then(|(at, p)| {
            (p.len() > path.len() && p.starts_with(path)).then(|| (at, p[path.len()..].to_vec()))
        });
        // The game moved on: an answered placement read from the old position is gone.
        self.answered = None;
        self.press_wait_at = None;
        self.displaced = 0;
        self.two_presses_unseen = false;
    }

    fn correct_last(&mut self, t: u64, m: Move, out: &mut Emitted) {
        if let Some(g) = &mut self.game {
            let n = g.plies();
            g.truncate(n - 1);
        }
        self.commit(t, &[m], false, out);
    }

    fn after_move(&mut self, t: u64, out: &mut Emitted) {
        self.track_illegal_position(t, out);
        if self.bughouse.is_some() {
            self.bughouse_after_move(t, out);
            return;
        }
        let Some(g) = &mut self.game else { return };
        if let Some(end) = arbiter::end_by_rule(g, &self.edition) {
            let ply = g.plies() as u32;
            g.result = Some((end.result.to_string(), end.reason));
            let mut a = Alert::new(
                end.kind,
                arbiter::end_severity(),
                self.edition.name,
                end.message,
            );
            a.article = Some(end.article.into());
            a.ply = Some(ply);
            a.fen = Some(fen(g.current()));
            a.game = Some(g.id.clone());
            a.prescription = Some(format!("Stop the clock; the result is {}.", end.result));
            if let Some(f) = &self.watch.uncalled_flag {
                // L17 T18: the flag had not been called, so it had not fallen (6.8).
                a.message.push_str(&format!(
                    " {}'s flag was down on the clock {} earlier but had not been called: it does not count ({}).",
                    arbiter::side_name(f.flagged),
                    seconds(t.saturating_sub(f.t_ms)),
                    self.edition.flag_considered_fallen
                ));
            }
            let id = g.id.clone();
            out.push((t, EventBody::Alert(a)));
            out.push((
                t,
                EventBody::GameEnd {
                    game: id,
                    result: end.result.into(),
                    reason: end.reason,
                },
            ));
            return;
        }
        // Claims the player to move could make: for the arbiter only (12.6 forbids telling
        // the players).
        for c in arbiter::claims_available(g, &self.edition) {
            let mut a = Alert::new(c.kind, Severity::Claim, self.edition.name, c.message);
            a.article = Some(c.article.into());
            a.side = Some(g.current().turn().into());
            a.ply = Some(g.plies() as u32);
            a.fen = Some(fen(g.current()));
            a.game = Some(g.id.clone());
            a.uci = c.with_move;
            a.prescription = Some(
                "Only a correct claim by the player makes it count (9.2 / 9.3); the arbiter says nothing unless asked.".into(),
            );
            out.push((t, EventBody::Alert(a)));
        }
    }

    fn restore(&mut self, t: u64, k: usize, out: &mut Emitted) {
        let Some(g) = &mut self.game else { return };
        let n = g.plies();
        g.truncate(k);
        let mut a = Alert::new(
            AlertKind::PositionRestored,
            Severity::Review,
            self.edition.name,
            format!(
                "The board went back to the position after ply {k} (of {n}); later moves are taken back."
            ),
        );
        a.ply = Some(k as u32);
        a.fen = Some(fen(g.current()));
        a.game = Some(g.id.clone());
        // 7.1 (2005 6.14): the clocks go back to the times logged at that position.
        if let Some(m) = g.moves.last() {
            (a.white_ms, a.black_ms) = (m.white_ms, m.black_ms);
            a.prescription = Some(format!(
                "If the position is reinstated, set the clocks to the times logged at ply {k} ({}).",
                self.edition.clocks_after_irregularity
            ));
        }
        out.push((t, EventBody::Alert(a)));
        self.watch.illegal_alerted = false;
        self.watch.stood = None;
        self.watch.lost_track = false;
        self.last_ahead = None;
        self.answered = None;
        self.press_wait_at = None;
    }

    /// The board shows a legal state again after an irregularity was raised.
    fn back_to_legal(&mut self, t: u64, out: &mut Emitted) {
        self.illegal_at = None;
        self.watch.stood = None;
        self.watch.lost_track = false;
        if !self.watch.ghosts.is_empty() {
            // Moves are followed with the knocked-off pieces thought in place; the board is
            // legal again only once they are back (or the position was reinstated).
            let raw = self.board.placement(self.orientation).board;
            if raw != self.seen_board() {
                return;
            }
            self.watch.ghosts.clear();
        }
        if self.watch.illegal_alerted {
            self.watch.illegal_alerted = false;
            let Some(g) = &self.game else { return };
            let mut a = Alert::new(
                AlertKind::PositionRestored,
                Severity::Info,
                self.edition.name,
                "The board shows the last legal position again.".into(),
            );
            a.ply = Some(g.plies() as u32);
            a.fen = Some(fen(g.current()));
            a.game = Some(g.id.clone());
            out.push((t, EventBody::Alert(a)));
        }
    }

    fn raise_illegal_position(&mut self, t: u64, out: &mut Emitted) {
        let Some(g) = &self.game else { return };
        if g.is_over() || self.watch.illegal_alerted {
            return;
        }
        let placement = self.board.placement(self.orientation);
        let d = board::diff(g.current().board(), &placement.board);
        // Only pieces missing (knocked off the board): play can be followed as if they stood
        // there, while the arbiter decides (L17 T43).
        let missing: Vec<(shakmaty::Square, shakmaty::Piece)> = d
            .into_iter()
            .filter_map(|sq| {
                let piece = g.current().board().piece_at(sq)?;
                placement
                    .board
                    .piece_at(sq)
                    .is_none()
                    .then_some((sq, piece))
            })
            .collect();
        let only_missing = !missing.is_empty() && missing.len() == d.count();
        let mut a = Alert::new(
            AlertKind::IllegalPosition,
            Severity::Review,
            self.edition.name,
            format!(
                "The board shows a position no legal move explains (squares {}); a piece may be knocked over, missing or extra.",
                board::square_names(d).join(" ")
            ),
        );
        a.side = Some(g.current().turn().into());
        a.ply = Some(g.plies() as u32);
        a.fen = Some(format!("{} (on the board)", placement.board));
        a.fen_before = Some(fen(g.current()));
        a.game = Some(g.id.clone());
        a.squares = board::square_names(d);
        if only_missing {
            let names: Vec<String> = missing
                .iter()
                .map(|(sq, p)| {
                    format!(
                        "{} {} on {sq}",
                        arbiter::side_name(p.color),
                        reconstruct::role_name(p.role)
                    )
                })
                .collect();
            a.prescription = Some(format!(
                "Missing from the board: {}. Moves are followed as if it stood there. If it was displaced, reinstate the position of ply {} with the clock times logged there (7.1) and put it back.",
                names.join(", "),
                g.plies()
            ));
            self.watch.ghosts = missing;
        }
        self.watch.illegal_alerted = true;
        out.push((t, EventBody::Alert(a)));
    }

    /// The board as the game reads it: the placement, with pieces knocked off the board
    /// (`ghosts`) put back on their squares while those are empty and the game still has
    /// them there.
    ///
    /// A board the game explains as it is wins: a knocked-off piece that was put back and
    /// moved on leaves its square empty legally.
    fn seen_board(&self) -> shakmaty::Board {
        let raw = self.board.placement(self.orientation).board;
        let Some(g) = self.game.as_ref().filter(|_| !self.watch.ghosts.is_empty()) else {
            return raw;
        };
        let mut b = raw.clone();
        for &(sq, piece) in &self.watch.ghosts {
            if b.piece_at(sq).is_none() && g.current().board().piece_at(sq) == Some(piece) {
                b.set_piece_at(sq, piece);
            }
        }
        if b != raw
            && reconstruct::interpret(g, &raw, self.decision_depth()) != Interpretation::Unexplained
        {
            return raw;
        }
        b
    }

    fn end_by_gesture(&mut self, t: u64, result: &str, how: String, out: &mut Emitted) {
        let Some(g) = &mut self.game else { return };
        g.result = Some((result.to_string(), EndReason::ResultGesture));
        let mut a = Alert::new(
            AlertKind::ResultGesture,
            Severity::Review,
            self.edition.name,
            format!("The players signalled {result} on the board ({how}); confirm the result."),
        );
        a.ply = Some(g.plies() as u32);
        a.fen = Some(fen(g.current()));
        a.game = Some(g.id.clone());
        let id = g.id.clone();
        out.push((t, EventBody::Alert(a)));
        out.push((
            t,
            EventBody::GameEnd {
                game: id,
                result: result.into(),
                reason: EndReason::ResultGesture,
            },
        ));
        self.press_wait_at = None;
        self.illegal_at = None;
    }

    // ---- the clock -------------------------------------------------------------------------

    fn on_clock(&mut self, t: u64, times: ClockTimes, out: &mut Emitted) {
        let before = self.clock.last().copied();
        let obs: ClockObservation = self.clock.observe(times);
        if obs.disconnected {
            let a = self.alert(
                AlertKind::ClockDisconnected,
                Severity::Review,
                None,
                "The clock is no longer connected to the board (or reports no clock).".into(),
            );
            self.equipment_alert(t, a, out);
        }
        if obs.rejected {
            self.clock_rejected += 1;
        }
        if !obs.accepted {
            return;
        }
        // White's clock runs at the start of a game — unless, on a bus line read once a
        // poll, White has moved already: the clock may first be seen running after White's
        // press, and the board's log of presses tells instead (`on_logged_press`).
        let moved_unseen = self.bus.is_some()
            && self.game.as_ref().is_some_and(|g| {
                self.board.placement(self.orientation).board != *g.current().board()
            });
        if obs.started
            && !moved_unseen
            && self.clock.white_side().is_none()
            && self.game.as_ref().is_some_and(|g| g.plies() == 0)
            && let Some(d) = self.clock.running()
        {
            self.infer_running_side_to_move(d);
        }
        self.note_clock_start(t, out);
        self.check_quickplay_claim(t, out);
        self.check_recording(t, out);
        if obs.press.is_none() && !self.watch.pressed_in_game {
            self.check_start_times(t, &times, out);
        }
        // With an increment each press adds time to the presser's display (the clock
        // frame's increment indicator, protocol §3.4). Both displays up while the clock
        // ran and the lever is where it was: two presses fell between the clock's reports
        // (time trouble, moves ~100-200 ms apart), a move and its reply both completed.
        if obs.two_presses {
            self.two_presses_unseen = true;
        }
        if let Some(display) = obs.press {
            self.two_presses_unseen = false;
            // The presser's clock ran since the previous press (his thinking time).
            let thought = (self.watch.pressed_in_game && self.any_press_at > 0)
                .then(|| t.saturating_sub(self.any_press_at));
            self.any_press_at = t;
            self.watch.pressed_in_game = true;
            if let Some(before) = before {
                self.check_increment(t, display, thought, &before, &times, out);
            }
            self.on_press(t, display, out);
        }
        // A pause while a flag is down but not yet counted (the clock ran on past it, or
        // the flag waits to be called) is the opponent's claim (6.8; A.4.3 / B8). A clock
        // that stops by itself at a final flag does so in the flag's own reading.
        if obs.stopped
            && obs.new_flags.is_empty()
            && (self.watch.uncalled_flag.is_some() || self.watch.flag_pending.is_some())
            && self.game.as_ref().is_some_and(|g| !g.is_over())
        {
            let article = if self.reduced() {
                self.edition.reduced_flag_claim.0
            } else {
                self.edition.flag_considered_fallen
            };
            let both_down = self
                .clock
                .last()
                .is_some_and(|l| l.left.flagged() && l.right.flagged());
            if self.reduced() && both_down {
                self.claim_with_own_flag_down(t, article, out);
            } else {
                self.flag_called(
                    t,
                    &format!("the clock was stopped to claim it, {article}"),
                    out,
                );
            }
        }
        if obs.stopped
            && self
                .game
                .as_ref()
                .is_some_and(|g| !g.is_over() && g.plies() > 0)
        {
            let a = self.alert(
                AlertKind::ClockStopped,
                // 6.11 (2005 6.13): a player stops the clock only to call the arbiter.
                Severity::Review,
                None,
                "The clock was stopped.".into(),
            );
            out.push((t, EventBody::Alert(a)));
        }
        if obs.adjusted && self.game.as_ref().is_some_and(|g| !g.is_over()) {
            let mut a = self.alert(
                AlertKind::ClockAdjusted,
                Severity::Info,
                None,
                "The times were changed while the clock was stopped (an arbiter's correction)."
                    .into(),
            );
            (a.white_ms, a.black_ms) = self.clock.white_black_ms();
            out.push((t, EventBody::Alert(a)));
        }
        if obs.battery_low {
            let a = self.alert(
                AlertKind::BatteryLow,
                Severity::Info,
                None,
                "The clock shows its battery-low indicator.".into(),
            );
            self.equipment_alert(t, a, out);
        }
        self.emit_clock(t, out);
        if !obs.new_flags.is_empty() {
            // A press still waiting for its verdict came before the flag (the clock reported
            // it first): the move it completed (6.2.1) is in the game before the flag is
            // judged — 6.9 judges the position then on the board, and the moves completed.
            self.overtake_pending_press(t, out);
            self.on_flags(t, &obs.new_flags, out);
        }
    }

    /// Raises an equipment alert once per board: while the same kind repeats within
    /// `EQUIPMENT_COALESCE_MS` of its last time (a battery indicator flickering, a clock
    /// cable flapping), each repeat re-sends the first alert — same id — with the count and
    /// the latest time, rather than a new alert per transition.
    fn equipment_alert(&mut self, t: u64, mut a: Alert, out: &mut Emitted) {
        match self.equipment.iter_mut().find(|(kind, id, _, last)| {
            *kind == a.kind && *id != 0 && t <= last + EQUIPMENT_COALESCE_MS
        }) {
            Some((_, id, count, last)) => {
                *count += 1;
                *last = t;
                a.id = *id;
                a.repeats = Some(*count);
                a.last_t_ms = Some(t);
                a.message
                    .push_str(&format!(" (repeated: {count} times on this board)"));
            }
            None => {
                self.equipment.retain(|(kind, ..)| *kind != a.kind);
                self.equipment.push((a.kind, 0, 1, t));
            }
        }
        out.push((t, EventBody::Alert(a)));
    }

    fn emit_clock(&self, t: u64, out: &mut Emitted) {
        let Some(last) = self.clock.last() else {
            return;
        };
        let (white_ms, black_ms) = self.clock.white_black_ms();
        let running = self.clock.running().and_then(|d| {
            self.clock
                .white_side()
                .map(|w| if d == w { Side::White } else { Side::Black })
        });
        out.push((
            t,
            EventBody::Clock(ClockEvent {
                white_ms,
                black_ms,
                running,
                left_ms: last.left.ms,
                right_ms: last.right.ms,
                white_side: self.clock.white_side(),
            }),
        ));
    }

    fn on_press(&mut self, t: u64, display: ClockSide, out: &mut Emitted) {
        // While the board's log is awaited, a press is judged from the log (it holds it).
        if self.ee_wait_until.is_some() {
            return;
        }
        let Some(g) = &self.game else { return };
        if g.is_over() {
            return;
        }
        // An earlier press still waiting for its verdict is overtaken by this one.
        self.overtake_pending_press(t, out);
        // The board reports a square up to one scan (200–250 ms) after the piece lands, and
        // the press may be relayed before that: look at the board once it has caught up.
        self.press_reading = self.clock.last().copied();
        self.press_seen_at = t;
        self.press_verdict_at = Some((t + self.settle_ms, display, false));
    }

    /// A press still waiting for its verdict when the clock reports something later (the
    /// next press, a flag): it is judged now, on the board as it is. If it wanted another
    /// look, the later event supersedes it: the press completed the move the board showed
    /// last, if any.
    fn overtake_pending_press(&mut self, t: u64, out: &mut Emitted) {
        if let Some((_, pending, final_look)) = self.press_verdict_at.take() {
            self.decide_press(t, pending, final_look, out);
            if self.press_verdict_at.take().is_some() {
                self.complete_last_shown(t, pending, out);
            }
        }
    }

    /// A press completes the move on the board (6.2.1). `final_look` is the deferred second
    /// look, after which an unexplained board is an illegal move.
    fn decide_press(&mut self, t: u64, display: ClockSide, final_look: bool, out: &mut Emitted) {
        let Some(g) = &self.game else { return };
        if g.is_over() {
            return;
        }
        let mover = g.current().turn();
        let mut placement = self.board.placement(self.orientation);
        placement.board = self.seen_board();
        let interp = reconstruct::interpret(g, &placement.board, self.decision_depth());
        let interp = self.prefer_shown(interp);
        // At ply 0 with nothing moved, a press only starts White's clock. (Judged here, not
        // when the press is seen: White's first move may be on the board, not yet reported.)
        if g.plies() == 0 && self.last_ahead.is_none() && interp == Interpretation::Same {
            self.infer_running_side_to_move(display.other());
            return;
        }
        let presser = self.presser(display);
        // 6.2.1: a press completes the presser's own move. The player not on move pressed:
        // the board showed his move settled before the clock's report of the press came in
        // (the clock is relayed by the board, protocol §3.4), and it is in the game already.
        // What the board shows now is the opponent's doing (a move in progress, a knocked
        // piece): this press completes none of it. A move the board shows complete is still
        // read below (`completed_by_press` leaves it to its own press).
        if presser == Some(!mover)
            && !matches!(
                interp,
                Interpretation::Ahead(_) | Interpretation::Sibling(_)
            )
        {
            if let Some(g) = &mut self.game {
                g.confirm_all();
            }
            return;
        }
        match interp {
            // Two moves at once whose first the board never showed by itself, while it did
            // show another move of the presser that only the opponent's hands changed since:
            // the press completed the move shown, and the rest is the reply in progress (the
            // moved piece taken off, the capturer sliding past a square that happens to make
            // two legal moves, protocol §4.1).
            Interpretation::Ahead(path)
                if presser != Some(!mover)
                    && !self.believable(&path)
                    && let Some(m) = self.shown_then_answered(&path[0], &placement.board) =>
            {
                self.infer_from_press(display, mover);
                self.back_to_legal(t, out);
                self.commit_shown(t, &[m], true, self.last_change, out);
                self.settle_at = Some(t.max(self.last_change + self.settle_ms));
            }
            Interpretation::Ahead(path)
                if self.believable(&path) || !self.reply_in_hand(&placement.board) =>
            {
                // With the press known, the presser's move is complete: two moves the board
                // shows are believed unless a lifted piece explains it with the move shown.
                self.infer_from_press(display, mover);
                self.back_to_legal(t, out);
                let done = self.completed_by_press(display, mover, &path);
                let shown_at = if done == path.len() {
                    self.last_change
                } else {
                    t
                };
                self.commit_shown(t, &path[..done], true, shown_at, out);
                if done < path.len() {
                    // The opponent's reply is already on the board: its own press (or the
                    // board settling) completes it.
                    self.settle_at = Some(t.max(self.last_change + self.settle_ms));
                }
            }
            Interpretation::Sibling(m) => {
                self.correct_last(t, m, out);
                if let Some(g) = &mut self.game {
                    g.confirm_all();
                }
            }
            _ if let Some(m) =
                reconstruct::one_move_with_reply_in_hand(g.current(), &placement.board, |m| {
                    self.when_shown(m)
                })
                // The moved piece gone from its square is taken in reply only if it stays
                // gone: first look again (it may be flickering, or still on its way), until
                // the press's bound.
                .filter(|m| {
                    (final_look && t >= self.press_seen_at + PRESS_MAX_WAIT_MS)
                        || !own_piece_gone(g.current(), m, &placement.board)
                }) =>
            {
                // The opponent already holds a piece for the reply.
                self.infer_from_press(display, mover);
                self.commit_shown(t, &[m], true, self.last_change, out);
            }
            Interpretation::Unexplained if !final_look => {
                // Look again once the board has settled (it may report the last square late).
                self.press_verdict_at = Some((t + self.settle_ms, display, true));
            }
            Interpretation::Unexplained
                if t < self.press_seen_at + PRESS_MAX_WAIT_MS
                    && reconstruct::one_move_with_reply_in_hand(
                        g.current(),
                        &placement.board,
                        |m| self.when_shown(m),
                    )
                    .is_some() =>
            {
                // The presser's moved piece is gone again from the square the board showed it
                // on: taken in reply, or still sliding — a slide reports every square it
                // passes (protocol §4.1), and the square it stops on can be reported ~400 ms
                // late, longer while the piece flickers (b7-b6 shown, the pawn off b6, b5
                // reported after the press). The board tells which once it reports where the
                // piece went: look again, within the bound; past it the piece counts as taken.
                self.press_verdict_at = Some((t + self.settle_ms, display, true));
            }
            Interpretation::Unexplained
                if t < self.press_seen_at + PRESS_MAX_WAIT_MS
                    && reconstruct::capture_in_hand(g.current(), &placement.board).is_some() =>
            {
                // The presser's capturer is off the board and the piece it takes is gone: the
                // capture was made before the press, but the board has not reported the
                // capturer's square yet — a board reports a change up to ~400 ms late, and
                // not while the piece flickers (protocol §4.1). Its slide's last square, shown
                // earlier, is no move: look again, within the bound.
                self.press_verdict_at = Some((t + self.settle_ms, display, true));
            }
            Interpretation::Unexplained
                if t < self.press_seen_at + PRESS_MAX_WAIT_MS
                    && reconstruct::castling_in_hand(g.current(), &placement.board).is_some() =>
            {
                // The king stands on its castling square and the rook is off the board: the
                // castling is under way (3.8.2: the king two squares over, then the rook to
                // the square the king crossed), and the rook's square is reported late — a
                // change up to ~400 ms after the piece lands, later while it flickers
                // (protocol §4.1). The king's slide square shown on the way (Kd8 for O-O-O)
                // is no move: look again, within the bound.
                self.press_verdict_at = Some((t + self.settle_ms, display, true));
            }
            _ if self
                .last_ahead
                .as_ref()
                .is_some_and(|(_, p)| self.believable(p)) =>
            {
                // The board moved on: the move the press completed is the last one the
                // board showed.
                self.commit_last_shown(t, display, mover, out);
            }
            Interpretation::Same => {
                let pressed_by_mover = self.clock.display_of(mover.is_white()) == Some(display);
                // 6.2.2: the player's press completes his own earlier move, made with his
                // clock running, even after the opponent replied.
                let late = pressed_by_mover && self.watch.owes_press == Some(mover);
                if late {
                    self.watch.owes_press = None;
                }
                if pressed_by_mover && !late && self.take_back_demanded(t, mover, out) {
                    // 7.6 (bughouse): the press back is the demand, not an irregularity.
                } else if pressed_by_mover && !late {
                    let counted = self.edition.press_without_move_is_offence;
                    let mut a = self.alert(
                        AlertKind::ClockPressedWithoutMove,
                        if counted {
                            Severity::Intervene
                        } else {
                            Severity::Review
                        },
                        Some(mover),
                        format!(
                            "{} pressed the clock without making a move.",
                            arbiter::side_name(mover)
                        ),
                    );
                    a.article = Some(self.edition.press_without_move.into());
                    a.prescription = Some(if counted {
                        let p = self.offence_prescription(
                            mover,
                            Offence::PressWithoutMove,
                            "Start the player's clock again: a move must be made",
                        );
                        self.count_offence(mover, Offence::PressWithoutMove);
                        p
                    } else {
                        "Not an offence in this edition: the arbiter may act under 13.4; the move must still be made.".into()
                    });
                    out.push((t, EventBody::Alert(a)));
                } else if let Some(g) = &mut self.game {
                    // The player who moved earlier pressed late: that confirms the move.
                    g.confirm_all();
                }
            }
            _ if self.watch.stood.is_none()
                && let Some((m, _)) =
                    reconstruct::one_move_with_pieces_off(g.current(), &placement.board) =>
            {
                // A legal move made, then a piece knocked off the board before the press was
                // judged (the clock's report is relayed behind the board's, protocol §3.4):
                // the press completes the move (6.2.1); the pieces off the board are a
                // displacement, watched as any other (7.1), not part of an illegal move.
                self.infer_from_press(display, mover);
                self.commit_shown(t, &[m], true, self.last_change, out);
                if !self.watch.illegal_alerted {
                    let wait = self.illegal_position_ms.saturating_sub(self.settle_ms);
                    self.illegal_at = Some(t + wait);
                }
            }
            _ if self.adopt_illegal(t, out) => {}
            _ if self.watch.lost_track => {
                // The board left every position the game can explain: no move is read and no
                // offence counted from it; `illegal_position` said so already.
            }
            _ => {
                // The player on move may have changed: an illegal move answered by another
                // was taken into the game (`adopt_illegal`).
                let mover = self.game.as_ref().map_or(mover, |g| g.current().turn());
                self.illegal_at_press(t, mover, &placement.board, out)
            }
        }
    }

    /// A press whose board never read as a move, overtaken by the next press: it completed
    /// the move the board showed last (when believable, as in `decide_press`).
    fn complete_last_shown(&mut self, t: u64, display: ClockSide, out: &mut Emitted) {
        let Some(mover) = self
            .game
            .as_ref()
            .filter(|g| !g.is_over())
            .map(|g| g.current().turn())
        else {
            return;
        };
        if self
            .last_ahead
            .as_ref()
            .is_some_and(|(_, p)| self.believable(p))
        {
            self.commit_last_shown(t, display, mover, out);
        }
    }

    /// The player who pressed, once the clock's sides are known.
    fn presser(&self, display: ClockSide) -> Option<Color> {
        let white = self.clock.white_side()?;
        Some(if display == white {
            Color::White
        } else {
            Color::Black
        })
    }

    /// A move of the player on move, other than `first` and not a square on `first`'s slide,
    /// that the board showed complete and that only the opponent's hands changed since (his
    /// pieces lifted or on their way, the moved piece taken off): the latest shown.
    fn shown_then_answered(&self, first: &Move, shown: &shakmaty::Board) -> Option<Move> {
        let g = self.game.as_ref()?;
        let pos = g.current();
        let mut best: Option<(usize, Move)> = None;
        for m in reconstruct::legal_moves(pos) {
            if m == *first || reconstruct::slide_prefix(&m, first) {
                continue;
            }
            let Some(when) = self.when_shown(&m) else {
                continue;
            };
            if best.is_some_and(|(w, _)| w >= when) {
                continue;
            }
            if reconstruct::only_opponent_changed(pos, &m, shown) {
                best = Some((when, m));
            }
        }
        best.map(|(_, m)| m)
    }

    /// Two moves at once are believed only if the first was seen on the board by itself:
    /// "Qxg3, queen lifted by the recapturing hand" also reads as "Qxf4 gxf4".
    fn believable(&self, path: &[Move]) -> bool {
        path.len() == 1 || self.after_gap || self.was_shown(&path[0])
    }

    /// The press by `mover` completed what the board showed last (`last_ahead`), as far as
    /// the board showed it move by move (`shown_prefix`): its presser's moves are committed,
    /// a reply already on the board waits for the board to settle (or its own press).
    fn commit_last_shown(&mut self, t: u64, display: ClockSide, mover: Color, out: &mut Emitted) {
        let (shown_at, mut path) = self.last_ahead.take().unwrap_or_default();
        path.truncate(self.shown_prefix(&path));
        self.infer_from_press(display, mover);
        let done = self.completed_by_press(display, mover, &path);
        self.commit_shown(t, &path[..done], true, shown_at, out);
        if done < path.len() {
            self.settle_at = Some(t.max(self.last_change + self.settle_ms));
        }
    }

    /// How many moves of `path`, from its start, the board showed one by one: the placement
    /// after each of them shown as that ply of the game. Moves followed in quick succession
    /// (`chained`) may be read two at a time from a placement in between, and a move in
    /// progress can read as two (the pawn on d4 taken off and the queen on c3 lifted for
    /// Qxd4 is the placement of Qxe3 dxe3 after ...e3: the board tells only which piece
    /// stands where, protocol §3.3): such a pair is no move the board showed. After a gap
    /// nothing was shown in between, and the whole path stands.
    fn shown_prefix(&self, path: &[Move]) -> usize {
        let Some(g) = &self.game else { return 0 };
        if self.after_gap {
            return path.len();
        }
        let mut pos = g.current().clone();
        path.iter()
            .enumerate()
            .take_while(|(k, m)| {
                pos.play_unchecked(**m);
                self.shown_as(g.plies() + k + 1, pos.board()).is_some()
            })
            .count()
    }

    /// How many moves of `path` (which starts with `mover`'s move) the press completed: up
    /// to the presser's own last move. A reply after it waits for its own press.
    fn completed_by_press(&self, display: ClockSide, mover: Color, path: &[Move]) -> usize {
        let presser = self.presser(display).unwrap_or(mover);
        let mut presser_moves = (0..path.len()).filter(|i| (i % 2 == 0) == (presser == mover));
        presser_moves.next_back().map_or(0, |i| i + 1)
    }

    /// The display `running` is the clock of the player to move (6.x: a player's clock runs
    /// while it is his move), as at the start of a game.
    fn infer_running_side_to_move(&mut self, running: ClockSide) {
        let white_to_move = self
            .game
            .as_ref()
            .is_none_or(|g| g.current().turn().is_white());
        self.clock.infer_white_side(if white_to_move {
            running
        } else {
            running.other()
        });
    }

    fn infer_from_press(&mut self, display: ClockSide, mover: Color) {
        if self.clock.white_side().is_none() {
            self.clock.infer_white_side(if mover.is_white() {
                display
            } else {
                display.other()
            });
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
            self.watch
                .suspicions
                .push((a.id, mover, a.ply.unwrap_or(0)));
            if self.watch.suspicions.len() > 32 {
                self.watch.suspicions.remove(0);
            }
        }
        if a.kind == AlertKind::FlagFall
            && a.severity == Severity::Intervene
            && let Some(f) = &mut self.watch.uncalled_flag
            && f.alert.is_none()
        {
            f.alert = Some(a.id);
        }
    }

    /// The arbiter's result against the Laws and the board (L17 fn 138): a draw before both
    /// players have moved (5.2.3, 2017+), or a result that differs from the game's end by
    /// rule, which stands (events after the end never change the result).
    fn check_result(&mut self, t: u64, result: &str, out: &mut Emitted) {
        let Some(g) = &self.game else { return };
        let (message, article, prescription) = match &g.result {
            Some((ended, reason)) if ended != result && *reason != EndReason::Arbiter => {
                let why = reason.words();
                (
                    format!(
                        "The result entered ({result}) conflicts with the game's end by {why} at ply {} ({ended}).",
                        g.plies()
                    ),
                    None,
                    format!(
                        "The game ended with {ended}; check the board and the scoresheets before changing it."
                    ),
                )
            }
            None if result == "1/2-1/2" => {
                let Some(article) = self.edition.draw_agreement_after_moves else {
                    return;
                };
                // Counted from the initial position only: a game set up from a FEN (an
                // adjourned game) had its first moves before.
                if g.positions[0].fullmoves().get() > 1 {
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
                (
                    format!(
                        "A draw was entered after {} ply(ies): a draw may be agreed only once both players have made at least one move ({article}).",
                        g.plies()
                    ),
                    Some(article),
                    format!(
                        "Recorded as entered. A draw agreed before both players have made a move is not valid ({article}): unless this is a decision of the arbiter's own, the game goes on and the result must be corrected."
                    ),
                )
            }
            _ => return,
        };
        let mut a = self.alert(AlertKind::ResultConflict, Severity::Review, None, message);
        a.article = article.map(Into::into);
        a.prescription = Some(prescription);
        out.push((t, EventBody::Alert(a)));
    }

    fn alert(
        &self,
        kind: AlertKind,
        severity: Severity,
        side: Option<Color>,
        message: String,
    ) -> Alert {
        let mut a = Alert::new(kind, severity, self.edition.name, message);
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

/// A duration in seconds, one decimal ("37.0 s").
fn seconds(ms: u64) -> String {
    format!("{}.{} s", ms / 1000, (ms % 1000) / 100)
}

/// A clock time as h:mm:ss.
fn hmmss(ms: u64) -> String {
    let s = ms / 1000;
    format!("{}:{:02}:{:02}", s / 3600, (s / 60) % 60, s % 60)
}

/// A time as m:ss.
fn mmss(ms: u64) -> String {
    format!("{}:{:02}", ms / 60_000, (ms / 1000) % 60)
}
