//! `dgt-arbiter verify --alerts`: how far an arbiter can trust each alert. Emulated games are
//! played at three paces (careful, blitz, time scramble) with irregularities — moves made
//! with two hands, castlings begun with the rook, pieces lifted and put back (announced or
//! not), knocked pieces — whose truth the emulator keeps aside, with the rest of what really
//! happened (the clock stopped and why, result gestures, flags fallen, the game's end); the
//! alerts the core raises are scored against it per kind and pace. A `review` or
//! `intervene` alert of a kind the truth cannot justify counts as false.

use std::collections::BTreeMap;

use dgt_core::{AlertKind, CoreConfig, EventBody, Severity};
use dgt_emulator::{GeneratedGame, HandlingRates, Pace, TimeControl, corpus_spec, generate_game};

use crate::verify::events_of;

/// The paces checked, with the time control each is played at.
pub const PACES: [(Pace, &str, &str); 3] = [
    (Pace::Careful, "careful", "5400+30"),
    (Pace::Blitz, "blitz", "180+2"),
    (Pace::Scramble, "scramble", "60+1"),
];

/// The pace of [`PACES`] called `name` (`careful`, `blitz`, `scramble`) with its time control.
pub fn pace_named(name: &str) -> Option<(Pace, &'static str)> {
    PACES
        .iter()
        .find(|(_, n, _)| *n == name)
        .map(|(pace, _, control)| (*pace, *control))
}

/// The alert kinds scored against the emulator's truth: every kind the emulated games can
/// raise at `review` or `intervene`. Any other kind raised there is listed apart (no truth
/// kept) and counted as false in the all-kinds figure.
pub const SCORED: [AlertKind; 11] = [
    AlertKind::TwoHandedMove,
    AlertKind::CastlingRookFirst,
    AlertKind::TouchMove,
    AlertKind::ClockStopped,
    AlertKind::ResultGesture,
    AlertKind::MoveAfterGameEnd,
    AlertKind::FlagFall,
    AlertKind::IllegalMove,
    AlertKind::IllegalPosition,
    AlertKind::PositionRestored,
    AlertKind::ClockPressedWithoutMove,
];

/// The first three kinds scored against the truth: their figure is printed on its own, so
/// it stays comparable with earlier runs.
pub const FIRST_SCORED: [AlertKind; 3] = [
    AlertKind::TwoHandedMove,
    AlertKind::CastlingRookFirst,
    AlertKind::TouchMove,
];

/// How long after something happened at the board (a clock stopped, a flag fallen, a piece
/// put back, a gesture complete) its alert may come and still be about it: the clock
/// reports its state about once a second and the board a scan (~250 ms) after a change, the
/// core waits a settle (250 ms) or a press (up to ~1.5 s) on top.
pub const ALERT_LAG_MS: u64 = 3000;

/// Counts for one alert kind at one pace.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct KindScore {
    /// Irregularities of this kind that really happened.
    pub truth: usize,
    /// Of them, the ones the board could see at all (see [`visible`]).
    pub visible: usize,
    pub true_positives: usize,
    pub false_positives: usize,
    /// False alerts raised at `review` or `intervene` (what makes an arbiter look).
    pub false_review: usize,
    pub missed: usize,
    /// Misses among the visible ones.
    pub missed_visible: usize,
}

impl KindScore {
    pub fn precision(&self) -> f64 {
        let raised = self.true_positives + self.false_positives;
        if raised == 0 {
            1.0
        } else {
            self.true_positives as f64 / raised as f64
        }
    }
    /// Recall over what the board can see.
    pub fn recall(&self) -> f64 {
        if self.visible == 0 {
            1.0
        } else {
            (self.visible - self.missed_visible) as f64 / self.visible as f64
        }
    }
}

/// One pace's results.
#[derive(Debug, Clone, Default)]
pub struct PaceReport {
    pub name: &'static str,
    pub games: usize,
    pub scores: BTreeMap<String, KindScore>,
    /// Other alerts at `review` / `intervene` (no truth kept for them), per kind.
    pub others: BTreeMap<String, usize>,
    /// Two-handed captures among the truth, and how many were raised.
    pub two_handed_captures: (usize, usize),
    /// Captures made with one hand and with two, and how many of each showed the two-lift
    /// signature ([`both_lifts_in_one_report`]): what the board can tell of two hands.
    pub capture_signature: [(usize, usize); 2],
    /// The `two_handed_move` alerts raised for captures (`capture_hands.rs`).
    pub capture_alerts: CaptureAlerts,
}

