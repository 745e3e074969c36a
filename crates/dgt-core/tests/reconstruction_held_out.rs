//! Board sequences behind the failures found on corpus seeds never used for tuning (4001–6000):
//! a press relayed after the board already settled, a capture whose capturer is reported late,
//! a capture answered while the capturer slides past a square that makes two legal moves,
//! moves in quick succession without a clock, and a placement shown plies ago; and from
//! seeds 6001–16000, a king pushing a piece off its centre square for the result gesture and
//! an en passant reply read by another route while the press was judged; and from seeds
//! 24001–28000, a capture in progress read as a pair when an earlier press was judged, and a
//! slide's last square reported well after the press; and from seeds 30001–32000, a king
//! moved to the centre before a magic-piece gesture, castling whose rook is reported after
//! the press, and a move the opponent began to answer read as a square of a longer slide.

mod common;

use common::*;
use dgt_core::AlertKind;

/// Seed 5623: Black's move settled on the board before the clock's report of Black's press
/// came in, so it was taken from the board; then a White piece was knocked over. The press
/// is Black's: it completes Black's move, not a White "move" made of the knocked piece.
#[test]
fn a_press_relayed_after_the_move_settled_completes_no_move_of_the_opponent() {
    let mut b = game("fide-2023", "300", 300);
    b.play(&[("e2", "e4", 'P')]);
    // Black moves and presses; the board has shown e5 for a settle (250 ms) when White's
    // clock is seen running, so e5 is taken from the board before the press is judged.
    b.lift("e7").put("e5", 'p').wait(100).press();
    // A White knight knocked off its square before the press is judged, put back later.
    b.wait(50).lift("g1").wait(1200).put("g1", 'N').wait(600);
    b.play(&[("g1", "f3", 'N')]);
    let ev = b.run();
    assert_eq!(moves(&ev), ["e2e4", "e7e5", "g1f3"]);
    assert!(
        !alerts(&ev).contains(&AlertKind::IllegalMove),
        "{:?}",
        alerts(&ev)
    );
}

/// Seed 5898: the queen slides d1-e2-f3-g4 to take on h5; the pawn's removal and the queen
/// leaving g4 are reported in one scan, the press follows, and the board reports the queen
/// on h5 only ~700 ms later (it flickered). The slide's last square is no move.
#[test]
fn a_capture_whose_capturer_is_reported_late_is_not_its_slide_square() {
    let mut b = game_from(
        "1k6/r7/8/7p/8/8/8/3QK3 w - - 0 1",
        "fide-2023",
        "300",
        "full",
        300,
    );
    b.put("e2", 'Q').lift("d1").wait(100);
    b.put("f3", 'Q').lift("e2").wait(100);
    b.put("g4", 'Q').lift("f3").wait(100);
    b.lift("h5").lift("g4").wait(50).press();
    b.wait(600).put("h5", 'Q');
    b.wait(150)
        .lift("a7")
        .wait(100)
        .put("a6", 'r')
        .wait(100)
        .press()
        .wait(1000);
    let ev = b.run();
    assert_eq!(moves(&ev), ["d1h5", "a7a6"]);
}

/// Seed 4863: Black's queen goes d6-e7 and is shown only after Black's press (it flickered);
/// White takes it off first and slides the rook a7-b7-c7-d7-e7. With the rook on d7 the
/// board reads "Qd7 Rxd7", a pair whose first move was never shown: the press completed the
/// move shown, Qe7, and the rook is on its way.
#[test]
fn a_shown_move_taken_off_first_is_not_replaced_by_a_pair_never_shown() {
    let mut b = game_from(
        "8/6k1/R2q4/8/8/8/8/7K w - - 0 1",
        "fide-2023",
        "300",
        "full",
        300,
    );
    b.play(&[("a6", "a7", 'R')]).wait(500);
    b.lift("d6").wait(200).press().wait(100).put("e7", 'q');
    b.wait(160).lift("e7");
    b.wait(160).put("b7", 'R').lift("a7");
    b.wait(100).put("c7", 'R').lift("b7");
    b.wait(100).put("d7", 'R').lift("c7");
    b.wait(100)
        .press()
        .wait(100)
        .put("e7", 'R')
        .lift("d7")
        .wait(1000);
    let ev = b.run();
    assert_eq!(moves(&ev), ["a6a7", "d6e7", "a7e7"]);
    assert!(
        !alerts(&ev).contains(&AlertKind::IllegalMove),
        "{:?}",
        alerts(&ev)
    );
}

