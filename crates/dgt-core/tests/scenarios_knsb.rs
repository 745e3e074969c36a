//! The supplementary cases of the KNSB arbiter handbook (`spec/knsb-arbiter-handbook.md`
//! §4.1, items 1–20, listed as KNSB-01…20 in `docs/scenarios.md`), played as the bytes a DGT
//! board and clock send. The handbook follows the Laws of 1 January 2018: fide-2018 first.

mod common;

use common::*;
use dgt_core::verdict::{
    AdoptedIllegalMove, Article, HandsVerdict, OffenceDecision, Remedy, Replacement,
};
use dgt_core::{AlertKind, EventBody, Severity, Side};
use shakmaty::{Color, Square};

/// The clocks a move event carries, by ply.
fn move_clocks(ev: &[dgt_core::Event], ply: u32) -> (Option<u64>, Option<u64>) {
    ev.iter()
        .rev()
        .find_map(|e| match &e.body {
            EventBody::Move(m) if m.ply == ply => Some((m.white_ms, m.black_ms)),
            _ => None,
        })
        .unwrap()
}

/// KNSB-01: an illegal move (here at move 2) found some moves later: the proposal is the
/// exact position before it and the clock times logged there (7.1), not an estimate.
#[test]
fn knsb_01_illegal_move_found_later_restores_the_logged_position_and_clocks() {
    let mut b = game("fide-2018", "5400", 5400);
    b.play(&[("e2", "e4", 'P'), ("e7", "e5", 'p')]);
    b.tick().tick().tick();
    b.play(&[("g1", "f3", 'N')]);
    b.tick().tick();
    b.mv("g8", "g5", 'n').wait(250).press().wait(900);
    b.play(&[("f1", "c4", 'B'), ("b8", "c6", 'n'), ("d2", "d3", 'P')]);
    // Found now: the arbiter puts the position after 2.Nf3 back on the board.
    b.mv("d3", "d2", 'P')
        .mv("c6", "b8", 'n')
        .mv("c4", "f1", 'B')
        .mv("g5", "g8", 'n')
        .wait(900);
    b.play(&[("b8", "c6", 'n')]);
    let ev = b.run();
    let logged = move_clocks(&ev, 3);
    assert_eq!(logged, (Some(5_397_000), Some(5_400_000)));
    let all = alert_of(&ev, AlertKind::IllegalMove);
    assert_eq!(all[0].severity, Severity::Intervene);
    assert_eq!(
        (all[0].ply, all[0].white_ms, all[0].black_ms),
        (Some(4), logged.0, logged.1)
    );
    // Play went on: the position must still be reinstated.
    assert!(
        matches!(adopted(&all[1]), AdoptedIllegalMove::Reinstate { .. }),
        "{all:?}"
    );
    let r = alert_of(&ev, AlertKind::PositionRestored);
    let r = r.last().unwrap();
    assert_eq!(r.ply, Some(3));
    assert_eq!((r.white_ms, r.black_ms), logged, "{r:?}");
    // Tracking goes on from the reinstated position.
    assert_eq!(moves(&ev), ["e2e4", "e7e5", "g1f3", "b8c6"]);
}

/// KNSB-02: after the game has ended nothing is restored; and a game-ending move that was
/// itself illegal ends nothing: the pinned knight's "smothered mate" Nf7 is an illegal move.
#[test]
fn knsb_02_illegal_moves_and_the_end_of_the_game() {
    let mut b = game("fide-2018", "300", 300);
    b.play(&[
        ("e2", "e4", 'P'),
        ("e7", "e5", 'p'),
        ("f1", "c4", 'B'),
        ("b8", "c6", 'n'),
        ("d1", "h5", 'Q'),
        ("g8", "f6", 'n'),
    ]);
    b.lift("f7")
        .wait(300)
        .mv("h5", "f7", 'Q')
        .wait(600)
        .press()
        .wait(600);
    b.mv("e8", "e6", 'k').wait(250).press().wait(5000);
    let ev = b.run();
    assert_eq!(alerts(&ev), [AlertKind::Checkmate]);
    assert_eq!(ends(&ev), [("1-0".to_string(), "checkmate".to_string())]);

    for edition in EDITIONS {
        let mut b = game_from(
            "6rk/6pp/7b/6N1/8/8/8/2K5 w - - 0 1",
            edition,
            "5400",
            "full",
            5400,
        );
        b.mv("g5", "f7", 'N').wait(250).press().wait(900);
        let ev = b.run();
        let a = one(&ev, AlertKind::IllegalMove);
        assert_eq!(a.severity, Severity::Intervene);
        assert!(!alerts(&ev).contains(&AlertKind::Checkmate));
        assert!(ends(&ev).is_empty(), "{edition}");
    }
}

