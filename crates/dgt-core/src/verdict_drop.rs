//! Bughouse drops as data (DJC / KNSB 2.2–2.6, 4.1, 7.4–7.6, 10.1–10.5; Flemish 5.b–5.c,
//! 6.b): an illegal drop and what the opponent may do about it, a piece possibly passed
//! before the capturer's press, the opponent's demand to take a drop back, a drop touched
//! and changed before the press, and a promotion forfeited for want of a piece on the
//! partner board (3.1). The English of those alerts' `message` and `prescription` is
//! rendered here.

use shakmaty::{Color, Role, Square};

use crate::article::Article;
use crate::bughouse::DropFault;
use crate::reconstruct::role_name;
use crate::words::side_name;

/// What a bughouse drop alert says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DropVerdict {
    /// `dropper` dropped `notation`, which the regulation forbids for `faults`; he held at
    /// most `held` (in words); it is his illegal move number `number`. `fide_blitz`: where
    /// the FIDE blitz rules lie underneath (Flemish), the article they apply on a claim;
    /// otherwise the opponent accepts it or demands it back, and no time is added.
    Illegal {
        dropper: Color,
        notation: String,
        faults: Vec<DropFault>,
        held: String,
        number: u32,
        fide_blitz: Option<Article>,
    },
    /// Flemish 5.b / 6.b: a `piece` dropped on `square` while the capture of the only such
    /// piece on board `partner` was not yet completed by its press.
    PassedBeforePress {
        dropper: Color,
        piece: Role,
        square: Square,
        partner: String,
    },
    /// `presser` pressed the clock back without moving: he demands the opponent's illegal
    /// drop be taken back (7.6).
    TakeBackDemanded { presser: Color },
    /// `dropper` dropped the `piece` on `square`, then moved it to `to` before pressing: it
    /// goes back where it was released on request (10.5; touch move, 4.1).
    MovedAfterDrop {
        dropper: Color,
        piece: Role,
        square: Square,
        to: Square,
    },
    /// `dropper` put a `piece` from the reserve on `square`, took it back and made another
    /// move: on request it must be dropped there (4.1).
    TakenBackForAnother {
        dropper: Color,
        piece: Role,
        square: Square,
    },
    /// `player`'s pawn reached `square` with no queen, rook, bishop or knight of his colour
    /// on board `partner` to take: the promotion is forfeited and the pawn lost (3.1); the
    /// game goes on.
    PromotionForfeited {
        player: Color,
        square: Square,
        partner: String,
    },
}

impl DropVerdict {
    /// What happened, for the alert's message.
    pub fn message(&self) -> String {
        match self {
            DropVerdict::Illegal {
                dropper,
                notation,
                faults,
                held,
                number,
                ..
            } => {
                let name = side_name(*dropper);
                let why: Vec<String> = faults.iter().map(|f| f.words()).collect();
                format!(
                    "{name} dropped {notation}, which is illegal: {} ({name} held at most {held}); illegal move number {number} of {name}.",
                    why.join("; ")
                )
            }
            DropVerdict::PassedBeforePress {
                dropper,
                piece,
                square,
                partner,
            } => format!(
                "{} dropped a {} on {square} while the capture of the only such piece on board {partner} was not yet completed by its clock press: possibly passed before the press (5.b, 6.b).",
                side_name(*dropper),
                role_name(*piece)
            ),
            DropVerdict::TakeBackDemanded { presser } => format!(
                "{} pressed the clock back without moving: he demands that {}'s illegal drop be taken back (7.6).",
                side_name(*presser),
                side_name(!*presser)
            ),
            DropVerdict::MovedAfterDrop {
                dropper,
                piece,
                square,
                to,
            } => format!(
                "{} dropped the {} on {square}, then moved it to {to} before pressing the clock.",
                side_name(*dropper),
                role_name(*piece)
            ),
            DropVerdict::TakenBackForAnother {
                dropper,
                piece,
                square,
            } => format!(
                "{} put a {} from the reserve on {square}, took it back and made another move.",
                side_name(*dropper),
                role_name(*piece)
            ),
            DropVerdict::PromotionForfeited {
                player,
                square,
                partner,
            } => format!(
                "{}'s pawn reached {square} with no queen, rook, bishop or knight of his colour on board {partner}: the promotion is forfeited and the pawn lost (3.1).",
                side_name(*player)
            ),
        }
    }

