//! A board unplugged while the players go on, on pseudo-terminals: the board keeps power
//! (a Bluetooth or separately powered board), so its EEPROM log (protocol §3.6), read at the
//! re-plug, holds the moves of the outage — more than the after-gap search could find from
//! the dump — and the daemon's move events equal the emulator's truth.

mod common;

use std::time::Duration;

use common::{Running, clean_series, label, made_by, start_collecting};
use dgt_arbiter::edge::serial::PortCandidate;
use dgt_arbiter::test_support::moves::first_games;
use dgt_core::{Event, EventBody, Severity};
use dgt_lab::simulated::emulated::SeriesBoard;
use dgt_lab::simulated::pty_board::{self, BoardClock, BoardModel, PtyBoard};

const SERIAL: u32 = 13579;

/// The moves of the board's first game as a consumer rebuilds them.
fn moves(events: &[Event]) -> Vec<String> {
    first_games(events)
        .remove(&label(SERIAL))
        .unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn moves_made_while_unplugged_are_read_back_from_the_board_memory() {
    let began = std::time::Instant::now();
    let Running {
        daemon,
        ports,
        events,
        ..
    } = start_collecting(true);
    let board = pty_board::share(SeriesBoard::new(clean_series(SERIAL, 11, 80, 1500)));
    let clock = BoardClock::start();

    // Plugged in: a few moves are read live.
    let first = PtyBoard::plug_in(board.clone(), clock, None).unwrap();
    let first_path = first.path().to_path_buf();
    ports.add(PortCandidate::at(&first_path));
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    while moves(&events.lock().unwrap()).len() < 4 {
        assert!(tokio::time::Instant::now() < deadline, "no moves read");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }

    // Unplugged mid-game; the board keeps power and the players play on.
    first.unplug().await;
    ports.remove(&first_path);
    let at_unplug = made_by(&board, clock.now_ms()).len();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    loop {
        tokio::time::sleep(Duration::from_millis(200)).await;
        let _ = board.lock().unwrap().poll_output(clock.now_ms());
        if made_by(&board, clock.now_ms()).len() >= at_unplug + 9 {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "too few moves unplugged"
        );
    }
    let truth_at_replug = made_by(&board, clock.now_ms());
    let events_before = events.lock().unwrap().len();

    // Re-plugged on a new pty: the log is read and the outage's moves come from it.
    let second = PtyBoard::plug_in(board.clone(), clock, None).unwrap();
    ports.add(PortCandidate::at(second.path()));
    let deadline = tokio::time::Instant::now() + Duration::from_secs(15);
    loop {
        tokio::time::sleep(Duration::from_millis(200)).await;
        let got = moves(&events.lock().unwrap());
        if got.len() >= truth_at_replug.len() + 2 || tokio::time::Instant::now() >= deadline {
            break;
        }
    }
    second.unplug().await;
    daemon.shutdown().await;

    let events = events.lock().unwrap();
    if std::env::var_os("EE_DEBUG").is_some() {
        for e in &events[events_before..] {
            eprintln!("{} {:?}", e.t_ms, e.body);
        }
    }
    let got = moves(&events);
    let truth = board.lock().unwrap().current().1.truth().ucis();
    assert!(
        got.len() >= truth_at_replug.len() && truth.starts_with(&got),
        "daemon {got:?}\ntruth {truth:?}\n(at unplug {at_unplug}, at re-plug {})",
        truth_at_replug.len()
    );
    // Each ply of the outage sent once, none re-sent, none corrected.
    let after: Vec<_> = events[events_before..]
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::Move(m) => Some(m.clone()),
            _ => None,
        })
        .collect();
    let plies: Vec<u32> = after.iter().map(|m| m.ply).collect();
    assert!(plies.windows(2).all(|w| w[1] == w[0] + 1), "{plies:?}");
    // The outage's moves carry the clock times the board logged (whole seconds). A press
    // logged out of step with the scan can leave a move with the previous time (see the
    // report): most, not all, are checked.
    let truth_game = board.lock().unwrap().current().1.truth().clone();
    let outage: Vec<_> = after
        .iter()
        .filter(|m| (m.ply as usize) <= truth_at_replug.len())
        .collect();
    let timed = outage
        .iter()
        .filter(|m| {
            let t = &truth_game.moves[m.ply as usize - 1];
            let (got, want) = if t.white {
                (m.white_ms, t.white_ms)
            } else {
                (m.black_ms, t.black_ms)
            };
            got.is_some_and(|g| g.abs_diff(want) <= 1000)
        })
        .count();
    assert!(outage.len() >= 9, "{} outage moves", outage.len());
    assert!(
        timed * 10 >= outage.len() * 7,
        "{timed} of {} timed",
        outage.len()
    );
    let reviews: Vec<_> = events
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::Alert(a) if a.severity == Severity::Review => Some(a.kind),
            _ => None,
        })
        .collect();
    // No gap was reported: the log explained the outage. Known flaw, and why
    // `read_board_log` is off by default: moves made while the ~8 s log occupies the line
    // arrive as a burst afterwards and are sometimes seen as an `illegal_position` for a
    // moment (the moves themselves come out right, as checked above).
    assert!(
        reviews.iter().all(|k| matches!(
            k,
            dgt_core::AlertKind::BoardDisconnected | dgt_core::AlertKind::IllegalPosition
        )),
        "{reviews:?}"
    );
    assert!(
        !reviews.contains(&dgt_core::AlertKind::BoardReconnected),
        "no gap: {reviews:?}"
    );
    eprintln!(
        "{} plies while unplugged, {:.1} s",
        truth_at_replug.len() - at_unplug,
        began.elapsed().as_secs_f64()
    );
}
