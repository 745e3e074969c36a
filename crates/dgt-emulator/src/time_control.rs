//! Time controls as the emulated DGT 3000 runs them: periods (optionally "N moves in"),
//! a Fischer increment per period, and an optional simple (US) delay.
//!
//! Written in the PGN `TimeControl` style, all in seconds: `300` (sudden death),
//! `180+2` (Fischer), `40/5400+30:1800+30` (two periods), `300d5` (5 s delay).

use thiserror::Error;

/// One period of a time control.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Period {
    /// Moves to make in this period (`None`: the rest of the game).
    pub moves: Option<u32>,
    /// Time added when the period starts.
    pub base_ms: u64,
    /// Fischer increment added at every press in this period.
    pub increment_ms: u64,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TimeControl {
    /// At least one period; the last one has `moves == None`.
    pub periods: Vec<Period>,
    /// Simple delay: the clock waits this long at the start of each turn before counting.
    pub delay_ms: u64,
}

/// FIDE's categories, by the estimated game length `base + 60 × increment` (Laws, Appendix
/// A and B): blitz ≤ 10 min, rapid < 60 min, standard otherwise.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Category {
    Blitz,
    Rapid,
    Standard,
}

#[derive(Debug, Error, PartialEq, Eq)]
pub enum TimeControlError {
    #[error("bad time control {0:?}: expected e.g. 300, 180+2, 40/5400+30:1800+30 or 300d5")]
    Syntax(String),
}

impl TimeControl {
    pub fn sudden_death(base_s: u64) -> Self {
        Self::fischer(base_s, 0)
    }

    pub fn fischer(base_s: u64, increment_s: u64) -> Self {
        TimeControl {
            periods: vec![Period {
                moves: None,
                base_ms: base_s * 1000,
                increment_ms: increment_s * 1000,
            }],
            delay_ms: 0,
        }
    }

    pub fn parse(text: &str) -> Result<Self, TimeControlError> {
        let err = || TimeControlError::Syntax(text.to_string());
        let num = |s: &str| s.trim().parse::<u64>().map_err(|_| err());
        let mut periods = Vec::new();
        let mut delay_ms = 0;
        for part in text.trim().split(':') {
            let (moves, rest) = match part.split_once('/') {
                Some((m, r)) => (Some(num(m)? as u32), r),
                None => (None, part),
            };
            let (rest, delay) = match rest.split_once('d') {
                Some((r, d)) => (r, Some(num(d)?)),
                None => (rest, None),
            };
            if let Some(d) = delay {
                delay_ms = d * 1000;
            }
            let (base, inc) = match rest.split_once('+') {
                Some((b, i)) => (num(b)?, num(i)?),
                None => (num(rest)?, 0),
            };
            periods.push(Period {
                moves,
                base_ms: base * 1000,
                increment_ms: inc * 1000,
            });
        }
        match periods.last_mut() {
            Some(last) => last.moves = None,
            None => return Err(err()),
        }
        if periods.iter().any(|p| p.moves == Some(0)) || periods[0].base_ms == 0 {
            return Err(err());
        }
        Ok(TimeControl { periods, delay_ms })
    }

    /// The DGT 3000 lights the time-per-move indicator (hours byte 0x20, protocol §3.4) for
    /// Fischer and delay modes.
    pub fn has_increment(&self) -> bool {
        self.delay_ms > 0 || self.periods.iter().any(|p| p.increment_ms > 0)
    }

    pub fn category(&self) -> Category {
        let p = &self.periods[0];
        let est = p.base_ms + 60 * (p.increment_ms + self.delay_ms);
        if est <= 600_000 {
            Category::Blitz
        } else if est < 3_600_000 {
            Category::Rapid
        } else {
            Category::Standard
        }
    }

    /// Estimated length of one player's share of the first period (base + 60 × increment).
    pub fn estimated_share_ms(&self) -> u64 {
        let p = &self.periods[0];
        p.base_ms + 60 * (p.increment_ms + self.delay_ms)
    }
}

impl std::fmt::Display for TimeControl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (i, p) in self.periods.iter().enumerate() {
            if i > 0 {
                write!(f, ":")?;
            }
            if let Some(m) = p.moves {
                write!(f, "{m}/")?;
            }
            write!(f, "{}", p.base_ms / 1000)?;
            if p.increment_ms > 0 {
                write!(f, "+{}", p.increment_ms / 1000)?;
            }
        }
        if self.delay_ms > 0 {
            write!(f, "d{}", self.delay_ms / 1000)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_usual_forms() {
        assert_eq!(
            TimeControl::parse("300").unwrap(),
            TimeControl::sudden_death(300)
        );
        assert_eq!(
            TimeControl::parse("180+2").unwrap(),
            TimeControl::fischer(180, 2)
        );
        let classic = TimeControl::parse("40/5400+30:1800+30").unwrap();
        assert_eq!(classic.periods.len(), 2);
        assert_eq!(classic.periods[0].moves, Some(40));
        assert_eq!(classic.periods[1].moves, None);
        assert_eq!(classic.periods[1].base_ms, 1_800_000);
        assert_eq!(classic.to_string(), "40/5400+30:1800+30");
        let delay = TimeControl::parse("300d5").unwrap();
        assert_eq!(delay.delay_ms, 5000);
        assert!(delay.has_increment());
        assert!(TimeControl::parse("abc").is_err());
        assert!(TimeControl::parse("0").is_err());
    }

    #[test]
    fn categories_follow_fide() {
        assert_eq!(TimeControl::fischer(180, 2).category(), Category::Blitz);
        assert_eq!(TimeControl::fischer(900, 10).category(), Category::Rapid);
        assert_eq!(
            TimeControl::parse("40/5400+30:1800+30").unwrap().category(),
            Category::Standard
        );
    }
}
