//! The referee: acts on the move reader's readings (`reader.rs`) at the three moments a
//! decision is taken — the board **settled** ([`Session::on_settled`]), a **press** judged
//! ([`Session::decide_press`]), a waiting period run out (`on_due`) — committing moves,
//! waiting longer, or raising the alerts the Laws call for.

use super::reader::{PressReading, Reading};
use super::*;

impl Session {
    /// The placement has been unchanged for `settle_ms`: a new game, play after the end, or
    /// what the board shows of the game being played.
    pub(super) fn on_settled(&mut self, t: u64, out: &mut Emitted) {
        if self.log_awaited(t) || !self.board.physical.is_known() {
            return;
        }
        let depth = self.decision_depth();
        // A bus board's first report after an outage can end in the middle of a move (its
        // log holds the whole outage, its scan lags the press): the gap stays open until
        // the board shows a placement that moves explain.
        if self.link.bus.is_none() {
            self.reader.after_gap = false;
        }
        if self.settled_new_game(t, depth, out) {
            return;
        }
        if self.bughouse.is_some() {
            self.expire_partner_takes(t, out);
        }
        // No game followed: a game under way may be found; one begun from the placement found
        // before reads this one as its first move.
        if matches!(self.phase(), Phase::NoGame) && !self.settled_without_game(t, out) {
            return;
        }
        match self.phase() {
            Phase::NoGame => return,
            Phase::Over(_) if self.bughouse.is_some() => return self.watch_frozen_board(t, out),
            Phase::Over(_) => return self.watch_play_after_end(t, out),
            Phase::Playing(_) => {}
        }
        let Some(reading) = self.read_settled(t, depth) else {
            return;
        };
        match reading {
            Reading::Gesture { result, how, kings } => {
                self.settled_gesture(t, result, how, kings, out)
            }
            Reading::Same => self.settled_same(t, out),
            Reading::Moves(path) => self.settled_moves(t, depth, path, out),
            Reading::Correct(m) => {
                self.back_to_legal(t, out);
                self.correct_last(t, m, out);
            }
            // Bughouse: a piece lifted that leaves an earlier position (material grows with
            // drops) is most often the opponent capturing it, not a take-back.
            Reading::Restore(_) if self.drop_lifted_waits(t) => {}
            Reading::Restore(_) if self.gesture_king_waits(t) => {}
            Reading::Restore(k) => self.restore(t, k, out),
            Reading::Unexplained => self.settled_unexplained(t, out),
        }
    }

    /// An earlier position shown by one king moved to a centre square with the clock stopped
    /// is the first half of the kings' result gesture (protocol §4.5) as often as a
    /// take-back: the players stop the clock when they end the game themselves, then put
    /// the kings in the centre, and a king on a square it stood on plies ago can recreate
    /// that position (the white king back on e4 would read as four moves taken back). It
    /// waits until the board has stayed so as long as a king move onto the centre waits
    /// (`CENTRE_KING_WAIT_MS`); the other king following makes it a gesture. Returns
    /// whether to wait.
    fn gesture_king_waits(&mut self, t: u64) -> bool {
        let calm_at = self.board.last_change + CENTRE_KING_WAIT_MS;
        if t >= calm_at || !self.clock_stopped() {
            return false;
        }
        let Some(g) = &self.game else { return false };
        let shown = self.seen_board();
        let centre = shakmaty::Bitboard::from(shakmaty::Square::D4)
            | shakmaty::Square::D5
            | shakmaty::Square::E4
            | shakmaty::Square::E5;
        let d = board::diff(g.current().board(), &shown);
        let king_to_centre = d.count() == 2
            && d.into_iter().any(|sq| {
                centre.contains(sq)
                    && shown
                        .piece_at(sq)
                        .is_some_and(|p| p.role == shakmaty::Role::King)
                    && shown.king_of(shown.color_at(sq).expect("a king stands there")) == Some(sq)
            })
            && d.into_iter().all(|sq| {
                let before = g.current().board().piece_at(sq);
                let after = shown.piece_at(sq);
                before.is_none_or(|p| p.role == shakmaty::Role::King)
                    && after.is_none_or(|p| p.role == shakmaty::Role::King)
            });
        if king_to_centre {
            self.timers.set(Timer::Settle, calm_at);
        }
        king_to_centre
    }

