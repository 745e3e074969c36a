//! Offences are counted only from what the board can show (an alert that is wrong costs
//! more than one that is late). A press the board has not caught up with is
//! no press without a move; a board that differs from the game by more than one move of
//! the player on move is not an illegal move; and once an illegal move is raised, further
//! presses before the position is reinstated are play going on from it, not new offences.

mod common;

use common::*;
use dgt_core::{AlertKind, Severity};

/// At speed the press follows the placement within ~50 ms, and the board reports the move
/// up to ~400 ms after the piece lands (protocol §4.1): a move reported 300 ms after the
/// press is the move that press completed (6.2.1), not a press without a move (7.5.3).
#[test]
fn a_move_reported_after_the_press_is_no_press_without_a_move() {
    let mut b = game("fide-2023", "3+2", 180);
    b.lift("e2")
        .wait(5)
        .put("e4", 'P')
        .wait(300)
        .press()
        .wait(1000);
    b.press()
        .wait(250)
        .lift("e7")
        .wait(5)
        .put("e5", 'p')
        .wait(2000);
    let ev = b.run();
    assert_eq!(moves(&ev), ["e2e4", "e7e5"]);
    let kinds = alerts(&ev);
    assert!(
        !kinds.contains(&AlertKind::ClockPressedWithoutMove),
        "{kinds:?}"
    );
}

/// The same press with no move made at all is still a press without a move — only later,
/// after the board had time to report.
#[test]
fn a_press_with_no_move_at_all_is_still_raised() {
    let mut b = game("fide-2023", "3+2", 180);
    b.lift("e2")
        .wait(5)
        .put("e4", 'P')
        .wait(300)
        .press()
        .wait(1000);
    b.press().wait(3000);
    let ev = b.run();
    assert_eq!(moves(&ev), ["e2e4"]);
    let raised = alert_of(&ev, AlertKind::ClockPressedWithoutMove);
    assert_eq!(raised.len(), 1, "{:?}", alerts(&ev));
    assert_eq!(raised[0].severity, Severity::Intervene);
}

/// White plays the illegal e2-e5, and a black knight stands on f6 before White's press is
/// judged: no single move of White turns the game's position into this board (a piece of
/// the opponent appeared), so it is not counted as White's illegal move — the arbiter is
/// told the board no longer follows the game (review) and establishes what happened.
#[test]
fn a_board_no_single_move_explains_is_no_illegal_move() {
    let mut b = game("fide-2023", "3+2", 180);
    b.lift("e2").wait(5).put("e5", 'P').wait(100);
    b.lift("g8")
        .wait(5)
        .put("f6", 'n')
        .wait(30)
        .press()
        .wait(3000);
    let ev = b.run();
    let kinds = alerts(&ev);
    assert!(!kinds.contains(&AlertKind::IllegalMove), "{kinds:?}");
    let lost = alert_of(&ev, AlertKind::IllegalPosition);
    assert_eq!(lost.len(), 1, "{kinds:?}");
    assert_eq!(lost[0].severity, Severity::Review);
    assert!(moves(&ev).is_empty(), "{:?}", moves(&ev));
}

/// The same illegal e2-e5 alone is an illegal move, counted (7.5.1).
#[test]
fn one_illegal_move_alone_is_still_counted() {
    let mut b = game("fide-2023", "3+2", 180);
    b.lift("e2")
        .wait(5)
        .put("e5", 'P')
        .wait(300)
        .press()
        .wait(3000);
    let ev = b.run();
    let illegal = alert_of(&ev, AlertKind::IllegalMove);
    assert_eq!(illegal.len(), 1, "{:?}", alerts(&ev));
    assert_eq!(offence_verdict(&illegal[0]).number, 1, "{:?}", illegal[0]);
}

/// White's first move in a time scramble: the press comes before the board has reported the
/// knight (it reports a square up to ~400 ms after the piece lands, protocol §4.1). At the
/// first look nothing has moved yet; read then as a press that only started the clock, it
/// would turn the clock's sides round, and every later press would be credited to the other
/// player as a press without a move. The first look waits for the board to catch up.
#[test]
fn a_first_press_before_the_board_reports_the_move_keeps_the_clock_sides() {
    let mut b = game("fide-2023", "3+2", 180);
    // Reported 270 and 355 ms after the press (a scan every ~200–250 ms, the clock relayed
    // every 300–450 ms: the knight landed before the press, §4.1, §2.2).
    b.press().wait(220);
    b.lift("b1").wait(5).put("c3", 'N').wait(600);
    for (from, to, piece) in [("c7", "c5", 'p'), ("e2", "e4", 'P'), ("b8", "c6", 'n')] {
        b.lift(from).wait(5).put(to, piece).wait(30);
        b.press().wait(600);
    }
    b.wait(2000);
    let ev = b.run();
    assert_eq!(moves(&ev), ["b1c3", "c7c5", "e2e4", "b8c6"]);
    // White's display is the left one, whose time ran when the game began; no press was
    // taken for one without a move.
    assert_presses_read_with_white_on_the_left(&ev);
}

/// The clock stands with White's lever high; it is started and White has moved and pressed
/// before the board relays the clock again (every 300–450 ms, protocol §2.2): the first
/// running report shows Black's time running. The lever (a physical rocker, status D1,
/// §3.4) went down on White's side while the clock stood: White pressed. Read as a plain
/// start, Black's display was taken for White's and every later press was credited to the
/// other player (scramble seeds 102, 145, 150, 179, 182).
#[test]
fn a_start_and_a_press_between_two_clock_reports_keep_the_clock_sides() {
    let mut b = started();
    b.op(r#"{"setup": {"edition": "fide-2023", "time_control": "3+2"}}"#);
    // Stopped, the left lever high: White's time will run on the left.
    b.clock = Some((182, 182, None));
    b.reading();
    b.wait(1000);
    b.lift("e2").wait(5).put("e4", 'P').wait(40);
    // Started, White's press: the right display runs, the left one got the increment.
    b.clock = Some((184, 182, Some(true)));
    b.reading();
    b.wait(600);
    for (from, to, piece) in [("e7", "e5", 'p'), ("g1", "f3", 'N'), ("b8", "c6", 'n')] {
        b.lift(from).wait(5).put(to, piece).wait(30);
        b.press().wait(600);
    }
    b.wait(2000);
    let ev = b.run();
    assert_eq!(moves(&ev), ["e2e4", "e7e5", "g1f3", "b8c6"]);
    // White's display is the left one, whose time ran when the game began; no press was
    // taken for one without a move.
    assert_presses_read_with_white_on_the_left(&ev);
}

/// No press read as one without a move, no position left unexplained, and the last clock
/// report has White's display on the left.
fn assert_presses_read_with_white_on_the_left(ev: &[dgt_core::Event]) {
    let kinds = alerts(ev);
    assert!(
        !kinds.contains(&AlertKind::ClockPressedWithoutMove)
            && !kinds.contains(&AlertKind::IllegalPosition),
        "{kinds:?}"
    );
    let white_side = ev.iter().rev().find_map(|e| match &e.body {
        dgt_core::EventBody::Clock(c) => Some(c.white_side),
        _ => None,
    });
    assert_eq!(white_side, Some(Some(dgt_core::input::ClockSide::Left)));
}
