//! `dgt-arbiter verify --alerts`: how far an arbiter can trust each alert. Emulated games are
//! played at three paces (careful, blitz, time scramble) with irregularities — moves made
//! with two hands, castlings begun with the rook, pieces lifted and put back (announced or
//! not), knocked pieces — whose truth the emulator keeps aside; the alerts the core raises
//! are scored against it per kind and pace.

use std::collections::BTreeMap;

use dgt_core::{AlertKind, Core, CoreConfig, EventBody, Severity};
use dgt_emulator::{GeneratedGame, HandlingRates, Pace, TimeControl, corpus_spec, generate_game};

use crate::verify::inputs_of;

/// The paces checked, with the time control each is played at.
pub const PACES: [(Pace, &str, &str); 3] = [
    (Pace::Careful, "careful", "5400+30"),
    (Pace::Blitz, "blitz", "180+2"),
    (Pace::Scramble, "scramble", "60+1"),
];

/// The alert kinds scored against the emulator's truth.
pub const SCORED: [AlertKind; 3] = [
    AlertKind::TwoHandedMove,
    AlertKind::CastlingRookFirst,
    AlertKind::TouchMove,
];

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
}

impl PaceReport {
    /// False `review` / `intervene` alerts of the scored kinds per 100 games.
    pub fn false_review_per_100(&self) -> f64 {
        let n: usize = self.scores.values().map(|s| s.false_review).sum();
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

fn truth_of(kind: AlertKind, m: &dgt_emulator::TruthMove) -> bool {
    match kind {
        AlertKind::TwoHandedMove => m.two_handed,
        AlertKind::CastlingRookFirst => m.rook_first(),
        AlertKind::TouchMove => m.adjusted.is_some(),
        _ => false,
    }
}

fn kind_name(kind: AlertKind) -> String {
    serde_json::to_value(kind)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

/// Scores one game into `r`.
fn score_game(game: &GeneratedGame, config: &CoreConfig, r: &mut PaceReport) {
    let mut core = Core::new(config.clone());
    let mut events = Vec::new();
    for i in inputs_of(game, "board-1") {
        events.extend(core.handle(&i));
    }
    while let Some(d) = core.next_deadline() {
        events.extend(core.advance(d));
    }
    let alerts: Vec<(AlertKind, Severity, u32)> = events
        .iter()
        .filter_map(|e| match &e.body {
            // A coalesced repeat is the same alert again.
            EventBody::Alert(a) if a.repeats.is_none() => {
                Some((a.kind, a.severity, a.ply.unwrap_or(0)))
            }
            _ => None,
        })
        .collect();
    let moves = &game.truth.moves;
    for kind in SCORED {
        let s = r.scores.entry(kind_name(kind)).or_default();
        let raised: Vec<(Severity, u32)> = alerts
            .iter()
            .filter(|(k, ..)| *k == kind)
            .map(|&(_, sev, ply)| (sev, ply))
            .collect();
        for m in moves.iter().filter(|m| truth_of(kind, m)) {
            s.truth += 1;
            let seen = visible(kind, m, game);
            s.visible += usize::from(seen);
            let hit = raised.iter().any(|&(_, ply)| ply as usize == m.ply);
            if hit {
                s.true_positives += 1;
            } else {
                s.missed += 1;
                s.missed_visible += usize::from(seen);
            }
            if kind == AlertKind::TwoHandedMove
                && m.handling == dgt_emulator::Handling::CaptureTwoHanded
            {
                r.two_handed_captures.0 += 1;
                r.two_handed_captures.1 += usize::from(hit);
            }
        }
        for &(sev, ply) in &raised {
            let real = moves
                .iter()
                .any(|m| m.ply == ply as usize && truth_of(kind, m));
            if !real {
                s.false_positives += 1;
                if matches!(sev, Severity::Review | Severity::Intervene) {
                    s.false_review += 1;
                }
            }
        }
    }
    for (kind, sev, _) in &alerts {
        if !SCORED.contains(kind) && matches!(sev, Severity::Review | Severity::Intervene) {
            *r.others.entry(kind_name(*kind)).or_default() += 1;
        }
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
                "  {:<20} {:>6} {:>7} {:>5} {:>5} {:>7} {:>6} {:>9} {:>7} {:>15}",
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
                    "  {:<20} {:>6} {:>7} {:>5} {:>5} {:>7} {:>5.1}% {:>8.1}% {:>7.1} {:>15.1}",
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
                "  two-handed captures: {} made, {} raised (the board cannot tell them from one hand holding both pieces)",
                p.two_handed_captures.0, p.two_handed_captures.1
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
