//! Results as data: a game's result (`GameResult`) and what an arbiter may enter for a table
//! of a round (`TableResult`, forfeits and unrated games too). Parsed once where they come in
//! — a REST body, a capture or journal op, a table entry — so an unknown result is refused
//! with the reason, never carried along as text; written back as the same strings ("1-0",
//! "0-1", "1/2-1/2", PGN's and the contract's), so the JSON on the wire does not change.

use serde::{Deserialize, Serialize};
use shakmaty::{Color, KnownOutcome};

/// A decided result, as the game's record writes it (PGN: "1-0", "0-1", "1/2-1/2").
///
/// The crate's own name rather than shakmaty's [`KnownOutcome`] at the call sites: it reads
/// as the Laws do (`WhiteWins`, `Drawn`), carries the wire format (serde as the PGN string,
/// which `KnownOutcome` has no implementation of) and converts both ways; the PGN text is
/// parsed by shakmaty's `KnownOutcome::from_ascii`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GameResult {
    WhiteWins,
    BlackWins,
    Drawn,
}

/// A result that is none of the ones the path accepts.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown result {text:?}: use one of {}", accepted.join(", "))]
pub struct UnknownResult {
    pub text: String,
    /// The results the path accepts, as written.
    pub accepted: &'static [&'static str],
}

impl GameResult {
    /// The three results, in the order errors list them.
    pub const ALL: [GameResult; 3] = [
        GameResult::WhiteWins,
        GameResult::BlackWins,
        GameResult::Drawn,
    ];
    const NAMES: &'static [&'static str] = &["1-0", "0-1", "1/2-1/2"];

    /// The result in which `winner` wins.
    pub fn win_for(winner: Color) -> Self {
        if winner.is_white() {
            GameResult::WhiteWins
        } else {
            GameResult::BlackWins
        }
    }

    /// The winner; `None` for a draw.
    pub fn winner(self) -> Option<Color> {
        KnownOutcome::from(self).winner()
    }

    /// "1-0", "0-1" or "1/2-1/2".
    pub const fn as_str(self) -> &'static str {
        match self {
            GameResult::WhiteWins => "1-0",
            GameResult::BlackWins => "0-1",
            GameResult::Drawn => "1/2-1/2",
        }
    }

    /// The points White and Black score (1, ½, 0).
    pub fn points(self) -> (f32, f32) {
        match self {
            GameResult::WhiteWins => (1.0, 0.0),
            GameResult::BlackWins => (0.0, 1.0),
            GameResult::Drawn => (0.5, 0.5),
        }
    }
}

impl From<KnownOutcome> for GameResult {
    fn from(o: KnownOutcome) -> Self {
        match o.winner() {
            Some(winner) => GameResult::win_for(winner),
            None => GameResult::Drawn,
        }
    }
}

impl From<GameResult> for KnownOutcome {
    fn from(r: GameResult) -> Self {
        match r {
            GameResult::WhiteWins => KnownOutcome::Decisive {
                winner: Color::White,
            },
            GameResult::BlackWins => KnownOutcome::Decisive {
                winner: Color::Black,
            },
            GameResult::Drawn => KnownOutcome::Draw,
        }
    }
}

impl std::str::FromStr for GameResult {
    type Err = UnknownResult;

    fn from_str(text: &str) -> Result<Self, UnknownResult> {
        KnownOutcome::from_ascii(text.as_bytes())
            .map(GameResult::from)
            .map_err(|_| UnknownResult {
                text: text.to_string(),
                accepted: GameResult::NAMES,
            })
    }
}

impl std::fmt::Display for GameResult {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for GameResult {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for GameResult {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// What an arbiter may enter for a table of a round (`{"table_result": …}`): a played game's
/// result, a game not rated (FIDE TRF `W` / `D` / `L`: "1-0u", "1/2-1/2u", "0-1u"), a win by
/// forfeit ("+-" White, "-+" Black) or both players forfeiting ("--").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TableResult {
    Played(GameResult),
    NotRated(GameResult),
    /// The winner won by forfeit: the opponent did not play.
    Forfeit {
        winner: Color,
    },
    /// Neither player played: both lose.
    BothForfeit,
}

impl TableResult {
    /// Every table result, in the order [`TABLE_RESULTS`] lists them.
    pub const ALL: [TableResult; 9] = [
        TableResult::Played(GameResult::WhiteWins),
        TableResult::Played(GameResult::BlackWins),
        TableResult::Played(GameResult::Drawn),
        TableResult::Forfeit {
            winner: Color::White,
        },
        TableResult::Forfeit {
            winner: Color::Black,
        },
        TableResult::BothForfeit,
        TableResult::NotRated(GameResult::WhiteWins),
        TableResult::NotRated(GameResult::BlackWins),
        TableResult::NotRated(GameResult::Drawn),
    ];

