//! The DGT 3000 clock cabled to the board: two displays, a lever, periods, increments and
//! flags, as a pure function of the presses it is given (times in ms).
//!
//! The clock knows only its left and right displays, never White or Black (protocol §3.4:
//! "the clock does not know which side is white"). Facts it relies on:
//! * the hours byte of a side carries 0x10 (final flag, clock blocked at zero), 0x20
//!   (increment/delay indicator) and 0x40 (a period's flag shown while the next runs);
//! * status D0 = running, D1 = lever high on the right (the right display runs), D2 =
//!   battery low, and, as the real captures show, D3 with the left side running and D4 with
//!   the right side running;
//! * in Fischer mode DGT clocks add the first increment before the game starts (the real
//!   3+2 capture shows 3:02 on both sides).

use dgt_protocol::{ClockStatus, ClockTimes, SideTime};

use crate::time_control::TimeControl;

/// A display of the clock as seen from its front.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ClockSide {
    Left,
    Right,
}

impl ClockSide {
    pub fn other(self) -> Self {
        match self {
            ClockSide::Left => ClockSide::Right,
            ClockSide::Right => ClockSide::Left,
        }
    }
    fn index(self) -> usize {
        match self {
            ClockSide::Left => 0,
            ClockSide::Right => 1,
        }
    }
}

#[derive(Debug, Clone, Copy, Default)]
struct SideClock {
    /// Remaining time, valid at `Dgt3000::since` for the running side, exact otherwise.
    remaining_ms: u64,
    period: usize,
    moves_in_period: u32,
    flag_shown: bool,
    final_flag: bool,
}

/// What a flag fall did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FlagFall {
    /// 0x40: the period's flag is shown and the next period's time was added.
    NextPeriod,
    /// 0x10: the last period ran out; the clock is blocked at zero.
    Final,
}

#[derive(Debug, Clone)]
pub struct Dgt3000 {
    tc: TimeControl,
    sides: [SideClock; 2],
    /// The side whose lever is high, i.e. whose time runs while the clock runs.
    lever_high: ClockSide,
    started: bool,
    paused: bool,
    blocked: bool,
    since: u64,
    delay_left_ms: u64,
    pub battery_low: bool,
    flag_falls: Vec<(u64, ClockSide, FlagFall)>,
}

impl Dgt3000 {
    /// A clock set to `tc`, not started, lever high on `first_to_run`.
    pub fn new(tc: TimeControl, first_to_run: ClockSide) -> Self {
        let p0 = tc.periods[0];
        let side = SideClock {
            remaining_ms: p0.base_ms + p0.increment_ms,
            ..Default::default()
        };
        Dgt3000 {
            tc,
            sides: [side; 2],
            lever_high: first_to_run,
            started: false,
            paused: false,
            blocked: false,
            since: 0,
            delay_left_ms: 0,
            battery_low: false,
            flag_falls: Vec::new(),
        }
    }

    fn ticking(&self) -> bool {
        self.started && !self.paused && !self.blocked
    }

    pub fn is_running(&self) -> bool {
        self.ticking()
    }

    pub fn running_side(&self) -> ClockSide {
        self.lever_high
    }

    /// Starts the clock with `side` running (the arbiter or the player pressing start).
    pub fn start(&mut self, t: u64, side: ClockSide) {
        self.advance(t);
        self.lever_high = side;
        self.started = true;
        self.paused = false;
        self.since = t;
        self.delay_left_ms = self.tc.delay_ms;
    }

    /// The Start/Stop button: stops both displays (D0 = 0).
    pub fn pause(&mut self, t: u64) {
        self.advance(t);
        self.paused = true;
    }

