//! Two-handed captures as far as the board can show them (4.1: each move with one hand).
//!
//! A capture made with two hands lifts the capturer and the piece taken 0–80 ms apart; one
//! hand lifts them a scan or more apart — or within one scan, when it takes the piece off
//! with the capturer already in hand. The board reports the squares one scan found changed
//! together (protocol §1.1, ~220 ms a scan), so the only trace two hands leave is both lifts
//! in **one board report**: the *signature*. One hand shows it too (`verify --alerts`,
//! seeds 1–400, docs/bughouse.md): 3.6 % of one-handed captures at a careful pace against
//! 74.2 % of two-handed ones, 13.9 % against 64.6 % at blitz, 20.6 % against 30.4 % in a time
//! scramble. A single signature is an `info`; the pattern — one player's captures in one
//! game showing it again and again — a `review` at four signatures made at a careful pace.
//! At blitz and in a time scramble no count makes a pattern, `info` only: `verify --alerts`
//! (1000 games a pace, two seed ranges) found a review at six blitz signatures raised at a
//! one-handed capture in 7 and 10 games of 1000 (over the budget of one false review per
//! 100 games with the other kinds), and at seven in a scramble in 10 of 1000. A game whose
//! pace changes (a careful game ending short of time) counts only its careful signatures.

use shakmaty::{Color, Move, Square};

use crate::handling::HandlingLog;
use crate::snapshot_as::*;

/// Lifts reported this close together are one board report (the squares of one scan arrive
/// a few ms apart, protocol §3.3; `handling::ONE_REPORT_MS` is the same bound).
const ONE_REPORT_MS: u64 = 60;

/// A player with less than this on his clock is in a time scramble: his hand is as fast as
/// the emulated scramble's (60+1 games), so a signature says least there.
const SCRAMBLE_BELOW_MS: u64 = 90_000;

/// A player with more than this on his clock, in a standard game, plays at a careful pace
/// (no blitz or rapid game leaves that much; a standard player down to a few minutes is
/// weighed as at blitz).
const CAREFUL_ABOVE_MS: u64 = 10 * 60_000;

/// A review is due when a player's signatures weigh this much: each weighs a quarter of it
/// at a careful pace, nothing at blitz or in a scramble.
const REVIEW_WEIGHT: u32 = 84;

/// How fast the hands move when a capture is made, as far as the clock tells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum HandPace {
    /// A standard game with time to spare: one hand rarely shows the signature (3.6 %).
    Careful,
    /// Blitz or rapid, or a standard game short of time, or no clock to tell (13.9 %).
    Quick,
    /// Less than 90 s left: one hand is almost as fast as two (20.6 %).
    Scramble,
}

impl HandPace {
    /// The pace of a capture by a player with `left_ms` on his clock (when the clock is
    /// read) in a game whose time control is standard (`Some(true)`), rapid or blitz
    /// (`Some(false)`) or not known (`None`).
    pub fn of(left_ms: Option<u64>, standard: Option<bool>) -> HandPace {
        match (left_ms, standard) {
            (Some(ms), _) if ms < SCRAMBLE_BELOW_MS => HandPace::Scramble,
            (Some(ms), Some(true) | None) if ms > CAREFUL_ABOVE_MS => HandPace::Careful,
            (None, Some(true)) => HandPace::Careful,
            _ => HandPace::Quick,
        }
    }

    /// How many signatures make a review at this pace, if any can: by chance, a one-handed
    /// player with ten captures in a game reaches four at a careful pace with probability
    /// 0.03 %; `verify --alerts` finds the tails heavier (players with many short captures),
    /// 0.5–0.6 false reviews per 100 games, see docs/bughouse.md. None at blitz (six cost
    /// 0.7–1.0) or in a scramble.
    pub fn review_at(self) -> Option<u32> {
        match self {
            HandPace::Careful => Some(4),
            HandPace::Quick | HandPace::Scramble => None,
        }
    }

    /// A signature's weight toward a review, in `REVIEW_WEIGHT` units.
    fn weight(self) -> u32 {
        self.review_at().map_or(0, |n| REVIEW_WEIGHT / n)
    }

