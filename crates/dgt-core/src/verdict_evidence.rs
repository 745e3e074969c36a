//! What happened, as data, where an alert's verdict does not word it: the change a press
//! showed that no legal move explains, what is wrong with a set-up. The alert's `message` is
//! rendered from it.

use crate::reconstruct::WrongSetup;
use crate::verdict_illegal_change::IllegalChange;

/// An alert's evidence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Evidence {
    /// What a press completed that no legal move explains.
    IllegalChange(IllegalChange),
    /// What is wrong with the set-up a game began from (7.2.1; 2005 7.1a; II.2).
    WrongSetup(WrongSetup),
}

impl Evidence {
    /// What happened, for the alert's message.
    pub fn message(&self) -> String {
        match self {
            Evidence::IllegalChange(c) => c.message(),
            Evidence::WrongSetup(w) => format!("The game began from a wrong set-up: {w}."),
        }
    }

    pub fn illegal_change(&self) -> Option<&IllegalChange> {
        match self {
            Evidence::IllegalChange(c) => Some(c),
            _ => None,
        }
    }

    pub fn wrong_setup(&self) -> Option<&WrongSetup> {
        match self {
            Evidence::WrongSetup(w) => Some(w),
            _ => None,
        }
    }
}

impl From<IllegalChange> for Evidence {
    fn from(c: IllegalChange) -> Self {
        Evidence::IllegalChange(c)
    }
}

impl From<WrongSetup> for Evidence {
    fn from(w: WrongSetup) -> Self {
        Evidence::WrongSetup(w)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reconstruct::Not960;
    use shakmaty::{Color, Role, Square};

    /// The one golden test of a wrong set-up's English.
    #[test]
    fn a_wrong_set_up_words_what_is_misplaced() {
        let swapped = WrongSetup {
            misplaced: vec![(
                Color::White,
                vec![(Role::King, Square::D1), (Role::Queen, Square::E1)],
            )],
            not_chess960: Vec::new(),
        };
        assert_eq!(
            Evidence::from(swapped).message(),
            "The game began from a wrong set-up: not the initial position: White has the king on d1, the queen on e1."
        );
        let both = WrongSetup {
            misplaced: vec![
                (Color::White, vec![(Role::Bishop, Square::B1)]),
                (Color::Black, vec![(Role::Knight, Square::C8)]),
            ],
            not_chess960: vec![Not960::BishopsOnOneColour, Not960::KingNotBetweenRooks],
        };
        assert_eq!(
            Evidence::from(both).message(),
            "The game began from a wrong set-up: not the initial position: White has a bishop on b1; Black has a knight on c8; not a Chess960 start either: both bishops stand on squares of one colour and the king does not stand between the rooks."
        );
    }
}
