//! What the move reader (`reader.rs`) remembers between readings: the placements moves
//! explained as the board changed, the latest of them, one the opponent began to answer, and
//! whether the board went unwatched for a while. The reader reads the game and the board
//! through the [`Session`](super::Session); this is its own state, owned by the session.

use shakmaty::Move;

use super::shown::ShownHistory;
use super::{DEPTH_AFTER_GAP, DEPTH_WATCHED};
use crate::snapshot_as::*;

#[serde_with::serde_as]
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub(super) struct ReaderState {
    /// The latest placement since the last commit that legal moves explain, and when.
    #[serde_as(as = "Option<(_, Vec<MoveAs>)>")]
    pub(super) last_ahead: Option<(u64, Vec<Move>)>,
    /// A placement moves explained (`last_ahead`) that the opponent then began to answer,
    /// the mover's pieces still where those moves left them: its last move is complete.
    /// Kept with the game's ply count it starts from.
    #[serde_as(as = "Option<(_, Vec<MoveAs>)>")]
    pub(super) answered: Option<(usize, Vec<Move>)>,
    /// Recent placements that legal moves explained: the first of two moves seen together is
    /// believed only if the board once showed it by itself.
    pub(super) seen: ShownHistory,
    /// The board was not watched for a while (a dump changed it, or the link came back):
    /// the next decision may find several moves.
    pub(super) after_gap: bool,
}

impl ReaderState {
    /// The board showed the placement after `path` (from the game's current position, which
    /// has `ply - path.len()` plies) at `t`: remembered as shown for that ply, and as the
    /// latest placement moves explain.
    pub(super) fn note_ahead(
        &mut self,
        t: u64,
        ply: usize,
        board: shakmaty::Board,
        path: Vec<Move>,
    ) {
        self.seen.record(ply, board, path.len());
        self.last_ahead = Some((t, path));
    }

    /// How recently (a larger number is more recent) the board showed `board` as the
    /// position after `ply` plies.
    pub(super) fn shown_as(&self, ply: usize, board: &shakmaty::Board) -> Option<usize> {
        self.seen.when(ply, board)
    }

    /// How many plies a decision searches for moves made in one go: more after a gap.
    pub(super) fn decision_depth(&self) -> usize {
        if self.after_gap {
            DEPTH_AFTER_GAP
        } else {
            DEPTH_WATCHED
        }
    }

    /// `path` was committed to the game. The board showed the placement after `last_ahead`
    /// (protocol §3.3: it tells only which piece stands where): when the moves committed
    /// are its first ones, the rest (the reply already on the board) is still what the
    /// board showed last, for the reply's own press to complete even if the board is
    /// mid-slide by then (§4.1). An answered placement read from the old position is gone.
    pub(super) fn committed(&mut self, path: &[Move]) {
        self.last_ahead = self.last_ahead.take().and_then(|(at, p)| {
            (p.len() > path.len() && p.starts_with(path)).then(|| (at, p[path.len()..].to_vec()))
        });
        self.answered = None;
    }

    /// The placements read from the current position no longer lead anywhere (a new game,
    /// an illegal move handled): nothing shown ahead, nothing answered.
    pub(super) fn forget_ahead(&mut self) {
        self.last_ahead = None;
        self.answered = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{Chess, Position, Square};

    fn moves(uci: &[&str]) -> Vec<Move> {
        let mut pos = Chess::default();
        uci.iter()
            .map(|u| {
                let m = u
                    .parse::<shakmaty::uci::UciMove>()
                    .unwrap()
                    .to_move(&pos)
                    .unwrap();
                pos.play_unchecked(m);
                m
            })
            .collect()
    }

    #[test]
    fn a_commit_keeps_the_reply_already_shown() {
        let mut r = ReaderState::default();
        let path = moves(&["e2e4", "e7e5"]);
        r.note_ahead(500, 2, shakmaty::Board::default(), path.clone());
        r.answered = Some((0, path.clone()));
        r.committed(&path[..1]);
        assert_eq!(r.last_ahead, Some((500, path[1..].to_vec())));
        assert_eq!(r.answered, None);
        // Committing all of it, or moves it does not start with, leaves nothing ahead.
        r.committed(&path[1..]);
        assert_eq!(r.last_ahead, None);
        r.note_ahead(600, 2, shakmaty::Board::default(), path.clone());
        r.committed(&moves(&["d2d4"]));
        assert_eq!(r.last_ahead, None);
    }

    #[test]
    fn a_placement_noted_ahead_is_known_as_shown_for_its_ply() {
        let mut r = ReaderState::default();
        let mut board = shakmaty::Board::default();
        board.discard_piece_at(Square::E2);
        board.set_piece_at(Square::E4, shakmaty::Color::White.pawn());
        r.note_ahead(100, 1, board.clone(), moves(&["e2e4"]));
        assert!(r.shown_as(1, &board).is_some());
        assert!(
            r.shown_as(3, &board).is_none(),
            "the same placement at another ply"
        );
        r.forget_ahead();
        assert_eq!(r.last_ahead, None);
        assert!(
            r.shown_as(1, &board).is_some(),
            "what was shown stays shown"
        );
    }

    #[test]
    fn a_gap_deepens_the_search() {
        let mut r = ReaderState::default();
        assert_eq!(r.decision_depth(), DEPTH_WATCHED);
        r.after_gap = true;
        assert_eq!(r.decision_depth(), DEPTH_AFTER_GAP);
    }
}