/// Seed 5456: no clock, time trouble. Each placement is shown for less than a settle before
/// the next move begins, so none was decided alone; the board showed every one of them in
/// turn, and the moves stand as shown.
#[test]
fn moves_in_quick_succession_without_a_clock_are_followed_one_by_one() {
    let mut b = started();
    b.mv("e2", "e4", 'P').wait(400);
    b.mv("e7", "e5", 'p').wait(150);
    b.mv("g1", "f3", 'N').wait(150);
    b.mv("b8", "c6", 'n').wait(1000);
    let ev = b.run();
    assert_eq!(moves(&ev), ["e2e4", "e7e5", "g1f3", "b8c6"]);
    assert!(
        !alerts(&ev).contains(&AlertKind::IllegalPosition),
        "{:?}",
        alerts(&ev)
    );
}

/// The placement after 2.Nf3 was shown at ply 3; after 2...Nf6 3.Ng1 Ng8 the position
/// repeats, and White lifts the knight and presses with it in the hand. The old placement
/// is no sign the knight went to f3 now (and its being gone no capture of it).
#[test]
fn a_placement_shown_plies_ago_is_no_sign_of_a_move_now() {
    let mut b = game("fide-2023", "300", 300);
    b.play(&[
        ("e2", "e4", 'P'),
        ("e7", "e5", 'p'),
        ("g1", "f3", 'N'),
        ("g8", "f6", 'n'),
        ("f3", "g1", 'N'),
        ("f6", "g8", 'n'),
    ]);
    b.lift("g1").wait(200).press().wait(2000);
    let ev = b.run();
    assert_eq!(moves(&ev), ["e2e4", "e7e5", "g1f3", "g8f6", "f3g1", "f6g8"]);
}

/// Seeds 6177, 7317, 9567, 11813, 12229: the game is over and the players stop the clock,
/// then signal the result with the kings in the centre (protocol §4.5). A piece stands on
/// White's centre square, so it is pushed off the board and the king put there: on the board
/// that is a legal king capture. With the clock stopped it is the first half of the gesture,
/// not a move; the other king on e5 completes the gesture (e4 light, e5 dark: a draw).
#[test]
fn a_king_pushing_a_piece_off_a_centre_square_with_the_clock_stopped_is_a_result_gesture() {
    let mut b = game_from(
        "4k3/8/7P/5K2/4r3/8/8/2q5 w - - 0 1",
        "fide-2023",
        "300",
        "full",
        300,
    );
    b.play(&[("h6", "h7", 'P'), ("c1", "a1", 'q')]).wait(2000);
    // The players stop the clock, then White's king goes to e4 (the rook pushed off) and
    // Black's to e5.
    b.set_running(None).wait(2500);
    b.lift("f5").wait(600).lift("e4").wait(250).put("e4", 'K');
    b.wait(800).lift("e8").wait(500).put("e5", 'k').wait(3000);
    let ev = b.run();
    assert_eq!(moves(&ev), ["h6h7", "c1a1"]);
    assert_eq!(
        ends(&ev),
        [("1/2-1/2".to_string(), "result_gesture".to_string())]
    );
}

/// While the clock runs the same king capture is a move: nobody pushes a piece off the board
/// to signal a result in the middle of play.
#[test]
fn a_king_capturing_on_a_centre_square_with_the_clock_running_is_a_move() {
    let mut b = game_from(
        "4k3/8/7P/5K2/4r3/8/8/2q5 w - - 0 1",
        "fide-2023",
        "300",
        "full",
        300,
    );
    b.play(&[("h6", "h7", 'P'), ("c1", "a1", 'q')]).wait(2000);
    b.lift("f5").wait(600).lift("e4").wait(250).put("e4", 'K');
    b.wait(300).press().wait(1000);
    b.play(&[("a1", "a2", 'q')]).wait(1000);
    let ev = b.run();
    assert_eq!(moves(&ev), ["h6h7", "c1a1", "f5e4", "a1a2"]);
    assert!(ends(&ev).is_empty(), "{:?}", ends(&ev));
}

