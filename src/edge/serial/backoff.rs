//! Exponential reconnect back-off: each failure doubles the wait, up to a ceiling; a healthy
//! session starts it over.

use std::time::Duration;

#[derive(Debug, Clone)]
pub struct Backoff {
    min: Duration,
    max: Duration,
    next: Duration,
}

impl Backoff {
    pub fn new(min: Duration, max: Duration) -> Self {
        Backoff {
            min,
            max: max.max(min),
            next: min,
        }
    }

    /// The wait before the next attempt; the one after will be twice as long.
    pub fn next_wait(&mut self) -> Duration {
        let wait = self.next;
        self.next = (self.next * 2).min(self.max);
        wait
    }

    /// After a session that worked, the next failure waits the minimum again.
    pub fn reset(&mut self) {
        self.next = self.min;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doubles_from_half_a_second_to_ten() {
        let mut b = Backoff::new(Duration::from_millis(500), Duration::from_secs(10));
        let waits: Vec<u64> = (0..7).map(|_| b.next_wait().as_millis() as u64).collect();
        assert_eq!(waits, [500, 1000, 2000, 4000, 8000, 10_000, 10_000]);
        b.reset();
        assert_eq!(b.next_wait(), Duration::from_millis(500));
    }
}
