//! What the clock checks prescribe (8.4, III.5; 2005 10.2; 6.10.2; 2005 6.11), as data:
//! recording no longer required, a quickplay-finish claim, the start time, the setting
//! installed. The English an alert's `prescription` carries is rendered here.

use shakmaty::Color;

use crate::article::Article;
use crate::time_control::Bonus;
use crate::words::{hmmss, side_name};

/// What a check of the clock's readings prescribes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClockVerdict {
    /// `side` need no longer record the moves for the rest of the period (`exempt`: 8.4);
    /// once neither player has to, the arbiter or an assistant keeps score (`keep`).
    RecordingNotRequired {
        side: Color,
        exempt: Article,
        keep: Article,
    },
    /// Only on `claimant`'s claim (III.5; 2005 10.2): drawn if the opponent cannot win by
    /// normal means or makes no effort to; the decision may be postponed, and a rejected
    /// claim gives the opponent `rejected_gives_opponent_ms`.
    QuickplayClaim {
        claimant: Color,
        rejected_gives_opponent_ms: u64,
    },
    /// Set each clock to `base_ms` before the game starts (`article`: 6.10.2; 2005 6.11).
    SetStartTime { base_ms: u64, article: Article },
    /// Stop the clock, install the correct setting and adjust the times and the move
    /// counter (`article`: 6.10.2; 2005 6.11).
    InstallCorrectSetting { article: Article },
    /// A press without a move is no offence in this edition (2005): the arbiter may act
    /// under `discretion` (13.4); the move must still be made.
    PressWithoutMoveNoOffence { discretion: Article },
}

impl ClockVerdict {
    /// The prescription's text, as the alert carries it.
    pub fn render(&self) -> String {
        match *self {
            ClockVerdict::RecordingNotRequired { side, exempt, keep } => format!(
                "{} may stop keeping score for the rest of the period ({exempt}). Once neither player has to, the arbiter or an assistant should be present and keep score ({keep}).",
                side_name(side)
            ),
            ClockVerdict::QuickplayClaim {
                claimant,
                rejected_gives_opponent_ms: ms,
            } => {
                let (name, opp) = (side_name(claimant), side_name(!claimant));
                let extra = match ms {
                    120_000 => "two extra minutes".to_string(),
                    ms => format!("{} extra minute(s)", ms / 60_000),
                };
                format!(
                    "Only on {name}'s claim: if {opp} cannot win by normal means or makes no effort to, the game is drawn; the decision may be postponed ({opp} may get {extra}); a rejected claim gives {opp} {extra}."
                )
            }
            ClockVerdict::SetStartTime { base_ms, article } => format!(
                "Set the clock to {} for each player before the game starts ({article}).",
                hmmss(base_ms)
            ),
            ClockVerdict::InstallCorrectSetting { article } => format!(
                "Stop the clock, install the correct setting and adjust the times and the move counter ({article})."
            ),
            ClockVerdict::PressWithoutMoveNoOffence { discretion } => format!(
                "Not an offence in this edition: the arbiter may act under {discretion}; the move must still be made."
            ),
        }
    }
}

/// What the clock showed against the time control (6.10.2; 2005 6.11), as the
/// clock-setting alert's message words it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SettingMismatch {
    /// Before the first move the clock shows `white_ms` / `black_ms` (`None`: not read),
    /// but the time control `control` starts at `base_ms`.
    StartTime {
        white_ms: Option<u64>,
        black_ms: Option<u64>,
        control: String,
        base_ms: u64,
    },
    /// `presses` presses in a row by `side` gave no time back, though the time control
    /// `control` gives `bonus` per move.
    NoTimeBack {
        presses: u32,
        side: Color,
        control: String,
        bonus: Bonus,
    },
}

