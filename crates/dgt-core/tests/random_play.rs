//! Random games with irregularities — mostly legal moves, then now and then a piece moved
//! illegally (a pinned piece, a king left in check, a king taken), a piece knocked off — with
//! the clock pressed after each, every edition, both supervisions. Play goes on from
//! whatever stands on the board, as the Laws let it in rapid and blitz (A.4.2): the core
//! must never panic, must number its events in order and report each move with a position.

mod common;

use common::*;
use dgt_core::{CoreConfig, EventBody};
use proptest::prelude::*;
use shakmaty::{Chess, FromSetup, Move, Position, Square};

fn name(sq: Square) -> String {
    sq.to_string()
}

fn letter(p: shakmaty::Piece) -> char {
    p.char()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]
    #[test]
    fn random_irregular_games_never_break_the_core(
        steps in prop::collection::vec((0usize..1000, 0u8..10, 0u8..64), 1..60),
        edition in prop::sample::select(vec!["fide-2005", "fide-2017", "fide-2018", "fide-2023"]),
        reduced in any::<bool>(),
    ) {
        let mut b = started();
        let supervision = if reduced { "reduced" } else { "full" };
        b.op(&format!(
            r#"{{"setup": {{"edition": "{edition}", "time_control": "900+10", "supervision": "{supervision}"}}}}"#
        ));
        b.start_clock(900).wait(300);
        // What stands on the board, with the side to move alternating as the players do.
        let mut pos = Chess::default();
        for (pick, how, target) in steps {
            let board = pos.board().clone();
            if board.kings().count() != 2 {
                break;
            }
            let mv = match how {
                // Knocked off and left off (never a king).
                0 => {
                    let own: Vec<Square> = (board.occupied() & !board.kings()).into_iter().collect();
                    if own.is_empty() {
                        continue;
                    }
                    let sq = own[pick % own.len()];
                    b.lift(&name(sq)).wait(3500);
                    let mut setup = pos.to_setup(shakmaty::EnPassantMode::Legal);
                    setup.board.discard_piece_at(sq);
                    match shakmaty::Chess::from_setup(setup, shakmaty::CastlingMode::Standard) {
                        Ok(p) => pos = p,
                        Err(_) => break,
                    }
                    continue;
                }
                // Any own piece (not the king) to any empty square: mostly illegal.
                1 => {
                    let own: Vec<Square> =
                        (board.by_color(pos.turn()) & !board.kings() & !board.pawns()).into_iter().collect();
                    let to = Square::new(u32::from(target % 64));
                    if own.is_empty() || board.piece_at(to).is_some() {
                        continue;
                    }
                    let from = own[pick % own.len()];
                    let role = board.role_at(from).expect("an own piece");
                    Move::Normal { role, from, capture: None, to, promotion: None }
                }
                // A plain move from the legal ones (king captures included, as shakmaty
                // lists them when the side not to move is in check).
                _ => {
                    let moves: Vec<Move> = pos
                        .legal_moves()
                        .into_iter()
                        .filter(|m| matches!(m, Move::Normal { promotion: None, .. }))
                        .collect();
                    if moves.is_empty() {
                        break;
                    }
                    moves[pick % moves.len()]
                }
            };
            let (from, to) = (mv.from().expect("a normal move"), mv.to());
            let piece = board.piece_at(from).expect("a piece to move");
            if board.piece_at(to).is_some() {
                b.lift(&name(to)).wait(120);
            }
            b.lift(&name(from)).wait(200).put(&name(to), letter(piece)).wait(300);
            b.press().wait(700);
            pos.play_unchecked(mv);
        }
        b.wait(6000);
        let ev = b.run_with(CoreConfig::default());
        prop_assert!(ev.windows(2).all(|w| w[0].seq < w[1].seq));
        for e in &ev {
            if let EventBody::Move(m) = &e.body {
                prop_assert!(!m.fen.is_empty() && m.ply >= 1);
            }
        }
    }
}
