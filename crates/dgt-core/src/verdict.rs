//! Typed verdicts: what the Laws prescribe for an offence (7.5.5, 2017 7.7 / 7.8, 2005 7.4b)
//! as data — the remedy, the time given to the opponent, the result decided, the article —
//! and the English text an alert's `prescription` carries, rendered here and only here.

use shakmaty::Color;

/// A side as prescriptions and messages name it.
pub fn side_name(c: Color) -> &'static str {
    if c.is_white() { "White" } else { "Black" }
}

/// The verdict on an offence of `offender` (an illegal move, a press without a move, a move
/// made with two hands), before it is counted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OffenceVerdict {
    pub offender: Color,
    /// Which offence of the offender's this is (1 for the first).
    pub number: u32,
    /// The penalty article (7.5.5; 2017 7.5.3 / 7.7.1 / 7.8.1; 2005 7.4b).
    pub article: &'static str,
    /// What is done on the board first ("Restore the position …", "The move stands").
    pub remedy: String,
    pub decision: OffenceDecision,
}

/// What the offence decides.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OffenceDecision {
    /// The game goes on: `add_ms` to the opponent's clock (0 where the category adds none);
    /// offence number `loses_at` loses.
    TimeToOpponent { add_ms: u64, loses_at: u32 },
    /// The offence loses the game for the offender.
    Loses,
    /// The offence would lose, but the opponent cannot checkmate by any series of legal
    /// moves: drawn.
    Drawn,
    /// The offender loses unless the opponent cannot checkmate, which could not be decided:
    /// the arbiter examines the position.
    LosesUnlessOpponentCannotMate,
}

impl OffenceVerdict {
    /// The opponent of the offender: who gets the time, or the game.
    pub fn opponent(&self) -> Color {
        !self.offender
    }

    /// The prescription's text, as the alert carries it.
    pub fn render(&self) -> String {
        let name = side_name(self.offender);
        let opp = side_name(self.opponent());
        let (n, article) = (self.number, self.article);
        let verdict = match self.decision {
            OffenceDecision::TimeToOpponent { add_ms, loses_at } => {
                let time = if add_ms == 0 {
                    "no time is added in this category".to_string()
                } else {
                    format!("add {} minute(s) to {opp}'s clock", add_ms / 60_000)
                };
                return format!(
                    "{}; {time} ({article}). This is {name}'s offence number {n}; number {loses_at} loses.",
                    self.remedy
                );
            }
            OffenceDecision::Loses => format!("{name} loses the game"),
            OffenceDecision::Drawn => {
                format!("the game is drawn: {opp} cannot checkmate by any series of legal moves")
            }
            OffenceDecision::LosesUnlessOpponentCannotMate => format!(
                "{name} loses, unless {opp} cannot checkmate by any series of legal moves (undetermined: examine the position)"
            ),
        };
        format!("{name}'s offence number {n}: {verdict} ({article}).")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verdict(decision: OffenceDecision) -> OffenceVerdict {
        OffenceVerdict {
            offender: Color::Black,
            number: 2,
            article: "7.5.5",
            remedy: "The move stands".into(),
            decision,
        }
    }

    #[test]
    fn renders_the_prescription_texts() {
        let time = verdict(OffenceDecision::TimeToOpponent {
            add_ms: 120_000,
            loses_at: 3,
        });
        assert_eq!(time.opponent(), Color::White);
        assert_eq!(
            time.render(),
            "The move stands; add 2 minute(s) to White's clock (7.5.5). This is Black's offence number 2; number 3 loses."
        );
        let none = verdict(OffenceDecision::TimeToOpponent {
            add_ms: 0,
            loses_at: 2,
        });
        assert!(
            none.render()
                .contains("; no time is added in this category (7.5.5).")
        );
        assert_eq!(
            verdict(OffenceDecision::Loses).render(),
            "Black's offence number 2: Black loses the game (7.5.5)."
        );
        assert_eq!(
            verdict(OffenceDecision::Drawn).render(),
            "Black's offence number 2: the game is drawn: White cannot checkmate by any series of legal moves (7.5.5)."
        );
        assert!(
            verdict(OffenceDecision::LosesUnlessOpponentCannotMate)
                .render()
                .contains("Black loses, unless White cannot checkmate")
        );
    }
}
