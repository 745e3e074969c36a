//! A game found under way: a board that shows a game in progress while no game
//! is followed on it is told to the arbiter at once and followed from where it stands, or
//! rebuilt from the board's own log (protocol §3.6) when the log leads to the placement.

mod common;

use common::{Board, alert_of, alerts, claim_verdict, ee_message, moves, one, under_way_verdict};
use dgt_core::capture::parse_capture;
use dgt_core::input::ClockSide;
use dgt_core::verdict::{ToMoveFrom, UnderWayVerdict};
use dgt_core::{AlertKind, CoreConfig, Event, EventBody, Severity, Side};
use dgt_protocol::{DgtPiece, EeEntry, PhysicalSquare};
use shakmaty::uci::UciMove;
use shakmaty::{Chess, Color, Position, Square};

/// After 1.e4 e5 2.Nf3 Nc6 3.Bb5: Black to move.
const RUY_LOPEZ: &str = "r1bqkbnr/pppp1ppp/2n5/1B2p3/4P3/5N2/PPPP1PPP/RNBQK2R";
const RUY_MOVES: [&str; 5] = ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5"];

fn starts(ev: &[Event]) -> Vec<String> {
    ev.iter()
        .filter_map(|e| match &e.body {
            EventBody::GameStart { start_fen, .. } => Some(start_fen.clone()),
            _ => None,
        })
        .collect()
}

/// Each `game_start`'s mark of a game found under way (the moves before it not seen).
fn found_marks(ev: &[Event]) -> Vec<bool> {
    ev.iter()
        .filter_map(|e| match &e.body {
            EventBody::GameStart {
                found_under_way, ..
            } => Some(*found_under_way),
            _ => None,
        })
        .collect()
}

fn white_left() -> CoreConfig {
    CoreConfig {
        white_clock_side: Some(ClockSide::Left),
        ..CoreConfig::default()
    }
}

/// The board as the daemon first sees it: a game in progress, the clock running on
/// `right_runs`' display.
fn found(right_runs: Option<bool>) -> Board {
    let mut b = Board::new();
    b.clock = Some((250, 240, right_runs));
    b.dump_fen(RUY_LOPEZ);
    b.reading();
    b.wait(2500);
    b
}

#[test]
fn a_game_under_way_with_the_clock_running_is_told_and_followed_from_there() {
    // White's display is the left one; the right one runs: Black is on move.
    let mut b = found(Some(true));
    b.mv("a7", "a6", 'p').wait(250).press().wait(2000);
    let ev = b.run_with(white_left());
    assert_eq!(
        starts(&ev),
        [format!("{RUY_LOPEZ} b KQkq - 0 1")],
        "one game, from the position found, castling assumed where king and rook stand"
    );
    assert_eq!(
        found_marks(&ev),
        [true],
        "its record says the moves before were not seen"
    );
    let a = one(&ev, AlertKind::GameFoundUnderWay);
    assert_eq!(a.severity, Severity::Review);
    assert_eq!(a.side, Some(Side::Black));
    assert_eq!(
        a.fen.as_deref(),
        Some(format!("{RUY_LOPEZ} b KQkq - 0 1").as_str())
    );
    assert!(
        matches!(
            under_way_verdict(&a),
            UnderWayVerdict::Followed {
                to_move: Color::Black,
                ..
            }
        ),
        "followed from where it stands, the assumptions to check: {a:?}"
    );
    assert!(a.prescription.is_some());
    assert_eq!(moves(&ev), ["a7a6"]);
}

#[test]
fn without_the_clock_saying_the_first_move_made_tells_who_was_on_move() {
    // The clock runs, but which display is White's is not known (no configuration).
    let mut b = found(Some(true));
    b.wait(3000);
    b.mv("a7", "a6", 'p').wait(250).press().wait(300);
    b.mv("b5", "a4", 'B').wait(250).press().wait(2000);
    let ev = b.run();
    let told = alert_of(&ev, AlertKind::GameFoundUnderWay);
    assert_eq!(
        under_way_verdict(&told[0]),
        &UnderWayVerdict::ToMoveUnknown {
            placement: RUY_LOPEZ.parse().unwrap(),
            clock_runs: true
        },
        "the arbiter is told before any move: {told:?}"
    );
    assert_eq!(told[0].fen.as_deref(), Some(RUY_LOPEZ));
    assert_eq!(starts(&ev), [format!("{RUY_LOPEZ} b KQkq - 0 1")]);
    assert_eq!(moves(&ev), ["a7a6", "b5a4"]);
}

