//! The 7 data bytes of `DGT_MSG_BWTIME` (0x8D, and bus 0x84): clock times or a clock ack
//! (protocol §3.4).
//!
//! Bytes 3–5 are the **right** display, 6–8 the **left** (2011+ layout, which every modern
//! library and the real captures follow). Hours are binary in the low nibble; minutes and
//! seconds are BCD. The hours byte of each side carries the flag bits: 0x10 final flag (clock
//! blocked at zero), 0x20 increment indicator, 0x40 flag shown while the clock may still run.

use serde::{Deserialize, Serialize};

/// One side's display.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SideTime {
    /// Time shown, in milliseconds (the clock reports whole seconds).
    pub ms: u64,
    /// 0x10: flag fallen and clock blocked at zero (the final flag).
    pub final_flag: bool,
    /// 0x40: flag fallen and shown on the display; the clock may still run (a new period).
    pub flag_shown: bool,
    /// 0x20: the time-per-move indicator (Fischer / Bronstein) is on.
    pub increment_shown: bool,
}

impl SideTime {
    pub fn flagged(&self) -> bool {
        self.final_flag || self.flag_shown
    }
}

/// The status byte (byte 9) of a clock reading.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClockStatus {
    /// D0: the clock is running (0 = stopped with Start/Stop).
    pub running: bool,
    /// D1: the lever is high on the right (the right clock runs while running).
    pub right_lever_high: bool,
    /// D2: battery-low indicator on the display.
    pub battery_low: bool,
    /// D3 and D4, whose meaning was swapped between header revisions: kept raw, never
    /// trusted for the running side (protocol §3.4, "where sources disagree").
    pub turn_bits: u8,
    /// D5: no clock connected, the times are invalid.
    pub no_clock: bool,
}

impl ClockStatus {
    pub fn from_byte(b: u8) -> Self {
        ClockStatus {
            running: b & 0x01 != 0,
            right_lever_high: b & 0x02 != 0,
            battery_low: b & 0x04 != 0,
            turn_bits: (b >> 3) & 0x03,
            no_clock: b & 0x20 != 0,
        }
    }
    pub fn to_byte(self) -> u8 {
        (self.running as u8)
            | (self.right_lever_high as u8) << 1
            | (self.battery_low as u8) << 2
            | (self.turn_bits & 0x03) << 3
            | (self.no_clock as u8) << 5
    }
}

/// A clock reading: both displays and the status byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClockTimes {
    pub left: SideTime,
    pub right: SideTime,
    pub status: ClockStatus,
}

/// A button on the DGT 3000, reported in an unprompted ack (ack1 = 0x88).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum ClockButton {
    Back,
    Plus,
    Run,
    Minus,
    Ok,
    /// Combinations and codes not in the table: ack2, ack3.
    Other(u8, u8),
}

/// A clock ack: four 8-bit values rebuilt from 7-bit bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClockAck {
    pub ack0: u8,
    pub ack1: u8,
    pub ack2: u8,
    pub ack3: u8,
}

impl ClockAck {
    /// ack0 0x10 is a normal ack; 0x40 (and 0x20, seen with an XL 1.14) are errors.
    pub fn is_error(&self) -> bool {
        self.ack0 != 0x10
    }
    /// ack1 ≥ 0x80: the clock sent it on its own (ready, button, mode).
    pub fn is_unprompted(&self) -> bool {
        self.ack1 & 0x80 != 0
    }
    /// The button pressed, for an unprompted button ack (ack1 = 0x88).
    pub fn button(&self) -> Option<ClockButton> {
        if self.ack1 != 0x88 {
            return None;
        }
        Some(match self.ack3 {
            0x31 => ClockButton::Back,
            0x32 => ClockButton::Plus,
            0x33 => ClockButton::Run,
            0x34 => ClockButton::Minus,
            0x35 => ClockButton::Ok,
            _ => ClockButton::Other(self.ack2, self.ack3),
        })
    }
    /// The clock version from an ack to `2B 03 03 09 00` (ack1 = 0x09): (main, sub);
    /// main 2 = DGT 3000, 1 = DGT XL.
    pub fn version(&self) -> Option<(u8, u8)> {
        (self.ack1 == 0x09).then_some((self.ack2 >> 4, self.ack2 & 0x0F))
    }

    /// Encodes the ack into the 7 data bytes, the inverse of the decoding rule in §3.4.
    pub fn to_bytes(&self) -> [u8; 7] {
        let b3 = 0x0A | ((self.ack2 & 0x80) >> 3) | ((self.ack3 & 0x80) >> 2);
        let b6 = 0x0A | ((self.ack0 & 0x80) >> 3) | ((self.ack1 & 0x80) >> 2);
        [
            b3,
            self.ack0 & 0x7F,
            self.ack1 & 0x7F,
            b6,
            self.ack2 & 0x7F,
            self.ack3 & 0x7F,
            0,
        ]
    }
}

/// What a BWTIME frame carried.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum ClockMessage {
    Times(ClockTimes),
    Ack(ClockAck),
    /// All seven bytes zero: sent by BT firmware 2.10 after a clock command; not a reading.
    Blank,
    /// Digits out of range (hours > 9, minutes or seconds not BCD 0–59): rejected, counted.
    Implausible([u8; 7]),
}

fn bcd(b: u8) -> Option<u64> {
    let (hi, lo) = (b >> 4, b & 0x0F);
    (hi <= 5 && lo <= 9).then_some((hi * 10 + lo) as u64)
}