/// KNSB-03: the clock pressed with a pawn on the 8th rank: replaced by a queen, +2 min (blitz
/// +1), and it counts towards the second illegal move, which loses (7.5.2, 7.5.5).
#[test]
fn knsb_03_pawn_left_on_the_last_rank_counts() {
    for (tc, minutes) in [("5400", 2), ("180+2", 1)] {
        let mut b = game_from(
            "6k1/3P4/8/8/8/8/r7/4K3 w - - 0 1",
            "fide-2018",
            tc,
            "full",
            900,
        );
        b.mv("d7", "d8", 'P').wait(250).press().wait(900);
        // The arbiter replaces the pawn by a queen; Black's clock runs.
        b.lift("d8").put("d8", 'Q').wait(900);
        b.play(&[("g8", "g7", 'k')]);
        b.mv("e1", "e3", 'K').wait(250).press().wait(900);
        let ev = b.run();
        let p = one(&ev, AlertKind::PromotionIncomplete);
        assert_eq!((p.severity, article(&p)), (Severity::Intervene, "7.5.2"));
        let v = offence_verdict(&p);
        assert_eq!(
            (v.number, v.remedy, v.article, time_to_opponent(v)),
            (
                1,
                dgt_core::verdict::Remedy::QueenForPawn {
                    article: dgt_core::verdict::Article::new("7.5.2")
                },
                dgt_core::verdict::Article::new("7.5.5"),
                Some(minutes * 60_000)
            ),
            "{tc}"
        );
        assert_eq!(v.opponent(), shakmaty::Color::Black);
        assert_eq!(moves(&ev), ["d7d8q", "g8g7"]);
        let second = one(&ev, AlertKind::IllegalMove);
        let v = offence_verdict(&second);
        assert_eq!(
            (v.number, v.offender, v.decision, v.article),
            (
                2,
                shakmaty::Color::White,
                dgt_core::verdict::OffenceDecision::Loses,
                dgt_core::verdict::Article::new("7.5.5")
            ),
            "{second:?}"
        );
    }
}

/// KNSB-04: a press without a move is an illegal move (7.5.3) and counts with the others
/// (7.5.5); a possible two-handed castling is a suspicion for review (7.5.4) and is not
/// counted without the arbiter.
#[test]
fn knsb_04_press_without_a_move_counts_two_hands_only_on_confirmation() {
    let mut b = game_from(
        "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1",
        "fide-2018",
        "5400",
        "full",
        5400,
    );
    b.lift("e1");
    b.t -= 40;
    b.lift("h1")
        .wait(300)
        .put("g1", 'K')
        .put("f1", 'R')
        .wait(250)
        .press()
        .wait(900);
    b.play(&[("a7", "a6", 'p')]);
    b.press().wait(900); // White presses without a move
    b.set_running(Some(false)).wait(300);
    b.play(&[("a2", "a3", 'P'), ("a6", "a5", 'p')]);
    b.press().wait(900); // and again
    let ev = b.run();
    let two = one(&ev, AlertKind::TwoHandedMove);
    assert_eq!((two.severity, article(&two)), (Severity::Review, "7.5.4"));
    let p = alert_of(&ev, AlertKind::ClockPressedWithoutMove);
    assert_eq!(p.len(), 2);
    assert_eq!(
        (p[0].severity, article(&p[0])),
        (Severity::Intervene, "7.5.3")
    );
    // The two-handed castling was not counted: the first press is offence number 1.
    let (first, second) = (offence_verdict(&p[0]), offence_verdict(&p[1]));
    assert_eq!((first.offender, first.number), (Color::White, 1), "{p:?}");
    assert!(matches!(
        first.decision,
        OffenceDecision::TimeToOpponent { loses_at: 2, .. }
    ));
    assert_eq!(
        (second.number, second.article, second.decision),
        (
            2,
            dgt_core::verdict::Article::new("7.5.5"),
            OffenceDecision::Loses
        ),
        "{p:?}"
    );
}

