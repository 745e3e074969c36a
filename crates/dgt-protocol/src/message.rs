//! Board→host messages in single-board mode (protocol §3.1–§3.5): their meaning, their
//! lengths, and how to write them (for the emulator).

use serde::{Deserialize, Serialize};

use crate::clock::ClockMessage;

pub const BOARD_DUMP: u8 = 0x86;
pub const BWTIME: u8 = 0x8D;
pub const FIELD_UPDATE: u8 = 0x8E;
pub const EE_MOVES: u8 = 0x8F;
pub const BUSADRES: u8 = 0x90;
pub const SERIALNR: u8 = 0x91;
pub const TRADEMARK: u8 = 0x92;
pub const VERSION: u8 = 0x93;
pub const BOARD_DUMP_50B: u8 = 0x94;
pub const BOARD_DUMP_50W: u8 = 0x95;
pub const BATTERY_STATUS: u8 = 0xA0;
pub const LONG_SERIALNR: u8 = 0xA2;

/// The largest length field the header can carry (14 bits).
pub const MAX_LEN: usize = (1 << 14) - 1;

/// Allowed total lengths (header included) per message id; `None` for an unknown id.
/// A per-id bound (rather than one global maximum) lets the long EE dump and trademark
/// through while a corrupted length on a short message resynchronises at once.
pub fn length_bounds(id: u8) -> Option<(usize, usize)> {
    Some(match id {
        BOARD_DUMP => (67, 67),
        BWTIME => (10, 10),
        FIELD_UPDATE => (5, 5),
        EE_MOVES => (3, MAX_LEN),
        BUSADRES => (5, 5),
        // 8 in the 2012+ header, 12 in v1.03 (digits, space, "1.0").
        SERIALNR => (8, 12),
        TRADEMARK => (3, 2048),
        VERSION => (5, 5),
        BOARD_DUMP_50B | BOARD_DUMP_50W => (53, 53),
        // The header's constant says 7, its layout 9 data bytes (12).
        BATTERY_STATUS => (7, 16),
        LONG_SERIALNR => (13, 13),
        _ => return None,
    })
}

/// Battery report of a Bluetooth board (0xA0).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BatteryStatus {
    /// Capacity left in percent, when reported.
    pub percent: Option<u8>,
    pub charging: bool,
    pub raw: Vec<u8>,
}

/// A decoded board→host message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BoardMessage {
    /// 0x86: 64 piece codes, square 0 (a8 in normal orientation) first. Raw bytes are kept;
    /// see [`crate::DgtPiece::from_code`].
    BoardDump(Box<[u8; 64]>),
    /// 0x8E: one square changed; piece 0 means it was emptied.
    FieldUpdate { square: u8, piece: u8 },
    /// 0x8D: clock times or a clock ack.
    Clock(ClockMessage),
    /// 0x8F: the EEPROM log (see [`crate::eeprom`]).
    EeMoves(Vec<u8>),
    /// 0x90: the bus address, 14 bits.
    BusAddress(u16),
    /// 0x91: the 5-digit serial number.
    SerialNumber(String),
    /// 0xA2: the 10-character long serial number.
    LongSerialNumber(String),
    /// 0x93: firmware version, e.g. (1, 8) or (3, 10).
    Version { major: u8, minor: u8 },
    /// 0x92: free text.
    Trademark(String),
    /// 0xA0: Bluetooth boards only.
    Battery(BatteryStatus),
    /// Draughts dumps and anything else we frame correctly but do not use.
    Other { id: u8, data: Vec<u8> },
}

fn ascii(data: &[u8]) -> String {
    data.iter()
        .map(|&b| {
            if (0x20..0x7F).contains(&b) || b == b'\n' || b == b'\r' {
                b as char
            } else {
                '?'
            }
        })
        .collect()
}