/// Seed 14004: White plays g2-g4 (shown, then pressed); the press is judged once the board
/// is quiet, but Black already takes en passant: f4 lifted, the pawn put on g3, then the g4
/// pawn taken off — and the g3 pawn flickers off 5 ms later. For a moment the board reads
/// "g4 fxg3 e.p.", which is the same placement as "g3 fxg3" (the board tells only which piece
/// stands where). The pair remembered must be the one whose first move was shown (g4): when
/// the flicker leaves the board unexplained at the press's last look, the press completed
/// the move shown, not an illegal move.
#[test]
fn a_pair_reaching_a_placement_by_another_route_keeps_the_move_shown() {
    let mut b = game_from(
        "rnbqkbnr/ppp2ppp/3p4/8/2P2p1P/8/PP1PP1P1/RNBQKBNR w KQkq - 0 4",
        "fide-2023",
        "300",
        "full",
        300,
    );
    b.lift("g2").wait(370).put("g4", 'P').wait(515).press();
    b.wait(70).lift("f4").wait(125).put("g3", 'p').wait(380);
    // The g4 pawn taken off and the g3 pawn flickering off in the same scan.
    let g4 = b.phys("g4");
    b.rx(vec![0x8E, 0, 5, g4, 0]);
    b.wait(5).lift("g3").wait(210).press();
    b.wait(75).put("g3", 'p').wait(600);
    b.play(&[("d2", "d3", 'P')]).wait(1000);
    let ev = b.run();
    assert_eq!(moves(&ev), ["g2g4", "f4g3", "d2d3"]);
    assert!(
        !alerts(&ev).contains(&AlertKind::IllegalMove),
        "{:?}",
        alerts(&ev)
    );
}

/// Seed 18721: Black replies e7-e6 before White's press for e4-e5 is judged, so that press
/// completes e5 with e6 already on the board. Black presses; White then slides c2-c3-c4,
/// and the board reports c3 before c2 empties (protocol §4.1: new occurrence first), so
/// when Black's press is judged the board reads as no move. The reply shown with e5 is what
/// the board showed last: Black's press completes it (and the slide is not lost with it).
#[test]
fn a_reply_shown_with_the_move_its_press_completed_is_completed_by_its_own_press() {
    let mut b = game("fide-2023", "300", 300);
    b.play(&[("e2", "e4", 'P'), ("a7", "a5", 'p')]);
    b.put("e5", 'P').lift("e4").wait(300).press();
    // Black's reply, on the board before White's press is judged.
    b.lift("e7").put("e6", 'p').wait(300).press();
    // White's pawn slides on: c3 reported while c2 is still occupied, past Black's verdict.
    b.wait(50).put("c3", 'P').wait(600);
    b.put("c4", 'P')
        .lift("c2")
        .lift("c3")
        .wait(100)
        .press()
        .wait(500);
    b.play(&[("g8", "f6", 'n')]).wait(1000);
    let ev = b.run();
    assert_eq!(moves(&ev), ["e2e4", "a7a5", "e4e5", "e7e6", "c2c4", "g8f6"]);
    assert!(
        !alerts(&ev).contains(&AlertKind::IllegalMove),
        "{:?}",
        alerts(&ev)
    );
}

/// Seed 19942: the queen slides g5-f5-e5-d5-c5 with White's clock running; the board
/// reports d5 — which would be mate — and c5 only a scan later (a board reports a change up
/// to ~400 ms late, and a slide reports the squares passed, protocol §4.1). A move that ends
/// the game cannot be taken back, so it is not read before the board had time to report the
/// rest of the slide: the move is Qc5, and the game goes on.
#[test]
fn a_mate_on_a_square_a_sliding_piece_only_passed_is_not_read_before_the_slide_is_reported() {
    let mut b = game_from(
        "8/8/8/6Q1/2Pk4/3P1p2/3K4/5R2 w - - 12 57",
        "fide-2023",
        "600",
        "full",
        600,
    );
    b.lift("g5").wait(120).put("d5", 'Q');
    // c5 reported 300 ms after d5, past a settle (250 ms), within the board's report lag.
    b.wait(220)
        .put("c5", 'Q')
        .lift("d5")
        .wait(300)
        .press()
        .wait(1000);
    b.play(&[("d4", "c5", 'k')]).wait(1000);
    let ev = b.run();
    assert_eq!(moves(&ev), ["g5c5", "d4c5"]);
    assert!(ends(&ev).is_empty(), "{:?}", ends(&ev));
}

