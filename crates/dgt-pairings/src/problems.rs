//! What is wrong with a pairing file: every problem at once, each with its line and a fix,
//! so the arbiter corrects the file in one go and nothing is imported half.

use std::fmt;

/// One problem in a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The line (1 and up); `None` for the file as a whole.
    pub line: Option<usize>,
    pub message: String,
    pub fix: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(n) => write!(f, "line {n}: {}; fix: {}", self.message, self.fix),
            None => write!(f, "{}; fix: {}", self.message, self.fix),
        }
    }
}

/// Every problem found in a file, in line order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Problems(pub Vec<Problem>);

impl Problems {
    pub fn at(&mut self, line: usize, message: impl Into<String>, fix: impl Into<String>) {
        self.0.push(Problem {
            line: Some(line),
            message: message.into(),
            fix: fix.into(),
        });
    }

    pub fn whole(&mut self, message: impl Into<String>, fix: impl Into<String>) {
        self.0.push(Problem {
            line: None,
            message: message.into(),
            fix: fix.into(),
        });
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// `Ok(value)` when nothing was found, else every problem sorted by line.
    pub fn or<T>(mut self, value: T) -> Result<T, Problems> {
        if self.0.is_empty() {
            return Ok(value);
        }
        self.0.sort_by_key(|p| p.line.unwrap_or(0));
        Err(self)
    }
}

impl fmt::Display for Problems {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for p in &self.0 {
            writeln!(f, "{p}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Problems {}
