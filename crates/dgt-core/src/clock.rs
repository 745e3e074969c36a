//! Clock readings relayed by the board → presses, pauses, flags, White/Black times.
//!
//! The running display is found from the status byte's run bit (D0) and lever bit (D1) —
//! the high side of the lever is the one whose time runs — and never from the "turn" bits
//! D3/D4, whose meaning was swapped between protocol revisions (protocol §3.4). A reading in
//! which the running side's time goes up, or that says "no clock", is not taken as a time.

use dgt_protocol::ClockTimes;
use shakmaty::ByColor;

use crate::input::ClockSide;

/// What one clock reading meant.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClockObservation {
    /// The reading was taken as the clock's state.
    pub accepted: bool,
    /// Rejected as implausible (time rising while running).
    pub rejected: bool,
    /// The display whose player pressed: it was running and now the other one runs.
    pub press: Option<ClockSide>,
    /// The clock went from stopped to running.
    pub started: bool,
    /// The clock went from stopped to running with the other side's time: the lever (a
    /// physical rocker, status D1, protocol §3.4) was high on this display while the clock
    /// stood and is low now — its player pressed it, and the clock was started and pressed
    /// between two reports (the board relays the clock every 300–450 ms, protocol §2.2).
    pub started_by_press: Option<ClockSide>,
    /// The clock went from running to stopped (paused).
    pub stopped: bool,
    /// A time changed while the clock was stopped: an arbiter's correction.
    pub adjusted: bool,
    /// Displays whose flag appeared with this reading.
    pub new_flags: Vec<ClockSide>,
    /// The clock stopped answering (D5) / came back.
    pub disconnected: bool,
    pub reconnected: bool,
    /// The battery-low indicator appeared.
    pub battery_low: bool,
    /// Two presses fell between this reading and the last (`observe`).
    pub two_presses: bool,
}

#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct ClockTracker {
    last: Option<ClockTimes>,
    /// White's display: from the configuration or a `setup`, else inferred.
    white_side: Option<ClockSide>,
    white_side_fixed: bool,
    connected: bool,
    rejected: u64,
    /// Lever presses a bus board logged since the previous reading (protocol §3.6), told by
    /// [`ClockTracker::presses_logged`] and used by the next reading only.
    logged_presses: u8,
}

/// The display whose time runs, if the clock runs.
pub fn running_display(t: &ClockTimes) -> Option<ClockSide> {
    if !t.status.running {
        None
    } else if t.status.right_lever_high {
        Some(ClockSide::Right)
    } else {
        Some(ClockSide::Left)
    }
}

/// The most a running display can gain from two presses between two reports and still be
/// read as them: an increment of 1–2 s (the time controls where presses come that close),
/// rounded to the display's whole seconds. A larger rise is an implausible reading.
const HIDDEN_PRESS_MAX_RISE_MS: u64 = 2000;

fn side_time(t: &ClockTimes, side: ClockSide) -> &dgt_protocol::SideTime {
    match side {
        ClockSide::Left => &t.left,
        ClockSide::Right => &t.right,
    }
}

/// The time a display shows.
pub fn display_ms(t: &ClockTimes, side: ClockSide) -> u64 {
    match side {
        ClockSide::Left => t.left.ms,
        ClockSide::Right => t.right.ms,
    }
}

fn flagged(t: &ClockTimes, side: ClockSide) -> bool {
    match side {
        ClockSide::Left => t.left.flagged(),
        ClockSide::Right => t.right.flagged(),
    }
}

impl ClockTracker {
    pub fn new(white_side: Option<ClockSide>) -> Self {
        ClockTracker {
            white_side,
            white_side_fixed: white_side.is_some(),
            ..Default::default()
        }
    }

    pub fn last(&self) -> Option<&ClockTimes> {
        self.last.as_ref()
    }

    pub fn rejected_count(&self) -> u64 {
        self.rejected
    }

    pub fn white_side(&self) -> Option<ClockSide> {
        self.white_side
    }

    /// Fixes White's display (configuration or an arbiter's `setup`).
    pub fn set_white_side(&mut self, side: ClockSide) {
        self.white_side = Some(side);
        self.white_side_fixed = true;
    }

    /// Infers White's display from the game (White's clock runs at the start; the display
    /// that stops when White's move is completed is White's). A fixed side is never changed.
    pub fn infer_white_side(&mut self, side: ClockSide) {
        if !self.white_side_fixed {
            self.white_side = Some(side);
        }
    }

