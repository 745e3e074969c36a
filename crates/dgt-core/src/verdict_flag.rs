//! What a fallen flag decides (6.9; 2005 6.10; both flags III.3.1, 2005 6.12 / B9), as
//! data: the decision, who has to act before it counts (6.8, A4.5, B7 / B8), the result,
//! and the fall itself; the English of the flag alerts' `message` and `prescription` is
//! rendered here.

use shakmaty::Color;

use crate::article::Article;
use crate::outcome::GameResult;
use crate::words::{seconds, side_name};

/// What a fallen flag decides (6.9; 2005 6.10; both flags III.3.1, 2005 6.12 / B9).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FlagDecision {
    /// The flag fell at the end of a period whose moves were made (6.4): play goes on.
    PeriodReached { flagged: Color },
    /// The flagged player loses on time (6.9): the opponent can checkmate.
    LosesOnTime { flagged: Color },
    /// Drawn: the opponent of the flagged player cannot checkmate by any series of legal
    /// moves (6.9).
    OpponentCannotMate { flagged: Color },
    /// Whether the opponent can still checkmate could not be decided: the arbiter judges.
    Undetermined { flagged: Color },
    /// The claimant's own flag is down too (L17 T37 (c)): the flag that fell first decides,
    /// by the arbiter's ruling.
    FirstFlagDecides { flagged: Color },
    /// Both flags are down: drawn.
    BothFlagsDrawn,
    /// Both flags are down, which fell first unknown, before the last period (2005 6.12a):
    /// play goes on.
    BothFlagsGoOn,
    /// A flag was claimed, but none is down on the clock (6.8): the arbiter checks the clock.
    NoFlagDown,
    /// The other flag fell after `first`'s had ended the game, `by_ms` later: the order is
    /// reported for the record; the result stands (L17 T46 (c), L05 T22 (c)).
    FirstFellBefore { first: Color, by_ms: u64 },
}

/// Who has to act before the flag decides the game.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FlagCall {
    /// The arbiter declares the result.
    Declared,
    /// The flag counts only once the arbiter observes it or a player claims it (`article`,
    /// 6.8); then it is declared.
    CallFirst { article: Article },
    /// The arbiter may call it (2017 A4.5); a claim counts too.
    MayCall,
    /// Only the opponent's claim counts (2005 B7 / B8).
    OnClaim,
    /// It was called or claimed: it counts now (6.8).
    Called,
}

/// Whose flag fell, with how many moves completed (the flag-fall alert words these).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FlagFall {
    pub flagged: Color,
    pub moves_done: u32,
}

/// Who called a flag that waited to be called, and how (6.8; reduced supervision: 2005
/// B8, 2017 A4.3 / A4.5).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CalledBy {
    /// The arbiter acknowledged the flag alert.
    Arbiter,
    /// A player stopped the clock to claim it (`article`).
    ClockStopped { article: Article },
    /// A player claimed it.
    Claim,
    /// A player claimed it without stopping the clock, which `article` requires: a
    /// procedural defect; the claim counts.
    ClaimWithoutStopping { article: Article },
    /// The opponent stopped the clock to claim it while his own flag was down too: the
    /// claim is invalid (`article`: A4.3 / A.4.3 / A.5.3); the flag that fell first decides,
    /// by the arbiter's ruling (L17 T37 (c)).
    InvalidClaimOwnFlagDown { article: Article },
}

/// The verdict on a fallen flag, as data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FlagVerdict {
    /// The article that decides (6.9; 2005 6.10; the both-flags articles).
    pub article: Article,
    pub decision: FlagDecision,
    pub call: FlagCall,
    /// The result it decides, if any.
    pub result: Option<GameResult>,
    /// The fall itself, where the alert reports it as it happens.
    pub fall: Option<FlagFall>,
    /// The call of a flag that waited to be called: whose flag, and who called it.
    pub called: Option<(Color, CalledBy)>,
}

