//! The clock: its readings, presses (6.2.1), the sides' inference, equipment alerts and the
//! `clock` event.

use super::*;
use crate::verdict::{CalledBy, EquipmentVerdict};

impl Session {
    pub(super) fn on_clock(&mut self, t: u64, times: ClockTimes, out: &mut Emitted) {
        let before = self.clock.last().copied();
        let obs: ClockObservation = self.clock.observe(times);
        if obs.disconnected {
            let a = self.link_alert(
                AlertKind::ClockDisconnected,
                Severity::Review,
                EquipmentVerdict::ClockDisconnected,
            );
            self.equipment_alert(t, a, out);
        }
        if obs.rejected {
            self.link.clock_rejected += 1;
        }
        if !obs.accepted {
            return;
        }
        self.clock_tells_found(t, out);
        // White's clock runs at the start of a game — unless, on a bus line read once a
        // poll, White has moved already: the clock may first be seen running after White's
        // press, and the board's log of presses tells instead (`on_logged_press`).
        let moved_unseen = self.link.bus.is_some()
            && self.game.as_ref().is_some_and(|g| {
                self.board.physical.placement(self.board.orientation).board != *g.current().board()
            });
        let at_start = obs.started
            && self.clock.white_side().is_none()
            && self.game.as_ref().is_some_and(|g| g.plies() == 0);
        // The clock was started and pressed between two reports (the lever flipped while it
        // stood, protocol §3.4): the side running now is not the one started. The press is
        // judged as any other — it completed White's first move if the board shows one once
        // it has caught up, else it only started White's clock.
        let start_press = obs.started_by_press.filter(|_| at_start && !moved_unseen);
        if at_start
            && !moved_unseen
            && start_press.is_none()
            && let Some(d) = self.clock.running()
        {
            self.infer_running_side_to_move(d);
        }
        self.note_clock_start(t, out);
        self.check_quickplay_claim(t, out);
        self.check_recording(t, out);
        if obs.press.is_none() && !self.watch.pressed_in_game {
            self.check_start_times(t, &times, out);
        }
        // With an increment each press adds time to the presser's display (the clock
        // frame's increment indicator, protocol §3.4). Both displays up while the clock
        // ran and the lever is where it was: two presses fell between the clock's reports
        // (time trouble, moves ~100-200 ms apart), a move and its reply both completed.
        if obs.two_presses {
            self.press.two_hidden();
        }
        if let Some(display) = obs.press.or(start_press) {
            self.release_held_three_plies(t, out);
            let (after_hidden, thought) = self.press.seen(t, self.watch.pressed_in_game);
            self.watch.pressed_in_game = true;
            if let Some(before) = before {
                self.check_increment(t, display, thought, &before, &times, out);
            }
            self.on_press(t, display, after_hidden, out);
            self.press.press_after_hidden = after_hidden;
        }
        if obs.stopped && obs.new_flags.is_empty() {
            self.stopped_with_flag_down(t, out);
        }
        self.clock_state_alerts(t, &obs, &times, out);
        self.emit_clock(t, out);
        if !obs.new_flags.is_empty() {
            // A press still waiting for its verdict came before the flag (the clock reported
            // it first): the move it completed (6.2.1) is in the game before the flag is
            // judged — 6.9 judges the position then on the board, and the moves completed.
            self.overtake_pending_press(t, out);
            self.on_flags(t, &obs.new_flags, out);
        }
    }

    /// The clock stopped, no new flag in the reading: with a flag down but not yet counted
    /// (the clock ran on past it, or the flag waits to be called), the pause is the
    /// opponent's claim (6.8; A.4.3 / B8). A clock that stops by itself at a final flag does
    /// so in the flag's own reading.
    fn stopped_with_flag_down(&mut self, t: u64, out: &mut Emitted) {
        if !(self.watch.flags.uncalled.is_some() || self.watch.flags.pending.is_some())
            || !self.phase().is_playing()
        {
            return;
        }
        let article = if self.reduced() {
            self.rules.edition.reduced_flag_claim.0
        } else {
            self.rules.edition.flag_considered_fallen
        };
        let both_down = self
            .clock
            .last()
            .is_some_and(|l| l.left.flagged() && l.right.flagged());
        if self.reduced() && both_down {
            self.claim_with_own_flag_down(t, article, out);
        } else {
            self.flag_called(t, CalledBy::ClockStopped { article }, out);
        }
    }

    /// What a clock reading shows of the clock itself: stopped by a player (not by a final
    /// flag), times changed while it stood, a low battery.
    fn clock_state_alerts(
        &mut self,
        t: u64,
        obs: &ClockObservation,
        times: &ClockTimes,
        out: &mut Emitted,
    ) {
        // A display whose time ran out blocks the clock at zero by itself (protocol §3.4,
        // 0x10), in the reading that shows its final flag: nobody stopped it, and the flag
        // is judged on its own (6.8).
        let blocked_by_flag = obs.new_flags.iter().any(|&side| {
            let shown = match side {
                ClockSide::Left => times.left,
                ClockSide::Right => times.right,
            };
            shown.final_flag
        });
        if obs.stopped && !blocked_by_flag && self.playing().is_some_and(|g| g.plies() > 0) {
            let a = self.alert(
                AlertKind::ClockStopped,
                // 6.11 (2005 6.13): a player stops the clock only to call the arbiter.
                Severity::Review,
                None,
                "The clock was stopped.".into(),
            );
            out.push((t, EventBody::Alert(a)));
        }
        if obs.adjusted && self.phase().is_playing() {
            let mut a = self.alert(
                AlertKind::ClockAdjusted,
                Severity::Info,
                None,
                "The times were changed while the clock was stopped (an arbiter's correction)."
                    .into(),
            );
            (a.white_ms, a.black_ms) = self.clock.white_black_ms();
            out.push((t, EventBody::Alert(a)));
        }
        if obs.battery_low {
            let a = self.link_alert(
                AlertKind::BatteryLow,
                Severity::Info,
                EquipmentVerdict::BatteryLow,
            );
            self.equipment_alert(t, a, out);
        }
    }

