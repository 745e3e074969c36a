//! How a bughouse game ends on its board, as data (DJC / KNSB 5.2, 5.4, 5.5, 5.8, 10.2;
//! Flemish 5.d, 6.d, 6.f): a mate or stalemate that stands only provisionally while the
//! other game runs, one that ends the game, the Flemish mate on the opponent's claim and
//! stalemate, and both flags down. The English of those alerts' `message` and
//! `prescription` is rendered here.

use shakmaty::Color;

use crate::bughouse::Standing;
use crate::outcome::GameResult;
use crate::words::side_name;

/// What a bughouse game's end on its board says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BughouseEndVerdict {
    /// `side` is mated or stalemated with nothing to drop while the other game runs: only
    /// provisionally, as a piece passed can still lift it (5.4, 5.5).
    Provisional { side: Color, standing: Standing },
    /// `side` is mated or stalemated and the other game has ended: the game is over.
    Ended { side: Color, standing: Standing },
    /// Flemish: `side` is checkmated (6.d); the game ends on the direct opponent's claim
    /// (6.f).
    FlemishMate { side: Color },
    /// Flemish: `side` has no move and nothing to drop; a draw only if both players of one
    /// team are (5.d).
    FlemishStalemate { side: Color },
    /// DJC / KNSB: both flags are down: drawn, declared by the arbiter at once (5.8, 10.2).
    BothFlagsDown,
}

impl BughouseEndVerdict {
    /// The result it decides, if any.
    pub fn result(&self) -> Option<GameResult> {
        match *self {
            BughouseEndVerdict::Ended {
                side,
                standing: Standing::Mated,
            } => Some(GameResult::win_for(!side)),
            BughouseEndVerdict::Ended { .. } | BughouseEndVerdict::BothFlagsDown => {
                Some(GameResult::Drawn)
            }
            _ => None,
        }
    }

    /// The regulation's articles.
    pub fn article(&self) -> &'static str {
        match self {
            BughouseEndVerdict::Provisional { standing, .. }
            | BughouseEndVerdict::Ended { standing, .. } => {
                if *standing == Standing::Mated {
                    "5.4"
                } else {
                    "5.5"
                }
            }
            BughouseEndVerdict::FlemishMate { .. } => "6.d, 6.f",
            BughouseEndVerdict::FlemishStalemate { .. } => "5.d",
            BughouseEndVerdict::BothFlagsDown => "5.8, 10.2",
        }
    }

    /// What happened, for the alert's message.
    pub fn message(&self) -> String {
        let what = |standing: Standing| {
            if standing == Standing::Mated {
                "checkmated"
            } else {
                "stalemated"
            }
        };
        match *self {
            BughouseEndVerdict::Provisional { side, standing } => {
                let name = side_name(side);
                format!(
                    "{name} is {} with nothing to drop, provisionally: the game ends only when the other game has ended or {name}'s time runs out ({}); {name}'s clock keeps running.",
                    what(standing),
                    self.article()
                )
            }
            BughouseEndVerdict::Ended { side, standing } => format!(
                "{} is {} and the other game has ended: the game is over, {}.",
                side_name(side),
                what(standing),
                self.result().unwrap_or(GameResult::Drawn)
            ),
            BughouseEndVerdict::FlemishMate { side } => format!(
                "{} is checkmated (no move, no square to block the check, 6.d).",
                side_name(side)
            ),
            BughouseEndVerdict::FlemishStalemate { side } => {
                format!("{} has no move and nothing to drop.", side_name(side))
            }
            BughouseEndVerdict::BothFlagsDown => {
                "Both flags have fallen: the game is drawn, and the arbiter must declare it now."
                    .into()
            }
        }
    }

    /// The prescription's text, as the alert carries it.
    pub fn render(&self) -> String {
        match self {
            BughouseEndVerdict::Provisional { .. } => "Let the clock run. A piece passed by the partner, or taken off this board by his promotion, can still lift it (5.4).".into(),
            BughouseEndVerdict::Ended { .. } => format!(
                "The result is {}; the final position stays on the board until the other game ends (5.2).",
                self.result().unwrap_or(GameResult::Drawn)
            ),
            BughouseEndVerdict::FlemishMate { .. } => "The game ends when the direct opponent claims the mate (6.f); his team then wins the match (5.d).".into(),
            BughouseEndVerdict::FlemishStalemate { .. } => {
                "A draw only if both players of one team are stalemated without reserve pieces (5.d).".into()
            }
            BughouseEndVerdict::BothFlagsDown => {
                "Declare the game drawn (10.2: the one case the arbiter acts without a request).".into()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The one golden test of the bughouse ends' English: each message and prescription.
    #[test]
    fn each_bughouse_end_renders_its_message_and_prescription() {
        let black = Color::Black;
        let cases = [
            (
                BughouseEndVerdict::Provisional {
                    side: black,
                    standing: Standing::Mated,
                },
                None,
                "Black is checkmated with nothing to drop, provisionally: the game ends only when the other game has ended or Black's time runs out (5.4); Black's clock keeps running.",
                "Let the clock run. A piece passed by the partner, or taken off this board by his promotion, can still lift it (5.4).",
            ),
            (
                BughouseEndVerdict::Ended {
                    side: black,
                    standing: Standing::Mated,
                },
                Some(GameResult::WhiteWins),
                "Black is checkmated and the other game has ended: the game is over, 1-0.",
                "The result is 1-0; the final position stays on the board until the other game ends (5.2).",
            ),
            (
                BughouseEndVerdict::Ended {
                    side: black,
                    standing: Standing::Stalemated,
                },
                Some(GameResult::Drawn),
                "Black is stalemated and the other game has ended: the game is over, 1/2-1/2.",
                "The result is 1/2-1/2; the final position stays on the board until the other game ends (5.2).",
            ),
            (
                BughouseEndVerdict::FlemishMate { side: black },
                None,
                "Black is checkmated (no move, no square to block the check, 6.d).",
                "The game ends when the direct opponent claims the mate (6.f); his team then wins the match (5.d).",
            ),
            (
                BughouseEndVerdict::FlemishStalemate { side: black },
                None,
                "Black has no move and nothing to drop.",
                "A draw only if both players of one team are stalemated without reserve pieces (5.d).",
            ),
            (
                BughouseEndVerdict::BothFlagsDown,
                Some(GameResult::Drawn),
                "Both flags have fallen: the game is drawn, and the arbiter must declare it now.",
                "Declare the game drawn (10.2: the one case the arbiter acts without a request).",
            ),
        ];
        for (verdict, result, message, prescription) in cases {
            assert_eq!(verdict.result(), result, "{verdict:?}");
            assert_eq!(verdict.message(), message, "{verdict:?}");
            assert_eq!(verdict.render(), prescription, "{verdict:?}");
        }
    }
}
