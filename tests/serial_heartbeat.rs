//! The heartbeat (protocol §4.4): a board with nothing to say is probed with `0x45` and stays
//! connected; a board that stops answering is declared dead, then found again once it
//! answers.

mod common;

use std::time::Duration;

use common::*;
use dgt_arbiter::edge::serial::PortCandidate;
use dgt_core::InputKind;
use dgt_lab::simulated::pty_board::{self, BoardClock, PtyBoard};
use dgt_protocol::BoardMessage;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_silent_board_is_probed_and_stays_connected() {
    let mut h = start_daemon();
    let board = pty_board::share(quick_board("11111"));
    let clock = BoardClock::start();
    // Nobody moves: in UPDATE_NICE mode without a clock the board sends nothing.
    board.lock().unwrap().pause_moves(true, 0);
    let pty = PtyBoard::plug_in(board.clone(), clock, None).unwrap();
    h.ports.add(PortCandidate::at(pty.path()));

    // Ten heartbeat periods and three dead-link periods of silence from the players.
    h.inputs.for_a_while(Duration::from_secs(3)).await;
    let seen = &h.inputs.seen;
    assert!(seen.first().is_some_and(is_connected), "{seen:?}");
    assert_eq!(count(seen, is_disconnected), 0, "{seen:?}");
    // Start-up (0x45 0x4D 0x42 0x4B clock-version) and then probes, nothing else.
    let sent = sent_bytes(seen);
    assert!(sent.starts_with(&[0x45, 0x4D, 0x42, 0x4B, 0x2B, 0x03, 0x03, 0x09, 0x00]));
    let probes = sent[9..].iter().filter(|&&b| b == 0x45).count();
    assert!(probes >= 4, "{sent:02x?}");
    assert!(sent[9..].iter().all(|&b| b == 0x45), "{sent:02x?}");
    let serials = received_messages(seen)
        .iter()
        .filter(|(_, m)| matches!(m, BoardMessage::SerialNumber(_)))
        .count();
    assert!(
        serials > probes / 2,
        "probes answered: {serials} of {probes}"
    );

    pty.unplug().await;
    h.daemon.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_board_that_stops_answering_is_dead_and_found_again() {
    let mut h = start_daemon();
    let board = pty_board::share(quick_board("22222"));
    let clock = BoardClock::start();
    board.lock().unwrap().pause_moves(true, 0);
    let pty = PtyBoard::plug_in(board.clone(), clock, None).unwrap();
    h.ports.add(PortCandidate::at(pty.path()));
    assert!(
        h.inputs
            .until(Duration::from_secs(2), |seen| received_messages(seen)
                .iter()
                .any(|(_, m)| matches!(m, BoardMessage::BoardDump(_))))
            .await
    );

    // The board hangs: the port stays open, nothing comes back.
    board.lock().unwrap().set_answering(false);
    let hung_at = h.inputs.seen.last().unwrap().t_ms;
    assert!(
        h.inputs
            .until(Duration::from_secs(4), |seen| seen
                .iter()
                .any(is_disconnected))
            .await,
        "a hung board was never declared dead"
    );
    let dead = h.inputs.seen.iter().find(|i| is_disconnected(i)).unwrap();
    let reason = disconnect_reason(dead).unwrap();
    assert!(reason.contains("heartbeat"), "{reason}");
    // heartbeat (0.3 s) + dead_after (1 s), with slack for the scheduler.
    let took = dead.t_ms - hung_at;
    assert!(
        (1000..2500).contains(&took),
        "declared dead after {took} ms"
    );
    // Probes were sent while it was silent.
    let after_hang: Vec<_> = h
        .inputs
        .seen
        .iter()
        .filter(|i| i.t_ms >= hung_at && matches!(i.kind, InputKind::Tx(_)))
        .collect();
    assert!(!after_hang.is_empty());

    // It comes back to life: the daemon reopens the port after its back-off.
    board.lock().unwrap().set_answering(true);
    assert!(
        h.inputs
            .until(Duration::from_secs(4), |seen| count(seen, is_connected)
                >= 2)
            .await,
        "never reconnected"
    );
    assert!(h.inputs.seen.iter().all(|i| i.board == "board-22222"));

    pty.unplug().await;
    h.daemon.shutdown().await;
}
