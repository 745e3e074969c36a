//! Host→board commands (protocol §2) as typed values.
//!
//! The daemon only ever encodes the read-only ones; [`Command::is_safe_during_a_game`] says
//! which. The boot loader (0x4E) is deliberately absent: no value of this type encodes it,
//! and the emulator treats the byte as unknown. Clock-setting frames (SetNRun, display,
//! icons) are decoded so the emulator can answer them, but the daemon never sends them.

use serde::{Deserialize, Serialize};

use crate::bus::BusCommand;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Command {
    /// 0x40: to IDLE, cancels update modes.
    Reset,
    /// 0x41: one clock message.
    SendClock,
    /// 0x42: one board dump.
    SendBoard,
    /// 0x43: field updates and clock messages at least every second.
    SendUpdate,
    /// 0x44: field updates only.
    SendUpdateBoard,
    /// 0x45: serial number.
    ReturnSerialNr,
    /// 0x46: bus address.
    ReturnBusAddress,
    /// 0x47: trademark text.
    SendTrademark,
    /// 0x49: the EEPROM log (~8 s at 9600 baud).
    SendEeMoves,
    /// 0x4A: switch the line to bus mode.
    ToBusMode,
    /// 0x4B: field updates, clock messages only when a value changed.
    SendUpdateNice,
    /// 0x4C: battery status (Bluetooth boards).
    SendBatteryStatus,
    /// 0x4D: firmware version.
    SendVersion,
    /// 0x55: long serial number.
    ReturnLongSerialNr,
    /// A clock command wrapped in 0x2B: `2B size 03 cmd content… 00`.
    Clock(ClockCommand),
    /// 0x60: Revelation II LEDs, raw content.
    SetLeds(Vec<u8>),
    /// A bus-mode command.
    Bus(BusCommand),
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum ClockCommand {
    /// 0x01, 0x02, 0x0C, 0x0D: display, icons, ASCII text — they change the display.
    Display {
        cmd: u8,
        content: Vec<u8>,
    },
    /// 0x03: back to the time display.
    End,
    /// 0x08: ask for the button state.
    Button,
    /// 0x09: ask for the clock version.
    Version,
    /// 0x0A: set both times and the run state. **Never sent by the daemon during a game.**
    SetAndRun {
        left_ms: u64,
        right_ms: u64,
        flags: u8,
    },
    /// 0x0B: beep for n × 64 ms.
    Beep(u8),
    Other {
        cmd: u8,
        content: Vec<u8>,
    },
}

impl ClockCommand {
    pub fn code(&self) -> u8 {
        match self {
            ClockCommand::Display { cmd, .. } | ClockCommand::Other { cmd, .. } => *cmd,
            ClockCommand::End => 0x03,
            ClockCommand::Button => 0x08,
            ClockCommand::Version => 0x09,
            ClockCommand::SetAndRun { .. } => 0x0A,
            ClockCommand::Beep(_) => 0x0B,
        }
    }

    fn content(&self) -> Vec<u8> {
        match self {
            ClockCommand::Display { content, .. } | ClockCommand::Other { content, .. } => {
                content.clone()
            }
            ClockCommand::End | ClockCommand::Button | ClockCommand::Version => vec![],
            // h/m/s are plain binary (every implementation agrees, protocol §2.2).
            ClockCommand::SetAndRun {
                left_ms,
                right_ms,
                flags,
            } => {
                let hms = |ms: u64| {
                    let s = ms / 1000;
                    [
                        (s / 3600).min(9) as u8,
                        ((s / 60) % 60) as u8,
                        (s % 60) as u8,
                    ]
                };
                let mut v = hms(*left_ms).to_vec();
                v.extend(hms(*right_ms));
                v.push(*flags);
                v
            }
            ClockCommand::Beep(n) => vec![*n],
        }
    }

    fn from_parts(cmd: u8, content: &[u8]) -> Self {
        match (cmd, content.len()) {
            (0x01 | 0x02 | 0x0C | 0x0D, _) => ClockCommand::Display {
                cmd,
                content: content.to_vec(),
            },
            (0x03, _) => ClockCommand::End,
            (0x08, _) => ClockCommand::Button,
            (0x09, _) => ClockCommand::Version,
            (0x0A, 7) => {
                let ms = |c: &[u8]| {
                    ((c[0] & 0x0F) as u64 * 3600 + c[1] as u64 * 60 + c[2] as u64) * 1000
                };
                ClockCommand::SetAndRun {
                    left_ms: ms(&content[0..3]),
                    right_ms: ms(&content[3..6]),
                    flags: content[6],
                }
            }
            (0x0B, 1) => ClockCommand::Beep(content[0]),
            _ => ClockCommand::Other {
                cmd,
                content: content.to_vec(),
            },
        }
    }
}

impl Command {
    /// The bytes to write to the line.
    pub fn encode(&self) -> Vec<u8> {
        use Command::*;
        let single = |b: u8| vec![b];
        match self {
            Reset => single(0x40),
            SendClock => single(0x41),
            SendBoard => single(0x42),
            SendUpdate => single(0x43),
            SendUpdateBoard => single(0x44),
            ReturnSerialNr => single(0x45),
            ReturnBusAddress => single(0x46),
            SendTrademark => single(0x47),
            SendEeMoves => single(0x49),
            ToBusMode => single(0x4A),
            SendUpdateNice => single(0x4B),
            SendBatteryStatus => single(0x4C),
            SendVersion => single(0x4D),
            ReturnLongSerialNr => single(0x55),
            Clock(c) => {
                let content = c.content();
                // SIZE counts everything after the SIZE byte: 03, cmd, content, 00.
                let mut v = vec![0x2B, (content.len() + 3) as u8, 0x03, c.code()];
                v.extend(content);
                v.push(0x00);
                v
            }
            SetLeds(content) => {
                let mut v = vec![0x60, content.len() as u8 + 1];
                v.extend(content);
                v.push(0x00);
                v
            }
            Bus(b) => b.encode().to_vec(),
        }
    }

    /// Read-only commands that change nothing on the board or clock a game depends on.
    /// SendEeMoves is read-only too but blocks the line for ~8 s; it is allowed, deliberately.
    pub fn is_safe_during_a_game(&self) -> bool {
        use Command::*;
        match self {
            Reset | SendClock | SendBoard | SendUpdate | SendUpdateBoard | ReturnSerialNr
            | ReturnBusAddress | SendTrademark | SendEeMoves | ToBusMode | SendUpdateNice
            | SendBatteryStatus | SendVersion | ReturnLongSerialNr => true,
            Clock(ClockCommand::Version | ClockCommand::Button) => true,
            Clock(_) | SetLeds(_) => false,
            Bus(_) => true,
        }
    }
}

/// Decodes the host→board byte stream (the emulator's side of the line).
#[derive(Debug, Default)]
pub struct CommandDecoder {
    buf: Vec<u8>,
}

/// One item of the host→board stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HostBytes {
    Command(Command),
    /// A byte no board understands (the boot loader 0x4E lands here on purpose).
    Unknown(u8),
}