    /// Brings the running side up to `t`, dropping flags at the exact instant time runs out.
    pub fn advance(&mut self, t: u64) {
        if !self.ticking() {
            self.since = self.since.max(t);
            return;
        }
        while t > self.since {
            let s = self.lever_high.index();
            let ticking_from = self.since + self.delay_left_ms;
            if t <= ticking_from {
                self.delay_left_ms -= t - self.since;
                self.since = t;
                return;
            }
            let flag_t = ticking_from + self.sides[s].remaining_ms;
            if t < flag_t {
                self.sides[s].remaining_ms -= t - ticking_from;
                self.delay_left_ms = 0;
                self.since = t;
                return;
            }
            // The flag falls at flag_t.
            self.delay_left_ms = 0;
            self.since = flag_t;
            let side = &mut self.sides[s];
            side.remaining_ms = 0;
            if side.period + 1 < self.tc.periods.len() {
                side.period += 1;
                side.moves_in_period = 0;
                side.remaining_ms = self.tc.periods[side.period].base_ms;
                side.flag_shown = true;
                self.flag_falls
                    .push((flag_t, self.lever_high, FlagFall::NextPeriod));
            } else {
                side.final_flag = true;
                self.blocked = true;
                self.flag_falls
                    .push((flag_t, self.lever_high, FlagFall::Final));
                return;
            }
        }
    }

    /// A press of the lever on `side`. Only the running side's press does anything (the
    /// other lever is already down). Returns whether the press switched the clock.
    pub fn press(&mut self, t: u64, side: ClockSide) -> bool {
        self.advance(t);
        if !self.ticking() || side != self.lever_high {
            return false;
        }
        let s = &mut self.sides[side.index()];
        let period = self.tc.periods[s.period];
        s.remaining_ms += period.increment_ms;
        s.moves_in_period += 1;
        if period.moves == Some(s.moves_in_period) && s.period + 1 < self.tc.periods.len() {
            // Move counter reached: the next period's time is added at this press.
            s.period += 1;
            s.moves_in_period = 0;
            s.remaining_ms += self.tc.periods[s.period].base_ms;
        }
        self.lever_high = side.other();
        self.since = t;
        self.delay_left_ms = self.tc.delay_ms;
        true
    }

    /// SetNRun (clock command 0x0A): both times set; flags 0x01 left runs, 0x02 right runs,
    /// 0x04 pause (protocol §2.2).
    pub fn set_and_run(&mut self, t: u64, left_ms: u64, right_ms: u64, flags: u8) {
        self.advance(t);
        for (i, ms) in [left_ms, right_ms].into_iter().enumerate() {
            self.sides[i].remaining_ms = ms;
            self.sides[i].final_flag = false;
            self.sides[i].flag_shown = false;
        }
        self.blocked = false;
        self.started = true;
        self.paused = flags & 0x04 != 0 || flags & 0x03 == 0;
        if flags & 0x02 != 0 && flags & 0x01 == 0 {
            self.lever_high = ClockSide::Right;
        } else if flags & 0x01 != 0 {
            self.lever_high = ClockSide::Left;
        }
        self.since = t;
        self.delay_left_ms = self.tc.delay_ms;
    }

    /// Exact remaining time of a side at `t`.
    pub fn remaining_ms(&mut self, side: ClockSide, t: u64) -> u64 {
        self.advance(t);
        self.sides[side.index()].remaining_ms
    }

    /// When the running side's flag will fall if nobody presses (`None` if not ticking).
    pub fn flag_time(&self) -> Option<u64> {
        self.ticking().then(|| {
            self.since + self.delay_left_ms + self.sides[self.lever_high.index()].remaining_ms
        })
    }

    /// Moves still to make in the side's current period (`None` for the last period).
    pub fn moves_left_in_period(&self, side: ClockSide) -> Option<u32> {
        let s = &self.sides[side.index()];
        self.tc.periods[s.period]
            .moves
            .map(|n| n.saturating_sub(s.moves_in_period))
    }

    pub fn increment_ms(&self, side: ClockSide) -> u64 {
        self.tc.periods[self.sides[side.index()].period].increment_ms
    }

    /// Every flag fall so far: (time, side, kind).
    pub fn flag_falls(&self) -> &[(u64, ClockSide, FlagFall)] {
        &self.flag_falls
    }

