//! A game found under way, with the real processes: an emulated board (`dgt-arbiter emulate --pty`,
//! a random game) is playing when the daemon (`run`) starts. The daemon tells the arbiter, reads the
//! board's log and follows the game from its first move; SIGKILLed and started again on its
//! journal, it continues the same game; started on an empty journal (a lost journal), it
//! finds the game again.

mod daemon_processes;

use std::path::Path;
use std::time::Duration;

use daemon_processes::*;
use serde_json::Value;

fn of_type<'a>(events: &'a [Value], kind: &str) -> Vec<&'a Value> {
    events.iter().filter(|e| e["type"] == kind).collect()
}

fn found(events: &[Value]) -> usize {
    events
        .iter()
        .filter(|e| e["type"] == "alert" && e["kind"] == "game_found_under_way")
        .count()
}

/// The moves of the journal's first game, as UCI.
fn first_game_ucis(events: &[Value]) -> Vec<String> {
    first_game_moves(events)
        .into_iter()
        .map(|(_, _, uci)| uci)
        .collect()
}

/// Whether two daemons' moves of one game agree where they overlap: each daemon followed
/// the game from its start (rebuilt from the board's log) or from where it found it, so one
/// list's moves run inside the other's.
fn agree(a: &[String], b: &[String]) -> bool {
    let (long, short) = if a.len() >= b.len() { (a, b) } else { (b, a) };
    (0..=long.len()).any(|k| {
        let rest = &long[k..];
        rest.starts_with(&short[..short.len().min(rest.len())])
            && (rest.len() >= short.len() || short.starts_with(rest))
    })
}

/// Waits until the journal's first game has at least `plies` moves (looking every two
/// seconds: each look is an `export` process reading the journal).
fn until_moves(dir: &Path, name: &str, plies: usize) -> Vec<Value> {
    let end = std::time::Instant::now() + Duration::from_secs(180);
    loop {
        let events = exported_events(dir, name);
        if first_game_ucis(&events).len() >= plies {
            return events;
        }
        assert!(
            std::time::Instant::now() < end,
            "timed out waiting for {plies} moves in {name}: {:?}",
            first_game_ucis(&events)
        );
        std::thread::sleep(Duration::from_secs(2));
    }
}

#[test]
fn a_daemon_started_mid_game_follows_it_and_keeps_it_over_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let mut board = Proc::spawn(&[
        "emulate",
        "--pty",
        "--seed",
        "3",
        "--serial",
        "10035",
        "--time-control",
        "180+2",
        "--plies",
        "120",
        "--clean",
    ]);
    let pty = board.first_stdout_line(Duration::from_secs(20));
    // The players begin before any daemon is there.
    std::thread::sleep(Duration::from_secs(10));

    let hall = one_port_settings(dir.path(), "hall", &pty, "");
    let mut first = Proc::spawn(&["run", "--config", &hall]);
    first.stderr_line("dashboard at", Duration::from_secs(20));
    let seen = until_moves(dir.path(), "hall", 6);
    assert!(found(&seen) >= 1, "the arbiter is told of the game found");
    first.kill();
    std::thread::sleep(Duration::from_millis(1500));

    // Started again on its journal: the same game goes on.
    let mut again = Proc::spawn(&["run", "--config", &hall]);
    again.stderr_line("dashboard at", Duration::from_secs(20));
    let after = until_moves(dir.path(), "hall", first_game_ucis(&seen).len() + 2);
    again.terminate();
    assert_eq!(
        of_type(&after, "game_start").len(),
        1,
        "one game over the restart"
    );
    let got = first_game_ucis(&after);
    let before = first_game_ucis(&seen);
    assert!(
        got.starts_with(&before),
        "the restarted daemon kept the game: {before:?} then {got:?}"
    );

    // A daemon on an empty journal (the journal lost) finds the game again.
    let lost_settings = one_port_settings(dir.path(), "lost", &pty, "");
    let mut fresh = Proc::spawn(&["run", "--config", &lost_settings]);
    fresh.stderr_line("dashboard at", Duration::from_secs(20));
    let lost = until_moves(dir.path(), "lost", 3);
    fresh.terminate();
    board.terminate();
    assert!(found(&lost) >= 1, "told again");
    // Rebuilt from the board's log (from the start), or followed from where it stood when
    // the log did not lead there: the moves agree with the first daemon's where both saw them.
    let again_got = first_game_ucis(&lost);
    assert!(!again_got.is_empty());
    assert!(
        agree(&got, &again_got),
        "both daemons read the same game: {got:?}\n{again_got:?}"
    );
}
