//! Bughouse played at the speed people play it: drops made within a second of each other, a
//! piece captured the moment it lands by a piece that itself just landed, en passant with
//! the captured pawn lifted last, a promotion taking its piece from the partner board while
//! pieces are in hand there, a pawn dropped on its own back rank. Each test reads two boards
//! through one core and checks every move and drop, and that no false claim is raised.
//!
//! Team A has White on board "1" and Black on board "2" (1.4).

mod common;

use common::*;
use dgt_core::bughouse::{DropFault, Regulation};
use dgt_core::verdict::DropVerdict;
use dgt_core::{AlertKind, Event, EventBody};
use shakmaty::Color;

/// A board of the match set up from a FEN, its clock started for the side to move at `t`.
fn seat(label: &str, fen: &str, t: u64) -> Board {
    bughouse_seat(label, fen, t, 420)
}

/// The alerts of the kinds a correct reading never raises in these games.
fn false_alerts(ev: &[Event]) -> Vec<String> {
    ev.iter()
        .filter_map(|e| match &e.body {
            EventBody::Alert(a)
                if matches!(
                    a.kind,
                    AlertKind::TouchMove
                        | AlertKind::IllegalDrop
                        | AlertKind::IllegalMove
                        | AlertKind::IllegalPosition
                        | AlertKind::PositionRestored
                        | AlertKind::PromotionIncomplete
                ) =>
            {
                Some(format!("{} {:?}: {}", e.board, a.kind, a.message))
            }
            _ => None,
        })
        .collect()
}

/// Board 1: White takes a black pawn (exd5), Black takes a white bishop (axb5): board 2's
/// White may drop a bishop, its Black a pawn.
fn board1_passes_bishop_and_pawn() -> Board {
    let mut b1 = seat("1", "k7/8/p7/1B1p4/4P3/8/8/4K3 w - - 0 1", 0);
    b1.play(&[("e4", "d5", 'P'), ("a6", "b5", 'p')]);
    b1
}

/// `B@a2`, `P@e6`, `Bxe6` within about a second: the pawn is taken the moment it lands, by
/// the bishop that landed just before it. Both drops and the capture are read, in order,
/// with no restored position, no touch-move claim and the reserves right after it — however
/// long each hand pauses (the board settles between the lifts when it pauses 300 ms).
#[test]
fn a_piece_just_dropped_taken_at_once_by_a_piece_just_dropped() {
    for (pause, lifts) in [(100, 100), (300, 400), (350, 900), (500, 300)] {
        let b1 = board1_passes_bishop_and_pawn();
        let mut b2 = seat("2", "7k/5ppp/8/8/8/8/5PPP/7K w - - 0 1", b1.t + 200);
        b2.put("a2", 'B').wait(pause).press().wait(pause);
        b2.put("e6", 'p').wait(pause).press().wait(pause);
        b2.lift("e6")
            .wait(lifts)
            .lift("a2")
            .wait(pause)
            .put("e6", 'B');
        b2.wait(pause).press().wait(1500);
        // Play goes on: Black replies, then White plays a plain move.
        b2.play(&[("g7", "g6", 'p'), ("h2", "h3", 'P')]);
        let ev = run_match(&[&b1, &b2], Regulation::DjcStein);
        assert_eq!(moves(&on(&ev, "1")), ["e4d5", "a6b5"]);
        assert_eq!(
            moves(&on(&ev, "2")),
            ["B@a2", "P@e6", "a2e6", "g7g6", "h2h3"],
            "pauses {pause} ms, {lifts} ms between the lifts: {:?}",
            false_alerts(&ev)
        );
        assert!(
            false_alerts(&ev).is_empty(),
            "pauses {pause}, {lifts}: {:?}",
            false_alerts(&ev)
        );
    }
}

