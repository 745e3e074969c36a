//! Time controls in PGN TimeControl syntax (`5400+30`, `40/5400+30:1800+30`, `180+2`, `300`,
//! delays as `300d5` Bronstein or `300s5` simple — our notation) and their category.

use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Bonus {
    None,
    /// Fischer increment added after each move.
    Increment(u64),
    /// Bronstein delay: the time used, up to the delay, is given back.
    Bronstein(u64),
    /// Simple delay: the clock waits this long before counting down.
    SimpleDelay(u64),
}

/// One period: `moves` moves (None = rest of the game) in `base_ms`, with a bonus per move.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Period {
    pub moves: Option<u32>,
    pub base_ms: u64,
    pub bonus: Bonus,
}

/// A time control that keeps its rules: built only by [`TimeControl::parse`] (also when
/// read from settings or a set-up op, where it is written as its text).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TimeControl {
    pub text: String,
    pub periods: Vec<Period>,
}

impl Serialize for TimeControl {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.text)
    }
}

impl<'de> serde::Deserialize<'de> for TimeControl {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        TimeControl::parse(&text).map_err(|e| {
            serde::de::Error::custom(format_args!("time control \"{text}\": {e}; {}", e.fix()))
        })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Category {
    Standard,
    Rapid,
    Blitz,
}

/// Why a time control was refused: its syntax, or a rule of its periods.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TimeControlError {
    #[error("time control \"{0}\" has no periods")]
    NoPeriods(String),
    #[error("\"{part}\": the move count before '/' must be a whole number")]
    MoveCount { part: String },
    #[error("\"{part}\": \"{value}\" is not a number of seconds")]
    Seconds { part: String, value: String },
    /// Only the last period may be for the rest of the game (6.4: the periods before it end
    /// at a move count).
    #[error(
        "period {period} has no move count, but only the last period may be the rest of the game"
    )]
    RestOfGameNotLast { period: usize },
    #[error("period {period} is for 0 moves")]
    NoMoves { period: usize },
    #[error("period {period} has no time")]
    NoTime { period: usize },
}

impl TimeControlError {
    /// How to write it instead, for the person who wrote it.
    pub fn fix(&self) -> &'static str {
        match self {
            TimeControlError::RestOfGameNotLast { .. } => {
                "give every period but the last its moves, e.g. \"40/5400+30:1800+30\""
            }
            _ => {
                "write it in PGN TimeControl style, in seconds: \"5400+30\", \
                 \"40/5400+30:1800+30\", \"1500+10\", \"180+2\", \"300\""
            }
        }
    }
}

impl TimeControl {
    /// Parses PGN TimeControl syntax and checks its periods: every period but the last has
    /// a move count above 0, and every period has time (a base or a bonus).
    pub fn parse(text: &str) -> Result<TimeControl, TimeControlError> {
        let text = text.trim();
        if text.is_empty() || text == "-" || text == "?" {
            return Err(TimeControlError::NoPeriods(text.to_string()));
        }
        let mut periods = Vec::new();
        for part in text.split(':') {
            let (moves, rest) = match part.split_once('/') {
                Some((m, r)) => (
                    Some(m.parse::<u32>().map_err(|_| TimeControlError::MoveCount {
                        part: part.to_string(),
                    })?),
                    r,
                ),
                None => (None, part),
            };
            let secs = |s: &str| {
                s.parse::<u64>().map_err(|_| TimeControlError::Seconds {
                    part: part.to_string(),
                    value: s.to_string(),
                })
            };
            let (base, bonus) = if let Some((b, i)) = rest.split_once('+') {
                (secs(b)?, Bonus::Increment(secs(i)? * 1000))
            } else if let Some((b, d)) = rest.split_once('d') {
                (secs(b)?, Bonus::Bronstein(secs(d)? * 1000))
            } else if let Some((b, d)) = rest.split_once('s') {
                (secs(b)?, Bonus::SimpleDelay(secs(d)? * 1000))
            } else {
                (secs(rest)?, Bonus::None)
            };
            periods.push(Period {
                moves,
                base_ms: base * 1000,
                bonus,
            });
        }
        let last = periods.len() - 1;
        for (i, p) in periods.iter().enumerate() {
            let period = i + 1;
            if p.moves.is_none() && i < last {
                return Err(TimeControlError::RestOfGameNotLast { period });
            }
            if p.moves == Some(0) {
                return Err(TimeControlError::NoMoves { period });
            }
            if p.base_ms == 0 && p.bonus == Bonus::None {
                return Err(TimeControlError::NoTime { period });
            }
        }
        Ok(TimeControl {
            text: text.to_string(),
            periods,
        })
    }

    /// Minutes for 60 moves: base + 60 × increment (FIDE's definitions of rapid and blitz).
    pub fn minutes_for_60_moves(&self) -> u64 {
        let first = &self.periods[0];
        let inc = match first.bonus {
            Bonus::Increment(i) | Bonus::Bronstein(i) | Bonus::SimpleDelay(i) => i,
            Bonus::None => 0,
        };
        (first.base_ms + 60 * inc) / 60_000
    }

    /// Base + 60 × increment of the first period, in ms: what the categories are defined
    /// on (2017+ A.1 / B.1; 2005 B1 / C1).
    pub fn ms_for_60_moves(&self) -> u64 {
        let Some(first) = self.periods.first() else {
            return 0;
        };
        let inc = match first.bonus {
            Bonus::Increment(i) | Bonus::Bronstein(i) | Bonus::SimpleDelay(i) => i,
            Bonus::None => 0,
        };
        first.base_ms + 60 * inc
    }

