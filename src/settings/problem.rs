//! One thing wrong with the settings, as `check-config` prints it: the key, the value found,
//! what is wrong and the fix. A leaf: every part of the settings that checks something
//! builds these, and nothing here depends on them.

use std::fmt;

/// One thing wrong with the settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The key as written in TOML: `listen`, `serial.labels."13116"`, `tables[3].serials[1]`.
    pub key: String,
    /// The value found, as TOML would write it (`"table-1"`, `0`); secrets are hidden.
    pub value: String,
    /// What is wrong.
    pub problem: String,
    /// What to do about it.
    pub fix: String,
}

impl Problem {
    pub fn new(
        key: impl Into<String>,
        value: impl Into<String>,
        problem: impl Into<String>,
        fix: impl Into<String>,
    ) -> Self {
        Problem {
            key: key.into(),
            value: value.into(),
            problem: problem.into(),
            fix: fix.into(),
        }
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} = {}: {}; fix: {}",
            self.key, self.value, self.problem, self.fix
        )
    }
}