/// The same with the capturer lifted first: the bishop just dropped on a2 is lifted, then the
/// pawn just dropped on e6, then the bishop put on e6.
#[test]
fn a_piece_just_dropped_taken_with_the_capturer_lifted_first() {
    for (pause, lifts) in [(100, 100), (300, 400), (350, 900)] {
        let b1 = board1_passes_bishop_and_pawn();
        let mut b2 = seat("2", "7k/5ppp/8/8/8/8/5PPP/7K w - - 0 1", b1.t + 200);
        b2.put("a2", 'B').wait(pause).press().wait(pause);
        b2.put("e6", 'p').wait(pause).press().wait(pause);
        b2.lift("a2")
            .wait(lifts)
            .lift("e6")
            .wait(pause)
            .put("e6", 'B');
        b2.wait(pause).press().wait(1500);
        b2.play(&[("g7", "g6", 'p')]);
        let ev = run_match(&[&b1, &b2], Regulation::DjcStein);
        assert_eq!(
            moves(&on(&ev, "2")),
            ["B@a2", "P@e6", "a2e6", "g7g6"],
            "pauses {pause}, {lifts}: {:?}",
            false_alerts(&ev)
        );
        assert!(
            false_alerts(&ev).is_empty(),
            "pauses {pause}, {lifts}: {:?}",
            false_alerts(&ev)
        );
    }
}

/// En passant with the captured pawn lifted last (the capturing pawn moved first, then the
/// pawn beside it taken off): read as the capture, no touch-move claim about a reserve pawn.
#[test]
fn en_passant_with_the_captured_pawn_lifted_last() {
    let b1 = board1_passes_bishop_and_pawn();
    let mut b2 = seat("2", "4k3/4p3/8/3P4/8/8/8/4K3 b - - 0 1", b1.t + 200);
    b2.play(&[("e7", "e5", 'p')]);
    b2.lift("d5").put("e6", 'P').wait(200).lift("e5");
    b2.wait(200).press().wait(1500);
    b2.play(&[("e8", "d8", 'k')]);
    let ev = run_match(&[&b1, &b2], Regulation::DjcStein);
    assert_eq!(moves(&on(&ev, "2")), ["e7e5", "d5e6", "e8d8"]);
    assert!(false_alerts(&ev).is_empty(), "{:?}", false_alerts(&ev));
}

/// Board 2's White has lifted the bishop on d2 and his knight on e4 to capture it when board
/// 1's White promotes to a knight 0.8 s later. The knight in his hand is not the one taken:
/// it lands on d2 (`Nxd2`), and only when it is then lifted off the board is it taken for
/// the promotion (3.1). Read without a panic, every move in order.
#[test]
fn a_knight_in_hand_on_one_board_when_the_other_promotes() {
    let mut b2 = seat("2", "k7/8/8/8/4N3/8/3b4/7K w - - 0 1", 0);
    let mut b1 = seat("1", "k7/4P3/8/8/8/8/8/4K3 w - - 0 1", 0);
    b2.t = 2000;
    b2.lift("d2").wait(100).lift("e4");
    b1.t = b2.t + 800;
    b1.lift("e7")
        .wait(150)
        .put("e8", 'N')
        .wait(200)
        .press()
        .wait(600);
    b2.t = b1.t;
    b2.put("d2", 'N').wait(150).press().wait(1000);
    b2.lift("d2").wait(2000);
    b2.play(&[("a8", "b7", 'k')]);
    let ev = run_match(&[&b1, &b2], Regulation::DjcStein);
    assert_eq!(moves(&on(&ev, "1")), ["e7e8n"]);
    assert_eq!(moves(&on(&ev, "2")), ["e4d2", "a8b7"]);
    assert!(false_alerts(&ev).is_empty(), "{:?}", false_alerts(&ev));
    let taken = alert_of(&on(&ev, "2"), AlertKind::PieceTakenForPromotion);
    assert_eq!(taken.len(), 1, "{:?}", alerts(&ev));
    assert_eq!(taken[0].squares, ["d2"]);
}

/// The same with the knight the promotion takes lifted from e4 while the bishop on d2 is
/// already off the board: whichever the core reads, it neither panics nor stops board 1.
#[test]
fn a_knight_taken_from_a_capture_in_progress_never_stops_the_core() {
    let mut b2 = seat("2", "k7/8/8/8/4N3/8/3b4/7K w - - 0 1", 0);
    let mut b1 = seat("1", "k7/4P3/8/8/8/8/8/4K3 w - - 0 1", 0);
    b2.t = 2000;
    b2.lift("d2").wait(100).lift("e4");
    b1.t = b2.t + 800;
    b1.lift("e7")
        .wait(150)
        .put("e8", 'N')
        .wait(200)
        .press()
        .wait(600);
    b1.play(&[("a8", "b7", 'k'), ("e1", "e2", 'K')]);
    b2.t = b1.t;
    b2.put("d2", 'N').wait(150).press().wait(3000);
    b2.play(&[("a8", "b8", 'k')]);
    let ev = run_match(&[&b1, &b2], Regulation::DjcStein);
    assert_eq!(moves(&on(&ev, "1")), ["e7e8n", "a8b7", "e1e2"]);
}

