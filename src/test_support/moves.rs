//! The moves as a consumer of the event feed keeps them (contract §3): a `move` with a
//! `ply` already sent replaces that ply and every later one.

use std::collections::BTreeMap;

use dgt_core::event::MoveEvent;
use dgt_core::{Event, EventBody};
use dgt_emulator::Truth;

use crate::edge::serial::bus_poller::label_for_address;

/// Adds `m` to the line of its game, replacing its ply and every later one.
pub fn play(line: &mut Vec<String>, m: &MoveEvent) {
    line.truncate(m.ply as usize - 1);
    line.push(m.uci.clone());
}

/// The moves of the game `game` (`<board>/<n>`), in UCI, from whichever board sent them.
pub fn game_moves(events: &[Event], game: &str) -> Vec<String> {
    let mut line = Vec::new();
    for e in events {
        if let EventBody::Move(m) = &e.body
            && m.game == game
        {
            play(&mut line, m);
        }
    }
    line
}

/// Each board's first game (`<board>/1`), in UCI, by the board that sent it.
pub fn first_games(events: &[Event]) -> BTreeMap<String, Vec<String>> {
    let mut games: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for e in events {
        note_first_game(&mut games, e);
    }
    games
}

/// Asserts that each board's first game in `games` (by label, as [`first_games`] builds
/// them) is the emulator's, the board named by its serial number (its bus address) through
/// the settings' `labels`.
pub fn assert_first_games(
    games: &BTreeMap<String, Vec<String>>,
    truths: &[(u32, Truth)],
    labels: &BTreeMap<String, String>,
) {
    for (serial, truth) in truths {
        let address = u16::try_from(*serial).expect("a bus address");
        let label = label_for_address(address, labels);
        assert_eq!(
            games.get(&label).cloned().unwrap_or_default(),
            truth.ucis(),
            "board {serial}"
        );
    }
}

/// Adds `e` to `games` (as [`first_games`] builds them) if it is a move of a first game.
pub fn note_first_game(games: &mut BTreeMap<String, Vec<String>>, e: &Event) {
    if let EventBody::Move(m) = &e.body
        && m.game.ends_with("/1")
    {
        play(games.entry(e.board.clone()).or_default(), m);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mv(board: &str, game: &str, ply: u32, uci: &str) -> Event {
        let side = if ply % 2 == 1 {
            dgt_core::Side::White
        } else {
            dgt_core::Side::Black
        };
        let body = EventBody::Move(MoveEvent {
            game: game.into(),
            ply,
            side,
            uci: uci.into(),
            san: String::new(),
            fen: String::new(),
            white_ms: None,
            black_ms: None,
        });
        Event::new(u64::from(ply), board, 0, body)
    }

    #[test]
    fn a_ply_sent_again_replaces_it_and_every_later_one() {
        let events = [
            mv("b", "b/1", 1, "e2e4"),
            mv("b", "b/1", 2, "e7e5"),
            mv("b", "b/1", 3, "g1f3"),
            mv("b", "b/1", 2, "c7c5"),
            mv("b", "b/2", 1, "d2d4"),
            mv("c", "c/1", 1, "c2c4"),
        ];
        assert_eq!(game_moves(&events, "b/1"), ["e2e4", "c7c5"]);
        assert_eq!(game_moves(&events, "b/2"), ["d2d4"]);
        assert!(game_moves(&events, "b/3").is_empty());
        let first = first_games(&events);
        assert_eq!(first["b"], ["e2e4", "c7c5"]);
        assert_eq!(first["c"], ["c2c4"]);
        assert_eq!(first.len(), 2);
    }
}