/// KNSB-05: after an illegal move is taken back, the replacement move must be made with the
/// same piece if it can move legally (7.5.1 → 4.3): another piece moved is a touch-move
/// matter for review — no announced adjustment excuses a piece that made an illegal move;
/// the same piece moved is not.
#[test]
fn knsb_05_replacement_move_with_another_piece() {
    for (reply, expected) in [(("d7", "d6", 'p'), true), (("b8", "c6", 'n'), false)] {
        let mut b = game("fide-2018", "5400", 5400);
        b.play(&[("e2", "e4", 'P'), ("e7", "e5", 'p'), ("g1", "f3", 'N')]);
        illegal_and_back(&mut b, "b8", "b5", 'n');
        b.play(&[reply]);
        let ev = b.run();
        let illegal = one(&ev, AlertKind::IllegalMove);
        assert_eq!(
            offence_verdict(&illegal).remedy,
            Remedy::Restore {
                article: Article::new("7.5.1"),
                replacement: Replacement::WithPiece {
                    square: Square::B8,
                    article: Article::new("4.3.1")
                }
            }
        );
        let t = alert_of(&ev, AlertKind::TouchMove);
        if expected {
            assert_eq!(t.len(), 1, "{:?}", alerts(&ev));
            assert_eq!((t[0].severity, article(&t[0])), (Severity::Review, "4.3.1"));
            assert_eq!((t[0].side, t[0].ply), (Some(Side::Black), Some(4)));
            // The knight went back to b8 and another piece moved (4.3.1).
            assert_eq!(
                hands_verdict(&t[0]),
                &HandsVerdict::IllegalMovePieceNotReplaced {
                    mover: Color::Black,
                    square: Square::B8
                }
            );
        } else {
            assert!(t.is_empty(), "{t:?}");
        }
        assert_eq!(moves(&ev).len(), 4);
    }
}

/// KNSB-07: a piece knocked over while moving, the clock pressed, then the piece set right:
/// the move stands, no illegal move; an `illegal_position` only if it lasts.
#[test]
fn knsb_07_knocked_over_piece_with_the_press() {
    for lasts in [false, true] {
        let mut b = game("fide-2018", "5400", 5400);
        b.play(&[("e2", "e4", 'P'), ("e7", "e5", 'p')]);
        b.mv("g1", "f3", 'N').wait(400);
        b.lift("a2")
            .wait(200)
            .press()
            .wait(if lasts { 5000 } else { 1500 });
        b.put("a2", 'P').wait(900);
        b.play(&[("b8", "c6", 'n')]);
        let ev = b.run();
        assert_eq!(moves(&ev), ["e2e4", "e7e5", "g1f3", "b8c6"], "{lasts}");
        assert!(
            !alerts(&ev).contains(&AlertKind::IllegalMove),
            "{:?}",
            alerts(&ev)
        );
        if lasts {
            let p = one(&ev, AlertKind::IllegalPosition);
            assert_eq!(
                (p.severity, p.squares.clone()),
                (Severity::Review, vec!["a2".to_string()])
            );
            let r = one(&ev, AlertKind::PositionRestored);
            assert_eq!(r.severity, Severity::Info);
        } else {
            assert!(alerts(&ev).is_empty(), "{:?}", alerts(&ev));
        }
    }
}