/// The two-handed-capture alerts of one pace, against what the hands really did.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct CaptureAlerts {
    /// `info` for a single capture with the signature, and of them, two-handed captures.
    pub info: usize,
    pub info_two_handed: usize,
    /// `review` (or `claim`) for a player's pattern in a game.
    pub pattern: usize,
    /// Of them, raised at a capture made with two hands (the scoring's true positives).
    pub pattern_at_two_handed: usize,
    /// Of them, about a player who made no two-handed capture in that game at all.
    pub pattern_player_one_handed: usize,
    /// Games replayed with every capture made with two hands ([`HABIT_GAMES`] at most): the
    /// players who captured, and how many of them got the pattern's review.
    pub habit_players: usize,
    pub habit_reviewed: usize,
}

/// How many games of each pace are replayed with every capture made with two hands, to
/// see how often the pattern is raised for a player who has that habit.
pub const HABIT_GAMES: usize = 300;

impl PaceReport {
    /// False `review` / `intervene` alerts per 100 games, of every kind: the scored kinds'
    /// false ones and every alert of a kind without truth (nothing can justify it).
    pub fn false_review_per_100(&self) -> f64 {
        let n: usize = self.scores.values().map(|s| s.false_review).sum::<usize>()
            + self.others.values().sum::<usize>();
        100.0 * n as f64 / self.games.max(1) as f64
    }
    /// The same, of the first three scored kinds only ([`FIRST_SCORED`]).
    pub fn false_review_first_scored_per_100(&self) -> f64 {
        let n: usize = FIRST_SCORED
            .iter()
            .filter_map(|k| self.scores.get(&kind_name(*k)))
            .map(|s| s.false_review)
            .sum();
        100.0 * n as f64 / self.games.max(1) as f64
    }
}

#[derive(Debug, Clone, Default)]
pub struct AlertReport {
    pub paces: Vec<PaceReport>,
}

/// The spec of game `seed` at `pace`: the corpus game's script and board, a clock, and
/// handling with the irregularities the alerts are for.
pub fn alert_spec(seed: u64, pace: Pace, time_control: &str) -> dgt_emulator::BoardSpec {
    let mut spec = corpus_spec(seed);
    spec.pace = pace;
    spec.clock_present = true;
    spec.script.flag_fall_at_ply = None;
    spec.time_control = TimeControl::parse(time_control).expect("a valid pace control");
    spec.rates = HandlingRates {
        capture_two_handed: 0.04,
        castle_rook_first: 0.2,
        castle_two_handed: 0.1,
        adjust_piece: 0.03,
        adjust_announced: 0.5,
        ..HandlingRates::noisy()
    };
    spec
}

/// Whether the board can see the irregularity of `m` at all: a capture's two lifts within
/// 0–80 ms look exactly like a one-handed capture made with the capturer in hand (the board
/// reports squares per scan, ~200–250 ms, and one hand may hold both pieces), so two-handed
/// captures are not visible; castling with both pieces off the board at once (see
/// [`castling_both_off_reported`]), a rook lifted a scan before the king (see
/// [`rook_lift_reported_first`]), a piece off its square for 400 ms or more, are.
pub fn visible(kind: AlertKind, m: &dgt_emulator::TruthMove, game: &GeneratedGame) -> bool {
    use dgt_emulator::Handling;
    match kind {
        AlertKind::TwoHandedMove => {
            m.handling == Handling::CastleTwoHanded && castling_both_off_reported(game, m)
        }
        AlertKind::CastlingRookFirst => rook_lift_reported_first(game, m),
        _ => true,
    }
}

/// Squares of one board report arrive within this long of each other (the emulated board
/// sends a scan's changes ~5 ms apart; the core's `ONE_REPORT_MS` is the same bound).
const ONE_REPORT_MS: u64 = 60;

/// Whether the board reported the rook's square emptied in an earlier report than the
/// king's, for a castling begun with the rook. One scan reports the squares that changed
/// during it together, in scan order, not in the order the hands moved (protocol §1.1,
/// §4.1): a rook lifted (or moved) within the scan in which the king is lifted reads the
/// same as the king lifted first with the rook slid along, or as both pieces in hand — the
/// board cannot tell which piece was touched first. Not a standard castling (Chess960 from
/// other squares): counted as visible.
pub fn rook_lift_reported_first(game: &GeneratedGame, m: &dgt_emulator::TruthMove) -> bool {
    let Some([king, rook, ..]) = castling_squares(m) else {
        return true;
    };
    let (mut rook_off, mut king_off) = (None, None);
    for (t, sq, piece) in field_updates_around(game, m) {
        if piece != 0 {
            continue;
        }
        if sq == rook && rook_off.is_none() {
            rook_off = Some(t);
        } else if sq == king && king_off.is_none() {
            king_off = Some(t);
        }
    }
    match (rook_off, king_off) {
        (Some(r), Some(k)) => k > r + ONE_REPORT_MS,
        _ => true,
    }
}

