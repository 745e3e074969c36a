//! Who is on the line: the port task decodes the board's first replies itself to learn its
//! serial number (the `0x91` answer to `0x45`, protocol §3.5), so the core sees one label per
//! board wherever it is plugged in — `board-<serial>`, or the table label the settings map
//! the serial to.

use std::collections::BTreeMap;
use std::path::Path;

use dgt_protocol::{BoardMessage, Decoded, Decoder, LineMode};

/// The label of a board known by its serial number.
pub fn label_for_serial(serial: &str, labels: &BTreeMap<String, String>) -> String {
    labels
        .get(serial)
        .cloned()
        .unwrap_or_else(|| format!("board-{serial}"))
}

/// The label of a board that never told its serial number: from the port's name
/// (`/dev/ttyACM0` → `board-ttyACM0`, `/dev/pts/4` → `board-pts-4`).
pub fn label_for_port(path: &Path) -> String {
    let text = path.to_string_lossy();
    let name = text.strip_prefix("/dev/").unwrap_or(&text);
    let name: String = name
        .trim_matches('/')
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '-'
            }
        })
        .collect();
    format!("board-{name}")
}

/// Watches the received bytes for the board's serial number.
#[derive(Debug, Default)]
pub struct Identifier {
    decoder: Decoder,
    serial: Option<String>,
    heard_dgt: bool,
    /// Pieces of noise that filled the decoder's garbage cap ([`dgt_protocol::frame::GARBAGE_MAX`]).
    noise_pieces: u64,
}

impl Identifier {
    pub fn new() -> Self {
        Identifier {
            decoder: Decoder::new(LineMode::Single),
            ..Default::default()
        }
    }

    /// Feeds received bytes; returns the serial number when one arrives in them.
    pub fn feed(&mut self, bytes: &[u8]) -> Option<String> {
        let mut found = None;
        for item in self.decoder.decode(bytes) {
            match item {
                Decoded::Message(BoardMessage::SerialNumber(s)) => {
                    self.heard_dgt = true;
                    self.serial = Some(s.clone());
                    found = Some(s);
                }
                Decoded::Message(_) => self.heard_dgt = true,
                Decoded::Garbage(g) if g.len() >= dgt_protocol::frame::GARBAGE_MAX => {
                    self.noise_pieces += 1;
                }
                _ => {}
            }
        }
        found
    }

    /// How many times the line's noise filled the decoder's garbage cap: another device's
    /// protocol or a failing board.
    pub fn noise_pieces(&self) -> u64 {
        self.noise_pieces
    }

    /// The last serial number the board reported.
    pub fn serial(&self) -> Option<&str> {
        self.serial.as_deref()
    }

    /// Whether anything on the line decoded as a DGT message: a port that never produced
    /// one is not a board (or not a powered one) and is not reported to the core.
    pub fn heard_dgt(&self) -> bool {
        self.heard_dgt
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_from_serials_and_ports() {
        let mut table = BTreeMap::new();
        table.insert("13116".to_string(), "table-1".to_string());
        assert_eq!(label_for_serial("13116", &table), "table-1");
        assert_eq!(label_for_serial("00137", &table), "board-00137");
        assert_eq!(label_for_port(Path::new("/dev/ttyACM0")), "board-ttyACM0");
        assert_eq!(label_for_port(Path::new("/dev/pts/4")), "board-pts-4");
    }

    #[test]
    fn endless_noise_is_counted_in_pieces_of_the_cap() {
        let mut id = Identifier::new();
        // Read as the port task reads: 1 KiB at a time.
        let noise = vec![0x24u8; dgt_protocol::frame::GARBAGE_MAX * 3];
        for chunk in noise.chunks(1024) {
            assert_eq!(id.feed(chunk), None);
        }
        assert_eq!(id.noise_pieces(), 3);
        assert!(!id.heard_dgt());
    }

    #[test]
    fn learns_the_serial_from_split_chunks() {
        let mut id = Identifier::new();
        let mut bytes = BoardMessage::Version { major: 1, minor: 8 }.encode();
        bytes.extend(BoardMessage::SerialNumber("24680".into()).encode());
        let (a, b) = bytes.split_at(7);
        assert_eq!(id.feed(a), None);
        assert!(id.heard_dgt());
        assert_eq!(id.feed(b).as_deref(), Some("24680"));
        assert_eq!(id.serial(), Some("24680"));
    }

    #[test]
    fn noise_is_not_a_board() {
        let mut id = Identifier::new();
        assert_eq!(id.feed(b"AT\r\nOK\r\n"), None);
        assert!(!id.heard_dgt());
    }
}