/// Seeds 21662, 20718: Black's queen slides h6-g6-f6-e6-d6-c6-b6 and Black presses. The
/// clock's report of the press arrives while the board still shows d6, a settle after d6 was
/// reported, and b6 is reported just after (a scan takes 200–250 ms and a change can be
/// reported ~400 ms late, protocol §1.1/§4.1). The board settling on d6 does not decide the
/// move while the press waits to be judged: the press completes the move the board shows
/// once caught up, Qb6 — not Qd6 with the queen "moving on" after White's king is lifted.
#[test]
fn a_board_settling_on_a_passed_square_waits_for_the_pending_press_verdict() {
    let mut b = game_from(
        "6k1/5ppp/7q/8/8/8/8/5K2 w - - 0 1",
        "fide-2023",
        "300",
        "full",
        300,
    );
    b.play(&[("f1", "f2", 'K')]);
    // d6 reported, h6 emptied; the press is relayed 175 ms later, just before a settle.
    b.put("d6", 'q').lift("h6").wait(95).press().wait(35);
    b.put("b6", 'q')
        .lift("d6")
        .lift("f2")
        .wait(120)
        .put("e2", 'K');
    b.wait(300).press().wait(1000);
    b.play(&[("g8", "h8", 'k')]).wait(1000);
    let ev = b.run();
    assert_eq!(moves(&ev), ["f1f2", "h6b6", "f2e2", "g8h8"]);
    assert!(
        !alerts(&ev).contains(&AlertKind::ClockPressedWithoutMove),
        "{:?}",
        alerts(&ev)
    );
}

/// Seed 19602: time trouble with an increment. White plays Nf3 and presses, Black answers
/// Nc6 and presses, ~100-200 ms apart: the clock reports neither press (its next reading
/// has the same display running, both displays up by the increment), and the board reports
/// both moves in one go. Both displays gaining time is two presses (each press adds the
/// increment to its presser's display, protocol §3.4): both moves are complete.
#[test]
fn two_presses_between_clock_reports_complete_a_move_and_its_reply() {
    let mut b = game("fide-2023", "60+1", 60);
    b.play(&[("e2", "e4", 'P'), ("e7", "e5", 'p')]);
    b.lift("g1").lift("b8");
    // The next reading: White's display runs again, each display 1 s up (the increment).
    let (l, r, run) = b.clock.unwrap();
    b.clock = Some((l + 1, r + 1, run));
    b.reading();
    b.wait(100).put("f3", 'N').put("c6", 'n').wait(1200);
    b.play(&[("f1", "c4", 'B')]).wait(1000);
    let ev = b.run();
    assert_eq!(moves(&ev), ["e2e4", "e7e5", "g1f3", "b8c6", "f1c4"]);
    assert!(
        !alerts(&ev).contains(&AlertKind::IllegalMove),
        "{:?}",
        alerts(&ev)
    );
}

/// Time-scramble seeds 183 and 265: White's move shown, then White's and Black's
/// presses between two clock reports (the same display running, both displays up by the
/// increment, protocol §3.4), and Black's reply and White's next move reported in one scan
/// (squares are reported in scan order, not move by move, §4.1). Three moves from the last one recorded: the two presses completed the
/// first two (6.2.1), the third waits for its own press — no illegal position. White's two
/// moves also reach that placement in the other order (a3 … Nc6 h3): the board showed h3
/// first, so h3 was played first.
#[test]
fn two_unseen_presses_and_the_next_move_in_one_report_are_three_moves() {
    let mut b = game("fide-2023", "60+1", 60);
    b.play(&[("e2", "e4", 'P'), ("e7", "e5", 'p')]);
    b.mv("h2", "h3", 'P').wait(400);
    let (l, r, run) = b.clock.unwrap();
    b.clock = Some((l + 1, r + 1, run));
    b.reading();
    // One scan reports both: the squares filled first, then the squares left.
    b.wait(200).put("c6", 'n').wait(5).put("a3", 'P').wait(5);
    b.lift("b8").wait(5).lift("a2").wait(4000);
    b.press().wait(1000);
    let ev = b.run();
    assert_eq!(moves(&ev), ["e2e4", "e7e5", "h2h3", "b8c6", "a2a3"]);
    assert!(
        !alerts(&ev).contains(&AlertKind::IllegalPosition),
        "{:?}",
        alerts(&ev)
    );
}

