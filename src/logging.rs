//! Where the daemon's logs go. stdout is reserved for event output (`--print-events`,
//! `replay`), so logs never go there:
//!
//! * under systemd, with stderr connected to the journal (`JOURNAL_STREAM` names it), to
//!   journald natively: the level becomes the priority, and every `tracing` field becomes a
//!   journal field prefixed `DGT_` (`board = "7"` → `DGT_BOARD=7`, so
//!   `journalctl -u dgt-arbiter DGT_BOARD=7` shows one table);
//! * otherwise readable lines on stderr (`INFO dgt_arbiter::edge::serial: identified board=7`),
//!   coloured only when stderr is a terminal and `NO_COLOR` is unset: a log file or a pipe
//!   gets no ANSI escape codes.
//!
//! `RUST_LOG` filters (`RUST_LOG=dgt_arbiter=debug,info`); the default is `info`.

use std::os::unix::fs::MetadataExt;

use tracing_subscriber::EnvFilter;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

/// Where [`init`] sends the logs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogTarget {
    Journald,
    Stderr,
}

/// The journald field prefix of `tracing` fields.
pub const FIELD_PREFIX: &str = "DGT";

/// Installs the global subscriber (once; later calls change nothing) and says where logs go.
pub fn init() -> LogTarget {
    let target = choose_target(
        std::env::var("JOURNAL_STREAM").ok().as_deref(),
        stderr_identity(),
    );
    if target == LogTarget::Journald
        && let Ok(layer) = tracing_journald::layer()
    {
        let layer = layer
            .with_syslog_identifier("dgt-arbiter".into())
            .with_field_prefix(Some(FIELD_PREFIX.into()));
        let _ = tracing_subscriber::registry()
            .with(filter())
            .with(layer)
            .try_init();
        return LogTarget::Journald;
    }
    let colour = use_colour(
        std::io::IsTerminal::is_terminal(&std::io::stderr()),
        std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty()),
    );
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter())
        .with_writer(std::io::stderr)
        .with_ansi(colour)
        .try_init();
    LogTarget::Stderr
}

/// ANSI colours only for a terminal, and not when `NO_COLOR` asks for none.
pub fn use_colour(stderr_is_terminal: bool, no_color: bool) -> bool {
    stderr_is_terminal && !no_color
}

fn filter() -> EnvFilter {
    EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"))
}

/// journald when `JOURNAL_STREAM` (`DEVICE:INODE`, set by systemd) names the file stderr is;
/// a child that inherited the variable but has its stderr elsewhere (a terminal, a pipe)
/// keeps readable lines. When stderr cannot be examined the variable is trusted.
pub fn choose_target(journal_stream: Option<&str>, stderr: Option<(u64, u64)>) -> LogTarget {
    let Some(stream) = journal_stream else {
        return LogTarget::Stderr;
    };
    let parsed = stream
        .split_once(':')
        .and_then(|(d, i)| Some((d.parse::<u64>().ok()?, i.parse::<u64>().ok()?)));
    match (parsed, stderr) {
        (Some(named), Some(actual)) if named != actual => LogTarget::Stderr,
        (None, _) => LogTarget::Stderr,
        _ => LogTarget::Journald,
    }
}

/// (device, inode) of stderr.
fn stderr_identity() -> Option<(u64, u64)> {
    let meta = std::fs::metadata("/proc/self/fd/2").ok()?;
    Some((meta.dev(), meta.ino()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn journald_only_when_stderr_is_the_journal_stream() {
        assert_eq!(choose_target(None, Some((1, 2))), LogTarget::Stderr);
        assert_eq!(
            choose_target(Some("8:12345"), Some((8, 12345))),
            LogTarget::Journald
        );
        assert_eq!(
            choose_target(Some("8:12345"), Some((8, 999))),
            LogTarget::Stderr
        );
        assert_eq!(choose_target(Some("8:12345"), None), LogTarget::Journald);
        assert_eq!(choose_target(Some("nonsense"), None), LogTarget::Stderr);
    }

    #[test]
    fn colour_only_on_a_terminal_without_no_color() {
        assert!(use_colour(true, false));
        assert!(
            !use_colour(false, false),
            "a file or a pipe gets no ANSI codes"
        );
        assert!(!use_colour(true, true));
    }
}
