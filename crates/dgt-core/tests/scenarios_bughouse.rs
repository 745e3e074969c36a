//! Bughouse: the DJC Stein scenarios of the 2005 digest (§4.2, B01–B24, listed as
//! L05-BUG01…24 in `docs/scenarios.md`) and the Flemish ones of the 2017 digest (T52, T53),
//! played as the bytes two DGT boards and their clocks send.
//!
//! Team A has White on board "1" and Black on board "2" (1.4): a black piece A1 captures on
//! board 1 is A2's to drop on board 2.

mod common;

use common::*;
use dgt_core::bughouse::Regulation;
use dgt_core::bughouse::{DropFault, Standing};
use dgt_core::verdict::{
    Article, BughouseEndVerdict, BughouseFlagVerdict, ClockVerdict, DropVerdict, MatchVerdict,
    SeatVerdict, SetupVerdict, Team, WhatChanged,
};
use dgt_core::{AlertKind, CoreConfig, Event, EventBody, GameResult, Severity, Side};
use shakmaty::{Color, Role, Square};

/// After 1.e4 e5 2.Nc3, Black (A2) to move: the digest's `P2`.
const P2: &str = "rnbqkbnr/pppp1ppp/8/4p3/4P3/2N5/PPPP1PPP/R1BQKBNR b KQkq - 1 2";
/// Board 1 where White (A1) can take a black knight on d5 with the pawn on e4.
const KNIGHT_TO_TAKE: &str = "4k3/8/8/3n4/4P3/8/8/4K3 w - - 0 1";

/// A board of the match set up from a FEN, its clock started for the side to move at `t`.
fn seat(label: &str, fen: &str, t: u64) -> Board {
    bughouse_seat(label, fen, t, 300)
}

/// A piece put on an empty square and the clock pressed.
fn drop_piece(b: &mut Board, sq: &str, piece: char) {
    b.put(sq, piece).wait(300).press().wait(600);
}

/// A capture made with one hand: the captured piece lifted first, then the capturer moved,
/// and the clock pressed.
fn capture(b: &mut Board, from: &str, to: &str, piece: char) {
    b.lift(to)
        .wait(1000)
        .lift(from)
        .put(to, piece)
        .wait(300)
        .press()
        .wait(600);
}

/// Board 1: A1 takes the black knight (exd5) and presses; returns the time after it.
fn a1_takes_knight(b1: &mut Board) -> u64 {
    capture(b1, "e4", "d5", 'P');
    b1.t
}