    /// Forgets an inferred side (a new game may be played the other way round).
    pub fn reset_inference(&mut self) {
        if !self.white_side_fixed {
            self.white_side = None;
        }
    }

    pub fn running(&self) -> Option<ClockSide> {
        self.last.as_ref().and_then(running_display)
    }

    pub fn is_connected(&self) -> bool {
        self.connected
    }

    /// The display of a player, when White's display is known.
    pub fn display_of(&self, white: bool) -> Option<ClockSide> {
        self.white_side.map(|w| if white { w } else { w.other() })
    }

    /// (White's ms, Black's ms) of the last reading, when the mapping is known.
    pub fn white_black_ms(&self) -> (Option<u64>, Option<u64>) {
        match (&self.last, self.white_side) {
            (Some(t), Some(w)) => (Some(display_ms(t, w)), Some(display_ms(t, w.other()))),
            _ => (None, None),
        }
    }

    /// White's and Black's ms of the last reading by colour, when the mapping is known.
    pub fn ms_by_color(&self) -> ByColor<Option<u64>> {
        let (white, black) = self.white_black_ms();
        ByColor { white, black }
    }

    /// (White's ms, Black's ms) of a given reading, when the mapping is known.
    pub fn white_black_of(&self, t: &ClockTimes) -> (Option<u64>, Option<u64>) {
        match self.white_side {
            Some(w) => (Some(display_ms(t, w)), Some(display_ms(t, w.other()))),
            None => (None, None),
        }
    }

    /// A bus board's changes packet logged `count` lever presses (protocol §3.6): the clock
    /// is read once a poll there, so two presses can fall between two readings with the
    /// displays in whole seconds showing no trace of the increments.
    pub fn presses_logged(&mut self, count: u8) {
        self.logged_presses = self.logged_presses.saturating_add(count);
    }

