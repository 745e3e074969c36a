//! One question to one port, for `dgt-arbiter ports`: is there a DGT board? Sends `0x4D`
//! (version, read-only) and waits up to 500 ms for the `0x93` reply (protocol §2.1, §3.5).

use std::io::{Read, Write};
use std::path::Path;
use std::time::{Duration, Instant};

use dgt_protocol::{BoardMessage, Command, Decoded, Decoder, LineMode};

use super::line::BAUD_RATE;

/// What the probe found on a port.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProbeAnswer {
    /// A DGT board answered with its firmware version.
    Board { major: u8, minor: u8 },
    /// The port opened but no version reply came.
    Silent,
    /// The port could not be opened (busy: perhaps the daemon has it).
    Unavailable(String),
}

/// How long a board gets to answer.
pub const PROBE_WAIT: Duration = Duration::from_millis(500);

/// Probes `path` (blocking, at most about [`PROBE_WAIT`]).
pub fn probe_port(path: &Path) -> ProbeAnswer {
    let opened = serialport::new(path.to_string_lossy(), BAUD_RATE)
        .timeout(Duration::from_millis(50))
        .dtr_on_open(true)
        .open();
    let mut port = match opened {
        Ok(p) => p,
        Err(e) => return ProbeAnswer::Unavailable(e.to_string()),
    };
    if let Err(e) = port.write_all(&Command::SendVersion.encode()) {
        return ProbeAnswer::Unavailable(format!("write: {e}"));
    }
    let mut decoder = Decoder::new(LineMode::Single);
    let deadline = Instant::now() + PROBE_WAIT;
    let mut buf = [0u8; 256];
    while Instant::now() < deadline {
        match port.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                for item in decoder.decode(&buf[..n]) {
                    if let Decoded::Message(BoardMessage::Version { major, minor }) = item {
                        return ProbeAnswer::Board { major, minor };
                    }
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::TimedOut => {}
            Err(_) => break,
        }
    }
    ProbeAnswer::Silent
}
