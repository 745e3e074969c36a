//! A formally illegal move as the board shows it: the step one piece took, and the position
//! it left, from which tracking goes on when nobody restores the position (A.4.2 / A.5.2).

use shakmaty::{
    Board, CastlingMode, Chess, Color, EnPassantMode, FromSetup, Move, Piece, Position,
    PositionErrorKinds, Role,
};

use crate::board::diff;

/// A formally illegal move, described by the piece that left one square for another.
#[derive(Debug, Clone, PartialEq)]
pub struct IllegalStep {
    pub mv: Move,
    pub uci: String,
    /// Long algebraic ("Nb8-b5", "Qd1xh7"): no SAN exists for an illegal move.
    pub san: String,
}

/// Describes the illegal move from `before` to `shown` by `mover`: the one piece of the mover
/// that vanished from a square and the square where a piece of that kind appeared.
pub fn illegal_step(before: &Board, shown: &Board, mover: Color) -> Option<IllegalStep> {
    let d = diff(before, shown);
    let from = d
        .into_iter()
        .find(|&sq| before.color_at(sq) == Some(mover) && shown.color_at(sq) != Some(mover))?;
    let piece = before.piece_at(from)?;
    let to = d
        .into_iter()
        .find(|&sq| sq != from && shown.color_at(sq) == Some(mover))?;
    let arrived = shown.piece_at(to)?;
    let capture = before.piece_at(to).map(|p| p.role);
    let promotion = (arrived.role != piece.role).then_some(arrived.role);
    let mv = Move::Normal {
        role: piece.role,
        from,
        capture,
        to,
        promotion,
    };
    let letter = |r: Role| {
        if r == Role::Pawn {
            String::new()
        } else {
            r.upper_char().to_string()
        }
    };
    let san = format!(
        "{}{from}{}{to}{}",
        letter(piece.role),
        if capture.is_some() { "x" } else { "-" },
        promotion
            .map(|r| format!("={}", r.upper_char()))
            .unwrap_or_default()
    );
    let uci = format!(
        "{from}{to}{}",
        promotion.map(|r| r.char().to_string()).unwrap_or_default()
    );
    Some(IllegalStep { mv, uci, san })
}

/// Whether `step` alone turns `before` into `shown` (no other square changed).
pub fn step_explains(before: &Board, step: &IllegalStep, shown: &Board) -> bool {
    let Move::Normal {
        role,
        from,
        to,
        promotion,
        ..
    } = step.mv
    else {
        return false;
    };
    let Some(color) = before.color_at(from) else {
        return false;
    };
    let mut b = before.clone();
    b.discard_piece_at(from);
    b.set_piece_at(
        to,
        Piece {
            color,
            role: promotion.unwrap_or(role),
        },
    );
    &b == shown
}

/// The position an illegal move left, with the opponent to move: castling rights kept where
/// king and rook still stand, no en passant. A move that left the mover's own king in check
/// gives a position shakmaty will not set up ("opposite check"); it is then reached by playing
/// the illegal step on `before` unchecked, since tracking must go on from such a formally
/// illegal position when nobody restores it (A.4.2 / A.5.2). The same for a pawn left on its
/// last rank (it has no move from there). `None` when no position can be
/// built from it (a king missing, or the board not explained by one piece moving).
pub fn position_after_illegal(before: &Chess, shown: &Board, mode: CastlingMode) -> Option<Chess> {
    let mut setup = before.to_setup(EnPassantMode::Legal);
    setup.board = shown.clone();
    setup.turn = !before.turn();
    setup.ep_square = None;
    setup.halfmoves = 0;
    if setup.turn.is_white() {
        setup.fullmoves = setup.fullmoves.saturating_add(1);
    }
    match Chess::from_setup(setup, mode)
        // Bughouse boards hold more than one set's pieces (drops).
        .or_else(shakmaty::PositionError::ignore_too_much_material)
        .or_else(shakmaty::PositionError::ignore_invalid_castling_rights)
        .or_else(shakmaty::PositionError::ignore_impossible_check)
    {
        Ok(p) => Some(p),
        Err(e)
            if e.kinds().intersects(
                PositionErrorKinds::OPPOSITE_CHECK | PositionErrorKinds::PAWNS_ON_BACKRANK,
            ) && Color::ALL.iter().all(|&c| shown.king_of(c).is_some()) =>
        {
            let step = illegal_step(before.board(), shown, before.turn())?;
            let mut after = before.clone();
            after.play_unchecked(step.mv);
            (after.board() == shown).then_some(after)
        }
        Err(_) => None,
    }
}