    /// After a reconnection the board's log is awaited (protocol §3.6): a settle before it
    /// is put off until it. Returns whether to wait.
    fn log_awaited(&mut self, t: u64) -> bool {
        if let Some(until) = self.timers.get(Timer::LogWait) {
            if t < until {
                self.timers.set(Timer::Settle, until);
                return true;
            }
            self.timers.clear(Timer::LogWait);
        }
        false
    }

    /// The players signalled a result. A move shown before the gesture began was played
    /// (unless it is the first king put in the centre, which belongs to the kings' gesture;
    /// a king moved to the centre before a magic piece was a move).
    fn settled_gesture(
        &mut self,
        t: u64,
        result: GameResult,
        how: String,
        kings: bool,
        out: &mut Emitted,
    ) {
        if let Some((shown_at, path)) = self.reader.last_ahead.take()
            && let Some(g) = &self.game
            && !(kings
                && path
                    .iter()
                    .any(|m| reconstruct::king_to_centre(g.current(), m, self.clock_stopped())))
        {
            self.commit_shown(t, &path, false, shown_at, out);
        }
        self.end_by_gesture(t, result, how, out);
    }

    /// The board is back on the current position.
    fn settled_same(&mut self, t: u64, out: &mut Emitted) {
        // More pieces off their squares at once than any move disturbs (the table bumped):
        // putting them back is no touch (KNSB §4.1 #9). The handling of the next move is
        // read from here on.
        if self.board.displaced >= DISPLACED_SQUARES {
            self.board.same_since = t;
        }
        self.board.displaced = 0;
        self.back_to_legal(t, out)
    }

    /// The settled board shows moves: earlier ones stand, the last waits for its press while
    /// its player's clock runs.
    fn settled_moves(&mut self, t: u64, depth: usize, path: Vec<Move>, out: &mut Emitted) {
        self.back_to_legal(t, out);
        // Two presses seen on the clock and two moves on the board: both are complete
        // (6.2.1), though the board showed them together.
        if path.len() == 2 && self.press.two_presses_unseen {
            self.commit(t, &path, true, out);
            return;
        }
        // Two presses unseen and three moves: the presses completed the first two, the
        // third waits for its own press (6.2.1).
        if path.len() == DEPTH_WATCHED + 1 && self.press.two_presses_unseen {
            // A move (or two) and a piece lifted for the next can show the same placement
            // (Bc5-e3 and the queen on f3 lifted reads as Bd4 Qe3 Bxe3): such a reading
            // waits for a longer calm, or a press, before it is believed.
            let wait = if self.link.bus.is_some() {
                HELD_THREE_PLIES_BUS_MS
            } else {
                4 * self.rules.settle_ms
            };
            if t < self.board.last_change + wait && self.lifted_piece_explains(&path) {
                self.press.three_plies_held = Some(self.board.last_change);
                self.timers
                    .set(Timer::Settle, self.board.last_change + wait);
                return;
            }
            self.commit_three_plies(t, &path, out);
            return;
        }
        if path.len() >= 2 && depth == DEPTH_WATCHED && !self.was_shown(&path[0]) {
            // Two moves at once is rare (a reply before the press), and a move in progress
            // can look like two (Nxc5 bxc5 = knight in hand, pawn b4 lifted): give it a
            // press, or a longer calm, before believing it.
            let wait = if self.waits_for_press() {
                self.rules.press_wait_ms
            } else {
                4 * self.rules.settle_ms
            };
            if t < self.board.last_change + wait {
                self.timers
                    .set(Timer::Settle, self.board.last_change + wait);
                return;
            }
        }
        // A press is waiting to be judged: the clock's report can arrive before the board has
        // reported the last squares of a slide (a scan takes 200-250 ms, a change can be
        // reported ~400 ms late, protocol §1.1/§4.1), and the press completes the move the
        // board shows once caught up (6.2.1). The settled placement is read after that
        // verdict, not before it.
        if let Some(at) = self.press.pending.due_at() {
            self.timers.set(Timer::Settle, at.max(t));
            return;
        }
        let (first, last) = path.split_at(path.len() - 1);
        if !first.is_empty() {
            // A reply on the board completes the earlier move (6.2.1).
            self.commit(t, first, false, out);
        }
        self.settled_last_move(t, last[0], out);
    }