/// Whether a board report showed the king and the rook of a castling off the board
/// together: after some report, none of the four squares of the castling (the king's and
/// the rook's, where each goes) holds a piece. That is the only trace two hands leave. The
/// board reads each square once per scan (~200–250 ms; e1–h1 within ~10 ms of each other,
/// protocol §1.1), so it sees a sequence of snapshots of the back rank: a two-handed
/// castling made between two reads of the rank (both lifts and both placements within one
/// scan, common in a time scramble where the whole castling takes 60–210 ms) shows only
/// the final position, exactly as a one-handed castling made within one scan; one whose
/// last lift and first placement fall between the same two reads shows the king off (or
/// on its new square) with the rook in place, then both moved — again what one hand shows.
/// Neither can be told from one hand. Not a standard castling (Chess960 from other
/// squares): counted as visible.
pub fn castling_both_off_reported(game: &GeneratedGame, m: &dgt_emulator::TruthMove) -> bool {
    let Some(squares) = castling_squares(m) else {
        return true;
    };
    // Which of the four squares hold a piece, as the reports show them; a report is the
    // updates that arrive within `ONE_REPORT_MS` of its first.
    let mut occupied = [true, true, false, false];
    let mut report_start: Option<u64> = None;
    let all_off = |o: &[bool; 4]| o.iter().all(|&x| !x);
    for (t, sq, piece) in field_updates_around(game, m) {
        if report_start.is_some_and(|r| t > r + ONE_REPORT_MS) {
            if all_off(&occupied) {
                return true;
            }
            report_start = None;
        }
        if let Some(i) = squares.iter().position(|&s| s == sq) {
            report_start.get_or_insert(t);
            occupied[i] = piece != 0;
        }
    }
    report_start.is_some() && all_off(&occupied)
}

/// Whether a capture's two lifts — the capturer's square emptied and the captured piece's
/// square emptied — reached the host in one board report (updates within `ONE_REPORT_MS`):
/// the only trace two hands can leave on a capture. One hand shows it too when it lifts the
/// captured piece within the scan that lifted the capturer and puts the capturer down in a
/// later one.
pub fn both_lifts_in_one_report(game: &GeneratedGame, m: &dgt_emulator::TruthMove) -> bool {
    let squares = (
        m.uci
            .get(0..2)
            .and_then(|s| s.parse::<shakmaty::Square>().ok()),
        m.uci
            .get(2..4)
            .and_then(|s| s.parse::<shakmaty::Square>().ok()),
    );
    let (Some(from), Some(to)) = squares else {
        return false;
    };
    let first_off = |sq| {
        field_updates_around(game, m)
            .into_iter()
            .find(|&(_, s, piece)| s == sq && piece == 0)
            .map(|(t, _, _)| t)
    };
    match (first_off(from), first_off(to)) {
        (Some(a), Some(b)) => a.abs_diff(b) <= ONE_REPORT_MS,
        _ => false,
    }
}

/// The king's square, the rook's, the king's destination and the rook's, for a standard
/// castling (the king on the e-file).
fn castling_squares(m: &dgt_emulator::TruthMove) -> Option<[shakmaty::Square; 4]> {
    use shakmaty::{File, Square};
    let king = m.uci.get(0..2)?.parse::<Square>().ok()?;
    let to = m.uci.get(2..4)?.parse::<Square>().ok()?;
    if king.file() != File::E {
        return None;
    }
    let (rook_file, rook_to_file) = match to.file() {
        File::G => (File::H, File::F),
        File::C => (File::A, File::D),
        _ => return None,
    };
    let rank = king.rank();
    Some([
        king,
        Square::from_coords(rook_file, rank),
        to,
        Square::from_coords(rook_to_file, rank),
    ])
}

