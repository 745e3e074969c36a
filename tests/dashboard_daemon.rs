//! The whole daemon in a real browser: an emulated board on a pty feeds `dgt-arbiter run`,
//! whose dashboard headless Chromium opens. The page must draw the board and show a move as
//! it arrives; when the board dies (its emulator killed) the alert must appear in the queue;
//! the arbiter's click on Acknowledge must reach a second client, leave the open alerts, and
//! be in the journal once the daemon has stopped. Screenshot: /tmp/dashboard-daemon.png.
//!
//! Skipped, with a notice, only when no Chromium is installed and `CI` is unset.

mod daemon_processes;

use std::time::{Duration, Instant};

use daemon_processes::*;
use dgt_testkit::cdp::{Cdp, chromium_or_skip, launch};
use dgt_testkit::ws::{next_json, read_until, ws_connect};
use serde_json::{Value, json};

const BOARD: &str = "board-10003";

/// The dashboard's text for a move (`moveText` in app.js).
fn move_text(m: &Value) -> String {
    let n = m["ply"].as_u64().unwrap().div_ceil(2);
    let dots = if m["side"] == "white" { "." } else { "…" };
    format!("{n}{dots} {}", m["san"].as_str().unwrap())
}

/// A JavaScript expression for this board's card.
fn card() -> String {
    format!("[...document.querySelectorAll('#hall .card')].find(c => c.dataset.open === {BOARD:?})")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_daemon_dashboard_shows_a_move_and_an_alert_and_its_ack_reaches_everyone() {
    let Some(binary) = chromium_or_skip("daemon dashboard browser test") else {
        return;
    };
    let started = Instant::now();
    let dir = tempfile::tempdir().unwrap();
    let journal = temp_path(&dir, "j.sqlite");

    // One emulated board on a pty, careful players, and the daemon reading that pty only.
    let mut emulator = Proc::spawn(&[
        "emulate",
        "--pty",
        "--seed",
        "3",
        "--serial",
        "10003",
        "--time-control",
        "300+3",
        "--plies",
        "40",
        "--clean",
    ]);
    let pty = emulator.first_stdout_line(Duration::from_secs(10));
    assert!(pty.starts_with("/dev/"), "the pty path: {pty}");
    let config = temp_path(&dir, "dgt-arbiter.toml");
    std::fs::write(
        &config,
        format!(
            "listen = \"127.0.0.1:0\"\n\n[serial]\nscan = \"off\"\nports = [{{ path = {} }}]\n\n[journal]\npath = {}\n",
            json!(pty),
            json!(path_str(&journal)),
        ),
    )
    .unwrap();
    let mut daemon = Proc::spawn(&["run", "--config", path_str(&config)]);
    let addr = dashboard_addr(&daemon.stderr_line("dashboard at", Duration::from_secs(20)));
    daemon.stderr_line("board identified", Duration::from_secs(10));

    // The dashboard in Chromium.
    let profile = dir.path().join("chromium-profile");
    let (chrome, endpoint) = launch(&binary, &profile).await;
    let mut cdp = Cdp::new_page(&endpoint).await;
    cdp.open_desktop(&format!("http://{addr}/#/cards")).await;
    cdp.wait_for_within(
        "document.querySelector('#conn')?.textContent === 'live'",
        Duration::from_secs(10),
    )
    .await;
    let card = card();
    cdp.wait_for_within(
        &format!("{card} !== undefined && {card}.querySelectorAll('svg .piece').length >= 30"),
        Duration::from_secs(10),
    )
    .await;

    // A move arrives live: the card's last move changes to one the daemon reports.
    let before = cdp
        .eval(&format!("{card}.querySelector('.last').textContent"))
        .await;
    cdp.wait_for_within(
        &format!(
            "(t => t !== {before} && /^\\d+(\\.|…) \\S+$/.test(t))({card}.querySelector('.last').textContent)"
        ),
        Duration::from_secs(20),
    )
    .await;
    let shown = cdp
        .eval(&format!("{card}.querySelector('.last').textContent"))
        .await;
    let shown = shown.as_str().unwrap().to_string();
    let boards = get_json(addr, "/api/boards");
    let board = boards
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["board"] == BOARD)
        .unwrap_or_else(|| panic!("{BOARD} in /api/boards: {boards}"));
    let moves: Vec<String> = board["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(move_text)
        .collect();
    assert!(
        moves.contains(&shown),
        "page shows {shown:?}; daemon has {moves:?}"
    );
    assert_eq!(
        cdp.eval(&format!("{card}.querySelectorAll('.sq-last').length"))
            .await,
        json!(2),
        "the last move is marked on the board"
    );
    assert!(
        get_json(addr, "/api/alerts?open=true")
            .as_array()
            .unwrap()
            .is_empty()
    );

    // The board dies (no goodbye): the daemon raises board_disconnected, and the page shows
    // it in the queue with its button.
    emulator.kill();
    let ack_button = "document.querySelector('#alerts [data-ack]')";
    cdp.wait_for_within(&format!("{ack_button} !== null"), Duration::from_secs(15))
        .await;
    let id = cdp
        .eval(&format!("Number({ack_button}.dataset.ack)"))
        .await
        .as_u64()
        .unwrap();
    let open = get_json(addr, "/api/alerts?open=true");
    let alert = open
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["id"] == id)
        .unwrap_or_else(|| panic!("alert {id} open in the daemon: {open}"))
        .clone();
    assert_eq!(alert["kind"], "board_disconnected", "{alert}");
    assert_eq!(alert["board"], BOARD, "{alert}");
    assert_eq!(alert["severity"], "review", "{alert}");
    let shown_alert = format!("document.querySelector('#alerts [data-alert=\"{id}\"]')");
    assert_eq!(
        cdp.eval(&format!(
            "[{shown_alert}.querySelector('.alert-kind').textContent, {shown_alert}.querySelector('.alert-board').textContent]"
        ))
        .await,
        json!(["Board disconnected", BOARD])
    );
    cdp.wait_for(&format!(
        "{card}.querySelector('.badge.bad')?.textContent === 'board offline'"
    ))
    .await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    cdp.screenshot("/tmp/dashboard-daemon.png").await;

    // A second dashboard is watching, and sees the alert open.
    let mut other = ws_connect(&format!("ws://{addr}/ws")).await;
    let snapshot = next_json(&mut other).await;
    assert_eq!(snapshot["type"], "snapshot", "{snapshot}");
    assert!(
        snapshot["alerts"]
            .as_array()
            .unwrap()
            .iter()
            .any(|a| a["id"] == id),
        "{snapshot}"
    );

    // The arbiter clicks Acknowledge: the other client hears of it, the button goes.
    let button = format!("document.querySelector('#alerts [data-ack=\"{id}\"]')");
    cdp.eval(&format!("{button}.click(), true")).await;
    let ack = read_until(&mut other, |v| v["type"] == "alert_ack")
        .await
        .pop()
        .expect("the ack");
    assert_eq!(ack["id"], id, "{ack}");
    cdp.wait_for(&format!("{button} === null")).await;
    cdp.wait_for("document.querySelector('#alerts .empty') !== null")
        .await;
    let open = get_json(addr, "/api/alerts?open=true");
    assert!(
        !open.as_array().unwrap().iter().any(|a| a["id"] == id),
        "acknowledged alert still open: {open}"
    );
    drop(chrome);

    // Instant replay around the alert reads the board's field updates back from the
    // journal: the pieces lifted and put down in the moves before the board died.
    let replay = get_json(addr, &format!("/api/boards/{BOARD}/replay?alert={id}"));
    let updates = replay["field_updates"]
        .as_array()
        .unwrap_or_else(|| panic!("no field updates from the journal: {replay}"));
    let first_move = replay["events"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["type"] == "move")
        .unwrap_or_else(|| panic!("a move in the window: {replay}"));
    let uci = first_move["uci"].as_str().unwrap();
    let t_move = first_move["t_ms"].as_u64().unwrap();
    let at = |sq: &str, lifted: bool| {
        updates.iter().any(|u| {
            u["square"] == sq
                && u["piece"].is_null() == lifted
                && u["t_ms"].as_u64() <= Some(t_move)
        })
    };
    assert!(
        at(&uci[0..2], true) && at(&uci[2..4], false),
        "{uci}: {replay}"
    );
    for u in updates {
        let sq = u["square"].as_str().unwrap();
        assert!(
            sq.len() == 2
                && ('a'..='h').contains(&sq.chars().next().unwrap())
                && ('1'..='8').contains(&sq.chars().nth(1).unwrap()),
            "{u}"
        );
    }

    // The acknowledgement went through the core into the journal.
    daemon.terminate();
    let (ok, out, err) = run_to_end(&["export", "alerts", "--journal", path_str(&journal)]);
    assert!(ok, "export alerts: {err}");
    let alerts = parse_lines(&out);
    let exported = alerts
        .iter()
        .find(|a| a["id"] == id)
        .unwrap_or_else(|| panic!("alert {id} in the export: {out}"));
    assert_eq!(exported["kind"], "board_disconnected", "{exported}");
    assert_eq!(exported["acknowledged"], true, "{exported}");
    // With who acknowledged it: the dashboard's `by` op, passed back as an event.
    let (ok, out, err) = run_to_end(&["export", "events", "--journal", path_str(&journal)]);
    assert!(ok, "export events: {err}");
    let signed = parse_lines(&out)
        .into_iter()
        .find(|e| e["type"] == "arbiter_action" && e["action"]["ack"] == id)
        .unwrap_or_else(|| panic!("no arbiter_action for the ack of {id}: {out}"));
    assert_eq!(signed["arbiter"], "local", "{signed}");
    assert_eq!(signed["board"], BOARD, "{signed}");

    eprintln!("daemon dashboard test took {:?}", started.elapsed());
}
