//! A board connected just as White moves: its first dump shows the start position and the
//! first move follows 58 ms later, before the start position could stand still for
//! `settle_ms` (250 ms). Recorded live (a daemon that found the pty ≈ 200 ms after the
//! scripted board's clock started); before the fix the core waited for a start position
//! that never came and tracked none of the game.

use dgt_core::{CoreConfig, EventBody};

#[test]
fn a_first_move_made_before_the_start_position_settled_begins_the_game() {
    let text = include_str!("captures/first-move-at-connect.jsonl");
    let events = dgt_arbiter::replay::replay_text(text, CoreConfig::default()).unwrap();
    let starts: Vec<&str> = events
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::GameStart { start_fen, .. } => Some(start_fen.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(
        starts,
        ["rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"],
        "one game, from the start position"
    );
    let sans: Vec<&str> = events
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::Move(m) => Some(m.san.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(sans, ["b4", "b5", "Na3", "Bb7", "e3"]);
    // Nothing for the arbiter: a game begun normally.
    assert!(
        !events.iter().any(|e| matches!(e.body, EventBody::Alert(_))),
        "{events:?}"
    );
}