/// KNSB-09: the table is bumped, five pieces fall, White puts them back (no "j'adoube") and
/// then plays: pieces put back on their squares after a displacement are no touch-move.
#[test]
fn knsb_09_pieces_knocked_over_and_put_back_are_no_touch_move() {
    for off_ms in [1500, 5000] {
        let mut b = game("fide-2018", "5400", 5400);
        b.play(&[("e2", "e4", 'P'), ("e7", "e5", 'p')]);
        for sq in ["c2", "d2", "b1", "f7", "g7"] {
            b.lift(sq);
        }
        b.wait(off_ms);
        for (sq, p) in [
            ("c2", 'P'),
            ("d2", 'P'),
            ("b1", 'N'),
            ("f7", 'p'),
            ("g7", 'p'),
        ] {
            b.put(sq, p).wait(300);
        }
        b.wait(600);
        b.play(&[("g1", "f3", 'N')]);
        let ev = b.run();
        assert_eq!(moves(&ev), ["e2e4", "e7e5", "g1f3"]);
        assert!(
            !alerts(&ev).contains(&AlertKind::TouchMove),
            "{off_ms}: {:?}",
            alerts(&ev)
        );
        if off_ms > 3000 {
            assert_eq!(
                one(&ev, AlertKind::IllegalPosition).severity,
                Severity::Review
            );
            assert_eq!(
                one(&ev, AlertKind::PositionRestored).severity,
                Severity::Info
            );
        }
    }
}

/// KNSB-10: the dead-position catalogue, reached by a capture, in blitz too: K v K, K+N v K,
/// K+B v K+B with the bishops on one colour, and a locked pawn wall.
#[test]
fn knsb_10_dead_positions_end_the_game_at_once() {
    let cases = [
        ("8/8/8/8/3n4/4K3/8/6k1 w - - 0 1", "e3", "d4", 'K'),
        ("k7/8/8/8/3p4/4K3/5N2/8 w - - 0 1", "e3", "d4", 'K'),
        ("k7/8/8/8/3p4/4K3/8/1b3B2 w - - 0 1", "e3", "d4", 'K'),
        (
            "8/8/1k6/p1p1p1p1/P1P1P1P1/3n4/4K3/8 w - - 0 1",
            "e2",
            "d3",
            'K',
        ),
    ];
    for (fen, from, to, piece) in cases {
        for tc in ["5400", "180"] {
            let mut b = game_from(fen, "fide-2018", tc, "full", 180);
            b.lift(to).mv(from, to, piece).wait(900);
            let ev = b.run();
            let a = one(&ev, AlertKind::DeadPosition);
            assert_eq!(
                (a.severity, article(&a)),
                (Severity::Info, "5.2.2"),
                "{fen}"
            );
            assert_eq!(
                ends(&ev),
                [("1/2-1/2".to_string(), "dead_position".to_string())]
            );
        }
    }
}

/// KNSB-12: both flags down with the order unknown (both at zero in one reading): drawn;
/// with the order known the first flag decides.
#[test]
fn knsb_12_both_flags_order_unknown_or_known() {
    let mut b = game("fide-2018", "5400", 5400);
    b.play(&[("e2", "e4", 'P'), ("e7", "e5", 'p')]);
    b.flags = (0x10, 0x10);
    b.clock = Some((0, 0, None));
    b.reading();
    b.wait(300);
    let ev = b.run();
    let a = one(&ev, AlertKind::BothFlagsFallen);
    assert_eq!(a.severity, Severity::Intervene);
    assert_eq!(
        ends(&ev),
        [("1/2-1/2".to_string(), "both_flags_fallen".to_string())]
    );
    assert!(!alerts(&ev).contains(&AlertKind::FlagFall));

    let mut b = game("fide-2018", "5400", 5400);
    b.play(&[("e2", "e4", 'P')]);
    b.flag(false, true).wait(300);
    b.flags.0 = 0x10;
    b.reading();
    let ev = b.run();
    assert_eq!(one(&ev, AlertKind::FlagFall).side, Some(Side::Black));
    assert_eq!(ends(&ev), [("1-0".to_string(), "flag_fall".to_string())]);
}

