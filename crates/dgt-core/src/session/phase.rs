//! Where a board is in its game's life: no game yet, a game being played, or a game over
//! (its result set: by rule, by a flag, by a gesture or by the arbiter). Read from the game
//! itself, so it can never disagree with the game's result.

use crate::reconstruct::Game;

/// A board's game phase.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Phase<'a> {
    /// No game has started on the board (no start position seen, no set-up shown).
    NoGame,
    /// A game is under way: moves are read, clocks and offences watched.
    Playing(&'a Game),
    /// The game has a result; the board is watched only for play after the end.
    Over(&'a Game),
}

impl<'a> Phase<'a> {
    pub(crate) fn of(game: Option<&'a Game>) -> Self {
        match game {
            None => Phase::NoGame,
            Some(g) if g.is_over() => Phase::Over(g),
            Some(g) => Phase::Playing(g),
        }
    }

    /// The game, while it is being played.
    pub(crate) fn playing(self) -> Option<&'a Game> {
        match self {
            Phase::Playing(g) => Some(g),
            Phase::NoGame | Phase::Over(_) => None,
        }
    }

    pub(crate) fn is_playing(self) -> bool {
        matches!(self, Phase::Playing(_))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::EndReason;
    use shakmaty::{CastlingMode, Chess};

    fn game() -> Game {
        Game::new("b/1".into(), Chess::default(), CastlingMode::Standard)
    }

    #[test]
    fn no_game_is_not_playing() {
        let p = Phase::of(None);
        assert!(matches!(p, Phase::NoGame));
        assert!(!p.is_playing());
        assert!(p.playing().is_none());
    }

    #[test]
    fn a_game_without_result_is_playing() {
        let g = game();
        let p = Phase::of(Some(&g));
        assert!(p.is_playing());
        assert_eq!(p.playing().map(|g| g.id.as_str()), Some("b/1"));
    }

    #[test]
    fn a_game_with_a_result_is_over() {
        let mut g = game();
        g.result = Some((crate::GameResult::WhiteWins, EndReason::Arbiter));
        let p = Phase::of(Some(&g));
        assert!(matches!(p, Phase::Over(over) if over.id == "b/1"));
        assert!(!p.is_playing());
        assert!(p.playing().is_none());
    }
}
