//! The hub's restart from its checkpoint (docs/cluster.md, "Hub restart"), with a real
//! `nats-server`: a hub killed mid-event and started again reads only the stream after its
//! checkpoint and ends with exactly what a hub that read the whole stream has; a checkpoint
//! of a stream made anew, or one that does not decode, is ignored with a warning; a hub that
//! writes broadcast folders restarts from its checkpoint too and writes them the same.

mod daemon_processes;
mod nats_broker;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use daemon_processes::*;
use dgt_testkit::files::files_under;
use nats_broker::Broker;
use serde_json::Value;

const EVENT: &str = "restart-2026";
const TRF: &str = include_str!("../crates/dgt-pairings/tests/samples/zomeropen-r3.trf");

fn cluster_table(broker: &Broker, node: Option<&str>) -> String {
    let mut t = format!(
        "[cluster]\nnats = \"{}\"\nevent = \"{EVENT}\"\nheartbeat_ms = 300\noffline_after_ms = 1500\n",
        broker.url()
    );
    if let Some(n) = node {
        t.push_str(&format!("node = \"{n}\"\n"));
    }
    t
}

/// A hub's settings; with `checkpoint`, it saves one there every second.
fn hub_config(dir: &Path, name: &str, broker: &Broker, checkpoint: Option<&Path>) -> PathBuf {
    let mut text = format!("listen = \"127.0.0.1:0\"\n{}", cluster_table(broker, None));
    match checkpoint {
        Some(p) => text.push_str(&format!(
            "hub_checkpoint = \"{}\"\nhub_checkpoint_every_s = 1\n",
            p.display()
        )),
        None => text.push_str("hub_checkpoint_every_s = 0\n"),
    }
    let path = dir.join(format!("{name}.toml"));
    std::fs::write(&path, text).unwrap();
    path
}

fn start_node(dir: &Path, broker: &Broker, name: &str, seed: u64) -> (Proc, SocketAddr) {
    let config = dir.join(format!("{name}.toml"));
    std::fs::write(&config, cluster_table(broker, Some(name))).unwrap();
    start_demo(
        2,
        Some(seed),
        &dir.join(format!("{name}.sqlite")),
        Some(&config),
    )
}

fn hub_health(hub: SocketAddr) -> Value {
    get_json(hub, "/health")["daemon"]["hub"].clone()
}

/// Waits until the hub has saved a checkpoint at or after `position`.
fn checkpoint_saved(hub: SocketAddr, position: u64) -> u64 {
    eventually(Duration::from_secs(30), "a checkpoint saved", || {
        let saved = hub_health(hub)["checkpoint"]["saved_position"].as_u64()?;
        (saved >= position).then_some(saved)
    })
}

/// Waits until a board on the hub shows a move.
fn wait_for_moves(hub: SocketAddr) {
    eventually(Duration::from_secs(60), "moves on the hub", || {
        let boards = get_json(hub, "/api/boards");
        boards
            .as_array()?
            .iter()
            .any(|b| b["moves"].as_array().is_some_and(|m| !m.is_empty()))
            .then_some(())
    });
}

/// The stream position the hub says it restored its checkpoint at: `saved` or later.
fn restored_from(hub: SocketAddr, saved: u64) -> u64 {
    let restored = hub_health(hub)["checkpoint"]["restored_position"].as_u64();
    assert!(
        restored.is_some_and(|p| p >= saved),
        "not restored: {restored:?}"
    );
    restored.unwrap_or_default()
}

/// Waits until the hub has applied the whole stream as it stands (nothing more coming).
fn settled(hubs: &[SocketAddr]) {
    let end = Instant::now() + Duration::from_secs(60);
    let mut last = None;
    loop {
        let now: Vec<(u64, u64)> = hubs
            .iter()
            .map(|h| {
                let health = hub_health(*h);
                (
                    health["stream_position"].as_u64().unwrap_or(0),
                    health["stream_last"].as_u64().unwrap_or(1),
                )
            })
            .collect();
        let at_end = now.iter().all(|(p, l)| p == l) && now.windows(2).all(|w| w[0] == w[1]);
        if at_end && last.as_ref() == Some(&now) {
            return;
        }
        assert!(Instant::now() < end, "the hubs did not settle: {now:?}");
        last = Some(now);
        std::thread::sleep(Duration::from_millis(1500));
    }
}

/// Every event the hub's `/ws` resumes from 0 (its whole ring).
fn hub_events(addr: SocketAddr) -> Vec<Value> {
    let url = format!("ws://{addr}/ws?since=0");
    dgt_testkit::ws::read_until_quiet(&url, Duration::from_millis(800), Duration::from_secs(60))
        .into_iter()
        .filter(|v| v.get("seq").is_some())
        .collect()
}

/// (seq, node, node_seq) of each event.
fn numbers(events: &[Value]) -> Vec<(u64, Value, Value)> {
    events
        .iter()
        .map(|e| {
            (
                e["seq"].as_u64().unwrap(),
                e["node"].clone(),
                e["node_seq"].clone(),
            )
        })
        .collect()
}

