//! Board-handling scenarios as byte streams through the core: what a real board reports when
//! players slide, capture in either order, castle, promote, reply before the press, knock a
//! piece over, signal a result — and what the core must make of it.

mod common;

use common::*;
use dgt_core::capture::parse_capture;
use dgt_core::event::Orientation;
use dgt_core::verdict::{AdoptedIllegalMove, Article, ClockVerdict, OffenceDecision};
use dgt_core::{AlertKind, Event, EventBody, GameResult, Operation, Severity};
use shakmaty::Color;

#[test]
fn a_quick_slide_is_one_move() {
    let mut b = started();
    b.lift("e2")
        .put("e3", 'P')
        .lift("e3")
        .put("e4", 'P')
        .wait(400);
    let ev = b.run();
    assert_eq!(moves(&ev), ["e2e4"]);
    assert_eq!(move_events(&ev), 1);
}

#[test]
fn a_slide_that_looked_settled_is_corrected() {
    let mut b = started();
    b.lift("e2")
        .put("e3", 'P')
        .wait(600)
        .lift("e3")
        .put("e4", 'P')
        .wait(400);
    let ev = b.run();
    assert_eq!(moves(&ev), ["e2e4"]);
    assert_eq!(move_events(&ev), 2, "e3 settled, then a correction");
}

#[test]
fn a_press_completes_the_move_and_stops_slide_corrections() {
    let mut b = started();
    b.start_clock(300).wait(300);
    // The rook-like slide with a long pause is not taken until the press.
    b.lift("e2")
        .put("e3", 'P')
        .wait(900)
        .tick()
        .lift("e3")
        .put("e4", 'P')
        .wait(300)
        .press();
    let ev = b.run();
    assert_eq!(moves(&ev), ["e2e4"]);
    assert_eq!(move_events(&ev), 1);
}

#[test]
fn captures_in_either_order() {
    let mut b = started();
    b.mv("e2", "e4", 'P')
        .wait(400)
        .mv("d7", "d5", 'p')
        .wait(400);
    // captured piece first
    b.lift("d5").mv("e4", "d5", 'P').wait(400);
    // own piece first, the captured piece's removal never reported
    b.lift("d8").put("d5", 'q').wait(400);
    let ev = b.run();
    assert_eq!(moves(&ev), ["e2e4", "d7d5", "e4d5", "d8d5"]);
}

#[test]
fn castling_king_first_or_rook_first() {
    let mut b = started();
    for (f, t, p) in [
        ("e2", "e4", 'P'),
        ("e7", "e5", 'p'),
        ("g1", "f3", 'N'),
        ("b8", "c6", 'n'),
        ("f1", "c4", 'B'),
        ("f8", "c5", 'b'),
        ("d2", "d3", 'P'),
        ("g8", "f6", 'n'),
    ] {
        b.mv(f, t, p).wait(400);
    }
    b.mv("e1", "g1", 'K').mv("h1", "f1", 'R').wait(400); // king first
    b.mv("h8", "f8", 'r').mv("e8", "g8", 'k').wait(400); // rook first (Rf8 alone is legal)
    let ev = b.run();
    assert_eq!(&moves(&ev)[8..], ["e1g1", "e8g8"]);
    let a = alerts(&ev);
    assert_eq!(
        a.iter()
            .filter(|k| **k == AlertKind::CastlingRookFirst)
            .count(),
        1,
        "{a:?}"
    );
    assert!(!a.contains(&AlertKind::TwoHandedMove), "{a:?}");
}

/// Time-scramble seeds 6 and 15: Black lifts the rook, or moves it to f8, in the
/// same scan that reports White's pawn landing on d3, and the king a scan later. The board
/// never showed the position after d3 alone, so the castling's handling is read from the
/// pawn's landing, not from when White's move was taken: the rook was first (4.4.2).
#[test]
fn castling_begun_with_the_rook_in_the_scan_of_the_opponents_move_is_seen() {
    let mut b = game("fide-2023", "60+1", 60);
    b.play(&[
        ("e2", "e4", 'P'),
        ("e7", "e5", 'p'),
        ("g1", "f3", 'N'),
        ("b8", "c6", 'n'),
        ("f1", "c4", 'B'),
        ("f8", "c5", 'b'),
        ("b1", "c3", 'N'),
        ("g8", "f6", 'n'),
    ]);
    b.mv("d2", "d3", 'P').wait(5);
    b.lift("h8").wait(5).put("f8", 'r').wait(45).press();
    b.wait(180)
        .lift("e8")
        .wait(5)
        .put("g8", 'k')
        .wait(100)
        .press()
        .wait(1000);
    let ev = b.run();
    assert_eq!(&moves(&ev)[8..], ["d2d3", "e8g8"]);
    let a = alerts(&ev);
    assert!(a.contains(&AlertKind::CastlingRookFirst), "{a:?}");
    assert!(!a.contains(&AlertKind::TwoHandedMove), "{a:?}");
}

