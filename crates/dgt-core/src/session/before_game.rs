//! What is watched while no game is followed: how the next game may begin (a set-up
//! announced, a start position shown, a wrong set-up) and a game found under way. Gone with
//! the session when the board is read afresh; a game begun consumes what it began from.

use shakmaty::{CastlingMode, Chess};

use super::under_way;
use crate::event::Orientation;
use crate::snapshot_as::*;

#[serde_with::serde_as]
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub(super) struct BeforeGame {
    /// A position an operator set up: the next game starts when the board shows it.
    #[serde_as(as = "Option<(ChessAs, CastlingModeAs)>")]
    pub(super) next_start: Option<(Chess, CastlingMode)>,
    /// A board set up wrongly (`reconstruct::wrong_setup`) seen settled, with its
    /// orientation: a game starts from it only when a move is made there.
    #[serde_as(as = "Option<(BoardAs, _, _)>")]
    pub(super) wrong_setup: Option<(shakmaty::Board, Orientation, u64)>,
    /// A start position the board showed (any report, settled or not) while no game was
    /// played, with its orientation and time: if the next settled placement is one legal
    /// move from it, the game began there (a board connected, or a set-up completed, just
    /// as White moved). Consumed at the next settle.
    #[serde_as(as = "Option<(ChessAs, CastlingModeAs, _, _)>")]
    pub(super) start_shown: Option<(Chess, CastlingMode, Orientation, u64)>,
    /// A placement found under way while no game is followed, waiting for its side to move
    /// (`under_way.rs`); and whether the arbiter was told of it.
    pub(super) found: Option<under_way::FoundPlacement>,
    pub(super) found_told: bool,
    /// The board's own log read while no game was followed (protocol §3.6): a game found
    /// under way is rebuilt from it when it leads to the placement (`under_way_log.rs`).
    pub(super) found_log: Option<Vec<dgt_protocol::EeEntry>>,
    /// The log was read (or asked for) for the placement found.
    pub(super) found_log_asked: bool,
    /// The game went to a replacement board (`replacement.rs`): what this board shows is no
    /// game found under way until it shows a start position again.
    pub(super) replaced: bool,
}

impl BeforeGame {
    /// The placement found under way is no longer waited for (a game began, or the game
    /// went to a replacement board): its log and whether the arbiter was told go with it.
    pub(super) fn forget_found(&mut self) {
        self.found = None;
        self.found_told = false;
        self.found_log = None;
        self.found_log_asked = false;
    }
}

#[cfg(test)]
mod tests {
    use super::BeforeGame;

    #[test]
    fn forgetting_the_found_placement_keeps_how_the_next_game_begins() {
        let mut before = BeforeGame {
            next_start: Some((shakmaty::Chess::default(), shakmaty::CastlingMode::Standard)),
            found_told: true,
            found_log: Some(Vec::new()),
            found_log_asked: true,
            replaced: true,
            ..BeforeGame::default()
        };
        before.forget_found();
        assert!(before.found.is_none() && before.found_log.is_none());
        assert!(!before.found_told && !before.found_log_asked);
        assert!(before.next_start.is_some());
        assert!(before.replaced);
    }
}
