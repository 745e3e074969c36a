//! What a bughouse seat's checks against the partner board say, as data: a piece taken
//! for the partner's promotion (DJC 3.1), the clocks started apart (DJC 6.4) and a promoted
//! piece that came from elsewhere (DJC 3.1; Flemish 6.a). Advisory: the regulation leaves
//! the last two to the arbiter on request (10.5). The English
//! an alert's `message` and `prescription` carry is rendered here.

use shakmaty::{Piece, Square};

use crate::article::Article;
use crate::reconstruct::role_name;

/// A bughouse seat check's verdict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SeatVerdict {
    /// `piece` on `square` was taken off for a promotion on board `partner` (3.1): not a
    /// move; nothing to do.
    TakenForPromotion {
        piece: Piece,
        square: Square,
        partner: String,
    },
    /// This board's clock started `gap_ms` after the clock of board `partner`: both are to
    /// be started together by the two Black players (6.4).
    ClocksStartedApart { gap_ms: u64, partner: String },
    /// No piece of `owed` (in words, "white queen") left this board within `window_s`
    /// seconds of the promotion on board `partner`: the new piece came from elsewhere.
    /// `own_reserve_allowed`: the regulation allows the player's own reserve piece or his
    /// opponent's (Flemish 6.a); else it takes it from this board (DJC 3.1).
    PromotedPieceFromElsewhere {
        owed: Vec<String>,
        window_s: u64,
        partner: String,
        own_reserve_allowed: bool,
    },
}

impl SeatVerdict {
    /// The regulation's article.
    pub fn article(&self) -> Article {
        Article::new(match self {
            SeatVerdict::TakenForPromotion { .. } => "3.1",
            SeatVerdict::ClocksStartedApart { .. } => "6.4",
            SeatVerdict::PromotedPieceFromElsewhere {
                own_reserve_allowed: true,
                ..
            } => "6.a",
            SeatVerdict::PromotedPieceFromElsewhere { .. } => "3.1",
        })
    }

    /// What happened, for the alert's message.
    pub fn message(&self) -> String {
        match self {
            SeatVerdict::TakenForPromotion {
                piece,
                square,
                partner,
            } => format!(
                "The {} {} on {square} was taken for a promotion on board {partner} (3.1): not a move.",
                if piece.color.is_white() {
                    "white"
                } else {
                    "black"
                },
                role_name(piece.role)
            ),
            SeatVerdict::ClocksStartedApart { gap_ms, partner } => format!(
                "This board's clock started {:.1} s after the clock of board {partner}: both clocks are to be started together by the two Black players (6.4).",
                *gap_ms as f64 / 1000.0
            ),
            SeatVerdict::PromotedPieceFromElsewhere {
                owed,
                window_s,
                partner,
                own_reserve_allowed,
            } => {
                let rule = if *own_reserve_allowed {
                    "allowed if it was the player's own reserve piece or his opponent's (6.a)"
                } else {
                    "the regulation takes it from this board, from the opponent's partner (3.1)"
                };
                format!(
                    "No {} left this board within {window_s} s of the promotion on board {partner}: the new piece came from elsewhere (a spare set?) — {rule}.",
                    owed.join(", ")
                )
            }
        }
    }

    /// The prescription's text, as the alert carries it; none where nothing is to be done.
    pub fn render(&self) -> Option<String> {
        Some(match self {
            SeatVerdict::TakenForPromotion { .. } => return None,
            SeatVerdict::ClocksStartedApart { .. } => "Advisory: the time lost is not restored by the regulation; the arbiter decides on request (10.5).".into(),
            SeatVerdict::PromotedPieceFromElsewhere { .. } => {
                "Check where the promoted piece came from; the arbiter decides on request (10.5)."
                    .into()
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The one golden test of the seat verdicts' English.
    #[test]
    fn each_seat_verdict_renders_its_message_and_prescription() {
        let taken = SeatVerdict::TakenForPromotion {
            piece: Piece {
                color: shakmaty::Color::White,
                role: shakmaty::Role::Queen,
            },
            square: Square::D1,
            partner: "b".into(),
        };
        assert_eq!(
            (taken.article(), taken.render()),
            (Article::new("3.1"), None)
        );
        assert_eq!(
            taken.message(),
            "The white queen on d1 was taken for a promotion on board b (3.1): not a move."
        );
        let apart = SeatVerdict::ClocksStartedApart {
            gap_ms: 2_430,
            partner: "b".into(),
        };
        assert_eq!(apart.article(), "6.4");
        assert_eq!(
            apart.message(),
            "This board's clock started 2.4 s after the clock of board b: both clocks are to be started together by the two Black players (6.4)."
        );
        assert_eq!(
            apart.render().as_deref(),
            Some(
                "Advisory: the time lost is not restored by the regulation; the arbiter decides on request (10.5)."
            )
        );
        let elsewhere = |own_reserve_allowed| SeatVerdict::PromotedPieceFromElsewhere {
            owed: vec!["white queen".into(), "black rook".into()],
            window_s: 10,
            partner: "b".into(),
            own_reserve_allowed,
        };
        assert_eq!(elsewhere(false).article(), "3.1");
        assert_eq!(
            elsewhere(false).message(),
            "No white queen, black rook left this board within 10 s of the promotion on board b: the new piece came from elsewhere (a spare set?) — the regulation takes it from this board, from the opponent's partner (3.1)."
        );
        assert_eq!(elsewhere(true).article(), "6.a");
        assert_eq!(
            elsewhere(true).message(),
            "No white queen, black rook left this board within 10 s of the promotion on board b: the new piece came from elsewhere (a spare set?) — allowed if it was the player's own reserve piece or his opponent's (6.a)."
        );
        assert_eq!(
            elsewhere(true).render().as_deref(),
            Some(
                "Check where the promoted piece came from; the arbiter decides on request (10.5)."
            )
        );
    }
}
