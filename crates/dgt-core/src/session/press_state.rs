//! What the session knows of the clock's presses: the press waiting for its verdict, the
//! reading that showed it, and the presses the clock's reports hid (two presses between two
//! reports, protocol §3.4: the board relays the clock's report only now and then).

use dgt_protocol::ClockTimes;

use crate::input::ClockSide;

/// How a press waiting for its verdict is to be judged: the display pressed, and whether
/// this is the deferred second look, after which an unexplained board is an illegal move.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(super) struct PressLook {
    pub(super) display: ClockSide,
    pub(super) final_look: bool,
}

/// The press waiting for its verdict, with the moment it is judged: the board reports a
/// square up to one scan after the piece lands (protocol §4.1), so a press is judged once
/// the board has caught up, not when the clock shows it. At most one press waits: a later
/// press or flag judges the waiting one first (`overtake_pending_press`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(super) struct PendingPress {
    waiting: Option<(u64, PressLook)>,
}

impl PendingPress {
    /// The press on `display` is to be judged at `at`, replacing any press waiting.
    pub(super) fn look_at(&mut self, at: u64, display: ClockSide, final_look: bool) {
        self.waiting = Some((
            at,
            PressLook {
                display,
                final_look,
            },
        ));
    }

    /// The press waiting, taken off: it is judged now, whatever its deadline.
    pub(super) fn take(&mut self) -> Option<PressLook> {
        self.waiting.take().map(|(_, look)| look)
    }

    /// The press waiting, taken off if its deadline is not after `t`.
    pub(super) fn take_due(&mut self, t: u64) -> Option<PressLook> {
        if self.due_at().is_some_and(|at| at <= t) {
            self.take()
        } else {
            None
        }
    }

    /// When the press waiting is judged; the session wakes then.
    pub(super) fn due_at(&self) -> Option<u64> {
        self.waiting.map(|(at, _)| at)
    }

    pub(super) fn is_waiting(&self) -> bool {
        self.waiting.is_some()
    }
}

#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub(super) struct PressState {
    /// The press whose board could not be read as a move yet, and when it is judged.
    pub(super) pending: PendingPress,
    /// The clock reading that showed the press: the times of the move it completes.
    pub(super) reading: Option<ClockTimes>,
    /// When the last press was seen.
    pub(super) seen_at: u64,
    /// When the clock last showed a press, game or no game.
    pub(super) any_press_at: u64,
    /// Both displays gained time between two readings with the lever where it was: two
    /// presses (a move and its reply) came between the clock's reports.
    pub(super) two_presses_unseen: bool,
    /// A three-ply reading of two hidden presses that a piece lifted also explains, held
    /// for a longer calm (the landing may come a scan later than the press): the board's
    /// last change when it was held.
    pub(super) three_plies_held: Option<u64>,
    /// The display of a press that overtakes an earlier press still waiting for its
    /// verdict, while that one is judged: the earlier press came first and completed the
    /// move before the opponent's reply.
    pub(super) overtaken_by: Option<ClockSide>,
    /// A reading of two presses unseen (a move and its reply between the clock's reports,
    /// or a display up by two increments) since the last press seen.
    pub(super) hidden_since_press: bool,
    /// The last press seen came after such a reading.
    pub(super) press_after_hidden: bool,
}

impl PressState {
    /// Both displays gained time between two clock reports: two presses went unseen.
    pub(super) fn two_hidden(&mut self) {
        self.two_presses_unseen = true;
        self.hidden_since_press = true;
    }

    /// A press shown at `t`: whether presses went unseen since the last one seen, and the
    /// presser's thinking time (his clock ran since the previous press) when a press of this
    /// game came before.
    pub(super) fn seen(&mut self, t: u64, pressed_in_game: bool) -> (bool, Option<u64>) {
        self.two_presses_unseen = false;
        let after_hidden = std::mem::take(&mut self.hidden_since_press);
        let thought =
            (pressed_in_game && self.any_press_at > 0).then(|| t.saturating_sub(self.any_press_at));
        self.any_press_at = t;
        (after_hidden, thought)
    }

    /// A move was recorded: the presses it took are accounted for.
    pub(super) fn move_recorded(&mut self) {
        self.two_presses_unseen = false;
        self.three_plies_held = None;
    }
}

#[cfg(test)]
mod tests {
    use super::{PendingPress, PressLook, PressState};
    use crate::input::ClockSide;

    #[test]
    fn no_press_waits_at_first() {
        let mut pending = PendingPress::default();
        assert!(!pending.is_waiting());
        assert_eq!(pending.due_at(), None);
        assert_eq!(pending.take_due(u64::MAX), None);
        assert_eq!(pending.take(), None);
    }

    #[test]
    fn a_waiting_press_is_due_at_its_deadline_and_not_before() {
        let mut pending = PendingPress::default();
        pending.look_at(1_250, ClockSide::Left, false);
        assert!(pending.is_waiting());
        assert_eq!(pending.due_at(), Some(1_250));
        assert_eq!(pending.take_due(1_249), None);
        assert!(pending.is_waiting());
        let look = PressLook {
            display: ClockSide::Left,
            final_look: false,
        };
        assert_eq!(pending.take_due(1_250), Some(look));
        assert!(!pending.is_waiting());
        assert_eq!(pending.due_at(), None);
        assert_eq!(pending.take_due(5_000), None);
    }

    #[test]
    fn a_press_taken_before_its_deadline_is_judged_once() {
        let mut pending = PendingPress::default();
        pending.look_at(2_000, ClockSide::Right, true);
        let look = PressLook {
            display: ClockSide::Right,
            final_look: true,
        };
        assert_eq!(pending.take(), Some(look));
        assert_eq!(pending.take(), None);
        assert_eq!(pending.due_at(), None);
    }

    #[test]
    fn another_look_replaces_the_waiting_one_with_its_own_deadline() {
        let mut pending = PendingPress::default();
        pending.look_at(1_000, ClockSide::Left, false);
        pending.look_at(1_400, ClockSide::Left, true);
        assert_eq!(pending.due_at(), Some(1_400));
        assert_eq!(pending.take_due(1_000), None);
        assert_eq!(
            pending.take_due(1_400),
            Some(PressLook {
                display: ClockSide::Left,
                final_look: true,
            })
        );
    }

    #[test]
    fn a_press_seen_tells_the_hidden_presses_before_it_once() {
        let mut press = PressState::default();
        press.two_hidden();
        assert!(press.two_presses_unseen);
        assert_eq!(press.seen(1_000, false), (true, None));
        assert!(!press.two_presses_unseen);
        // The next press: none hidden since, and the thinking time from the last press.
        assert_eq!(press.seen(4_500, true), (false, Some(3_500)));
    }

    #[test]
    fn the_first_press_of_a_game_has_no_thinking_time() {
        let mut press = PressState::default();
        assert_eq!(press.seen(2_000, true), (false, None));
        let mut other = PressState::default();
        other.seen(1_000, false);
        assert_eq!(other.seen(2_000, false), (false, None));
    }

    #[test]
    fn a_recorded_move_accounts_for_the_hidden_presses() {
        let mut press = PressState::default();
        press.two_hidden();
        press.three_plies_held = Some(700);
        press.move_recorded();
        assert!(!press.two_presses_unseen);
        assert_eq!(press.three_plies_held, None);
        // A move recorded is not a press seen: the hidden presses are still told once.
        assert!(press.hidden_since_press);
    }
}
