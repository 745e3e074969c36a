//! Legal moves that explain a placement: one move, or a shortest sequence of them (moves
//! made in one go, drops among them in bughouse), searched from the squares that differ.

use shakmaty::{Bitboard, Board, Chess, Move, MoveList, Position, Role};

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
    for depth in 1..=max_plies {
        let mut path = Vec::new();
        if search(pos, target, depth, budget, &mut path, drops) {
            return Some(path);
        }
        if *budget == 0 {
            break;
        }
    }
    None
}

fn search(
    pos: &Chess,
    target: &Board,
    depth: usize,
    budget: &mut usize,
    path: &mut Vec<Move>,
    drops: bool,
) -> bool {
    let d = diff(pos.board(), target);
    if d.is_empty() {
        return true;
    }
    // Each ply changes at most four squares (castling).
    if depth == 0 || d.count() > 4 * depth || *budget == 0 {
        return false;
    }
    let mut moves = legal_moves(pos);
    if drops {
        moves.extend(drops_into(pos, target, d));
    }
    for m in moves {
        if !starts_in(&m, d) {
            continue;
        }
        if *budget == 0 {
            return false;
        }
        *budget -= 1;
        let mut next = pos.clone();
        next.play_unchecked(m);
        path.push(m);
        if search(&next, target, depth - 1, budget, path, drops) {
            return true;
        }
        path.pop();
    }
    false
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