    /// Two hidden presses completed the first two moves of `path`; the third waits for its
    /// own press (6.2.1).
    fn commit_three_plies(&mut self, t: u64, path: &[Move], out: &mut Emitted) {
        self.commit(t, &path[..DEPTH_WATCHED], true, out);
        self.settled_last_move(t, path[DEPTH_WATCHED], out);
    }

    /// A press while a three-ply reading is held for a lifted piece, the board
    /// unchanged since: the calm it waited for — the third move made and pressed. The
    /// reading stands, before the press is judged against the first two moves.
    pub(super) fn release_held_three_plies(&mut self, t: u64, out: &mut Emitted) {
        if self.press.three_plies_held.take() != Some(self.board.last_change)
            || !self.press.two_presses_unseen
        {
            return;
        }
        let depth = self.decision_depth();
        if let Some(Reading::Moves(path)) = self.read_settled(t, depth)
            && path.len() == DEPTH_WATCHED + 1
        {
            self.back_to_legal(t, out);
            self.commit_three_plies(t, &path, out);
        }
    }

    /// The last move a settled board shows: complete now, or waiting for its press.
    fn settled_last_move(&mut self, t: u64, last: Move, out: &mut Emitted) {
        let pos = self.game.as_ref().map(|g| g.current().clone());
        let centre = pos
            .as_ref()
            .is_some_and(|p| reconstruct::king_to_centre(p, &last, self.clock_stopped()));
        // 6.2.1.1: a move that ends the game (checkmate, stalemate, dead position, 9.6) is
        // complete when made; the press, or a flag after it, changes nothing. (Bughouse mates
        // wait for the other game, 5.4: nothing ends at the move.)
        let ends_game = !centre
            && self.bughouse.is_none()
            && self.game.as_ref().is_some_and(|g| {
                arbiter::end_by_rule_after(g, &g.position_after(last), &self.rules.edition)
                    .is_some()
            });
        // A move that ends the game cannot be corrected once taken, so with the mover's clock
        // still running (no press yet) it waits until the board has had time to report the
        // rest of a slide (§4.1: sliding reports every square passed, up to ~400 ms late):
        // Qd5 mate shown on the way g5-c5.
        if ends_game && self.waits_for_press() && t < self.board.last_change + REPORT_LAG_MS {
            self.timers
                .set(Timer::Settle, self.board.last_change + REPORT_LAG_MS);
            return;
        }
        if (self.waits_for_press() || centre) && !ends_game {
            let wait = if centre {
                CENTRE_KING_WAIT_MS.max(self.rules.press_wait_ms)
            } else {
                self.rules.press_wait_ms
            };
            self.timers
                .set(Timer::PressWait, (self.board.last_change + wait).max(t));
        } else {
            self.commit_shown(t, &[last], false, self.board.last_change, out);
        }
    }

    /// Nothing the game explains is on the settled board.
    fn settled_unexplained(&mut self, t: u64, out: &mut Emitted) {
        if self.take_for_partner_promotion(t, out) {
            // A piece taken for the partner board's promotion (bughouse 3.1): the board is
            // read again against the edited position.
            self.on_settled(t, out);
            return;
        }
        if let Some(k) = self.drop_replaced() {
            // Bughouse 7.4 / 7.6: the drop taken back and another move made.
            self.restore(t, k, out);
            self.on_settled(t, out);
            return;
        }
        if self.adopt_illegal(t, out) {
            return;
        }
        self.hint_illegal_castling(t, out);
        self.watch_for_illegal_position(t);
    }

    /// An unexplained placement not yet raised is raised if it lasts `illegal_position_ms`
    /// after the board settled: the board reports a change up to a scan after it
    /// happened (protocol §1.1, a scan takes about 200–250 ms), so a piece knocked over and
    /// put back within the time can read up to a scan longer between the two reports; the
    /// settle (`settle_ms`, one scan) absorbs that lag.
    fn watch_for_illegal_position(&mut self, t: u64) {
        if !self.watch.illegal_alerted {
            let wait = self.rules.illegal_position_ms;
            self.timers.set(Timer::IllegalPosition, t + wait);
        }
    }

    /// The board is read again once it has settled after a press (a reply already on it
    /// waits for its own press, or for the board to settle).
    fn settle_after_press(&mut self, t: u64) {
        self.timers.set(
            Timer::Settle,
            t.max(self.board.last_change + self.rules.settle_ms),
        );
    }

    /// Moves completed earlier are final: the opponent replied, or pressed.
    fn confirm_moves(&mut self) {
        if let Some(g) = &mut self.game {
            g.confirm_all();
        }
    }

