//! Where a game starts: the initial position, a Chess960 start, a board set up wrongly, a
//! position an operator gives as FEN, and a position changed by hand (bughouse).

use std::sync::OnceLock;

use shakmaty::fen::Fen;
use shakmaty::{
    Bitboard, Board, CastlingMode, Chess, Color, EnPassantMode, FromSetup, Move, Position, Role,
    Setup, Square,
};

fn chess960_boards() -> &'static Vec<Board> {
    static BOARDS: OnceLock<Vec<Board>> = OnceLock::new();
    BOARDS.get_or_init(|| (0..960).map(Board::chess960).collect())
}

/// If the placement is a start position — the standard one or a Chess960 one — the game it
/// starts and its castling mode.
pub fn start_position(board: &Board) -> Option<(Chess, CastlingMode)> {
    if *board == Board::default() {
        return Some((Chess::default(), CastlingMode::Standard));
    }
    // Quick reject before comparing with the 960 positions: 32 pieces, pawns on ranks 2 and 7.
    if board.occupied().count() != 32
        || board.pawns()
            != (Bitboard::from_rank(shakmaty::Rank::Second)
                | Bitboard::from_rank(shakmaty::Rank::Seventh))
    {
        return None;
    }
    if chess960_boards().iter().any(|b| b == board) {
        // X-FEN "KQkq" means the outermost rooks, which in a start position are the only ones.
        let fen = format!("{board} w KQkq - 0 1");
        let pos = fen
            .parse::<Fen>()
            .ok()?
            .into_position::<Chess>(CastlingMode::Chess960)
            .ok()?;
        return Some((pos, CastlingMode::Chess960));
    }
    None
}

/// What is wrong with a set-up that looks like a game's start (7.2.1; 2005 7.1a; II.2).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WrongSetup {
    /// Each side's pieces on its first rank that are not where the initial position has
    /// them, in file order (a side with none is left out).
    pub misplaced: Vec<(Color, Vec<(Role, Square)>)>,
    /// Why it is not a Chess960 start either, where both sides mirror each other (II.2).
    pub not_chess960: Vec<Not960>,
}

/// Why a mirrored set-up is no Chess960 start (II.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Not960 {
    BishopsOnOneColour,
    KingNotBetweenRooks,
}

impl std::fmt::Display for WrongSetup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let sides: Vec<String> = self
            .misplaced
            .iter()
            .map(|(c, pieces)| {
                let pieces: Vec<String> = pieces
                    .iter()
                    .map(|&(role, sq)| format!("{} on {sq}", role_word(role)))
                    .collect();
                let side = if c.is_white() { "White" } else { "Black" };
                format!("{side} has {}", pieces.join(", "))
            })
            .collect();
        write!(f, "not the initial position: {}", sides.join("; "))?;
        if !self.not_chess960.is_empty() {
            let why: Vec<&str> = self
                .not_chess960
                .iter()
                .map(|n| match n {
                    Not960::BishopsOnOneColour => "both bishops stand on squares of one colour",
                    Not960::KingNotBetweenRooks => "the king does not stand between the rooks",
                })
                .collect();
            write!(f, "; not a Chess960 start either: {}", why.join(" and "))?;
        }
        Ok(())
    }
}

