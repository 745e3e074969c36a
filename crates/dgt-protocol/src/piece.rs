//! Piece codes and the board's own square numbering (protocol §3.2).

use serde::{Deserialize, Serialize};

/// A square as the board numbers it: 0 = the corner top-left when the connector is on the
/// player's left hand (a8 in normal orientation) … 63 (h1). The board never renumbers when it
/// is turned round; orientation is the core's business.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct PhysicalSquare(u8);

impl PhysicalSquare {
    /// `None` for a byte outside 0..=63.
    pub fn new(index: u8) -> Option<Self> {
        (index < 64).then_some(Self(index))
    }
    pub fn index(self) -> u8 {
        self.0
    }
    /// The same square seen from the other side of the board (a board turned 180°).
    pub fn rotated(self) -> Self {
        Self(63 - self.0)
    }
}

/// What one square holds, as the board reports it (protocol §3.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum DgtPiece {
    Empty,
    WhitePawn,
    WhiteRook,
    WhiteKnight,
    WhiteBishop,
    WhiteKing,
    WhiteQueen,
    BlackPawn,
    BlackRook,
    BlackKnight,
    BlackBishop,
    BlackKing,
    BlackQueen,
    /// Code 13, the "magic piece" that signals a draw (2012+ header).
    MagicDraw,
    /// Code 14, signals that White won.
    MagicWhiteWins,
    /// Code 15, signals that Black won.
    MagicBlackWins,
}

impl DgtPiece {
    /// Decodes a piece byte. Only the low nibble carries the piece; the high bits (the
    /// undocumented "S bit" of the 2014 change log) are reported separately by
    /// [`DgtPiece::extra_bits`] so that they can be logged, never guessed at.
    pub fn from_code(code: u8) -> Self {
        use DgtPiece::*;
        match code & 0x0F {
            0 => Empty,
            1 => WhitePawn,
            2 => WhiteRook,
            3 => WhiteKnight,
            4 => WhiteBishop,
            5 => WhiteKing,
            6 => WhiteQueen,
            7 => BlackPawn,
            8 => BlackRook,
            9 => BlackKnight,
            10 => BlackBishop,
            11 => BlackKing,
            12 => BlackQueen,
            13 => MagicDraw,
            14 => MagicWhiteWins,
            _ => MagicBlackWins,
        }
    }

    /// Bits above the piece nibble in a piece byte (normally zero).
    pub fn extra_bits(code: u8) -> u8 {
        code & 0x70
    }

    pub fn code(self) -> u8 {
        use DgtPiece::*;
        match self {
            Empty => 0,
            WhitePawn => 1,
            WhiteRook => 2,
            WhiteKnight => 3,
            WhiteBishop => 4,
            WhiteKing => 5,
            WhiteQueen => 6,
            BlackPawn => 7,
            BlackRook => 8,
            BlackKnight => 9,
            BlackBishop => 10,
            BlackKing => 11,
            BlackQueen => 12,
            MagicDraw => 13,
            MagicWhiteWins => 14,
            MagicBlackWins => 15,
        }
    }

    /// True for the three result-signalling pieces 13–15.
    pub fn is_magic(self) -> bool {
        matches!(
            self,
            DgtPiece::MagicDraw | DgtPiece::MagicWhiteWins | DgtPiece::MagicBlackWins
        )
    }

    /// The FEN letter of a chess piece (`None` for empty and magic pieces).
    pub fn fen_char(self) -> Option<char> {
        use DgtPiece::*;
        Some(match self {
            WhitePawn => 'P',
            WhiteRook => 'R',
            WhiteKnight => 'N',
            WhiteBishop => 'B',
            WhiteKing => 'K',
            WhiteQueen => 'Q',
            BlackPawn => 'p',
            BlackRook => 'r',
            BlackKnight => 'n',
            BlackBishop => 'b',
            BlackKing => 'k',
            BlackQueen => 'q',
            _ => return None,
        })
    }

    pub fn from_fen_char(c: char) -> Option<Self> {
        use DgtPiece::*;
        Some(match c {
            'P' => WhitePawn,
            'R' => WhiteRook,
            'N' => WhiteKnight,
            'B' => WhiteBishop,
            'K' => WhiteKing,
            'Q' => WhiteQueen,
            'p' => BlackPawn,
            'r' => BlackRook,
            'n' => BlackKnight,
            'b' => BlackBishop,
            'k' => BlackKing,
            'q' => BlackQueen,
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip() {
        for code in 0..16u8 {
            assert_eq!(DgtPiece::from_code(code).code(), code);
        }
        assert_eq!(DgtPiece::from_code(0x15), DgtPiece::WhiteKing);
        assert_eq!(DgtPiece::extra_bits(0x15), 0x10);
    }

    #[test]
    fn fen_letters_round_trip() {
        for code in 1..13u8 {
            let p = DgtPiece::from_code(code);
            assert_eq!(DgtPiece::from_fen_char(p.fen_char().unwrap()), Some(p));
        }
        assert!(DgtPiece::MagicDraw.fen_char().is_none());
    }

    #[test]
    fn rotation_is_an_involution() {
        let a8 = PhysicalSquare::new(0).unwrap();
        assert_eq!(a8.rotated().index(), 63);
        assert_eq!(a8.rotated().rotated(), a8);
        assert!(PhysicalSquare::new(64).is_none());
    }
}
