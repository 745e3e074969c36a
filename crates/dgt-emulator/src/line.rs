//! The serial line from board to host: 9600 baud, 8N1 (protocol §1.1), so every byte takes
//! 10 bit times, about 1.04 ms. A long reply (the 7.9 kB EEPROM dump takes ~8 s) delays
//! everything queued after it.

use std::collections::VecDeque;

/// Nanoseconds per byte at 9600 baud with start and stop bit: 10 / 9600 s.
pub const BYTE_NS: u64 = 1_041_667;

#[derive(Debug, Default, Clone)]
pub struct Line {
    /// Bytes in flight, each with the time its stop bit ends (ns).
    queue: VecDeque<(u64, u8)>,
    /// When each queued message's last byte is sent (ns), oldest first.
    message_ends: VecDeque<u64>,
    /// When the transmitter is free again (ns).
    free_at_ns: u64,
}

impl Line {
    /// Queues a message handed to the UART at `t_ms`.
    pub fn send(&mut self, t_ms: u64, bytes: &[u8]) {
        let mut t = self.free_at_ns.max(t_ms * 1_000_000);
        for &b in bytes {
            t += BYTE_NS;
            self.queue.push_back((t, b));
        }
        if !bytes.is_empty() {
            self.message_ends.push_back(t);
        }
        self.free_at_ns = t;
    }

    /// Every byte fully sent by `t_ms`.
    pub fn take_until(&mut self, t_ms: u64) -> Vec<u8> {
        let limit = t_ms * 1_000_000;
        let mut out = Vec::new();
        while let Some(&(t, b)) = self.queue.front() {
            if t > limit {
                break;
            }
            out.push(b);
            self.queue.pop_front();
        }
        while self.message_ends.front().is_some_and(|&e| e <= limit) {
            self.message_ends.pop_front();
        }
        out
    }

    /// When the message being sent is complete, in whole ms (rounded up).
    pub fn next_message_end_ms(&self) -> Option<u64> {
        self.message_ends.front().map(|&t| t.div_ceil(1_000_000))
    }

    pub fn is_idle(&self) -> bool {
        self.queue.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_board_dump_takes_seventy_milliseconds_and_delays_what_follows() {
        let mut l = Line::default();
        l.send(0, &[0x86; 67]);
        l.send(1, &[0x8E, 0, 5, 1, 2]);
        assert_eq!(l.take_until(0).len(), 0);
        assert_eq!(l.next_message_end_ms(), Some(70));
        assert_eq!(l.take_until(10).len(), 9);
        assert_eq!(l.take_until(69).len(), 66 - 9);
        assert_eq!(l.take_until(70).len(), 1);
        // 72 bytes × 1.0417 ms = 75.000024 ms.
        assert_eq!(l.next_message_end_ms(), Some(76));
        assert_eq!(l.take_until(76).len(), 72 - 67);
        assert!(l.is_idle());
    }
}
