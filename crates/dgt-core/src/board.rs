//! The 64 squares as the board reports them, and how they map onto the chessboard.
//!
//! The board numbers squares physically: 0 is a8 only when White sits with the connector on
//! White's left, and it never renumbers when turned round (protocol §3.2, §4.2). A turned
//! board maps square i to 63 − i. Magic pieces 13–15 signal results and are kept apart from
//! the chess placement.

use std::cell::OnceCell;

use dgt_protocol::DgtPiece;
use serde::{Deserialize, Serialize};
use shakmaty::{Bitboard, Board, ByColor, ByRole, Color, Piece, Role, Square};

/// Which way round the board stands: `Rotated` when the connector is on Black's left
/// (protocol §3.2), so that square i is 63 − i.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Orientation {
    Normal,
    Rotated,
}

/// The squares as last reported, in the board's own numbering.
#[serde_with::serde_as]
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct PhysicalBoard {
    #[serde_as(as = "[_; 64]")]
    codes: [u8; 64],
    /// False until the first board dump: field updates alone cannot be trusted to describe
    /// squares nobody touched.
    known: bool,
    /// The placement read for each orientation (normal, rotated) since the squares last
    /// changed: the session reads the same squares several times between two field updates
    /// (when the update comes, when the board has settled, at the press). Emptied by every
    /// change, so a read always gives what `codes` shows.
    #[serde(skip)]
    read: [OnceCell<Placement>; 2],
}

impl Default for PhysicalBoard {
    fn default() -> Self {
        PhysicalBoard {
            codes: [0; 64],
            known: false,
            read: Default::default(),
        }
    }
}

/// Two boards are equal when they show the same squares (what was read is no part of it).
impl PartialEq for PhysicalBoard {
    fn eq(&self, other: &Self) -> bool {
        self.codes == other.codes && self.known == other.known
    }
}

impl Eq for PhysicalBoard {}

/// What the board shows, in chess terms, for one orientation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placement {
    pub board: Board,
    /// Squares holding a magic (result) piece, with the piece.
    pub magic: Vec<(Square, DgtPiece)>,
}

impl PhysicalBoard {
    pub fn is_known(&self) -> bool {
        self.known
    }

    /// A full dump replaces everything. Returns whether anything changed.
    pub fn apply_dump(&mut self, codes: &[u8; 64]) -> bool {
        let mut masked = [0u8; 64];
        for (m, c) in masked.iter_mut().zip(codes) {
            *m = c & 0x0F;
        }
        let changed = !self.known || masked != self.codes;
        if masked != self.codes {
            self.read = Default::default();
        }
        self.codes = masked;
        self.known = true;
        changed
    }

    /// One square changed. Returns whether anything changed; a square number out of range is
    /// ignored (and reported by the caller).
    pub fn apply_update(&mut self, square: u8, piece: u8) -> Option<bool> {
        let slot = self.codes.get_mut(square as usize)?;
        let new = piece & 0x0F;
        let changed = *slot != new;
        *slot = new;
        if changed {
            self.read = Default::default();
        }
        Some(changed)
    }

    pub fn code(&self, physical: usize) -> u8 {
        self.codes[physical]
    }

    pub fn codes(&self) -> &[u8; 64] {
        &self.codes
    }

    /// The placement seen with the given orientation.
    pub fn placement(&self, orientation: Orientation) -> Placement {
        let i = match orientation {
            Orientation::Normal => 0,
            Orientation::Rotated => 1,
        };
        self.read[i]
            .get_or_init(|| self.read_placement(orientation))
            .clone()
    }

    fn read_placement(&self, orientation: Orientation) -> Placement {
        // Read after every field update: the sets are gathered square by square and the
        // board made from them once (each square holds one piece, so they never overlap).
        let mut by_role = ByRole::<Bitboard>::default();
        let mut by_color = ByColor::<Bitboard>::default();
        let mut magic = Vec::new();
        for (i, &code) in self.codes.iter().enumerate() {
            if code == 0 {
                continue;
            }
            let sq = to_square(i, orientation);
            let p = DgtPiece::from_code(code);
            if p.is_magic() {
                magic.push((sq, p));
            } else if let Some(piece) = chess_piece(p) {
                by_role.get_mut(piece.role).add(sq);
                by_color.get_mut(piece.color).add(sq);
            }
        }
        let board = Board::try_from_bitboards(by_role, by_color)
            .expect("one piece per square: the sets cannot overlap");
        Placement { board, magic }
    }
}

/// The chessboard square of physical square `i`.
pub fn to_square(i: usize, orientation: Orientation) -> Square {
    let i = match orientation {
        Orientation::Normal => i,
        Orientation::Rotated => 63 - i,
    };
    // Physical 0 = a8 (shakmaty index 56): rank flips, file stays.
    Square::new((i ^ 56) as u32)
}