/// Board 2's Black drops a pawn on his own back rank (illegal, 2.5) and White replies; then
/// board 1's White promotes to a rook, taking board 2's. One illegal-drop claim, no
/// incomplete promotion, and the rook taken is read as taken (3.1), not as missing.
#[test]
fn a_pawn_dropped_on_its_own_back_rank_is_no_promotion() {
    let mut b1 = seat("1", "k7/4P3/8/3p4/4P3/8/8/4K3 w - - 0 1", 0);
    b1.play(&[("e4", "d5", 'P'), ("a8", "b7", 'k')]);
    let mut b2 = seat("2", "4k3/8/8/8/8/8/8/R3K3 b - - 0 1", b1.t);
    b2.put("h8", 'p').wait(150).press().wait(600);
    b2.play(&[("a1", "a2", 'R')]);
    b1.t = b2.t + 500;
    b1.lift("e7")
        .wait(150)
        .put("e8", 'R')
        .wait(200)
        .press()
        .wait(300);
    b2.t = b1.t - 600;
    b2.lift("a2").wait(1500);
    b2.play(&[("e8", "d8", 'k')]);
    let ev = run_match(&[&b1, &b2], Regulation::DjcStein);
    assert_eq!(moves(&on(&ev, "1")), ["e4d5", "a8b7", "e7e8r"]);
    assert_eq!(moves(&on(&ev, "2")), ["P@h8", "a1a2", "e8d8"]);
    let claims: Vec<String> = false_alerts(&ev);
    assert_eq!(claims.len(), 1, "{claims:?}");
    let dropped = one(&on(&ev, "2"), AlertKind::IllegalDrop);
    assert!(
        matches!(
            drop_verdict(&dropped),
            DropVerdict::Illegal { dropper: Color::Black, notation, faults, .. }
                if notation == "P@h8" && faults == &[DropFault::PawnRank(1)]
        ),
        "{dropped:?}"
    );
    let taken = alert_of(&on(&ev, "2"), AlertKind::PieceTakenForPromotion);
    assert_eq!(taken.len(), 1, "{:?}", alerts(&ev));
    assert_eq!(taken[0].squares, ["a2"]);
}

/// A board reports the squares one scan found changed in square order (protocol §1.1), so
/// a bishop moved c1-f4 within one scan can show on f4 a few ms before c1 shows empty. With
/// a bishop in White's reserve that moment looks like a drop on f4: it is the move's own
/// piece arriving, no touched reserve piece (DJC 4.1).
#[test]
fn a_move_reported_destination_first_is_no_touched_reserve_piece() {
    let b1 = board1_passes_bishop_and_pawn();
    let mut b2 = seat("2", "7k/5ppp/8/8/8/8/5PPP/2B4K w - - 0 1", b1.t + 200);
    b2.put("f4", 'B');
    b2.t -= 75;
    b2.lift("c1").wait(300).press().wait(1000);
    b2.play(&[("g7", "g6", 'p')]);
    let ev = run_match(&[&b1, &b2], Regulation::DjcStein);
    assert_eq!(moves(&on(&ev, "2")), ["c1f4", "g7g6"]);
    assert!(false_alerts(&ev).is_empty(), "{:?}", false_alerts(&ev));
}

