//! `dgt-arbiter replay` as a user runs it: the real recording, byte-identical output, and a
//! malformed capture refused with a one-line error naming the line.

use std::process::Command;

use dgt_testkit::fixtures::{captures, real_game_moves};

fn replay(path: &std::path::Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_dgt-arbiter"))
        .arg("replay")
        .arg(path)
        .output()
        .expect("the binary runs")
}

#[test]
fn the_real_recording_replays_identically_every_time() {
    let capture = captures().join("real-blitz-game-1.jsonl");
    let a = replay(&capture);
    let b = replay(&capture);
    assert!(a.status.success(), "{}", String::from_utf8_lossy(&a.stderr));
    assert_eq!(a.stdout, b.stdout);
    let text = String::from_utf8(a.stdout).unwrap();
    let mut moves: Vec<String> = Vec::new();
    let mut last_seq = 0;
    for line in text.lines() {
        let v: serde_json::Value = serde_json::from_str(line).expect("one JSON object per line");
        let seq = v["seq"].as_u64().unwrap();
        assert!(seq > last_seq, "seq strictly increases");
        last_seq = seq;
        assert!(v["board"].is_string() && v["t_ms"].is_u64() && v["type"].is_string());
        if v["type"] == "move" {
            let ply = v["ply"].as_u64().unwrap() as usize;
            moves.truncate(ply - 1);
            moves.push(v["uci"].as_str().unwrap().to_string());
        }
    }
    assert_eq!(moves, real_game_moves());
}

/// A bughouse match on two boards (capture written from the DJC scenarios): board 2's mate
/// waits (5.4), a knight taken on board 1 is dropped to lift it, the dropped knight is taken
/// with mate again, board 1 ends on Black's flag (5.6), board 2's mate becomes final, and
/// the match score is told (8.2).
#[test]
fn a_bughouse_match_replays_with_its_configuration() {
    let dir = captures();
    let out = Command::new(env!("CARGO_BIN_EXE_dgt-arbiter"))
        .arg("replay")
        .arg(dir.join("bughouse-match.jsonl"))
        .arg("--config")
        .arg(dir.join("bughouse.toml"))
        .output()
        .expect("the binary runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let events: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let of = |ty: &str, board: &str| -> Vec<&serde_json::Value> {
        events
            .iter()
            .filter(|e| e["type"] == ty && e["board"] == board)
            .collect()
    };
    let sans: Vec<&str> = of("move", "2")
        .iter()
        .map(|e| e["san"].as_str().unwrap())
        .collect();
    assert_eq!(sans, ["Re8#", "N@f8", "Rxf8#"]);
    let kinds: Vec<(&str, &str)> = events
        .iter()
        .filter(|e| e["type"] == "alert" && e["kind"] != "clock_stopped")
        .map(|e| (e["kind"].as_str().unwrap(), e["severity"].as_str().unwrap()))
        .collect();
    assert_eq!(
        kinds,
        [
            ("checkmate", "info"),
            ("checkmate", "info"),
            ("flag_fall", "info"),
            ("checkmate", "info"),
            ("match_result", "info"),
        ]
    );
    let ends: Vec<(&str, &str)> = events
        .iter()
        .filter(|e| e["type"] == "game_end")
        .map(|e| (e["board"].as_str().unwrap(), e["result"].as_str().unwrap()))
        .collect();
    assert_eq!(ends, [("1", "1-0"), ("2", "1-0")]);
    let score = events.iter().find(|e| e["kind"] == "match_result").unwrap();
    assert!(
        score["message"]
            .as_str()
            .unwrap()
            .contains("team A 1 – team B 1"),
        "{score}"
    );
    // Without the match the same bytes are two FIDE games: Re8# ends board 2 at once.
    let plain = replay(&dir.join("bughouse-match.jsonl"));
    let text = String::from_utf8(plain.stdout).unwrap();
    assert!(!text.contains("match_result") && !text.contains("N@f8"));
}

