//! How the verdicts write sides and times in English: "White", "1:45", "1:30:00", "3.2 s".
//! A leaf module, so that each `verdict_*` module renders its text without importing
//! `verdict`, which re-exports them (no import circle).

use shakmaty::Color;

/// A side as prescriptions and messages name it.
pub fn side_name(c: Color) -> &'static str {
    if c.is_white() { "White" } else { "Black" }
}

/// A duration in seconds, one decimal, cut not rounded ("37.0 s").
pub fn seconds(ms: u64) -> String {
    format!("{}.{} s", ms / 1000, (ms % 1000) / 100)
}

/// A time as m:ss.
pub fn mmss(ms: u64) -> String {
    format!("{}:{:02}", ms / 60_000, (ms / 1000) % 60)
}

/// A clock time as h:mm:ss.
pub fn hmmss(ms: u64) -> String {
    let s = ms / 1000;
    format!("{}:{:02}:{:02}", s / 3600, (s / 60) % 60, s % 60)
}
