//! A live session replays to the same events (contract §2): the inputs the core task records
//! are what `replay` needs, timers included.

mod common;

use std::time::Duration;

use common::*;
use dgt_arbiter::edge::serial::PortCandidate;
use dgt_lab::simulated::pty_board::{self, BoardClock, PtyBoard};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn recorded_inputs_replay_to_the_live_events() {
    let mut h = start_daemon();
    let mut events = h.daemon.handle().subscribe();
    let board = pty_board::share(quick_board("44444"));
    let pty = PtyBoard::plug_in(board, BoardClock::start(), None).unwrap();
    h.ports.add(PortCandidate::at(pty.path()));
    // Play until a few moves were made (seconds; more on a loaded machine).
    let mut live = Vec::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    while live
        .iter()
        .filter(|e: &&dgt_core::Event| e.body.type_name() == "move")
        .count()
        < 4
        && tokio::time::Instant::now() < deadline
    {
        h.inputs.for_a_while(Duration::from_millis(200)).await;
        while let Ok(e) = events.try_recv() {
            live.push(e);
        }
    }
    pty.unplug().await;
    h.inputs.for_a_while(Duration::from_millis(500)).await;
    h.daemon.shutdown().await;
    h.inputs.for_a_while(Duration::from_millis(100)).await;
    while let Ok(e) = events.try_recv() {
        live.push(e);
    }
    let moves = live.iter().filter(|e| e.body.type_name() == "move").count();
    assert!(moves >= 3, "{moves} moves in {live:?}");

    let capture: String = h
        .inputs
        .seen
        .iter()
        .map(|i| dgt_core::capture::write_line(i) + "\n")
        .collect();
    let replayed =
        dgt_arbiter::replay::replay_text(&capture, dgt_core::CoreConfig::default()).unwrap();
    // Replay also fires the timers still pending when the live session stopped.
    assert!(replayed.len() >= live.len());
    assert_eq!(&replayed[..live.len()], &live[..]);
}
