//! The board's EEPROM log (protocol §3.6): a cyclic buffer of 0x1F00 bytes holding every
//! field change (with the r bit for changes < ~250 ms apart), the stopped clock's time at
//! every lever press, power-up, begin-position and start tags. It feeds `EE_MOVES` (0x8F)
//! and the bus replies UPDATE (0x85) and FROM_START (0x86).

use std::collections::VecDeque;

use dgt_protocol::eeprom::encode_ee_log;
use dgt_protocol::{DgtPiece, EeEntry, PhysicalSquare};

/// Size of the cyclic buffer and of the EE_MOVES dump's data (`0x2000 − 0x100`).
pub const EE_SIZE: usize = 0x1F00;

/// r bit: less than about 250 ms since the previous field tag.
const FAST_MS: u64 = 250;

fn entry_len(e: &EeEntry) -> usize {
    match e {
        EeEntry::Field { .. } => 2,
        EeEntry::LeverPress { .. } => 3,
        _ => 1,
    }
}

/// Which setup a tag marks, for the hysteresis of §3.6.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Setup {
    Begin,
    BeginRotated,
    Empty,
}

#[derive(Debug, Clone)]
pub struct Memory {
    entries: VecDeque<EeEntry>,
    bytes: usize,
    /// Sequence number of `entries[0]`.
    first_seq: u64,
    /// Entries before this sequence number were sent by a bus SEND_CHANGES.
    changes_sent: u64,
    last_field_ms: Option<u64>,
    /// The setup last tagged, until more than two squares leave it.
    tagged: Option<(Setup, [u8; 64])>,
}

impl Memory {
    /// Power-up: three NOPs, EE_POWERUP, then one field tag per piece on the board.
    pub fn power_up(board: &[u8; 64]) -> Self {
        let mut m = Memory {
            entries: VecDeque::new(),
            bytes: 0,
            first_seq: 0,
            changes_sent: 0,
            last_field_ms: None,
            tagged: None,
        };
        m.record_power_up(board);
        m
    }

    pub fn record_power_up(&mut self, board: &[u8; 64]) {
        for _ in 0..3 {
            self.push(EeEntry::Nop);
        }
        self.push(EeEntry::PowerUp);
        for (i, &code) in board.iter().enumerate() {
            if code != 0 {
                self.push(field(i, code, false));
            }
        }
        self.tagged = None;
        self.check_setup(board);
    }

    fn push(&mut self, e: EeEntry) {
        self.bytes += entry_len(&e);
        self.entries.push_back(e);
        // Cyclic: the oldest data goes first; one byte stays for EE_EOF in the dump.
        while self.bytes > EE_SIZE - 1 {
            if let Some(old) = self.entries.pop_front() {
                self.bytes -= entry_len(&old);
                self.first_seq += 1;
            }
        }
    }

    fn next_seq(&self) -> u64 {
        self.first_seq + self.entries.len() as u64
    }

    /// A field change found by a scan.
    pub fn record_field(&mut self, t_ms: u64, square: usize, code: u8) {
        let fast = self
            .last_field_ms
            .is_some_and(|last| t_ms.saturating_sub(last) < FAST_MS);
        self.last_field_ms = Some(t_ms);
        let e = field(square, code, fast);
        // "When only one piece keeps changing, the board overwrites the last tag instead of
        // adding one" — unless that tag already went out in a bus change packet.
        if let Some(EeEntry::Field { square: last, .. }) = self.entries.back()
            && last.index() as usize == square
            && self.next_seq() > self.changes_sent
        {
            *self.entries.back_mut().expect("checked") = e;
            return;
        }
        self.push(e);
    }

    /// The time of the display that just stopped, written at a lever press.
    pub fn record_lever_press(&mut self, left: bool, seconds: u32) {
        self.push(EeEntry::LeverPress { left, seconds });
    }

    pub fn record_start_tag(&mut self) {
        self.push(EeEntry::StartTag);
    }

    pub fn record_downloaded(&mut self) {
        self.push(EeEntry::Downloaded);
    }