    /// The share of one-handed captures that show the signature at this pace, in per mille
    /// (`verify --alerts`, seeds 1–400), for the alert's message.
    pub fn one_hand_per_mille(self) -> u32 {
        match self {
            HandPace::Careful => 36,
            HandPace::Quick => 139,
            HandPace::Scramble => 206,
        }
    }

    fn name(self) -> &'static str {
        match self {
            HandPace::Careful => "careful",
            HandPace::Quick => "blitz",
            HandPace::Scramble => "time-scramble",
        }
    }
}

/// One capture that showed the two-hands signature.
#[serde_with::serde_as]
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CaptureSignature {
    /// The ply of the capture (1 = White's first move).
    pub ply: u32,
    /// When the later of the two lifts was reported.
    pub t_ms: u64,
    /// How far apart the two lifts were reported.
    pub gap_ms: u64,
    #[serde_as(as = "SquareAs")]
    pub from: Square,
    #[serde_as(as = "SquareAs")]
    pub to: Square,
    /// The mover's clock at the capture, when read.
    pub left_ms: Option<u64>,
    pub pace: HandPace,
}

/// Whether the capture `m` by `mover` showed the signature in the board's reports after
/// `since` up to `until`: the capturer's square and the square of the piece taken both
/// reported emptied, their first such reports within one board report. Only a capture
/// from a square to the square of the piece taken counts (en passant, castling and drops
/// have no such pair), and not a promotion: the pawn's exchange for the new piece is
/// handled otherwise, and its one-handed share was not measured.
pub fn signature_of(
    log: &HandlingLog,
    mover: Color,
    m: &Move,
    since: u64,
    until: u64,
) -> Option<(u64, u64)> {
    let Move::Normal {
        from,
        to,
        capture: Some(_),
        promotion: None,
        ..
    } = *m
    else {
        return None;
    };
    let first_lift = |square: Square, of_mover: bool| {
        log.window(since, until)
            .find(|h| {
                h.square == square
                    && h.after.is_none()
                    && h.before.is_some_and(|p| (p.color == mover) == of_mover)
            })
            .map(|h| h.t_ms)
    };
    let (a, b) = (first_lift(from, true)?, first_lift(to, false)?);
    (a.abs_diff(b) <= ONE_REPORT_MS).then(|| (a.max(b), a.abs_diff(b)))
}

/// What one capture's signature amounts to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Finding {
    /// A single signature (or one more after the review): an `info`.
    Single(CaptureSignature),
    /// The player's signatures in this game reached the review: all of them, in order.
    Pattern(Vec<CaptureSignature>),
}

/// The signatures each player's captures showed in one game (reset with the game).
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct CaptureHands {
    /// White's and Black's signatures, in order.
    seen: [Vec<CaptureSignature>; 2],
    /// Their weight toward a review, in `REVIEW_WEIGHT` units.
    weight: [u32; 2],
    /// The review was raised for this player (once per game).
    reviewed: [bool; 2],
}

impl CaptureHands {
    /// Counts a signature of `mover`'s capture: the review when his signatures reach it for
    /// the first time in the game, else a single one.
    pub fn record(&mut self, mover: Color, s: CaptureSignature) -> Finding {
        let i = usize::from(mover.is_black());
        self.seen[i].push(s);
        self.weight[i] += s.pace.weight();
        if !self.reviewed[i] && self.weight[i] >= REVIEW_WEIGHT {
            self.reviewed[i] = true;
            return Finding::Pattern(self.seen[i].clone());
        }
        Finding::Single(s)
    }

    /// How many captures of `side` showed the signature in this game.
    pub fn count(&self, side: Color) -> usize {
        self.seen[usize::from(side.is_black())].len()
    }
}

/// A clock time as `m:ss`.
fn clock_text(ms: u64) -> String {
    format!("{}:{:02}", ms / 60_000, ms / 1000 % 60)
}

