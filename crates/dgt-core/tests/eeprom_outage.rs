//! Board outages longer than the after-gap search reaches: the moves come from the board's
//! own memory (the EEPROM log, protocol §3.6), which the edge asks for at every connection.

mod common;

use common::{Board, START, ee_message, moves};
use dgt_core::capture::parse_capture;
use dgt_core::eeprom::LogGap;
use dgt_core::verdict::EquipmentVerdict;
use dgt_core::{AlertKind, Event, EventBody, Severity};
use dgt_protocol::{DgtPiece, EeEntry, PhysicalSquare};
use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{Chess, EnPassantMode, Position, Square};

fn link(b: &mut Board, state: &str) {
    let line = format!(
        r#"{{"t_ms": {}, "board": "b", "link": {{"state": "{state}"}}}}"#,
        b.t
    );
    b.inputs.extend(parse_capture(&line).unwrap());
}

/// The board's numbering of a square (normal orientation: physical 0 is a8).
fn phys(sq: Square) -> PhysicalSquare {
    PhysicalSquare::new((sq as u8) ^ 56).unwrap()
}

fn piece_code(p: Option<shakmaty::Piece>) -> DgtPiece {
    DgtPiece::from_fen_char(p.map_or('.', |p| p.char())).unwrap_or(DgtPiece::Empty)
}

/// What the board logs for a move: the squares emptied, then the squares filled, then the
/// press of the mover's display (White's is the left one here) with its time.
fn log_move(pos: &mut Chess, uci: &str, seconds: u32, log: &mut Vec<EeEntry>) {
    let m = UciMove::from_ascii(uci.as_bytes())
        .unwrap()
        .to_move(pos)
        .unwrap();
    let before = pos.board().clone();
    let white = pos.turn().is_white();
    pos.play_unchecked(m);
    let after = pos.board().clone();
    let changed: Vec<Square> = Square::ALL
        .into_iter()
        .filter(|s| before.piece_at(*s) != after.piece_at(*s))
        .collect();
    for s in changed.iter().filter(|s| after.piece_at(**s).is_none()) {
        log.push(field(*s, DgtPiece::Empty));
    }
    for s in changed.iter().filter(|s| after.piece_at(**s).is_some()) {
        log.push(field(*s, piece_code(after.piece_at(*s))));
    }
    log.push(EeEntry::LeverPress {
        left: white,
        seconds,
    });
}

fn field(s: Square, piece: DgtPiece) -> EeEntry {
    EeEntry::Field {
        square: phys(s),
        piece,
        fast: false,
    }
}

/// Power-up: the tags of every piece on the board.
fn power_up(pos: &Chess) -> Vec<EeEntry> {
    let mut log = vec![EeEntry::Nop, EeEntry::Nop, EeEntry::Nop, EeEntry::PowerUp];
    for s in Square::ALL {
        if let Some(p) = pos.board().piece_at(s) {
            log.push(field(s, piece_code(Some(p))));
        }
    }
    log
}

fn fen_of(pos: &Chess) -> String {
    Fen::from_position(pos, EnPassantMode::Legal).to_string()
}

const CONNECTED: [(&str, &str, char); 2] = [("e2", "e4", 'P'), ("e7", "e5", 'p')];
/// Ten plies, castling included: more than the after-gap search (6 plies) reaches.
const OUTAGE: [&str; 10] = [
    "g1f3", "b8c6", "f1b5", "a7a6", "b5a4", "g8f6", "e1g1", "f8e7", "f1e1", "b7b5",
];

struct Outage {
    board: Board,
    /// The moves and each mover's logged clock (ms).
    truth: Vec<(String, u64)>,
}

/// A game: connected (first log read), 1.e4 e5 watched, the link lost, `played` plies of
/// [`OUTAGE`] made, the board back with a dump and a log built by `outage_log`; with
/// `lifted`, the player on move holds that square's piece as the board comes back (and has
/// pressed the clock already, if the flag says so: a press logged before the landing).
fn outage(
    played: usize,
    power_lost_after: Option<usize>,
    lifted: Option<(Square, bool)>,
) -> Outage {
    let mut b = Board::new();
    link(&mut b, "connected");
    b.wait(50);
    b.dump(START);
    let start = Chess::default();
    let mut log = power_up(&start);
    b.rx(ee_message(&log));
    log.push(EeEntry::Downloaded);
    b.wait(500);
    b.start_clock(300).wait(300);
    let mut pos = Chess::default();
    let mut truth = Vec::new();
    let (mut white_s, mut black_s) = (300u32, 300u32);
    for (k, (f, t, p)) in CONNECTED.iter().enumerate() {
        b.wait(1000);
        b.mv(f, t, *p).wait(250).press().wait(300);
        let s = if k % 2 == 0 {
            &mut white_s
        } else {
            &mut black_s
        };
        *s -= 1;
        log_move(&mut pos, &format!("{f}{t}"), *s, &mut log);
        truth.push((format!("{f}{t}"), *s as u64 * 1000));
    }
    b.wait(500);
    link(&mut b, "disconnected");
    for (k, uci) in OUTAGE[..played].iter().enumerate() {
        if power_lost_after == Some(k) {
            // The board lost power; the rest was played while it was off. Power came back
            // with the board moved on: one tag per piece.
            for uci in &OUTAGE[k..played] {
                let m = UciMove::from_ascii(uci.as_bytes())
                    .unwrap()
                    .to_move(&pos)
                    .unwrap();
                pos.play_unchecked(m);
            }
            log.extend(power_up(&pos));
            break;
        }
        let s = if k % 2 == 0 {
            &mut white_s
        } else {
            &mut black_s
        };
        *s -= 7;
        log_move(&mut pos, uci, *s, &mut log);
        truth.push((uci.to_string(), *s as u64 * 1000));
    }
    let mut shown = fen_of(&pos);
    if let Some((sq, pressed)) = lifted {
        log.push(field(sq, DgtPiece::Empty));
        if pressed {
            let seconds = if pos.turn().is_white() {
                white_s
            } else {
                black_s
            };
            log.push(EeEntry::LeverPress {
                left: pos.turn().is_white(),
                seconds: seconds - 2,
            });
        }
        let mut board = pos.board().clone();
        board.discard_piece_at(sq);
        shown = board.to_string();
    }
    b.wait(20_000);
    link(&mut b, "connected");
    b.wait(50);
    b.dump_fen(&shown);
    b.wait(120);
    b.rx(ee_message(&log));
    b.wait(100);
    b.clock = Some((white_s as u64, black_s as u64, Some(false)));
    b.reading();
    b.wait(2000);
    Outage { board: b, truth }
}