/// What two hubs must agree on: every event, the games, the round and its results, the
/// alerts and the nodes' positions.
fn assert_same_view(restarted: SocketAddr, whole: SocketAddr) {
    let a = hub_events(restarted);
    let b = hub_events(whole);
    assert!(!a.is_empty());
    assert_eq!(numbers(&a), numbers(&b), "(seq, node, node_seq) differ");
    assert_eq!(a, b, "the events differ");
    for path in [
        "/api/games",
        "/api/rounds",
        "/api/rounds/3",
        "/api/rounds/3/results.csv",
        "/api/alerts",
    ] {
        assert_eq!(get(restarted, path), get(whole, path), "{path} differs");
    }
    let positions = |h: SocketAddr| {
        let nodes = get_json(h, "/api/nodes");
        nodes
            .as_array()
            .unwrap()
            .iter()
            .map(|n| (n["node"].clone(), n["last_seq"].clone(), n["gaps"].clone()))
            .collect::<Vec<_>>()
    };
    assert_eq!(positions(restarted), positions(whole));
    let seq = |h: SocketAddr| {
        get(h, "/metrics")
            .1
            .lines()
            .find(|l| l.starts_with("dgt_hub_seq "))
            .map(str::to_string)
    };
    assert_eq!(seq(restarted), seq(whole));
}

#[test]
fn a_hub_restarted_from_its_checkpoint_ends_as_one_that_read_everything() {
    if !nats_broker::nats_server_or_skip(
        "cluster_restart::a_hub_restarted_from_its_checkpoint_ends_as_one_that_read_everything",
    ) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let broker = Broker::start(dir.path());
    let checkpoint = dir.path().join("hub.checkpoint");
    let config = hub_config(dir.path(), "hub", &broker, Some(&checkpoint));
    let (first, first_addr) = start_hub_from(&config);
    let (node, _) = start_node(dir.path(), &broker, "hall-a", 5);
    // The chief's pairings on the hub, then games: the round's records are in the checkpoint.
    let (status, body) = post(first_addr, "/api/rounds/3/pairings", TRF);
    assert_eq!(status, 200, "{body}");
    wait_for_moves(first_addr);
    let position = hub_health(first_addr)["stream_position"].as_u64().unwrap();
    let saved = checkpoint_saved(first_addr, position);
    first.kill();
    // The event goes on while the hub is down.
    std::thread::sleep(Duration::from_secs(2));
    let (mut again, again_addr) = start_hub_from(&config);
    let read = again.stderr_line("the event's stream read", Duration::from_secs(10));
    let restored = restored_from(again_addr, saved);
    assert!(read.contains(&format!("from={restored}")), "{read}");
    // A result entered after the restart, on the restarted hub.
    let (status, body) = post(
        again_addr,
        "/api/rounds/3/tables/2/result",
        r#"{"result": "0-1"}"#,
    );
    assert_eq!(status, 200, "{body}");
    let whole_config = hub_config(dir.path(), "whole", &broker, None);
    let (whole, whole_addr) = start_hub_from(&whole_config);
    assert_eq!(
        hub_health(whole_addr)["checkpoint"]["restored_position"],
        Value::Null
    );
    std::thread::sleep(Duration::from_secs(3));
    node.terminate();
    settled(&[again_addr, whole_addr]);
    let csv = get(again_addr, "/api/rounds/3/results.csv").1;
    assert!(csv.contains("0-1"), "{csv}");
    assert_same_view(again_addr, whole_addr);
    again.terminate();
    whole.terminate();
}