/// KNSB-13: fivefold repetition and 75 moves end the game without a claim (9.6.1, 9.6.2).
#[test]
fn knsb_13_fivefold_and_seventy_five_moves() {
    let mut b = started();
    b.op(r#"{"setup": {"edition": "fide-2018"}}"#);
    make(&mut b, &["g1f3N", "g8f6n", "f3g1N", "f6g8n"].repeat(4));
    let ev = b.run();
    let a = one(&ev, AlertKind::FivefoldRepetition);
    assert_eq!((a.severity, article(&a)), (Severity::Info, "9.6.1"));
    assert_eq!(
        ends(&ev),
        [("1/2-1/2".to_string(), "fivefold_repetition".to_string())]
    );

    let mut b = Board::from_fen(
        "8/8/4k3/8/8/3K4/8/R7 w - - 149 150",
        r#""edition": "fide-2018""#,
    );
    b.mv("a1", "a2", 'R').wait(600);
    let ev = b.run();
    let a = one(&ev, AlertKind::SeventyFiveMoveRule);
    assert_eq!(
        (a.severity, article(&a), a.ply),
        (Severity::Info, "9.6.2", Some(1))
    );
    assert_eq!(
        ends(&ev),
        [("1/2-1/2".to_string(), "seventy_five_move_rule".to_string())]
    );
}

/// KNSB-18: 1:30/40 + 30 min: nothing happens at Black's 40th move; the time control is
/// checked at the first flag (6.4).
#[test]
fn knsb_18_the_time_control_is_checked_at_the_flag() {
    const FEN: &str = "4k3/8/8/8/8/8/r7/R3K3 w - - 0 1";
    let walk = quiet_walk(FEN, 80);
    let mut b = game_from(FEN, "fide-2018", "40/5400:1800", "full", 5400);
    b.play_walk(&walk);
    let at_40 = b.run();
    assert_eq!(moves(&at_40).len(), 80);
    assert!(alerts(&at_40).is_empty(), "{:?}", alerts(&at_40));
    b.flag(true, false).wait(300);
    let ev = b.run();
    let a = one(&ev, AlertKind::FlagFall);
    assert_eq!((a.severity, article(&a)), (Severity::Info, "6.4"));
    assert!(ends(&ev).is_empty());
}

/// KNSB-15: Bronstein arithmetic — 5 min with a 10 s delay: a move made in 12 s costs 2 s
/// (the clock gives back the 10 s of delay), one made in 8 s costs nothing. A clock that
/// gives the time back matches the model: no alert. One that gives nothing back is set
/// wrongly: `clock_setting_mismatch` / review after three such presses by one player.
#[test]
fn knsb_15_bronstein_delay_given_back_or_not() {
    let script = [
        ("e2", "e4", 'P'),
        ("e7", "e5", 'p'),
        ("g1", "f3", 'N'),
        ("b8", "c6", 'n'),
        ("f1", "c4", 'B'),
        ("g8", "f6", 'n'),
        ("d2", "d3", 'P'),
    ];
    let play = |gives_back: bool| {
        let mut b = game("fide-2023", "300d10", 300);
        for (i, (f, t, p)) in script.into_iter().enumerate() {
            let used = if i % 4 < 2 { 12 } else { 8 };
            b.wait(used * 1000 - 600);
            if let Some((l, r, Some(right_runs))) = &mut b.clock {
                let clock = if *right_runs { r } else { l };
                *clock -= used;
                b.reading();
            }
            b.mv(f, t, p).wait(250);
            if let Some((l, r, Some(right_runs))) = &mut b.clock
                && gives_back
            {
                let clock = if *right_runs { r } else { l };
                *clock += used.min(10);
            }
            b.press().wait(300);
        }
        b.run()
    };
    let ev = play(true);
    assert_eq!(moves(&ev).len(), script.len());
    assert!(alert_of(&ev, AlertKind::ClockSettingMismatch).is_empty());
    let ev = play(false);
    let a = one(&ev, AlertKind::ClockSettingMismatch);
    assert_eq!(a.severity, Severity::Review);
    assert!(
        matches!(
            setting_mismatch(&a),
            dgt_core::verdict::SettingMismatch::NoTimeBack {
                presses: 3,
                bonus: dgt_core::time_control::Bonus::Bronstein(10_000),
                ..
            }
        ),
        "{a:?}"
    );
    assert_eq!(
        clock_verdict(&a),
        dgt_core::verdict::ClockVerdict::InstallCorrectSetting {
            article: dgt_core::verdict::Article::new("6.10.2")
        }
    );
}
