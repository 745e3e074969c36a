//! Several emulated boards on one bus line (protocol §2.4), behind one pseudo-terminal: the
//! daemon's bus code path reads them exactly as it would read an RS-232 bus.
//!
//! What is modelled:
//! * every byte the host writes reaches every board (a shared line); each board answers
//!   only what is addressed to it, or to address 0 (the emulator's firmware, bus mode being
//!   its power-up default);
//! * the boards' transmitters share the line at 9600 baud: what they send is merged in time
//!   order, millisecond by millisecond (about one byte each, §1.1). When two boards send
//!   in the same millisecond — only broadcast ping answers do, spread at random within
//!   1100 ms by the boards themselves — the line carries neither byte but their wired-AND
//!   (an idle line is high; any transmitter pulling a bit low wins): the frames collide and
//!   arrive garbled, as on a real bus;
//! * bytes reach the host at most [`DELIVERY_MS`] after they were sent, like a UART whose
//!   receive FIFO is read every few ms, so a long reply arrives as it is sent, not at once
//!   at its end.
//!
//! What is not: electrical faults (a frame is corrupted only by a collision) and a board's
//! own garbling; tests wrap a member to corrupt or drop a reply.

use dgt_emulator::EmulatedBoard;

use crate::simulated::pty_board::BoardModel;

/// The longest a sent byte waits before the host can read it (ms).
pub const DELIVERY_MS: u64 = 4;

/// One emulated board as a member of a bus line.
pub struct BusMember(pub EmulatedBoard);

impl BoardModel for BusMember {
    fn on_host_bytes(&mut self, t_ms: u64, bytes: &[u8]) {
        self.0.on_host_bytes(t_ms, bytes);
    }
    fn poll_output(&mut self, t_ms: u64) -> Vec<u8> {
        self.0.poll_output(t_ms)
    }
    fn next_deadline(&self) -> Option<u64> {
        self.0.next_deadline()
    }
    fn finished(&self) -> bool {
        self.0.finished()
    }
}

/// The boards of one bus line, as one board model for a pseudo-terminal.
pub struct BusLineBoard {
    members: Vec<Box<dyn BoardModel>>,
    /// Everything up to this board time has been put on the line.
    sent_until: u64,
    /// Collisions so far (both frames garbled).
    collisions: u64,
}

impl BusLineBoard {
    pub fn new(members: Vec<Box<dyn BoardModel>>) -> Self {
        BusLineBoard {
            members,
            sent_until: 0,
            collisions: 0,
        }
    }

    /// Emulated boards, each on the line as it is.
    pub fn of_boards(boards: Vec<EmulatedBoard>) -> Self {
        Self::new(
            boards
                .into_iter()
                .map(|b| Box::new(BusMember(b)) as Box<dyn BoardModel>)
                .collect(),
        )
    }

    /// How many milliseconds saw two boards sending at once.
    pub fn collisions(&self) -> u64 {
        self.collisions
    }
}

/// The line level when several transmitters drive it: a 0 bit from any of them wins.
fn wired_and(chunks: &[Vec<u8>]) -> Vec<u8> {
    let longest = chunks.iter().map(Vec::len).max().unwrap_or(0);
    (0..longest)
        .map(|i| {
            chunks
                .iter()
                .filter_map(|c| c.get(i))
                .fold(0xFF, |line, &b| line & b)
        })
        .collect()
}

impl BoardModel for BusLineBoard {
    fn on_host_bytes(&mut self, t_ms: u64, bytes: &[u8]) {
        for m in &mut self.members {
            m.on_host_bytes(t_ms, bytes);
        }
    }

    fn poll_output(&mut self, t_ms: u64) -> Vec<u8> {
        let mut out = Vec::new();
        // One millisecond at a time: about one byte per board at 9600 baud.
        for t in self.sent_until + 1..=t_ms {
            let chunks: Vec<Vec<u8>> = self
                .members
                .iter_mut()
                .map(|m| m.poll_output(t))
                .filter(|c| !c.is_empty())
                .collect();
            match chunks.len() {
                0 => {}
                1 => out.extend(&chunks[0]),
                _ => {
                    self.collisions += 1;
                    out.extend(wired_and(&chunks));
                }
            }
        }
        self.sent_until = self.sent_until.max(t_ms);
        out
    }

    fn next_deadline(&self) -> Option<u64> {
        let members = self.members.iter().filter_map(|m| m.next_deadline()).min();
        let delivery = self.sent_until + DELIVERY_MS;
        Some(members.map_or(delivery, |d| d.min(delivery)))
    }

    fn finished(&self) -> bool {
        self.members.iter().all(|m| m.finished())
    }
}

#[cfg(test)]
mod tests {
    use dgt_emulator::{BoardSpec, HandlingRates};
    use dgt_protocol::{BusCommand, BusCommandKind, BusReplyKind, Decoded, Decoder, LineMode};

    use super::*;

    fn board(serial: u32) -> EmulatedBoard {
        let mut spec = BoardSpec::random(serial as u64, 10).with_rates(HandlingRates::clean());
        spec.serial = serial;
        EmulatedBoard::new(spec)
    }

    fn run(line: &mut BusLineBoard, from: u64, to: u64) -> Vec<u8> {
        (from..=to).flat_map(|t| line.poll_output(t)).collect()
    }

    #[test]
    fn each_board_answers_its_address_on_the_shared_line() {
        let mut line = BusLineBoard::of_boards(vec![board(1025), board(2048), board(3000)]);
        let ask = BusCommand {
            kind: BusCommandKind::SendVersion,
            address: 2048,
        };
        line.on_host_bytes(10, &ask.encode());
        let replies: Vec<_> = Decoder::new(LineMode::Bus)
            .decode(&run(&mut line, 0, 200))
            .into_iter()
            .filter_map(|d| match d {
                Decoded::Bus(r) => Some(r),
                _ => None,
            })
            .collect();
        assert_eq!(replies.len(), 1);
        assert_eq!(replies[0].address, 2048);
        assert!(matches!(replies[0].kind, BusReplyKind::Version { .. }));
    }

    #[test]
    fn broadcast_ping_answers_collide_sometimes_but_never_pass_as_other_frames() {
        let boards: Vec<EmulatedBoard> = (0..12).map(|i| board(1000 + 37 * i)).collect();
        let addresses: Vec<u16> = boards.iter().map(|b| b.bus_address()).collect();
        let mut line = BusLineBoard::of_boards(boards);
        let ping = BusCommand {
            kind: BusCommandKind::Ping,
            address: 0,
        };
        line.on_host_bytes(10, &ping.encode());
        let decoded = Decoder::new(LineMode::Bus).decode(&run(&mut line, 0, 1300));
        let mut heard = 0;
        for d in &decoded {
            if let Decoded::Bus(r) = d {
                assert_eq!(r.kind, BusReplyKind::Ping);
                assert!(addresses.contains(&r.address));
                heard += 1;
            }
        }
        // Twelve 6-byte answers in 1100 ms: an overlap garbles both; without one, all come.
        assert!(heard <= 12);
        if line.collisions() == 0 {
            assert_eq!(heard, 12);
        } else {
            assert!(heard < 12, "{heard} answers despite a collision");
        }
    }
}