    /// A press completes the move on the board (6.2.1). `final_look` is the deferred second
    /// look, after which an unexplained board is an illegal move.
    pub(super) fn decide_press(
        &mut self,
        t: u64,
        display: ClockSide,
        final_look: bool,
        out: &mut Emitted,
    ) {
        if !final_look {
            self.note_board_at_press();
        }
        let Some((mover, reading)) = self.read_press(t, display, final_look) else {
            return;
        };
        match reading {
            PressReading::ClockStarted => self.infer_running_side_to_move(display.other()),
            PressReading::NotOnMove | PressReading::LatePress => self.confirm_moves(),
            PressReading::ShownThenAnswered(m) => {
                self.infer_from_press(display, mover);
                self.back_to_legal(t, out);
                self.commit_shown(t, &[m], true, self.board.last_change, out);
                self.settle_after_press(t);
            }
            PressReading::Moves(path) => self.press_completes(t, display, mover, &path, false, out),
            PressReading::Followed(path) => {
                self.press_completes(t, display, mover, &path, true, out)
            }
            PressReading::Correct(m) => {
                self.correct_last(t, m, out);
                self.confirm_moves();
            }
            PressReading::ReplyInHand(m) => {
                self.infer_from_press(display, mover);
                self.commit_shown(t, &[m], true, self.board.last_change, out);
            }
            PressReading::LookAgain => self.look_at_press(t + self.rules.settle_ms, display, true),
            PressReading::LastShown => self.commit_last_shown(t, display, mover, out),
            // 6.2.2: the player's press completes his own earlier move, made with his clock
            // running, even after the opponent replied.
            PressReading::OwedPress => {
                self.watch.owes_press = None;
                self.confirm_moves();
            }
            // 7.6 (bughouse): a press back right after an illegal drop is the demand to take
            // it back, not an irregularity.
            PressReading::PressWithoutMove if self.take_back_demanded(t, mover, out) => {}
            PressReading::PressWithoutMove => self.press_without_move(t, mover, out),
            PressReading::MoveThenDisplaced(m) => {
                self.infer_from_press(display, mover);
                self.commit_shown(t, &[m], true, self.board.last_change, out);
                self.watch_for_illegal_position(t);
            }
            // Bughouse 3.1: a piece lifted for the partner board's promotion before it is
            // completed there; looked at again once it is.
            PressReading::Unexplained(shown) if self.press_awaits_partner_promotion(t, &shown) => {
                self.look_at_press(t + self.rules.settle_ms, display, true)
            }
            PressReading::Unexplained(shown) => self.unexplained_press(t, mover, &shown, out),
        }
    }

    /// The press completes the presser's moves of `path` (only his first with `first_only`:
    /// a piece moved twice around the reply, 6.2.1); a reply already on the board waits for
    /// its own press (or the board settling).
    fn press_completes(
        &mut self,
        t: u64,
        display: ClockSide,
        mover: Color,
        path: &[Move],
        first_only: bool,
        out: &mut Emitted,
    ) {
        self.infer_from_press(display, mover);
        self.back_to_legal(t, out);
        let done = self.completed_by_press(display, mover, path, first_only);
        let shown_at = if done == path.len() {
            self.board.last_change
        } else {
            t
        };
        self.commit_shown(t, &path[..done], true, shown_at, out);
        if done < path.len() {
            self.settle_after_press(t);
        }
    }

    /// The player on move pressed with the position unchanged (7.5.3; 2017 7.8.1).
    fn press_without_move(&mut self, t: u64, mover: Color, out: &mut Emitted) {
        let counted = self.rules.edition.press_without_move_is_offence;
        let mut a = self.alert(
            AlertKind::ClockPressedWithoutMove,
            if counted {
                Severity::Intervene
            } else {
                Severity::Review
            },
            Some(mover),
            format!(
                "{} pressed the clock without making a move.",
                arbiter::side_name(mover)
            ),
        );
        a.article = Some(self.rules.edition.press_without_move.into());
        if counted {
            let verdict = self.offence_verdict(
                mover,
                Offence::PressWithoutMove,
                crate::verdict::Remedy::RestartClock,
            );
            self.count_offence(mover, Offence::PressWithoutMove);
            a.prescription = Some(verdict.render());
            a.verdict = Some(Box::new(verdict.into()));
        } else {
            let verdict = crate::verdict::ClockVerdict::PressWithoutMoveNoOffence {
                discretion: crate::verdict::Article::new("13.4"),
            };
            a.prescription = Some(verdict.render());
            a.verdict = Some(Box::new(verdict.into()));
        }
        out.push((t, EventBody::Alert(a)));
    }