    /// Takes one reading.
    pub fn observe(&mut self, t: ClockTimes) -> ClockObservation {
        let logged_presses = std::mem::take(&mut self.logged_presses);
        let mut obs = ClockObservation::default();
        if t.status.no_clock {
            if self.connected {
                obs.disconnected = true;
            }
            self.connected = false;
            return obs;
        }
        if !self.connected && self.last.is_some() {
            obs.reconnected = true;
        }
        self.connected = true;
        let Some(prev) = self.last else {
            obs.accepted = true;
            obs.started = t.status.running;
            for side in [ClockSide::Left, ClockSide::Right] {
                if flagged(&t, side) {
                    obs.new_flags.push(side);
                }
            }
            obs.battery_low = t.status.battery_low;
            self.last = Some(t);
            return obs;
        };
        let was = running_display(&prev);
        let now = running_display(&t);
        let other = |d: ClockSide| match d {
            ClockSide::Left => ClockSide::Right,
            ClockSide::Right => ClockSide::Left,
        };
        // Both displays up with the same one running: two presses between two reports, each
        // adding the increment to its presser's display (protocol §3.4, 0x20 increment
        // indicator), the lever back where it was.
        let both_up = matches!((was, now), (Some(a), Some(b)) if a == b
            && display_ms(&t, a) > display_ms(&prev, a)
            && display_ms(&t, other(a)) > display_ms(&prev, other(a)));
        // The running display up by at most an increment, its time-per-move indicator on
        // (§3.4 hour byte 0x20), the other not: its player pressed (the increment), so the
        // other pressed too, the lever back where it was. The other's display shows whole
        // seconds and ran only between the two presses (~0.3 s in a time scramble), so its
        // own increment may not show.
        let running_up_by_increment = matches!((was, now), (Some(a), Some(b)) if a == b
            && side_time(&t, a).increment_shown
            && display_ms(&t, a) > display_ms(&prev, a)
            && display_ms(&t, a) <= display_ms(&prev, a) + HIDDEN_PRESS_MAX_RISE_MS);
        // On a bus line the board's log says so itself: two presses or more logged and the
        // same display running (an entry may be skipped, never invented, §3.6).
        let logged_two = matches!((was, now), (Some(a), Some(b)) if a == b) && logged_presses >= 2;
        // The stopped display changed with the same one running: it ran in between and its
        // player pressed again — two presses, as a stopped display shows a constant time.
        let stopped_changed = matches!((was, now), (Some(a), Some(b)) if a == b
            && display_ms(&t, other(a)) != display_ms(&prev, other(a)));
        let two_presses = both_up || running_up_by_increment || logged_two || stopped_changed;
        // A display that ran before and still runs can only lose time (but for two presses).
        if let (Some(a), Some(b)) = (was, now)
            && a == b
            && display_ms(&t, a) > display_ms(&prev, a)
            && !two_presses
        {
            self.rejected += 1;
            obs.rejected = true;
            return obs;
        }
        obs.accepted = true;
        obs.two_presses = two_presses;
        match (was, now) {
            (Some(a), Some(b)) if a != b => obs.press = Some(a),
            (None, Some(b)) => {
                obs.started = true;
                if prev.status.right_lever_high != t.status.right_lever_high {
                    obs.started_by_press = Some(other(b));
                }
            }
            (Some(_), None) => obs.stopped = true,
            _ => {}
        }
        if was.is_none()
            && now.is_none()
            && (t.left.ms != prev.left.ms || t.right.ms != prev.right.ms)
        {
            obs.adjusted = true;
        }
        for side in [ClockSide::Left, ClockSide::Right] {
            if flagged(&t, side) && !flagged(&prev, side) {
                obs.new_flags.push(side);
            }
        }
        obs.battery_low = t.status.battery_low && !prev.status.battery_low;
        self.last = Some(t);
        obs
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dgt_protocol::{ClockMessage, ClockStatus};

    fn reading(bytes: [u8; 7]) -> ClockTimes {
        match ClockMessage::decode(&bytes) {
            ClockMessage::Times(t) => t,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn press_start_and_rejection() {
        let mut c = ClockTracker::new(None);
        // stopped, then left runs, then a press by the left player (right runs).
        assert!(
            c.observe(reading([0x20, 0x03, 0x02, 0x20, 0x03, 0x02, 0x08]))
                .accepted
        );
        assert!(
            c.observe(reading([0x20, 0x03, 0x02, 0x20, 0x03, 0x02, 0x09]))
                .started
        );
        assert_eq!(c.running(), Some(ClockSide::Left));
        let o = c.observe(reading([0x20, 0x03, 0x02, 0x20, 0x03, 0x01, 0x13]));
        assert_eq!(o.press, Some(ClockSide::Left));
        // right running but its time rises: implausible.
        let o = c.observe(reading([0x20, 0x03, 0x09, 0x20, 0x03, 0x01, 0x13]));
        assert!(o.rejected && !o.accepted);
        assert_eq!(c.rejected_count(), 1);
        assert_eq!(
            c.ms_by_color(),
            ByColor {
                white: None,
                black: None
            }
        );
        c.infer_white_side(ClockSide::Left);
        assert_eq!(c.white_black_ms(), (Some(181_000), Some(182_000)));
        assert_eq!(
            c.ms_by_color(),
            ByColor {
                white: Some(181_000),
                black: Some(182_000)
            }
        );
    }

    /// Two presses between two reports: the second presser's display runs ~0.4 s and gains
    /// its increment, which its whole seconds hide; so the running display up by its
    /// increment is both presses, as no single press adds time to the running side.
    #[test]
    fn the_running_display_up_by_an_increment_is_two_presses() {
        let mut c = ClockTracker::new(None);
        c.observe(reading([0x20, 0x00, 0x47, 0x20, 0x00, 0x38, 0x08]));
        assert!(
            c.observe(reading([0x20, 0x00, 0x47, 0x20, 0x00, 0x38, 0x09]))
                .started
        );
        // Left (running) 0:38 -> 0:39, right unchanged, left still running.
        let o = c.observe(reading([0x20, 0x00, 0x47, 0x20, 0x00, 0x39, 0x09]));
        assert!(o.accepted && o.two_presses && o.press.is_none(), "{o:?}");
        // Without the time-per-move indicator, or up by more than an increment: implausible.
        let o = c.observe(reading([0x00, 0x00, 0x47, 0x00, 0x00, 0x40, 0x09]));
        assert!(o.rejected && !o.two_presses, "{o:?}");
        let o = c.observe(reading([0x20, 0x00, 0x47, 0x20, 0x00, 0x45, 0x09]));
        assert!(o.rejected && !o.two_presses, "{o:?}");
    }

    /// Two presses between two reports where the running display hides its increment in
    /// whole seconds: the stopped display changed (Black's 1:02 -> 1:03 while White's runs
    /// at both), so it ran and its player pressed.
    #[test]
    fn a_stopped_display_that_changed_is_two_presses() {
        let mut c = ClockTracker::new(None);
        c.observe(reading([0x00, 0x00, 0x47, 0x00, 0x00, 0x38, 0x08]));
        c.observe(reading([0x00, 0x00, 0x47, 0x00, 0x00, 0x38, 0x09]));
        // Left runs at both, 0:38 -> 0:37; right (stopped) 0:47 -> 0:48.
        let o = c.observe(reading([0x00, 0x00, 0x48, 0x00, 0x00, 0x37, 0x09]));
        assert!(o.accepted && o.two_presses && o.press.is_none(), "{o:?}");
        // Only the running display moves: no press.
        let o = c.observe(reading([0x00, 0x00, 0x48, 0x00, 0x00, 0x36, 0x09]));
        assert!(o.accepted && !o.two_presses, "{o:?}");
    }

    #[test]
    fn start_with_the_lever_flipped_is_a_press() {
        let mut c = ClockTracker::new(None);
        // Stopped, lever high on the right; next report: left runs, the right display up by
        // the increment — the right player pressed after the clock was started.
        c.observe(reading([0x20, 0x03, 0x02, 0x20, 0x03, 0x02, 0x02]));
        let o = c.observe(reading([0x20, 0x03, 0x12, 0x20, 0x03, 0x02, 0x01]));
        assert!(o.started);
        assert_eq!(o.started_by_press, Some(ClockSide::Right));
        // Started with the lever where it stood: no press.
        let mut c = ClockTracker::new(None);
        c.observe(reading([0x20, 0x03, 0x02, 0x20, 0x03, 0x02, 0x02]));
        let o = c.observe(reading([0x20, 0x03, 0x02, 0x20, 0x03, 0x01, 0x03]));
        assert!(o.started && o.started_by_press.is_none());
    }

    #[test]
    fn two_logged_presses_with_the_same_display_running_are_two_presses() {
        // The right display runs at 1:00, then runs at 1:01 (its press added the increment,
        // the left player pressed back): the left display, in whole seconds, shows no change.
        // No time-per-move indicator in the hour bytes: the running display's gain is no
        // increment here.
        let mut c = ClockTracker::new(None);
        c.observe(reading([0x00, 0x01, 0x00, 0x00, 0x01, 0x03, 0x13]));
        let up = reading([0x00, 0x01, 0x01, 0x00, 0x01, 0x03, 0x13]);
        // Without the log's word the reading is implausible and dropped.
        assert!(c.clone().observe(up).rejected);
        // A bus board's changes packet logged two presses (protocol §3.6).
        c.presses_logged(2);
        let o = c.observe(up);
        assert!(o.accepted && o.two_presses && o.press.is_none(), "{o:?}");
        // The count serves one reading only.
        let o = c.observe(reading([0x00, 0x01, 0x02, 0x00, 0x01, 0x03, 0x13]));
        assert!(o.rejected);
    }

    #[test]
    fn adjustment_while_stopped_and_flags() {
        let mut c = ClockTracker::new(Some(ClockSide::Right));
        c.observe(reading([0x00, 0x05, 0x00, 0x00, 0x05, 0x00, 0x00]));
        let o = c.observe(reading([0x00, 0x07, 0x00, 0x00, 0x05, 0x00, 0x00]));
        assert!(o.adjusted);
        let o = c.observe(reading([0x10, 0x00, 0x00, 0x00, 0x05, 0x00, 0x02]));
        assert_eq!(o.new_flags, vec![ClockSide::Right]);
        c.infer_white_side(ClockSide::Left);
        assert_eq!(c.white_side(), Some(ClockSide::Right), "fixed side wins");
    }

    #[test]
    fn no_clock_bit_disconnects() {
        let mut c = ClockTracker::new(None);
        c.observe(reading([0x00, 0x05, 0x00, 0x00, 0x05, 0x00, 0x00]));
        let t = ClockTimes {
            status: ClockStatus::from_byte(0x20),
            ..reading([0x00, 0x05, 0x00, 0x00, 0x05, 0x00, 0x00])
        };
        assert!(c.observe(t).disconnected);
        assert!(
            c.observe(reading([0x00, 0x05, 0x00, 0x00, 0x05, 0x00, 0x00]))
                .reconnected
        );
    }
}