/// A pawn dropped on its own back rank stays there (the drop followed as made, 7.4). An
/// illegal move made later on that board is an illegal move, not a promotion left
/// incomplete: the pawn on h8 was not part of it.
#[test]
fn an_illegal_move_after_a_back_rank_pawn_drop_is_no_incomplete_promotion() {
    let mut b1 = seat("1", "k7/8/8/3p4/4P3/8/8/4K3 w - - 0 1", 0);
    b1.play(&[("e4", "d5", 'P')]);
    let mut b2 = seat("2", "4k3/8/8/8/8/8/8/R3K3 b - - 0 1", b1.t);
    b2.put("h8", 'p').wait(150).press().wait(600);
    // White's rook jumps like a knight, a1-b3, and the clock is pressed.
    b2.lift("a1")
        .wait(150)
        .put("b3", 'R')
        .wait(200)
        .press()
        .wait(2000);
    let ev = run_match(&[&b1, &b2], Regulation::DjcStein);
    let kinds = alerts(&on(&ev, "2"));
    assert!(
        kinds.contains(&AlertKind::IllegalMove) && !kinds.contains(&AlertKind::PromotionIncomplete),
        "{kinds:?}"
    );
}

/// Flemish (FIDE blitz rules underneath, 3): board 2's Black lifts his pawn from e2 to
/// promote, board 1's black knight on b4 is taken for that promotion at once, and board
/// 1's Black drops a pawn and presses before the knight is put on e1 there. Until the
/// promotion is completed board 1 shows a drop plus a piece missing; its press waits for
/// the promotion, which explains the knight: no illegal move, no position restored, every
/// move read.
#[test]
fn a_piece_lifted_for_a_promotion_not_yet_completed_while_the_other_board_presses() {
    let mut b1 = seat("1", "k7/8/8/8/1n6/8/8/K7 w - - 0 1", 0);
    let mut b2 = seat("2", "k7/7p/8/8/8/8/4p3/K6R w - - 0 1", 0);
    // Board 2's White takes a black pawn: board 1's Black may drop it.
    b2.t = 1500;
    b2.play(&[("h1", "h7", 'R')]);
    b1.t = 1500;
    b1.play(&[("a1", "b1", 'K')]);
    b2.t = 3000;
    b2.lift("e2");
    b1.t = 3300;
    b1.lift("b4").wait(300).put("e5", 'p').wait(150).press();
    b2.t = 4300;
    b2.put("e1", 'n').wait(200).press().wait(600);
    b1.t = 5500;
    b1.play(&[("b1", "a2", 'K')]);
    b2.t = 5500;
    b2.play(&[("a1", "b1", 'K')]);
    let ev = run_match(&[&b1, &b2], Regulation::Flemish);
    assert_eq!(moves(&on(&ev, "1")), ["a1b1", "P@e5", "b1a2"]);
    assert_eq!(moves(&on(&ev, "2")), ["h1h7", "e2e1n", "a1b1"]);
    assert!(false_alerts(&ev).is_empty(), "{:?}", false_alerts(&ev));
    let taken = alert_of(&on(&ev, "1"), AlertKind::PieceTakenForPromotion);
    assert_eq!(taken.len(), 1, "{:?}", alerts(&ev));
    assert_eq!(taken[0].squares, ["b4"]);
}

/// Board 1's Black moves his queen h4-g4 and presses; a moment later the queen is lifted
/// off g4 for board 2's Black, who promotes on e1 (3.1). The board then shows the queen
/// gone from h4 — what taking it before the move would show too — but the press and the
/// placement shown before say Qg4 was played: read as the move, then the queen taken from
/// g4, no press without a move and no touched reserve piece.
#[test]
fn a_piece_taken_for_the_partners_promotion_just_after_its_move_was_pressed() {
    for rules in [
        Regulation::DjcStein,
        Regulation::Knsb2000,
        Regulation::Flemish,
    ] {
        for (moving, after_press) in [(150, 200), (40, 170), (300, 400)] {
            let mut b1 = seat("1", "k7/8/8/8/7q/8/8/K7 b - - 0 1", 0);
            let mut b2 = seat("2", "K7/8/8/8/8/8/4p3/7k b - - 0 1", 0);
            b2.t = 2000;
            b2.lift("e2");
            b1.t = 2200;
            b1.lift("h4")
                .wait(moving)
                .put("g4", 'q')
                .wait(100)
                .press()
                .wait(after_press)
                .lift("g4");
            b2.t = b1.t + 500;
            b2.put("e1", 'q').wait(200).press().wait(600);
            b1.t = b2.t;
            b1.play(&[("a1", "b1", 'K')]);
            b2.play(&[("a8", "b8", 'K')]);
            let ev = run_match(&[&b1, &b2], rules);
            let case = format!("{rules:?}, {moving} ms, lifted {after_press} ms after the press");
            assert_eq!(
                moves(&on(&ev, "1")),
                ["h4g4", "a1b1"],
                "{case}: {:?}",
                alerts(&ev)
            );
            assert_eq!(moves(&on(&ev, "2")), ["e2e1q", "a8b8"], "{case}");
            assert!(
                false_alerts(&ev).is_empty()
                    && alert_of(&ev, AlertKind::ClockPressedWithoutMove).is_empty(),
                "{case}: {:?}",
                alerts(&ev)
            );
            let taken = alert_of(&on(&ev, "1"), AlertKind::PieceTakenForPromotion);
            assert_eq!(taken.len(), 1, "{case}: {:?}", alerts(&ev));
            assert_eq!(taken[0].squares, ["g4"], "{case}");
        }
    }
}