    /// Raises an equipment alert once per board: while the same kind repeats within
    /// `EQUIPMENT_COALESCE_MS` of its last time (a battery indicator flickering, a clock
    /// cable flapping), each repeat re-sends the first alert — same id — with the count and
    /// the latest time, rather than a new alert per transition.
    pub(super) fn equipment_alert(&mut self, t: u64, mut a: Alert, out: &mut Emitted) {
        match self.equipment.iter_mut().find(|(kind, id, _, last)| {
            *kind == a.kind && *id != 0 && t <= last + EQUIPMENT_COALESCE_MS
        }) {
            Some((_, id, count, last)) => {
                *count += 1;
                *last = t;
                a.id = *id;
                a.repeats = Some(*count);
                a.last_t_ms = Some(t);
                a.message
                    .push_str(&format!(" (repeated: {count} times on this board)"));
            }
            None => {
                self.equipment.retain(|(kind, ..)| *kind != a.kind);
                self.equipment.push((a.kind, 0, 1, t));
            }
        }
        out.push((t, EventBody::Alert(a)));
    }

    pub(super) fn emit_clock(&self, t: u64, out: &mut Emitted) {
        let Some(last) = self.clock.last() else {
            return;
        };
        let (white_ms, black_ms) = self.clock.white_black_ms();
        let running = self.clock.running().and_then(|d| {
            self.clock
                .white_side()
                .map(|w| if d == w { Side::White } else { Side::Black })
        });
        out.push((
            t,
            EventBody::Clock(ClockEvent {
                white_ms,
                black_ms,
                running,
                left_ms: last.left.ms,
                right_ms: last.right.ms,
                white_side: self.clock.white_side(),
            }),
        ));
    }

    /// A press of `display`; `after_hidden`: two presses were read unseen since the last
    /// press seen.
    pub(super) fn on_press(
        &mut self,
        t: u64,
        display: ClockSide,
        after_hidden: bool,
        out: &mut Emitted,
    ) {
        // While the board's log is awaited, a press is judged from the log (it holds it).
        if self.timers.is_set(Timer::LogWait) {
            return;
        }
        if !self.phase().is_playing() {
            return;
        }
        // An earlier press still waiting for its verdict is overtaken by this one.
        self.press.overtaken_by = (!after_hidden).then_some(display);
        self.overtake_pending_press(t, out);
        self.press.overtaken_by = None;
        // The board reports a square up to one scan (200–250 ms) after the piece lands, and
        // the press may be relayed before that: look at the board once it has caught up.
        self.press.reading = self.clock.last().copied();
        self.press.seen_at = t;
        self.look_at_press(t + self.rules.settle_ms, display, false);
    }

    /// The display `running` is the clock of the player to move (6.x: a player's clock runs
    /// while it is his move), as at the start of a game.
    pub(super) fn infer_running_side_to_move(&mut self, running: ClockSide) {
        let white_to_move = self
            .game
            .as_ref()
            .is_none_or(|g| g.current().turn().is_white());
        self.clock.infer_white_side(if white_to_move {
            running
        } else {
            running.other()
        });
    }

    pub(super) fn infer_from_press(&mut self, display: ClockSide, mover: Color) {
        if self.clock.white_side().is_none() {
            self.clock.infer_white_side(if mover.is_white() {
                display
            } else {
                display.other()
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session() -> Session {
        Session::new("b", &CoreConfig::default())
    }

    #[test]
    fn a_press_by_white_makes_the_pressed_display_white_s() {
        let mut s = session();
        s.infer_from_press(ClockSide::Left, Color::White);
        assert_eq!(s.clock.white_side(), Some(ClockSide::Left));
        let mut s = session();
        s.infer_from_press(ClockSide::Left, Color::Black);
        assert_eq!(s.clock.white_side(), Some(ClockSide::Right));
    }

    #[test]
    fn a_press_does_not_turn_the_clock_s_sides_once_known() {
        let mut s = session();
        s.infer_from_press(ClockSide::Right, Color::White);
        s.infer_from_press(ClockSide::Right, Color::Black);
        assert_eq!(s.clock.white_side(), Some(ClockSide::Right));
    }

    #[test]
    fn the_clock_running_before_a_game_is_white_s() {
        // A player's clock runs while it is his move; with no game, White is on move.
        let mut s = session();
        s.infer_running_side_to_move(ClockSide::Right);
        assert_eq!(s.clock.white_side(), Some(ClockSide::Right));
    }
}
