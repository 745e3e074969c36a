//! Issue 7's check: the daemon is SIGKILLed in the middle of an emulated game and started
//! again on its journal. Its moves and alerts must equal those of a daemon that watched the
//! same game without interruption; `seq` continues with no gap and no duplicate.
//!
//! The emulated board runs in its own process (`dgt-arbiter emulate`), as a real board
//! would: it keeps playing while the daemon is dead, and the restarted daemon finds the
//! moves made meanwhile from the board's dump. The restarted core comes back from the
//! newest core snapshot in the journal and replays only the steps after it.

mod daemon_processes;

use std::path::Path;
use std::time::Duration;

use daemon_processes::*;
use serde_json::Value;

const PLIES: usize = 16;

fn config(dir: &Path, name: &str, pty: &str) -> String {
    let path = dir.join(format!("{name}.toml"));
    let journal = dir.join(format!("{name}.sqlite"));
    std::fs::write(
        &path,
        format!(
            r#"listen = "127.0.0.1:0"
[serial]
scan = "off"
ports = [{{ path = "{pty}" }}]
[journal]
path = "{}"
snapshot_every_s = 2
"#,
            journal.display()
        ),
    )
    .unwrap();
    path.to_str().unwrap().to_string()
}

fn journal_events(dir: &Path, name: &str) -> Vec<Value> {
    let j = dir.join(format!("{name}.sqlite"));
    let (ok, out, err) = run_to_end(&["export", "events", "--journal", j.to_str().unwrap()]);
    assert!(ok, "{err}");
    parse_lines(&out)
}

/// Alerts about the game, not about the equipment (the killed daemon's links went down).
fn game_alerts(events: &[Value]) -> Vec<(String, String, u64)> {
    const EQUIPMENT: [&str; 4] = [
        "board_disconnected",
        "board_reconnected",
        "clock_disconnected",
        "battery_low",
    ];
    events
        .iter()
        .filter(|e| e["type"] == "alert")
        .filter(|e| !EQUIPMENT.contains(&e["kind"].as_str().unwrap_or_default()))
        .map(|e| {
            (
                e["kind"].as_str().unwrap().to_string(),
                e["side"].to_string(),
                e["ply"].as_u64().unwrap_or(0),
            )
        })
        .collect()
}

fn moves_of_first_game(events: &[Value]) -> Vec<(String, u64, String)> {
    let first = events
        .iter()
        .find(|e| e["type"] == "game_start")
        .map(|e| e["game"].as_str().unwrap().to_string());
    final_moves(events)
        .into_iter()
        .filter(|(g, _, _)| Some(g) == first.as_ref())
        .collect()
}

#[test]
fn a_daemon_killed_mid_game_continues_from_its_journal_as_if_never_stopped() {
    let dir = tempfile::tempdir().unwrap();
    let emulate = |seed: &str| {
        let mut p = Proc::spawn(&[
            "emulate",
            "--pty",
            "--seed",
            seed,
            "--serial",
            "10005",
            "--time-control",
            "300+3",
            "--plies",
            &PLIES.to_string(),
            "--clean",
        ]);
        let pty = p.first_stdout_line(Duration::from_secs(20));
        (p, pty)
    };
    // The same seeded game on two boards, one per daemon.
    let (_board_a, pty_a) = emulate("5");
    let (_board_b, pty_b) = emulate("5");
    let steady = Proc::spawn(&["run", "--config", &config(dir.path(), "steady", &pty_a)]);
    let mut killed = Proc::spawn(&["run", "--config", &config(dir.path(), "killed", &pty_b)]);
    killed.stderr_line("dashboard at", Duration::from_secs(20));

    // Kill it once a few moves are journaled.
    eventually(Duration::from_secs(120), "4 moves journaled", || {
        (moves_of_first_game(&journal_events(dir.path(), "killed")).len() >= 4).then_some(())
    });
    killed.kill();
    let before = journal_events(dir.path(), "killed");
    std::thread::sleep(Duration::from_millis(1500));
    let mut restarted = Proc::spawn(&["run", "--config", &config(dir.path(), "killed", &pty_b)]);
    // The core comes back from its newest snapshot (taken every 2 s of play), not from a
    // replay of the whole journal.
    let restored =
        restarted.stderr_line("games restored from the journal", Duration::from_secs(20));
    assert!(restored.contains("from_snapshot="), "{restored}");

    // Both daemons see the whole game.
    eventually(Duration::from_secs(240), "the whole game on both", || {
        let a = moves_of_first_game(&journal_events(dir.path(), "steady"));
        let b = moves_of_first_game(&journal_events(dir.path(), "killed"));
        (a.len() >= PLIES && b.len() >= PLIES).then_some(())
    });
    restarted.terminate();
    steady.terminate();

    let a = journal_events(dir.path(), "steady");
    let b = journal_events(dir.path(), "killed");
    let (moves_a, moves_b) = (moves_of_first_game(&a), moves_of_first_game(&b));
    assert_eq!(moves_a.len(), PLIES);
    assert_eq!(
        moves_a.iter().map(|m| &m.2).collect::<Vec<_>>(),
        moves_b.iter().map(|m| &m.2).collect::<Vec<_>>(),
        "the same moves"
    );
    assert_eq!(game_alerts(&a), game_alerts(&b), "the same alerts");

    // Nothing the killed daemon had journaled was lost or renumbered, and seq continues.
    assert!(!before.is_empty());
    for (k, e) in b.iter().enumerate() {
        assert_eq!(e["seq"].as_u64().unwrap(), k as u64 + 1, "seq without gap");
    }
    assert_eq!(
        &b[..before.len()],
        &before[..],
        "journaled events kept as they were"
    );
}
