//! One port task per port: a port that cannot be opened, a port where nothing answers and a
//! port whose writes stall do not delay the bytes of a healthy board.

mod common;

use std::time::Duration;

use common::*;
use dgt_arbiter::edge::serial::PortCandidate;
use dgt_lab::simulated::pty_board::{self, BoardClock, PtyBoard};
use dgt_protocol::BoardMessage;
use tokio_serial::{SerialPort, SerialStream};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dead_ports_do_not_delay_a_live_one() {
    let mut h = start_daemon();

    // Not a tty at all: every open fails.
    let dir = tempfile::tempdir().unwrap();
    let not_a_tty = dir.path().join("not-a-tty");
    std::fs::write(&not_a_tty, b"").unwrap();
    h.ports.add(PortCandidate::at(&not_a_tty));

    // A pty where nothing answers: opens fine, silence for ever.
    let (_mute_master, mute_slave) = SerialStream::pair().unwrap();
    h.ports.add(PortCandidate::at(mute_slave.name().unwrap()));

    // A pty whose output queue is full and never drained: the daemon's writes stall.
    let (_stuck_master, mut stuck_slave) = SerialStream::pair().unwrap();
    let filler = [0u8; 1024];
    let mut filled = 0;
    while let Ok(n) = stuck_slave.try_write(&filler) {
        filled += n;
        if n == 0 || filled > 1 << 20 {
            break;
        }
    }
    h.ports.add(PortCandidate::at(stuck_slave.name().unwrap()));

    // Let the bad ports get going first, then plug in a healthy board.
    tokio::time::sleep(Duration::from_millis(400)).await;
    let board = pty_board::share(quick_board("33333"));
    let clock = BoardClock::start();
    let pty = PtyBoard::plug_in(board.clone(), clock, None).unwrap();
    let plugged_at = h.daemon.handle().clock().now_ms();
    h.ports.add(PortCandidate::at(pty.path()));

    h.inputs.for_a_while(Duration::from_secs(4)).await;
    let seen = &h.inputs.seen;

    // Only the board reports: the bad ports never produced a DGT message.
    assert!(seen.iter().all(|i| i.board == "board-33333"), "{seen:?}");
    let connected = seen
        .iter()
        .find(|i| is_connected(i))
        .expect("never connected");
    // Found on the next scan (200 ms) and opened at once.
    assert!(
        connected.t_ms - plugged_at < 700,
        "{} ms",
        connected.t_ms - plugged_at
    );

    // Moves start 300 ms into the board's life and come every 400 ms; each move's updates
    // arrive in step (none held back behind a stuck port).
    let updates: Vec<u64> = received_messages(seen)
        .into_iter()
        .filter(|(_, m)| matches!(m, BoardMessage::FieldUpdate { .. }))
        .map(|(t, _)| t)
        .collect();
    assert!(updates.len() >= 10, "{} updates", updates.len());
    let longest_gap = updates.windows(2).map(|w| w[1] - w[0]).max().unwrap();
    assert!(
        longest_gap < 600,
        "a gap of {longest_gap} ms between field updates"
    );
    assert_eq!(count(seen, is_disconnected), 0);

    pty.unplug().await;
    h.daemon.shutdown().await;
}