/// A board that looks like a game's start — 32 pieces, each side's pawns on its second rank
/// and its eight pieces on its first — but is neither the initial position nor a Chess960
/// start (7.2.1; 2005 7.1a; II.2). Returns what is wrong, and the position to follow the
/// game from if it is played anyway: White to move, castling only for a king and rook on
/// their standard squares.
pub fn wrong_setup(board: &Board) -> Option<(Chess, WrongSetup)> {
    use shakmaty::{File, Rank};
    let first = |c: Color| {
        if c.is_white() {
            Rank::First
        } else {
            Rank::Eighth
        }
    };
    let second = |c: Color| {
        if c.is_white() {
            Rank::Second
        } else {
            Rank::Seventh
        }
    };
    if board.occupied().count() != 32 || start_position(board).is_some() {
        return None;
    }
    for c in Color::ALL {
        let home = Bitboard::from_rank(first(c));
        if (board.pawns() & board.by_color(c)) != Bitboard::from_rank(second(c))
            || (board.by_color(c) & !board.pawns()) != home
            || (board.kings() & board.by_color(c)).count() != 1
            || (board.queens() & board.by_color(c)).count() != 1
            || (board.rooks() & board.by_color(c)).count() != 2
            || (board.bishops() & board.by_color(c)).count() != 2
        {
            return None;
        }
    }
    let standard = Board::default();
    let mut misplaced = Vec::new();
    for c in Color::ALL {
        let wrong: Vec<(Role, Square)> = File::ALL
            .iter()
            .map(|&f| Square::from_coords(f, first(c)))
            .filter(|&sq| board.piece_at(sq) != standard.piece_at(sq))
            .filter_map(|sq| board.role_at(sq).map(|role| (role, sq)))
            .collect();
        if !wrong.is_empty() {
            misplaced.push((c, wrong));
        }
    }
    // A Chess960 start must have the bishops on squares of both colours and the king between
    // the rooks, the same for both sides (II.2).
    let mirrored = File::ALL.iter().all(|&f| {
        board.role_at(Square::from_coords(f, Rank::First))
            == board.role_at(Square::from_coords(f, Rank::Eighth))
    });
    let mut why960 = Vec::new();
    if mirrored {
        let bishops = board.bishops() & board.white();
        if bishops
            .into_iter()
            .map(|sq| sq.is_light())
            .collect::<Vec<_>>()
            .windows(2)
            .all(|w| w[0] == w[1])
        {
            why960.push(Not960::BishopsOnOneColour);
        }
        let king = (board.kings() & board.white()).first().map(|sq| sq.file());
        let rooks: Vec<File> = (board.rooks() & board.white())
            .into_iter()
            .map(|sq| sq.file())
            .collect();
        if let (Some(k), [a, b]) = (king, rooks.as_slice())
            && !(a.min(b) < &k && &k < a.max(b))
        {
            why960.push(Not960::KingNotBetweenRooks);
        }
    }
    let what = WrongSetup {
        misplaced,
        not_chess960: why960,
    };
    let right = |c: Color, rook_file: File, letter: char| {
        let king = Square::from_coords(File::E, first(c));
        let rook = Square::from_coords(rook_file, first(c));
        (board.role_at(king) == Some(Role::King) && board.role_at(rook) == Some(Role::Rook))
            .then_some(if c.is_white() {
                letter.to_ascii_uppercase()
            } else {
                letter
            })
    };
    let rights: String = [
        right(Color::White, File::H, 'k'),
        right(Color::White, File::A, 'q'),
        right(Color::Black, File::H, 'k'),
        right(Color::Black, File::A, 'q'),
    ]
    .into_iter()
    .flatten()
    .collect();
    let rights = if rights.is_empty() {
        "-".to_string()
    } else {
        rights
    };
    // Two bishops on one colour with eight pawns read as "too much material" (a promotion
    // that cannot have happened): here it is only a set-up error.
    let pos = format!("{board} w {rights} - 0 1")
        .parse::<Fen>()
        .ok()?
        .into_position::<Chess>(CastlingMode::Standard)
        .or_else(shakmaty::PositionError::ignore_too_much_material)
        .ok()?;
    Some((pos, what))
}

/// A piece's name ("knight").
pub fn role_name(r: Role) -> &'static str {
    match r {
        Role::Pawn => "pawn",
        Role::Knight => "knight",
        Role::Bishop => "bishop",
        Role::Rook => "rook",
        Role::Queen => "queen",
        Role::King => "king",
    }
}

/// A piece's name with its article: "the" for the one king and queen of a set-up.
fn role_word(r: Role) -> String {
    let article = if matches!(r, Role::King | Role::Queen) {
        "the"
    } else {
        "a"
    };
    format!("{article} {}", role_name(r))
}

/// Why a FEN given by an operator gives no position to play from.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FenError {
    #[error("not a FEN: {0}")]
    Syntax(String),
    #[error("not a legal position: {0}")]
    Position(String),
}

/// Builds a position from a FEN given by an operator; the castling mode follows the FEN.
pub fn position_from_fen(text: &str) -> Result<(Chess, CastlingMode), FenError> {
    let f: Fen = text
        .trim()
        .parse()
        .map_err(|e: shakmaty::fen::ParseFenError| FenError::Syntax(e.to_string()))?;
    let standard = f.clone().into_position::<Chess>(CastlingMode::Standard);
    match standard {
        Ok(p) => Ok((p, CastlingMode::Standard)),
        Err(_) => f
            .into_position::<Chess>(CastlingMode::Chess960)
            .map(|p| (p, CastlingMode::Chess960))
            .map_err(|e| FenError::Position(e.to_string())),
    }
}

/// The position `pos` changed by hand (`edit` on its setup), not by a move: a piece taken
/// off for a promotion on the other bughouse board, a pawn lost with its promotion. More
/// material than one set, a check no move explains, castling rights or an en-passant square
/// the change made void are accepted; `None` for what cannot stand at all (the side not to
/// move in check, a king missing).
pub fn edited(pos: &Chess, mode: CastlingMode, edit: impl FnOnce(&mut Setup)) -> Option<Chess> {
    let mut setup = pos.to_setup(EnPassantMode::Legal);
    edit(&mut setup);
    let pawns_on_backranks = setup.board.pawns() & Bitboard::BACKRANKS;
    if pawns_on_backranks.any() {
        return with_backrank_pawns(setup, mode, pawns_on_backranks);
    }
    accepted(setup, mode)
}