fn to_bcd(v: u64) -> u8 {
    (((v / 10) as u8) << 4) | (v % 10) as u8
}

fn side(h: u8, m: u8, s: u8) -> Option<SideTime> {
    let hours = (h & 0x0F) as u64;
    if hours > 9 {
        return None;
    }
    let ms = (hours * 3600 + bcd(m)? * 60 + bcd(s)?) * 1000;
    Some(SideTime {
        ms,
        final_flag: h & 0x10 != 0,
        increment_shown: h & 0x20 != 0,
        flag_shown: h & 0x40 != 0,
    })
}

fn side_bytes(t: &SideTime) -> [u8; 3] {
    let secs = t.ms / 1000;
    let hours = (secs / 3600).min(9) as u8;
    let h = hours
        | if t.final_flag { 0x10 } else { 0 }
        | if t.increment_shown { 0x20 } else { 0 }
        | if t.flag_shown { 0x40 } else { 0 };
    [h, to_bcd((secs / 60) % 60), to_bcd(secs % 60)]
}

impl ClockMessage {
    /// Decodes the 7 data bytes of a BWTIME message.
    pub fn decode(d: &[u8; 7]) -> Self {
        if d.iter().all(|&b| b == 0) {
            return ClockMessage::Blank;
        }
        // An ack when the hours nibble of either side reads 0xA, which a time never can.
        if d[0] & 0x0F == 0x0A || d[3] & 0x0F == 0x0A {
            return ClockMessage::Ack(ClockAck {
                ack0: (d[1] & 0x7F) | ((d[3] << 3) & 0x80),
                ack1: (d[2] & 0x7F) | ((d[3] << 2) & 0x80),
                ack2: (d[4] & 0x7F) | ((d[0] << 3) & 0x80),
                ack3: (d[5] & 0x7F) | ((d[0] << 2) & 0x80),
            });
        }
        match (side(d[0], d[1], d[2]), side(d[3], d[4], d[5])) {
            (Some(right), Some(left)) => ClockMessage::Times(ClockTimes {
                left,
                right,
                status: ClockStatus::from_byte(d[6]),
            }),
            _ => ClockMessage::Implausible(*d),
        }
    }

    /// The 7 data bytes of this message.
    pub fn to_bytes(&self) -> [u8; 7] {
        match self {
            ClockMessage::Times(t) => {
                let r = side_bytes(&t.right);
                let l = side_bytes(&t.left);
                [r[0], r[1], r[2], l[0], l[1], l[2], t.status.to_byte()]
            }
            ClockMessage::Ack(a) => a.to_bytes(),
            ClockMessage::Blank => [0; 7],
            ClockMessage::Implausible(d) => *d,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_a_real_blitz_reading() {
        // From the real capture: 3:02 on both sides, increment shown, running, left lever high.
        let m = ClockMessage::decode(&[0x20, 0x03, 0x02, 0x20, 0x03, 0x01, 0x09]);
        let ClockMessage::Times(t) = m else {
            panic!("{m:?}")
        };
        assert_eq!(t.right.ms, 182_000);
        assert_eq!(t.left.ms, 181_000);
        assert!(t.right.increment_shown && !t.right.flagged());
        assert!(t.status.running && !t.status.right_lever_high && !t.status.no_clock);
        assert_eq!(m.to_bytes(), [0x20, 0x03, 0x02, 0x20, 0x03, 0x01, 0x09]);
    }

    #[test]
    fn hours_and_flags() {
        let m = ClockMessage::decode(&[0x31, 0x59, 0x59, 0x50, 0x00, 0x00, 0x12]);
        let ClockMessage::Times(t) = m else { panic!() };
        assert_eq!(t.right.ms, (3600 + 59 * 60 + 59) * 1000);
        assert!(t.right.final_flag && t.right.increment_shown && !t.right.flag_shown);
        assert!(t.left.final_flag && t.left.flag_shown && t.left.ms == 0);
        assert!(!t.status.running && t.status.right_lever_high);
    }

    #[test]
    fn acks_and_blank_are_not_readings() {
        assert_eq!(ClockMessage::decode(&[0; 7]), ClockMessage::Blank);
        // The DGT 3000 version ack seen in picochess logs: (16, 9, 32, 0).
        let ack = ClockAck {
            ack0: 0x10,
            ack1: 0x09,
            ack2: 0x20,
            ack3: 0,
        };
        let m = ClockMessage::decode(&ack.to_bytes());
        assert_eq!(m, ClockMessage::Ack(ack));
        assert_eq!(ack.version(), Some((2, 0)));
        assert!(!ack.is_error());
    }

    #[test]
    fn unprompted_button_ack_round_trips() {
        let ack = ClockAck {
            ack0: 0x10,
            ack1: 0x88,
            ack2: 0x85,
            ack3: 0x33,
        };
        let m = ClockMessage::decode(&ack.to_bytes());
        let ClockMessage::Ack(a) = m else { panic!() };
        assert_eq!(a, ack);
        assert!(a.is_unprompted());
        assert_eq!(a.button(), Some(ClockButton::Run));
    }

    #[test]
    fn out_of_range_digits_are_implausible() {
        assert!(matches!(
            ClockMessage::decode(&[0x00, 0x60, 0x00, 0x00, 0x00, 0x00, 0x01]),
            ClockMessage::Implausible(_)
        ));
        assert!(matches!(
            ClockMessage::decode(&[0x00, 0x00, 0x1A, 0x00, 0x00, 0x00, 0x01]),
            ClockMessage::Implausible(_)
        ));
    }
}
