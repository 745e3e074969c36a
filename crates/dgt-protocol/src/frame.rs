//! An incremental framer for board→host bytes (protocol §3.1, §3.7).
//!
//! It accepts any chunking, never panics, and resynchronises after garbage the way the robust
//! implementations do: a message starts only at a byte with the MSB set and a known id; a
//! length outside that id's bounds drops the start byte; a byte with the MSB set inside a
//! message abandons the message and parsing restarts at that byte. Since every byte of a
//! valid message after its first is below 0x80, a valid message that follows garbage is
//! always recovered whole.

use std::collections::VecDeque;

use crate::bus::{self, BusReply};
use crate::message::{self, BoardMessage};

/// Which framing the line speaks. Bus replies use their own ids, and 0x86 means BOARD_DUMP
/// in single-board mode but BUS_FROM_START in bus mode, so the framer must be told.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub enum LineMode {
    #[default]
    Single,
    Bus,
}

/// One item out of the framer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decoded {
    Message(BoardMessage),
    Bus(BusReply),
    /// A complete bus frame whose checksum did not match (ask REPEAT_CHANGES, never
    /// SEND_CHANGES, which would discard data).
    BadChecksum {
        id: u8,
        address: u16,
    },
    /// Bytes that belong to no message.
    Garbage(Vec<u8>),
}

/// Garbage held at most before it is reported: a device sending endless noise (another
/// device's protocol, a broken board) must not grow the decoder without bound. Past this
/// the held bytes go out as one [`Decoded::Garbage`] at once.
pub const GARBAGE_MAX: usize = 4096;

#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct Decoder {
    mode: LineMode,
    buf: Vec<u8>,
    garbage: Vec<u8>,
    /// Not saved: whoever feeds the decoder takes every decoded message before the next
    /// push, so a saved decoder (a core snapshot) holds only the bytes not yet framed.
    #[serde(skip)]
    out: VecDeque<Decoded>,
}

impl Decoder {
    pub fn new(mode: LineMode) -> Self {
        Decoder {
            mode,
            ..Default::default()
        }
    }

    pub fn mode(&self) -> LineMode {
        self.mode
    }

    /// Switches framing (after the host sent 0x4A or a single-board command). Bytes of a
    /// message in progress are kept and re-read under the new framing.
    pub fn set_mode(&mut self, mode: LineMode) {
        self.mode = mode;
    }

    /// Feeds bytes, in any chunking.
    pub fn push(&mut self, bytes: &[u8]) {
        self.buf.extend_from_slice(bytes);
        self.parse();
    }

    /// The next decoded item, if one is complete.
    pub fn next_decoded(&mut self) -> Option<Decoded> {
        self.out.pop_front()
    }

    /// Feeds bytes and returns everything that became complete.
    pub fn decode(&mut self, bytes: &[u8]) -> Vec<Decoded> {
        self.push(bytes);
        self.out.drain(..).collect()
    }

    /// Bytes held for a message not yet complete.
    pub fn pending(&self) -> usize {
        self.buf.len()
    }

    /// Gives up on a message in progress (e.g. the line went silent) and reports what is
    /// held as garbage.
    pub fn flush(&mut self) -> Vec<Decoded> {
        let rest = std::mem::take(&mut self.buf);
        self.garbage.extend(rest);
        self.emit_garbage();
        self.out.drain(..).collect()
    }

    fn bounds(&self, id: u8) -> Option<(usize, usize)> {
        match self.mode {
            LineMode::Single => message::length_bounds(id),
            LineMode::Bus => bus::length_bounds(id),
        }
    }

    fn emit_garbage(&mut self) {
        if !self.garbage.is_empty() {
            let g = std::mem::take(&mut self.garbage);
            self.out.push_back(Decoded::Garbage(g));
        }
    }

    fn drop_bytes(&mut self, n: usize) {
        self.garbage.extend(self.buf.drain(..n));
        if self.garbage.len() >= GARBAGE_MAX {
            self.emit_garbage();
        }
    }