/// The board's field updates (time, square, piece code) from just before `m` was first
/// touched until a second after it was made.
fn field_updates_around(
    game: &GeneratedGame,
    m: &dgt_emulator::TruthMove,
) -> Vec<(u64, shakmaty::Square, u8)> {
    use dgt_protocol::{BoardMessage, Decoded, Decoder, LineMode};
    let mut decoder = Decoder::new(LineMode::Single);
    let mut out = Vec::new();
    for t in game.traffic.iter().filter(|t| {
        t.dir == dgt_emulator::Dir::Rx
            && t.t_ms + 50 >= m.t_touch_ms
            && t.t_ms <= m.t_made_ms + 1000
    }) {
        for d in decoder.decode(&t.bytes) {
            if let Decoded::Message(BoardMessage::FieldUpdate { square, piece }) = d {
                let sq = dgt_emulator::chess_square(square as usize, game.truth.rotated);
                out.push((t.t_ms, sq, piece));
            }
        }
    }
    out
}

/// One thing that really happened at the board, as an alert of some kind should report it.
#[derive(Debug, Clone, PartialEq)]
pub struct Occurrence {
    /// The ply it belongs to: an alert of that ply is about it. `None`: matched by time.
    pub ply: Option<usize>,
    /// Without a ply, an alert raised from `.0` to `.1` (ms, inclusive) is about it.
    pub window: (u64, u64),
    /// The player concerned, when the alert must name him (a flag: whose fell).
    pub white: Option<bool>,
    /// The result an alert about it must give, when it gives one (a gesture's).
    pub result: Option<&'static str>,
    /// Whether the board can show it at all (see [`visible`]).
    pub visible: bool,
    /// Whether an alert must report it. One that need not (a result gesture after the game
    /// was over already, a flag after the end) is no irregularity to count, but an alert
    /// about it is no false alert either.
    pub wanted: bool,
    /// A two-handed capture (counted on its own: the board cannot see them).
    pub two_handed_capture: bool,
}

impl Occurrence {
    fn at_ply(ply: usize) -> Self {
        Occurrence {
            ply: Some(ply),
            window: (0, 0),
            white: None,
            result: None,
            visible: true,
            wanted: true,
            two_handed_capture: false,
        }
    }
    fn between(from_ms: u64, to_ms: u64) -> Self {
        Occurrence {
            ply: None,
            window: (from_ms, to_ms),
            ..Self::at_ply(0)
        }
    }
    /// Whether `alert` is about this occurrence.
    pub fn matches(&self, alert: &RaisedAlert) -> bool {
        let when = match self.ply {
            Some(ply) => alert.ply as usize == ply,
            None => (self.window.0..=self.window.1).contains(&alert.t_ms),
        };
        let who = match (self.white, alert.white) {
            (Some(a), Some(b)) => a == b,
            _ => true,
        };
        let result = match (self.result, alert.result.as_deref()) {
            (Some(a), Some(b)) => a == b,
            _ => true,
        };
        when && who && result
    }
}

/// An alert the core raised, as the scoring sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct RaisedAlert {
    pub kind: AlertKind,
    pub severity: Severity,
    pub ply: u32,
    pub t_ms: u64,
    /// The side it names (`true`: White).
    pub white: Option<bool>,
    /// The result of the `game_end` it came with, if any.
    pub result: Option<String>,
}

