//! Bus mode (protocol §2.4, §3.7): several serial boards on one RS-232 line, each addressed by
//! its serial number as a 14-bit value, every frame closed by a 7-bit checksum.

use serde::{Deserialize, Serialize};

use crate::clock::ClockMessage;

/// The checksum of bus frames: the sum of all preceding bytes, & 0x7F.
pub fn checksum(bytes: &[u8]) -> u8 {
    (bytes.iter().map(|&b| b as u32).sum::<u32>() & 0x7F) as u8
}

/// The bus address of a board: its serial number as 14 bits (serial "01025" → 8·128 + 1).
/// How five-digit serials above 16383 map is undocumented; we keep the low 14 bits.
pub fn address_of_serial(serial: &str) -> Option<u16> {
    let n: u32 = serial.trim().parse().ok()?;
    Some((n & 0x3FFF) as u16)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum BusCommandKind {
    SendClock,
    SendBoard,
    SendChanges,
    RepeatChanges,
    SetStartGame,
    SendFromStart,
    Ping,
    EndBusMode,
    Reset,
    IgnoreNextPing,
    SendVersion,
    SendAll,
}

impl BusCommandKind {
    pub fn code(self) -> u8 {
        use BusCommandKind::*;
        match self {
            SendClock => 0x81,
            SendBoard => 0x82,
            SendChanges => 0x83,
            RepeatChanges => 0x84,
            SetStartGame => 0x85,
            SendFromStart => 0x86,
            Ping => 0x87,
            EndBusMode => 0x88,
            Reset => 0x89,
            IgnoreNextPing => 0x8A,
            SendVersion => 0x8B,
            SendAll => 0x8D,
        }
    }
    pub fn from_code(b: u8) -> Option<Self> {
        use BusCommandKind::*;
        Some(match b {
            0x81 => SendClock,
            0x82 => SendBoard,
            0x83 => SendChanges,
            0x84 => RepeatChanges,
            0x85 => SetStartGame,
            0x86 => SendFromStart,
            0x87 => Ping,
            0x88 => EndBusMode,
            0x89 => Reset,
            0x8A => IgnoreNextPing,
            0x8B => SendVersion,
            0x8D => SendAll,
            _ => return None,
        })
    }
}

/// A host→board bus command: `CMD, ADDR_HI, ADDR_LO, CHECKSUM`. Address 0 is every board.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct BusCommand {
    pub kind: BusCommandKind,
    pub address: u16,
}

impl BusCommand {
    pub fn encode(&self) -> [u8; 4] {
        let mut f = [
            self.kind.code(),
            ((self.address >> 7) & 0x7F) as u8,
            (self.address & 0x7F) as u8,
            0,
        ];
        f[3] = checksum(&f[..3]);
        f
    }
    /// Decodes a 4-byte bus command; `None` when the code is unknown or the checksum is bad.
    pub fn decode(f: &[u8; 4]) -> Option<Self> {
        if f[1] & 0x80 != 0 || f[2] & 0x80 != 0 || checksum(&f[..3]) != f[3] {
            return None;
        }
        Some(BusCommand {
            kind: BusCommandKind::from_code(f[0])?,
            address: ((f[1] as u16) << 7) | f[2] as u16,
        })
    }
}

pub const BUS_BRD_DUMP: u8 = 0x83;
pub const BUS_BWTIME: u8 = 0x84;
pub const BUS_UPDATE: u8 = 0x85;
pub const BUS_FROM_START: u8 = 0x86;
pub const BUS_PING: u8 = 0x87;
pub const BUS_START_GAME_WRITTEN: u8 = 0x88;
pub const BUS_VERSION: u8 = 0x89;
pub const BUS_BRD_DUMP_50B: u8 = 0x8A;

/// Allowed total lengths of bus replies (id through checksum).
pub fn length_bounds(id: u8) -> Option<(usize, usize)> {
    Some(match id {
        BUS_BRD_DUMP => (70, 70),
        BUS_BWTIME => (13, 13),
        BUS_UPDATE | BUS_FROM_START => (6, crate::message::MAX_LEN),
        BUS_PING | BUS_START_GAME_WRITTEN => (6, 6),
        // "was 6 up to version 1.2"
        BUS_VERSION => (6, 8),
        BUS_BRD_DUMP_50B => (56, 56),
        _ => return None,
    })
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BusReplyKind {
    BoardDump(Box<[u8; 64]>),
    Clock(ClockMessage),
    /// EE-format changes since the previous SEND_CHANGES.
    Update(Vec<u8>),
    /// EE-format log since the start tag.
    FromStart(Vec<u8>),
    Ping,
    StartGameWritten,
    Version {
        major: u8,
        minor: u8,
    },
    Other {
        id: u8,
        data: Vec<u8>,
    },
}

/// A board→host bus reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BusReply {
    pub address: u16,
    pub kind: BusReplyKind,
}

