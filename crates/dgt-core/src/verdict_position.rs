//! What the arbiter is told when play went on from an irregular position, as data: an
//! illegal move taken into the game as it stood (reinstated under full supervision, 7.5.1;
//! standing once the opponent moved on under reduced supervision, A.4.2 / B.4; for the
//! arbiter when it was answered by an illegal move), an illegal position that stands under
//! reduced supervision (A.4.4 / A.5.4; 2017 A4.4), the board no longer following the game
//! (7.1), and a game begun from a wrong set-up (7.2.1; 2005 7.1a; A.5.1.2; bughouse 7.1). The English of those alerts' `message` and `prescription` is rendered here.

use shakmaty::{Color, Square};

use crate::article::Article;
use crate::words::side_name;

/// An illegal move taken into the game as it stood, once play went on from it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AdoptedIllegalMove {
    /// The opponent answered it with an illegal move of his own (e.g. taking the king left
    /// in check, 1.4.1): whether it can still be corrected is for the arbiter. `window`:
    /// the article under which the answer may count as the opponent's next move;
    /// `reinstate`: the article that restores the position (7.5.1).
    AnsweredIllegally {
        offender: Color,
        /// The move as the alert writes it (long algebraic: `Ng8-f6`).
        notation: String,
        window: Article,
        reinstate: Article,
    },
    /// Reduced supervision: the opponent moved on without a claim, so the move stands.
    Stands { offender: Color, notation: String },
    /// Full supervision: the pawn left on its last rank must become a queen (2017+ 7.5.2).
    PawnToQueen {
        offender: Color,
        square: Square,
        article: Article,
    },
    /// Full supervision: the position before the illegal move must be reinstated.
    Reinstate { offender: Color, notation: String },
}

impl AdoptedIllegalMove {
    pub fn offender(&self) -> Color {
        match self {
            AdoptedIllegalMove::AnsweredIllegally { offender, .. }
            | AdoptedIllegalMove::Stands { offender, .. }
            | AdoptedIllegalMove::PawnToQueen { offender, .. }
            | AdoptedIllegalMove::Reinstate { offender, .. } => *offender,
        }
    }

    /// What happened, for the alert's message.
    pub fn message(&self) -> String {
        let side = side_name(self.offender());
        match self {
            AdoptedIllegalMove::AnsweredIllegally { notation, .. } => format!(
                "{side}'s illegal move {notation} was answered by an illegal move, not by a claim: whether it can still be corrected is for the arbiter to decide."
            ),
            AdoptedIllegalMove::Stands { notation, .. } => format!(
                "{side}'s illegal move {notation} stands: {} moved on without a claim.",
                side_name(!self.offender())
            ),
            AdoptedIllegalMove::PawnToQueen {
                square, article, ..
            } => format!(
                "The game went on after {side}'s pawn was left on {square}: it must be replaced by a queen ({article})."
            ),
            AdoptedIllegalMove::Reinstate { notation, .. } => format!(
                "The game went on after {side}'s illegal move {notation}: the position before it must be reinstated."
            ),
        }
    }

    /// The prescription's text, where the arbiter has a choice to make.
    pub fn render(&self) -> Option<String> {
        match self {
            AdoptedIllegalMove::AnsweredIllegally {
                offender,
                notation,
                window,
                reinstate,
            } => Some(format!(
                "If {}'s answer is not counted as his next move ({window}), restore the position before {notation} ({reinstate}); otherwise {notation} stands and only the answer is corrected.",
                side_name(!*offender)
            )),
            _ => None,
        }
    }
}

/// What makes a position illegal where it stands on the board.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IllegalPlacement {
    BothKingsInCheck,
    /// A pawn stands on its last rank, on `0`.
    PawnOnLastRank(Square),
}

impl IllegalPlacement {
    fn words(self) -> String {
        match self {
            IllegalPlacement::BothKingsInCheck => "both kings are in check".into(),
            IllegalPlacement::PawnOnLastRank(sq) => format!("a pawn stands on {sq}, its last rank"),
        }
    }
}

/// Reduced supervision (A.4.4 / A.5.4; 2017 A4.4): an illegal position that stood is
/// watched; still on the board after the next completed move, the game is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StandingIllegalPosition {
    /// First seen after ply `ply`: the arbiter waits for the next completed move.
    Seen {
        ply: u32,
        what: IllegalPlacement,
        article: Article,
    },
    /// Seen after ply `seen` and still on the board after the next completed move: drawn.
    StillThere {
        seen: u32,
        what: IllegalPlacement,
        article: Article,
    },
}

