//! `dgt-arbiter demo` as a user starts it: emulated boards on ptys into the real daemon,
//! answering `/`, `/api/boards`, `/health` and `/metrics`; its journal exported afterwards as
//! a capture that replays to the very events it published, and as PGN with `[%clk]`.

mod daemon_processes;

use std::time::Duration;

use daemon_processes::*;

#[test]
fn demo_serves_the_dashboard_and_its_journal_exports_replay_identically() {
    let dir = tempfile::tempdir().unwrap();
    let journal = temp_path(&dir, "journal.sqlite");
    let (demo, addr) = start_demo(3, None, &journal, None);

    let (status, page) = get(addr, "/");
    assert_eq!(status, 200);
    assert!(page.contains("<html"), "the dashboard page: {page:.200}");

    // Three boards connect and moves arrive.
    let boards = eventually(Duration::from_secs(60), "3 boards with moves", || {
        let b = get_json(addr, "/api/boards");
        let list = b.as_array()?.clone();
        let with_moves = list
            .iter()
            .filter(|b| b["moves"].as_array().is_some_and(|m| !m.is_empty()))
            .count();
        (list.len() == 3 && with_moves >= 2).then_some(list)
    });
    for b in &boards {
        assert!(b["board"].as_str().unwrap().starts_with("board-1000"));
    }

    let health = get_json(addr, "/health");
    assert_eq!(health["status"], "ok", "{health}");
    assert_eq!(health["boards_connected"], 3, "{health}");
    assert_eq!(
        health["daemon"]["journal"]["failure"],
        serde_json::Value::Null
    );
    assert!(
        health["daemon"]["journal"]["committed_seq"]
            .as_u64()
            .unwrap()
            > 0
    );

    let (status, metrics) = get(addr, "/metrics");
    assert_eq!(status, 200);
    assert!(metrics.contains("dgt_boards_connected 3"), "{metrics}");
    assert!(metrics.contains("dgt_journal_failing 0"), "{metrics}");
    let value = |name: &str| -> f64 {
        metrics
            .lines()
            .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.parse().ok())
            .unwrap_or_else(|| panic!("{name} in {metrics}"))
    };
    assert!(value("dgt_serial_rx_bytes_total") > 100.0);
    assert!(value("dgt_core_step_seconds_count") > 10.0);
    assert!(
        value("dgt_move_release_seconds_count") >= 2.0,
        "moves were released"
    );

    let printed = demo.terminate();
    assert!(printed.is_empty(), "no --print-events, no stdout");

    // The journal, exported as a capture, replays to exactly the published events.
    let j = path_str(&journal);
    let (ok, capture, err) = run_to_end(&["export", "capture", "--journal", j]);
    assert!(ok, "{err}");
    let capture_path = temp_path(&dir, "live.jsonl");
    std::fs::write(&capture_path, &capture).unwrap();
    let (ok, replayed, err) = run_to_end(&["replay", path_str(&capture_path)]);
    assert!(ok, "{err}");
    let (ok, live, err) = run_to_end(&["export", "events", "--journal", j]);
    assert!(ok, "{err}");
    assert!(live.lines().count() > 10, "events were journaled");
    assert_eq!(
        replayed, live,
        "replay of the exported capture = live events"
    );

    // PGN: a clock comment after every move.
    let (ok, pgn, err) = run_to_end(&["export", "pgn", "--journal", j]);
    assert!(ok, "{err}");
    let moves = final_moves(&parse_lines(&live)).len();
    assert!(moves >= 2);
    assert_eq!(pgn.matches("[%clk ").count(), moves, "{pgn}");
    assert_eq!(pgn.matches("[Event ").count(), 3, "one game per board");

    // Alerts export: JSON lines of alert events only.
    let (ok, alerts, err) = run_to_end(&["export", "alerts", "--journal", j]);
    assert!(ok, "{err}");
    for a in parse_lines(&alerts) {
        assert_eq!(a["type"], "alert");
        assert!(a["acknowledged"].is_boolean());
    }
}

#[test]
fn export_without_a_journal_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let missing = temp_path(&dir, "none.sqlite");
    let (ok, out, err) = run_to_end(&["export", "pgn", "--journal", path_str(&missing)]);
    assert!(!ok);
    assert!(out.is_empty());
    assert!(err.contains("no journal at"), "{err}");
}

/// A damaged journal never keeps the boards unwatched: it is moved aside untouched, a new
/// one is started, and `/health` tells the arbiter (the dashboard shows it as a banner).
#[test]
fn a_damaged_journal_is_set_aside_and_the_daemon_runs_on() {
    let dir = tempfile::tempdir().unwrap();
    let journal = temp_path(&dir, "journal.sqlite");
    let garbage = b"this is not an SQLite database, it was overwritten by accident ".repeat(200);
    std::fs::write(&journal, &garbage).unwrap();
    let (demo, addr) = start_demo(1, None, &journal, None);
    let health = get_json(addr, "/health");
    assert_eq!(health["status"], "degraded", "{health}");
    let notice = health["daemon"]["notice"].as_str().unwrap();
    assert!(notice.contains("was damaged"), "{notice}");
    // The damaged file is kept, byte for byte, beside the new journal.
    let aside: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().contains(".damaged-"))
        .collect();
    assert_eq!(aside.len(), 1, "{aside:?}");
    assert_eq!(std::fs::read(&aside[0]).unwrap(), garbage);
    // The new journal works: the board's events are committed.
    eventually(Duration::from_secs(30), "events committed", || {
        let h = get_json(addr, "/health");
        (h["daemon"]["journal"]["committed_seq"].as_u64()? > 0).then_some(())
    });
    demo.terminate();
}