/// Seed 19912: no clock, time trouble: Kg4, Kg2, Kf4, each placement shown for less than a
/// settle. The last placement is also two moves from the game (Kf4 Kg2), but the board
/// showed the king on g4 while the other king moved (protocol §3.3: it tells only which
/// piece stands where, so the placements shown in turn tell the line): three moves.
#[test]
fn a_line_followed_placement_by_placement_is_not_cut_short_by_a_shorter_one() {
    let mut b = started();
    b.mv("e2", "e4", 'P').wait(400);
    b.mv("e7", "e5", 'p').wait(400);
    b.mv("f1", "e2", 'B').wait(80);
    b.mv("b8", "c6", 'n').wait(50);
    b.mv("e2", "c4", 'B').wait(1000);
    b.mv("g8", "f6", 'n').wait(1000);
    let ev = b.run();
    assert_eq!(moves(&ev), ["e2e4", "e7e5", "f1e2", "b8c6", "e2c4", "g8f6"]);
}

/// Black plays e4-e3 and presses; White takes on d4 with the queen from c3, removing the
/// pawn first, and presses before the board reports the queen on d4. Black's press is still
/// waiting for its verdict (the board moved on meanwhile), and the placement it is judged on
/// — d4 and c3 empty, the pawn on e3 — is also "Qxe3 dxe3" after e3 (the board tells only
/// which piece stands where, protocol §3.3). The board never showed Qxe3: Black's press
/// completes e3, the move it showed, and no pair read from a capture in progress.
#[test]
fn a_press_completes_only_moves_shown_not_a_pair_read_from_a_capture_in_progress() {
    let mut b = game_from(
        "6k1/8/8/8/3pp3/2Q5/8/6K1 w - - 0 1",
        "fide-2023",
        "300",
        "full",
        300,
    );
    b.play(&[("g1", "h1", 'K')]);
    b.put("e3", 'p').lift("e4").wait(50).press();
    // White: the d4 pawn taken off, the queen lifted, the press, then the queen on d4.
    b.wait(170).lift("d4").wait(375).lift("c3").press();
    b.wait(90).put("d4", 'Q').wait(1000);
    b.play(&[("g8", "f8", 'k')]).wait(1000);
    let ev = b.run();
    assert_eq!(moves(&ev), ["g1h1", "e4e3", "c3d4", "g8f8"]);
    assert!(
        !alerts(&ev).contains(&AlertKind::IllegalMove),
        "{:?}",
        alerts(&ev)
    );
}

/// Black's pawn slides b7-b6-b5: the board reports b6, then the pawn leaving it, then
/// Black's press, and b5 only ~500 ms after the press (a slide reports every square it
/// passes, and a change can be reported late, longer while the piece flickers, protocol
/// §4.1). The moved piece gone from the square it was shown on may be taken in reply or
/// still on its way: the press looks again until the board says which, within its bound,
/// and completes b5, not b6.
#[test]
fn a_moved_piece_gone_from_a_slide_square_is_looked_for_before_the_press_is_judged() {
    let mut b = game_from(
        "6k1/1p6/8/8/8/2N5/8/6K1 w - - 0 1",
        "fide-2023",
        "300",
        "full",
        300,
    );
    b.play(&[("g1", "h1", 'K')]);
    b.put("b6", 'p')
        .lift("b7")
        .wait(75)
        .lift("b6")
        .wait(60)
        .press();
    // b5 reported ~510 ms after the press; White answers at once.
    b.wait(460)
        .put("b5", 'p')
        .lift("c3")
        .wait(115)
        .put("d5", 'N');
    b.wait(250).press().wait(1000);
    b.play(&[("g8", "h8", 'k')]).wait(1000);
    let ev = b.run();
    assert_eq!(moves(&ev), ["g1h1", "b7b5", "c3d5", "g8h8"]);
    assert!(
        !alerts(&ev).contains(&AlertKind::IllegalMove),
        "{:?}",
        alerts(&ev)
    );
}

