//! Legal moves that explain a placement: one move, or a shortest sequence of them (moves
//! made in one go, drops among them in bughouse), searched from the squares that differ.

use std::cell::RefCell;

use shakmaty::{Bitboard, Board, CastlingSide, Chess, Move, MoveList, Position, Role};

use crate::board::diff;

/// The legal moves of the player on move. After an illegal move that stood (A.4.2 / A.5.2 in
/// rapid and blitz) the side *not* to move may be in check; taking its king is still no legal
/// move (1.4.1; capturing the king is an illegal move, 2017 fn 104), so such captures are left
/// out and the board showing one is judged as an illegal move.
pub fn legal_moves(pos: &Chess) -> MoveList {
    let mut moves = pos.legal_moves();
    moves.retain(|m| m.capture() != Some(Role::King));
    moves
}

/// The legal move from `pos` whose result shows `target`, if any.
pub fn one_move_to(pos: &Chess, target: &Board) -> Option<Move> {
    let d = diff(pos.board(), target);
    if d.count() < 2 || d.count() > 4 {
        return None;
    }
    legal_moves(pos)
        .into_iter()
        .filter(|m| starts_in(m, d) && (m.is_castle() || d.contains(m.to())))
        .find(|m| {
            let mut p = pos.clone();
            p.play_unchecked(*m);
            p.board() == target
        })
}

/// A shortest sequence of legal moves from `pos` to a position showing `target`, searching
/// at most `max_plies` deep and visiting at most `budget` nodes. Only moves that start on a
/// square where the boards still differ are tried: exact up to two plies (each side's piece
/// leaves a square that ends up different), a sound heuristic beyond.
pub fn find_path(
    pos: &Chess,
    target: &Board,
    max_plies: usize,
    budget: &mut usize,
) -> Option<Vec<Move>> {
    find_path_with(pos, target, max_plies, budget, false)
}

/// [`find_path`], with drops (`Move::Put`) among the moves when `drops` is set.
pub fn find_path_with(
    pos: &Chess,
    target: &Board,
    max_plies: usize,
    budget: &mut usize,
    drops: bool,
) -> Option<Vec<Move>> {
    // The moves tried from `pos` are the same at every depth: generated once.
    let mut root_moves = None;
    for depth in 1..=max_plies {
        let mut path = Vec::new();
        if search(
            pos,
            target,
            depth,
            budget,
            &mut path,
            drops,
            Some(&mut root_moves),
        ) {
            return Some(path);
        }
        if *budget == 0 {
            break;
        }
    }
    None
}

/// Sequences of exactly `plies` legal moves from `pos` to a position showing `target`, at
/// most `max` of them, visiting at most `budget` nodes, tried as [`find_path`] tries them.
/// For evidence that more moves were made than the shortest sequence needs: a piece moved
/// twice around the reply (d2-d3 e7-e5 d3-d4) shows the placement of one move (d2-d4
/// e7-e5). Several can reach the placement in another order (Bxa6 g6 Bxh6, Bxh6 g6 Bxa6).
pub fn paths_of_length(
    pos: &Chess,
    target: &Board,
    plies: usize,
    max: usize,
    budget: &mut usize,
) -> Vec<Vec<Move>> {
    let mut found = Vec::new();
    search_exact(pos, target, plies, budget, &mut Vec::new(), &mut found, max);
    found
}

fn search_exact(
    pos: &Chess,
    target: &Board,
    depth: usize,
    budget: &mut usize,
    path: &mut Vec<Move>,
    found: &mut Vec<Vec<Move>>,
    max: usize,
) {
    let d = diff(pos.board(), target);
    if depth == 0 {
        if d.is_empty() {
            found.push(path.clone());
        }
        return;
    }
    if d.is_empty() || d.count() > 4 * depth {
        return;
    }
    for m in moves_to_try(pos, target, d, false, false) {
        if *budget == 0 || found.len() >= max {
            return;
        }
        *budget -= 1;
        let mut next = pos.clone();
        next.play_unchecked(m);
        path.push(m);
        search_exact(&next, target, depth - 1, budget, path, found, max);
        path.pop();
    }
}