    /// The category under boundaries that are strict bounds in ms: blitz below
    /// `blitz_below_ms`, rapid below `rapid_below_ms`, standard from there. The editions
    /// differ at the edges (docs/laws-by-edition.md §2; the 2017 text contradicts itself,
    /// digest §1.2 Q1).
    pub fn category(&self, blitz_below_ms: u64, rapid_below_ms: u64) -> Category {
        let ms = self.ms_for_60_moves();
        if ms < blitz_below_ms {
            Category::Blitz
        } else if ms < rapid_below_ms {
            Category::Rapid
        } else {
            Category::Standard
        }
    }

    /// Moves a player must have completed when the flag of period `index` (0-based) falls:
    /// the sum of the move counts of periods 0..=index, or None for a sudden-death period.
    pub fn moves_required_by(&self, index: usize) -> Option<u32> {
        let mut total = 0;
        for p in self.periods.iter().take(index + 1) {
            total += p.moves?;
        }
        Some(total)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_contract_examples() {
        let tc = TimeControl::parse("40/5400+30:1800+30").unwrap();
        assert_eq!(tc.periods.len(), 2);
        assert_eq!(tc.periods[0].moves, Some(40));
        assert_eq!(tc.periods[0].base_ms, 5_400_000);
        assert_eq!(tc.periods[1].bonus, Bonus::Increment(30_000));
        assert_eq!(tc.moves_required_by(0), Some(40));
        assert_eq!(tc.moves_required_by(1), None);
        assert_eq!(
            TimeControl::parse("300").unwrap().periods[0].bonus,
            Bonus::None
        );
        assert_eq!(
            TimeControl::parse("300d5").unwrap().periods[0].bonus,
            Bonus::Bronstein(5000)
        );
        assert!(TimeControl::parse("abc").is_err());
        assert!(TimeControl::parse("40/x").is_err());
    }

    /// The rules of the periods are kept when parsing, wherever the text comes from.
    #[test]
    fn periods_that_cannot_be_played_are_refused() {
        use TimeControlError as E;
        let cases = [
            (
                "90min+30s",
                E::Seconds {
                    part: "90min+30s".into(),
                    value: "90min".into(),
                },
            ),
            (
                "x/300",
                E::MoveCount {
                    part: "x/300".into(),
                },
            ),
            ("?", E::NoPeriods("?".into())),
            ("5400:1800+30", E::RestOfGameNotLast { period: 1 }),
            ("0", E::NoTime { period: 1 }),
            ("0/5400:1800", E::NoMoves { period: 1 }),
            ("40/5400:0", E::NoTime { period: 2 }),
        ];
        for (text, want) in cases {
            assert_eq!(TimeControl::parse(text), Err(want), "{text}");
        }
        assert!(TimeControl::parse("0+2").is_ok(), "a bonus alone is time");
        let err = serde_json::from_str::<TimeControl>("\"5400:1800+30\"").unwrap_err();
        assert!(
            err.to_string().starts_with(
                "time control \"5400:1800+30\": period 1 has no move count, but only the last \
                 period may be the rest of the game; give every period but the last its moves"
            ),
            "{err}"
        );
        let tc: TimeControl = serde_json::from_str("\"40/5400+30:1800+30\"").unwrap();
        assert_eq!(
            serde_json::to_string(&tc).unwrap(),
            "\"40/5400+30:1800+30\""
        );
    }

    /// L17 T54: 10+0, 3+2, 15+10, 30+30, 60+0, 45+30, 90/40+30 under each edition's
    /// definitions (the edition tables' `blitz_below_ms` / `rapid_below_ms`).
    #[test]
    fn categories_by_edition() {
        use Category::{Blitz as B, Rapid as R, Standard as S};
        let controls = [
            "600",
            "180+2",
            "900+10",
            "1800+30",
            "3600",
            "2700+30",
            "40/5400+30:1800+30",
        ];
        let expected = [
            // 2017 article text (A1 / B1): 10 and 60 minutes are rapid, 30+30 too.
            ("fide-2017", [R, B, R, R, R, S, S]),
            // English 2018 / 2023: 10 is blitz, 60 (and 30+30) standard.
            ("fide-2018", [B, B, R, S, S, S, S]),
            ("fide-2023", [B, B, R, S, S, S, S]),
            // 2005: blitz under 15 minutes.
            ("fide-2005", [B, B, R, S, S, S, S]),
        ];
        for (name, cats) in expected {
            let ed = name.parse::<crate::arbiter::Edition>().unwrap().laws();
            for (tc, want) in controls.iter().zip(cats) {
                let got = TimeControl::parse(tc)
                    .unwrap()
                    .category(ed.blitz_below_ms, ed.rapid_below_ms);
                assert_eq!(got, want, "{name} {tc}");
            }
        }
        // 2005's own edge: 12 minutes is blitz there, rapid in the later editions.
        let twelve = TimeControl::parse("720").unwrap();
        let cat = |n: &str| {
            let e = n.parse::<crate::arbiter::Edition>().unwrap().laws();
            twelve.category(e.blitz_below_ms, e.rapid_below_ms)
        };
        assert_eq!((cat("fide-2005"), cat("fide-2023")), (B, R));
    }
}