/// White takes en passant, putting the pawn on d6 first and removing Black's d5 pawn after;
/// Black then castles beginning with the rook. The d5 pawn taken off is part of White's
/// move, not Black's handling: the castling is still rook first.
#[test]
fn castling_begun_with_the_rook_after_an_en_passant_removed_after_is_seen() {
    let mut b = game_from(
        "r3k2r/ppp2ppp/8/3pP3/8/8/PPPP1PPP/R3K2R w KQkq d6 0 1",
        "fide-2023",
        "5400+30",
        "full",
        5400,
    );
    b.lift("e5")
        .wait(200)
        .put("d6", 'P')
        .wait(600)
        .lift("d5")
        .wait(300)
        .press();
    b.wait(2000).lift("h8").wait(250).put("f8", 'r').wait(400);
    b.lift("e8")
        .wait(250)
        .put("g8", 'k')
        .wait(300)
        .press()
        .wait(1000);
    let ev = b.run();
    assert_eq!(moves(&ev), ["e5d6", "e8g8"]);
    let a = alerts(&ev);
    assert!(a.contains(&AlertKind::CastlingRookFirst), "{a:?}");
}

/// In a time scramble, Black's move and White's whole castling (king first) reported in
/// one scan, the squares filled listed before the squares emptied. The castling's handling
/// is read from Black's last square, but the king and rook put down in that
/// same report still show they were not off the board together: no two-hands suspicion.
#[test]
fn a_castling_reported_in_the_scan_of_the_opponents_move_is_not_two_handed() {
    let mut b = game("fide-2023", "60+1", 60);
    b.play(&[
        ("e2", "e4", 'P'),
        ("e7", "e5", 'p'),
        ("g1", "f3", 'N'),
        ("b8", "c6", 'n'),
        ("f1", "c4", 'B'),
        ("f8", "c5", 'b'),
        ("d2", "d3", 'P'),
    ]);
    b.press().wait(250);
    // One report: its squares ~5 ms apart (the helpers' lift/put take 80 ms each).
    for (sq, piece) in [
        ("a6", code('p')),
        ("f1", code('R')),
        ("g1", code('K')),
        ("a7", 0),
        ("e1", 0),
        ("h1", 0),
    ] {
        let p = b.phys(sq);
        b.rx(vec![0x8E, 0, 5, p, piece]);
        b.wait(5);
    }
    b.wait(3000).press().wait(1000);
    let ev = b.run();
    assert_eq!(&moves(&ev)[7..], ["a7a6", "e1g1"]);
    let a = alert_of(&ev, AlertKind::TwoHandedMove);
    assert!(a.is_empty(), "{a:?}");
}

#[test]
fn castling_with_two_hands_is_a_suspicion() {
    let mut b = started();
    for (f, t, p) in [
        ("e2", "e4", 'P'),
        ("e7", "e5", 'p'),
        ("g1", "f3", 'N'),
        ("b8", "c6", 'n'),
        ("f1", "c4", 'B'),
        ("f8", "c5", 'b'),
    ] {
        b.mv(f, t, p).wait(400);
    }
    // King and rook lifted in the same scan, put down together.
    b.rx(vec![0x8E, 0, 5, 60, 0, 0x8E, 0, 5, 63, 0]);
    b.wait(200);
    b.rx(vec![0x8E, 0, 5, 62, 5, 0x8E, 0, 5, 61, 2]);
    b.wait(400);
    let ev = b.run();
    assert_eq!(moves(&ev).last().unwrap(), "e1g1");
    assert!(
        alerts(&ev).contains(&AlertKind::TwoHandedMove),
        "{:?}",
        alerts(&ev)
    );
}