/// What really happened that an alert of `kind` should report, in `game` (the core's
/// `config` gives the time a placement must stay illegal before it is one).
pub fn occurrences(kind: AlertKind, game: &GeneratedGame, config: &CoreConfig) -> Vec<Occurrence> {
    use dgt_emulator::{ClockStopReason, GameOverBy, Handling, IrregularityKind};
    let truth = &game.truth;
    // When the game was over by the Laws (on the board, possibly before the players noticed;
    // by a flag; or by the players themselves).
    let over = truth.game_over.map(|(t, _)| t);
    let ended_by_players = matches!(truth.game_over, None | Some((_, GameOverBy::Players)));
    let by_ply = |pred: &dyn Fn(&dgt_emulator::TruthMove) -> bool| -> Vec<Occurrence> {
        truth
            .moves
            .iter()
            .filter(|m| pred(m))
            .map(|m| Occurrence {
                visible: visible(kind, m, game),
                two_handed_capture: m.handling == Handling::CaptureTwoHanded,
                ..Occurrence::at_ply(m.ply)
            })
            .collect()
    };
    // Pieces knocked over and left off longer than a placement may stay illegal.
    let knocked_long = || {
        truth.irregularities.iter().filter_map(|i| match i.kind {
            IrregularityKind::KnockedPiece { down_ms, .. }
                if down_ms > config.illegal_position_ms =>
            {
                Some((i.t_ms, i.t_ms + down_ms))
            }
            _ => None,
        })
    };
    match kind {
        AlertKind::TwoHandedMove => by_ply(&|m| m.two_handed),
        AlertKind::CastlingRookFirst => by_ply(&|m| m.rook_first()),
        AlertKind::TouchMove => by_ply(&|m| m.adjusted.is_some()),
        // Play went on once the game was over: the players stop at the end they see, but may
        // play on past a dead position they did not notice (5.2.2). The arbiter is told once,
        // from the first such move.
        AlertKind::MoveAfterGameEnd => {
            let after: Vec<_> = truth
                .moves
                .iter()
                .filter(|m| over.is_some_and(|end| m.t_touch_ms > end))
                .collect();
            match (after.first(), after.last()) {
                (Some(first), Some(last)) => vec![Occurrence::between(
                    first.t_touch_ms,
                    last.t_made_ms + ALERT_LAG_MS,
                )],
                _ => Vec::new(),
            }
        }
        // 6.11.2: a player stops the clock only to call the arbiter; the emulated players
        // stop it when they have ended the game themselves (a resignation or an agreement
        // the board cannot hear: the arbiter must learn the result, D63). A stop after an
        // end on the board, or the arbiter's own after a flag, is nothing to look at.
        AlertKind::ClockStopped => truth
            .clock_stops
            .iter()
            .filter(|s| s.reason == ClockStopReason::PlayersEndedGame)
            .map(|s| Occurrence::between(s.t_ms, s.t_ms + ALERT_LAG_MS))
            .collect(),
        AlertKind::ResultGesture => truth
            .gesture
            .iter()
            .map(|g| Occurrence {
                result: Some(g.outcome.pgn()),
                // The result is for the arbiter to confirm only when the players ended the
                // game themselves; after a mate or a flag it is known already.
                wanted: ended_by_players,
                ..Occurrence::between(g.t_start_ms, g.t_ms + ALERT_LAG_MS)
            })
            .collect(),
        AlertKind::FlagFall => truth
            .irregularities
            .iter()
            .filter_map(|i| match i.kind {
                IrregularityKind::FlagFall { white, .. } => Some(Occurrence {
                    white: Some(white),
                    // A flag after the game was over (a mate, a dead position) changes
                    // nothing (6.9; fn 86).
                    wanted: over.is_none_or(|end| i.t_ms <= end),
                    ..Occurrence::between(i.t_ms, i.t_ms + ALERT_LAG_MS)
                }),
                _ => None,
            })
            .collect(),
        AlertKind::IllegalPosition => knocked_long()
            .map(|(down, up)| Occurrence::between(down, up + ALERT_LAG_MS))
            .collect(),
        AlertKind::PositionRestored => knocked_long()
            .map(|(_, up)| Occurrence::between(up, up + ALERT_LAG_MS))
            .collect(),
        // The script is legal chess, validated before play, and every press of the human
        // model completes a move (the emulator's own tests): none of these happen.
        AlertKind::IllegalMove | AlertKind::ClockPressedWithoutMove => Vec::new(),
        _ => Vec::new(),
    }
}

