//! The verdict on a draw claim (9.2 / 9.3; 2005 9.2 / 9.3) as data: which claim, whose, the
//! article it was checked under, and what the arbiter decides — lost by a piece touched
//! (2017+ 9.4), not the claimant's move, correct, or incorrect with its penalty (9.5.3; 2005
//! 9.5b). The English the alert's `title` and `prescription` carry is rendered here.

use shakmaty::{Color, Square};

use crate::article::Article;
use crate::claim::ClaimKind;
use crate::words::{mmss, side_name};

/// The verdict on a draw claim.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClaimVerdict {
    /// A repetition or a fifty-move claim (never a flag claim: that is a flag's verdict).
    pub claim: ClaimKind,
    pub claimant: Color,
    /// The article the claim was checked under (with or without a written move).
    pub article: Article,
    /// The claimant wrote the move he intends to make (9.2.1.1 / 9.3.1).
    pub written_move: bool,
    pub decision: ClaimDecision,
    /// The game was found under way: its history before that is not known, so the check
    /// counts only what followed.
    pub found_under_way: bool,
}

/// What the arbiter decides on a draw claim.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClaimDecision {
    /// The claimant lifted a piece since the position arose (`article`: 2017+ 9.4): the
    /// claim is lost and the touched piece must be moved.
    LostByTouch { square: Square, article: Article },
    /// The claimant is not on move: the right to claim passed to `on_move`.
    NotOnMove { on_move: Color },
    /// The claim is correct: drawn.
    Correct,
    /// The claim is incorrect: the game goes on with the penalty.
    Incorrect(WrongClaimPenalty),
}

/// What an incorrect claim costs the claimant (9.5.3; 2005 9.5b).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WrongClaimPenalty {
    /// Time added to the opponent's clock.
    pub add_ms: u64,
    pub article: Article,
    /// 2005 9.5b: the claimant's own time is cut as well; `None` where it is not.
    pub own_time: Option<OwnTimeCut>,
}

/// How 2005 9.5b cuts the claimant's own time: above 2:00 by half (at most 3:00), between
/// 1:00 and 2:00 to 1:00, below 1:00 not at all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OwnTimeCut {
    /// Exactly 1:00 or 2:00, which 9.5b does not cover: the arbiter decides.
    Boundary,
    /// Cut by half (at most 3:00), from `from_ms` to `to_ms`.
    Halved { from_ms: u64, to_ms: u64 },
    /// Set from `from_ms` to 1:00.
    ToOneMinute { from_ms: u64 },
    /// Under 1:00: it stays.
    Stays,
    /// The claimant's time is not known.
    Unknown,
}

impl OwnTimeCut {
    /// The cut 2005 9.5b makes to `own_ms`, the claimant's time when known.
    pub fn of(own_ms: Option<u64>) -> Self {
        match own_ms {
            Some(120_000 | 60_000) => OwnTimeCut::Boundary,
            Some(ms) if ms > 120_000 => OwnTimeCut::Halved {
                from_ms: ms,
                to_ms: ms - (ms / 2).min(180_000),
            },
            Some(ms) if ms > 60_000 => OwnTimeCut::ToOneMinute { from_ms: ms },
            Some(_) => OwnTimeCut::Stays,
            None => OwnTimeCut::Unknown,
        }
    }
}

impl WrongClaimPenalty {
    /// The penalty's text, for the claimant `claimant`.
    pub fn render(&self, claimant: Color) -> String {
        let (name, opp) = (side_name(claimant), side_name(!claimant));
        let cut = match self.own_time {
            None => String::new(),
            Some(OwnTimeCut::Boundary) => " The claimant's own time is exactly 1:00 or 2:00, a case 9.5b does not cover: the arbiter decides.".into(),
            Some(OwnTimeCut::Halved { from_ms, to_ms }) => format!(
                " {name}'s own time is cut from {} to {}.",
                mmss(from_ms),
                mmss(to_ms)
            ),
            Some(OwnTimeCut::ToOneMinute { from_ms }) => {
                format!(" {name}'s own time is set from {} to 1:00.", mmss(from_ms))
            }
            Some(OwnTimeCut::Stays) => format!(" {name}'s own time (under 1:00) stays."),
            Some(OwnTimeCut::Unknown) => " The claimant's own time is cut as 9.5b says.".into(),
        };
        format!(
            "add {} minute(s) to {opp}'s clock ({}).{cut}",
            self.add_ms / 60_000,
            self.article
        )
    }
}

/// The note a claim in a game found under way carries: its history is not complete.
pub const UNDER_WAY_NOTE: &str = " The game was found under way: positions and moves before it were not seen, so repetitions and the 50-move count include only what followed.";

impl ClaimVerdict {
    /// Whether the claim draws the game.
    pub fn draws(&self) -> bool {
        self.decision == ClaimDecision::Correct
    }

    /// The alert's heading: which claim and what became of it.
    pub fn title(&self) -> String {
        let claim = match self.claim {
            ClaimKind::FiftyMoveRule => "Fifty-move claim",
            ClaimKind::ThreefoldRepetition | ClaimKind::Flag => "Repetition claim",
        };
        let outcome = match self.decision {
            ClaimDecision::LostByTouch { .. } => "lost (a piece touched)",
            ClaimDecision::NotOnMove { .. } => "not the claimant's move",
            ClaimDecision::Correct => "correct",
            ClaimDecision::Incorrect(_) => "incorrect",
        };
        format!("{claim}: {outcome}")
    }