/// A hub's settings that also write the live broadcast folder `folder`.
fn hub_config_with_folder(
    dir: &Path,
    name: &str,
    broker: &Broker,
    checkpoint: Option<&Path>,
    folder: &Path,
) -> PathBuf {
    let path = hub_config(dir, name, broker, checkpoint);
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str(&format!(
        "[journal]\nbroadcast_dir = \"{}\"\n",
        folder.display()
    ));
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn a_hub_writing_broadcast_folders_restarts_from_its_checkpoint_and_writes_them_the_same() {
    if !nats_broker::nats_server_or_skip(
        "cluster_restart::a_hub_writing_broadcast_folders_restarts_from_its_checkpoint_and_writes_them_the_same",
    ) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let broker = Broker::start(dir.path());
    let checkpoint = dir.path().join("hub.checkpoint");
    let folder = dir.path().join("broadcast");
    let config = hub_config_with_folder(dir.path(), "hub", &broker, Some(&checkpoint), &folder);
    let (first, first_addr) = start_hub_from(&config);
    // No pairings: the folder holds the latest game of each board.
    let (node, _) = start_node(dir.path(), &broker, "hall-a", 11);
    wait_for_moves(first_addr);
    let position = hub_health(first_addr)["stream_position"].as_u64().unwrap();
    // The books of the games begun before it are in the checkpoint: the restarted hub reads
    // none of their starts again.
    let saved = checkpoint_saved(first_addr, position);
    first.kill();
    std::thread::sleep(Duration::from_secs(2));
    let (again, again_addr) = start_hub_from(&config);
    restored_from(again_addr, saved);
    let whole_folder = dir.path().join("broadcast-whole");
    let whole_config = hub_config_with_folder(dir.path(), "whole", &broker, None, &whole_folder);
    let (whole, whole_addr) = start_hub_from(&whole_config);
    std::thread::sleep(Duration::from_secs(3));
    node.terminate();
    settled(&[again_addr, whole_addr]);
    // The folders are rewritten every second.
    std::thread::sleep(Duration::from_secs(3));
    let (a, b) = (files_under(&folder), files_under(&whole_folder));
    assert!(
        a.iter()
            .any(|(p, text)| p.ends_with("games.pgn") && text.contains("1. ")),
        "no game with moves in the folder: {a:?}"
    );
    assert_eq!(a, b, "the broadcast folders differ");
    again.terminate();
    whole.terminate();
}

/// A hub with its checkpoint in `dir/hub.checkpoint` and a node playing; once a checkpoint
/// holds some of the node's events, the hub is killed. The hub's settings, and the node.
fn a_checkpoint_saved_then_the_hub_killed(
    dir: &Path,
    broker: &Broker,
    seed: u64,
) -> (PathBuf, Proc) {
    let checkpoint = dir.join("hub.checkpoint");
    let config = hub_config(dir, "hub", broker, Some(&checkpoint));
    let (first, first_addr) = start_hub_from(&config);
    let (node, _) = start_node(dir, broker, "hall-a", seed);
    eventually(Duration::from_secs(60), "events on the hub", || {
        (hub_health(first_addr)["stream_position"].as_u64()? > 5).then_some(())
    });
    let position = hub_health(first_addr)["stream_position"].as_u64().unwrap();
    checkpoint_saved(first_addr, position);
    first.kill();
    (config, node)
}

#[test]
fn a_checkpoint_of_a_stream_made_anew_is_ignored() {
    if !nats_broker::nats_server_or_skip(
        "cluster_restart::a_checkpoint_of_a_stream_made_anew_is_ignored",
    ) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut broker = Broker::start(dir.path());
    let (config, node) = a_checkpoint_saved_then_the_hub_killed(dir.path(), &broker, 7);
    // The broker loses its store: the stream is made anew and the node publishes its
    // journal into it again.
    broker.kill();
    std::fs::remove_dir_all(broker.store()).unwrap();
    broker.restart();
    let (mut again, again_addr) = start_hub_from(&config);
    let warning = again.stderr_line("checkpoint ignored", Duration::from_secs(10));
    assert!(warning.contains("made anew"), "{warning}");
    let ignored = hub_health(again_addr)["checkpoint"]["ignored"].clone();
    assert!(
        ignored.as_str().is_some_and(|s| s.contains("made anew")),
        "{ignored}"
    );
    assert_eq!(
        hub_health(again_addr)["checkpoint"]["restored_position"],
        Value::Null
    );
    std::thread::sleep(Duration::from_secs(3));
    node.terminate();
    let whole_config = hub_config(dir.path(), "whole", &broker, None);
    let (whole, whole_addr) = start_hub_from(&whole_config);
    settled(&[again_addr, whole_addr]);
    assert_same_view(again_addr, whole_addr);
    again.terminate();
    whole.terminate();
}

#[test]
fn a_damaged_checkpoint_is_ignored_with_a_warning() {
    if !nats_broker::nats_server_or_skip(
        "cluster_restart::a_damaged_checkpoint_is_ignored_with_a_warning",
    ) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let broker = Broker::start(dir.path());
    let (config, node) = a_checkpoint_saved_then_the_hub_killed(dir.path(), &broker, 9);
    let checkpoint = dir.path().join("hub.checkpoint");
    // Damaged on disk: a byte changed in its middle.
    let mut bytes = std::fs::read(&checkpoint).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0x5a;
    std::fs::write(&checkpoint, bytes).unwrap();
    let (mut again, again_addr) = start_hub_from(&config);
    let warning = again.stderr_line("checkpoint ignored", Duration::from_secs(10));
    assert!(warning.contains("does not decode"), "{warning}");
    assert_eq!(
        hub_health(again_addr)["checkpoint"]["restored_position"],
        Value::Null
    );
    node.terminate();
    let whole_config = hub_config(dir.path(), "whole", &broker, None);
    let (whole, whole_addr) = start_hub_from(&whole_config);
    settled(&[again_addr, whole_addr]);
    assert_same_view(again_addr, whole_addr);
    // It saves a good one again.
    let position = hub_health(again_addr)["stream_position"].as_u64().unwrap();
    checkpoint_saved(again_addr, position);
    again.terminate();
    whole.terminate();
}
