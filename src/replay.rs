//! `dgt-arbiter replay CAPTURE`: the core on virtual time, events as JSON lines.

use std::io::Write;

use dgt_core::capture::{CaptureError, parse_line};
use dgt_core::{Core, CoreConfig, Event};

/// Runs a capture's text through a fresh core and returns every event, timers included.
/// The whole capture is checked first, so a malformed file produces no partial output.
pub fn replay_text(text: &str, config: CoreConfig) -> Result<Vec<Event>, CaptureError> {
    let inputs = dgt_core::capture::parse_capture(text)?;
    let mut core = Core::new(config);
    let mut events = Vec::new();
    for input in &inputs {
        events.extend(core.handle(input));
    }
    // Let pending timers (a move waiting to settle) fire: the capture's end is not the end
    // of the world, but nothing more will arrive.
    while let Some(d) = core.next_deadline() {
        events.extend(core.advance(d));
    }
    Ok(events)
}

/// Writes events as JSON lines.
pub fn write_events(events: &[Event], mut out: impl Write) -> std::io::Result<()> {
    for e in events {
        writeln!(out, "{}", e.to_json())?;
    }
    out.flush()
}

/// Parses a single line (used by callers that stream captures).
pub fn parse_capture_line(
    text: &str,
    line: usize,
    prev: u64,
) -> Result<dgt_core::Input, CaptureError> {
    parse_line(text, line, prev)
}