impl CommandDecoder {
    pub fn decode(&mut self, bytes: &[u8]) -> Vec<HostBytes> {
        self.buf.extend_from_slice(bytes);
        let mut out = Vec::new();
        while let Some(&b) = self.buf.first() {
            let consumed = match b {
                0x40..=0x47 | 0x49..=0x4D | 0x55 => {
                    use Command::*;
                    out.push(HostBytes::Command(match b {
                        0x40 => Reset,
                        0x41 => SendClock,
                        0x42 => SendBoard,
                        0x43 => SendUpdate,
                        0x44 => SendUpdateBoard,
                        0x45 => ReturnSerialNr,
                        0x46 => ReturnBusAddress,
                        0x47 => SendTrademark,
                        0x49 => SendEeMoves,
                        0x4A => ToBusMode,
                        0x4B => SendUpdateNice,
                        0x4C => SendBatteryStatus,
                        0x4D => SendVersion,
                        _ => ReturnLongSerialNr,
                    }));
                    1
                }
                0x2B | 0x60 => {
                    let Some(&size) = self.buf.get(1) else { break };
                    let total = size as usize + 2;
                    if self.buf.len() < total {
                        break;
                    }
                    if b == 0x2B && size >= 3 && self.buf[2] == 0x03 {
                        let cmd = self.buf[3];
                        let content = &self.buf[4..total - 1];
                        out.push(HostBytes::Command(Command::Clock(
                            ClockCommand::from_parts(cmd, content),
                        )));
                    } else if b == 0x60 && size >= 1 {
                        out.push(HostBytes::Command(Command::SetLeds(
                            self.buf[2..total - 1].to_vec(),
                        )));
                    } else {
                        out.push(HostBytes::Unknown(b));
                        self.buf.remove(0);
                        continue;
                    }
                    total
                }
                0x80..=0xFF => {
                    if self.buf.len() < 4 {
                        break;
                    }
                    let f = [self.buf[0], self.buf[1], self.buf[2], self.buf[3]];
                    match BusCommand::decode(&f) {
                        Some(c) => {
                            out.push(HostBytes::Command(Command::Bus(c)));
                            4
                        }
                        None => {
                            out.push(HostBytes::Unknown(b));
                            1
                        }
                    }
                }
                _ => {
                    out.push(HostBytes::Unknown(b));
                    1
                }
            };
            self.buf.drain(..consumed);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bus::BusCommandKind;

    #[test]
    fn clock_version_request_bytes() {
        assert_eq!(
            Command::Clock(ClockCommand::Version).encode(),
            vec![0x2B, 0x03, 0x03, 0x09, 0x00]
        );
    }

    #[test]
    fn set_and_run_matches_the_spec_example() {
        // left 1:30:00 running, right 1:30:00: 2B 0A 03 0A 01 1E 00 01 1E 00 01 00
        let c = Command::Clock(ClockCommand::SetAndRun {
            left_ms: 5_400_000,
            right_ms: 5_400_000,
            flags: 0x01,
        });
        let bytes = c.encode();
        assert_eq!(
            bytes,
            vec![
                0x2B, 0x0A, 0x03, 0x0A, 0x01, 0x1E, 0x00, 0x01, 0x1E, 0x00, 0x01, 0x00
            ]
        );
        assert!(!c.is_safe_during_a_game());
        let mut d = CommandDecoder::default();
        assert_eq!(d.decode(&bytes), vec![HostBytes::Command(c)]);
    }

    #[test]
    fn decoder_splits_a_mixed_stream_and_refuses_the_boot_loader() {
        let mut stream = vec![0x4B, 0x4E, 0x42];
        stream.extend(Command::Clock(ClockCommand::Version).encode());
        stream.extend(
            Command::Bus(BusCommand {
                kind: BusCommandKind::Ping,
                address: 0,
            })
            .encode(),
        );
        let mut d = CommandDecoder::default();
        let mut out = Vec::new();
        for b in stream {
            out.extend(d.decode(&[b]));
        }
        assert_eq!(
            out,
            vec![
                HostBytes::Command(Command::SendUpdateNice),
                HostBytes::Unknown(0x4E),
                HostBytes::Command(Command::SendBoard),
                HostBytes::Command(Command::Clock(ClockCommand::Version)),
                HostBytes::Command(Command::Bus(BusCommand {
                    kind: BusCommandKind::Ping,
                    address: 0
                })),
            ]
        );
    }
}
