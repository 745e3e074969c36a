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

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TimeControl {
    pub text: String,
    pub periods: Vec<Period>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Category {
    Standard,
    Rapid,
    Blitz,
}

impl TimeControl {
    pub fn parse(text: &str) -> Result<TimeControl, String> {
        let text = text.trim();
        if text.is_empty() || text == "-" || text == "?" {
            return Err(format!("time control \"{text}\" has no periods"));
        }
        let mut periods = Vec::new();
        for part in text.split(':') {
            let (moves, rest) = match part.split_once('/') {
                Some((m, r)) => (
                    Some(m.parse::<u32>().map_err(|_| {
                        format!("\"{part}\": the move count before '/' must be a whole number")
                    })?),
                    r,
                ),
                None => (None, part),
            };
            let secs = |s: &str| {
                s.parse::<u64>()
                    .map_err(|_| format!("\"{part}\": \"{s}\" is not a number of seconds"))
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
            // 2017 article text (A1 / B1, D5): 10 and 60 minutes are rapid, 30+30 too.
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
