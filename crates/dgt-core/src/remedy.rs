//! What is done on the board first after an offence, before its penalty: the position
//! restored and the move to replace the illegal one (7.5.1, 4.3 / 4.5; 2005 7.4a), the pawn
//! left on its last rank made a queen (2017+ 7.5.2), the move left standing, or the clock
//! started again. As data, so that tests and views read which remedy it is; the English
//! an alert's `prescription` carries is its `Display`.

use std::fmt;

use shakmaty::Square;

use crate::article::Article;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Remedy {
    /// Restore the position before the irregularity (`article`: 7.5.1; 2005 7.4a) with the
    /// clock times logged at the last completed move, then the replacement move.
    Restore {
        article: Article,
        replacement: Replacement,
    },
    /// The pawn left on its last rank becomes a queen of its colour (2017+ 7.5.2).
    QueenForPawn { article: Article },
    /// The move stands (a confirmed two-handed move: 2018+ 7.5.4, 2017 7.7).
    MoveStands,
    /// The player's clock is started again: a move must still be made (7.5.3; 2017 7.8).
    RestartClock,
}

/// The move that replaces the illegal one (4.3, 4.5).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Replacement {
    /// The piece moved can move legally: the replacement is made with it (touch move,
    /// `article`: 4.3.1; 2005 4.3a).
    WithPiece { square: Square, article: Article },
    /// The piece moved has no legal move: any legal move may be made (4.5).
    AnyLegalMove { square: Square },
    /// Which piece moved is not known: the piece touched, if it can move (`article`).
    PieceTouched { article: Article },
}

impl fmt::Display for Replacement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Replacement::WithPiece { square, article } => write!(
                f,
                "the replacement move must be made with the piece on {square} ({article})"
            ),
            Replacement::AnyLegalMove { square } => write!(
                f,
                "the piece on {square} has no legal move, so any legal move may be made (4.5)"
            ),
            Replacement::PieceTouched { article } => write!(
                f,
                "the move must be made with the piece touched if legal ({article})"
            ),
        }
    }
}

impl fmt::Display for Remedy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Remedy::Restore {
                article,
                replacement,
            } => write!(
                f,
                "Restore the position before the irregularity ({article}), with the clock times logged at the last completed move; {replacement}"
            ),
            Remedy::QueenForPawn { article } => write!(
                f,
                "Replace the pawn by a queen of the same colour ({article})"
            ),
            Remedy::MoveStands => f.write_str("The move stands"),
            Remedy::RestartClock => {
                f.write_str("Start the player's clock again: a move must be made")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The one golden test of the remedies' English: each variant as the prescription
    /// carries it.
    #[test]
    fn remedies_render_as_the_prescription_words_them() {
        let restore = |replacement| Remedy::Restore {
            article: Article::new("7.5.1"),
            replacement,
        };
        assert_eq!(
            restore(Replacement::WithPiece {
                square: Square::E2,
                article: Article::new("4.3.1"),
            })
            .to_string(),
            "Restore the position before the irregularity (7.5.1), with the clock times logged at the last completed move; the replacement move must be made with the piece on e2 (4.3.1)"
        );
        assert_eq!(
            restore(Replacement::AnyLegalMove { square: Square::H1 }).to_string(),
            "Restore the position before the irregularity (7.5.1), with the clock times logged at the last completed move; the piece on h1 has no legal move, so any legal move may be made (4.5)"
        );
        assert_eq!(
            restore(Replacement::PieceTouched {
                article: Article::new("4.3.1"),
            })
            .to_string(),
            "Restore the position before the irregularity (7.5.1), with the clock times logged at the last completed move; the move must be made with the piece touched if legal (4.3.1)"
        );
        assert_eq!(
            Remedy::QueenForPawn {
                article: Article::new("7.5.2")
            }
            .to_string(),
            "Replace the pawn by a queen of the same colour (7.5.2)"
        );
        assert_eq!(Remedy::MoveStands.to_string(), "The move stands");
        assert_eq!(
            Remedy::RestartClock.to_string(),
            "Start the player's clock again: a move must be made"
        );
    }
}
