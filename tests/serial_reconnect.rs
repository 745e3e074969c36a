//! Unplug and re-plug on pseudo-terminals: the daemon reports the link lost and found under
//! the board's serial-number label, wherever the board comes back, and resyncs with a fresh
//! board dump.

mod common;

use std::time::Duration;

use common::*;
use dgt_core::{InputKind, Link};
use dgt_lab::simulated::pty_board::{self, BoardClock, BoardModel, PtyBoard};
use dgt_protocol::BoardMessage;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unplugged_board_comes_back_under_the_same_label_with_a_fresh_dump() {
    let mut h = start_daemon();
    let board = pty_board::share(quick_board("24680"));
    let clock = BoardClock::start();

    // Plugged in: connected, identified, dumped, then moves as field updates.
    let first = PtyBoard::plug_in(board.clone(), clock, None).unwrap();
    let first_path = first.path().to_path_buf();
    h.ports
        .add(dgt_arbiter::edge::serial::PortCandidate::at(&first_path));
    assert!(
        h.inputs
            .until(Duration::from_secs(4), |seen| field_updates(seen) >= 4)
            .await,
        "no moves read: {:?}",
        h.inputs.seen
    );
    assert!(is_connected(&h.inputs.seen[0]), "{:?}", h.inputs.seen[0]);
    let before_unplug = h.inputs.seen.len();

    // Pull the cable mid-game.
    first.unplug().await;
    h.ports.remove(&first_path);
    assert!(
        h.inputs
            .until(Duration::from_secs(3), |seen| seen
                .iter()
                .any(is_disconnected))
            .await,
        "unplug not noticed"
    );
    let reason = h
        .inputs
        .seen
        .iter()
        .find_map(disconnect_reason)
        .unwrap()
        .to_string();
    assert!(
        reason.contains("end of file") || reason.contains("error"),
        "{reason}"
    );

    // The players go on while the board is unplugged.
    let plies_at_unplug = board.lock().unwrap().plies();
    tokio::time::sleep(Duration::from_millis(1000)).await;
    let replug_squares = {
        let mut b = board.lock().unwrap();
        // Its pieces moved; what it said went nowhere.
        let _ = b.poll_output(clock.now_ms());
        assert!(b.plies() > plies_at_unplug, "no moves while unplugged");
        // A USB board loses power when unplugged; and hold still so the dump is exact.
        b.power_cycle();
        b.pause_moves(true, clock.now_ms());
        b.squares()
    };

    // Re-plugged: a new pty (maybe another number), the same board.
    let second = PtyBoard::plug_in(board.clone(), clock, None).unwrap();
    h.ports
        .add(dgt_arbiter::edge::serial::PortCandidate::at(second.path()));
    let second_connect =
        |seen: &[dgt_core::Input]| seen.iter().filter(|i| is_connected(i)).count() >= 2;
    assert!(
        h.inputs.until(Duration::from_secs(4), second_connect).await,
        "re-plug not noticed: {:?}",
        &h.inputs.seen[before_unplug..]
    );
    let reconnect_at = h.inputs.seen.iter().rposition(is_connected).unwrap();
    assert!(
        h.inputs
            .until(Duration::from_secs(3), |seen| {
                received_messages(&seen[reconnect_at..])
                    .iter()
                    .any(|(_, m)| matches!(m, BoardMessage::BoardDump(_)))
            })
            .await,
        "no dump after the re-plug"
    );

    let seen = &h.inputs.seen;
    assert!(
        seen.iter().all(|i| i.board == "board-24680"),
        "labels: {seen:?}"
    );
    match &seen[reconnect_at].kind {
        InputKind::Link(Link::Connected { port }) => {
            assert_eq!(port.as_deref(), Some(second.path().to_str().unwrap()))
        }
        other => panic!("{other:?}"),
    }
    // After the re-plug the start-up sequence ran again: serial, version, dump, update mode.
    let sent_after = sent_bytes(&seen[reconnect_at..]);
    assert!(
        sent_after.starts_with(&[0x45, 0x4D, 0x42]),
        "{sent_after:02x?}"
    );
    let dump = received_messages(&seen[reconnect_at..])
        .into_iter()
        .find_map(|(_, m)| match m {
            BoardMessage::BoardDump(sq) => Some(*sq),
            _ => None,
        })
        .unwrap();
    assert_eq!(
        dump, replug_squares,
        "the dump shows the board as it is now"
    );
    let start = dgt_lab::simulated::scripted_board::board_squares(&shakmaty::Board::default());
    assert_ne!(dump, start, "moves were made");
    // Time never goes back in the recorded stream.
    assert!(seen.windows(2).all(|w| w[0].t_ms <= w[1].t_ms));

    second.unplug().await;
    h.daemon.shutdown().await;
}