impl BoardMessage {
    /// Gives meaning to a framed message. The framer guarantees the length bounds of
    /// [`length_bounds`], so fixed-size reads below cannot fail; anything unexpected becomes
    /// [`BoardMessage::Other`].
    pub fn from_frame(id: u8, data: &[u8]) -> Self {
        match (id, data.len()) {
            (BOARD_DUMP, 64) => {
                let mut sq = [0u8; 64];
                sq.copy_from_slice(data);
                BoardMessage::BoardDump(Box::new(sq))
            }
            (FIELD_UPDATE, 2) => BoardMessage::FieldUpdate {
                square: data[0],
                piece: data[1],
            },
            (BWTIME, 7) => {
                let mut d = [0u8; 7];
                d.copy_from_slice(data);
                BoardMessage::Clock(ClockMessage::decode(&d))
            }
            (EE_MOVES, _) => BoardMessage::EeMoves(data.to_vec()),
            (BUSADRES, 2) => BoardMessage::BusAddress(((data[0] as u16) << 7) | data[1] as u16),
            // §3.5: five ASCII decimal digits. Anything else (a newline, a quote) would reach
            // board labels, PGN tags and logs: it is not a serial number.
            (SERIALNR, n) if n >= 5 && data[..5].iter().all(u8::is_ascii_digit) => {
                BoardMessage::SerialNumber(ascii(&data[..5]))
            }
            // §3.5: ten ASCII characters, digits and the firmware version's dot ("3.25…").
            (LONG_SERIALNR, 10) if data.iter().all(|b| b.is_ascii_alphanumeric() || *b == b'.') => {
                BoardMessage::LongSerialNumber(ascii(data))
            }
            (VERSION, 2) => BoardMessage::Version {
                major: data[0],
                minor: data[1],
            },
            (TRADEMARK, _) => BoardMessage::Trademark(ascii(data)),
            (BATTERY_STATUS, n) => BoardMessage::Battery(BatteryStatus {
                percent: (n >= 1 && data[0] <= 100).then(|| data[0]),
                charging: n >= 9 && data[8] & 0x01 != 0,
                raw: data.to_vec(),
            }),
            _ => BoardMessage::Other {
                id,
                data: data.to_vec(),
            },
        }
    }

    /// The message id and data bytes of this message, as a board sends them.
    pub fn id_and_data(&self) -> (u8, Vec<u8>) {
        match self {
            BoardMessage::BoardDump(sq) => (BOARD_DUMP, sq.to_vec()),
            BoardMessage::FieldUpdate { square, piece } => (FIELD_UPDATE, vec![*square, *piece]),
            BoardMessage::Clock(c) => (BWTIME, c.to_bytes().to_vec()),
            BoardMessage::EeMoves(d) => (EE_MOVES, d.clone()),
            BoardMessage::BusAddress(a) => (BUSADRES, vec![(a >> 7) as u8 & 0x7F, *a as u8 & 0x7F]),
            BoardMessage::SerialNumber(s) => (SERIALNR, s.bytes().take(5).collect()),
            BoardMessage::LongSerialNumber(s) => (LONG_SERIALNR, s.bytes().take(10).collect()),
            BoardMessage::Version { major, minor } => (VERSION, vec![*major, *minor]),
            BoardMessage::Trademark(t) => (TRADEMARK, t.bytes().collect()),
            BoardMessage::Battery(b) => (BATTERY_STATUS, b.raw.clone()),
            BoardMessage::Other { id, data } => (*id, data.clone()),
        }
    }

    /// The whole message on the wire: `id, len_hi7, len_lo7, data…`.
    pub fn encode(&self) -> Vec<u8> {
        let (id, data) = self.id_and_data();
        frame(id, &data)
    }
}

/// Frames data bytes with a single-board header (the length counts the 3 header bytes).
pub fn frame(id: u8, data: &[u8]) -> Vec<u8> {
    let len = data.len() + 3;
    let mut out = Vec::with_capacity(len);
    out.push(id | 0x80);
    out.push(((len >> 7) & 0x7F) as u8);
    out.push((len & 0x7F) as u8);
    out.extend(data.iter().map(|b| b & 0x7F));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_update_bytes() {
        let m = BoardMessage::FieldUpdate {
            square: 52,
            piece: 0,
        };
        assert_eq!(m.encode(), vec![0x8E, 0x00, 0x05, 0x34, 0x00]);
    }

    #[test]
    fn serial_numbers_of_both_header_versions() {
        assert_eq!(
            BoardMessage::from_frame(SERIALNR, b"13116"),
            BoardMessage::SerialNumber("13116".into())
        );
        assert_eq!(
            BoardMessage::from_frame(SERIALNR, b"00137 1.0"),
            BoardMessage::SerialNumber("00137".into())
        );
    }

    #[test]
    fn serial_numbers_hold_only_what_the_protocol_allows() {
        for bad in [&b"13\n16"[..], b"1311\"", b"ab cd", b"1311\x7f"] {
            assert!(
                matches!(
                    BoardMessage::from_frame(SERIALNR, bad),
                    BoardMessage::Other { id: SERIALNR, .. }
                ),
                "{bad:?}"
            );
        }
        assert_eq!(
            BoardMessage::from_frame(LONG_SERIALNR, b"3.36012345"),
            BoardMessage::LongSerialNumber("3.36012345".into())
        );
        assert!(matches!(
            BoardMessage::from_frame(LONG_SERIALNR, b"3.36\r\n[Ev\""),
            BoardMessage::Other { .. }
        ));
    }

    #[test]
    fn ee_dump_length_is_fourteen_bits() {
        let data = vec![0x7F; 0x1F00];
        let bytes = BoardMessage::EeMoves(data).encode();
        assert_eq!(&bytes[..3], &[0x8F, 0x3E, 0x03]);
    }
}
