//! The placements the board showed that legal moves explained, each as the position after
//! a ply of the game: the history the move reader asks whether a move was shown by itself
//! (two moves seen together are believed only if the first was), and how recently.
//!
//! Positions repeat (a knight out and back, a king shuffling): the same placement shown at
//! another ply is no sign of a move played now, so a placement is remembered with its ply.
//! Nothing is forgotten at a take-back or a correction: a ply shown before stays shown, and
//! the newest showing counts as the most recent.

use std::collections::VecDeque;

use crate::snapshot_as::*;
use shakmaty::Board;

/// How many recent explained placements are remembered.
const KEPT: usize = 32;

/// A placement legal moves explained, as the position after `ply` plies of the game.
#[serde_with::serde_as]
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct Shown {
    pub(crate) ply: usize,
    #[serde_as(as = "BoardAs")]
    pub(crate) board: Board,
    /// How many plies, from the game's position when it was shown, explained it: a
    /// placement read as the opponent's reply already made (two plies) is no sign of what
    /// the mover's own hand did.
    pub(crate) steps: usize,
}

/// The recent placements shown (at most [`KEPT`], the oldest dropped first).
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct ShownHistory {
    kept: VecDeque<Shown>,
}

impl ShownHistory {
    /// The board showed `board`, explained as the position after `ply` plies, `steps` of
    /// them read from the game's position then.
    pub(crate) fn record(&mut self, ply: usize, board: Board, steps: usize) {
        if self.kept.len() == KEPT {
            self.kept.pop_front();
        }
        self.kept.push_back(Shown { ply, board, steps });
    }

    /// How recently (a larger number is more recent) the board showed `board` as the
    /// position after `ply` plies, if it did.
    pub(crate) fn when(&self, ply: usize, board: &Board) -> Option<usize> {
        self.kept
            .iter()
            .rposition(|s| s.ply == ply && &s.board == board)
    }

    /// The placements shown, newest first.
    pub(crate) fn newest_first(&self) -> impl Iterator<Item = &Shown> {
        self.kept.iter().rev()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{Chess, Move, Position, Square};

    fn after(moves: &[(Square, Square)]) -> Board {
        let mut pos = Chess::default();
        for &(from, to) in moves {
            let m = pos
                .legal_moves()
                .into_iter()
                .find(|m: &Move| m.from() == Some(from) && m.to() == to)
                .expect("legal");
            pos.play_unchecked(m);
        }
        pos.board().clone()
    }

    #[test]
    fn a_placement_not_shown_has_no_time() {
        let h = ShownHistory::default();
        assert_eq!(h.when(1, &after(&[(Square::E2, Square::E4)])), None);
    }

    #[test]
    fn a_placement_is_shown_only_as_its_ply() {
        let mut h = ShownHistory::default();
        let nf3 = after(&[(Square::G1, Square::F3)]);
        h.record(1, nf3.clone(), 1);
        assert_eq!(h.when(1, &nf3), Some(0));
        // The same placement at another ply (the knight back and out again) is not it.
        assert_eq!(h.when(5, &nf3), None);
    }

    #[test]
    fn the_latest_showing_is_the_most_recent() {
        let mut h = ShownHistory::default();
        let e4 = after(&[(Square::E2, Square::E4)]);
        let d4 = after(&[(Square::D2, Square::D4)]);
        h.record(1, e4.clone(), 1);
        h.record(1, d4.clone(), 1);
        assert!(h.when(1, &d4) > h.when(1, &e4));
        // Shown again (a move corrected back): now the most recent.
        h.record(1, e4.clone(), 1);
        assert!(h.when(1, &e4) > h.when(1, &d4));
    }

    #[test]
    fn a_take_back_forgets_nothing_shown() {
        let mut h = ShownHistory::default();
        let e4 = after(&[(Square::E2, Square::E4)]);
        let e4e5 = after(&[(Square::E2, Square::E4), (Square::E7, Square::E5)]);
        h.record(1, e4.clone(), 1);
        h.record(2, e4e5.clone(), 1);
        // The board went back to ply 1 and on again: both showings still count.
        h.record(1, e4.clone(), 1);
        assert!(h.when(2, &e4e5).is_some());
        assert_eq!(h.newest_first().next().map(|s| s.ply), Some(1));
    }

    #[test]
    fn only_the_most_recent_placements_are_kept() {
        let mut h = ShownHistory::default();
        let start = Board::default();
        for ply in 0..KEPT + 3 {
            h.record(ply, start.clone(), 1);
        }
        assert_eq!(h.newest_first().count(), KEPT);
        // The three oldest are gone.
        assert_eq!(h.when(2, &start), None);
        assert!(h.when(3, &start).is_some());
        assert_eq!(h.newest_first().next().map(|s| s.ply), Some(KEPT + 2));
    }
}