/// One signature as evidence: `ply 12 (d4xe5, 20 ms apart, 4:31 left)`.
fn evidence(s: &CaptureSignature) -> String {
    let left = s
        .left_ms
        .map_or_else(String::new, |ms| format!(", {} left", clock_text(ms)));
    format!(
        "ply {} ({}x{}, {} ms apart at {:.1} s{left})",
        s.ply,
        s.from,
        s.to,
        s.gap_ms,
        s.t_ms as f64 / 1000.0
    )
}

/// The `info` message of a single signature.
pub fn single_message(player: &str, s: &CaptureSignature, count: usize) -> String {
    format!(
        "{player} captured on {} with the capturer and the piece taken leaving the board in one board report, {}: what two hands show, and one hand on about {:.1} % of captures at a {} pace. {count} such capture(s) by {player} in this game.",
        s.to,
        evidence(s),
        s.pace.one_hand_per_mille() as f64 / 10.0,
        s.pace.name(),
    )
}

/// The `review` message of the pattern.
pub fn pattern_message(player: &str, seen: &[CaptureSignature]) -> String {
    let list: Vec<String> = seen.iter().map(evidence).collect();
    format!(
        "{player}'s captures showed what two hands show {} times in this game: {}. One hand shows it on some captures too (3.6 % at a careful pace), rarely this often: watch how {player} captures.",
        seen.len(),
        list.join("; "),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::handling::log_of;
    use shakmaty::{Piece, Role};

    fn sig(ply: u32, pace: HandPace) -> CaptureSignature {
        CaptureSignature {
            ply,
            t_ms: 1000 * u64::from(ply),
            gap_ms: 10,
            from: Square::D4,
            to: Square::E5,
            left_ms: None,
            pace,
        }
    }

    #[test]
    fn the_pace_is_read_from_the_movers_clock_and_the_time_control() {
        assert_eq!(HandPace::of(Some(80_000), Some(true)), HandPace::Scramble);
        assert_eq!(HandPace::of(Some(89_999), None), HandPace::Scramble);
        assert_eq!(HandPace::of(Some(3_000_000), Some(true)), HandPace::Careful);
        assert_eq!(HandPace::of(Some(3_000_000), None), HandPace::Careful);
        // A standard player down to five minutes, a rapid game with time to spare: quick.
        assert_eq!(HandPace::of(Some(300_000), Some(true)), HandPace::Quick);
        assert_eq!(HandPace::of(Some(1_500_000), Some(false)), HandPace::Quick);
        assert_eq!(HandPace::of(Some(170_000), Some(false)), HandPace::Quick);
        // No clock: the time control alone; nothing known is weighed as quick.
        assert_eq!(HandPace::of(None, Some(true)), HandPace::Careful);
        assert_eq!(HandPace::of(None, Some(false)), HandPace::Quick);
        assert_eq!(HandPace::of(None, None), HandPace::Quick);
    }

    #[test]
    fn the_review_comes_at_the_paces_count_once_per_player_and_game() {
        for (pace, n) in [(HandPace::Careful, 4)] {
            let mut hands = CaptureHands::default();
            for ply in 1..n {
                assert!(matches!(
                    hands.record(Color::White, sig(2 * ply - 1, pace)),
                    Finding::Single(_)
                ));
                // The other player's signatures are his own count.
                hands.record(Color::Black, sig(2 * ply, pace));
            }
            match hands.record(Color::White, sig(99, pace)) {
                Finding::Pattern(seen) => {
                    assert_eq!(seen.len(), n as usize, "{pace:?}");
                    assert_eq!(seen.last().map(|s| s.ply), Some(99));
                }
                f => panic!("{pace:?}: {f:?}"),
            }
            // Once per game: the next is a single one again.
            assert!(matches!(
                hands.record(Color::White, sig(101, pace)),
                Finding::Single(_)
            ));
            assert_eq!(hands.count(Color::White), n as usize + 1);
            assert_eq!(hands.count(Color::Black), n as usize - 1);
        }
    }

    #[test]
    fn at_blitz_or_in_a_time_scramble_no_count_makes_a_pattern() {
        for pace in [HandPace::Quick, HandPace::Scramble] {
            let mut hands = CaptureHands::default();
            for ply in 0..40 {
                assert!(matches!(
                    hands.record(Color::White, sig(2 * ply + 1, pace)),
                    Finding::Single(_)
                ));
            }
            assert_eq!(hands.count(Color::White), 40);
        }
    }

    #[test]
    fn a_game_whose_pace_changes_counts_its_careful_signatures() {
        // Three careful, then any number at blitz or in a scramble: short of a review; a
        // fourth careful one makes it.
        let mut hands = CaptureHands::default();
        for (ply, pace) in [
            (3, HandPace::Careful),
            (9, HandPace::Careful),
            (15, HandPace::Careful),
            (41, HandPace::Quick),
            (45, HandPace::Quick),
            (71, HandPace::Scramble),
            (75, HandPace::Scramble),
        ] {
            assert!(matches!(
                hands.record(Color::White, sig(ply, pace)),
                Finding::Single(_)
            ));
        }
        assert!(matches!(
            hands.record(Color::White, sig(85, HandPace::Careful)),
            Finding::Pattern(_)
        ));
    }

    fn capture() -> Move {
        Move::Normal {
            role: Role::Pawn,
            from: Square::D4,
            capture: Some(Role::Pawn),
            to: Square::E5,
            promotion: None,
        }
    }

    #[test]
    fn the_signature_is_both_lifts_in_one_board_report() {
        let wp = Some(Piece {
            color: Color::White,
            role: Role::Pawn,
        });
        let bp = Some(Piece {
            color: Color::Black,
            role: Role::Pawn,
        });
        // Both squares emptied in one report (two hands, or one hand fast enough).
        let log = log_of(&[
            (1000, Square::E5, bp, None),
            (1005, Square::D4, wp, None),
            (1230, Square::E5, None, wp),
        ]);
        assert_eq!(
            signature_of(&log, Color::White, &capture(), 0, 2000),
            Some((1005, 5))
        );
        // A scan apart: one hand, the capturer lifted first.
        let log = log_of(&[
            (1000, Square::D4, wp, None),
            (1230, Square::E5, bp, None),
            (1460, Square::E5, None, wp),
        ]);
        assert_eq!(signature_of(&log, Color::White, &capture(), 0, 2000), None);
        // The piece taken replaced by the capturer within one scan: no lift of it seen.
        let log = log_of(&[(1000, Square::D4, wp, None), (1230, Square::E5, bp, wp)]);
        assert_eq!(signature_of(&log, Color::White, &capture(), 0, 2000), None);
        // Lifts before the window (the previous move's) do not count.
        let log = log_of(&[
            (1000, Square::E5, bp, None),
            (1005, Square::D4, wp, None),
            (1230, Square::E5, None, wp),
        ]);
        assert_eq!(
            signature_of(&log, Color::White, &capture(), 1100, 2000),
            None
        );
        // A promotion with a capture is not read (its share for one hand is not measured).
        let promotion = Move::Normal {
            role: Role::Pawn,
            from: Square::D4,
            capture: Some(Role::Pawn),
            to: Square::E5,
            promotion: Some(Role::Queen),
        };
        let both = log_of(&[(1000, Square::E5, bp, None), (1005, Square::D4, wp, None)]);
        assert_eq!(signature_of(&both, Color::White, &promotion, 0, 2000), None);
        // Not a capture: nothing to read.
        let quiet = Move::Normal {
            role: Role::Pawn,
            from: Square::D4,
            capture: None,
            to: Square::D5,
            promotion: None,
        };
        assert_eq!(signature_of(&log, Color::White, &quiet, 0, 2000), None);
    }

    #[test]
    fn the_messages_give_the_evidence() {
        let mut s = sig(12, HandPace::Quick);
        s.left_ms = Some(271_000);
        let m = single_message("White", &s, 1);
        assert!(
            m.contains("ply 12 (d4xe5, 10 ms apart at 12.0 s, 4:31 left)"),
            "{m}"
        );
        assert!(m.contains("13.9 %"), "{m}");
        let m = pattern_message("Black", &[sig(4, HandPace::Careful), s]);
        assert!(m.contains("2 times"), "{m}");
        assert!(m.contains("ply 4 (d4xe5"), "{m}");
        assert!(m.contains("ply 12 (d4xe5"), "{m}");
    }
}