    /// A press whose board no legal move explains: an illegal move answered by another is
    /// taken into the game (`adopt_illegal`); with tracking lost nothing is read and no
    /// offence counted (`illegal_position` said so already); else an illegal move.
    fn unexplained_press(
        &mut self,
        t: u64,
        mover: Color,
        shown: &shakmaty::Board,
        out: &mut Emitted,
    ) {
        if self.adopt_illegal(t, out) || self.watch.lost_track {
            return;
        }
        if self.watch.illegal_alerted {
            // An illegal move was raised and its position is not reinstated: this press is
            // play going on from it, for the arbiter to establish (7.5.1), not an offence of
            // its own — counting it would decide a game on a misread board.
            self.lose_track(t, out, offences::LostBecause::PlayWentOnAfterIllegal);
            return;
        }
        // The player on move may have changed: an illegal move answered by another was taken
        // into the game (`adopt_illegal`).
        let mover = self.game.as_ref().map_or(mover, |g| g.current().turn());
        let one_move = self
            .game
            .as_ref()
            .is_none_or(|g| offences::could_be_one_move(g.current().board(), shown, mover));
        if one_move {
            self.illegal_at_press(t, mover, shown, out)
        } else {
            self.lose_track(t, out, offences::LostBecause::NotOneMove);
        }
    }

    /// A press still waiting for its verdict when the clock reports something later (the
    /// next press, a flag): it is judged now, on the board as it is. If it wanted another
    /// look, the later event supersedes it: the press completed the move the board showed
    /// last, if any.
    pub(super) fn overtake_pending_press(&mut self, t: u64, out: &mut Emitted) {
        if let Some(PressLook {
            display: pending,
            final_look,
        }) = self.take_press_look()
        {
            self.decide_press(t, pending, final_look, out);
            if self.take_press_look().is_some() {
                self.complete_last_shown(t, pending, out);
            }
        }
    }

    /// A press whose board never read as a move, overtaken by the next press: it completed
    /// the move the board showed last (when believable, as in `decide_press`).
    pub(super) fn complete_last_shown(&mut self, t: u64, display: ClockSide, out: &mut Emitted) {
        let Some(mover) = self.playing().map(|g| g.current().turn()) else {
            return;
        };
        if self
            .reader
            .last_ahead
            .as_ref()
            .is_some_and(|(_, p)| self.believable(p))
        {
            self.commit_last_shown(t, display, mover, out);
        }
    }

    /// The press by `mover` completed what the board showed last (`last_ahead`), as far as
    /// the board showed it move by move (`shown_prefix`): its presser's moves are committed,
    /// a reply already on the board waits for the board to settle (or its own press).
    pub(super) fn commit_last_shown(
        &mut self,
        t: u64,
        display: ClockSide,
        mover: Color,
        out: &mut Emitted,
    ) {
        let (shown_at, mut path) = self.reader.last_ahead.take().unwrap_or_default();
        path.truncate(self.shown_prefix(&path));
        self.infer_from_press(display, mover);
        let done = self.completed_by_press(display, mover, &path, false);
        self.commit_shown(t, &path[..done], true, shown_at, out);
        if done < path.len() {
            self.timers.set(
                Timer::Settle,
                t.max(self.board.last_change + self.rules.settle_ms),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_settle_before_the_awaited_log_is_put_off_until_it() {
        let mut s = Session::new("b", &CoreConfig::default());
        s.timers.set(Timer::LogWait, 1_000);
        assert!(s.log_awaited(400));
        assert_eq!(s.timers.get(Timer::Settle), Some(1_000));
        assert_eq!(s.timers.get(Timer::LogWait), Some(1_000));
    }

    #[test]
    fn the_log_wait_ends_at_its_time() {
        let mut s = Session::new("b", &CoreConfig::default());
        s.timers.set(Timer::LogWait, 1_000);
        assert!(!s.log_awaited(1_000));
        assert!(!s.timers.is_set(Timer::LogWait));
        // Nothing awaited: a settle goes ahead.
        assert!(!s.log_awaited(1_500));
    }
}