impl FlagVerdict {
    pub fn new(article: Article, decision: FlagDecision, call: FlagCall) -> Self {
        let result = match decision {
            FlagDecision::LosesOnTime { flagged } => Some(GameResult::win_for(!flagged)),
            FlagDecision::OpponentCannotMate { .. } | FlagDecision::BothFlagsDrawn => {
                Some(GameResult::Drawn)
            }
            FlagDecision::PeriodReached { .. }
            | FlagDecision::Undetermined { .. }
            | FlagDecision::FirstFlagDecides { .. }
            | FlagDecision::BothFlagsGoOn
            | FlagDecision::NoFlagDown
            | FlagDecision::FirstFellBefore { .. } => None,
        };
        FlagVerdict {
            article,
            decision,
            call,
            result,
            fall: None,
            called: None,
        }
    }

    /// The verdict on `flagged`'s flag, called now by `by`.
    pub fn called_by(self, flagged: Color, by: CalledBy) -> Self {
        FlagVerdict {
            called: Some((flagged, by)),
            ..self
        }
    }

    /// The verdict on `flagged`'s flag fallen with `moves_done` moves completed.
    pub fn fell(self, flagged: Color, moves_done: u32) -> Self {
        FlagVerdict {
            fall: Some(FlagFall {
                flagged,
                moves_done,
            }),
            ..self
        }
    }

    /// The flag-fall alert's message, where the verdict has the fall: the period reached,
    /// or what the fall means by who may call it (B7: only the opponent's claim; A4.5: the
    /// arbiter may call it).
    pub fn message(&self) -> Option<String> {
        if let FlagDecision::FirstFellBefore { first, by_ms } = self.decision {
            return Some(format!(
                "Both flags are down; {}'s fell first, {} before the other: {}.",
                side_name(first),
                seconds(by_ms),
                self.consequence()
            ));
        }
        if let Some((flagged, by)) = self.called {
            let (name, claimant) = (side_name(flagged), side_name(!flagged));
            let how = match by {
                CalledBy::InvalidClaimOwnFlagDown { article } => {
                    return Some(format!(
                        "{claimant} stopped the clock to claim {name}'s flag, but his own flag is down too: the claim is invalid ({article}). {name}'s flag fell first."
                    ));
                }
                CalledBy::Arbiter => "the arbiter acknowledged the flag".to_string(),
                CalledBy::ClockStopped { article } => {
                    format!("the clock was stopped to claim it, {article}")
                }
                CalledBy::Claim => "a player claimed the flag".to_string(),
                CalledBy::ClaimWithoutStopping { article } => format!(
                    "a player claimed the flag without stopping the clock, a procedural defect under {article}"
                ),
            };
            return Some(format!(
                "{name}'s flag counts as fallen now ({how}): {}.",
                self.consequence()
            ));
        }
        let FlagFall {
            flagged,
            moves_done: done,
        } = self.fall?;
        let who = side_name(flagged);
        let consequence = self.consequence();
        if let FlagDecision::PeriodReached { .. } = self.decision {
            return Some(format!(
                "{who}'s flag fell at the end of a period after {done} moves: {consequence}."
            ));
        }
        let fell = format!("{who}'s flag has fallen with {done} move(s) completed");
        Some(match self.call {
            FlagCall::OnClaim => format!(
                "{fell}: it counts only when {} claims it (B7); the arbiter must not point it out.",
                side_name(!flagged)
            ),
            FlagCall::MayCall => format!("{fell}: {consequence}. The arbiter may call it (A4.5)."),
            _ => format!("{fell}: {consequence}."),
        })
    }