    /// After a scan: tags the begin position (normal or rotated) or an empty board, with
    /// hysteresis — re-armed only when more than two squares left the tagged setup.
    pub fn check_setup(&mut self, board: &[u8; 64]) {
        if let Some((_, tagged)) = &self.tagged {
            let differ = tagged.iter().zip(board).filter(|(a, b)| a != b).count();
            if differ > 2 {
                self.tagged = None;
            } else {
                return;
            }
        }
        let begin = begin_position();
        let mut rotated = begin;
        rotated.reverse();
        let setup = if *board == begin {
            Setup::Begin
        } else if *board == rotated {
            Setup::BeginRotated
        } else if board.iter().all(|&c| c == 0) {
            Setup::Empty
        } else {
            return;
        };
        self.push(match setup {
            Setup::Begin => EeEntry::BeginPos,
            Setup::BeginRotated => EeEntry::BeginPosRotated,
            Setup::Empty => EeEntry::EmptyBoard,
        });
        self.tagged = Some((setup, *board));
    }

    /// The `EE_MOVES` data: the whole buffer, oldest first, padded with NOPs in front and
    /// closed by `EE_EOF`, exactly 0x1F00 bytes.
    pub fn dump(&self) -> Vec<u8> {
        let mut entries: Vec<EeEntry> = self.entries.iter().copied().collect();
        entries.push(EeEntry::Eof);
        let body = encode_ee_log(&entries);
        let mut out = vec![0x7F; EE_SIZE - body.len()];
        out.extend(body);
        out
    }

    /// Bus SEND_CHANGES: everything since the previous call, in EE format.
    pub fn take_changes(&mut self) -> Vec<u8> {
        let from = self.changes_sent.max(self.first_seq);
        let skip = (from - self.first_seq) as usize;
        let new: Vec<EeEntry> = self.entries.iter().skip(skip).copied().collect();
        self.changes_sent = self.next_seq();
        encode_ee_log(&new)
    }

    /// Bus FROM_START: everything from the last EE_START_TAG (or the oldest entry).
    pub fn since_start_tag(&self) -> Vec<u8> {
        let start = self
            .entries
            .iter()
            .rposition(|e| *e == EeEntry::StartTag)
            .unwrap_or(0);
        let v: Vec<EeEntry> = self.entries.iter().skip(start).copied().collect();
        encode_ee_log(&v)
    }
}

fn field(square: usize, code: u8, fast: bool) -> EeEntry {
    EeEntry::Field {
        square: PhysicalSquare::new(square as u8).expect("square < 64"),
        piece: DgtPiece::from_code(code),
        fast,
    }
}

/// The start position in the board's numbering, connector on White's left.
fn begin_position() -> [u8; 64] {
    let mut b = [0u8; 64];
    let back = [8, 9, 10, 12, 11, 10, 9, 8];
    for f in 0..8 {
        b[f] = back[f];
        b[8 + f] = 7;
        b[48 + f] = 1;
        b[56 + f] = back[f] - 6;
    }
    b
}

#[cfg(test)]
mod tests {
    use super::*;
    use dgt_protocol::parse_ee_log;

    #[test]
    fn power_up_tags_the_begin_position_and_dump_has_fixed_size() {
        let m = Memory::power_up(&begin_position());
        let d = m.dump();
        assert_eq!(d.len(), EE_SIZE);
        let log: Vec<EeEntry> = parse_ee_log(&d)
            .into_iter()
            .filter(|e| *e != EeEntry::Nop)
            .collect();
        assert_eq!(log[0], EeEntry::PowerUp);
        assert_eq!(log.len(), 1 + 32 + 2);
        assert_eq!(log[33], EeEntry::BeginPos);
        assert_eq!(log[34], EeEntry::Eof);
    }

    #[test]
    fn one_flashing_square_overwrites_its_tag_and_fast_bit_is_set() {
        let mut m = Memory::power_up(&[0; 64]);
        m.take_changes();
        m.record_field(1000, 52, 0);
        m.record_field(1100, 36, 1);
        m.record_field(1200, 36, 0);
        m.record_field(2000, 36, 1);
        let log = parse_ee_log(&m.take_changes());
        assert_eq!(log.len(), 2);
        assert!(matches!(log[1], EeEntry::Field { fast: false, .. }));
        m.record_field(2100, 36, 0);
        let again = parse_ee_log(&m.take_changes());
        assert!(matches!(again[..], [EeEntry::Field { fast: true, .. }]));
    }

    #[test]
    fn buffer_is_cyclic() {
        let mut m = Memory::power_up(&begin_position());
        for i in 0..10_000u64 {
            m.record_field(i * 1000, (i % 2) as usize, 1);
        }
        assert_eq!(m.dump().len(), EE_SIZE);
        assert!(m.bytes < EE_SIZE);
    }
}
