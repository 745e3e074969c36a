//! A single-board port's link on virtual time: the [`BoardLink`] and the simulated board
//! behind its port, with what was written and what the core was told.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use dgt_core::InputKind;
use dgt_lab::simulated::pty_board::BoardModel;

use super::VirtualClock;
use crate::edge::serial::SerialTiming;
use crate::edge::serial::board_link::{BoardLink, LabelClaims, LinkInput, LinkPort};

/// How often the board's output is read when nothing else is due: every 5 ms, like a UART's
/// FIFO.
const READ_EVERY_MS: u64 = 5;

/// One link and the board behind its port, on a virtual clock (ms since the port opened).
/// A command is written the moment the link asks (the board hears it at once).
pub struct LinkSim<M: BoardModel> {
    /// The machine under test; a test may replace it (same clock).
    pub link: BoardLink,
    /// The board behind the port.
    pub board: M,
    clock: VirtualClock,
    /// What the core was told: the time in ms, the board's label, the input.
    pub told: Vec<(u64, String, InputKind)>,
    /// Every command written, with its time.
    pub written: Vec<(u64, Vec<u8>)>,
}

impl<M: BoardModel> LinkSim<M> {
    /// The port at `path` opened at 0 ms, with `board` behind it; the settings' serial →
    /// label map, the label claims shared with other ports, and the timings. What the link
    /// writes at once is written.
    pub fn new(
        board: M,
        path: &str,
        labels: BTreeMap<String, String>,
        claims: LabelClaims,
        timing: SerialTiming,
    ) -> Self {
        let clock = VirtualClock::start();
        let link = BoardLink::new(
            LinkPort {
                path: PathBuf::from(path),
                label: None,
            },
            Arc::new(labels),
            claims,
            timing,
            clock.epoch(),
        );
        let mut sim = LinkSim {
            link,
            board,
            clock,
            told: Vec::new(),
            written: Vec::new(),
        };
        sim.exchange();
        sim
    }

    /// The current time, ms since the port opened.
    pub fn t_ms(&self) -> u64 {
        self.clock.t_ms()
    }

    /// The instant the port opened (0 ms).
    pub fn epoch(&self) -> Instant {
        self.clock.epoch()
    }

    /// The instant `ms` after the port opened.
    pub fn at(&self, ms: u64) -> Instant {
        self.clock.at(ms)
    }

    /// Writes what the link wants written (instantly), and takes what it has for the core.
    pub fn exchange(&mut self) {
        while let Some(command) = self.link.poll_transmit() {
            let bytes = command.encode();
            self.board.on_host_bytes(self.t_ms(), &bytes);
            self.written.push((self.t_ms(), bytes));
            let now = self.clock.now();
            self.link.handle_written(&command, now, now);
        }
        while let Some(LinkInput { at, board, kind }) = self.link.poll_event() {
            self.told.push((self.clock.ms(at), board, kind));
        }
    }

    /// Runs until `end_ms` or until the link ends; returns why it ended. The clock wakes at
    /// the link's and the board's deadlines and every 5 ms to read the board's output: bytes
    /// read are handed to the link, else the link is told the time.
    pub fn run_until(&mut self, end_ms: u64) -> Option<String> {
        while self.t_ms() < end_ms && self.link.ended().is_none() {
            let link = self
                .link
                .poll_timeout()
                .map(|at| self.clock.deadline_ms(at));
            let board = self.board.next_deadline();
            let fifo = Some(self.t_ms() + READ_EVERY_MS);
            let t_ms = self.clock.step([link, board, fifo], end_ms);
            let now = self.clock.now();
            let bytes = self.board.poll_output(t_ms);
            if bytes.is_empty() {
                self.link.handle_timeout(now);
            } else {
                self.link.handle_bytes(now, &bytes);
            }
            self.exchange();
        }
        self.link.ended().map(str::to_string)
    }

    /// Every byte written, in order.
    pub fn sent_bytes(&self) -> Vec<u8> {
        self.written.iter().flat_map(|(_, b)| b.clone()).collect()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;
    use std::time::Duration;

    use dgt_lab::simulated::scripted_board::{ScriptedBoard, ScriptedBoardSpec};

    use super::*;

    #[test]
    fn a_scripted_board_is_named_by_its_serial_and_what_came_first_is_told_in_order() {
        let mut sim = LinkSim::new(
            ScriptedBoard::new(ScriptedBoardSpec::new("12321")),
            "/dev/ttyACM0",
            BTreeMap::new(),
            Arc::new(Mutex::new(BTreeMap::new())),
            SerialTiming {
                command_gap: Duration::from_millis(100),
                ..SerialTiming::default()
            },
        );
        // The serial-number query goes out at once; nothing is told before the board is named.
        assert_eq!(sim.written, [(0, vec![0x45])]);
        assert!(sim.told.is_empty());
        assert_eq!(sim.run_until(2_000), None);
        assert_eq!(sim.t_ms(), 2_000);
        assert_eq!(sim.link.label(), Some("board-12321"));
        assert!(sim.sent_bytes().starts_with(&[0x45, 0x4D]));
        assert!(matches!(
            sim.told[..2],
            [
                (0, _, InputKind::Link(dgt_core::Link::Connected { .. })),
                (0, _, InputKind::Tx(_))
            ]
        ));
        let times: Vec<u64> = sim.told.iter().map(|(t, _, _)| *t).collect();
        assert!(times.is_sorted(), "{times:?}");
        assert!(sim.told.iter().all(|(_, b, _)| b == "board-12321"));
    }
}