    /// What the flag means, in words (also for the alert's message).
    pub fn consequence(&self) -> String {
        match self.decision {
            FlagDecision::PeriodReached { .. } => "period reached, play goes on".into(),
            FlagDecision::LosesOnTime { flagged } => {
                format!("{} loses on time", side_name(flagged))
            }
            FlagDecision::OpponentCannotMate { flagged } => format!(
                "{} cannot checkmate by any series of legal moves: the game is drawn",
                side_name(!flagged)
            ),
            FlagDecision::Undetermined { flagged } => format!(
                "whether {} can still checkmate could not be decided: the arbiter must judge loss or draw",
                side_name(!flagged)
            ),
            FlagDecision::FirstFlagDecides { flagged } => format!(
                "{} loses, unless {} cannot checkmate",
                side_name(flagged),
                side_name(!flagged)
            ),
            FlagDecision::BothFlagsDrawn => "both flags have fallen: the game is drawn".into(),
            FlagDecision::BothFlagsGoOn => "the game goes on".into(),
            FlagDecision::NoFlagDown => "no flag is down on the clock".into(),
            FlagDecision::FirstFellBefore { .. } => "the result stands".into(),
        }
    }

    /// The prescription's text, as the alert carries it; none where play simply goes on.
    pub fn render(&self) -> Option<String> {
        match self.decision {
            FlagDecision::PeriodReached { .. }
            | FlagDecision::BothFlagsGoOn
            | FlagDecision::FirstFellBefore { .. } => return None,
            FlagDecision::NoFlagDown => {
                return Some("Check the clock: if no flag has fallen, the game goes on.".into());
            }
            FlagDecision::FirstFlagDecides { .. } => {
                return Some(format!(
                    "The arbiter rules: by FIDE's interpretation of 2017 the flag that fell first decides ({}, {}); enter the result.",
                    self.consequence(),
                    self.article
                ));
            }
            _ => {}
        }
        const EXAMINE: &str = "Examine the position (6.9) before declaring the result.";
        let r = self.result.map(GameResult::as_str);
        Some(match self.call {
            FlagCall::Declared => match r {
                Some(r) => format!("Result {r}."),
                None => EXAMINE.into(),
            },
            FlagCall::CallFirst { article } => format!(
                "Call the flag: it counts as fallen when the arbiter observes it or a player claims it ({article}); acknowledging this alert records it. {}",
                FlagVerdict {
                    call: FlagCall::Declared,
                    ..*self
                }
                .render()
                .unwrap_or_default()
            ),
            FlagCall::MayCall => match r {
                Some(r) => format!("When the flag is called or claimed: result {r}."),
                None => EXAMINE.into(),
            },
            FlagCall::OnClaim => {
                let opp = match self.decision {
                    FlagDecision::LosesOnTime { flagged }
                    | FlagDecision::OpponentCannotMate { flagged }
                    | FlagDecision::Undetermined { flagged } => side_name(!flagged),
                    _ => "the opponent",
                };
                let consequence = self.consequence();
                format!(
                    "If {opp} stops the clocks and claims while his own flag is up (B8): {}. Otherwise play goes on; if both flags fall, the game is drawn (B9).",
                    match r {
                        Some(r) => format!("{consequence}, result {r}"),
                        None => format!("{consequence} (6.10)"),
                    }
                )
            }
            FlagCall::Called => match r {
                Some(r) => format!("Result {r} ({}).", self.article),
                None => EXAMINE.into(),
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flag_decides_the_result_and_renders_it_by_who_acts() {
        let black = Color::Black;
        let lost = FlagVerdict::new(
            Article::new("6.9"),
            FlagDecision::LosesOnTime { flagged: black },
            FlagCall::Called,
        );
        assert_eq!(lost.result, Some(GameResult::WhiteWins));
        assert_eq!(lost.render().as_deref(), Some("Result 1-0 (6.9)."));
        let open = FlagVerdict::new(
            Article::new("6.10"),
            FlagDecision::Undetermined { flagged: black },
            FlagCall::OnClaim,
        );
        assert_eq!(open.result, None);
        assert_eq!(
            open.render().as_deref(),
            Some(
                "If White stops the clocks and claims while his own flag is up (B8): whether White can still checkmate could not be decided: the arbiter must judge loss or draw (6.10). Otherwise play goes on; if both flags fall, the game is drawn (B9)."
            )
        );
        let first = FlagVerdict::new(
            Article::new("6.9"),
            FlagDecision::FirstFlagDecides { flagged: black },
            FlagCall::Called,
        );
        assert_eq!(first.result, None);
        assert_eq!(
            first.render().as_deref(),
            Some(
                "The arbiter rules: by FIDE's interpretation of 2017 the flag that fell first decides (Black loses, unless White cannot checkmate, 6.9); enter the result."
            )
        );
        let on = FlagVerdict::new(
            Article::new("6.4"),
            FlagDecision::PeriodReached { flagged: black },
            FlagCall::Declared,
        );
        assert_eq!((on.result, on.render(), on.message()), (None, None, None));
        assert_eq!(
            on.fell(black, 40).message().as_deref(),
            Some(
                "Black's flag fell at the end of a period after 40 moves: period reached, play goes on."
            )
        );
    }

    /// The one golden test of the flag-fall message, by who may call the flag.
    #[test]
    fn a_fallen_flag_words_its_message_by_who_may_call_it() {
        let white = Color::White;
        let fell = |decision, call| {
            FlagVerdict::new(Article::new("6.9"), decision, call)
                .fell(white, 3)
                .message()
                .unwrap()
        };
        let lost = FlagDecision::LosesOnTime { flagged: white };
        assert_eq!(
            fell(lost, FlagCall::Declared),
            "White's flag has fallen with 3 move(s) completed: White loses on time."
        );
        assert_eq!(
            fell(lost, FlagCall::MayCall),
            "White's flag has fallen with 3 move(s) completed: White loses on time. The arbiter may call it (A4.5)."
        );
        assert_eq!(
            fell(lost, FlagCall::OnClaim),
            "White's flag has fallen with 3 move(s) completed: it counts only when Black claims it (B7); the arbiter must not point it out."
        );
        assert_eq!(
            fell(FlagDecision::BothFlagsDrawn, FlagCall::Declared),
            "White's flag has fallen with 3 move(s) completed: both flags have fallen: the game is drawn."
        );
        let second = FlagVerdict::new(
            Article::new("6.9"),
            FlagDecision::FirstFellBefore {
                first: white,
                by_ms: 3_250,
            },
            FlagCall::Declared,
        );
        assert_eq!((second.result, second.render()), (None, None));
        assert_eq!(
            second.message().as_deref(),
            Some(
                "Both flags are down; White's fell first, 3.2 s before the other: the result stands."
            )
        );
    }

    /// The one golden test of a waiting flag's message once called, by who called it.
    #[test]
    fn a_called_flag_words_who_called_it() {
        let white = Color::White;
        let lost = FlagDecision::LosesOnTime { flagged: white };
        let called = |by| {
            FlagVerdict::new(Article::new("6.9"), lost, FlagCall::Called)
                .called_by(white, by)
                .message()
                .unwrap()
        };
        assert_eq!(
            called(CalledBy::Arbiter),
            "White's flag counts as fallen now (the arbiter acknowledged the flag): White loses on time."
        );
        assert_eq!(
            called(CalledBy::ClockStopped {
                article: Article::new("B8")
            }),
            "White's flag counts as fallen now (the clock was stopped to claim it, B8): White loses on time."
        );
        assert_eq!(
            called(CalledBy::Claim),
            "White's flag counts as fallen now (a player claimed the flag): White loses on time."
        );
        assert_eq!(
            called(CalledBy::ClaimWithoutStopping {
                article: Article::new("A4.3")
            }),
            "White's flag counts as fallen now (a player claimed the flag without stopping the clock, a procedural defect under A4.3): White loses on time."
        );
        let invalid = FlagVerdict::new(
            Article::new("6.9"),
            FlagDecision::FirstFlagDecides { flagged: white },
            FlagCall::Called,
        )
        .called_by(
            white,
            CalledBy::InvalidClaimOwnFlagDown {
                article: Article::new("A4.3"),
            },
        );
        assert_eq!(
            invalid.message().as_deref(),
            Some(
                "Black stopped the clock to claim White's flag, but his own flag is down too: the claim is invalid (A4.3). White's flag fell first."
            )
        );
    }
}
