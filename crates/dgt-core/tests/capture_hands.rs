//! Two-handed captures as far as the board can show them (4.1): the capturer and the piece
//! taken reported lifted in one board report is what two hands show (and a quick hand, at
//! times). A single one is an `info`; one player's captures showing it four times in a game
//! at a careful pace a `review`; at blitz and in a time scramble `info` only
//! (docs/bughouse.md).

mod common;

use common::*;
use dgt_core::verdict::HandsVerdict;
use dgt_core::{AlertKind, Severity};
use shakmaty::Color;

/// White's rook takes the black pawns on the fifth rank from h5 to c5, Black's king steps
/// between a8 and a7; a standard game (90 min + 30 s) with `secs` on both clocks.
const FEN: &str = "k7/8/8/pppppppp/8/8/8/K6R w - - 0 1";
const CAPTURES: [(&str, &str); 6] = [
    ("h1", "h5"),
    ("h5", "g5"),
    ("g5", "f5"),
    ("f5", "e5"),
    ("e5", "d5"),
    ("d5", "c5"),
];

/// How a capture is handled.
#[derive(Clone, Copy, PartialEq)]
enum Hands {
    /// Both pieces lifted in one scan: one board report shows both squares empty.
    Two,
    /// The capturer lifted, the piece taken off a scan later: two reports.
    OneQuick,
}

fn capture(b: &mut Board, from: &str, to: &str, hands: Hands) {
    match hands {
        Hands::Two => {
            let (f, t) = (b.phys(from), b.phys(to));
            b.rx(vec![0x8E, 0, 5, f, 0, 0x8E, 0, 5, t, 0]);
            b.wait(230).put(to, 'R');
        }
        Hands::OneQuick => {
            b.lift(from).wait(150).lift(to).wait(150).put(to, 'R');
        }
    }
    b.wait(250).press().wait(300);
}

/// The rook's captures (`hands` for each), Black's king replying, on clocks at `secs`.
fn rook_captures(hands: &[Hands], secs: u64) -> Vec<dgt_core::Event> {
    let mut b = game_from(FEN, "fide-2023", "5400+30", "full", secs);
    for (i, (&(from, to), &h)) in CAPTURES.iter().zip(hands).enumerate() {
        capture(&mut b, from, to, h);
        let (kf, kt) = if i % 2 == 0 {
            ("a8", "a7")
        } else {
            ("a7", "a8")
        };
        b.play(&[(kf, kt, 'k')]);
    }
    let ev = b.run();
    let expected: Vec<String> = CAPTURES
        .iter()
        .take(hands.len())
        .enumerate()
        .flat_map(|(i, (f, t))| {
            let king = if i % 2 == 0 { "a8a7" } else { "a7a8" };
            [format!("{f}{t}"), king.to_string()]
        })
        .collect();
    assert_eq!(moves(&ev), expected);
    ev
}

#[test]
fn a_player_capturing_with_two_hands_again_and_again_gets_a_review() {
    let ev = rook_captures(&[Hands::Two; 4], 5400);
    let raised = alert_of(&ev, AlertKind::TwoHandedMove);
    let severities: Vec<Severity> = raised.iter().map(|a| a.severity).collect();
    // Three single ones, then the pattern at the fourth (a careful pace).
    assert_eq!(
        severities,
        [
            Severity::Info,
            Severity::Info,
            Severity::Info,
            Severity::Review
        ]
    );
    let review = &raised[3];
    assert_eq!(review.side, Some(dgt_core::Side::White));
    assert_eq!(review.article.as_deref(), Some("4.1"));
    assert_eq!(review.ply, Some(7));
    assert_eq!(review.squares, ["h5", "g5", "f5", "e5"]);
    // The evidence: how many, which plies, how far apart the lifts.
    let HandsVerdict::CapturePattern {
        player,
        seen,
        offence,
    } = hands_verdict(review)
    else {
        panic!("not a pattern: {review:?}");
    };
    assert_eq!((*player, offence.as_str()), (Color::White, "7.5.4"));
    let evidence: Vec<(u32, String, String, u64)> = seen
        .iter()
        .map(|s| (s.ply, s.from.to_string(), s.to.to_string(), s.gap_ms))
        .collect();
    assert_eq!(
        evidence,
        [
            (1, "h1".into(), "h5".into(), 0),
            (3, "h5".into(), "g5".into(), 0),
            (5, "g5".into(), "f5".into(), 0),
            (7, "f5".into(), "e5".into(), 0)
        ]
    );
}

#[test]
fn a_single_capture_with_both_lifts_in_one_report_is_an_info() {
    let ev = rook_captures(
        &[
            Hands::OneQuick,
            Hands::Two,
            Hands::OneQuick,
            Hands::OneQuick,
        ],
        5400,
    );
    let a = one(&ev, AlertKind::TwoHandedMove);
    assert_eq!(a.severity, Severity::Info);
    assert_eq!(a.ply, Some(3));
    assert_eq!(a.article.as_deref(), Some("4.1"));
    assert_eq!(a.squares, ["h5", "g5"]);
    let HandsVerdict::CaptureSeen {
        signature, count, ..
    } = hands_verdict(&a)
    else {
        panic!("not a single capture: {a:?}");
    };
    assert_eq!(
        (
            signature.ply,
            signature.to.to_string(),
            signature.gap_ms,
            *count
        ),
        (3, "g5".into(), 0, 1)
    );
}

#[test]
fn fast_one_handed_captures_raise_nothing() {
    let ev = rook_captures(&[Hands::OneQuick; 6], 5400);
    assert!(
        alert_of(&ev, AlertKind::TwoHandedMove).is_empty(),
        "{:?}",
        alerts(&ev)
    );
}

#[test]
fn in_a_time_scramble_four_such_captures_are_no_pattern() {
    // Under 90 s one hand shows the signature on a fifth of its captures: no count makes a
    // pattern there.
    let ev = rook_captures(&[Hands::Two; 6], 80);
    let raised = alert_of(&ev, AlertKind::TwoHandedMove);
    assert_eq!(raised.len(), 6);
    assert!(
        raised.iter().all(|a| a.severity == Severity::Info),
        "{raised:?}"
    );
}

#[test]
fn at_blitz_six_such_captures_are_no_pattern() {
    // With under ten minutes on the clock one hand shows the signature on a seventh of its
    // captures: a review there would cost more false reviews than the budget allows.
    let ev = rook_captures(&[Hands::Two; 6], 170);
    let raised = alert_of(&ev, AlertKind::TwoHandedMove);
    assert_eq!(raised.len(), 6);
    assert!(
        raised.iter().all(|a| a.severity == Severity::Info),
        "{raised:?}"
    );
}