fn kind_name(kind: AlertKind) -> String {
    serde_json::to_value(kind)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

/// The alerts the core raises on `game`, as the scoring sees them.
pub fn raised_alerts(game: &GeneratedGame, config: &CoreConfig) -> Vec<RaisedAlert> {
    let events = events_of(game, "board-1", config);
    let mut alerts = Vec::new();
    for (i, e) in events.iter().enumerate() {
        match &e.body {
            // A coalesced repeat is the same alert again.
            EventBody::Alert(a) if a.repeats.is_none() => {
                let result = match events.get(i + 1).map(|n| &n.body) {
                    Some(EventBody::GameEnd { result, .. }) => Some(result.to_string()),
                    _ => None,
                };
                alerts.push(RaisedAlert {
                    kind: a.kind,
                    severity: a.severity,
                    ply: a.ply.unwrap_or(0),
                    t_ms: e.t_ms,
                    white: a.side.map(|s| s == dgt_core::Side::White),
                    result,
                });
            }
            _ => {}
        }
    }
    alerts
}

/// Scores the alerts of one kind against what really happened: an occurrence an alert is
/// about is a true positive, one without is missed; an alert about no occurrence is false.
pub fn score_kind(truth: &[Occurrence], raised: &[RaisedAlert], s: &mut KindScore) {
    for o in truth.iter().filter(|o| o.wanted) {
        s.truth += 1;
        s.visible += usize::from(o.visible);
        if raised.iter().any(|a| o.matches(a)) {
            s.true_positives += 1;
        } else {
            s.missed += 1;
            s.missed_visible += usize::from(o.visible);
        }
    }
    for a in raised {
        if !truth.iter().any(|o| o.matches(a)) {
            s.false_positives += 1;
            if matches!(a.severity, Severity::Review | Severity::Intervene) {
                s.false_review += 1;
            }
        }
    }
}

/// Scores one game into `r`.
fn score_game(game: &GeneratedGame, config: &CoreConfig, r: &mut PaceReport) {
    let alerts = raised_alerts(game, config);
    for kind in SCORED {
        let truth = occurrences(kind, game, config);
        let raised: Vec<RaisedAlert> = alerts.iter().filter(|a| a.kind == kind).cloned().collect();
        score_kind(
            &truth,
            &raised,
            r.scores.entry(kind_name(kind)).or_default(),
        );
        if kind == AlertKind::TwoHandedMove {
            for o in truth.iter().filter(|o| o.wanted && o.two_handed_capture) {
                r.two_handed_captures.0 += 1;
                r.two_handed_captures.1 += usize::from(raised.iter().any(|a| o.matches(a)));
            }
        }
    }
    score_capture_alerts(game, &alerts, &mut r.capture_alerts);
    {
        use dgt_emulator::Handling;
        for m in &game.truth.moves {
            let hands = match m.handling {
                Handling::CaptureRemoveFirst | Handling::CaptureLiftFirst => 0,
                Handling::CaptureTwoHanded => 1,
                _ => continue,
            };
            r.capture_signature[hands].0 += 1;
            r.capture_signature[hands].1 += usize::from(both_lifts_in_one_report(game, m));
        }
    }
    for a in &alerts {
        if !SCORED.contains(&a.kind) && matches!(a.severity, Severity::Review | Severity::Intervene)
        {
            *r.others.entry(kind_name(a.kind)).or_default() += 1;
        }
    }
}

/// Counts the `two_handed_move` alerts raised at captures (castling's are scored above)
/// against the hands that made them.
pub fn score_capture_alerts(game: &GeneratedGame, alerts: &[RaisedAlert], c: &mut CaptureAlerts) {
    use dgt_emulator::Handling;
    let captures = |m: &&dgt_emulator::TruthMove| {
        matches!(
            m.handling,
            Handling::CaptureRemoveFirst | Handling::CaptureLiftFirst | Handling::CaptureTwoHanded
        )
    };
    for a in alerts.iter().filter(|a| a.kind == AlertKind::TwoHandedMove) {
        let Some(m) = game
            .truth
            .moves
            .iter()
            .filter(captures)
            .find(|m| m.ply == a.ply as usize)
        else {
            continue;
        };
        let two_handed = m.handling == Handling::CaptureTwoHanded;
        if a.severity == Severity::Info {
            c.info += 1;
            c.info_two_handed += usize::from(two_handed);
        } else {
            c.pattern += 1;
            c.pattern_at_two_handed += usize::from(two_handed);
            let player_did = game.truth.moves.iter().any(|x| {
                x.handling == Handling::CaptureTwoHanded && a.white.is_none_or(|w| w == x.white)
            });
            c.pattern_player_one_handed += usize::from(!player_did);
        }
    }
}

/// For a game whose captures were all made with two hands: each player who captured, and
/// whether the pattern's review named him.
pub fn score_habit(game: &GeneratedGame, alerts: &[RaisedAlert], c: &mut CaptureAlerts) {
    use dgt_emulator::Handling;
    for white in [true, false] {
        let captured = game
            .truth
            .moves
            .iter()
            .any(|m| m.white == white && m.handling == Handling::CaptureTwoHanded);
        if !captured {
            continue;
        }
        c.habit_players += 1;
        c.habit_reviewed +=
            usize::from(alerts.iter().any(|a| {
                a.kind == AlertKind::TwoHandedMove
                    && a.severity != Severity::Info
                    && a.white == Some(white)
                    && game.truth.moves.iter().any(|m| {
                        m.ply == a.ply as usize && m.handling == Handling::CaptureTwoHanded
                    })
            }));
    }
}

/// Plays `games` games from `first_seed` at each pace and scores the alerts.
pub fn check_alerts(first_seed: u64, games: usize, config: &CoreConfig) -> AlertReport {
    let mut report = AlertReport::default();
    for (pace, name, tc) in PACES {
        let mut r = PaceReport {
            name,
            games,
            ..Default::default()
        };
        for seed in first_seed..first_seed + games as u64 {
            let game = generate_game(alert_spec(seed, pace, tc));
            score_game(&game, config, &mut r);
        }
        for seed in first_seed..first_seed + games.min(HABIT_GAMES) as u64 {
            let mut spec = alert_spec(seed, pace, tc);
            spec.rates.capture_two_handed = 1.0;
            let game = generate_game(spec);
            score_habit(&game, &raised_alerts(&game, config), &mut r.capture_alerts);
        }
        report.paces.push(r);
    }
    report
}

impl std::fmt::Display for AlertReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for p in &self.paces {
            writeln!(
                f,
                "pace {} ({} games): false review/intervene alerts of the scored kinds {:.1} per 100 games",
                p.name,
                p.games,
                p.false_review_per_100()
            )?;
            writeln!(
                f,
                "  (all kinds: every kind below, and any other kind raised at review/intervene counted false; of two_handed_move, castling_rook_first, touch_move alone {:.1})",
                p.false_review_first_scored_per_100()
            )?;
            writeln!(
                f,
                "  {:<26} {:>6} {:>7} {:>5} {:>5} {:>7} {:>6} {:>9} {:>7} {:>15}",
                "kind",
                "truth",
                "visible",
                "TP",
                "FP",
                "missed",
                "prec.",
                "recall*",
                "FP/100",
                "FP review/100"
            )?;
            for (kind, s) in &p.scores {
                writeln!(
                    f,
                    "  {:<26} {:>6} {:>7} {:>5} {:>5} {:>7} {:>5.1}% {:>8.1}% {:>7.1} {:>15.1}",
                    kind,
                    s.truth,
                    s.visible,
                    s.true_positives,
                    s.false_positives,
                    s.missed,
                    100.0 * s.precision(),
                    100.0 * s.recall(),
                    100.0 * s.false_positives as f64 / p.games.max(1) as f64,
                    100.0 * s.false_review as f64 / p.games.max(1) as f64,
                )?;
            }
            writeln!(
                f,
                "  two-handed captures: {} made, {} raised (info or review: the board shows both lifts in one report, as one hand does at times)",
                p.two_handed_captures.0, p.two_handed_captures.1
            )?;
            let share = |(n, k): (usize, usize)| 100.0 * k as f64 / n.max(1) as f64;
            writeln!(
                f,
                "  both lifts of a capture in one board report: one-handed {} of {} ({:.1} %), two-handed {} of {} ({:.1} %)",
                p.capture_signature[0].1,
                p.capture_signature[0].0,
                share(p.capture_signature[0]),
                p.capture_signature[1].1,
                p.capture_signature[1].0,
                share(p.capture_signature[1]),
            )?;
            let c = &p.capture_alerts;
            writeln!(
                f,
                "  two_handed_move at captures: info {} ({} at two-handed captures); pattern review {} ({:.2} per 100 games; {} at a two-handed capture, {} for a player with no two-handed capture in the game)",
                c.info,
                c.info_two_handed,
                c.pattern,
                100.0 * c.pattern as f64 / p.games.max(1) as f64,
                c.pattern_at_two_handed,
                c.pattern_player_one_handed,
            )?;
            writeln!(
                f,
                "  every capture made with two hands ({} games): pattern review for {} of {} players who captured ({:.1} %)",
                p.games.min(HABIT_GAMES),
                c.habit_reviewed,
                c.habit_players,
                100.0 * c.habit_reviewed as f64 / c.habit_players.max(1) as f64,
            )?;
            if !p.others.is_empty() {
                let others: Vec<String> = p
                    .others
                    .iter()
                    .map(|(k, n)| format!("{k} {:.1}", 100.0 * *n as f64 / p.games.max(1) as f64))
                    .collect();
                writeln!(
                    f,
                    "  other review/intervene alerts per 100 games (no truth kept): {}",
                    others.join(", ")
                )?;
            }
        }
        writeln!(
            f,
            "* recall over the irregularities the board can see at all"
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn alert(kind: AlertKind, severity: Severity, ply: u32, t_ms: u64) -> RaisedAlert {
        RaisedAlert {
            kind,
            severity,
            ply,
            t_ms,
            white: None,
            result: None,
        }
    }

    fn scored(truth: &[Occurrence], raised: &[RaisedAlert]) -> KindScore {
        let mut s = KindScore::default();
        score_kind(truth, raised, &mut s);
        s
    }

    #[test]
    fn an_alert_about_what_happened_is_a_true_positive_at_its_ply() {
        let truth = [Occurrence::at_ply(12)];
        let s = scored(
            &truth,
            &[alert(AlertKind::TouchMove, Severity::Info, 12, 5000)],
        );
        assert_eq!(
            (s.truth, s.true_positives, s.false_positives, s.missed),
            (1, 1, 0, 0)
        );
        // The ply before or after is another move: false, and the real one missed.
        let s = scored(
            &truth,
            &[alert(AlertKind::TouchMove, Severity::Review, 13, 5000)],
        );
        assert_eq!(
            (
                s.true_positives,
                s.false_positives,
                s.false_review,
                s.missed
            ),
            (0, 1, 1, 1)
        );
        assert_eq!(s.precision(), 0.0);
        assert_eq!(s.recall(), 0.0);
    }

    #[test]
    fn an_alert_is_about_what_happened_within_its_time_window() {
        let stop = Occurrence::between(10_000, 10_000 + ALERT_LAG_MS);
        let at = |t| alert(AlertKind::ClockStopped, Severity::Review, 40, t);
        for t in [10_000, 11_200, 10_000 + ALERT_LAG_MS] {
            let s = scored(std::slice::from_ref(&stop), &[at(t)]);
            assert_eq!((s.true_positives, s.false_positives), (1, 0), "{t}");
        }
        // Before it happened, or long after: about something else, so false.
        for t in [9_999, 10_001 + ALERT_LAG_MS] {
            let s = scored(std::slice::from_ref(&stop), &[at(t)]);
            assert_eq!(
                (s.true_positives, s.false_review, s.missed),
                (0, 1, 1),
                "{t}"
            );
        }
        // Nothing happened: every alert raised is false; one at `info` bothers no one.
        let s = scored(
            &[],
            &[
                at(10_000),
                alert(AlertKind::ClockStopped, Severity::Info, 0, 1),
            ],
        );
        assert_eq!((s.truth, s.false_positives, s.false_review), (0, 2, 1));
        assert_eq!(s.precision(), 0.0);
    }

    #[test]
    fn an_alert_naming_the_wrong_player_or_result_is_false() {
        let flag = Occurrence {
            white: Some(true),
            ..Occurrence::between(100, 3100)
        };
        let mut a = alert(AlertKind::FlagFall, Severity::Intervene, 80, 500);
        a.white = Some(false);
        let s = scored(std::slice::from_ref(&flag), std::slice::from_ref(&a));
        assert_eq!((s.true_positives, s.false_review), (0, 1));
        a.white = Some(true);
        let s = scored(std::slice::from_ref(&flag), &[a]);
        assert_eq!((s.true_positives, s.false_review), (1, 0));

        let gesture = Occurrence {
            result: Some("1/2-1/2"),
            ..Occurrence::between(100, 3100)
        };
        let mut a = alert(AlertKind::ResultGesture, Severity::Review, 80, 500);
        a.result = Some("1-0".into());
        let s = scored(std::slice::from_ref(&gesture), std::slice::from_ref(&a));
        assert_eq!((s.true_positives, s.false_review, s.missed), (0, 1, 1));
        a.result = Some("1/2-1/2".into());
        let s = scored(std::slice::from_ref(&gesture), &[a]);
        assert_eq!((s.true_positives, s.false_review), (1, 0));
    }

    #[test]
    fn what_need_not_be_raised_is_not_counted_but_justifies_an_alert() {
        let after_mate = Occurrence {
            wanted: false,
            ..Occurrence::between(100, 3100)
        };
        let s = scored(std::slice::from_ref(&after_mate), &[]);
        assert_eq!((s.truth, s.missed), (0, 0));
        let a = alert(AlertKind::ResultGesture, Severity::Review, 80, 500);
        let s = scored(&[after_mate], &[a]);
        assert_eq!((s.truth, s.true_positives, s.false_positives), (0, 0, 0));
    }

    #[test]
    fn the_headline_counts_false_alerts_of_every_kind() {
        let mut r = PaceReport {
            games: 200,
            ..Default::default()
        };
        r.scores.insert(
            "touch_move".into(),
            KindScore {
                false_review: 1,
                ..Default::default()
            },
        );
        r.scores.insert(
            "clock_stopped".into(),
            KindScore {
                false_review: 2,
                ..Default::default()
            },
        );
        // A kind with no truth: nothing justifies it.
        r.others.insert("clock_disconnected".into(), 1);
        assert_eq!(r.false_review_per_100(), 2.0);
        assert_eq!(r.false_review_first_scored_per_100(), 0.5);
    }
}
