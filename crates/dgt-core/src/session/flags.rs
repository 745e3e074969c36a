//! Flags: a fallen flag and what it means (6.9; 2005 6.10), periods reached, both flags
//! (III.3.1; 2005 6.12 / B9), a flag that counts only when called or claimed (6.8;
//! reduced supervision A.4.3 / A.5.3 / B8).

use super::*;
use crate::verdict::{Article, CalledBy, FlagCall, FlagDecision, FlagVerdict};

impl Session {
    pub(super) fn on_flags(&mut self, t: u64, displays: &[ClockSide], out: &mut Emitted) {
        let Some(g) = &self.game else { return };
        if g.is_over() {
            self.second_flag_after_end(t, out);
            return;
        }
        if self.bughouse_flags(t, displays, out) {
            return;
        }
        let Some(white) = self.clock.white_side() else {
            return;
        };
        let last = self.clock.last().copied();
        let both = last.is_some_and(|l| l.left.flagged() && l.right.flagged());
        // Both flags in one reading: which fell first is unknown (after a gap in the
        // readings). One flag while the other was already down and the game went on: known.
        let new_both = both && displays.len() == 2;
        if both
            && (new_both || self.watch.flags.pending.is_some())
            && self.on_both_flags(t, new_both, out)
        {
            return;
        }
        for &d in displays {
            if !self.one_flag(t, d, white, last, both, out) {
                break;
            }
        }
    }

    /// The flag of display `d` is down: a period reached, or a flag fallen. Whether the
    /// next display's flag is to be looked at.
    fn one_flag(
        &mut self,
        t: u64,
        d: ClockSide,
        white: ClockSide,
        last: Option<ClockTimes>,
        both: bool,
        out: &mut Emitted,
    ) -> bool {
        let Some(g) = &self.game else { return false };
        if g.is_over() {
            return false;
        }
        let flagged = if d == white {
            Color::White
        } else {
            Color::Black
        };
        let final_flag = last.is_some_and(|l| match d {
            ClockSide::Left => l.left.final_flag,
            ClockSide::Right => l.right.final_flag,
        });
        // Moves the flagged player completed.
        let done = g
            .moves
            .iter()
            .enumerate()
            .filter(|(i, _)| {
                let start_white = g.positions[0].turn().is_white();
                (i % 2 == 0) == (start_white == flagged.is_white())
            })
            .count() as u32;
        if !final_flag && self.period_reached(t, flagged, done, out) {
            return true;
        }
        self.flag_fell(t, flagged, done, both, out)
    }

    /// 6.4 (2005 6.3): the flag of `flagged` fell at the end of a period whose moves he
    /// completed (`done`): reported, and the next period begins.
    fn period_reached(&mut self, t: u64, flagged: Color, done: u32, out: &mut Emitted) -> bool {
        // At the flag of period k, the moves of periods 0..=k must be completed.
        let period = self.watch.flags.periods_reached[flagged];
        let required = self
            .rules
            .time_control
            .as_ref()
            .and_then(|tc| tc.moves_required_by(period));
        if required.is_some_and(|r| done >= r) {
            self.watch.flags.periods_reached[flagged] += 1;
            let verdict = FlagVerdict::new(
                self.rules.edition.time_control_check,
                FlagDecision::PeriodReached { flagged },
                FlagCall::Declared,
            )
            .fell(flagged, done);
            let mut a = self.alert(
                AlertKind::FlagFall,
                Severity::Info,
                Some(flagged),
                verdict.message().unwrap_or_default(),
            );
            a.article = Some(verdict.article.into());
            a.verdict = Some(Box::new(verdict.into()));
            out.push((t, EventBody::Alert(a)));
            return true;
        }
        false
    }