    /// The prescription's text, as the alert carries it.
    pub fn render(&self) -> String {
        let name = side_name(self.claimant);
        let mut p = match self.decision {
            ClaimDecision::LostByTouch { square, article } => format!(
                "The claim is lost: {name} lifted the piece on {square} before claiming ({article}); the game goes on, and the touched piece must be moved if it can be (4.3)."
            ),
            ClaimDecision::NotOnMove { on_move } => format!(
                "{name} is not on move: a claim under 9.2 / 9.3 is no longer possible for this position (the right passes to {}).",
                side_name(on_move)
            ),
            ClaimDecision::Correct => "The claim is correct: the game is drawn.".into(),
            ClaimDecision::Incorrect(penalty) => {
                let mut p = format!(
                    "The claim is incorrect: the game goes on; {}",
                    penalty.render(self.claimant)
                );
                if self.written_move {
                    p.push_str(" The written move must be played (Art. 4).");
                }
                p
            }
        };
        if self.found_under_way {
            p.push_str(UNDER_WAY_NOTE);
        }
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn claim(decision: ClaimDecision) -> ClaimVerdict {
        ClaimVerdict {
            claim: ClaimKind::ThreefoldRepetition,
            claimant: Color::White,
            article: Article::new("9.2.1.2"),
            written_move: false,
            decision,
            found_under_way: false,
        }
    }

    /// The one golden test of the claim verdict's English: each decision as the alert's
    /// title and prescription word it.
    #[test]
    fn a_claim_renders_its_title_and_prescription() {
        let correct = claim(ClaimDecision::Correct);
        assert!(correct.draws());
        assert_eq!(correct.title(), "Repetition claim: correct");
        assert_eq!(correct.render(), "The claim is correct: the game is drawn.");
        let touched = claim(ClaimDecision::LostByTouch {
            square: Square::G1,
            article: Article::new("9.4"),
        });
        assert_eq!(touched.title(), "Repetition claim: lost (a piece touched)");
        assert_eq!(
            touched.render(),
            "The claim is lost: White lifted the piece on g1 before claiming (9.4); the game goes on, and the touched piece must be moved if it can be (4.3)."
        );
        let late = ClaimVerdict {
            claim: ClaimKind::FiftyMoveRule,
            ..claim(ClaimDecision::NotOnMove {
                on_move: Color::Black,
            })
        };
        assert_eq!(late.title(), "Fifty-move claim: not the claimant's move");
        assert_eq!(
            late.render(),
            "White is not on move: a claim under 9.2 / 9.3 is no longer possible for this position (the right passes to Black)."
        );
        let wrong = ClaimVerdict {
            written_move: true,
            found_under_way: true,
            ..claim(ClaimDecision::Incorrect(WrongClaimPenalty {
                add_ms: 120_000,
                article: Article::new("9.5.3"),
                own_time: None,
            }))
        };
        assert!(!wrong.draws());
        assert_eq!(wrong.title(), "Repetition claim: incorrect");
        assert_eq!(
            wrong.render(),
            format!(
                "The claim is incorrect: the game goes on; add 2 minute(s) to Black's clock (9.5.3). The written move must be played (Art. 4).{UNDER_WAY_NOTE}"
            )
        );
    }

    #[test]
    fn the_2005_penalty_cuts_the_claimants_own_time_by_its_bands() {
        let penalty = |own_ms| WrongClaimPenalty {
            add_ms: 180_000,
            article: Article::new("9.5b"),
            own_time: Some(OwnTimeCut::of(own_ms)),
        };
        let add = "add 3 minute(s) to White's clock (9.5b).";
        let cases = [
            (
                Some(600_000),
                OwnTimeCut::Halved {
                    from_ms: 600_000,
                    to_ms: 420_000,
                },
                " Black's own time is cut from 10:00 to 7:00.",
            ),
            (
                Some(200_000),
                OwnTimeCut::Halved {
                    from_ms: 200_000,
                    to_ms: 100_000,
                },
                " Black's own time is cut from 3:20 to 1:40.",
            ),
            (
                Some(90_000),
                OwnTimeCut::ToOneMinute { from_ms: 90_000 },
                " Black's own time is set from 1:30 to 1:00.",
            ),
            (
                Some(30_000),
                OwnTimeCut::Stays,
                " Black's own time (under 1:00) stays.",
            ),
            (
                Some(120_000),
                OwnTimeCut::Boundary,
                " The claimant's own time is exactly 1:00 or 2:00, a case 9.5b does not cover: the arbiter decides.",
            ),
            (
                None,
                OwnTimeCut::Unknown,
                " The claimant's own time is cut as 9.5b says.",
            ),
        ];
        for (own, cut, text) in cases {
            let p = penalty(own);
            assert_eq!(p.own_time, Some(cut), "{own:?}");
            assert_eq!(p.render(Color::Black), format!("{add}{text}"), "{own:?}");
        }
    }
}