    /// What the clock shows at `t`, as the board relays it. The display shows whole seconds
    /// rounded up, so 0:00 appears exactly when the flag falls.
    pub fn reading(&mut self, t: u64) -> ClockTimes {
        self.advance(t);
        let shown = |s: &SideClock| SideTime {
            ms: s.remaining_ms.div_ceil(1000) * 1000,
            final_flag: s.final_flag,
            flag_shown: s.flag_shown,
            increment_shown: self.tc.has_increment(),
        };
        let right_high = self.lever_high == ClockSide::Right;
        ClockTimes {
            left: shown(&self.sides[0]),
            right: shown(&self.sides[1]),
            status: ClockStatus {
                running: self.ticking(),
                right_lever_high: right_high,
                battery_low: self.battery_low,
                // D3 (turn bit 0) goes with the left side, D4 (bit 1) with the right side,
                // as in the real captures (protocol §3.4, "where sources disagree" 2).
                turn_bits: if right_high { 0b10 } else { 0b01 },
                no_clock: false,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fischer_clock_counts_down_and_adds_increment_at_the_press() {
        let mut c = Dgt3000::new(TimeControl::fischer(180, 2), ClockSide::Left);
        let r = c.reading(0);
        assert_eq!(r.left.ms, 182_000, "first increment added before the start");
        assert!(r.left.increment_shown && !r.status.running);
        c.start(1000, ClockSide::Left);
        assert_eq!(c.remaining_ms(ClockSide::Left, 6000), 177_000);
        let r = c.reading(6000);
        assert!(r.status.running && !r.status.right_lever_high);
        assert_eq!(
            r.status.to_byte() & 0x18,
            0x08,
            "D3 with the left side running"
        );
        assert!(c.press(6000, ClockSide::Left));
        assert!(
            !c.press(6100, ClockSide::Left),
            "the low lever does nothing"
        );
        assert_eq!(c.remaining_ms(ClockSide::Left, 6500), 179_000);
        assert_eq!(c.remaining_ms(ClockSide::Right, 6500), 181_500);
        let r = c.reading(6500);
        assert!(r.status.right_lever_high);
        assert_eq!(r.status.to_byte(), 0x13);
    }

    #[test]
    fn final_flag_blocks_at_zero() {
        let mut c = Dgt3000::new(TimeControl::sudden_death(10), ClockSide::Right);
        c.start(0, ClockSide::Right);
        assert_eq!(c.flag_time(), Some(10_000));
        assert_eq!(
            c.reading(9_999).right.ms,
            1000,
            "0:01 until the last millisecond"
        );
        let r = c.reading(20_000);
        assert_eq!(r.right.ms, 0);
        assert!(r.right.final_flag && !r.status.running);
        assert_eq!(
            c.flag_falls(),
            &[(10_000, ClockSide::Right, FlagFall::Final)]
        );
        assert!(!c.press(20_000, ClockSide::Right));
    }

    #[test]
    fn periods_by_move_count_and_by_flag() {
        let tc = TimeControl::parse("2/60+0:30").unwrap();
        let mut c = Dgt3000::new(tc.clone(), ClockSide::Left);
        c.start(0, ClockSide::Left);
        c.press(1000, ClockSide::Left);
        c.press(2000, ClockSide::Right);
        assert_eq!(c.moves_left_in_period(ClockSide::Left), Some(1));
        c.press(3000, ClockSide::Left);
        assert_eq!(
            c.remaining_ms(ClockSide::Left, 3000),
            60_000 - 2000 + 30_000
        );
        assert_eq!(c.moves_left_in_period(ClockSide::Left), None);
        // Right lets period 1 run out: 0x40 shown, 30 s added, still running.
        let r = c.reading(3000 + 59_000 + 1000);
        assert!(r.right.flag_shown && !r.right.final_flag && r.status.running);
        assert_eq!(r.right.ms, 29_000);
    }

    #[test]
    fn delay_waits_before_counting() {
        let mut c = Dgt3000::new(TimeControl::parse("60d5").unwrap(), ClockSide::Left);
        c.start(0, ClockSide::Left);
        assert_eq!(c.remaining_ms(ClockSide::Left, 4000), 60_000);
        assert_eq!(c.remaining_ms(ClockSide::Left, 7000), 58_000);
        c.press(7000, ClockSide::Left);
        assert_eq!(c.flag_time(), Some(7000 + 5000 + 60_000));
    }
}