    /// The flag of `flagged` fell with `done` moves completed (6.9; both flags: III.3.1):
    /// the alert, and the game's end unless the flag waits to be called or claimed. Whether
    /// the next display's flag is to be looked at.
    fn flag_fell(
        &mut self,
        t: u64,
        flagged: Color,
        done: u32,
        both: bool,
        out: &mut Emitted,
    ) -> bool {
        let Some(g) = &self.game else { return false };
        let opp = !flagged;
        let mode = g.castling_mode;
        // 6.9: the flag loses unless the opponent cannot checkmate by any series of legal
        // moves; never a draw without a proof.
        let ability = crate::dead::full(g.current(), mode, opp);
        let (kind, reason) = if both {
            (AlertKind::BothFlagsFallen, EndReason::BothFlagsFallen)
        } else {
            (AlertKind::FlagFall, EndReason::FlagFall)
        };
        let decision = if both {
            FlagDecision::BothFlagsDrawn
        } else {
            flag_decision(flagged, ability)
        };
        let (severity, called_later, call) = self.flag_call(both);
        let verdict =
            FlagVerdict::new(self.rules.edition.flag_fall, decision, call).fell(flagged, done);
        let result = verdict.result;
        let message = verdict.message().unwrap_or_default();
        let mut a = self.alert(kind, severity, Some(flagged), message);
        a.article = Some(verdict.article.into());
        (a.white_ms, a.black_ms) = self.clock.white_black_ms();
        a.prescription = verdict.render();
        a.verdict = Some(Box::new(verdict.into()));
        out.push((t, EventBody::Alert(a)));
        if called_later {
            self.watch.flags.uncalled = Some(UncalledFlag {
                flagged,
                t_ms: t,
                alert: None,
            });
            return true;
        }
        if severity != Severity::Intervene {
            self.watch.flags.pending = Some(flagged);
            return true;
        }
        if let (Some(g), Some(result)) = (&mut self.game, result) {
            g.result = Some((result, reason));
            out.push((
                t,
                EventBody::GameEnd {
                    game: g.id.clone(),
                    result,
                    reason,
                },
            ));
            if !both {
                self.watch.flags.game_ending = Some((flagged, t));
            }
        }
        !both
    }

    /// How a fallen flag is called: the alert's severity, whether it counts only once
    /// called (`flag_counts = when_called`), and who calls it.
    fn flag_call(&self, both: bool) -> (Severity, bool, FlagCall) {
        // Reduced supervision in rapid and blitz: 2005 only on a claim (B7), 2017 the
        // arbiter may call it (A4.5), 2018 / 2023 he shall (A.4.5 / A.5.5). A flag
        // nobody has to call ends the game only when the arbiter enters the result.
        let severity = if both || !self.reduced() {
            Severity::Intervene
        } else {
            self.rules.edition.reduced_flag_severity
        };
        // The verified count of completed moves (6.12.2; 2017 6.13.2): the record, not a
        // public display, decides whether a period was completed.
        let called_later = severity == Severity::Intervene
            && !both
            && self.rules.flag_counts == crate::config::FlagCounts::WhenCalled;
        let call = match severity {
            Severity::Claim => FlagCall::OnClaim,
            // Only fide-2017 has `review` here: A4.5 (the A4 rules also for blitz, B4).
            Severity::Review => FlagCall::MayCall,
            _ if called_later => FlagCall::CallFirst {
                article: self.rules.edition.flag_considered_fallen,
            },
            _ => FlagCall::Declared,
        };
        (severity, called_later, call)
    }

    /// The other flag falls after a flag ended the game: the order is known and reported
    /// for the record (L17 T46 (c), L05 T22 (c)); the result does not change.
    pub(super) fn second_flag_after_end(&mut self, t: u64, out: &mut Emitted) {
        let Some((first, at)) = self.watch.flags.game_ending else {
            return;
        };
        let both = self
            .clock
            .last()
            .is_some_and(|l| l.left.flagged() && l.right.flagged());
        if !both {
            return;
        }
        self.watch.flags.game_ending = None;
        let verdict = FlagVerdict::new(
            self.rules.edition.flag_fall,
            FlagDecision::FirstFellBefore {
                first,
                by_ms: t.saturating_sub(at),
            },
            FlagCall::Declared,
        );
        let mut a = self.alert(
            AlertKind::BothFlagsFallen,
            Severity::Info,
            Some(first),
            verdict.message().unwrap_or_default(),
        );
        a.article = Some(verdict.article.into());
        a.verdict = Some(Box::new(verdict.into()));
        out.push((t, EventBody::Alert(a)));
    }

