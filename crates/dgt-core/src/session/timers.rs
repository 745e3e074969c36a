//! A board's timer table: one deadline per kind of waiting period, instead of a field per
//! kind. Decisions are taken when the board settles, when a press is judged, and when a
//! waiting period runs out; this table says when the next settle or waiting period is due.
//! The press waiting for its verdict keeps its own deadline (`PendingPress`), so the press
//! and the moment it is judged cannot part.

/// The kinds of waiting period a board's session keeps, at most one deadline each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Timer {
    /// The placement has been unchanged for `settle_ms`: it is read.
    Settle,
    /// A move the board shows waits for its press (6.2.1); when none comes, it stands as
    /// shown.
    PressWait,
    /// A placement no legal move explains has persisted: it is raised.
    IllegalPosition,
    /// Moves completed by a press become final: a late board report can no longer correct
    /// them. Checked whenever the session runs; it does not wake the session by itself.
    Correction,
    /// After a reconnection, decisions wait for the board's log (protocol §3.6) until then.
    /// Not a wake-up: a settle due before it is moved to it.
    LogWait,
}

impl Timer {
    const COUNT: usize = 5;

    /// The timers that wake the session when due, in the order they are handled when
    /// several are due at once.
    pub(crate) const WAKING: [Timer; 3] = [Timer::Settle, Timer::PressWait, Timer::IllegalPosition];

    fn index(self) -> usize {
        self as usize
    }
}

/// One deadline (ms, the input's clock) per [`Timer`], or none.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct Timers {
    at: [Option<u64>; Timer::COUNT],
}

impl Timers {
    /// Sets `timer` to fire at `at`, replacing any deadline it had.
    pub(crate) fn set(&mut self, timer: Timer, at: u64) {
        self.at[timer.index()] = Some(at);
    }

    /// Sets `timer` to `at`, or keeps its deadline if that is earlier.
    pub(crate) fn set_earliest(&mut self, timer: Timer, at: u64) {
        let slot = &mut self.at[timer.index()];
        *slot = Some(slot.map_or(at, |s| s.min(at)));
    }

    pub(crate) fn clear(&mut self, timer: Timer) {
        self.at[timer.index()] = None;
    }

    /// The deadline of `timer`, and clears it.
    pub(crate) fn take(&mut self, timer: Timer) -> Option<u64> {
        self.at[timer.index()].take()
    }

    pub(crate) fn get(&self, timer: Timer) -> Option<u64> {
        self.at[timer.index()]
    }

    pub(crate) fn is_set(&self, timer: Timer) -> bool {
        self.get(timer).is_some()
    }

    /// Whether `timer` is due at `t` (set, and its deadline not after `t`).
    pub(crate) fn is_due(&self, timer: Timer, t: u64) -> bool {
        self.get(timer).is_some_and(|at| at <= t)
    }

    /// Whether `timer` fired at `t`: if it is due, it is cleared and `true` returned.
    pub(crate) fn fired(&mut self, timer: Timer, t: u64) -> bool {
        let due = self.is_due(timer, t);
        if due {
            self.clear(timer);
        }
        due
    }

    /// The earliest deadline among the timers that wake the session.
    pub(crate) fn next_due(&self) -> Option<u64> {
        Timer::WAKING.iter().filter_map(|k| self.get(*k)).min()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_table_has_nothing_due() {
        let t = Timers::default();
        assert_eq!(t.next_due(), None);
        assert!(!t.is_due(Timer::Settle, u64::MAX));
    }

    #[test]
    fn one_deadline_per_kind_the_latest_set_wins() {
        let mut t = Timers::default();
        t.set(Timer::Settle, 500);
        t.set(Timer::Settle, 300);
        assert_eq!(t.get(Timer::Settle), Some(300));
        t.set(Timer::Settle, 900);
        assert_eq!(t.get(Timer::Settle), Some(900));
        assert_eq!(t.get(Timer::PressWait), None);
    }

    #[test]
    fn set_earliest_keeps_an_earlier_deadline() {
        let mut t = Timers::default();
        t.set_earliest(Timer::Settle, 700);
        assert_eq!(t.get(Timer::Settle), Some(700));
        t.set_earliest(Timer::Settle, 900);
        assert_eq!(t.get(Timer::Settle), Some(700));
        t.set_earliest(Timer::Settle, 200);
        assert_eq!(t.get(Timer::Settle), Some(200));
    }

    #[test]
    fn next_due_is_the_earliest_waking_deadline() {
        let mut t = Timers::default();
        t.set(Timer::IllegalPosition, 4000);
        t.set(Timer::PressWait, 2500);
        t.set(Timer::Settle, 3000);
        assert_eq!(t.next_due(), Some(2500));
        t.clear(Timer::PressWait);
        assert_eq!(t.next_due(), Some(3000));
    }

    #[test]
    fn corrections_and_the_log_wait_do_not_wake_the_session() {
        let mut t = Timers::default();
        t.set(Timer::Correction, 100);
        t.set(Timer::LogWait, 50);
        assert_eq!(t.next_due(), None);
        // They are still kept and can be asked.
        assert!(t.is_due(Timer::Correction, 100));
        assert_eq!(t.get(Timer::LogWait), Some(50));
        t.set(Timer::IllegalPosition, 400);
        assert_eq!(t.next_due(), Some(400));
    }

    #[test]
    fn a_timer_fires_once_when_due_and_not_before() {
        let mut t = Timers::default();
        t.set(Timer::PressWait, 1000);
        assert!(!t.fired(Timer::PressWait, 999));
        assert!(t.is_set(Timer::PressWait));
        assert!(t.fired(Timer::PressWait, 1000));
        assert!(!t.is_set(Timer::PressWait));
        assert!(!t.fired(Timer::PressWait, 5000));
    }

    #[test]
    fn take_returns_the_deadline_and_clears_it() {
        let mut t = Timers::default();
        t.set(Timer::LogWait, 8000);
        assert_eq!(t.take(Timer::LogWait), Some(8000));
        assert_eq!(t.take(Timer::LogWait), None);
    }

    #[test]
    fn kinds_do_not_share_a_slot() {
        let mut t = Timers::default();
        for (i, k) in [
            Timer::Settle,
            Timer::PressWait,
            Timer::IllegalPosition,
            Timer::Correction,
            Timer::LogWait,
        ]
        .into_iter()
        .enumerate()
        {
            t.set(k, 10 * i as u64);
        }
        assert_eq!(t.get(Timer::Settle), Some(0));
        assert_eq!(t.get(Timer::LogWait), Some(40));
        t.clear(Timer::IllegalPosition);
        assert_eq!(t.get(Timer::PressWait), Some(10));
        assert_eq!(t.get(Timer::Correction), Some(30));
    }
}