impl StandingIllegalPosition {
    /// What happened, for the alert's message.
    pub fn message(&self) -> String {
        match *self {
            StandingIllegalPosition::Seen { ply, what, .. } => format!(
                "An illegal position stands after ply {ply}: {}.",
                what.words()
            ),
            StandingIllegalPosition::StillThere { seen, what, .. } => format!(
                "The illegal position seen after ply {seen} is still on the board after the next completed move: {}.",
                what.words()
            ),
        }
    }

    /// The prescription's text, as the alert carries it.
    pub fn render(&self) -> String {
        match *self {
            StandingIllegalPosition::Seen { article, .. } => format!(
                "Wait until the next move is completed; if the illegal position is still on the board then, the game is drawn ({article})."
            ),
            StandingIllegalPosition::StillThere { article, .. } => {
                format!("Declare the game drawn ({article}).")
            }
        }
    }
}

/// Why the core stopped reading moves from the board.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LostBecause {
    /// An illegal move was taken into the game as it stood, then another came (7.5.1).
    SecondIllegalStood,
    /// A press found the board changed in more ways than one move of the player on move
    /// can make: not an illegal move (7.5.1 is about a move), but the board gone astray.
    NotOneMove,
    /// A press came while an illegal move (or an illegal position) was already raised and
    /// not yet put right: play went on from the irregular position (7.5.1: the arbiter
    /// establishes it), not a further offence of its own.
    PlayWentOnAfterIllegal,
}

impl LostBecause {
    fn words(self) -> &'static str {
        match self {
            LostBecause::SecondIllegalStood => {
                "after an illegal move taken as it stood, another change"
            }
            LostBecause::NotOneMove => {
                "at a press the board differs from the last legal position in more squares than one move changes"
            }
            LostBecause::PlayWentOnAfterIllegal => {
                "the clock was pressed while an irregularity already raised (an illegal move, a displaced piece) was not put right"
            }
        }
    }
}

/// The board no longer follows the game: no move is read until it shows a position the
/// game explains (7.1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LostTrack {
    pub because: LostBecause,
    /// The squares that differ from the game's position.
    pub squares: Vec<String>,
    /// The game's last legal ply.
    pub ply: usize,
}

impl LostTrack {
    /// What happened, for the alert's message.
    pub fn message(&self) -> String {
        format!(
            "The board no longer follows the game: {}, a change no legal move explains (squares {}). No move is recorded until the board shows the position after ply {} or an earlier one, a legal move from it, or a new set-up.",
            self.because.words(),
            self.squares.join(" "),
            self.ply
        )
    }

    /// The prescription's text, as the alert carries it.
    pub fn render(&self) -> String {
        format!(
            "Establish the position and the moves since ply {} from the players' scoresheets; reinstate the last legal position with its clock times (7.1) or set the position up again.",
            self.ply
        )
    }
}

/// What a game begun from a wrong set-up prescribes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SetupVerdict {
    /// Standard play: set the pieces up correctly before the first move is completed; once
    /// the game has begun, it is cancelled and a new game played (7.2.1; 2005 7.1a).
    SetUpAgain { article: Article },
    /// Reduced supervision: a claim only until each player has made `moves` moves
    /// (`window`); then the game goes on, and a misplaced king or rook may not castle.
    ClaimWithin { window: Article, moves: u32 },
    /// Bughouse (DJC 7.1, 7.2): restarted if noticed before Black completed his third move.
    BughouseRestart,
}