fn accepted(setup: Setup, mode: CastlingMode) -> Option<Chess> {
    Chess::from_setup(setup, mode)
        .or_else(shakmaty::PositionError::ignore_too_much_material)
        .or_else(shakmaty::PositionError::ignore_impossible_check)
        .or_else(shakmaty::PositionError::ignore_invalid_castling_rights)
        .or_else(shakmaty::PositionError::ignore_invalid_ep_square)
        .ok()
}

/// A bughouse position with a pawn dropped illegally on a first or last rank (followed as
/// made, DJC 7.4), which no setup may hold: built without those pawns, then each put back as
/// a drop by its side; where the turn must pass without a change, a piece of the side on move
/// is "moved" onto its own square. The move number is kept; the halfmove clock is not (the
/// 50-move rule is not imported, 1.5).
fn with_backrank_pawns(mut setup: Setup, mode: CastlingMode, pawns: Bitboard) -> Option<Chess> {
    let turn = setup.turn;
    let mut placed = Vec::new();
    for sq in pawns {
        let color = setup.board.color_at(sq)?;
        setup.board.discard_piece_at(sq);
        placed.push((sq, color));
    }
    // The sides whose plies rebuild it, in order: a pass where the turn is not the pawn's.
    let first = placed.first().map(|(_, c)| *c)?;
    let mut sides = Vec::new();
    let mut on_move = first;
    for &(_, color) in &placed {
        if on_move != color {
            sides.push(on_move);
            on_move = !on_move;
        }
        sides.push(on_move);
        on_move = !on_move;
    }
    if on_move != turn {
        sides.push(on_move);
    }
    let black_plies = sides.iter().filter(|c| c.is_black()).count() as u32;
    setup.turn = first;
    setup.fullmoves = std::num::NonZeroU32::new(setup.fullmoves.get().saturating_sub(black_plies))
        .unwrap_or(std::num::NonZeroU32::MIN);
    let mut pos = accepted(setup, mode)?;
    let mut pawns = placed.into_iter();
    let mut next_pawn = pawns.next();
    while let Some((sq, color)) = next_pawn {
        if pos.turn() == color {
            pos.play_unchecked(Move::Put {
                role: Role::Pawn,
                to: sq,
            });
            next_pawn = pawns.next();
        } else {
            pos.play_unchecked(pass(&pos)?);
        }
    }
    if pos.turn() != turn {
        pos.play_unchecked(pass(&pos)?);
    }
    Some(pos)
}

/// A "move" of a piece of the side on move onto its own square: the turn passes, the board
/// stays. Not a king or rook with castling rights (a move of one gives them up).
fn pass(pos: &Chess) -> Option<Move> {
    let us = pos.board().by_color(pos.turn());
    let castling = pos.castles().castling_rights();
    let sq = (us & !pos.board().kings() & !pos.board().rooks())
        .first()
        .or_else(|| (us & pos.board().rooks() & !castling).first())
        .or_else(|| {
            (us & pos.board().kings())
                .first()
                .filter(|_| !(castling & us).any())
        })?;
    let role = pos.board().role_at(sq)?;
    Some(Move::Normal {
        role,
        from: sq,
        capture: None,
        to: sq,
        promotion: None,
    })
}

#[cfg(test)]
mod backrank_tests {
    use super::*;

    /// A pawn dropped on a back rank (illegal, followed as made) stays through an edit: the
    /// board, the side on move and the move number are those of the position edited.
    #[test]
    fn an_edit_keeps_a_pawn_dropped_on_a_back_rank() {
        for (fen, pawn) in [
            ("4k3/8/8/8/8/8/8/R3K3 b - - 0 1", Square::H8),
            ("4k3/8/8/8/8/8/8/R3K3 w - - 0 7", Square::B1),
            ("4k3/8/8/8/8/8/8/R3K3 b - - 0 7", Square::C8),
        ] {
            let (start, _) = position_from_fen(fen).unwrap();
            let mut pos = start.clone();
            // The drop by the side on move, as the game follows it.
            let dropper = pos.turn();
            pos.play_unchecked(Move::Put {
                role: Role::Pawn,
                to: pawn,
            });
            let out = edited(&pos, CastlingMode::Standard, |setup| {
                setup.board.discard_piece_at(Square::A1);
            })
            .unwrap_or_else(|| panic!("{fen}: the edit stands"));
            let mut expected = pos.board().clone();
            expected.discard_piece_at(Square::A1);
            assert_eq!(out.board(), &expected, "{fen}");
            assert_eq!(out.turn(), !dropper, "{fen}");
            assert_eq!(out.fullmoves(), pos.fullmoves(), "{fen}");
            assert_eq!(out.board().piece_at(pawn), Some(dropper.pawn()), "{fen}");
        }
    }
}