/// Board 2's White promotes on g8 to a knight, taking board 1's white knight from c3 (3.1);
/// board 1's Black drops a pawn on c3, where the knight stood, and presses before the
/// promotion is read. The pawn is dropped onto the emptied square, not onto the knight
/// (2.3): the knight taken, the drop read, no illegal drop claimed.
#[test]
fn a_drop_on_the_square_a_piece_left_for_the_partners_promotion() {
    for rules in [
        Regulation::DjcStein,
        Regulation::Knsb2000,
        Regulation::Flemish,
    ] {
        for (lift, drop) in [(3200, 3650), (3000, 3300), (3500, 4500)] {
            let mut b2 = seat("2", "k7/6P1/8/3p4/4P3/8/8/K7 w - - 0 1", 0);
            let mut b1 = seat("1", "k7/8/8/8/8/2N5/8/4K3 b - - 0 1", 0);
            // Board 2's White takes a black pawn: board 1's Black may drop it.
            b2.t = 500;
            b2.play(&[("e4", "d5", 'P'), ("a8", "b8", 'k')]);
            b2.t = 2900;
            b2.lift("g7").wait(500).put("g8", 'N').wait(200).press();
            b1.t = lift;
            b1.lift("c3")
                .wait(drop - lift)
                .put("c3", 'p')
                .wait(20)
                .press();
            b1.t = b1.t.max(b2.t) + 1500;
            b2.t = b1.t;
            b1.play(&[("e1", "d1", 'K')]);
            b2.play(&[("b8", "c7", 'k')]);
            let ev = run_match(&[&b1, &b2], rules);
            let case = format!("{rules:?}, knight lifted at {lift}, pawn dropped at {drop}");
            assert_eq!(
                moves(&on(&ev, "1")),
                ["P@c3", "e1d1"],
                "{case}: {:?}",
                alerts(&ev)
            );
            assert_eq!(
                moves(&on(&ev, "2")),
                ["e4d5", "a8b8", "g7g8n", "b8c7"],
                "{case}"
            );
            assert!(
                false_alerts(&ev).is_empty(),
                "{case}: {:?}",
                false_alerts(&ev)
            );
            let taken = alert_of(&on(&ev, "1"), AlertKind::PieceTakenForPromotion);
            assert_eq!(taken.len(), 1, "{case}: {:?}", alerts(&ev));
            assert_eq!(taken[0].squares, ["c3"], "{case}");
        }
    }
}