    /// The prescription's text, as the alert carries it.
    pub fn render(&self) -> String {
        match self {
            DropVerdict::Illegal {
                fide_blitz: Some(article),
                ..
            } => format!(
                "On the opponent's claim the FIDE blitz rules for an illegal move apply (regulation 3; {article})."
            ),
            DropVerdict::Illegal {
                fide_blitz: None, ..
            } => "The opponent may accept it by moving on, or demand it be taken back and replaced by a legal move (7.4); pressing the clock back without a move is that demand (7.6). No time is added; for repeated illegal moves the arbiter may add time or declare the game lost (10.3). The arbiter acts only on request (10.1).".into(),
            DropVerdict::PassedBeforePress { .. } => {
                "A hint only: the hand-over cannot be seen. Ask the players if the opponent claims it.".into()
            }
            DropVerdict::TakeBackDemanded { presser } => format!(
                "{} takes the drop back and makes a legal move; a piece that touched the board must be dropped if it can be (4.1).",
                side_name(!*presser)
            ),
            DropVerdict::MovedAfterDrop { piece, square, .. } => format!(
                "On the opponent's request the {} goes back to {square}, where it was released (10.5).",
                role_name(*piece)
            ),
            DropVerdict::TakenBackForAnother { piece, square, .. } => format!(
                "On the opponent's request the {} must be dropped on {square}, unless that drop is illegal (4.1).",
                role_name(*piece)
            ),
            DropVerdict::PromotionForfeited { .. } => "Nothing to do: the game goes on. Whether the pawn still passes to the opponent (3.2) the regulation does not say; the reserve count includes it.".into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The one golden test of the drop verdicts' English: each message and prescription.
    #[test]
    fn each_drop_case_renders_its_message_and_prescription() {
        let illegal = |fide_blitz| DropVerdict::Illegal {
            dropper: Color::Black,
            notation: "P@e1".into(),
            faults: vec![DropFault::PawnRank(1), DropFault::NotAvailable],
            held: "nothing".into(),
            number: 2,
            fide_blitz,
        };
        let cases = [
            (
                illegal(None),
                "Black dropped P@e1, which is illegal: a pawn may not be dropped on rank 1; no such piece left the partner board for him (the hand-over cannot be seen: the count is an upper bound) (Black held at most nothing); illegal move number 2 of Black.",
                "The opponent may accept it by moving on, or demand it be taken back and replaced by a legal move (7.4); pressing the clock back without a move is that demand (7.6). No time is added; for repeated illegal moves the arbiter may add time or declare the game lost (10.3). The arbiter acts only on request (10.1).".to_string(),
            ),
            (
                illegal(Some(Article::new("7.5.1"))),
                "Black dropped P@e1, which is illegal: a pawn may not be dropped on rank 1; no such piece left the partner board for him (the hand-over cannot be seen: the count is an upper bound) (Black held at most nothing); illegal move number 2 of Black.",
                "On the opponent's claim the FIDE blitz rules for an illegal move apply (regulation 3; 7.5.1).".to_string(),
            ),
            (
                DropVerdict::PassedBeforePress {
                    dropper: Color::White,
                    piece: Role::Knight,
                    square: Square::F3,
                    partner: "2".into(),
                },
                "White dropped a knight on f3 while the capture of the only such piece on board 2 was not yet completed by its clock press: possibly passed before the press (5.b, 6.b).",
                "A hint only: the hand-over cannot be seen. Ask the players if the opponent claims it.".to_string(),
            ),
            (
                DropVerdict::TakeBackDemanded {
                    presser: Color::White,
                },
                "White pressed the clock back without moving: he demands that Black's illegal drop be taken back (7.6).",
                "Black takes the drop back and makes a legal move; a piece that touched the board must be dropped if it can be (4.1).".to_string(),
            ),
            (
                DropVerdict::MovedAfterDrop {
                    dropper: Color::Black,
                    piece: Role::Knight,
                    square: Square::E5,
                    to: Square::F3,
                },
                "Black dropped the knight on e5, then moved it to f3 before pressing the clock.",
                "On the opponent's request the knight goes back to e5, where it was released (10.5).".to_string(),
            ),
            (
                DropVerdict::TakenBackForAnother {
                    dropper: Color::White,
                    piece: Role::Bishop,
                    square: Square::C4,
                },
                "White put a bishop from the reserve on c4, took it back and made another move.",
                "On the opponent's request the bishop must be dropped on c4, unless that drop is illegal (4.1).".to_string(),
            ),
            (
                DropVerdict::PromotionForfeited {
                    player: Color::White,
                    square: Square::E8,
                    partner: "2".into(),
                },
                "White's pawn reached e8 with no queen, rook, bishop or knight of his colour on board 2: the promotion is forfeited and the pawn lost (3.1).",
                "Nothing to do: the game goes on. Whether the pawn still passes to the opponent (3.2) the regulation does not say; the reserve count includes it.".to_string(),
            ),
        ];
        for (verdict, message, prescription) in cases {
            assert_eq!(verdict.message(), message, "{verdict:?}");
            assert_eq!(verdict.render(), prescription, "{verdict:?}");
        }
    }
}