impl SetupVerdict {
    /// The prescription's text, as the alert carries it.
    pub fn render(&self) -> String {
        match self {
            SetupVerdict::SetUpAgain { article } => format!(
                "Before the first move is completed, set the pieces up correctly; once the game has begun, it is cancelled and a new game played ({article})."
            ),
            SetupVerdict::ClaimWithin { window, moves } => format!(
                "A claim is possible only until each player has made {moves} moves ({window}); after that the game goes on, and a misplaced king or rook may not castle."
            ),
            SetupVerdict::BughouseRestart => "If it is noticed before Black has completed his third move, this game is restarted; after that it continues (7.1). Only colours reversed on one board restart both games (7.2).".into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The one golden test of the adopted illegal move's English.
    #[test]
    fn an_adopted_illegal_move_renders_by_supervision() {
        let answered = AdoptedIllegalMove::AnsweredIllegally {
            offender: Color::Black,
            notation: "Nd4".into(),
            window: Article::new("A.5.2"),
            reinstate: Article::new("7.5.1"),
        };
        assert_eq!(answered.offender(), Color::Black);
        assert_eq!(
            answered.message(),
            "Black's illegal move Nd4 was answered by an illegal move, not by a claim: whether it can still be corrected is for the arbiter to decide."
        );
        assert_eq!(
            answered.render().as_deref(),
            Some(
                "If White's answer is not counted as his next move (A.5.2), restore the position before Nd4 (7.5.1); otherwise Nd4 stands and only the answer is corrected."
            )
        );
        let stands = AdoptedIllegalMove::Stands {
            offender: Color::Black,
            notation: "Nd4".into(),
        };
        assert_eq!(
            (stands.message().as_str(), stands.render()),
            (
                "Black's illegal move Nd4 stands: White moved on without a claim.",
                None
            )
        );
        assert_eq!(
            AdoptedIllegalMove::PawnToQueen {
                offender: Color::White,
                square: Square::E8,
                article: Article::new("7.5.2"),
            }
            .message(),
            "The game went on after White's pawn was left on e8: it must be replaced by a queen (7.5.2)."
        );
        assert_eq!(
            AdoptedIllegalMove::Reinstate {
                offender: Color::White,
                notation: "Ke3".into(),
            }
            .message(),
            "The game went on after White's illegal move Ke3: the position before it must be reinstated."
        );
    }

    /// The one golden test of a standing illegal position's English.
    #[test]
    fn a_standing_illegal_position_waits_one_move_then_draws() {
        let article = Article::new("A.5.4");
        let seen = StandingIllegalPosition::Seen {
            ply: 7,
            what: IllegalPlacement::PawnOnLastRank(Square::E8),
            article,
        };
        assert_eq!(
            seen.message(),
            "An illegal position stands after ply 7: a pawn stands on e8, its last rank."
        );
        assert_eq!(
            seen.render(),
            "Wait until the next move is completed; if the illegal position is still on the board then, the game is drawn (A.5.4)."
        );
        let still = StandingIllegalPosition::StillThere {
            seen: 7,
            what: IllegalPlacement::BothKingsInCheck,
            article,
        };
        assert_eq!(
            still.message(),
            "The illegal position seen after ply 7 is still on the board after the next completed move: both kings are in check."
        );
        assert_eq!(still.render(), "Declare the game drawn (A.5.4).");
    }

    /// The one golden test of the wrong set-up's English.
    #[test]
    fn a_wrong_set_up_renders_by_supervision() {
        assert_eq!(
            SetupVerdict::SetUpAgain {
                article: Article::new("7.2.1")
            }
            .render(),
            "Before the first move is completed, set the pieces up correctly; once the game has begun, it is cancelled and a new game played (7.2.1)."
        );
        assert_eq!(
            SetupVerdict::ClaimWithin {
                window: Article::new("B4"),
                moves: 3
            }
            .render(),
            "A claim is possible only until each player has made 3 moves (B4); after that the game goes on, and a misplaced king or rook may not castle."
        );
        assert_eq!(
            SetupVerdict::BughouseRestart.render(),
            "If it is noticed before Black has completed his third move, this game is restarted; after that it continues (7.1). Only colours reversed on one board restart both games (7.2)."
        );
    }

    /// The one golden test of a lost track's English.
    #[test]
    fn a_lost_track_names_why_and_where_to_pick_up() {
        let lost = LostTrack {
            because: LostBecause::NotOneMove,
            squares: vec!["e2".into(), "e4".into(), "d7".into()],
            ply: 6,
        };
        assert_eq!(
            lost.message(),
            "The board no longer follows the game: at a press the board differs from the last legal position in more squares than one move changes, a change no legal move explains (squares e2 e4 d7). No move is recorded until the board shows the position after ply 6 or an earlier one, a legal move from it, or a new set-up."
        );
        assert_eq!(
            lost.render(),
            "Establish the position and the moves since ply 6 from the players' scoresheets; reinstate the last legal position with its clock times (7.1) or set the position up again."
        );
    }
}
