//! Moves made while a board was disconnected, recovered from the board's EEPROM log.

use dgt_core::eeprom::LogGap;
use dgt_core::event::{Orientation, Side};
use dgt_core::input::ClockSide;
use dgt_journal::eeprom_recovery::{LastKnown, recover_moves, since_last_download};
use dgt_protocol::{DgtPiece, EeEntry, PhysicalSquare};
use shakmaty::{CastlingMode, Chess, Square};

/// The board's own numbering of a chess square, normal orientation: physical 0 is a8
/// (protocol §3.2), so the rank flips and the file stays.
fn phys(sq: Square, orientation: Orientation) -> PhysicalSquare {
    let i = (sq as u8) ^ 56;
    let i = match orientation {
        Orientation::Normal => i,
        Orientation::Rotated => 63 - i,
    };
    PhysicalSquare::new(i).unwrap()
}

fn start_codes(orientation: Orientation) -> [u8; 64] {
    let mut c = [0u8; 64];
    let back = [2, 3, 4, 6, 5, 4, 3, 2];
    for f in 0..8 {
        c[f] = back[f] + 6;
        c[8 + f] = 7;
        c[48 + f] = 1;
        c[56 + f] = back[f];
    }
    if orientation == Orientation::Rotated {
        c.reverse();
    }
    c
}

fn field(sq: Square, piece: DgtPiece, fast: bool, o: Orientation) -> EeEntry {
    EeEntry::Field {
        square: phys(sq, o),
        piece,
        fast,
    }
}

/// e4, d5, exd5 (the captured pawn lifted first), with a lever press after each move.
fn three_moves(o: Orientation, white_left: bool) -> Vec<EeEntry> {
    use DgtPiece::*;
    vec![
        EeEntry::Downloaded,
        field(Square::E2, Empty, false, o),
        field(Square::E4, WhitePawn, false, o),
        EeEntry::LeverPress {
            left: white_left,
            seconds: 179,
        },
        field(Square::D7, Empty, false, o),
        // Slid: d6 touched on the way for less than 250 ms.
        field(Square::D6, BlackPawn, true, o),
        field(Square::D6, Empty, true, o),
        field(Square::D5, BlackPawn, true, o),
        EeEntry::LeverPress {
            left: !white_left,
            seconds: 178,
        },
        field(Square::D5, Empty, false, o),
        field(Square::E4, Empty, false, o),
        field(Square::D5, WhitePawn, false, o),
        EeEntry::LeverPress {
            left: white_left,
            seconds: 175,
        },
    ]
}

fn last_known(o: Orientation, white: ClockSide) -> LastKnown {
    LastKnown {
        position: Chess::default(),
        castling_mode: CastlingMode::Standard,
        squares: start_codes(o),
        orientation: o,
        white_clock_side: Some(white),
    }
}

#[test]
fn three_moves_made_while_disconnected_are_recovered_with_their_clock_times() {
    let mut log = vec![EeEntry::PowerUp, EeEntry::BeginPos, EeEntry::Downloaded];
    log.extend(three_moves(Orientation::Normal, true));
    let r = recover_moves(
        &last_known(Orientation::Normal, ClockSide::Left),
        since_last_download(&log),
    );
    assert_eq!(r.gap, None);
    let got: Vec<(&str, &str, Side, Option<u64>)> = r
        .moves
        .iter()
        .map(|m| (m.uci.as_str(), m.san.as_str(), m.side, m.clock_ms))
        .collect();
    assert_eq!(
        got,
        [
            ("e2e4", "e4", Side::White, Some(179_000)),
            ("d7d5", "d5", Side::Black, Some(178_000)),
            ("e4d5", "exd5", Side::White, Some(175_000)),
        ]
    );
    assert_eq!(
        r.fen,
        "rnbqkbnr/ppp1pppp/8/3P4/8/8/PPPP1PPP/RNBQKBNR b KQkq - 0 2"
    );
}

#[test]
fn a_turned_board_with_the_clock_on_the_right_gives_the_same_moves() {
    let log = three_moves(Orientation::Rotated, false);
    let r = recover_moves(
        &last_known(Orientation::Rotated, ClockSide::Right),
        since_last_download(&log),
    );
    assert_eq!(r.gap, None);
    let ucis: Vec<&str> = r.moves.iter().map(|m| m.uci.as_str()).collect();
    assert_eq!(ucis, ["e2e4", "d7d5", "e4d5"]);
    assert_eq!(r.moves[1].clock_ms, Some(178_000));
}

#[test]
fn a_power_loss_or_an_unexplained_placement_is_reported_as_a_gap() {
    use DgtPiece::*;
    let o = Orientation::Normal;
    let mut log = three_moves(o, true);
    log.truncate(4); // e4 and its press
    log.push(EeEntry::PowerUp);
    let r = recover_moves(&last_known(o, ClockSide::Left), since_last_download(&log));
    assert_eq!(r.moves.len(), 1);
    assert_eq!(r.gap, Some(LogGap::PowerLost { recovered: 1 }));

    // A knight vanishes: no legal continuation explains the board.
    let mut log = three_moves(o, true);
    log.truncate(4);
    log.push(field(Square::G8, Empty, false, o));
    let r = recover_moves(&last_known(o, ClockSide::Left), since_last_download(&log));
    assert_eq!(r.moves.len(), 1);
    let placement =
        shakmaty::Board::from_ascii_board_fen(b"rnbqkb1r/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR")
            .unwrap();
    assert_eq!(
        r.gap,
        Some(LogGap::Unexplained {
            recovered: 1,
            placement
        })
    );
}