fn move_events(ev: &[Event]) -> Vec<dgt_core::event::MoveEvent> {
    ev.iter()
        .filter_map(|e| match &e.body {
            EventBody::Move(m) => Some(m.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn ten_plies_made_while_unplugged_come_from_the_log_with_their_clock_times() {
    let Outage { mut board, truth } = outage(10, None, None);
    // Play goes on after the reconnection.
    board.mv("c2", "c3", 'P').wait(250).press().wait(2000);
    let ev = board.run();
    let got = move_events(&ev);
    let mut want: Vec<String> = truth.iter().map(|(u, _)| u.clone()).collect();
    want.push("c2c3".into());
    assert_eq!(moves(&ev), want, "{ev:#?}");
    assert_eq!(got.len(), want.len(), "each move once");
    for (m, (uci, ms)) in got.iter().zip(&truth).skip(2) {
        assert_eq!(&m.uci, uci);
        let mover = if m.ply % 2 == 1 {
            m.white_ms
        } else {
            m.black_ms
        };
        assert_eq!(mover, Some(*ms), "{m:?}");
    }
    for e in &ev {
        if let EventBody::Alert(a) = &e.body {
            assert!(
                a.severity != Severity::Review || a.kind == AlertKind::BoardDisconnected,
                "{a:?}"
            );
        }
    }
}

/// The board comes back while White holds the c-pawn (the log ends with c2 emptied, and
/// maybe with the press already logged: a press can be logged before the scan reaches the
/// landing square, §4.1): a move under way, completed by the live reports, not a gap in the
/// board's memory.
#[test]
fn a_piece_in_the_hand_as_the_board_comes_back_is_no_gap() {
    for pressed in [false, true] {
        let Outage { mut board, truth } = outage(10, None, Some((Square::C2, pressed)));
        board.put("c3", 'P').wait(250);
        if !pressed {
            board.press();
        }
        board.wait(2000);
        let ev = board.run();
        let mut want: Vec<String> = truth.iter().map(|(u, _)| u.clone()).collect();
        want.push("c2c3".into());
        assert_eq!(moves(&ev), want, "pressed {pressed}: {ev:#?}");
        let reviews: Vec<_> = ev
            .iter()
            .filter_map(|e| match &e.body {
                EventBody::Alert(a) if a.severity != Severity::Info => Some(a.clone()),
                _ => None,
            })
            .filter(|a| a.kind != AlertKind::BoardDisconnected)
            .collect();
        assert!(reviews.is_empty(), "pressed {pressed}: {reviews:#?}");
    }
}

#[test]
fn a_log_that_lost_power_gives_no_invented_move_but_a_review_alert() {
    // Three plies logged, then the board lost power and came back four plies later (seven
    // in all since the log stopped: beyond the after-gap search).
    let Outage { board, truth } = outage(10, Some(3), None);
    let ev = board.run();
    let want: Vec<String> = truth.iter().map(|(u, _)| u.clone()).collect();
    assert_eq!(want.len(), 5);
    assert_eq!(moves(&ev), want, "only the logged moves");
    let review: Vec<_> = ev
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::Alert(a) if a.kind == AlertKind::BoardReconnected => Some(a.clone()),
            _ => None,
        })
        .filter(|a| a.severity == Severity::Review)
        .collect();
    assert_eq!(review.len(), 1, "{review:#?}");
    let verdict = review[0].equipment_verdict();
    assert_eq!(
        verdict,
        Some(&EquipmentVerdict::OutageNotExplained {
            gap: LogGap::PowerLost { recovered: 5 },
            recovered: 3
        }),
        "{review:#?}"
    );
    assert_eq!(review[0].message, verdict.unwrap().message());
    // The position to check: after the recovered moves (1.e4 e5 2.Nf3 Nc6 3.Bb5).
    assert_eq!(
        review[0]
            .fen
            .as_deref()
            .map(|f| f.split(' ').next().unwrap()),
        Some("r1bqkbnr/pppp1ppp/2n5/1B2p3/4P3/5N2/PPPP1PPP/RNBQK2R")
    );
}

#[test]
fn the_log_at_the_first_connection_changes_nothing() {
    let with_log = {
        let mut b = Board::new();
        link(&mut b, "connected");
        b.dump(START);
        b.rx(ee_message(&power_up(&Chess::default())));
        b.wait(500);
        b.start_clock(300).wait(300);
        b.play(&CONNECTED);
        b.run()
    };
    let without = {
        let mut b = Board::new();
        link(&mut b, "connected");
        b.dump(START);
        b.wait(500);
        b.start_clock(300).wait(300);
        b.play(&CONNECTED);
        b.run()
    };
    let strip = |ev: &[Event]| -> Vec<String> {
        ev.iter()
            .map(|e| serde_json::to_string(&e.body).unwrap())
            .collect()
    };
    assert_eq!(strip(&with_log), strip(&without));
}
