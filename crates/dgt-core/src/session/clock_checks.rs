//! What the clock readings tell beyond the moves: the clock set to other times or without
//! the increment (6.10.2; 2005 6.11), recording no longer required (8.4), a quickplay-finish
//! claim possible (III.5; 2005 10.2).

use super::*;
use crate::verdict::{ClockSettingVerdict, ClockVerdict, SettingMismatch};

impl Session {
    /// 8.4: in standard play, a player with less than five minutes left in a period without
    /// an increment of 30 s or more need not record the moves for the rest of that period.
    /// (Rapid and blitz need no recording at all.) Info for the arbiter, once per period.
    pub(super) fn check_recording(&mut self, t: u64, out: &mut Emitted) {
        use crate::time_control::{Bonus, Category};
        let (Some(g), Some(tc)) = (&self.game, &self.rules.time_control) else {
            return;
        };
        if g.is_over() || self.category_of(tc) != Category::Standard {
            return;
        }
        let clocks = self.clock.ms_by_color();
        for who in Color::ALL {
            let Some(ms) = clocks[who] else { continue };
            let period =
                self.watch.flags.periods_reached[who].min(tc.periods.len().saturating_sub(1));
            let big_increment = matches!(
                tc.periods.get(period).map(|p| p.bonus),
                Some(Bonus::Increment(inc)) if inc >= 30_000
            );
            if ms == 0
                || ms >= 300_000
                || big_increment
                || self.watch.clock_hints.recording_told[who] > period
            {
                continue;
            }
            self.watch.clock_hints.recording_told[who] = period + 1;
            let (exempt, keep) = self.rules.edition.recording_exempt;
            let name = arbiter::side_name(who);
            let mut a = self.alert(
                AlertKind::RecordingNotRequired,
                Severity::Info,
                Some(who),
                format!(
                    "{name} has {} left in this period without an increment of 30 s: no longer obliged to record the moves ({exempt}).",
                    mmss(ms)
                ),
            );
            a.article = Some(exempt.into());
            (a.white_ms, a.black_ms) = (clocks.white, clocks.black);
            let verdict = ClockVerdict::RecordingNotRequired {
                side: who,
                exempt,
                keep,
            };
            a.prescription = Some(verdict.render());
            a.verdict = Some(Box::new(verdict.into()));
            out.push((t, EventBody::Alert(a)));
        }
    }

    /// 2005 10.2 / 2017+ III.5: the player on move, with less than two minutes in the final
    /// period of a game without increment (not blitz: 2005 C2, III.2.2), may claim a draw.
    /// For the arbiter only, once per player and game.
    pub(super) fn check_quickplay_claim(&mut self, t: u64, out: &mut Emitted) {
        use crate::time_control::{Bonus, Category};
        let (article, needs_guideline) = self.rules.edition.quickplay_claim;
        if needs_guideline && !self.rules.guideline_iii {
            return;
        }
        let (Some(g), Some(tc)) = (&self.game, &self.rules.time_control) else {
            return;
        };
        if g.is_over() || self.category_of(tc) == Category::Blitz {
            return;
        }
        let on_move = g.current().turn();
        let period = self.watch.flags.periods_reached[on_move];
        let last_period = tc.moves_required_by(period).is_none();
        let no_increment = tc.periods.iter().all(|p| p.bonus == Bonus::None);
        if self.watch.clock_hints.quickplay_told[on_move] || !last_period || !no_increment {
            return;
        }
        let clocks = self.clock.ms_by_color();
        let Some(ms) = clocks[on_move] else {
            return;
        };
        if ms == 0 || ms >= 120_000 {
            return;
        }
        self.watch.clock_hints.quickplay_told[on_move] = true;
        let name = arbiter::side_name(on_move);
        let mut a = self.alert(
            AlertKind::QuickplayClaimPossible,
            Severity::Claim,
            Some(on_move),
            format!(
                "{name} is on move with {} left in the final period, without increment: {name} may claim a draw ({article}).",
                mmss(ms)
            ),
        );
        a.article = Some(article.into());
        (a.white_ms, a.black_ms) = (clocks.white, clocks.black);
        // Two minutes to the opponent on a postponed or rejected claim (III.5; 2005 10.2).
        let verdict = ClockVerdict::QuickplayClaim {
            claimant: on_move,
            rejected_gives_opponent_ms: 120_000,
        };
        a.prescription = Some(verdict.render());
        a.verdict = Some(Box::new(verdict.into()));
        out.push((t, EventBody::Alert(a)));
    }

