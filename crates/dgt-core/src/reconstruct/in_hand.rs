//! Moves read from a board that is not quite their position yet: a piece still in a hand
//! (the capturer, a castling rook, the opponent's piece lifted for the reply), pieces knocked
//! off under a move, a slide's intermediate square.

use shakmaty::{Bitboard, Board, Chess, Move, Position};

use super::search::{legal_moves, starts_in};
use crate::board::diff;

/// The legal move from `pos` whose result shows `target` but for one piece off the board —
/// the opponent's, lifted for the reply, or the moved piece being captured in reply — while
/// the press was still being relayed.
///
/// The moved piece counts as taken only for a move in `seen` (shown complete on the board
/// before): otherwise "piece lifted, not yet put down" would match every move of that piece.
pub fn one_move_with_reply_in_hand(
    pos: &Chess,
    target: &Board,
    seen: impl Fn(&Move) -> Option<usize>,
) -> Option<Move> {
    let opponent = !pos.turn();
    let mut best: Option<(usize, Move)> = None;
    for m in legal_moves(pos) {
        let mut p = pos.clone();
        p.play_unchecked(m);
        let d = diff(p.board(), target);
        let Some(sq) = d.first().filter(|_| d.count() == 1) else {
            continue;
        };
        if target.piece_at(sq).is_some() {
            continue;
        }
        if p.board().color_at(sq) == Some(opponent) {
            // The opponent lifted one of his pieces: nothing else explains the board.
            return Some(m);
        }
        // The moved piece is being taken: of the moves the board showed, the latest (a
        // slide's intermediate squares were shown earlier).
        if sq == m.to()
            && let Some(when) = seen(&m)
            && best.is_none_or(|(w, _)| when > w)
        {
            best = Some((when, m));
        }
    }
    best.map(|(_, m)| m)
}

/// Whether `m` stops on a square `longer` passes over with the same piece: a slide reports
/// every square on its way (protocol §4.1), so the board showing `m` is no evidence against
/// `longer`.
pub fn slide_prefix(m: &Move, longer: &Move) -> bool {
    match (m.from(), longer.from()) {
        (Some(a), Some(b)) if a == b && !m.is_castle() && !longer.is_castle() => {
            shakmaty::attacks::between(b, longer.to()).contains(m.to())
        }
        _ => false,
    }
}

/// Whether `shown` is the position after `m` changed by the opponent's hands alone: his
/// pieces lifted, moved or put down, and the piece `m` moved taken off (or replaced by his).
/// The mover's other pieces stand where `m` left them.
pub fn only_opponent_changed(pos: &Chess, m: &Move, shown: &Board) -> bool {
    if m.is_castle() {
        return false;
    }
    let mover = pos.turn();
    let mut after = pos.clone();
    after.play_unchecked(*m);
    let d = diff(after.board(), shown);
    !d.is_empty()
        && d.into_iter().all(|sq| {
            let mover_now = shown.color_at(sq) == Some(mover);
            let mover_was = after.board().color_at(sq) == Some(mover);
            !mover_now && (!mover_was || sq == m.to())
        })
}

/// Whether the board shows `pos` but for one piece of the player on move, lifted and not
/// yet put down (or put down and not yet reported).
pub fn piece_in_hand(pos: &Chess, target: &Board) -> bool {
    let d = diff(pos.board(), target);
    d.count() == 1
        && d.first().is_some_and(|sq| {
            target.piece_at(sq).is_none() && pos.board().color_at(sq) == Some(pos.turn())
        })
}

/// A capture by the player on move whose capturer is still in the hand: the board shows the
/// position after it but for the capturer, with the captured piece already off its square
/// (lifted first, or in the same scan as the capturer, protocol §4.1).
pub fn capture_in_hand(pos: &Chess, target: &Board) -> Option<Move> {
    let d = diff(pos.board(), target);
    legal_moves(pos).into_iter().find(|m| {
        if !m.is_capture() || m.is_en_passant() || !starts_in(m, d) || !d.contains(m.to()) {
            return false;
        }
        let mut after = pos.board().clone();
        after.discard_piece_at(m.from().expect("a capture starts on a square"));
        after.discard_piece_at(m.to());
        &after == target
    })
}

/// The most pieces a knock can take off the board and still leave a move readable under it.
const KNOCKED_MAX: usize = 2;

/// The one legal move from `pos` whose result shows `target` but for pieces off the board
/// that the move did not touch (knocked over once the move was made; the board reports each
/// square as it changes, protocol §4.1). `None` when no move, or more than one, reads so: a
/// knocked piece is a displacement under a move (7.1), not part of an illegal one.
pub fn one_move_with_pieces_off(pos: &Chess, target: &Board) -> Option<(Move, Bitboard)> {
    let mut found = None;
    for m in legal_moves(pos) {
        let mut p = pos.clone();
        p.play_unchecked(m);
        let d = diff(p.board(), target);
        if d.is_empty()
            || d.count() > KNOCKED_MAX
            || d.contains(m.to())
            || (d & target.occupied()).any()
        {
            continue;
        }
        if found.is_some() {
            return None;
        }
        found = Some((m, d));
    }
    found
}

/// A castling by the player on move whose rook is still in the hand: the board shows the
/// position after it but for the rook, off the board (the king put on its square first, the
/// rook lifted; a piece is reported where it lands up to ~400 ms late, later while it
/// flickers, protocol §4.1).
pub fn castling_in_hand(pos: &Chess, target: &Board) -> Option<Move> {
    legal_moves(pos).into_iter().find(|m| {
        if !m.is_castle() {
            return false;
        }
        let mut after = pos.clone();
        after.play_unchecked(*m);
        let d = diff(after.board(), target);
        d.first().filter(|_| d.count() == 1).is_some_and(|sq| {
            target.piece_at(sq).is_none() && after.board().piece_at(sq) == Some(pos.turn().rook())
        })
    })
}