/// L05-BUG01 (B01): the black knight A1 took on board 1 is dropped by A2 on h3: a legal drop,
/// recorded as N@h3. The same drop with no knight taken is illegal (B02's rule, 2.2).
#[test]
fn bug01_bug02_a_drop_needs_a_piece_from_the_partner_board() {
    let mut b1 = seat("1", KNIGHT_TO_TAKE, 0);
    let t = a1_takes_knight(&mut b1);
    let mut b2 = seat("2", P2, t);
    drop_piece(&mut b2, "h3", 'n');
    let ev = run_match(&[&b1, &b2], Regulation::DjcStein);
    assert_eq!(moves(&on(&ev, "1")), ["e4d5"]);
    assert_eq!(moves(&on(&ev, "2")), ["N@h3"]);
    assert!(
        alert_of(&ev, AlertKind::IllegalDrop).is_empty(),
        "{:?}",
        alerts(&ev)
    );
    // Board 2's reserves: the knight appears with the capture, goes with the drop (2.7).
    let reserves: Vec<(String, String)> = on(&ev, "2")
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::Reserves { white, black, .. } => Some((white.clone(), black.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(
        reserves,
        [
            (String::new(), "n".to_string()),
            (String::new(), String::new())
        ]
    );

    // B02: nothing was taken on board 1.
    let b1 = seat("1", KNIGHT_TO_TAKE, 0);
    let mut b2 = seat("2", P2, 1000);
    drop_piece(&mut b2, "h3", 'n');
    let ev = run_match(&[&b1, &b2], Regulation::DjcStein);
    assert_eq!(
        moves(&on(&ev, "2")),
        ["N@h3"],
        "the drop is followed as made"
    );
    let a = one(&ev, AlertKind::IllegalDrop);
    assert_eq!(
        a.severity,
        Severity::Claim,
        "the arbiter acts only on request (10.1)"
    );
    assert_eq!((a.side, a.ply), (Some(Side::Black), Some(1)));
    assert_eq!(article(&a), "2.2");
    assert_eq!(a.edition, "bughouse-djc-stein");
    match drop_verdict(&a) {
        DropVerdict::Illegal {
            dropper,
            faults,
            held,
            fide_blitz,
            ..
        } => {
            assert_eq!(*dropper, Color::Black);
            assert_eq!(faults, &[DropFault::NotAvailable]);
            assert_eq!(held, "nothing");
            // Accepted or demanded back (7.4), no time added: not the FIDE rules.
            assert_eq!(*fide_blitz, None);
        }
        v => panic!("an illegal drop: {v:?}"),
    }
}

/// L05-BUG03 (B03), BUG04 (B04 a) and L17-S52 (a), (c): a drop giving check (DJC 2.4), a
/// pawn on the dropper's 7th rank (2.5), under the Flemish regulation a pawn on the last
/// rank (5.c) and a check that is allowed.
#[test]
fn bug03_bug04_s52_drop_ranks_and_checks() {
    let cases: [(Regulation, &str, char, Option<&str>); 4] = [
        (Regulation::DjcStein, "f3", 'n', Some("2.4")),
        (Regulation::DjcStein, "e2", 'p', Some("2.5")),
        (Regulation::Flemish, "f3", 'n', None),
        (Regulation::Flemish, "b1", 'p', Some("5.c")),
    ];
    for (rules, sq, piece, art) in cases {
        // Board 1: A1 takes a black knight and a black pawn.
        let mut b1 = seat("1", "4k3/8/8/2pn4/1P2P3/8/8/4K3 w - - 0 1", 0);
        capture(&mut b1, "e4", "d5", 'P');
        b1.play(&[("e8", "e7", 'k')]);
        capture(&mut b1, "b4", "c5", 'P');
        let mut b2 = seat("2", P2, b1.t);
        drop_piece(&mut b2, sq, piece);
        let ev = run_match(&[&b1, &b2], rules);
        assert_eq!(moves(&on(&ev, "1")).len(), 3, "{rules:?} {sq}");
        let drops = alert_of(&ev, AlertKind::IllegalDrop);
        match art {
            Some(art) => {
                assert_eq!(drops.len(), 1, "{rules:?} {sq}: {:?}", alerts(&ev));
                assert_eq!(article(&drops[0]), art, "{rules:?} {sq}");
            }
            None => assert!(drops.is_empty(), "{rules:?} {sq}: {drops:?}"),
        }
    }
}

/// L05-BUG13 (B13) and BUG14 (B14): an illegal drop stands when the opponent moves on (7.5),
/// with no penalty; pressed back without a move it is the demand to take it back (7.6), not
/// a clock pressed without a move.
#[test]
fn bug13_bug14_illegal_drop_accepted_or_take_back_demanded() {
    let b1 = seat("1", KNIGHT_TO_TAKE, 0);
    let mut b2 = seat("2", P2, 1000);
    drop_piece(&mut b2, "h3", 'n');
    b2.play(&[("g1", "h3", 'N')]);
    let ev = run_match(&[&b1, &b2], Regulation::DjcStein);
    assert_eq!(moves(&on(&ev, "2")), ["N@h3", "g1h3"]);
    assert_eq!(alert_of(&ev, AlertKind::IllegalDrop).len(), 1);
    assert!(ends(&ev).is_empty());

    let b1 = seat("1", KNIGHT_TO_TAKE, 0);
    let mut b2 = seat("2", P2, 1000);
    drop_piece(&mut b2, "h3", 'n');
    b2.press().wait(900);
    let ev = run_match(&[&b1, &b2], Regulation::DjcStein);
    let kinds = alerts(&ev);
    assert!(
        !kinds.contains(&AlertKind::ClockPressedWithoutMove),
        "{kinds:?}"
    );
    let demand = alert_of(&ev, AlertKind::IllegalDrop);
    assert_eq!(demand.len(), 2, "{kinds:?}");
    assert_eq!(demand[1].severity, Severity::Info);
    assert_eq!(demand[1].side, Some(Side::White));
    assert_eq!(
        drop_verdict(&demand[1]),
        &DropVerdict::TakeBackDemanded {
            presser: Color::White
        }
    );
}

/// Board 2 where White (B2) mates with Re8 (B09's position after the move).
const MATE_IN_ONE: &str = "7k/6pp/8/8/8/8/8/4R1K1 w - - 0 1";

/// L05-BUG09 (B09) (c) and BUG20 (B20): a mate on board 2 waits while board 1 runs (5.4);
/// when board 1 ends it becomes final, and the match score is the sum (8.2).
#[test]
fn bug09c_bug20_provisional_mate_final_when_the_other_game_ends() {
    let mut b2 = seat("2", MATE_IN_ONE, 0);
    b2.play(&[("e1", "e8", 'R')]);
    let mut b1 = seat("1", "4k3/8/8/8/8/8/8/3QK3 w - - 0 1", b2.t + 2000);
    b1.play(&[("d1", "d2", 'Q')]);
    // Black (B1) on board 1 runs out of time.
    b1.wait(1000).flag(false, true).wait(1000);
    let ev = run_match(&[&b1, &b2], Regulation::DjcStein);
    let mates = alert_of(&ev, AlertKind::Checkmate);
    assert_eq!(mates.len(), 2, "{:?}", alerts(&ev));
    assert_eq!(mates[0].severity, Severity::Info);
    assert_eq!(
        bughouse_end(&mates[0]),
        BughouseEndVerdict::Provisional {
            side: Color::Black,
            standing: Standing::Mated
        }
    );
    assert_eq!(article(&mates[0]), "5.4");
    // The mate became the result only when board 1 ended (on the flag).
    let flag = one(&ev, AlertKind::FlagFall);
    assert_eq!(
        bughouse_flag_verdict(&flag).article(),
        dgt_core::verdict::Article::new("5.6"),
        "{flag:?}"
    );
    let end2: Vec<&Event> = ev
        .iter()
        .filter(|e| e.board == "2" && matches!(e.body, EventBody::GameEnd { .. }))
        .collect();
    assert_eq!(end2.len(), 1);
    let flag_at = ev
        .iter()
        .find(|e| matches!(&e.body, EventBody::Alert(a) if a.kind == AlertKind::FlagFall))
        .map(|e| e.t_ms);
    assert_eq!(
        Some(end2[0].t_ms),
        flag_at,
        "board 2 ended with board 1's flag"
    );
    assert_eq!(
        ends(&ev),
        [
            ("1-0".to_string(), "flag_fall".to_string()),
            ("1-0".to_string(), "checkmate".to_string())
        ]
    );
    // Board 1 1-0 (White = team A), board 2 1-0 (White = team B): 1 – 1.
    let score = one(&ev, AlertKind::MatchResult);
    let verdict = match_verdict(&score);
    assert_eq!(verdict.score(), Some((1.0, 1.0)), "{verdict:?}");
    assert_eq!(verdict.article(), "5.1, 8.2");
}

/// L05-BUG09 (a) and L05-BUG07 (B07): A1 promotes on board 1 with the white rook taken off
/// board 2, which lifts the mate there; the rook leaving board 2 is no move.
#[test]
fn bug07_bug09a_promotion_takes_the_mating_rook() {
    let mut b2 = seat("2", MATE_IN_ONE, 0);
    b2.play(&[("e1", "e8", 'R')]);
    let mut b1 = seat("1", "k7/4P3/8/8/8/8/8/4K3 w - - 0 1", b2.t + 500);
    b1.lift("e7").wait(200);
    b2.t = b1.t;
    b2.lift("e8").wait(200);
    b1.t = b2.t;
    b1.put("e8", 'R').wait(300).press().wait(1500);
    b2.t = b1.t;
    b2.play(&[("h8", "g8", 'k')]);
    let ev = run_match(&[&b1, &b2], Regulation::DjcStein);
    assert_eq!(moves(&on(&ev, "1")), ["e7e8r"]);
    assert_eq!(
        moves(&on(&ev, "2")),
        ["e1e8", "h8g8"],
        "the rook taken is no move"
    );
    let taken = one(&ev, AlertKind::PieceTakenForPromotion);
    assert_eq!(taken.squares, ["e8"]);
    assert!(ends(&ev).is_empty(), "the mate was lifted: {:?}", ends(&ev));
    assert!(!alerts(&ev).contains(&AlertKind::IllegalPosition));
}

/// L05-BUG09 (b) and (d): the mate is lifted by a knight A2 receives and drops on f8 (a
/// piece on his own back rank is allowed); without it, A2's flag ends the game 1-0.
#[test]
fn bug09b_bug09d_mate_lifted_by_a_drop_or_ended_by_the_flag() {
    let mut b2 = seat("2", MATE_IN_ONE, 0);
    b2.play(&[("e1", "e8", 'R')]);
    let mut b1 = seat("1", KNIGHT_TO_TAKE, b2.t + 500);
    let t = a1_takes_knight(&mut b1);
    b2.t = t;
    drop_piece(&mut b2, "f8", 'n');
    let ev = run_match(&[&b1, &b2], Regulation::DjcStein);
    assert_eq!(moves(&on(&ev, "2")), ["e1e8", "N@f8"]);
    assert!(alert_of(&ev, AlertKind::IllegalDrop).is_empty());
    assert!(ends(&ev).is_empty());

    // (d): nothing arrives; Black's flag falls on board 2 (his clock kept running).
    let mut b2 = seat("2", MATE_IN_ONE, 0);
    b2.play(&[("e1", "e8", 'R')]);
    b2.wait(2000).flag(false, true).wait(500);
    let b1 = seat("1", KNIGHT_TO_TAKE, 100);
    let ev = run_match(&[&b1, &b2], Regulation::DjcStein);
    assert_eq!(ends(&ev), [("1-0".to_string(), "checkmate".to_string())]);
    let flag = one(&ev, AlertKind::FlagFall);
    assert_eq!(article(&flag), "5.4");
    let v = bughouse_flag_verdict(&flag);
    assert!(matches!(v, BughouseFlagVerdict::WhileMated { .. }), "{v:?}");
    assert_eq!(v.result(), Some(GameResult::WhiteWins));
}

/// L05-BUG10 (B10): a stalemate waits too (5.5) and becomes a draw when board 1 ends.
#[test]
fn bug10_provisional_stalemate() {
    let mut b2 = seat("2", "7k/8/6K1/8/8/8/8/5Q2 w - - 0 1", 0);
    b2.play(&[("f1", "f7", 'Q')]);
    let mut b1 = seat("1", "4k3/8/8/8/8/8/8/4K3 w - - 0 1", b2.t + 1000);
    b1.wait(1000).flag(true, true).wait(1000);
    let ev = run_match(&[&b1, &b2], Regulation::DjcStein);
    let st = alert_of(&ev, AlertKind::Stalemate);
    assert_eq!(st.len(), 2, "{:?}", alerts(&ev));
    assert!(matches!(
        bughouse_end(&st[0]),
        BughouseEndVerdict::Provisional {
            standing: Standing::Stalemated,
            ..
        }
    ));
    assert!(ends(&ev).contains(&("1/2-1/2".to_string(), "stalemate".to_string())));
}

/// L05-BUG11 (B11) and BUG12 (B12): a flag against a bare king loses while the other game
/// runs (5.6, unlike FIDE 6.9); both flags are a draw the arbiter declares at once (5.8, 10.2).
#[test]
fn bug11_bug12_flags() {
    let mut b1 = seat("1", "4k3/8/8/8/8/8/8/4K3 b - - 0 1", 0);
    b1.wait(1000).flag(true, true).wait(500);
    let b2 = seat("2", P2, 0);
    let ev = run_match(&[&b1, &b2], Regulation::DjcStein);
    let f = one(&ev, AlertKind::FlagFall);
    assert_eq!((f.severity, f.side), (Severity::Info, Some(Side::Black)));
    let v = bughouse_flag_verdict(&f);
    assert_eq!(
        *v,
        BughouseFlagVerdict::PartnerPlaying {
            flagged: shakmaty::Color::Black
        }
    );
    assert_eq!(
        (v.article(), v.result()),
        (
            dgt_core::verdict::Article::new("5.6"),
            Some(GameResult::WhiteWins)
        )
    );
    assert_eq!(ends(&ev), [("1-0".to_string(), "flag_fall".to_string())]);

    let mut b1 = seat("1", "4k3/8/8/8/8/8/8/4K3 w - - 0 1", 0);
    b1.flags = (0x10, 0x10);
    b1.clock = Some((0, 0, None));
    b1.wait(500).reading();
    b1.wait(500);
    let b2 = seat("2", P2, 0);
    let ev = run_match(&[&b1, &b2], Regulation::DjcStein);
    let both = one(&ev, AlertKind::BothFlagsFallen);
    assert_eq!(both.severity, Severity::Intervene);
    assert_eq!(article(&both), "5.8, 10.2");
    assert_eq!(
        ends(&ev),
        [("1/2-1/2".to_string(), "both_flags_fallen".to_string())]
    );
}

/// L05-BUG24 (B24): the same position five times on a bughouse board is no draw (FIDE
/// Article 9 is not imported, 1.5); the same moves on a FIDE board end the game.
#[test]
fn bug24_no_fivefold_in_bughouse() {
    let shuffle = [
        ("g1", "f3", 'N'),
        ("g8", "f6", 'n'),
        ("f3", "g1", 'N'),
        ("f6", "g8", 'n'),
    ];
    let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    let mut b2 = seat("2", start, 0);
    for _ in 0..4 {
        b2.play(&shuffle);
    }
    let b1 = seat("1", start, 0);
    let ev = run_match(&[&b1, &b2], Regulation::DjcStein);
    assert_eq!(moves(&on(&ev, "2")).len(), 16);
    assert!(ends(&ev).is_empty(), "{:?}", ends(&ev));
    // Without the match, board 2 is a FIDE 2023 board: fivefold.
    let fide = b2.run_with(CoreConfig::default());
    assert!(alerts(&fide).contains(&AlertKind::FivefoldRepetition));
}

/// L17-S53 (Flemish 6.d, 6.f, 5.d): (a) a rook check with an empty square between is no mate
/// even without reserve pieces; (b) a knight mate waits for the opponent's claim; (c) on the
/// claim (the arbiter's result) the team wins the match whatever board 1 does.
#[test]
fn s53_flemish_mates() {
    let mut b2 = seat("2", MATE_IN_ONE, 0);
    b2.play(&[("e1", "e8", 'R')]);
    let b1 = seat("1", KNIGHT_TO_TAKE, 0);
    let ev = run_match(&[&b1, &b2], Regulation::Flemish);
    assert!(
        alert_of(&ev, AlertKind::Checkmate).is_empty(),
        "6.d: f8 and g8 are empty"
    );

    // A smothered mate: Nf7 takes nothing and the check cannot be blocked.
    let mut b2 = seat("2", "6rk/6pp/8/6N1/8/8/8/6K1 w - - 0 1", 0);
    b2.play(&[("g5", "f7", 'N')]);
    b2.wait(1000).op(r#"{"result": "1-0"}"#);
    b2.wait(500);
    let b1 = seat("1", KNIGHT_TO_TAKE, 0);
    let ev = run_match(&[&b1, &b2], Regulation::Flemish);
    let m = one(&ev, AlertKind::Checkmate);
    assert_eq!((m.severity, article(&m)), (Severity::Claim, "6.d, 6.f"));
    assert_eq!(
        ends(&ev).len(),
        1,
        "only the claim ended it: {:?}",
        ends(&ev)
    );
    let score = one(&ev, AlertKind::MatchResult);
    assert_eq!(
        match_verdict(&score),
        &MatchVerdict::WonOnBoard {
            team: Team::B,
            board: "2".into()
        }
    );
    assert_eq!(article(&score), "5.d");
}

/// L05-BUG23 (B23): a white bishop vanishing from board 2 with no capture and no promotion
/// on board 1 is an illegal position (the piece is unaccounted for).
#[test]
fn bug23_unaccounted_removal() {
    let mut b2 = seat("2", P2, 0);
    b2.lift("f1").wait(5000);
    let b1 = seat("1", KNIGHT_TO_TAKE, 0);
    let ev = run_match(&[&b1, &b2], Regulation::DjcStein);
    let a = one(&ev, AlertKind::IllegalPosition);
    assert_eq!(a.squares, ["f1"], "{a:?}");
    assert!(alert_of(&ev, AlertKind::PieceTakenForPromotion).is_empty());
}

/// L17-S52 (b): a knight "dropped" onto the pawn on e4 (the pawn taken off, the knight put in
/// its place): illegal, a drop must go to an empty square (DJC 2.3; Flemish 5.c).
#[test]
fn s52b_a_drop_cannot_capture() {
    for (rules, art) in [(Regulation::DjcStein, "2.3"), (Regulation::Flemish, "5.c")] {
        let mut b1 = seat("1", KNIGHT_TO_TAKE, 0);
        let t = a1_takes_knight(&mut b1);
        let mut b2 = seat("2", P2, t);
        b2.lift("e4").put("e4", 'n').wait(300).press().wait(900);
        let ev = run_match(&[&b1, &b2], rules);
        let a = one(&ev, AlertKind::IllegalDrop);
        assert_eq!(article(&a), art, "{rules:?}");
        assert_eq!(a.edition, rules.name());
        assert_eq!(
            illegal_change(&a).change,
            WhatChanged::DropOntoPiece {
                dropped: Role::Knight,
                square: Square::E4,
                there: Some(Role::Pawn)
            },
            "{rules:?}"
        );
        assert!(!alerts(&ev).contains(&AlertKind::IllegalMove));
    }
}

/// L05-BUG22 (B22): (a) a reserve knight put on d4 and taken back to the hand, then another
/// move: it must be dropped there (4.1); (b) dropped on d4 and moved on to f4 before the
/// press (FIDE 4.6 by analogy). Both at claim severity: the arbiter acts on request (10.1).
#[test]
fn bug22_reserve_piece_touched_or_moved_on() {
    let mut b1 = seat("1", KNIGHT_TO_TAKE, 0);
    let t = a1_takes_knight(&mut b1);
    let mut b2 = seat("2", P2, t);
    b2.put("d4", 'n').wait(700).lift("d4").wait(700);
    b2.play(&[("g8", "f6", 'n')]);
    let ev = run_match(&[&b1, &b2], Regulation::DjcStein);
    assert_eq!(moves(&on(&ev, "2")), ["g8f6"]);
    let a = one(&ev, AlertKind::TouchMove);
    assert_eq!((a.severity, article(&a)), (Severity::Claim, "4.1"));
    assert_eq!(a.squares, ["d4"]);

    let mut b1 = seat("1", KNIGHT_TO_TAKE, 0);
    let t = a1_takes_knight(&mut b1);
    let mut b2 = seat("2", P2, t);
    b2.put("d4", 'n')
        .wait(700)
        .lift("d4")
        .put("f4", 'n')
        .wait(300)
        .press()
        .wait(900);
    let ev = run_match(&[&b1, &b2], Regulation::DjcStein);
    assert_eq!(moves(&on(&ev, "2")), ["N@f4"]);
    let a = one(&ev, AlertKind::TouchMove);
    assert_eq!(article(&a), "4.1; FIDE 4.6 by analogy");
    assert_eq!(
        drop_verdict(&a),
        &DropVerdict::MovedAfterDrop {
            dropper: Color::Black,
            piece: Role::Knight,
            square: Square::D4,
            to: Square::F4
        }
    );
}

/// L05-BUG16 (B16): board 1 has ended while board 2 plays. The white queen taken off it for
/// White's promotion on board 2 is allowed (3.1); the king lifted afterwards is reported as
/// the final position altered (5.2).
#[test]
fn bug16_a_finished_board_is_frozen() {
    let mut b1 = seat("1", "4k3/8/8/8/8/8/8/3QK3 w - - 0 1", 0);
    b1.wait(1000).flag(true, true).wait(500);
    let mut b2 = seat("2", "k7/4P3/8/8/8/8/8/4K3 w - - 0 1", b1.t);
    b1.t = b2.t;
    b1.lift("d1").wait(300);
    b2.t = b1.t;
    b2.lift("e7").put("e8", 'Q').wait(300).press().wait(1500);
    b1.t = b2.t;
    b1.lift("e1").wait(4000);
    let ev = run_match(&[&b1, &b2], Regulation::DjcStein);
    assert_eq!(ends(&ev), [("0-1".to_string(), "flag_fall".to_string())]);
    assert_eq!(moves(&on(&ev, "2")), ["e7e8q"]);
    let taken = one(&ev, AlertKind::PieceTakenForPromotion);
    assert_eq!(taken.squares, ["d1"]);
    let a = one(&ev, AlertKind::IllegalPosition);
    assert_eq!(article(&a), "5.2");
    assert_eq!(
        a.squares,
        ["e1"],
        "only the king: the queen left for the promotion"
    );
}

/// L05-BUG18 (B18): board 2's clock set to 5:00 where the regulation plays 7:00 (6.3), and
/// started 2.4 s after board 1's (6.4).
#[test]
fn bug18_clock_setting_and_start_together() {
    let start_board = |label: &str, t: u64, secs: u64| {
        let mut b = Board::new();
        b.label = label.into();
        b.t = t;
        b.dump(START);
        b.wait(500);
        b.start_clock(secs).wait(300);
        b.play(&[("e2", "e4", 'P')]);
        b
    };
    let b1 = start_board("1", 0, 420);
    let b2 = start_board("2", 2400, 300);
    let ev = run_match(&[&b1, &b2], Regulation::DjcStein);
    let mismatch = alert_of(&ev, AlertKind::ClockSettingMismatch);
    let articles: Vec<&str> = mismatch.iter().map(article).collect();
    assert_eq!(articles, ["6.4", "6.3"], "{mismatch:?}");
    assert!(
        matches!(
            seat_verdict(&mismatch[0]),
            SeatVerdict::ClocksStartedApart { gap_ms: 2_400..2_500, partner } if partner == "1"
        ),
        "{:?}",
        mismatch[0]
    );
    assert_eq!(
        clock_verdict(&mismatch[1]),
        ClockVerdict::SetStartTime {
            base_ms: 420_000,
            article: Article::new("6.3")
        }
    );
    assert!(
        ev.iter()
            .filter(|e| matches!(&e.body, EventBody::Alert(a) if a.kind == AlertKind::ClockSettingMismatch))
            .all(|e| e.board == "2")
    );
}

/// L17-S52 (d): the knight A1 takes on board 1 is dropped on board 2 before A1 presses his
/// clock. DJC passes no condition (2.1): a legal drop. The Flemish regulation passes pieces
/// only after the press (5.b, 6.b): a review hint, since the hand-over cannot be seen.
#[test]
fn s52d_a_piece_passed_before_the_press() {
    for (rules, hint) in [(Regulation::DjcStein, false), (Regulation::Flemish, true)] {
        let mut b1 = seat("1", KNIGHT_TO_TAKE, 0);
        b1.lift("d5").wait(1000).lift("e4").put("d5", 'P').wait(800);
        let mut b2 = seat("2", P2, b1.t - 1500);
        b2.t = b1.t;
        drop_piece(&mut b2, "h3", 'n');
        b1.t = b2.t;
        b1.press().wait(600);
        let ev = run_match(&[&b1, &b2], rules);
        assert_eq!(moves(&on(&ev, "1")), ["e4d5"], "{rules:?}");
        assert_eq!(moves(&on(&ev, "2")), ["N@h3"], "{rules:?}");
        let drops = alert_of(&ev, AlertKind::IllegalDrop);
        if hint {
            assert_eq!(drops.len(), 1, "{drops:?}");
            assert_eq!(
                (drops[0].severity, article(&drops[0])),
                (Severity::Review, "5.b, 6.b")
            );
        } else {
            assert!(drops.is_empty(), "{rules:?}: {drops:?}");
        }
    }
}

/// L05-BUG19 (a): board 2 set up with bishop and knight swapped on b1 / c1. When play begins
/// from it the arbiter is told the regulation's window: restarted if noticed before Black
/// completed his third move, else it continues (7.1); a claim, since the arbiter acts only on
/// request (10.1).
#[test]
fn bug19_wrong_set_up_on_one_board() {
    let mut b2 = Board::new();
    b2.label = "2".into();
    b2.dump("rnbqkbnrpppppppp................................PPPPPPPPRBNQKBNR");
    b2.wait(500);
    b2.start_clock(420).wait(300);
    b2.play(&[("e2", "e4", 'P')]);
    let b1 = seat("1", KNIGHT_TO_TAKE, 0);
    let ev = run_match(&[&b1, &b2], Regulation::DjcStein);
    assert_eq!(moves(&on(&ev, "2")), ["e2e4"]);
    let a = one(&ev, AlertKind::SetupInvalid);
    assert_eq!((a.severity, article(&a)), (Severity::Claim, "7.1"));
    assert_eq!(setup_verdict(&a), SetupVerdict::BughouseRestart, "{a:?}");
}

/// L05-BUG17 (B17): Black resigns on board 1 while White is on move (the arbiter enters
/// 1-0). The resignation stands, White may play one last move (5.3) — here taking the
/// knight, which A2 then drops on board 2 — and after it the board is frozen (5.2).
#[test]
fn bug17_resignation_out_of_turn_allows_one_last_move() {
    let mut b1 = seat("1", KNIGHT_TO_TAKE, 0);
    b1.op(r#"{"result": "1-0"}"#);
    b1.wait(300);
    let t = a1_takes_knight(&mut b1);
    let mut b2 = seat("2", P2, t);
    drop_piece(&mut b2, "h3", 'n');
    b1.t = b2.t;
    b1.lift("e8").wait(4000);
    let ev = run_match(&[&b1, &b2], Regulation::DjcStein);
    assert_eq!(ends(&ev), [("1-0".to_string(), "arbiter".to_string())]);
    assert_eq!(moves(&on(&ev, "1")), ["e4d5"]);
    let last = one(&ev, AlertKind::MoveAfterGameEnd);
    assert_eq!((last.severity, article(&last)), (Severity::Info, "5.3"));
    assert_eq!(moves(&on(&ev, "2")), ["N@h3"]);
    assert!(
        alert_of(&ev, AlertKind::IllegalDrop).is_empty(),
        "the knight was White's to pass"
    );
    let frozen = one(&ev, AlertKind::IllegalPosition);
    assert_eq!(
        (article(&frozen), frozen.squares.clone()),
        ("5.2", vec!["e8".to_string()])
    );
}

/// L05-BUG07, the rook taken off board 2 four seconds before the promotion is completed on
/// board 1: board 2 reports the piece missing first, then accounts for it (3.1) and shows
/// the position as legal again; play goes on there.
#[test]
fn bug07_the_piece_taken_long_before_the_promotion() {
    let mut b2 = seat("2", MATE_IN_ONE, 0);
    b2.play(&[("e1", "e8", 'R')]);
    b2.lift("e8").wait(4000);
    let mut b1 = seat("1", "k7/4P3/8/8/8/8/8/4K3 w - - 0 1", b2.t - 2000);
    b1.t = b2.t;
    b1.lift("e7")
        .wait(200)
        .put("e8", 'R')
        .wait(300)
        .press()
        .wait(1500);
    b2.t = b1.t;
    b2.play(&[("h8", "g8", 'k')]);
    let ev = run_match(&[&b1, &b2], Regulation::DjcStein);
    assert_eq!(moves(&on(&ev, "2")), ["e1e8", "h8g8"]);
    let kinds = alerts(&on(&ev, "2"));
    let at = |k: AlertKind| kinds.iter().position(|x| *x == k);
    let (missing, taken, back) = (
        at(AlertKind::IllegalPosition),
        at(AlertKind::PieceTakenForPromotion),
        at(AlertKind::PositionRestored),
    );
    assert!(
        missing < taken && taken < back && missing.is_some(),
        "{kinds:?}"
    );
}

/// L05-BUG07, the spare box: A1 promotes on board 1 but no white queen leaves board 2. After
/// ten seconds board 2 says the new piece came from elsewhere (review, 3.1), and B2's queen
/// moved later is read as a move, not as the piece taken.
#[test]
fn bug07_a_promotion_piece_from_the_spare_box() {
    let mut b1 = seat("1", "k7/4P3/8/8/8/8/8/4K3 w - - 0 1", 0);
    b1.lift("e7")
        .wait(200)
        .put("e8", 'Q')
        .wait(300)
        .press()
        .wait(600);
    let mut b2 = seat("2", "4k3/8/8/8/8/8/8/3QK3 w - - 0 1", b1.t);
    b2.wait(12_000);
    // The queen held in the hand for a second.
    b2.lift("d1")
        .wait(1000)
        .put("d4", 'Q')
        .wait(300)
        .press()
        .wait(600);
    let ev = run_match(&[&b1, &b2], Regulation::DjcStein);
    assert_eq!(moves(&on(&ev, "1")), ["e7e8q"]);
    assert_eq!(moves(&on(&ev, "2")), ["d1d4"]);
    let a = one(&ev, AlertKind::PieceTakenForPromotion);
    assert_eq!((a.severity, article(&a)), (Severity::Review, "3.1"));
    assert_eq!(
        *seat_verdict(&a),
        SeatVerdict::PromotedPieceFromElsewhere {
            owed: vec!["white queen".into()],
            window_s: 10,
            partner: "1".into(),
            own_reserve_allowed: false
        }
    );
    assert!(!alerts(&ev).contains(&AlertKind::IllegalPosition));
}

/// L05-BUG08 (B08): board 2 has no white queen, rook, bishop or knight, so A1's pawn reaching
/// e8 cannot promote: it leaves the board and the clock is pressed. The game records e7e8
/// with no piece, goes on (Black replies), and the pawn is counted for the opponent's
/// partner (3.2, an upper bound): B2 may drop a white pawn on board 2.
#[test]
fn bug08_promotion_forfeited_without_a_piece_to_take() {
    let mut b1 = seat("1", "k7/4P3/8/8/8/8/8/4K3 w - - 0 1", 0);
    let mut b2 = seat("2", "4k3/pppppppp/8/8/8/8/PPPPPPPP/4K3 w - - 0 1", 0);
    b1.t = b2.t + 500;
    b1.lift("e7").wait(600).press().wait(800);
    b1.play(&[("a8", "b7", 'k')]);
    b2.t = b1.t;
    drop_piece(&mut b2, "d4", 'P');
    let ev = run_match(&[&b1, &b2], Regulation::DjcStein);
    assert_eq!(moves(&on(&ev, "1")), ["e7e8", "a8b7"]);
    let a = one(&ev, AlertKind::PieceTakenForPromotion);
    assert_eq!((a.severity, article(&a)), (Severity::Info, "3.1, 3.2"));
    assert_eq!(
        drop_verdict(&a),
        &DropVerdict::PromotionForfeited {
            player: Color::White,
            square: Square::E8,
            partner: "2".into()
        }
    );
    assert_eq!(moves(&on(&ev, "2")), ["P@d4"]);
    let kinds = alerts(&ev);
    assert!(
        !kinds.contains(&AlertKind::IllegalMove)
            && !kinds.contains(&AlertKind::IllegalDrop)
            && !kinds.contains(&AlertKind::PromotionIncomplete),
        "{kinds:?}"
    );
}

/// L05-BUG09 with a capture taken back: board 2's mate waits; on board 1 A1 shows the capture
/// of a black knight (not pressed), which would let A2 block — then puts it back. When board 1
/// ends, board 2's mate is final all the same (5.4).
#[test]
fn bug09_a_capture_shown_and_taken_back_leaves_the_mate_waiting() {
    let mut b2 = seat("2", MATE_IN_ONE, 0);
    b2.play(&[("e1", "e8", 'R')]);
    let mut b1 = seat("1", KNIGHT_TO_TAKE, b2.t + 500);
    b1.lift("d5")
        .wait(1000)
        .lift("e4")
        .put("d5", 'P')
        .wait(1500);
    b1.lift("d5").put("e4", 'P').put("d5", 'n').wait(1500);
    b1.flag(true, true).wait(1000);
    let ev = run_match(&[&b1, &b2], Regulation::DjcStein);
    assert!(
        moves(&on(&ev, "1")).is_empty(),
        "{:?}",
        moves(&on(&ev, "1"))
    );
    assert_eq!(
        ends(&ev),
        [
            ("0-1".to_string(), "flag_fall".to_string()),
            ("1-0".to_string(), "checkmate".to_string())
        ]
    );
}
