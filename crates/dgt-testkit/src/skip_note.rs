//! What a test does when a program it drives is not installed (Chromium, nats-server):
//! outside CI it passes without running, says so on stderr, and appends one line to the file
//! named by `DGT_TEST_SKIPS`, which `scripts/test` lists at the end with the command that
//! installs the program. With `CI` set a missing program fails the test: CI must run it.
//! Used by [`crate::cdp`] and the daemon's `tests/nats_broker`.

use std::io::Write;

/// Records that `test` did not run because `program` is missing; `install` is the one
/// command that enables it. Panics instead when `CI` is set.
pub fn skipped(test: &str, program: &str, install: &str) {
    if std::env::var_os("CI").is_some() {
        panic!("CI is set but {program} was not found; `{install}` installs it");
    }
    let line = format!("{test}: {program} not found; enable with: {install}");
    eprintln!("NOTICE: SKIPPED (not passed) {line}");
    if let Some(log) = std::env::var_os("DGT_TEST_SKIPS") {
        // One short append per skipped test; concurrent tests write whole lines.
        if let Ok(mut f) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(log)
        {
            let _ = writeln!(f, "{line}");
        }
    }
}
