//! A clock reading in the stream's short form. A running clock gives one reading a second
//! on every board, most of what a node publishes; as event JSON each costs about 180 bytes,
//! as this array about 25 before deflate: `[board, t_ms step, seq step, left_ms, right_ms,
//! running, white_side]`, the steps counted from the event before it in the same message.
//! White's and Black's times are not written: they are the displays read through
//! `white_side` (contract §3, `clock`).

use dgt_core::event::ClockEvent;
use dgt_core::side::ClockSide;
use dgt_core::{Event, EventBody, Side};
use serde::{Deserialize, Serialize};

/// Where the previous event of a message stood: the origin of the next one's steps.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Cursor {
    pub seq: u64,
    pub t_ms: u64,
}

impl Cursor {
    /// The cursor after `e`.
    pub fn after(e: &Event) -> Cursor {
        Cursor {
            seq: e.seq,
            t_ms: e.t_ms,
        }
    }
}

/// One clock reading, short (see the module's text).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PackedClock(String, i64, i64, u64, u64, u8, u8);

impl PackedClock {
    /// The short form of `e`, when `e` is a node's clock reading that reads back exactly
    /// as it is (anything else travels as the event's JSON).
    pub fn pack(e: &Event, before: Cursor) -> Option<PackedClock> {
        let EventBody::Clock(c) = &e.body else {
            return None;
        };
        if e.node.is_some() || e.node_seq.is_some() {
            return None;
        }
        let packed = PackedClock(
            e.board.clone(),
            step(before.t_ms, e.t_ms)?,
            step(before.seq, e.seq)?,
            c.left_ms,
            c.right_ms,
            match c.running {
                None => 0,
                Some(Side::White) => 1,
                Some(Side::Black) => 2,
            },
            match c.white_side {
                None => 0,
                Some(ClockSide::Left) => 1,
                Some(ClockSide::Right) => 2,
            },
        );
        (packed.unpack(before).as_ref() == Some(e)).then_some(packed)
    }

    /// The event this reading stands for, `None` if it is not one this module writes.
    pub fn unpack(&self, before: Cursor) -> Option<Event> {
        let PackedClock(board, t_step, seq_step, left_ms, right_ms, running, white_side) = self;
        let running = match running {
            0 => None,
            1 => Some(Side::White),
            2 => Some(Side::Black),
            _ => return None,
        };
        let white_side = match white_side {
            0 => None,
            1 => Some(ClockSide::Left),
            2 => Some(ClockSide::Right),
            _ => return None,
        };
        let (white_ms, black_ms) = match white_side {
            Some(ClockSide::Left) => (Some(*left_ms), Some(*right_ms)),
            Some(ClockSide::Right) => (Some(*right_ms), Some(*left_ms)),
            None => (None, None),
        };
        Some(Event::new(
            before.seq.checked_add_signed(*seq_step)?,
            board.clone(),
            before.t_ms.checked_add_signed(*t_step)?,
            EventBody::Clock(ClockEvent {
                white_ms,
                black_ms,
                running,
                left_ms: *left_ms,
                right_ms: *right_ms,
                white_side,
            }),
        ))
    }
}

/// `to - from` as a signed step, if it fits.
fn step(from: u64, to: u64) -> Option<i64> {
    i64::try_from(i128::from(to) - i128::from(from)).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn reading(seq: u64, t_ms: u64, left: u64, right: u64, white_side: Option<ClockSide>) -> Event {
        let (white_ms, black_ms) = match white_side {
            Some(ClockSide::Left) => (Some(left), Some(right)),
            Some(ClockSide::Right) => (Some(right), Some(left)),
            None => (None, None),
        };
        Event::new(
            seq,
            "board-10001",
            t_ms,
            EventBody::Clock(ClockEvent {
                white_ms,
                black_ms,
                running: white_side.map(|_| Side::Black),
                left_ms: left,
                right_ms: right,
                white_side,
            }),
        )
    }

    #[test]
    fn a_reading_is_written_as_steps_from_the_event_before() {
        let before = Cursor {
            seq: 41,
            t_ms: 10_000,
        };
        let e = reading(42, 10_998, 171_000, 165_000, Some(ClockSide::Right));
        let packed = PackedClock::pack(&e, before).expect("a plain reading packs");
        assert_eq!(
            serde_json::to_string(&packed).unwrap(),
            r#"["board-10001",998,1,171000,165000,2,2]"#
        );
        assert_eq!(packed.unpack(before), Some(e));
    }

    #[test]
    fn what_would_not_read_back_exactly_travels_as_json() {
        let mut odd = reading(2, 5, 1, 2, Some(ClockSide::Left));
        if let EventBody::Clock(c) = &mut odd.body {
            c.white_ms = Some(7);
        }
        assert_eq!(PackedClock::pack(&odd, Cursor::default()), None);
        let mut on_hub = reading(2, 5, 1, 2, None);
        on_hub.node = Some("hall-a".into());
        assert_eq!(PackedClock::pack(&on_hub, Cursor::default()), None);
        let bad = PackedClock("b".into(), 0, 1, 0, 0, 3, 0);
        assert_eq!(bad.unpack(Cursor::default()), None);
        let before_zero = PackedClock("b".into(), -1, 1, 0, 0, 0, 0);
        assert_eq!(before_zero.unpack(Cursor::default()), None);
    }

    proptest! {
        #[test]
        fn every_reading_reads_back_as_it_was(
            seq in any::<u64>(), t_ms in any::<u64>(),
            before_seq in any::<u64>(), before_t in any::<u64>(),
            left in any::<u64>(), right in any::<u64>(), side in 0u8..3,
        ) {
            let white_side = [None, Some(ClockSide::Left), Some(ClockSide::Right)][side as usize];
            let e = reading(seq, t_ms, left, right, white_side);
            let before = Cursor { seq: before_seq, t_ms: before_t };
            if let Some(p) = PackedClock::pack(&e, before) {
                let json = serde_json::to_string(&p).unwrap();
                let back: PackedClock = serde_json::from_str(&json).unwrap();
                prop_assert_eq!(back.unpack(before), Some(e));
            } else {
                // Only a step too long for 63 bits stays as JSON.
                prop_assert!(step(before_seq, seq).is_none() || step(before_t, t_ms).is_none());
            }
        }
    }
}