#[test]
fn a_piece_lifted_and_put_back_before_another_moves_is_a_touch_move_suspicion() {
    let mut b = started();
    b.mv("e2", "e4", 'P').wait(400);
    b.lift("g8")
        .wait(900)
        .put("g8", 'n')
        .wait(300)
        .mv("b8", "c6", 'n')
        .wait(400);
    let ev = b.run();
    assert_eq!(moves(&ev), ["e2e4", "b8c6"]);
    assert_eq!(alerts(&ev), [AlertKind::TouchMove]);
}

#[test]
fn en_passant_with_the_captured_pawn_removed_after() {
    let mut b = started();
    for (f, t, p) in [
        ("e2", "e4", 'P'),
        ("a7", "a6", 'p'),
        ("e4", "e5", 'P'),
        ("d7", "d5", 'p'),
    ] {
        b.mv(f, t, p).wait(400);
    }
    b.mv("e5", "d6", 'P').lift("d5").wait(400);
    assert_eq!(moves(&b.run()).last().unwrap(), "e5d6");
}

#[test]
fn promotion_to_the_piece_placed_even_an_underpromotion() {
    let mut b = Board::new();
    b.op(r#"{"setup": {"fen": "8/P6k/8/8/8/8/8/K7 w - - 0 1"}}"#);
    b.dump(
        &format!("{}P6k{}K7", ".".repeat(8), ".".repeat(40))
            .replace('6', "......")
            .replace('7', "......."),
    );
    b.wait(400);
    // The pawn is put on a8 first, then swapped for a rook from off the board.
    b.mv("a7", "a8", 'P')
        .wait(100)
        .lift("a8")
        .put("a8", 'R')
        .wait(400);
    let ev = b.run();
    assert_eq!(moves(&ev), ["a7a8r"]);
}

#[test]
fn a_reply_before_the_press_completes_the_earlier_move() {
    let mut b = started();
    b.start_clock(300).wait(200);
    // White moves and forgets to press; Black replies at once; then White presses.
    b.mv("e2", "e4", 'P')
        .mv("e7", "e5", 'p')
        .wait(400)
        .tick()
        .press();
    let ev = b.run();
    assert_eq!(moves(&ev), ["e2e4", "e7e5"]);
}

#[test]
fn pressing_without_a_move_is_an_offence() {
    let mut b = started();
    b.start_clock(300).wait(300);
    b.mv("e2", "e4", 'P').wait(200).press().wait(500).tick();
    // Black presses without moving.
    b.press().wait(400);
    let ev = b.run();
    assert_eq!(moves(&ev), ["e2e4"]);
    assert!(
        alerts(&ev).contains(&AlertKind::ClockPressedWithoutMove),
        "{:?}",
        alerts(&ev)
    );
}

#[test]
fn an_illegal_move_completed_by_a_press_then_the_position_restored() {
    let mut b = started();
    b.start_clock(300).wait(300);
    b.mv("e2", "e4", 'P').wait(200).press().wait(300);
    // Black's knight jumps like a queen: b8 → b5.
    b.mv("b8", "b5", 'n').wait(300).press().wait(500);
    // The arbiter puts it back.
    b.mv("b5", "b8", 'n').wait(600);
    let ev = b.run();
    let a = alerts(&ev);
    assert!(a.contains(&AlertKind::IllegalMove), "{a:?}");
    assert!(a.contains(&AlertKind::PositionRestored), "{a:?}");
    assert_eq!(moves(&ev), ["e2e4"]);
    let illegal = ev.iter().find_map(|e| match &e.body {
        EventBody::Alert(a) if a.kind == AlertKind::IllegalMove => Some(a.clone()),
        _ => None,
    });
    let illegal = illegal.unwrap();
    assert_eq!(illegal.article.as_deref(), Some("7.5.1"));
    let v = offence_verdict(&illegal);
    assert_eq!(v.number, 1, "{v:?}");
    assert!(
        matches!(v.remedy, dgt_core::verdict::Remedy::Restore { .. }),
        "{v:?}"
    );
}

#[test]
fn the_pawn_left_on_the_last_rank_at_the_press() {
    let mut b = Board::new();
    b.op(r#"{"setup": {"fen": "7k/P7/8/8/8/8/8/K7 w - - 0 1"}}"#);
    b.dump(&format!(
        "{}k{}{}{}K{}",
        ".".repeat(7),
        "P",
        ".".repeat(7),
        ".".repeat(40),
        ".".repeat(7)
    ));
    b.start_clock(300).wait(400);
    b.mv("a7", "a8", 'P').wait(200).press().wait(600);
    assert!(alerts(&b.run()).contains(&AlertKind::PromotionIncomplete));
}

#[test]
fn a_knocked_over_piece_is_an_illegal_position_until_put_back() {
    let mut b = started();
    b.mv("e2", "e4", 'P').wait(400);
    b.lift("d8").wait(5000).put("d8", 'q').wait(500);
    let ev = b.run();
    let a = alerts(&ev);
    assert_eq!(
        a.iter()
            .filter(|k| **k == AlertKind::IllegalPosition)
            .count(),
        1,
        "{a:?}"
    );
    assert!(a.contains(&AlertKind::PositionRestored));
    assert_eq!(moves(&ev), ["e2e4"]);
}

#[test]
fn kings_in_the_centre_signal_a_result_and_are_never_a_move() {
    let mut b = started();
    for (f, t, p) in [
        ("e2", "e4", 'P'),
        ("e7", "e5", 'p'),
        ("d2", "d4", 'P'),
        ("d7", "d5", 'p'),
    ] {
        b.mv(f, t, p).wait(400);
    }
    // Clear the way, as players do when they agree: pawns off, kings to d4/e5 (dark: 0-1)…
    // here simply: kings lifted and placed on d4 and e5 over the pawns' squares.
    b.lift("d4")
        .lift("e5")
        .wait(100)
        .mv("e1", "d4", 'K')
        .wait(300)
        .mv("e8", "e5", 'k')
        .wait(2500);
    let ev = b.run();
    assert_eq!(moves(&ev).len(), 4);
    assert!(alerts(&ev).contains(&AlertKind::ResultGesture));
    assert!(ev.iter().any(
        |e| matches!(&e.body, EventBody::GameEnd { result, .. } if *result == GameResult::BlackWins)
    ));
}

/// The black king stands on d5 already when the players signal a draw (protocol §4.5: one
/// king on a light centre square, one on a dark one): the white king goes to e4 — for a
/// moment the kings stand on two light squares, 1-0 — and then the black king to e5. The
/// gesture is read once the kings have stood still long enough for the second to have been
/// moved: ½-½, never 1-0.
#[test]
fn a_kings_gesture_with_one_king_in_the_centre_already_waits_for_the_other() {
    for (e5_after, result) in [
        (Some(700), GameResult::Drawn),
        (None, GameResult::WhiteWins),
    ] {
        let mut b = Board::from_fen("8/8/8/3k4/B7/5n2/4p3/6K1 w - - 2 55", "");
        b.lift("g1").wait(400).put("e4", 'K');
        if let Some(ms) = e5_after {
            b.wait(ms).lift("d5").wait(500).put("e5", 'k');
        }
        b.wait(4000);
        let ev = b.run();
        let gestures = alert_of(&ev, AlertKind::ResultGesture);
        assert_eq!(gestures.len(), 1, "{gestures:?}");
        assert_eq!(
            ends(&ev),
            [(result.to_string(), "result_gesture".to_string())],
            "{e5_after:?}"
        );
        assert_eq!(move_events(&ev), 0);
    }
}

/// After a game ended by rule (here a dead position, 5.2.2: K+B v K) the players may still
/// signal the result with the kings (protocol §4.5). The first king put on a centre square
/// is one legal move from the final position, but it is half of the gesture, not play
/// going on: no `move_after_game_end` when the other king follows (alert-pace careful seeds
/// 361 and 2248 raised one at `intervene`). A king that stays alone there is play going on.
#[test]
fn a_kings_gesture_after_a_rule_end_is_no_move_after_the_end() {
    for second_king in [true, false] {
        let mut b = Board::from_fen("8/8/8/2k5/8/3K4/1p6/B7 w - - 0 1", "");
        b.lift("b2").lift("a1").wait(300).put("b2", 'B').wait(1000);
        b.lift("c5").wait(400).put("d5", 'k');
        if second_king {
            b.wait(700).lift("d3").wait(400).put("d4", 'K');
        }
        b.wait(4000);
        let ev = b.run();
        assert_eq!(
            ends(&ev),
            [("1/2-1/2".to_string(), "dead_position".to_string())]
        );
        assert_eq!(moves(&ev), ["a1b2"]);
        let after = alert_of(&ev, AlertKind::MoveAfterGameEnd);
        assert_eq!(after.len(), usize::from(!second_king), "{after:?}");
    }
}

#[test]
fn a_magic_piece_signals_a_draw() {
    let mut b = started();
    b.mv("e2", "e4", 'P').wait(400).put("e5", '1').wait(400);
    let ev = b.run();
    assert!(ev.iter().any(
        |e| matches!(&e.body, EventBody::GameEnd { result, .. } if *result == GameResult::Drawn)
    ));
}

#[test]
fn checkmate_ends_the_game_without_a_press() {
    let mut b = started();
    for (f, t, p) in [
        ("f2", "f3", 'P'),
        ("e7", "e5", 'p'),
        ("g2", "g4", 'P'),
        ("d8", "h4", 'q'),
    ] {
        b.mv(f, t, p).wait(400);
    }
    let ev = b.run();
    assert!(alerts(&ev).contains(&AlertKind::Checkmate));
    assert!(ev.iter().any(
        |e| matches!(&e.body, EventBody::GameEnd { result, .. } if *result == GameResult::BlackWins)
    ));
}

#[test]
fn moves_made_while_the_board_was_unreadable_come_from_the_next_dump() {
    let mut b = started();
    b.mv("e2", "e4", 'P').wait(400);
    // Three plies later the board is read again in one dump.
    b.dump_fen("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R");
    b.wait(400);
    assert_eq!(moves(&b.run()), ["e2e4", "e7e5", "g1f3", "b8c6"]);
}

#[test]
fn a_board_turned_round_is_detected_from_the_start_position() {
    let mut b = Board::new();
    b.rotated = true;
    b.dump(START);
    b.wait(400).mv("e2", "e4", 'P').wait(400);
    let ev = b.run();
    assert_eq!(moves(&ev), ["e2e4"]);
    assert!(ev.iter().any(
        |e| matches!(&e.body, EventBody::BoardStatus(s) if s.orientation == Orientation::Rotated)
    ));
}

#[test]
fn a_new_game_starts_when_the_start_position_is_set_up_again() {
    let mut b = started();
    b.mv("e2", "e4", 'P')
        .wait(400)
        .mv("e7", "e5", 'p')
        .wait(400);
    b.dump(START);
    b.wait(400).mv("d2", "d4", 'P').wait(400);
    let ev = b.run();
    let starts: Vec<String> = ev
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::GameStart { game, .. } => Some(game.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(starts, ["b/1", "b/2"]);
}

#[test]
fn flag_fall_loses_or_draws_by_material() {
    let mut b = started();
    b.start_clock(2).wait(300);
    b.tick().wait(1000).tick().wait(1000);
    // The left (White's) display reaches zero with the final flag.
    b.rx(vec![
        0x8D, 0, 0x0A, 0x00, 0x00, 0x02, 0x10, 0x00, 0x00, 0x01,
    ]);
    let ev = b.run();
    assert!(alerts(&ev).contains(&AlertKind::FlagFall));
    assert!(ev.iter().any(
        |e| matches!(&e.body, EventBody::GameEnd { result, .. } if *result == GameResult::BlackWins)
    ));

    // Black has a lone king: White's flag fall is a draw (6.9).
    let mut b = Board::new();
    b.op(r#"{"setup": {"fen": "7k/8/8/8/8/8/8/KQ6 w - - 0 1"}}"#);
    b.dump(&format!(
        "{}k{}KQ{}",
        ".".repeat(7),
        ".".repeat(48),
        ".".repeat(6)
    ));
    b.start_clock(2).wait(300);
    b.rx(vec![
        0x8D, 0, 0x0A, 0x00, 0x00, 0x02, 0x10, 0x00, 0x00, 0x01,
    ]);
    let ev = b.run();
    assert!(ev.iter().any(
        |e| matches!(&e.body, EventBody::GameEnd { result, .. } if *result == GameResult::Drawn)
    ));
}

#[test]
fn chess960_start_positions_start_a_game() {
    let mut b = Board::new();
    // Sharnagl 0: BBQNNRKR
    b.dump("bbqnnrkrpppppppp................................PPPPPPPPBBQNNRKR");
    b.wait(400).mv("e2", "e4", 'P').wait(400);
    let ev = b.run();
    assert!(ev.iter().any(|e| matches!(&e.body, EventBody::GameStart { start_fen, .. } if start_fen.starts_with("bbqnnrkr/"))));
    assert_eq!(moves(&ev), ["e2e4"]);
}

#[test]
fn operator_result_ends_the_game_and_later_moves_change_nothing() {
    let mut b = started();
    b.mv("e2", "e4", 'P').wait(400);
    b.op(r#"{"result": "1-0"}"#);
    b.mv("e7", "e5", 'p').wait(400);
    let ev = b.run();
    assert_eq!(moves(&ev), ["e2e4"]);
    assert!(matches!(
        ev.iter().find_map(|e| match &e.body {
            EventBody::GameEnd { reason, .. } => Some(*reason),
            _ => None,
        }),
        Some(dgt_core::event::EndReason::Arbiter)
    ));
    let _ = Operation::Ack(1);
}

/// 6.4: at the first flag of a multi-period control the required moves are counted at the
/// flag, not at move 40.
#[test]
fn a_period_flag_is_only_a_loss_without_the_required_moves() {
    let play = |white_moves: usize| {
        let mut b = started();
        b.op(r#"{"setup": {"time_control": "2/60:60"}}"#);
        b.start_clock(60).wait(300);
        let script = [
            ("e2", "e4", 'P'),
            ("e7", "e5", 'p'),
            ("g1", "f3", 'N'),
            ("b8", "c6", 'n'),
        ];
        for (f, t, p) in script.iter().take(white_moves * 2) {
            b.mv(f, t, *p).wait(200).press().wait(300);
        }
        // White's (left) display shows its flag while the clock goes on (0x40).
        b.rx(vec![
            0x8D, 0, 0x0A, 0x00, 0x01, 0x00, 0x40, 0x00, 0x00, 0x09,
        ]);
        b.wait(300);
        b.run()
    };
    let reached = play(2);
    assert!(
        !reached
            .iter()
            .any(|e| matches!(e.body, EventBody::GameEnd { .. }))
    );
    let flag = one(&reached, AlertKind::FlagFall);
    assert!(
        matches!(
            flag.flag_verdict().map(|v| v.decision),
            Some(dgt_core::verdict::FlagDecision::PeriodReached { .. })
        ),
        "{flag:?}"
    );
    let lost = play(1);
    assert!(lost.iter().any(
        |e| matches!(&e.body, EventBody::GameEnd { result, .. } if *result == GameResult::BlackWins)
    ));
}

/// Tracking continues from a formally illegal position when the opponent plays on.
#[test]
fn an_illegal_move_that_stands_is_tracked_and_the_game_goes_on() {
    for (supervision, severity) in [("full", Severity::Intervene), ("reduced", Severity::Info)] {
        let mut b = started();
        b.op(&format!(
            r#"{{"setup": {{"time_control": "180+2", "supervision": "{supervision}"}}}}"#
        ));
        b.start_clock(180).wait(300);
        b.mv("e2", "e4", 'P').wait(200).press().wait(300);
        b.mv("b8", "b5", 'n').wait(300).press().wait(500);
        // White does not claim and replies: the knight on b5 is taken by the bishop.
        b.mv("f1", "b5", 'B').wait(300).press().wait(400);
        let ev = b.run();
        assert_eq!(moves(&ev), ["e2e4", "b8b5", "f1b5"], "{supervision}");
        let stands = ev.iter().find_map(|e| match &e.body {
            EventBody::Alert(a)
                if a.kind == AlertKind::IllegalMove
                    && a.ply == Some(2)
                    && a.adopted_verdict().is_some() =>
            {
                Some(a.clone())
            }
            _ => None,
        });
        let stands = stands.expect("an alert for the illegal move that stood");
        assert_eq!(stands.severity, severity);
        let (offender, notation) = (Color::Black, "Nb8-b5".to_string());
        let taken_in = if supervision == "full" {
            AdoptedIllegalMove::Reinstate { offender, notation }
        } else {
            AdoptedIllegalMove::Stands { offender, notation }
        };
        assert_eq!(adopted(&stands), &taken_in, "{supervision}");
    }
}

/// An illegal move, then a press without a move, by the same player (Black).
fn two_offences(edition: &str, time_control: &str) -> Vec<Event> {
    let mut b = started();
    b.op(&format!(
        r#"{{"setup": {{"edition": "{edition}", "time_control": "{time_control}"}}}}"#
    ));
    b.start_clock(900).wait(300);
    b.mv("e2", "e4", 'P').wait(200).press().wait(300);
    b.mv("b8", "b5", 'n').wait(300).press().wait(900);
    b.mv("b5", "b8", 'n').wait(600); // the arbiter restores the position…
    b.clock.as_mut().unwrap().2 = Some(true); // …and Black's clock runs again
    b.reading();
    b.wait(300);
    b.mv("b8", "c6", 'n').wait(200).press().wait(600);
    b.mv("g1", "f3", 'N').wait(200).press().wait(600);
    b.press().wait(600); // Black presses without moving
    b.run()
}

/// The rule tables differ by edition: 2018+ count offences together, 2017 (as printed) per
/// article, 2005 does not know the press without a move as an offence.
#[test]
fn offences_are_counted_as_the_edition_says() {
    let ev = two_offences("fide-2023", "900+10");
    let press = &alert_of(&ev, AlertKind::ClockPressedWithoutMove)[0];
    assert_eq!(press.article.as_deref(), Some("7.5.3"));
    let v = offence_verdict(press);
    assert_eq!(
        (v.number, v.article),
        (2, Article::new("7.5.5")),
        "{press:?}"
    );
    assert!(
        matches!(
            v.decision,
            OffenceDecision::Loses | OffenceDecision::LosesUnlessOpponentCannotMate
        ),
        "{press:?}"
    );
    // 2023 rapid: one minute (A.3) for the first offence.
    let illegal = &alert_of(&ev, AlertKind::IllegalMove)[0];
    assert_eq!(time_to_opponent(offence_verdict(illegal)), Some(60_000));

    let ev = two_offences("fide-2018", "900+10");
    let illegal = &alert_of(&ev, AlertKind::IllegalMove)[0];
    assert_eq!(time_to_opponent(offence_verdict(illegal)), Some(120_000));

    let ev = two_offences("fide-2017", "5400");
    let press = &alert_of(&ev, AlertKind::ClockPressedWithoutMove)[0];
    assert_eq!(press.article.as_deref(), Some("7.8.1"));
    let v = offence_verdict(press);
    assert_eq!(
        (v.number, v.article),
        (1, Article::new("7.8.2")),
        "{press:?}"
    );
    assert!(time_to_opponent(v).is_some(), "{press:?}");

    let ev = two_offences("fide-2005", "5400");
    let press = &alert_of(&ev, AlertKind::ClockPressedWithoutMove)[0];
    assert_eq!(press.severity, Severity::Review);
    assert!(press.offence_verdict().is_none(), "{press:?}");
    assert_eq!(
        clock_verdict(press),
        ClockVerdict::PressWithoutMoveNoOffence {
            discretion: Article::new("13.4")
        }
    );
    let illegal = &alert_of(&ev, AlertKind::IllegalMove)[0];
    assert_eq!(illegal.article.as_deref(), Some("7.4a"));
}

#[test]
fn an_unfinished_promotion_becomes_a_queen_from_2017_and_is_taken_back_in_2005() {
    for (edition, queen) in [("fide-2023", true), ("fide-2005", false)] {
        let mut b = Board::new();
        b.op(&format!(
            r#"{{"setup": {{"fen": "7k/P7/8/8/8/8/8/K7 w - - 0 1", "edition": "{edition}"}}}}"#
        ));
        b.dump(&format!(
            "{}k{}{}{}K{}",
            ".".repeat(7),
            "P",
            ".".repeat(7),
            ".".repeat(40),
            ".".repeat(7)
        ));
        b.start_clock(300).wait(400);
        b.mv("a7", "a8", 'P').wait(200).press().wait(900);
        let a = &alert_of(&b.run(), AlertKind::PromotionIncomplete)[0];
        let remedy = offence_verdict(a).remedy;
        assert_eq!(
            matches!(remedy, dgt_core::verdict::Remedy::QueenForPawn { .. }),
            queen,
            "{edition}: {a:?}"
        );
        assert_eq!(
            matches!(remedy, dgt_core::verdict::Remedy::Restore { .. }),
            !queen,
            "{edition}: {a:?}"
        );
    }
}

#[test]
fn a_threefold_claim_becomes_available_and_the_claim_checker_agrees() {
    let mut b = started();
    for _ in 0..2 {
        b.mv("g1", "f3", 'N')
            .wait(400)
            .mv("g8", "f6", 'n')
            .wait(400);
        b.mv("f3", "g1", 'N')
            .wait(400)
            .mv("f6", "g8", 'n')
            .wait(400);
    }
    b.mv("g1", "f3", 'N')
        .wait(400)
        .mv("g8", "f6", 'n')
        .wait(400)
        .mv("f3", "g1", 'N')
        .wait(400);
    b.op(r#"{"claim": {"kind": "threefold", "move": "f6g8"}}"#);
    b.wait(100);
    let ev = b.run();
    let available = alert_of(&ev, AlertKind::ThreefoldRepetitionAvailable);
    let claim = available
        .iter()
        .find(|a| a.severity == dgt_core::Severity::Claim)
        .expect("a claim alert");
    assert_eq!(claim.side, Some(dgt_core::Side::Black));
    assert_eq!(claim.uci.as_deref(), Some("Ng8"));
    let checked = available
        .iter()
        .find(|a| a.claim_verdict().is_some())
        .expect("the checker's verdict");
    let verdict = claim_verdict(checked);
    assert_eq!(
        (verdict.claim, verdict.decision),
        (
            dgt_core::claim::ClaimKind::ThreefoldRepetition,
            dgt_core::verdict::ClaimDecision::Correct
        ),
        "{checked:?}"
    );
    assert!(verdict.written_move);
}

/// A board unplugged mid-game and plugged in again: the fresh dump after the reconnection
/// shows the moves made meanwhile, and none is lost.
#[test]
fn moves_made_while_unplugged_are_recovered_from_the_dump_on_reconnect() {
    let link = |b: &mut Board, state: &str| {
        let line = format!(
            r#"{{"t_ms": {}, "board": "b", "link": {{"state": "{state}"}}}}"#,
            b.t
        );
        b.inputs.extend(parse_capture(&line).unwrap());
    };
    let mut b = started();
    b.start_clock(300).wait(300);
    b.mv("e2", "e4", 'P').wait(200).press().wait(500);
    link(&mut b, "disconnected");
    b.wait(5000);
    link(&mut b, "connected");
    b.wait(100);
    // Meanwhile: 1...e5 2.Nf3 Nc6 — the board is read again in one dump.
    b.dump_fen("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R");
    b.wait(600);
    let ev = b.run();
    assert_eq!(moves(&ev), ["e2e4", "e7e5", "g1f3", "b8c6"]);
    let a = alerts(&ev);
    assert!(
        a.contains(&AlertKind::BoardDisconnected) && a.contains(&AlertKind::BoardReconnected),
        "{a:?}"
    );
}

/// A planned stop of the daemon ends every board's link with `stopping`: an info, not a
/// review — nothing is wrong with the board. A link lost mid-game is for review.
#[test]
fn a_daemon_stop_is_no_board_trouble() {
    for (link, severity) in [
        (
            r#"{"state": "disconnected", "reason": "daemon stopped", "stopping": true}"#,
            Severity::Info,
        ),
        (
            r#"{"state": "disconnected", "reason": "end of file"}"#,
            Severity::Review,
        ),
    ] {
        let mut b = started();
        b.start_clock(300).wait(300);
        b.mv("e2", "e4", 'P').wait(200).press().wait(500);
        let line = format!(r#"{{"t_ms": {}, "board": "b", "link": {link}}}"#, b.t);
        b.inputs.extend(parse_capture(&line).unwrap());
        let ev = b.run();
        let a = one(&ev, AlertKind::BoardDisconnected);
        assert_eq!(a.severity, severity, "{link}");
        let stopping = matches!(
            a.equipment_verdict(),
            Some(dgt_core::verdict::EquipmentVerdict::Disconnected { stopping: true, .. })
        );
        assert_eq!(stopping, severity == Severity::Info, "{a:?}");
    }
}