/// A damaged closed segment (round 1's) is named; the journal is set aside with its list of
/// segments, the segment itself left untouched, and the daemon runs on a new journal.
#[test]
fn a_damaged_closed_segment_is_named_and_the_daemon_runs_on() {
    use dgt_core::pairing::{ROUND_BOARD, RoundPairings};
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let journal = temp_path(&dir, "journal.sqlite");
    {
        let mut core = dgt_core::Core::new(dgt_core::CoreConfig::default());
        let mut j = dgt_journal::Journal::open(&journal).unwrap();
        for round in [1, 2] {
            let input = dgt_core::Input {
                t_ms: round * 1_000,
                board: ROUND_BOARD.into(),
                kind: dgt_core::InputKind::Op(dgt_core::Operation::Pairings(RoundPairings {
                    round: round as u32,
                    ..RoundPairings::default()
                })),
            };
            let mut batch = dgt_journal::Batch::new();
            batch.record_input(input.clone(), core.handle(&input));
            j.append(&batch).unwrap();
        }
    }
    let r1 = temp_path(&dir, "journal.r1.sqlite");
    std::fs::set_permissions(&r1, std::fs::Permissions::from_mode(0o644)).unwrap();
    let mut bytes = std::fs::read(&r1).unwrap();
    bytes[100..4000].fill(0x5a);
    std::fs::write(&r1, &bytes).unwrap();

    let (demo, addr) = start_demo(1, None, &journal, None);
    let health = get_json(addr, "/health");
    assert_eq!(health["status"], "degraded", "{health}");
    let notice = health["daemon"]["notice"].as_str().unwrap();
    assert!(notice.contains("journal.r1.sqlite"), "{notice}");
    assert_eq!(std::fs::read(&r1).unwrap(), bytes, "left untouched");
    assert!(!temp_path(&dir, "journal.segments.json").exists());
    eventually(Duration::from_secs(30), "events committed", || {
        let h = get_json(addr, "/health");
        (h["daemon"]["journal"]["committed_seq"].as_u64()? > 0).then_some(())
    });
    demo.terminate();
}

/// The broadcast folder (LiveChess layout) is kept live while games are played, and its
/// public copy holds moves back by the configured delay and never carries alerts.
#[test]
fn the_broadcast_folders_follow_the_games_and_the_public_copy_is_delayed() {
    let dir = tempfile::tempdir().unwrap();
    let live = temp_path(&dir, "live");
    let public = temp_path(&dir, "public");
    let config = temp_path(&dir, "demo.toml");
    std::fs::write(
        &config,
        format!(
            "[event]\nname = \"Test Open\"\nsite = \"Zeist\"\nround = 2\ndate = \"2026.11.23\"\n\
             [[tables]]\nboard = 1\nserials = [\"10001\"]\nwhite = \"Alpha, Ann\"\nblack = \"Beta, Bob\"\n\
             white_fide_id = 1234567\n\
             [[tables]]\nboard = 2\nserials = [\"10002\"]\nwhite = \"Gamma, Gus\"\nblack = \"Delta, Dee\"\n\
             [server]\npublic_delay_s = 3600\n\
             [journal]\nbroadcast_dir = \"{}\"\npublic_broadcast_dir = \"{}\"\n",
            live.display(),
            public.display()
        ),
    )
    .unwrap();
    let journal = temp_path(&dir, "j.sqlite");
    let (demo, _) = start_demo(2, None, &journal, Some(&config));
    let game_files = eventually(Duration::from_secs(60), "moves in the live folder", || {
        let index = std::fs::read_to_string(live.join("round-2/index.json")).ok()?;
        let index: serde_json::Value = serde_json::from_str(&index).ok()?;
        let pairings = index["pairings"].as_array()?.clone();
        let pgns: Vec<String> = pairings
            .iter()
            .filter_map(|p| {
                std::fs::read_to_string(live.join(format!("round-2/game-{}.pgn", p["game"]))).ok()
            })
            .collect();
        (pgns.len() == 2 && pgns.iter().all(|p| p.contains("[%clk "))).then_some(pgns)
    });
    demo.terminate();
    for pgn in &game_files {
        assert!(pgn.contains("[Event \"Test Open\"]"), "{pgn}");
        assert!(pgn.contains("[Site \"Zeist\"]"), "{pgn}");
        assert!(pgn.contains("[Date \"2026.11.23\"]"), "{pgn}");
    }
    // The table map names the boards and this round's players.
    let board_1 = std::fs::read_to_string(live.join("round-2/game-1.pgn")).unwrap();
    assert!(board_1.contains("[Round \"2.1\"]"), "{board_1}");
    assert!(board_1.contains("[White \"Alpha, Ann\"]"), "{board_1}");
    assert!(board_1.contains("[Black \"Beta, Bob\"]"), "{board_1}");
    assert!(board_1.contains("1234567"), "{board_1}");
    let board_2 = std::fs::read_to_string(live.join("round-2/game-2.pgn")).unwrap();
    assert!(board_2.contains("[White \"Gamma, Gus\"]"), "{board_2}");
    let tournament: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(live.join("tournament.json")).unwrap())
            .unwrap();
    assert_eq!(tournament["name"], "Test Open");
    // An hour's delay: the public copy has the pairings but no move yet.
    let public_all = std::fs::read_to_string(public.join("round-2/games.pgn")).unwrap();
    assert!(public_all.contains("[Event \"Test Open\"]"));
    assert!(!public_all.contains("[%clk "), "{public_all}");
    assert!(!public_all.to_lowercase().contains("alert"));
}