    /// Both flags are down: with the order unknown (`unknown`), or after a first flag that
    /// did not end the game. 2005 rapid and blitz: drawn (B9). 2005 standard, order unknown:
    /// the game goes on unless it is the last period, then drawn (6.12a / 6.12b). A known
    /// order is reported. Returns whether the flags were dealt with here.
    pub(super) fn on_both_flags(&mut self, t: u64, unknown: bool, out: &mut Emitted) -> bool {
        if self.reduced()
            && let Some(art) = self.rules.edition.reduced_both_flags_draw
        {
            self.both_flags_drawn(
                t,
                art,
                "Both flags have fallen: the game is drawn.".into(),
                out,
            );
            return true;
        }
        if unknown {
            return self.both_flags_order_unknown(t, out);
        }
        let Some(first) = self.watch.flags.pending else {
            return false;
        };
        let mut a = self.alert(
            AlertKind::BothFlagsFallen,
            Severity::Info,
            Some(first),
            format!(
                "Both flags are down; {}'s fell first.",
                arbiter::side_name(first)
            ),
        );
        a.article = Some(self.rules.edition.flag_fall.into());
        out.push((t, EventBody::Alert(a)));
        true
    }

    /// Both flags fell in one reading, which first unknown (after a gap in the readings):
    /// the game goes on before the last period, is drawn in it, where the edition (or an
    /// announced Guideline III) says so. Whether it was judged.
    fn both_flags_order_unknown(&mut self, t: u64, out: &mut Emitted) -> bool {
        // Guideline III applies only when announced, and only to a quickplay finish
        // without increment (III.1, III.2.1).
        let no_increment = self.rules.time_control.as_ref().is_some_and(|tc| {
            tc.periods
                .iter()
                .all(|p| p.bonus == crate::time_control::Bonus::None)
        });
        let guideline = self
            .rules
            .edition
            .guideline_iii_both_flags
            .filter(|_| self.rules.guideline_iii && no_increment);
        let Some((go_on, drawn)) = self.rules.edition.both_flags_continue_draw.or(guideline) else {
            return false;
        };
        let later_period = self.rules.time_control.as_ref().is_some_and(|tc| {
            tc.moves_required_by(
                self.watch
                    .flags
                    .periods_reached
                    .white
                    .min(self.watch.flags.periods_reached.black),
            )
            .is_some()
        });
        if later_period {
            let verdict = FlagVerdict::new(go_on, FlagDecision::BothFlagsGoOn, FlagCall::Declared);
            let mut a = self.alert(
                AlertKind::BothFlagsFallen,
                Severity::Review,
                None,
                format!(
                    "Both flags have fallen and which fell first is unknown, before the last period: {}.",
                    verdict.consequence()
                ),
            );
            a.article = Some(verdict.article.into());
            a.prescription = verdict.render();
            a.verdict = Some(Box::new(verdict.into()));
            out.push((t, EventBody::Alert(a)));
        } else {
            self.both_flags_drawn(
                t,
                drawn,
                "Both flags have fallen in the last period and which fell first is unknown: the game is drawn.".into(),
                out,
            );
        }
        true
    }

    /// Both flags have fallen and the game is drawn under `art`.
    fn both_flags_drawn(&mut self, t: u64, art: Article, message: String, out: &mut Emitted) {
        let verdict = FlagVerdict::new(art, FlagDecision::BothFlagsDrawn, FlagCall::Declared);
        let mut a = self.alert(
            AlertKind::BothFlagsFallen,
            Severity::Intervene,
            None,
            message,
        );
        a.article = Some(verdict.article.into());
        (a.white_ms, a.black_ms) = self.clock.white_black_ms();
        a.prescription = verdict.render();
        a.verdict = Some(Box::new(verdict.into()));
        out.push((t, EventBody::Alert(a)));
        if let (Some(g), Some(result)) = (&mut self.game, verdict.result) {
            g.result = Some((result, EndReason::BothFlagsFallen));
            out.push((
                t,
                EventBody::GameEnd {
                    game: g.id.clone(),
                    result,
                    reason: EndReason::BothFlagsFallen,
                },
            ));
        }
    }