    /// 6.10.2 (2005 6.11): at the start of a game, a display that does not run must show the
    /// first period's time (or it plus the first increment), and the running one no more.
    pub(super) fn check_start_times(&mut self, t: u64, times: &ClockTimes, out: &mut Emitted) {
        const TOLERANCE_MS: u64 = 2_000;
        if self.watch.clock_hints.setting_reported {
            return;
        }
        let (Some(g), Some(tc)) = (&self.game, &self.rules.time_control) else {
            return;
        };
        if g.plies() > 0 || g.is_over() || self.clock.white_side().is_none() {
            return;
        }
        // A game resumed from a set-up position (an adjourned game) has its own times.
        if reconstruct::start_position(g.positions[0].board()).is_none()
            && reconstruct::wrong_setup(g.positions[0].board()).is_none()
        {
            return;
        }
        let Some(first) = tc.periods.first() else {
            return;
        };
        let base = first.base_ms;
        // DGT clocks in Fischer mode add the first increment before the start.
        let top = match first.bonus {
            crate::time_control::Bonus::Increment(inc) => base + inc,
            _ => base,
        };
        let running = crate::clock::running_display(times);
        let wrong = [ClockSide::Left, ClockSide::Right].into_iter().any(|d| {
            let ms = crate::clock::display_ms(times, d);
            if running == Some(d) {
                ms > top + TOLERANCE_MS
            } else {
                ms.abs_diff(base) > TOLERANCE_MS && ms.abs_diff(top) > TOLERANCE_MS
            }
        });
        if !wrong {
            return;
        }
        self.watch.clock_hints.setting_reported = true;
        let (w, b) = self.clock.white_black_of(times);
        let mismatch = SettingMismatch::StartTime {
            white_ms: w,
            black_ms: b,
            control: tc.text.clone(),
            base_ms: base,
        };
        let mut a = self.alert(
            AlertKind::ClockSettingMismatch,
            Severity::Review,
            None,
            mismatch.message(),
        );
        let article = match &self.bughouse {
            Some(seat) => {
                a.edition = seat.regulation.name().into();
                seat.regulation.time_article()
            }
            None => self.rules.edition.clock_setting,
        };
        a.article = Some(article.into());
        (a.white_ms, a.black_ms) = (w, b);
        let verdict = ClockSettingVerdict {
            mismatch,
            prescription: ClockVerdict::SetStartTime {
                base_ms: base,
                article,
            },
        };
        a.prescription = Some(verdict.prescription.render());
        a.verdict = Some(Box::new(verdict.into()));
        out.push((t, EventBody::Alert(a)));
    }

    /// 6.10.2 (2005 6.11): a press must add the increment of the time control in force.
    /// Readings come about once a second, so a press adds the increment less up to a second
    /// of thinking (1.5 s allowed): three presses in a row by one player that added less
    /// say the clock is set without it (L17 T56, KNSB-16).
    pub(super) fn check_increment(
        &mut self,
        t: u64,
        display: ClockSide,
        thought: Option<u64>,
        before: &ClockTimes,
        now: &ClockTimes,
        out: &mut Emitted,
    ) {
        use crate::time_control::Bonus;
        const PRESSES: u32 = 3;
        if self.watch.clock_hints.setting_reported {
            return;
        }
        let (Some(white), Some(tc)) = (self.clock.white_side(), &self.rules.time_control) else {
            return;
        };
        let who = Color::from_white(display == white);
        let period = self.watch.flags.periods_reached[who].min(tc.periods.len().saturating_sub(1));
        // What the press must give back: a Fischer increment always; a Bronstein delay the
        // time used, up to the delay (KNSB-15: 30 s, delay 10 s, a move in 12 s → 28 s).
        let inc = match tc.periods.get(period).map(|p| p.bonus) {
            Some(Bonus::Increment(inc)) => inc,
            Some(Bonus::Bronstein(delay)) => match thought {
                Some(used) => used.min(delay),
                None => return,
            },
            _ => return,
        };
        if inc < 2_000 {
            return;
        }
        let ms = |t: &ClockTimes| crate::clock::display_ms(t, display);
        let gained = ms(now) as i64 - ms(before) as i64;
        if gained + 1_500 >= inc as i64 {
            self.watch.clock_hints.short_increments[who] = 0;
            return;
        }
        self.watch.clock_hints.short_increments[who] += 1;
        if self.watch.clock_hints.short_increments[who] < PRESSES {
            return;
        }
        self.watch.clock_hints.setting_reported = true;
        let verdict = ClockSettingVerdict {
            mismatch: SettingMismatch::NoTimeBack {
                presses: PRESSES,
                side: who,
                control: tc.text.clone(),
                bonus: tc.periods[period].bonus,
            },
            prescription: ClockVerdict::InstallCorrectSetting {
                article: self.rules.edition.clock_setting,
            },
        };
        let mut a = self.alert(
            AlertKind::ClockSettingMismatch,
            Severity::Review,
            Some(who),
            verdict.mismatch.message(),
        );
        a.article = Some(self.rules.edition.clock_setting.into());
        (a.white_ms, a.black_ms) = self.clock.white_black_ms();
        a.prescription = Some(verdict.prescription.render());
        a.verdict = Some(Box::new(verdict.into()));
        out.push((t, EventBody::Alert(a)));
    }
}