impl SettingMismatch {
    /// What the clock showed, for the alert's message.
    pub fn message(&self) -> String {
        match self {
            SettingMismatch::StartTime {
                white_ms,
                black_ms,
                control,
                base_ms,
            } => {
                let show = |ms: &Option<u64>| ms.map(hmmss).unwrap_or_else(|| "?".into());
                format!(
                    "The clock shows {} for White and {} for Black before the first move, but the time control {control} starts at {}.",
                    show(white_ms),
                    show(black_ms),
                    hmmss(*base_ms)
                )
            }
            SettingMismatch::NoTimeBack {
                presses,
                side,
                control,
                bonus,
            } => {
                let (what, ms) = match *bonus {
                    Bonus::Bronstein(ms) => ("a Bronstein delay of", ms),
                    Bonus::SimpleDelay(ms) => ("a delay of", ms),
                    Bonus::Increment(ms) => ("an increment of", ms),
                    Bonus::None => ("an increment of", 0),
                };
                format!(
                    "{presses} presses in a row by {} gave no time back, but the time control {control} has {what} {} s per move.",
                    side_name(*side),
                    ms / 1000
                )
            }
        }
    }
}

/// A clock-setting alert's verdict: what the clock showed, and what to do about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClockSettingVerdict {
    pub mismatch: SettingMismatch,
    /// `SetStartTime` or `InstallCorrectSetting`.
    pub prescription: ClockVerdict,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clock_checks_render_their_prescriptions() {
        let claim = ClockVerdict::QuickplayClaim {
            claimant: Color::White,
            rejected_gives_opponent_ms: 120_000,
        };
        assert_eq!(
            claim.render(),
            "Only on White's claim: if Black cannot win by normal means or makes no effort to, the game is drawn; the decision may be postponed (Black may get two extra minutes); a rejected claim gives Black two extra minutes."
        );
        let set = ClockVerdict::SetStartTime {
            base_ms: 5_400_000,
            article: Article::new("6.10.2"),
        };
        assert_eq!(
            set.render(),
            "Set the clock to 1:30:00 for each player before the game starts (6.10.2)."
        );
        assert_eq!(
            ClockVerdict::RecordingNotRequired {
                side: Color::White,
                exempt: Article::new("8.4"),
                keep: Article::new("8.5.1"),
            }
            .render(),
            "White may stop keeping score for the rest of the period (8.4). Once neither player has to, the arbiter or an assistant should be present and keep score (8.5.1)."
        );
        assert_eq!(
            ClockVerdict::PressWithoutMoveNoOffence {
                discretion: Article::new("13.4")
            }
            .render(),
            "Not an offence in this edition: the arbiter may act under 13.4; the move must still be made."
        );
        assert_eq!(
            ClockVerdict::InstallCorrectSetting {
                article: Article::new("6.10.2")
            }
            .render(),
            "Stop the clock, install the correct setting and adjust the times and the move counter (6.10.2)."
        );
    }

    /// The one golden test of the clock-setting alerts' message.
    #[test]
    fn a_setting_mismatch_words_what_the_clock_showed() {
        let start = SettingMismatch::StartTime {
            white_ms: Some(3_600_000),
            black_ms: None,
            control: "5400".into(),
            base_ms: 5_400_000,
        };
        assert_eq!(
            start.message(),
            "The clock shows 1:00:00 for White and ? for Black before the first move, but the time control 5400 starts at 1:30:00."
        );
        let no_time_back = |bonus| {
            SettingMismatch::NoTimeBack {
                presses: 3,
                side: Color::Black,
                control: "5400+30".into(),
                bonus,
            }
            .message()
        };
        assert_eq!(
            no_time_back(Bonus::Increment(30_000)),
            "3 presses in a row by Black gave no time back, but the time control 5400+30 has an increment of 30 s per move."
        );
        assert_eq!(
            no_time_back(Bonus::Bronstein(10_000)),
            "3 presses in a row by Black gave no time back, but the time control 5400+30 has a Bronstein delay of 10 s per move."
        );
    }
}