    /// A player claims a flag (6.8; 2005 6.9, B7): valid when a flag is down that has not
    /// ended the game yet.
    pub(super) fn flag_claimed(&mut self, t: u64, out: &mut Emitted) {
        if self.game.as_ref().is_none_or(|g| g.is_over()) {
            return;
        }
        if self.watch.flags.uncalled.is_some() || self.watch.flags.pending.is_some() {
            let (article, must_stop) = self.rules.edition.reduced_flag_claim;
            let by = if self.reduced() && must_stop && self.clock.running().is_some() {
                CalledBy::ClaimWithoutStopping { article }
            } else {
                CalledBy::Claim
            };
            self.flag_called(t, by, out);
            return;
        }
        let verdict = FlagVerdict::new(
            self.rules.edition.flag_considered_fallen,
            FlagDecision::NoFlagDown,
            FlagCall::Called,
        );
        let mut a = self.alert(
            AlertKind::FlagFall,
            Severity::Review,
            None,
            format!("Flag claim recorded, but {}.", verdict.consequence()),
        );
        a.title = Some("Flag claim: no flag down".into());
        a.article = Some(verdict.article.into());
        (a.white_ms, a.black_ms) = self.clock.white_black_ms();
        a.prescription = verdict.render();
        a.verdict = Some(Box::new(verdict.into()));
        out.push((t, EventBody::Alert(a)));
    }

    /// The flag counts now (6.8): the game is lost by the flagged player unless the opponent
    /// cannot checkmate by any series of legal moves (6.9), judged in the position on the
    /// board now — a flag noticed late is treated as if it had just fallen.
    /// L17 T37 (c): the clock stopped to claim a flag while the claimant's own flag is down
    /// too — the claim is invalid (A4.3 / A.4.3 / A.5.3). FIDE's 2017 interpretation (#6)
    /// lets the flag that fell first decide, which the arbiter rules on: no result here.
    pub(super) fn claim_with_own_flag_down(&mut self, t: u64, article: Article, out: &mut Emitted) {
        let Some(flagged) = self.watch.flags.take_waiting() else {
            return;
        };
        // 6.9: the first flag loses unless the opponent cannot checkmate.
        let verdict = FlagVerdict::new(
            Article::new("6.9"),
            FlagDecision::FirstFlagDecides { flagged },
            FlagCall::Called,
        )
        .called_by(flagged, CalledBy::InvalidClaimOwnFlagDown { article });
        let mut a = self.alert(
            AlertKind::BothFlagsFallen,
            Severity::Review,
            Some(!flagged),
            verdict.message().unwrap_or_default(),
        );
        a.article = Some(article.into());
        (a.white_ms, a.black_ms) = self.clock.white_black_ms();
        a.prescription = verdict.render();
        a.verdict = Some(Box::new(verdict.into()));
        out.push((t, EventBody::Alert(a)));
    }