/// Board 2's White drops a pawn on c7 (KNSB and Flemish allow a pawn on its seventh rank),
/// Black's rook goes c8-d8 and back, and White lifts the pawn to promote while the knight
/// is fetched from board 1 (3.1). With the pawn lifted the board shows the position of
/// three plies before; that is a move under way, not a take-back: no restored position,
/// the promotion read when the knight lands.
#[test]
fn a_pawn_lifted_to_promote_that_leaves_an_earlier_position() {
    for rules in [Regulation::Knsb2000, Regulation::Flemish] {
        for fetch in [600, 1500, 2500] {
            let mut b1 = seat("1", "k7/8/8/8/8/1p6/P7/6NK b - - 0 1", 0);
            let mut b2 = seat("2", "k2r4/8/8/8/8/8/8/K7 b - - 0 1", 0);
            // Board 1's Black takes a white pawn: board 2's White may drop it.
            b1.t = 500;
            b1.play(&[("b3", "a2", 'p'), ("h1", "h2", 'K')]);
            b2.t = 500;
            b2.play(&[("d8", "c8", 'r')]);
            b2.t = 3000;
            b2.put("c7", 'P').wait(300).press().wait(800);
            b2.play(&[("c8", "d8", 'r')]);
            b2.wait(1000).lift("c7");
            b1.t = b1.t.max(b2.t + 200);
            b1.lift("g1");
            b2.wait(fetch).put("c8", 'N').wait(200).press().wait(800);
            b2.play(&[("a8", "b8", 'k')]);
            b1.t = b1.t.max(b2.t);
            b1.play(&[("a8", "b7", 'k')]);
            let ev = run_match(&[&b1, &b2], rules);
            let case = format!("{rules:?}, the knight put {fetch} ms after the pawn lifted");
            assert_eq!(
                moves(&on(&ev, "2")),
                ["d8c8", "P@c7", "c8d8", "c7c8n", "a8b8"],
                "{case}: {:?}",
                alerts(&ev)
            );
            assert_eq!(moves(&on(&ev, "1")), ["b3a2", "h1h2", "a8b7"], "{case}");
            assert!(
                false_alerts(&ev).is_empty(),
                "{case}: {:?}",
                false_alerts(&ev)
            );
        }
    }
}

/// Board 1's Black is promoting on a1 and board 2's black rook on a8 has left for it (3.1)
/// when board 2's White drops a pawn on a4 and presses: until the promotion is read, the
/// board shows the drop plus a rook missing, no move. Black's queen then lifts the pawn to
/// capture it before the promotion is read. The press completed `P@a4`, read from what the
/// board showed at the press once the rook is out of the game — not a press without a
/// move, with the capture then unreadable.
#[test]
fn a_drop_pressed_while_a_piece_is_away_for_the_partners_promotion_then_captured() {
    for rules in [
        Regulation::DjcStein,
        Regulation::Knsb2000,
        Regulation::Flemish,
    ] {
        for victim_lifted in [250, 600, 1000] {
            let mut b1 = seat("1", "8/8/8/8/8/k6K/pP6/8 b - - 0 1", 0);
            let mut b2 = seat("2", "r3k3/8/8/8/8/8/2q5/4K3 w - - 0 1", 0);
            // Board 1's Black takes a white pawn: board 2's White may drop it.
            b1.t = 500;
            b1.play(&[("a3", "b2", 'k'), ("h3", "g3", 'K')]);
            b2.t = 500;
            b2.play(&[("e1", "f1", 'K'), ("e8", "f8", 'k')]);
            b1.t = 3000;
            b1.lift("a2");
            b2.t = 3300;
            b2.lift("a8").wait(400).put("a4", 'P').wait(200).press();
            b2.wait(victim_lifted).lift("a4");
            b1.t = b2.t + 200;
            b1.put("a1", 'r').wait(200).press().wait(300);
            b2.t = b1.t;
            b2.lift("c2")
                .wait(200)
                .put("a4", 'q')
                .wait(200)
                .press()
                .wait(800);
            b2.play(&[("f1", "g1", 'K')]);
            b1.t = b2.t;
            b1.play(&[("g3", "f3", 'K')]);
            let ev = run_match(&[&b1, &b2], rules);
            let case = format!("{rules:?}, the pawn lifted {victim_lifted} ms after the press");
            assert_eq!(
                moves(&on(&ev, "2")),
                ["e1f1", "e8f8", "P@a4", "c2a4", "f1g1"],
                "{case}: {:?}",
                alerts(&ev)
            );
            assert_eq!(
                moves(&on(&ev, "1")),
                ["a3b2", "h3g3", "a2a1r", "g3f3"],
                "{case}"
            );
            assert!(
                false_alerts(&ev).is_empty()
                    && alert_of(&ev, AlertKind::ClockPressedWithoutMove).is_empty(),
                "{case}: {:?}",
                alerts(&ev)
            );
        }
    }
}