    /// The result as the contract writes it ("1-0", "+-", "1/2-1/2u", …).
    pub const fn as_str(self) -> &'static str {
        match self {
            TableResult::Played(r) => r.as_str(),
            TableResult::NotRated(GameResult::WhiteWins) => "1-0u",
            TableResult::NotRated(GameResult::BlackWins) => "0-1u",
            TableResult::NotRated(GameResult::Drawn) => "1/2-1/2u",
            TableResult::Forfeit {
                winner: Color::White,
            } => "+-",
            TableResult::Forfeit {
                winner: Color::Black,
            } => "-+",
            TableResult::BothForfeit => "--",
        }
    }
}

/// The results an arbiter may enter for a table, as the contract writes them: played games,
/// forfeits (White wins by forfeit `+-`, Black `-+`, both lose `--`), and games not rated
/// (FIDE TRF `W`/`D`/`L`: `1-0u`, `1/2-1/2u`, `0-1u`). Derived from [`TableResult::ALL`], so
/// the list and the type cannot disagree.
pub const TABLE_RESULTS: &[&str] = &{
    let mut names = [""; TableResult::ALL.len()];
    let mut i = 0;
    while i < names.len() {
        names[i] = TableResult::ALL[i].as_str();
        i += 1;
    }
    names
};

impl From<GameResult> for TableResult {
    fn from(r: GameResult) -> Self {
        TableResult::Played(r)
    }
}

impl std::str::FromStr for TableResult {
    type Err = UnknownResult;

    fn from_str(text: &str) -> Result<Self, UnknownResult> {
        TableResult::ALL
            .into_iter()
            .find(|r| r.as_str() == text)
            .ok_or_else(|| UnknownResult {
                text: text.to_string(),
                accepted: TABLE_RESULTS,
            })
    }
}

impl std::fmt::Display for TableResult {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for TableResult {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for TableResult {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// Why a game ended, as the event JSON names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EndReason {
    Checkmate,
    Stalemate,
    DeadPosition,
    FivefoldRepetition,
    SeventyFiveMoveRule,
    FlagFall,
    BothFlagsFallen,
    IllegalMove,
    ResultGesture,
    Arbiter,
}

impl EndReason {
    /// The reason in plain words, as the arbiter reads it in a message ("fivefold
    /// repetition").
    pub fn words(self) -> &'static str {
        match self {
            EndReason::Checkmate => "checkmate",
            EndReason::Stalemate => "stalemate",
            EndReason::DeadPosition => "dead position",
            EndReason::FivefoldRepetition => "fivefold repetition",
            EndReason::SeventyFiveMoveRule => "seventy five move rule",
            EndReason::FlagFall => "flag fall",
            EndReason::BothFlagsFallen => "both flags fallen",
            EndReason::IllegalMove => "illegal move",
            EndReason::ResultGesture => "result gesture",
            EndReason::Arbiter => "arbiter",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn game_results_read_and_write_the_pgn_strings() {
        for r in GameResult::ALL {
            assert_eq!(r.as_str().parse::<GameResult>(), Ok(r));
            assert_eq!(serde_json::to_string(&r).unwrap(), format!("\"{r}\""));
            assert_eq!(GameResult::from(KnownOutcome::from(r)), r);
        }
        assert_eq!(GameResult::WhiteWins.winner(), Some(Color::White));
        assert_eq!(GameResult::Drawn.winner(), None);
        let e = "*".parse::<GameResult>().unwrap_err();
        assert_eq!(
            e.to_string(),
            "unknown result \"*\": use one of 1-0, 0-1, 1/2-1/2"
        );
        let e = serde_json::from_str::<GameResult>("\"2-0\"").unwrap_err();
        assert!(e.to_string().contains("unknown result \"2-0\""), "{e}");
    }

    #[test]
    fn table_results_are_the_listed_strings_and_no_other() {
        // The contract's strings, in the order error messages list them.
        assert_eq!(
            TABLE_RESULTS,
            [
                "1-0", "0-1", "1/2-1/2", "+-", "-+", "--", "1-0u", "0-1u", "1/2-1/2u"
            ]
        );
        for r in TableResult::ALL {
            assert_eq!(r.as_str().parse::<TableResult>(), Ok(r));
            let json = serde_json::to_string(&r).unwrap();
            assert_eq!(serde_json::from_str::<TableResult>(&json).unwrap(), r);
        }
        assert_eq!(
            "+-".parse::<TableResult>(),
            Ok(TableResult::Forfeit {
                winner: Color::White
            })
        );
        let e = "0-0".parse::<TableResult>().unwrap_err();
        assert!(
            e.to_string()
                .starts_with("unknown result \"0-0\": use one of 1-0, 0-1, 1/2-1/2, +-"),
            "{e}"
        );
    }
}