impl BusReply {
    /// `data` is the bytes between the address and the checksum.
    pub fn from_frame(id: u8, address: u16, data: &[u8]) -> Self {
        let kind = match (id, data.len()) {
            (BUS_BRD_DUMP, 64) => {
                let mut sq = [0u8; 64];
                sq.copy_from_slice(data);
                BusReplyKind::BoardDump(Box::new(sq))
            }
            (BUS_BWTIME, 7) => {
                let mut d = [0u8; 7];
                d.copy_from_slice(data);
                BusReplyKind::Clock(ClockMessage::decode(&d))
            }
            (BUS_UPDATE, _) => BusReplyKind::Update(data.to_vec()),
            (BUS_FROM_START, _) => BusReplyKind::FromStart(data.to_vec()),
            (BUS_PING, 0) => BusReplyKind::Ping,
            (BUS_START_GAME_WRITTEN, 0) => BusReplyKind::StartGameWritten,
            (BUS_VERSION, 2) => BusReplyKind::Version {
                major: data[0],
                minor: data[1],
            },
            _ => BusReplyKind::Other {
                id,
                data: data.to_vec(),
            },
        };
        BusReply { address, kind }
    }

    /// The whole reply on the wire, checksum included.
    pub fn encode(&self) -> Vec<u8> {
        let (id, data): (u8, Vec<u8>) = match &self.kind {
            BusReplyKind::BoardDump(sq) => (BUS_BRD_DUMP, sq.to_vec()),
            BusReplyKind::Clock(c) => (BUS_BWTIME, c.to_bytes().to_vec()),
            BusReplyKind::Update(d) => (BUS_UPDATE, d.clone()),
            BusReplyKind::FromStart(d) => (BUS_FROM_START, d.clone()),
            BusReplyKind::Ping => (BUS_PING, vec![]),
            BusReplyKind::StartGameWritten => (BUS_START_GAME_WRITTEN, vec![]),
            BusReplyKind::Version { major, minor } => (BUS_VERSION, vec![*major, *minor]),
            BusReplyKind::Other { id, data } => (*id, data.clone()),
        };
        let len = data.len() + 6;
        let mut out = Vec::with_capacity(len);
        out.push(id | 0x80);
        out.push(((len >> 7) & 0x7F) as u8);
        out.push((len & 0x7F) as u8);
        out.push(((self.address >> 7) & 0x7F) as u8);
        out.push((self.address & 0x7F) as u8);
        out.extend(data.iter().map(|b| b & 0x7F));
        out.push(checksum(&out));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checksum_matches_dgts_example() {
        // DGT's own example: 81 10 06 takes checksum 0x17.
        assert_eq!(checksum(&[0x81, 0x10, 0x06]), 0x17);
        let c = BusCommand {
            kind: BusCommandKind::SendClock,
            address: (0x10 << 7) | 0x06,
        };
        assert_eq!(c.encode(), [0x81, 0x10, 0x06, 0x17]);
        assert_eq!(BusCommand::decode(&c.encode()), Some(c));
        assert_eq!(BusCommand::decode(&[0x81, 0x10, 0x06, 0x18]), None);
    }

    #[test]
    fn livechess_version_probe() {
        let c = BusCommand {
            kind: BusCommandKind::SendVersion,
            address: 0,
        };
        assert_eq!(c.encode(), [0x8B, 0x00, 0x00, 0x0B]);
    }

    #[test]
    fn serial_to_address() {
        assert_eq!(address_of_serial("01025"), Some(1025));
        assert_eq!(address_of_serial("x"), None);
    }

    #[test]
    fn ping_reply_bytes() {
        let r = BusReply {
            address: 1025,
            kind: BusReplyKind::Ping,
        };
        let b = r.encode();
        assert_eq!(&b[..5], &[0x87, 0x00, 0x06, 0x08, 0x01]);
        assert_eq!(b[5], checksum(&b[..5]));
    }
}
