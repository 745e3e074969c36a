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

/// The probe's logic without its I/O: one `0x4D` out, then the bytes that come back until
/// a version reply or [`PROBE_WAIT`]. [`probe_port`] drives it over a real port.
pub struct VersionProbe {
    deadline: Instant,
    to_send: Option<Command>,
    decoder: Decoder,
    answer: Option<ProbeAnswer>,
}

impl VersionProbe {
    /// A probe of a port opened at `now`.
    pub fn new(now: Instant) -> Self {
        VersionProbe {
            deadline: now + PROBE_WAIT,
            to_send: Some(Command::SendVersion),
            decoder: Decoder::new(LineMode::Single),
            answer: None,
        }
    }

    /// The command to write (read-only: version, protocol §2.1), once.
    pub fn poll_transmit(&mut self) -> Option<Command> {
        self.to_send.take()
    }

    /// Bytes read from the port: a version reply among them answers the probe.
    pub fn handle_bytes(&mut self, bytes: &[u8]) {
        if self.answer.is_some() {
            return;
        }
        for item in self.decoder.decode(bytes) {
            if let Decoded::Message(BoardMessage::Version { major, minor }) = item {
                self.answer = Some(ProbeAnswer::Board { major, minor });
                return;
            }
        }
    }

    /// When the board's time to answer is up.
    pub fn poll_timeout(&self) -> Option<Instant> {
        self.answer.is_none().then_some(self.deadline)
    }

    /// The time is `now`: past the deadline without a reply, the port is silent.
    pub fn handle_timeout(&mut self, now: Instant) {
        if self.answer.is_none() && now >= self.deadline {
            self.answer = Some(ProbeAnswer::Silent);
        }
    }

    /// The answer, once there is one.
    pub fn answer(&self) -> Option<&ProbeAnswer> {
        self.answer.as_ref()
    }
}

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
    let mut probe = VersionProbe::new(Instant::now());
    while let Some(command) = probe.poll_transmit() {
        if let Err(e) = port.write_all(&command.encode()) {
            return ProbeAnswer::Unavailable(format!("write: {e}"));
        }
    }
    let mut buf = [0u8; 256];
    loop {
        probe.handle_timeout(Instant::now());
        if let Some(answer) = probe.answer() {
            return answer.clone();
        }
        match port.read(&mut buf) {
            Ok(0) => return ProbeAnswer::Silent,
            Ok(n) => probe.handle_bytes(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::TimedOut => {}
            Err(_) => return ProbeAnswer::Silent,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dgt_lab::simulated::pty_board::BoardModel;
    use dgt_lab::simulated::scripted_board::{ScriptedBoard, ScriptedBoardSpec};

    #[test]
    fn a_board_answers_its_version_and_only_the_version_is_asked() {
        let t0 = Instant::now();
        let mut probe = VersionProbe::new(t0);
        let mut board = ScriptedBoard::new(ScriptedBoardSpec::new("12345"));
        let command = probe.poll_transmit().unwrap();
        assert_eq!(command.encode(), [0x4D]);
        assert_eq!(probe.poll_transmit(), None);
        board.on_host_bytes(0, &command.encode());
        let reply = board.poll_output(5);
        // In two reads, after a stray byte.
        probe.handle_bytes(&[0x00]);
        probe.handle_bytes(&reply[..1]);
        assert_eq!(probe.answer(), None);
        probe.handle_bytes(&reply[1..]);
        assert_eq!(
            probe.answer(),
            Some(&ProbeAnswer::Board { major: 1, minor: 8 })
        );
        assert_eq!(probe.poll_timeout(), None);
        // A late deadline changes nothing.
        probe.handle_timeout(t0 + PROBE_WAIT * 2);
        assert!(matches!(probe.answer(), Some(ProbeAnswer::Board { .. })));
    }

    #[test]
    fn a_port_without_a_version_reply_in_time_is_silent() {
        let t0 = Instant::now();
        let mut probe = VersionProbe::new(t0);
        probe.poll_transmit();
        probe.handle_bytes(b"OK\r\n");
        assert_eq!(probe.poll_timeout(), Some(t0 + PROBE_WAIT));
        probe.handle_timeout(t0 + PROBE_WAIT - Duration::from_millis(1));
        assert_eq!(probe.answer(), None);
        probe.handle_timeout(t0 + PROBE_WAIT);
        assert_eq!(probe.answer(), Some(&ProbeAnswer::Silent));
    }
}