#[test]
fn malformed_captures_get_a_one_line_error_and_a_failing_exit() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            "not-json.jsonl",
            "{\"t_ms\": 0, \"rx\": \"8e00\"}\nthis is not json\n",
            "line 2",
        ),
        (
            "backwards.jsonl",
            "{\"t_ms\": 10, \"rx\": \"\"}\n{\"t_ms\": 5, \"rx\": \"\"}\n",
            "line 2",
        ),
        ("bad-hex.jsonl", "{\"t_ms\": 0, \"rx\": \"8g\"}\n", "line 1"),
        (
            "no-payload.jsonl",
            "{\"t_ms\": 0, \"board\": \"b\"}\n",
            "line 1",
        ),
        // Set-ups the core could not play: refused with the reason, not dropped.
        (
            "bad-edition.jsonl",
            "{\"t_ms\": 0, \"rx\": \"\"}\n{\"t_ms\": 1, \"op\": {\"setup\": {\"edition\": \"fide-2024\"}}}\n",
            "line 2: unknown or malformed \"op\": unknown edition of the Laws \"fide-2024\"",
        ),
        (
            "bad-time-control.jsonl",
            "{\"t_ms\": 0, \"op\": {\"setup\": {\"time_control\": \"5400:1800\"}}}\n",
            "line 1: unknown or malformed \"op\": time control \"5400:1800\": period 1 has no move count",
        ),
        // A result there is not: refused with the reason, not carried along as text.
        (
            "bad-result.jsonl",
            "{\"t_ms\": 0, \"rx\": \"\"}\n{\"t_ms\": 1, \"op\": {\"result\": \"+/-\"}}\n",
            "line 2: unknown or malformed \"op\": unknown result \"+/-\": use one of 1-0, 0-1, 1/2-1/2",
        ),
        // A claim of a kind there is not, or by neither side: refused with the reason, not
        // read as a repetition claim by the player on move, which would judge a claim nobody
        // made.
        (
            "bad-claim-kind.jsonl",
            "{\"t_ms\": 0, \"rx\": \"\"}\n{\"t_ms\": 1, \"op\": {\"claim\": {\"kind\": \"other\"}}}\n",
            "line 2: unknown or malformed \"op\": unknown claim kind \"other\": use one of threefold_repetition, fifty_move_rule, flag",
        ),
        (
            "bad-claimant.jsonl",
            "{\"t_ms\": 0, \"op\": {\"claim\": {\"kind\": \"fifty\", \"side\": \"White\"}}}\n",
            "line 1: unknown or malformed \"op\": unknown claimant \"White\": use white or black",
        ),
        (
            "bad-fen.jsonl",
            "{\"t_ms\": 0, \"op\": {\"setup\": {\"fen\": \"8/8/8/8/8/8/8/8 w - - 0 1\"}}}\n",
            "line 1: unknown or malformed \"op\": fen \"8/8/8/8/8/8/8/8 w - - 0 1\": not a legal position",
        ),
    ];
    for (name, text, needle) in cases {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        let out = replay(&path);
        assert!(!out.status.success(), "{name} must fail");
        assert!(out.stdout.is_empty(), "{name}: no partial output");
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(err.trim_end().lines().count(), 1, "{name}: one line: {err}");
        assert!(err.contains(needle), "{name}: {err}");
    }
    let out = replay(&dir.path().join("missing.jsonl"));
    assert!(!out.status.success());
}

/// `verify --dead-positions` reads chasolver's labelled format and reports agreement; a
/// wrong label makes it fail.
#[test]
fn verify_checks_a_labelled_dead_position_set() {
    let dir = tempfile::tempdir().unwrap();
    let right = dir.path().join("right.txt");
    // Both kings only: nobody can mate. Start position: both can. Lone king against a rook:
    // only the side with the rook can.
    std::fs::write(
        &right,
        "# labelled\n-- 8/8/4k3/8/8/3K4/8/8 w - -\n\
         WB rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -\n\
         W- 8/8/4k3/8/8/3K4/8/R7 w - -\n",
    )
    .unwrap();
    let run = |path: &std::path::Path| {
        Command::new(env!("CARGO_BIN_EXE_dgt-arbiter"))
            .args(["verify", "--dead-positions"])
            .arg(path)
            .output()
            .unwrap()
    };
    let ok = run(&right);
    let text = String::from_utf8_lossy(&ok.stdout);
    assert!(ok.status.success(), "{text}");
    assert!(text.contains("positions      3"), "{text}");
    assert!(text.contains("agree          6 of 6"), "{text}");

    // Labelled as if Black could mate with a lone king: the check disagrees and fails.
    let wrong = dir.path().join("wrong.txt");
    std::fs::write(&wrong, "-B 8/8/4k3/8/8/3K4/8/8 w - -\n").unwrap();
    let bad = run(&wrong);
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stdout).contains("agree          1 of 2"));
}

/// `emulate` refuses a game it cannot play before opening a pty, naming the bad move.
#[test]
fn emulate_refuses_an_illegal_move_list() {
    let out = Command::new(env!("CARGO_BIN_EXE_dgt-arbiter"))
        .args(["emulate", "--pty", "--moves", "e2e4 e7e5 e1e3"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(out.stdout.is_empty(), "no pty path printed");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("\"e1e3\" is not a legal move"), "{err}");
}