    pub(super) fn flag_called(&mut self, t: u64, by: CalledBy, out: &mut Emitted) {
        let Some(flagged) = self.watch.flags.take_waiting() else {
            return;
        };
        let Some(g) = &self.game else { return };
        if g.is_over() {
            return;
        }
        let opp = !flagged;
        let decision = flag_decision(
            flagged,
            crate::dead::full(g.current(), g.castling_mode, opp),
        );
        let verdict = FlagVerdict::new(self.rules.edition.flag_fall, decision, FlagCall::Called)
            .called_by(flagged, by);
        let mut a = self.alert(
            AlertKind::FlagFall,
            Severity::Intervene,
            Some(flagged),
            verdict.message().unwrap_or_default(),
        );
        a.article = Some(self.rules.edition.flag_considered_fallen.into());
        (a.white_ms, a.black_ms) = self.clock.white_black_ms();
        a.prescription = verdict.render();
        a.verdict = Some(Box::new(verdict.into()));
        out.push((t, EventBody::Alert(a)));
        if let (Some(g), Some(result)) = (&mut self.game, verdict.result) {
            g.result = Some((result, EndReason::FlagFall));
            out.push((
                t,
                EventBody::GameEnd {
                    game: g.id.clone(),
                    result,
                    reason: EndReason::FlagFall,
                },
            ));
        }
    }
}

/// 6.9 (2005 6.10): a flag loses unless the opponent cannot checkmate by any series of
/// legal moves — never a draw without a proof.
pub(super) fn flag_decision(flagged: Color, ability: MateAbility) -> FlagDecision {
    match ability {
        MateAbility::CanMate => FlagDecision::LosesOnTime { flagged },
        MateAbility::CannotMate => FlagDecision::OpponentCannotMate { flagged },
        MateAbility::Undetermined => FlagDecision::Undetermined { flagged },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edition::Edition;

    /// A session of board "b" under `edition` and `supervision`, playing `tc` (seconds).
    fn session(edition: Edition, supervision: Supervision, tc: &str) -> Session {
        let mut s = Session::new("b", &CoreConfig::default());
        s.rules.edition = arbiter::edition_with(edition, None);
        s.rules.supervision = supervision;
        s.rules.time_control = Some(TimeControl::parse(tc).expect("a time control"));
        s
    }

    #[test]
    fn a_flag_loses_unless_the_opponent_cannot_mate() {
        let w = Color::White;
        assert_eq!(
            flag_decision(w, MateAbility::CanMate),
            FlagDecision::LosesOnTime { flagged: w }
        );
        assert_eq!(
            flag_decision(w, MateAbility::CannotMate),
            FlagDecision::OpponentCannotMate { flagged: w }
        );
        assert_eq!(
            flag_decision(w, MateAbility::Undetermined),
            FlagDecision::Undetermined { flagged: w }
        );
    }

    #[test]
    fn a_flag_under_full_supervision_is_declared_at_once() {
        let s = session(Edition::Fide2023, Supervision::Full, "300");
        assert_eq!(
            s.flag_call(false),
            (Severity::Intervene, false, FlagCall::Declared)
        );
    }

    #[test]
    fn a_flag_in_reduced_blitz_follows_the_edition() {
        let cases = [
            (Edition::Fide2005, Severity::Claim, FlagCall::OnClaim),
            (Edition::Fide2017, Severity::Review, FlagCall::MayCall),
            (Edition::Fide2023, Severity::Intervene, FlagCall::Declared),
        ];
        for (edition, severity, call) in cases {
            let s = session(edition, Supervision::Reduced, "300");
            assert_eq!(s.flag_call(false), (severity, false, call), "{edition:?}");
        }
    }

    #[test]
    fn both_flags_are_for_the_arbiter_even_under_reduced_supervision() {
        let s = session(Edition::Fide2005, Supervision::Reduced, "300");
        assert_eq!(s.flag_call(true).0, Severity::Intervene);
    }

    #[test]
    fn a_flag_that_counts_when_called_is_called_first() {
        let mut s = session(Edition::Fide2023, Supervision::Full, "5400");
        s.rules.flag_counts = crate::config::FlagCounts::WhenCalled;
        let (severity, called_later, call) = s.flag_call(false);
        assert_eq!(severity, Severity::Intervene);
        assert!(called_later);
        assert_eq!(
            call,
            FlagCall::CallFirst {
                article: s.rules.edition.flag_considered_fallen
            }
        );
        // Both flags down: the game is drawn whoever calls them (no call to wait for).
        assert_eq!(
            s.flag_call(true),
            (Severity::Intervene, false, FlagCall::Declared)
        );
    }
}
