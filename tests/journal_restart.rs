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

/// A daemon's settings: one port, its journal snapshotting the core every 2 s.
fn settings(dir: &Path, name: &str, pty: &str) -> String {
    one_port_settings(dir, name, pty, "snapshot_every_s = 2\n")
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
    let steady = Proc::spawn(&["run", "--config", &settings(dir.path(), "steady", &pty_a)]);
    let mut killed = Proc::spawn(&["run", "--config", &settings(dir.path(), "killed", &pty_b)]);
    killed.stderr_line("dashboard at", Duration::from_secs(20));

    // Kill it once a few moves are journaled.
    eventually(Duration::from_secs(120), "4 moves journaled", || {
        (first_game_moves(&exported_events(dir.path(), "killed")).len() >= 4).then_some(())
    });
    killed.kill();
    let before = exported_events(dir.path(), "killed");
    std::thread::sleep(Duration::from_millis(1500));
    let mut restarted = Proc::spawn(&["run", "--config", &settings(dir.path(), "killed", &pty_b)]);
    // The core comes back from its newest snapshot (taken every 2 s of play), not from a
    // replay of the whole journal.
    let restored =
        restarted.stderr_line("games restored from the journal", Duration::from_secs(20));
    assert!(restored.contains("from_snapshot="), "{restored}");

    // Both daemons see the whole game.
    eventually(Duration::from_secs(240), "the whole game on both", || {
        let a = first_game_moves(&exported_events(dir.path(), "steady"));
        let b = first_game_moves(&exported_events(dir.path(), "killed"));
        (a.len() >= PLIES && b.len() >= PLIES).then_some(())
    });
    restarted.terminate();
    steady.terminate();

    let a = exported_events(dir.path(), "steady");
    let b = exported_events(dir.path(), "killed");
    let (moves_a, moves_b) = (first_game_moves(&a), first_game_moves(&b));
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

const TRF: &str = "crates/dgt-pairings/tests/samples/zomeropen-r3.trf";

/// Imports a round's pairings into the stopped daemon's journal (`pairings import`).
fn import_round(config: &str, journal: &Path, round: u32) {
    let trf = Path::new(env!("CARGO_MANIFEST_DIR")).join(TRF);
    let (ok, _, err) = run_to_end(&[
        "pairings",
        "import",
        trf.to_str().unwrap(),
        "--round",
        &round.to_string(),
        "--config",
        config,
        "--journal",
        journal.to_str().unwrap(),
    ]);
    assert!(ok, "round {round}: {err}");
}

#[test]
fn a_daemon_restarted_on_a_journal_in_several_segments_goes_on_where_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let mut board = Proc::spawn(&[
        "emulate",
        "--pty",
        "--seed",
        "7",
        "--serial",
        "10006",
        "--time-control",
        "300+3",
        "--plies",
        &PLIES.to_string(),
        "--clean",
    ]);
    let pty = board.first_stdout_line(Duration::from_secs(20));
    let config = settings(dir.path(), "seg", &pty);
    let journal = dir.path().join("seg.sqlite");
    let moves = || first_game_moves(&exported_events(dir.path(), "seg")).len();

    // Rounds 1 and 2 imported between runs, each run killed mid-game, round 3 posted to the
    // running daemon: the game is journaled across three segments, two of them closed.
    let mut seen: Vec<Value> = Vec::new();
    for round in 1..=2u32 {
        let mut daemon = Proc::spawn(&["run", "--config", &config]);
        if round == 1 {
            daemon.stderr_line("dashboard at", Duration::from_secs(20));
        } else {
            daemon.stderr_line("games restored from the journal", Duration::from_secs(20));
        }
        let want = seen_moves(&seen) + 3;
        eventually(Duration::from_secs(120), "3 more moves journaled", || {
            (moves() >= want).then_some(())
        });
        daemon.kill();
        let now = exported_events(dir.path(), "seg");
        assert_eq!(&now[..seen.len()], &seen[..], "kept as journaled");
        seen = now;
        import_round(&config, &journal, round);
    }
    assert!(dir.path().join("seg.r1.sqlite").exists());
    let mut daemon = Proc::spawn(&["run", "--config", &config]);
    daemon.stderr_line("games restored from the journal", Duration::from_secs(20));
    let addr = dashboard_addr(&daemon.stderr_line("dashboard at", Duration::from_secs(20)));
    let trf = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(TRF)).unwrap();
    let (status, body) = post(addr, "/api/rounds/3/pairings", &trf);
    assert_eq!(status, 200, "{body}");
    eventually(Duration::from_secs(20), "round 2's segment closed", || {
        dir.path().join("seg.r2.sqlite").exists().then_some(())
    });
    eventually(Duration::from_secs(240), "the whole game", || {
        (moves() >= PLIES).then_some(())
    });
    daemon.terminate();

    let events = exported_events(dir.path(), "seg");
    assert_eq!(first_game_moves(&events).len(), PLIES);
    assert_eq!(&events[..seen.len()], &seen[..], "kept as journaled");
    for (k, e) in events.iter().enumerate() {
        assert_eq!(e["seq"].as_u64().unwrap(), k as u64 + 1, "seq without gap");
    }
    let rounds: Vec<u64> = events
        .iter()
        .filter(|e| e["type"] == "pairings")
        .map(|e| e["round"].as_u64().unwrap())
        .collect();
    assert_eq!(rounds, [1, 2, 3]);

    // Round 1's segment moved to archive storage: `export` reads what remains and names it.
    let archive = dir.path().join("archive");
    std::fs::create_dir(&archive).unwrap();
    std::fs::rename(
        dir.path().join("seg.r1.sqlite"),
        archive.join("seg.r1.sqlite"),
    )
    .unwrap();
    let (ok, out, err) = run_to_end(&["export", "events", "--journal", journal.to_str().unwrap()]);
    assert!(ok, "{err}");
    assert!(
        err.contains("seg.r1.sqlite") && err.contains("archived?"),
        "{err}"
    );
    let rest = parse_lines(&out);
    assert!(!rest.is_empty() && rest.len() < events.len());
    assert_eq!(&events[events.len() - rest.len()..], &rest[..]);
}

fn seen_moves(events: &[Value]) -> usize {
    first_game_moves(events).len()
}
