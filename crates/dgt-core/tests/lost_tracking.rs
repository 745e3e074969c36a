//! When nothing explains the board, the core stops and says so instead of inventing moves
//! (an invented move could count as an offence): a piece knocked over under a move is no
//! part of an illegal move, only a move of one piece is taken into the game as it stood,
//! and a second such move in a row means tracking is lost — `illegal_position` (review),
//! then nothing is read as a move until the board shows a position the game explains.

mod common;

use common::*;
use dgt_core::verdict::LostBecause;
use dgt_core::{AlertKind, Severity};

/// A knocked-over piece put back just before the opponent takes it: White plays
/// Nd2-e4 and presses; the bishop on f1 is knocked over before the press is judged, and put
/// back 1.35 s later — only ~200 ms before Black, short of time, takes it with the pawn and
/// promotes (e2xf1=Q), so the board never shows Nd2-e4 settled. The press completes the
/// knight's move; the bishop off the board is a displacement, not a bishop turned into a
/// knight on e4: read as the illegal "Bf1-e4=N", it would be taken into the game when Black
/// moved on, and every later ply misread.
#[test]
fn a_piece_knocked_over_before_the_press_is_judged_is_no_part_of_the_move() {
    let mut b = game_from(
        "4k3/8/8/8/8/8/3Np3/K4B2 w - - 0 1",
        "fide-2023",
        "60+1",
        "full",
        60,
    );
    b.lift("d2").wait(220).put("e4", 'N').wait(240);
    b.lift("f1")
        .wait(50)
        .press()
        .wait(1300)
        .put("f1", 'B')
        .wait(205);
    // Black: the pawn onto f1 in the scan that takes the bishop off, then the queen.
    b.put("f1", 'p').lift("e2").wait(420);
    b.lift("f1")
        .wait(300)
        .put("f1", 'q')
        .wait(200)
        .press()
        .wait(1000);
    let ev = b.run();
    assert_eq!(moves(&ev), ["d2e4", "e2f1q"]);
    assert!(
        !alerts(&ev).contains(&AlertKind::IllegalMove),
        "{:?}",
        alerts(&ev)
    );
}

/// The same knock, but the bishop stays off the board: the move stands, and the missing
/// bishop is reported once as a displacement (`illegal_position`), followed as if it stood
/// on its square.
#[test]
fn a_piece_knocked_off_for_good_under_a_move_is_an_illegal_position_not_a_move() {
    let mut b = game_from(
        "4k3/4p3/8/8/8/8/3N4/4KB2 w - - 0 1",
        "fide-2023",
        "60+1",
        "full",
        60,
    );
    b.lift("d2").wait(170).put("e4", 'N').wait(255).press();
    b.wait(100).lift("f1").wait(5000);
    b.play(&[("e7", "e5", 'p')]);
    b.wait(1000);
    let ev = b.run();
    assert_eq!(moves(&ev), ["d2e4", "e7e5"]);
    let kinds = alerts(&ev);
    assert!(!kinds.contains(&AlertKind::IllegalMove), "{kinds:?}");
    let illegal = alert_of(&ev, AlertKind::IllegalPosition);
    assert_eq!(illegal.len(), 1, "{illegal:?}");
    assert!(illegal[0].squares == ["f1"], "{:?}", illegal[0].squares);
}

/// Illegal moves in a row: White's 1.e2-e5 is answered by Black's illegal Nb8-b6, and
/// White goes on with a2-a5. The first is taken into the game as it stood (it was answered,
/// 7.5.1); the second would be a second unexplained step in a row, so tracking is lost:
/// one `illegal_position` (review), no further move and no further offence counted. At most
/// one move is invented per lost track. When the start position is set up again, a game
/// is followed from it.
#[test]
fn a_second_illegal_step_in_a_row_loses_the_track_instead_of_inventing_moves() {
    let mut b = game("fide-2023", "300", 300);
    b.mv("e2", "e5", 'P').wait(250).press().wait(600);
    b.mv("b8", "b6", 'n').wait(250).press().wait(600);
    b.mv("a2", "a5", 'P').wait(250).press().wait(600);
    b.mv("a7", "a6", 'p').wait(250).press().wait(600);
    b.mv("g1", "f3", 'N').wait(250).press().wait(4000);
    let ev = b.run();
    assert_eq!(moves(&ev), ["e2e5"]);
    let lost = alert_of(&ev, AlertKind::IllegalPosition);
    assert_eq!(lost.len(), 1, "{lost:?}");
    assert_eq!(lost[0].severity, Severity::Review);
    let track = lost[0]
        .lost_track()
        .expect("the board no longer follows the game");
    assert_eq!(
        (track.because, track.ply),
        (LostBecause::SecondIllegalStood, 1),
        "{track:?}"
    );
    assert_eq!(lost[0].message, track.message());
    // Offences: White's e2-e5 (at its press) and Black's Nb8-b6 (at its press); nothing
    // after tracking was lost.
    let offences: Vec<_> = alert_of(&ev, AlertKind::IllegalMove)
        .into_iter()
        .filter(|a| a.offence_verdict().is_some())
        .collect();
    assert_eq!(offences.len(), 2, "{offences:?}");

    // The players set the start position up again: a new game is followed from it.
    let mut b2 = b;
    b2.mv("a6", "a7", 'p').wait(100);
    b2.mv("a5", "a2", 'P').wait(100);
    b2.mv("b6", "b8", 'n').wait(100);
    b2.mv("e5", "e2", 'P').wait(100);
    b2.mv("f3", "g1", 'N').wait(1000);
    b2.play(&[("d2", "d4", 'P')]).wait(1000);
    let ev = b2.run();
    assert_eq!(moves(&ev), ["d2d4"]);
}