/// Black takes on g5 and presses; the rook is reported on g5 and flickers off again, so the
/// press looks again for it (see above) — and White's flag falls before the press is
/// judged. The clock reported the press first: the move it completed is in the game before
/// the flag is judged.
#[test]
fn a_press_still_awaiting_its_verdict_when_a_flag_falls_completes_its_move_first() {
    let mut b = game_from(
        "6k1/8/8/2r5/6P1/8/8/6K1 w - - 0 1",
        "fide-2023",
        "300",
        "full",
        300,
    );
    b.play(&[("g4", "g5", 'P')]);
    b.lift("c5").wait(140).lift("g5").press();
    // The rook reported on g5 ~200 ms after the press, off again ~200 ms later.
    b.wait(145).put("g5", 'r').wait(120).lift("g5");
    b.wait(1008).flag(true, true).wait(2000);
    let ev = b.run();
    assert_eq!(moves(&ev), ["g4g5", "c5g5"]);
    assert_eq!(ends(&ev), [("0-1".to_string(), "flag_fall".to_string())]);
}

/// No clock: the king's last move goes to a centre square (Kd4), and a few seconds later a
/// magic piece signals the result. Only the kings-in-the-centre gesture puts a king there as
/// part of the gesture; with a magic piece, the king's move is played.
#[test]
fn a_king_moved_to_the_centre_before_a_magic_piece_gesture_is_a_move() {
    let mut b = Board::from_fen("8/8/8/2K5/8/7R/r7/k7 w - - 0 1", "");
    b.mv("c5", "d4", 'K').wait(4500);
    b.put("f5", '1').wait(3000);
    let ev = b.run();
    assert_eq!(moves(&ev), ["c5d4"]);
    assert_eq!(
        ends(&ev),
        [("1/2-1/2".to_string(), "result_gesture".to_string())]
    );
}

/// Black castles long king first: the king is shown on d8 on its way, then on c8, and the
/// rook is lifted from a8; the press comes with the rook still in the hand (it flickered on
/// d8), and the board reports it on d8 ~550 ms after the press. The king's slide square is
/// no move: the press waits, within its bound, for the rook of the castling.
#[test]
fn castling_whose_rook_is_reported_after_the_press_is_not_the_kings_slide_square() {
    let mut b = game_from(
        "r3k2r/ppp2ppp/8/8/8/8/PPP2PPP/R3K2R w KQkq - 0 1",
        "fide-2023",
        "300",
        "full",
        300,
    );
    b.play(&[("h2", "h3", 'P')]).wait(500);
    b.put("d8", 'k').lift("e8").wait(50);
    b.put("c8", 'k').lift("d8").wait(50);
    b.lift("a8").wait(300).press().wait(470).put("d8", 'r');
    // White's reply begins in the scan after the rook's report: the castled placement is
    // never shown settled.
    b.lift("a2")
        .wait(100)
        .put("a3", 'P')
        .wait(100)
        .press()
        .wait(1000);
    let ev = b.run();
    assert_eq!(moves(&ev), ["h2h3", "e8c8", "a2a3"]);
    assert!(
        !alerts(&ev).contains(&AlertKind::IllegalMove),
        "{:?}",
        alerts(&ev)
    );
}

/// Time trouble, the presses between the clock's reports: Black's bishop goes a1-b2 with
/// check and stands there alone for a moment; White lifts the king, and in one scan the king
/// lands on c2 while the bishop leaves b2 for c3 on its way to f6. The placement after Kc2
/// is never shown, and the board reads "Bc3 Kc2", then "Bf6 Kc2". The reply began while the
/// bishop stood on b2: Bb2 is complete, and Bf6 is the next move.
#[test]
fn a_move_the_opponent_began_to_answer_is_no_square_of_a_longer_slide() {
    let mut b = game_from(
        "4k3/8/8/8/8/8/7P/b1K5 w - - 0 1",
        "fide-2023",
        "60+1",
        "full",
        60,
    );
    b.play(&[("h2", "h3", 'P')]).wait(500);
    b.lift("a1").wait(50).put("b2", 'b').wait(145);
    b.lift("c1").wait(140);
    // One scan: the bishop on c3, the king on c2, b2 empty.
    b.put("c3", 'b').put("c2", 'K').lift("b2").wait(150);
    b.lift("c3").wait(130).put("f6", 'b').wait(1000);
    b.press().wait(1000);
    let ev = b.run();
    assert_eq!(moves(&ev), ["h2h3", "a1b2", "c1c2", "b2f6"]);
}
