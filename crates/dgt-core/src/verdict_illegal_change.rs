//! What a press completed that no legal move explains, as data: an illegal move (its
//! squares, both kings left in check, a king captured: 1.4.1), a bughouse drop onto a piece
//! (DJC 2.3; Flemish 5.c), a pawn left on its last rank (promotion not completed), and which
//! illegal move of the offender's it is (7.5.5; 2005 7.4b). The English of those alerts'
//! `message` is rendered here; what the Laws prescribe for it is the alert's verdict.

use shakmaty::{Color, Role, Square};

use crate::article::Article;
use crate::bughouse::DropFault;
use crate::reconstruct::role_name;
use crate::words::side_name;

/// An illegal change completed by `offender`'s press, his illegal move number `number`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IllegalChange {
    pub offender: Color,
    pub change: WhatChanged,
    /// Which illegal move of the offender's this is (1 for the first), counted whatever
    /// the verdict (reduced supervision decides some without a count).
    pub number: u32,
}

/// What the board showed at the press.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WhatChanged {
    /// A reserve piece `dropped` put on `square`, onto the piece there (`there`, when
    /// known): a drop must be made on an empty square.
    DropOntoPiece {
        dropped: Role,
        square: Square,
        there: Option<Role>,
    },
    /// The pawn still on `square`, its last rank: the promotion was not completed.
    PromotionIncomplete { square: Square },
    /// An illegal move changing `squares` (in square order); `both_kings_in_check` where it
    /// leaves both kings in check, `king_captured` (the article) where it takes the king.
    Move {
        squares: Vec<Square>,
        both_kings_in_check: bool,
        king_captured: Option<Article>,
    },
}

impl IllegalChange {
    /// What happened, for the alert's message.
    pub fn message(&self) -> String {
        let side = side_name(self.offender);
        let what = match &self.change {
            WhatChanged::DropOntoPiece {
                dropped,
                square,
                there,
            } => format!(
                "{side} dropped a {} on {square}, onto the {} there: {}",
                role_name(*dropped),
                there.map_or("piece", role_name),
                DropFault::Occupied.words()
            ),
            WhatChanged::PromotionIncomplete { square } => format!(
                "{side} pressed the clock with a pawn still on {square} (promotion not completed)"
            ),
            WhatChanged::Move {
                squares,
                both_kings_in_check,
                king_captured,
            } => {
                let squares: Vec<String> = squares.iter().map(Square::to_string).collect();
                let both = if *both_kings_in_check {
                    ", leaving both kings in check"
                } else {
                    ""
                };
                let king = king_captured
                    .as_ref()
                    .map(|article| {
                        format!(", capturing the king, which is not allowed ({article})")
                    })
                    .unwrap_or_default();
                format!(
                    "{side} completed an illegal move (squares {}){both}{king}",
                    squares.join(" ")
                )
            }
        };
        format!("{what}; offence number {} for {side}.", self.number)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The one golden test of the messages an illegal change words.
    #[test]
    fn each_illegal_change_words_its_message() {
        let change = |offender, change, number| IllegalChange {
            offender,
            change,
            number,
        };
        let cases = [
            (
                change(
                    Color::Black,
                    WhatChanged::DropOntoPiece {
                        dropped: Role::Knight,
                        square: Square::E4,
                        there: Some(Role::Pawn),
                    },
                    1,
                ),
                "Black dropped a knight on e4, onto the pawn there: a drop must be made on an empty square; offence number 1 for Black.",
            ),
            (
                change(
                    Color::White,
                    WhatChanged::PromotionIncomplete { square: Square::E8 },
                    2,
                ),
                "White pressed the clock with a pawn still on e8 (promotion not completed); offence number 2 for White.",
            ),
            (
                change(
                    Color::Black,
                    WhatChanged::Move {
                        squares: vec![Square::B8, Square::B5],
                        both_kings_in_check: false,
                        king_captured: None,
                    },
                    1,
                ),
                "Black completed an illegal move (squares b8 b5); offence number 1 for Black.",
            ),
            (
                change(
                    Color::White,
                    WhatChanged::Move {
                        squares: vec![Square::B5, Square::E8],
                        both_kings_in_check: true,
                        king_captured: Some(Article::new("1.4.1")),
                    },
                    3,
                ),
                "White completed an illegal move (squares b5 e8), leaving both kings in check, capturing the king, which is not allowed (1.4.1); offence number 3 for White.",
            ),
        ];
        for (verdict, text) in cases {
            assert_eq!(verdict.message(), text, "{verdict:?}");
        }
    }
}
