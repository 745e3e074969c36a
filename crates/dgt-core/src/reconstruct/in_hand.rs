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

/// A move by the player on move whose piece is still in the hand, or down on a square the
/// board has not reported yet: the board shows the current position but for one of his
/// pieces off the board, a piece that has a legal move. A piece is reported where it lands
/// up to ~400 ms late, and not while it flickers on a badly centred square (protocol §4.1):
/// a press made just after the move can find only the emptied square. The square it left.
pub fn piece_in_hand(pos: &Chess, target: &Board) -> Option<shakmaty::Square> {
    let d = diff(pos.board(), target);
    let sq = d.first().filter(|_| d.count() == 1)?;
    (target.piece_at(sq).is_none()
        && pos.board().color_at(sq) == Some(pos.turn())
        && legal_moves(pos).iter().any(|m| m.from() == Some(sq)))
    .then_some(sq)
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{CastlingMode, Square, fen::Fen};

    fn position(fen: &str) -> Chess {
        fen.parse::<Fen>()
            .expect("a valid FEN")
            .into_position(CastlingMode::Standard)
            .expect("a legal position")
    }

    /// A pawn played a6-a7 whose landing on a7 flickers: the clock is pressed while the
    /// board shows only a6 emptied, and the pawn is in the mover's hand.
    #[test]
    fn a_piece_of_the_mover_off_the_board_is_in_hand() {
        let pos = position("2k5/1n6/P4R2/8/1N2p3/P6K/6R1/8 w - - 0 45");
        let mut shown = pos.board().clone();
        shown.discard_piece_at(Square::A6);
        assert_eq!(piece_in_hand(&pos, &shown), Some(Square::A6));
        // The opponent's piece off the board, or two pieces off: not a move in hand.
        let mut theirs = pos.board().clone();
        theirs.discard_piece_at(Square::B7);
        assert_eq!(piece_in_hand(&pos, &theirs), None);
        let mut two = shown.clone();
        two.discard_piece_at(Square::F6);
        assert_eq!(piece_in_hand(&pos, &two), None);
        // Nothing off the board.
        assert_eq!(piece_in_hand(&pos, pos.board()), None);
    }

    /// A piece with no legal move cannot be on its way anywhere.
    #[test]
    fn a_piece_that_cannot_move_is_not_in_hand() {
        // The white pawn on e4 is blocked by the black pawn on e5.
        let pos = position("4k3/8/8/4p3/4P3/8/8/4K3 w - - 0 1");
        let mut shown = pos.board().clone();
        shown.discard_piece_at(Square::E4);
        assert_eq!(piece_in_hand(&pos, &shown), None);
    }
}