fn search(
    pos: &Chess,
    target: &Board,
    depth: usize,
    budget: &mut usize,
    path: &mut Vec<Move>,
    drops: bool,
    kept: Option<&mut Option<MoveList>>,
) -> bool {
    let d = diff(pos.board(), target);
    if d.is_empty() {
        return true;
    }
    // Each ply changes at most four squares (castling).
    if depth == 0 || d.count() > 4 * depth || *budget == 0 {
        return false;
    }
    let made;
    let moves = match kept {
        Some(kept) => kept.get_or_insert_with(|| moves_to_try(pos, target, d, drops, true)),
        None => {
            made = moves_to_try(pos, target, d, drops, false);
            &made
        }
    };
    for &m in moves {
        if *budget == 0 {
            return false;
        }
        *budget -= 1;
        let mut next = pos.clone();
        next.play_unchecked(m);
        path.push(m);
        if search(&next, target, depth - 1, budget, path, drops, None) {
            return true;
        }
        path.pop();
    }
    false
}

/// Positions whose legal moves are kept, per thread (about 2 KiB each).
const RECENT: usize = 64;

thread_local! {
    static RECENT_MOVES: RefCell<Vec<Option<(Chess, MoveList)>>> =
        RefCell::new(vec![None; RECENT]);
}

/// [`legal_moves`] of `pos`, kept for the positions asked about lately: the search starts
/// from the game's current position at every field update, and that position stays the
/// same until a move is made (one board's updates come between other boards'). A kept list
/// is used only for a position equal in everything the legal moves depend on: the pieces,
/// the player on move, the castling rights and mode, the en passant square.
fn recent_legal_moves(pos: &Chess) -> MoveList {
    let b = pos.board();
    let mix = (b.occupied().0 ^ b.white().0.rotate_left(23) ^ b.pawns().0.rotate_left(41))
        .wrapping_mul(0x9E37_79B9_7F4A_7C15);
    let slot = (mix >> 58) as usize % RECENT;
    RECENT_MOVES.with(|recent| {
        let mut recent = recent.borrow_mut();
        if let Some((kept, moves)) = &recent[slot]
            && same_moves(kept, pos)
        {
            return moves.clone();
        }
        let moves = legal_moves(pos);
        recent[slot] = Some((pos.clone(), moves.clone()));
        moves
    })
}

/// Whether two positions have the same legal moves because they agree in all they depend on.
fn same_moves(a: &Chess, b: &Chess) -> bool {
    a.board() == b.board()
        && a.turn() == b.turn()
        && a.castles().castling_rights() == b.castles().castling_rights()
        && a.castles().mode() == b.castles().mode()
        && a.maybe_ep_square() == b.maybe_ep_square()
}

/// The moves [`search`] tries from `pos` (those [`starts_in`] the differing squares `d`),
/// in the order of [`legal_moves`] (the first path found is the one kept).
///
/// When no piece of the player on move stands on a differing square (the opponent's piece
/// arrived there, as after each move tried from a lifted piece), only castlings and drops
/// can start in `d`: the castlings are generated alone, in the order `legal_moves` lists
/// them (king side, then queen side), instead of every legal move.
///
/// `from_recent`: the legal moves are looked up among those kept for recent positions (the
/// search's starting position, the same at many field updates in a row).
fn moves_to_try(
    pos: &Chess,
    target: &Board,
    d: Bitboard,
    drops: bool,
    from_recent: bool,
) -> MoveList {
    let mut moves = if (d & pos.us()).any() {
        if from_recent {
            recent_legal_moves(pos)
        } else {
            legal_moves(pos)
        }
    } else {
        let mut castles = pos.castling_moves(CastlingSide::KingSide);
        castles.extend(pos.castling_moves(CastlingSide::QueenSide));
        castles
    };
    moves.retain(|m| starts_in(m, d));
    if drops {
        moves.extend(drops_into(pos, target, d));
    }
    moves
}

/// Drops the board could be showing: a piece of the player on move (not a king) standing on
/// a square that is empty in `pos`. Whether the regulation allows it is judged later.
fn drops_into(pos: &Chess, target: &Board, d: Bitboard) -> Vec<Move> {
    let me = pos.turn();
    (d & !pos.board().occupied())
        .into_iter()
        .filter_map(|sq| {
            let p = target.piece_at(sq)?;
            (p.color == me && p.role != Role::King).then_some(Move::Put {
                role: p.role,
                to: sq,
            })
        })
        .collect()
}

