//! Virtual time for the harnesses: whole milliseconds since an epoch taken once, turned into
//! the `Instant`s the machines are told and back.

use std::time::{Duration, Instant};

/// A clock that moves only when told to, from 0 ms at its epoch.
#[derive(Debug, Clone, Copy)]
pub struct VirtualClock {
    epoch: Instant,
    t_ms: u64,
}

impl VirtualClock {
    /// At 0 ms, its epoch now.
    pub fn start() -> Self {
        VirtualClock {
            epoch: Instant::now(),
            t_ms: 0,
        }
    }

    /// The instant of 0 ms.
    pub fn epoch(&self) -> Instant {
        self.epoch
    }

    /// Milliseconds since the epoch.
    pub fn t_ms(&self) -> u64 {
        self.t_ms
    }

    /// The instant of the current time.
    pub fn now(&self) -> Instant {
        self.at(self.t_ms)
    }

    /// The instant `ms` after the epoch.
    pub fn at(&self, ms: u64) -> Instant {
        self.epoch + Duration::from_millis(ms)
    }

    /// The whole milliseconds from the epoch to `at` (0 before it), rounded down: the time an
    /// event that happened at `at` is stamped with.
    pub fn ms(&self, at: Instant) -> u64 {
        at.saturating_duration_since(self.epoch).as_millis() as u64
    }

    /// The millisecond at which a machine's deadline `at` is due, rounded up so that a machine
    /// is never woken before its deadline.
    pub fn deadline_ms(&self, at: Instant) -> u64 {
        at.saturating_duration_since(self.epoch)
            .as_micros()
            .div_ceil(1000) as u64
    }

    /// Moves to the earliest of `deadlines` and `end_ms`, at least one millisecond on and
    /// never past `end_ms`; returns the new time. The current time must be before `end_ms`.
    pub fn step(&mut self, deadlines: impl IntoIterator<Item = Option<u64>>, end_ms: u64) -> u64 {
        assert!(
            self.t_ms < end_ms,
            "stepping from {} ms to {end_ms} ms",
            self.t_ms
        );
        self.t_ms = deadlines
            .into_iter()
            .flatten()
            .fold(end_ms, u64::min)
            .clamp(self.t_ms + 1, end_ms);
        self.t_ms
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_step_goes_to_the_earliest_deadline_at_least_a_millisecond_on_and_never_past_the_end() {
        let mut clock = VirtualClock::start();
        assert_eq!(clock.step([Some(40), None, Some(25)], 100), 25);
        // A deadline already due still moves the clock on, so a loop always ends.
        assert_eq!(clock.step([Some(3)], 100), 26);
        assert_eq!(clock.step([None], 100), 100);
        assert_eq!(clock.now(), clock.at(100));
    }

    #[test]
    fn a_deadline_is_due_at_the_millisecond_it_falls_in_or_after() {
        let clock = VirtualClock::start();
        let between = clock.epoch() + Duration::from_micros(1_500);
        assert_eq!(clock.deadline_ms(between), 2);
        assert_eq!(clock.ms(between), 1);
        assert_eq!(clock.deadline_ms(clock.at(7)), 7);
        assert_eq!(clock.ms(clock.epoch() - Duration::from_millis(5)), 0);
    }
}
