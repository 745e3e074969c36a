//! The board's own log (`DGT_MSG_EE_MOVES`, and the payload of bus UPDATE / FROM_START):
//! a cyclic buffer of field changes and lever-press clock times (protocol §3.6).

use serde::{Deserialize, Serialize};

use crate::piece::{DgtPiece, PhysicalSquare};

/// One entry of the log, oldest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum EeEntry {
    /// A square changed. `fast` is the r bit: less than ~250 ms since the previous field tag.
    Field {
        square: PhysicalSquare,
        piece: DgtPiece,
        fast: bool,
    },
    /// The time of the clock that just stopped, written at a lever press. `left` is the
    /// display (never swapped when the board is turned).
    LeverPress {
        left: bool,
        seconds: u32,
    },
    PowerUp,
    /// End of the dump.
    Eof,
    /// 16 pieces on ranks 1, 2, 7, 8 that are not the normal start position.
    FourRows,
    EmptyBoard,
    Downloaded,
    /// Start position with the connector on White's left.
    BeginPos,
    /// Start position rotated (connector on White's right).
    BeginPosRotated,
    StartTag,
    Watchdog,
    Nop,
    /// A byte that starts no known entry, or an entry cut short at the end of the data.
    Unknown(u8),
}

fn bcd(b: u8) -> u32 {
    ((b >> 4) & 0x07) as u32 * 10 + (b & 0x0F) as u32
}

/// Parses an EE-format byte stream. Never panics; unknown bytes become [`EeEntry::Unknown`].
pub fn parse_ee_log(data: &[u8]) -> Vec<EeEntry> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < data.len() {
        let b = data[i];
        match b {
            0x40..=0x5F => {
                let Some(&sq) = data.get(i + 1) else {
                    out.push(EeEntry::Unknown(b));
                    break;
                };
                match PhysicalSquare::new(sq) {
                    Some(square) => out.push(EeEntry::Field {
                        square,
                        piece: DgtPiece::from_code(b & 0x0F),
                        fast: b & 0x10 != 0,
                    }),
                    None => out.push(EeEntry::Unknown(b)),
                }
                i += 2;
            }
            0x60..=0x69 | 0x70..=0x79 => {
                if i + 2 >= data.len() {
                    out.push(EeEntry::Unknown(b));
                    break;
                }
                let hours = (b & 0x0F) as u32;
                let seconds = hours * 3600 + bcd(data[i + 1]) * 60 + bcd(data[i + 2]);
                out.push(EeEntry::LeverPress {
                    left: b & 0x10 != 0,
                    seconds,
                });
                i += 3;
            }
            _ => {
                out.push(match b {
                    0x6A => EeEntry::PowerUp,
                    0x6B => EeEntry::Eof,
                    0x6C => EeEntry::FourRows,
                    0x6D => EeEntry::EmptyBoard,
                    0x6E => EeEntry::Downloaded,
                    0x6F => EeEntry::BeginPos,
                    0x7A => EeEntry::BeginPosRotated,
                    0x7B => EeEntry::StartTag,
                    0x7C => EeEntry::Watchdog,
                    0x7F | 0x00 => EeEntry::Nop,
                    other => EeEntry::Unknown(other),
                });
                i += 1;
            }
        }
    }
    out
}

/// Encodes entries back into EE format (used by the emulator's memory).
pub fn encode_ee_log(entries: &[EeEntry]) -> Vec<u8> {
    let mut out = Vec::new();
    for e in entries {
        match *e {
            EeEntry::Field {
                square,
                piece,
                fast,
            } => {
                out.push(0x40 | if fast { 0x10 } else { 0 } | piece.code());
                out.push(square.index());
            }
            EeEntry::LeverPress { left, seconds } => {
                let h = (seconds / 3600).min(9) as u8;
                let m = (seconds / 60) % 60;
                let s = seconds % 60;
                out.push(0x60 | if left { 0x10 } else { 0 } | h);
                out.push((((m / 10) as u8) << 4) | (m % 10) as u8);
                out.push((((s / 10) as u8) << 4) | (s % 10) as u8);
            }
            EeEntry::PowerUp => out.push(0x6A),
            EeEntry::Eof => out.push(0x6B),
            EeEntry::FourRows => out.push(0x6C),
            EeEntry::EmptyBoard => out.push(0x6D),
            EeEntry::Downloaded => out.push(0x6E),
            EeEntry::BeginPos => out.push(0x6F),
            EeEntry::BeginPosRotated => out.push(0x7A),
            EeEntry::StartTag => out.push(0x7B),
            EeEntry::Watchdog => out.push(0x7C),
            EeEntry::Nop => out.push(0x7F),
            EeEntry::Unknown(b) => out.push(b & 0x7F),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_fields_presses_and_tags() {
        // power-up, e2 lifted (square 52), e4 white pawn (36) fast, left clock at 0:02:59, EOF
        let data = [0x6A, 0x40, 52, 0x51, 36, 0x70, 0x02, 0x59, 0x6B];
        let log = parse_ee_log(&data);
        assert_eq!(
            log,
            vec![
                EeEntry::PowerUp,
                EeEntry::Field {
                    square: PhysicalSquare::new(52).unwrap(),
                    piece: DgtPiece::Empty,
                    fast: false
                },
                EeEntry::Field {
                    square: PhysicalSquare::new(36).unwrap(),
                    piece: DgtPiece::WhitePawn,
                    fast: true
                },
                EeEntry::LeverPress {
                    left: true,
                    seconds: 179
                },
                EeEntry::Eof
            ]
        );
        assert_eq!(encode_ee_log(&log), data);
    }

    #[test]
    fn truncated_entries_do_not_panic() {
        assert_eq!(parse_ee_log(&[0x45]), vec![EeEntry::Unknown(0x45)]);
        assert_eq!(parse_ee_log(&[0x61, 0x01]), vec![EeEntry::Unknown(0x61)]);
        assert_eq!(parse_ee_log(&[0x41, 99]), vec![EeEntry::Unknown(0x41)]);
    }
}