    fn parse(&mut self) {
        loop {
            // 1. A message starts at a byte with the MSB set and a known id.
            let start = self
                .buf
                .iter()
                .position(|&b| b & 0x80 != 0 && self.bounds(b).is_some());
            match start {
                None => {
                    let n = self.buf.len();
                    self.drop_bytes(n);
                    return;
                }
                Some(0) => {}
                Some(i) => self.drop_bytes(i),
            }
            let id = self.buf[0];
            let (min, max) = self.bounds(id).unwrap_or((usize::MAX, 0));
            // 2. Any later byte with the MSB set ends this candidate: restart there.
            if let Some(j) = self.buf[1..].iter().position(|&b| b & 0x80 != 0) {
                let j = j + 1;
                if j < 3 || j < self.expected_len().unwrap_or(usize::MAX) {
                    self.drop_bytes(j);
                    continue;
                }
            }
            if self.buf.len() < 3 {
                return;
            }
            let len = ((self.buf[1] as usize) << 7) | self.buf[2] as usize;
            if len < min || len > max {
                self.drop_bytes(1);
                continue;
            }
            if self.buf.len() < len {
                return;
            }
            self.emit_garbage();
            // Read in place, then dropped from the buffer (no copy of the frame).
            let frame = &self.buf[..len];
            let item = match self.mode {
                LineMode::Single => Decoded::Message(BoardMessage::from_frame(id, &frame[3..])),
                LineMode::Bus => {
                    let address = ((frame[3] as u16) << 7) | frame[4] as u16;
                    if bus::checksum(&frame[..len - 1]) != frame[len - 1] {
                        Decoded::BadChecksum { id, address }
                    } else {
                        Decoded::Bus(BusReply::from_frame(id, address, &frame[5..len - 1]))
                    }
                }
            };
            self.buf.drain(..len);
            self.out.push_back(item);
        }
    }

    fn expected_len(&self) -> Option<usize> {
        (self.buf.len() >= 3).then(|| ((self.buf[1] as usize) << 7) | self.buf[2] as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bus::BusReplyKind;
    use crate::clock::ClockMessage;

    fn messages(items: &[Decoded]) -> Vec<BoardMessage> {
        items
            .iter()
            .filter_map(|d| match d {
                Decoded::Message(m) => Some(m.clone()),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn endless_noise_is_reported_in_bounded_pieces() {
        let mut d = Decoder::default();
        let mut reported = 0;
        // 1 MiB of bytes below 0x80: no message can ever start in them.
        for _ in 0..256 {
            for item in d.decode(&[0x41; 4096]) {
                match item {
                    Decoded::Garbage(g) => {
                        assert!(g.len() <= GARBAGE_MAX + 4096);
                        reported += g.len();
                    }
                    other => panic!("{other:?}"),
                }
            }
            assert!(d.garbage.len() < GARBAGE_MAX && d.pending() < GARBAGE_MAX);
        }
        assert_eq!(reported, 256 * 4096);
        // A message after the noise is still decoded whole.
        let items = d.decode(&hex("8e000534008e00052401"));
        assert_eq!(messages(&items).len(), 2);
    }

    #[test]
    fn byte_by_byte_equals_whole() {
        let bytes = hex("8d000a200302200302098e000534008e00052401");
        let mut a = Decoder::default();
        let whole = a.decode(&bytes);
        let mut b = Decoder::default();
        let mut parts = Vec::new();
        for x in &bytes {
            parts.extend(b.decode(&[*x]));
        }
        assert_eq!(whole, parts);
        assert_eq!(whole.len(), 3);
        assert!(matches!(
            whole[0],
            Decoded::Message(BoardMessage::Clock(ClockMessage::Times(_)))
        ));
    }

    #[test]
    fn resynchronises_inside_a_broken_message() {
        // A field update cut short by the start of another one.
        let bytes = hex("8e0005348e00052401");
        let out = Decoder::default().decode(&bytes);
        assert_eq!(out[0], Decoded::Garbage(hex("8e000534")));
        assert_eq!(
            messages(&out),
            vec![BoardMessage::FieldUpdate {
                square: 0x24,
                piece: 1
            }]
        );
    }

    #[test]
    fn bad_length_drops_only_the_start_byte() {
        let bytes = hex("8e00068e00052401");
        let out = Decoder::default().decode(&bytes);
        assert_eq!(messages(&out).len(), 1);
    }

    #[test]
    fn bus_frames_check_their_checksum() {
        let reply = BusReply {
            address: 1025,
            kind: BusReplyKind::Ping,
        };
        let mut bytes = reply.encode();
        let mut d = Decoder::new(LineMode::Bus);
        assert_eq!(d.decode(&bytes), vec![Decoded::Bus(reply)]);
        bytes[5] ^= 1;
        assert_eq!(
            d.decode(&bytes),
            vec![Decoded::BadChecksum {
                id: 0x87,
                address: 1025
            }]
        );
    }

    fn hex(s: &str) -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }
}