#[test]
fn the_arbiter_chooses_who_is_on_move_when_the_clock_is_stopped() {
    let mut b = found(None);
    b.op(r#"{"under_way": {"to_move": "black"}}"#);
    b.wait(500);
    let ev = b.run_with(white_left());
    assert_eq!(starts(&ev), [format!("{RUY_LOPEZ} b KQkq - 0 1")]);
    let told = alert_of(&ev, AlertKind::GameFoundUnderWay);
    assert_eq!(told.len(), 2, "found, then followed: {told:?}");
    assert_eq!(
        under_way_verdict(&told[1]),
        &UnderWayVerdict::Followed {
            to_move: Color::Black,
            how: ToMoveFrom::Arbiter
        },
        "{told:?}"
    );
}

#[test]
fn a_check_on_the_board_says_who_is_on_move() {
    // The black king stands in check: only Black can be on move, whatever the clock.
    let mut b = Board::new();
    b.dump_fen("4k3/8/8/8/3P4/8/5P2/4R1K1");
    b.wait(2500);
    let ev = b.run();
    assert_eq!(starts(&ev), ["4k3/8/8/8/3P4/8/5P2/4R1K1 b - - 0 1"]);
}

#[test]
fn a_piece_held_in_the_hand_is_not_taken_for_a_game_under_way() {
    // The bishop lifted for a second: the placement left is legal, but a move is under way.
    let mut b = Board::new();
    b.clock = Some((250, 240, Some(true)));
    b.dump_fen(RUY_LOPEZ);
    b.reading();
    b.wait(100);
    b.lift("b5").wait(1200);
    b.put("a4", 'B').wait(2500);
    let ev = b.run();
    assert!(starts(&ev).is_empty(), "no game yet: {:?}", starts(&ev));
    let told = alert_of(&ev, AlertKind::GameFoundUnderWay);
    assert_eq!(told.len(), 1, "{told:?}");
    assert_eq!(
        told[0].fen.as_deref(),
        Some("r1bqkbnr/pppp1ppp/2n5/4p3/B3P3/5N2/PPPP1PPP/RNBQK2R"),
        "the placement after the move, not the one with the bishop in the hand"
    );
}

#[test]
fn a_board_being_set_up_is_no_game_under_way() {
    let mut b = Board::new();
    b.dump_fen("4k3/pppppppp/8/8/8/8/PPPP4/RNBQK3");
    b.wait(1000);
    b.put("f2", 'P').wait(1000);
    let ev = b.run();
    assert!(alerts(&ev).is_empty(), "{:?}", alerts(&ev));
    assert!(starts(&ev).is_empty());
}

#[test]
fn a_draw_entered_at_once_in_a_game_found_under_way_is_no_early_draw() {
    let mut b = found(Some(true));
    b.op(r#"{"result": "1/2-1/2"}"#);
    b.wait(100);
    let ev = b.run_with(white_left());
    assert!(
        alert_of(&ev, AlertKind::ResultConflict).is_empty(),
        "5.2.3 counts from the initial position only: {:?}",
        alerts(&ev)
    );
}

#[test]
fn a_repetition_claim_says_the_moves_before_were_not_seen() {
    let mut b = found(Some(true));
    b.op(r#"{"claim": {"kind": "threefold"}}"#);
    b.wait(100);
    let ev = b.run_with(white_left());
    let a = one(&ev, AlertKind::ThreefoldRepetitionAvailable);
    assert!(claim_verdict(&a).found_under_way, "{a:?}");
}

// ---- the board's own log ---------------------------------------------------------------

/// The board's numbering of a square (normal orientation: physical 0 is a8).
fn phys(sq: Square) -> PhysicalSquare {
    PhysicalSquare::new((sq as u8) ^ 56).unwrap()
}

fn field(s: Square, p: Option<shakmaty::Piece>) -> EeEntry {
    EeEntry::Field {
        square: phys(s),
        piece: DgtPiece::from_fen_char(p.map_or('.', |p| p.char())).unwrap_or(DgtPiece::Empty),
        fast: false,
    }
}

/// A log: power-up with the start position tagged, then `moves`, each with its press.
fn log_of(moves: &[&str]) -> Vec<EeEntry> {
    let mut pos = Chess::default();
    let mut log = vec![EeEntry::Nop, EeEntry::Nop, EeEntry::Nop, EeEntry::PowerUp];
    for s in Square::ALL {
        if let Some(p) = pos.board().piece_at(s) {
            log.push(field(s, Some(p)));
        }
    }
    log.push(EeEntry::BeginPos);
    for (k, uci) in moves.iter().enumerate() {
        let m = UciMove::from_ascii(uci.as_bytes())
            .unwrap()
            .to_move(&pos)
            .unwrap();
        let before = pos.board().clone();
        pos.play_unchecked(m);
        let changed: Vec<Square> = Square::ALL
            .into_iter()
            .filter(|s| before.piece_at(*s) != pos.board().piece_at(*s))
            .collect();
        for s in &changed {
            if pos.board().piece_at(*s).is_none() {
                log.push(field(*s, None));
            }
        }
        for s in &changed {
            if let Some(p) = pos.board().piece_at(*s) {
                log.push(field(*s, Some(p)));
            }
        }
        log.push(EeEntry::LeverPress {
            left: k % 2 == 0,
            seconds: 290 - k as u32,
        });
    }
    log
}

/// A board on a serial port, found under way; its log comes `log_after` ms after the dump.
fn found_on_a_port(log: Option<Vec<EeEntry>>) -> Board {
    let mut b = Board::new();
    let line =
        r#"{"t_ms": 0, "board": "b", "link": {"state": "connected", "port": "/dev/ttyACM0"}}"#;
    b.inputs.extend(parse_capture(line).unwrap());
    b.clock = Some((250, 240, Some(true)));
    b.dump_fen(RUY_LOPEZ);
    b.reading();
    b.wait(2500);
    if let Some(log) = log {
        b.rx(ee_message(&log));
    }
    b.wait(1000);
    b
}

#[test]
fn the_game_is_rebuilt_from_the_board_log_when_it_leads_to_the_placement() {
    let mut b = found_on_a_port(Some(log_of(&RUY_MOVES)));
    b.mv("a7", "a6", 'p').wait(250).press().wait(2000);
    let ev = b.run();
    assert_eq!(
        starts(&ev),
        ["rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"]
    );
    let mut want: Vec<&str> = RUY_MOVES.to_vec();
    want.push("a7a6");
    assert_eq!(moves(&ev), want);
    let told = alert_of(&ev, AlertKind::GameFoundUnderWay);
    assert_eq!(
        found_marks(&ev),
        [false],
        "a rebuilt game has all its moves"
    );
    assert!(
        matches!(
            under_way_verdict(&told[0]),
            UnderWayVerdict::ReadingLog { .. }
        ),
        "{told:?}"
    );
    assert_eq!(
        under_way_verdict(told.last().unwrap()),
        &UnderWayVerdict::RebuiltFromLog {
            moves: 5,
            gap: None
        },
        "{told:?}"
    );
}

#[test]
fn a_log_that_does_not_lead_to_the_placement_leaves_the_game_followed_from_where_it_stands() {
    // The log's game is another one (1.d4): it does not lead to the board's placement.
    let mut b = found_on_a_port(Some(log_of(&["d2d4", "d7d5"])));
    b.mv("a7", "a6", 'p').wait(250).press().wait(2000);
    let ev = b.run();
    assert_eq!(starts(&ev), [format!("{RUY_LOPEZ} b KQkq - 0 1")]);
    assert_eq!(moves(&ev), ["a7a6"]);
}

#[test]
fn without_a_log_the_game_is_followed_from_where_it_stands_after_the_wait() {
    let mut b = found_on_a_port(None);
    // The log is awaited 20 s; a move made meanwhile is read once the wait is over.
    b.wait(12_000);
    b.mv("a7", "a6", 'p').wait(250).press().wait(12_000);
    let ev = b.run();
    assert_eq!(starts(&ev), [format!("{RUY_LOPEZ} b KQkq - 0 1")]);
    assert_eq!(moves(&ev), ["a7a6"]);
}

#[test]
fn a_move_made_while_the_log_was_sent_follows_the_rebuilt_game() {
    // The log ends at 2...Nc6; 3.Bb5 was made while it was sent (its report waits behind).
    let mut b = found_on_a_port(Some(log_of(&RUY_MOVES[..4])));
    b.mv("a7", "a6", 'p').wait(250).press().wait(2000);
    let ev = b.run();
    assert_eq!(
        starts(&ev),
        ["rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"]
    );
    let mut want: Vec<&str> = RUY_MOVES.to_vec();
    want.push("a7a6");
    assert_eq!(moves(&ev), want);
}

#[test]
fn a_log_that_comes_after_the_wait_still_rebuilds_a_game_without_moves() {
    // The host was slow: the log comes 25 s after the board was found, when the game found
    // under way is followed already (Black to move, by the clock) with no move read yet.
    let mut b = Board::new();
    let line =
        r#"{"t_ms": 0, "board": "b", "link": {"state": "connected", "port": "/dev/ttyACM0"}}"#;
    b.inputs.extend(parse_capture(line).unwrap());
    b.clock = Some((250, 240, Some(true)));
    b.dump_fen(RUY_LOPEZ);
    b.reading();
    b.wait(25_000);
    b.rx(ee_message(&log_of(&RUY_MOVES)));
    b.wait(1000);
    b.mv("a7", "a6", 'p').wait(250).press().wait(2000);
    let ev = b.run_with(white_left());
    let ids: Vec<String> = ev
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::GameStart { game, .. } => Some(game.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(
        ids,
        ["b/1", "b/1"],
        "the same game, started again from the start"
    );
    assert_eq!(
        found_marks(&ev),
        [true, false],
        "followed from where it stood, then rebuilt with every move"
    );
    assert_eq!(
        starts(&ev)[1],
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
    );
    let mut want: Vec<&str> = RUY_MOVES.to_vec();
    want.push("a7a6");
    assert_eq!(moves(&ev), want);
}

#[test]
fn a_clock_heard_after_the_placement_tells_who_is_on_move() {
    // The clock's first report comes after the board's: the game begins with it.
    let mut b = Board::new();
    b.dump_fen(RUY_LOPEZ);
    b.wait(3000);
    b.clock = Some((250, 240, Some(true)));
    b.reading();
    b.wait(500);
    b.mv("a7", "a6", 'p').wait(250).press().wait(2000);
    let ev = b.run_with(white_left());
    assert_eq!(starts(&ev), [format!("{RUY_LOPEZ} b KQkq - 0 1")]);
    let told = alert_of(&ev, AlertKind::GameFoundUnderWay);
    assert!(
        matches!(
            under_way_verdict(&told[0]),
            UnderWayVerdict::ToMoveUnknown { .. }
        ),
        "{told:?}"
    );
    assert_eq!(
        under_way_verdict(&told[1]),
        &UnderWayVerdict::Followed {
            to_move: Color::Black,
            how: ToMoveFrom::Clock
        },
        "{told:?}"
    );
    assert_eq!(moves(&ev), ["a7a6"]);
}

// ---- a replacement board -----------------------------------------------------------------

#[test]
fn a_spare_found_under_way_before_the_take_over_gives_its_game_record_way() {
    // Board 12 plays the Ruy Lopez to 3.Bb5 (White's display is the left one), then fails.
    let mut b = Board::new();
    b.label = "12".into();
    b.dump(common::START);
    b.wait(500);
    b.start_clock(300);
    b.wait(500);
    for (from, to, piece) in [
        ("e2", "e4", 'P'),
        ("e7", "e5", 'p'),
        ("g1", "f3", 'N'),
        ("b8", "c6", 'n'),
        ("f1", "b5", 'B'),
    ] {
        b.mv(from, to, piece).wait(250).press().wait(1000);
    }
    // The arbiter sets the position up on the spare, whose clock says Black is on move: the
    // spare is found under way and follows a game of its own before the take-over.
    b.label = "spare".into();
    b.reading();
    b.dump_fen(RUY_LOPEZ);
    b.wait(3000);
    b.op(r#"{"take_over": {"from": "12"}}"#);
    b.wait(500);
    b.mv("a7", "a6", 'p').wait(250).press().wait(2000);
    let ev = b.run_with(white_left());

    let spare_starts: Vec<&Event> = ev
        .iter()
        .filter(|e| e.board == "spare" && matches!(e.body, EventBody::GameStart { .. }))
        .collect();
    assert_eq!(spare_starts.len(), 1, "the spare was found under way first");
    let replaced: Vec<(String, String)> = ev
        .iter()
        .filter(|e| e.board == "spare")
        .filter_map(|e| match &e.body {
            EventBody::GameReplaced { game, replaced_by } => {
                Some((game.clone(), replaced_by.clone()))
            }
            _ => None,
        })
        .collect();
    assert_eq!(
        replaced,
        [("spare/1".to_string(), "12/1".to_string())],
        "the spare's own game gives way to the game moved to it"
    );
    let mut want: Vec<&str> = RUY_MOVES.to_vec();
    want.push("a7a6");
    assert_eq!(moves(&ev), want, "one game, continued on the spare");
    assert!(ev.iter().all(|e| match &e.body {
        EventBody::Move(m) => m.game == "12/1",
        _ => true,
    }));
}