/// Whether a move starts on a square where the boards differ. A Chess960 castling may leave
/// the king on its square (II.3.2.4: the rook alone moves) or the rook on its square: it is
/// always tried.
pub(super) fn starts_in(m: &Move, d: Bitboard) -> bool {
    m.is_castle() || m.from().map_or(d.contains(m.to()), |f| d.contains(f))
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::fen::Fen;
    use shakmaty::{CastlingMode, Square};

    /// What `search` tried before the moves were chosen by [`moves_to_try`]: every legal move,
    /// the drops after them, those that start in `d`, in that order.
    fn every_move_filtered(pos: &Chess, target: &Board, d: Bitboard, drops: bool) -> Vec<Move> {
        let mut moves: Vec<Move> = legal_moves(pos).into_iter().collect();
        if drops {
            moves.extend(drops_into(pos, target, d));
        }
        moves.retain(|m| starts_in(m, d));
        moves
    }

    /// A kept list of legal moves is the one generating them again gives, for positions on
    /// the same squares that differ only in the player on move, the castling rights or mode,
    /// or the en passant square (each asked about after the others, twice).
    #[test]
    fn kept_legal_moves_are_those_of_the_same_position_only() {
        let positions: Vec<Chess> = [
            (
                "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
                CastlingMode::Standard,
            ),
            ("r3k2r/8/8/8/8/8/8/R3K2R w Kq - 0 1", CastlingMode::Standard),
            ("r3k2r/8/8/8/8/8/8/R3K2R w - - 0 1", CastlingMode::Standard),
            (
                "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1",
                CastlingMode::Standard,
            ),
            (
                "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
                CastlingMode::Chess960,
            ),
            (
                "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
                CastlingMode::Standard,
            ),
            (
                "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq - 0 3",
                CastlingMode::Standard,
            ),
            (
                "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3",
                CastlingMode::Standard,
            ),
        ]
        .iter()
        .map(|(fen, mode)| fen.parse::<Fen>().unwrap().into_position(*mode).unwrap())
        .collect();
        for _ in 0..2 {
            for p in &positions {
                assert_eq!(
                    recent_legal_moves(p).to_vec(),
                    legal_moves(p).to_vec(),
                    "{:?}",
                    Fen::from_position(p, shakmaty::EnPassantMode::Always).to_string()
                );
            }
        }
    }

    /// The moves tried are the legal moves that start where the boards differ, in the order
    /// of `legal_moves`, whether or not a piece of the player on move stands there: targets
    /// one and two plies away, with a square emptied or filled besides, in positions where
    /// either side may castle either way, gives check, or may take en passant.
    #[test]
    fn the_moves_tried_are_the_legal_moves_starting_where_the_boards_differ() {
        let mut compared = 0;
        for (fen, mode) in [
            (
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
                CastlingMode::Standard,
            ),
            (
                "r3k2r/pppq1ppp/8/8/8/8/PPPQ1PPP/R3K2R w KQkq - 0 1",
                CastlingMode::Standard,
            ),
            (
                "r3k2r/pppq1ppp/8/8/8/8/PPPQ1PPP/R3K2R b Kq - 0 1",
                CastlingMode::Standard,
            ),
            (
                "r3k2r/8/8/8/4Q3/8/8/R3K2R b KQkq - 0 1",
                CastlingMode::Standard,
            ),
            (
                "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
                CastlingMode::Standard,
            ),
            (
                "1rk1r3/8/8/8/8/8/8/1RK1R3 w BEbe - 0 1",
                CastlingMode::Chess960,
            ),
        ] {
            let pos: Chess = fen.parse::<Fen>().unwrap().into_position(mode).unwrap();
            let mut targets = Vec::new();
            for m in legal_moves(&pos) {
                let mut one = pos.clone();
                one.play_unchecked(m);
                targets.push(one.board().clone());
                for reply in legal_moves(&one).into_iter().take(12) {
                    let mut two = one.clone();
                    two.play_unchecked(reply);
                    targets.push(two.board().clone());
                }
            }
            // The position itself with one square changed: only the opponent's pieces (or an
            // empty square) differ, where castling is all that can be tried.
            targets.push(pos.board().clone());
            for t in targets.clone() {
                for sq in [Square::A3, Square::E1, Square::H8, Square::D7] {
                    let mut changed = t.clone();
                    if changed.remove_piece_at(sq).is_none() {
                        changed.set_piece_at(sq, shakmaty::Color::Black.knight());
                    }
                    targets.push(changed);
                }
            }
            for target in &targets {
                let d = diff(pos.board(), target);
                for drops in [false, true] {
                    for from_recent in [false, true] {
                        assert_eq!(
                            moves_to_try(&pos, target, d, drops, from_recent).to_vec(),
                            every_move_filtered(&pos, target, d, drops),
                            "{fen} to {target:?}"
                        );
                    }
                    compared += 1;
                }
            }
        }
        assert!(compared > 1000, "{compared} targets");
    }
}