pub fn chess_piece(p: DgtPiece) -> Option<Piece> {
    use DgtPiece::*;
    let (color, role) = match p {
        WhitePawn => (Color::White, Role::Pawn),
        WhiteRook => (Color::White, Role::Rook),
        WhiteKnight => (Color::White, Role::Knight),
        WhiteBishop => (Color::White, Role::Bishop),
        WhiteKing => (Color::White, Role::King),
        WhiteQueen => (Color::White, Role::Queen),
        BlackPawn => (Color::Black, Role::Pawn),
        BlackRook => (Color::Black, Role::Rook),
        BlackKnight => (Color::Black, Role::Knight),
        BlackBishop => (Color::Black, Role::Bishop),
        BlackKing => (Color::Black, Role::King),
        BlackQueen => (Color::Black, Role::Queen),
        _ => return None,
    };
    Some(Piece { color, role })
}

/// The squares where two boards differ.
///
/// A square's content differs exactly when its colour or its role does (an empty square has
/// neither), so the differing squares are those of the colour and role sets that differ:
/// eight set comparisons instead of a look at every occupied square.
pub fn diff(a: &Board, b: &Board) -> Bitboard {
    let mut d = Bitboard::EMPTY;
    for c in Color::ALL {
        d |= a.by_color(c) ^ b.by_color(c);
    }
    for r in Role::ALL {
        d |= a.by_role(r) ^ b.by_role(r);
    }
    d
}

/// Human-readable list of squares ("e2 e4").
pub fn square_names(bb: Bitboard) -> Vec<String> {
    bb.into_iter().map(|s| s.to_string()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn start_codes() -> [u8; 64] {
        let mut c = [0u8; 64];
        let back = [2, 3, 4, 6, 5, 4, 3, 2];
        for f in 0..8 {
            c[f] = back[f] + 6; // black on rank 8
            c[8 + f] = 7;
            c[48 + f] = 1;
            c[56 + f] = back[f];
        }
        c
    }

    /// The squares whose pieces differ, looked at one by one.
    fn diff_square_by_square(a: &Board, b: &Board) -> Bitboard {
        let mut d = Bitboard::EMPTY;
        for sq in Square::ALL {
            if a.piece_at(sq) != b.piece_at(sq) {
                d.add(sq);
            }
        }
        d
    }

    #[test]
    fn diff_is_every_square_whose_piece_differs() {
        let start = Board::default();
        let mut other = Board::default();
        // A piece gone, a piece added, a piece of the other colour, another role.
        other.discard_piece_at(Square::E2);
        other.set_piece_at(Square::E4, Color::White.pawn());
        other.set_piece_at(Square::D1, Color::Black.queen());
        other.set_piece_at(Square::B8, Color::Black.bishop());
        for (a, b) in [
            (&start, &other),
            (&other, &start),
            (&start, &start),
            (&Board::empty(), &start),
            (&other, &Board::empty()),
        ] {
            assert_eq!(diff(a, b), diff_square_by_square(a, b));
        }
        assert_eq!(diff(&start, &other).count(), 4);
    }

    #[test]
    fn start_position_maps_onto_the_standard_board() {
        let mut b = PhysicalBoard::default();
        assert!(b.apply_dump(&start_codes()));
        assert_eq!(b.placement(Orientation::Normal).board, Board::default());
        assert_ne!(b.placement(Orientation::Rotated).board, Board::default());
    }

    #[test]
    fn rotated_board_maps_back() {
        let mut codes = start_codes();
        codes.reverse();
        let mut b = PhysicalBoard::default();
        b.apply_dump(&codes);
        assert_eq!(b.placement(Orientation::Rotated).board, Board::default());
    }

    /// The placement kept between two reads is the one the squares show: read, changed by a
    /// field update or a dump, read again, in both orientations.
    #[test]
    fn a_kept_placement_follows_every_change() {
        let fresh = |b: &PhysicalBoard, o| {
            let mut copy = PhysicalBoard::default();
            copy.apply_dump(b.codes());
            copy.read_placement(o)
        };
        let mut b = PhysicalBoard::default();
        b.apply_dump(&start_codes());
        for o in [Orientation::Normal, Orientation::Rotated] {
            assert_eq!(b.placement(o), fresh(&b, o));
        }
        // e2-e4 as two field updates (physical 52 = e2, 36 = e4), then a magic piece.
        for (square, piece) in [(52, 0), (36, 1), (35, 13), (35, 0)] {
            b.apply_update(square, piece);
            for o in [
                Orientation::Normal,
                Orientation::Rotated,
                Orientation::Normal,
            ] {
                assert_eq!(b.placement(o), fresh(&b, o), "after {square} = {piece}");
            }
        }
        assert_eq!(
            b.placement(Orientation::Normal).board.piece_at(Square::E4),
            Some(Color::White.pawn())
        );
        // A dump back to the start.
        b.apply_dump(&start_codes());
        assert_eq!(b.placement(Orientation::Normal).board, Board::default());
        assert_eq!(
            b.placement(Orientation::Rotated),
            fresh(&b, Orientation::Rotated)
        );
    }

    #[test]
    fn magic_pieces_are_kept_apart() {
        let mut b = PhysicalBoard::default();
        b.apply_dump(&start_codes());
        b.apply_update(35, 13);
        let p = b.placement(Orientation::Normal);
        assert_eq!(p.board, Board::default());
        assert_eq!(p.magic, vec![(Square::D4, DgtPiece::MagicDraw)]);
        assert_eq!(b.apply_update(64, 1), None);
    }
}
