//! The board as it reports itself: its 64 squares and which way round it stands, when each
//! square last changed, the lifts and placements of the pieces, and how long the placement
//! has stood.

use crate::board::PhysicalBoard;
use crate::event::Orientation;
use crate::handling::HandlingLog;

#[serde_with::serde_as]
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub(super) struct BoardState {
    /// The squares as last reported, in the board's own numbering.
    pub(super) physical: PhysicalBoard,
    pub(super) orientation: Orientation,
    /// When each square (by chess square) last changed on the board.
    #[serde_as(as = "[_; 64]")]
    pub(super) square_changed_at: [u64; 64],
    /// Lifts and placements, for touch-move, rook-first castling and two-hands signals.
    pub(super) handling: HandlingLog,
    /// When the board first showed the current position (the next move's handling began
    /// after it; a piece touched and put back stays in the window).
    pub(super) same_since: u64,
    /// When the placement last changed.
    pub(super) last_change: u64,
    /// The most squares the board has differed from the current position at once since the
    /// last move or the last return to it.
    pub(super) displaced: usize,
}

impl Default for BoardState {
    fn default() -> Self {
        BoardState {
            physical: PhysicalBoard::default(),
            orientation: Orientation::Normal,
            square_changed_at: [0; 64],
            handling: HandlingLog::default(),
            same_since: 0,
            last_change: 0,
            displaced: 0,
        }
    }
}

impl BoardState {
    /// The board kept when it is read afresh after a fault: the squares it last reported and
    /// its orientation; when and how they changed is read again from now on.
    pub(super) fn after_fault(self) -> BoardState {
        BoardState {
            physical: self.physical,
            orientation: self.orientation,
            ..BoardState::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fault_keeps_the_squares_and_the_orientation_and_forgets_their_history() {
        let mut state = BoardState {
            orientation: Orientation::Rotated,
            same_since: 500,
            last_change: 900,
            displaced: 3,
            ..BoardState::default()
        };
        state.square_changed_at[12] = 900;
        let mut dump = [0u8; 64];
        dump[0] = 1;
        state.physical.apply_dump(&dump);
        let kept = state.after_fault();
        assert_eq!(kept.orientation, Orientation::Rotated);
        assert!(kept.physical.is_known());
        assert_eq!(kept.physical.codes()[0], 1);
        assert_eq!(
            (kept.same_since, kept.last_change, kept.displaced),
            (0, 0, 0)
        );
        assert_eq!(kept.square_changed_at, [0; 64]);
    }
}
