//! One event across several PCs (contract §5), with a real `nats-server` (JetStream) on
//! loopback: nodes are `dgt-arbiter demo` processes with `[cluster]`, the hub is
//! `dgt-arbiter hub`. Every node event must reach the hub exactly once and in order, through
//! a broker killed mid-game, a hub killed and restarted, and a node killed and restarted;
//! arbiter actions go both ways.

mod daemon_processes;
mod nats_broker;

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use daemon_processes::*;
use nats_broker::Broker;
use serde_json::{Value, json};

/// The event id of the shipped broker configuration (`config/nats-server.conf`).
const EVENT: &str = "open-2026";

/// Credentials lines for a `[cluster]` table (user and password), or none.
fn credentials(user: Option<&str>) -> String {
    match user {
        Some(u) => format!("user = \"{u}\"\npassword = \"test-pw-{u}\"\n"),
        None => String::new(),
    }
}

fn node_config(dir: &Path, broker: &Broker, node: &str) -> PathBuf {
    node_config_with(dir, broker, node, "")
}

/// A node's configuration with more `[cluster]` lines.
fn node_config_with(dir: &Path, broker: &Broker, node: &str, more: &str) -> PathBuf {
    let path = dir.join(format!("{node}.toml"));
    std::fs::write(
        &path,
        format!(
            "[cluster]\nnats = \"{}\"\nnode = \"{node}\"\nevent = \"{EVENT}\"\n\
             heartbeat_ms = 300\noffline_after_ms = 1500\n{}{more}",
            broker.url(),
            credentials(broker_user(broker, node))
        ),
    )
    .unwrap();
    path
}

fn hub_config(dir: &Path, broker: &Broker) -> PathBuf {
    let path = dir.join("hub.toml");
    std::fs::write(
        &path,
        format!(
            "listen = \"127.0.0.1:0\"\n[cluster]\nnats = \"{}\"\nevent = \"{EVENT}\"\n\
             heartbeat_ms = 300\noffline_after_ms = 1500\n{}",
            broker.url(),
            credentials(broker_user(broker, "hub"))
        ),
    )
    .unwrap();
    path
}

/// With the shipped configuration every PC signs in as itself.
fn broker_user<'a>(broker: &Broker, name: &'a str) -> Option<&'a str> {
    broker.secured().then_some(name)
}

struct Node {
    name: String,
    proc: Proc,
    addr: SocketAddr,
    journal: PathBuf,
}

fn start_node(dir: &Path, broker: &Broker, name: &str, seed: u64) -> Node {
    start_node_on(dir, broker, name, seed, dir.join(format!("{name}.sqlite")))
}

fn start_node_on(dir: &Path, broker: &Broker, name: &str, seed: u64, journal: PathBuf) -> Node {
    let config = node_config(dir, broker, name);
    let (proc, addr) = start_demo(2, Some(seed), &journal, Some(&config));
    Node {
        name: name.into(),
        proc,
        addr,
        journal,
    }
}

fn start_hub(dir: &Path, broker: &Broker) -> (Proc, SocketAddr) {
    let config = hub_config(dir, broker);
    start_hub_from(&config)
}

/// Every event the hub has, from its `/ws` resumed at 0 (its whole ring). Live events may
/// keep coming (clocks tick), so the read ends at the first quiet moment or after a few
/// seconds.
fn hub_events(addr: SocketAddr) -> Vec<Value> {
    let url = format!("ws://{addr}/ws?since=0");
    dgt_testkit::ws::read_until_quiet(&url, Duration::from_millis(800), Duration::from_secs(6))
        .into_iter()
        .filter(|v| v.get("seq").is_some() && v.get("node").is_some())
        .collect()
}

fn journal_events(path: &Path) -> Vec<Value> {
    let j = dgt_journal::Journal::open_read_only(path).unwrap();
    j.events_since(0)
        .unwrap()
        .iter()
        .map(|s| serde_json::from_str(s).unwrap())
        .collect()
}

fn journal_ack_count(path: &Path, alert: u64) -> usize {
    let j = dgt_journal::Journal::open_read_only(path).unwrap();
    j.operations()
        .unwrap()
        .iter()
        .filter(|line| {
            serde_json::from_str::<Value>(line).is_ok_and(|v| v["op"] == json!({ "ack": alert }))
        })
        .count()
}

/// How many `by` ops in a node's journal name the acknowledgement of `alert` (the node's id).
fn journal_signed_acks(path: &Path, alert: u64) -> usize {
    let j = dgt_journal::Journal::open_read_only(path).unwrap();
    j.operations()
        .unwrap()
        .iter()
        .filter(|line| {
            serde_json::from_str::<Value>(line)
                .is_ok_and(|v| v["op"]["by"]["action"] == json!({ "ack": alert }))
        })
        .count()
}

/// A hub event as its node journaled it: the hub's numbering and prefixes taken off.
fn as_node_saw_it(mut e: Value, node: &str) -> Value {
    let o = e.as_object_mut().unwrap();
    let node_seq = o.remove("node_seq").expect("a node event has node_seq");
    o.remove("node");
    o.remove("t_ms");
    o.insert("seq".into(), node_seq.clone());
    let prefix = format!("{node}/");
    for key in ["board", "game"] {
        if let Some(Value::String(s)) = o.get_mut(key) {
            *s = s.strip_prefix(&prefix).expect("a prefixed id").to_string();
        }
    }
    if o.get("type") == Some(&Value::String("alert".into())) {
        o.insert("id".into(), node_seq);
    }
    e
}

/// Every event of `node`'s journal is on the hub once, in order, unchanged.
fn assert_hub_has_exactly(hub: &[Value], node: &str, journal: &Path) {
    // The hub names alerts by its own seq, in `arbiter_action`s too: back to the node's.
    let node_alert: BTreeMap<u64, Value> = hub
        .iter()
        .filter(|e| e["node"] == node && e["type"] == "alert")
        .filter_map(|e| Some((e["seq"].as_u64()?, e["node_seq"].clone())))
        .collect();
    let mine: Vec<Value> = hub
        .iter()
        .filter(|e| e["node"] == node && e.get("node_seq").is_some())
        .cloned()
        .map(|mut e| {
            for key in ["ack", "confirm"] {
                if let Some(id) = e["action"][key].as_u64()
                    && let Some(local) = node_alert.get(&id)
                {
                    e["action"][key] = local.clone();
                }
            }
            as_node_saw_it(e, node)
        })
        .collect();
    let mut theirs = journal_events(journal);
    for e in &mut theirs {
        e.as_object_mut().unwrap().remove("t_ms");
    }
    let seqs = |v: &[Value]| {
        v.iter()
            .map(|e| e["seq"].as_u64().unwrap())
            .collect::<Vec<_>>()
    };
    assert_eq!(
        seqs(&mine),
        seqs(&theirs),
        "node {node}: the hub's node_seqs are not the journal's seqs"
    );
    assert_eq!(mine, theirs, "node {node}: an event changed on its way");
    assert!(!theirs.is_empty(), "node {node} journaled nothing");
}

fn node_entry(hub: SocketAddr, node: &str) -> Option<Value> {
    let (status, body) = get(hub, "/api/nodes");
    if status != 200 {
        return None;
    }
    let list: Value = serde_json::from_str(&body).ok()?;
    list.as_array()?.iter().find(|n| n["node"] == node).cloned()
}

/// The seq of the last event `journal` holds (0 when none).
fn journal_last_seq(journal: &Path) -> u64 {
    journal_events(journal)
        .last()
        .and_then(|e| e["seq"].as_u64())
        .unwrap_or(0)
}

/// Waits, while `node` runs, until the hub holds at least what its journal held when asked:
/// on a loaded machine a backlog can take longer than a stopping node's bounded last publish
/// (the rest would go at its next start), which `hub_caught_up` then checks exactly.
fn hub_reaches_journal_so_far(hub: SocketAddr, node: &str, journal: &Path, what: &str) {
    let target = journal_last_seq(journal);
    eventually(Duration::from_secs(60), what, || {
        let seq = node_entry(hub, node)?["last_seq"].as_u64()?;
        (seq >= target).then_some(())
    });
}

/// Waits until the hub holds every event `node`'s journal has (the node is stopped).
fn hub_caught_up(hub: SocketAddr, node: &str, journal: &Path) {
    let last = journal_last_seq(journal);
    let end = Instant::now() + Duration::from_secs(30);
    loop {
        let n = node_entry(hub, node);
        if n.as_ref().and_then(|n| n["last_seq"].as_u64()) == Some(last) {
            return;
        }
        assert!(
            Instant::now() < end,
            "the hub did not catch up with {node}'s journal (last seq {last}): {n:?}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// Waits until the hub shows a game with a move for each of `nodes`' boards.
fn moves_on_hub(hub: SocketAddr, nodes: &[&str]) -> Vec<Value> {
    eventually(
        Duration::from_secs(60),
        "moves of every node on the hub",
        || {
            let boards = get_json(hub, "/api/boards");
            if std::env::var_os("CLUSTER_DEBUG").is_some() {
                eprintln!("{boards}");
            }
            let list = boards.as_array()?.clone();
            let ok = nodes.iter().all(|n| {
                list.iter().any(|b| {
                    b["node"] == *n && b["moves"].as_array().is_some_and(|m| !m.is_empty())
                })
            });
            ok.then_some(list)
        },
    )
}

/// The open claim-verdict alert on `board` (hub or node numbering), after `after`: the
/// checker's answer to a fifty-move claim is a `review`, where the claim offered to the
/// player on move is a `claim`.
fn claim_alert(addr: SocketAddr, board: &str, after: u64) -> u64 {
    eventually(Duration::from_secs(20), "the claim's alert", || {
        let alerts = get_json(addr, &format!("/api/alerts?board={board}"));
        alerts.as_array()?.iter().find_map(|a| {
            let id = a["id"].as_u64()?;
            let checked = a["kind"] == "fifty_move_rule_available" && a["severity"] == "review";
            (id > after && checked).then_some(id)
        })
    })
}

fn is_acked(addr: SocketAddr, id: u64) -> bool {
    get_json(addr, "/api/alerts")
        .as_array()
        .unwrap()
        .iter()
        .any(|a| a["id"].as_u64() == Some(id) && a["acked"] == true)
}

#[test]
fn three_nodes_reach_the_hub_exactly_once_and_actions_go_both_ways() {
    if !nats_broker::nats_server_or_skip(
        "cluster::three_nodes_reach_the_hub_exactly_once_and_actions_go_both_ways",
    ) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let broker = Broker::start(dir.path());
    let nodes: Vec<Node> = ["hall-a", "hall-b", "hall-c"]
        .iter()
        .enumerate()
        .map(|(i, n)| start_node(dir.path(), &broker, n, 11 + 10 * i as u64))
        .collect();
    let (hub, hub_addr) = start_hub(dir.path(), &broker);
    let boards = moves_on_hub(hub_addr, &["hall-a", "hall-b", "hall-c"]);
    assert_eq!(boards.len(), 6, "two boards a node: {boards:?}");
    for b in &boards {
        let id = b["board"].as_str().unwrap();
        assert!(
            id.starts_with(&format!("{}/board-1000", b["node"].as_str().unwrap())),
            "{id}"
        );
    }
    let listed = get_json(hub_addr, "/api/nodes");
    assert_eq!(listed.as_array().unwrap().len(), 3, "{listed}");
    for n in listed.as_array().unwrap() {
        assert_eq!(n["state"], "online", "{n}");
        assert_eq!(n["boards"], 2, "{n}");
    }

    // An action on the hub reaches the node, is journaled there, and its alert comes back.
    let a = &nodes[0];
    let (status, body) = post(
        hub_addr,
        "/api/boards/hall-a%2Fboard-10001/claim",
        r#"{"kind": "fifty_move_rule", "side": "white"}"#,
    );
    assert_eq!(status, 200, "{body}");
    let hub_alert = claim_alert(hub_addr, "hall-a/board-10001", 0);
    let node_alert = claim_alert(a.addr, "board-10001", 0);
    let (status, body) = post(hub_addr, &format!("/api/alerts/{hub_alert}/ack"), "");
    assert_eq!(status, 200, "{body}");
    // Answered only once journaled: the node's journal already has it.
    assert_eq!(journal_ack_count(&a.journal, node_alert), 1);
    // Who acknowledged it, by the node's own alert id.
    eventually(
        Duration::from_secs(10),
        "the signed ack in the node's journal",
        || (journal_signed_acks(&a.journal, node_alert) == 1).then_some(()),
    );
    assert!(
        is_acked(a.addr, node_alert),
        "the node's own dashboard shows the hub's ack"
    );
    // The reverse: an ack on the node's own dashboard shows on the hub.
    let (status, _) = post(
        a.addr,
        "/api/boards/board-10002/claim",
        r#"{"kind": "fifty_move_rule", "side": "black"}"#,
    );
    assert_eq!(status, 200);
    let node_alert = claim_alert(a.addr, "board-10002", 0);
    let hub_alert = claim_alert(hub_addr, "hall-a/board-10002", 0);
    let (status, _) = post(a.addr, &format!("/api/alerts/{node_alert}/ack"), "");
    assert_eq!(status, 200);
    eventually(Duration::from_secs(10), "the node's ack on the hub", || {
        is_acked(hub_addr, hub_alert).then_some(())
    });
    // An alert id the hub does not know is refused there, not sent anywhere.
    let (status, _) = post(hub_addr, "/api/alerts/999999/ack", "");
    assert_eq!(status, 404);

    // Stopped nodes have published everything: the hub has each journal, exactly.
    let names: Vec<(String, PathBuf)> = nodes
        .iter()
        .map(|n| (n.name.clone(), n.journal.clone()))
        .collect();
    // What each node journaled so far reaches the hub while it runs: on a loaded machine a
    // node cut off for a while can have more to send than a stopping node's bounded last
    // publish takes (the rest would go at its next start).
    for (name, journal) in &names {
        hub_reaches_journal_so_far(hub_addr, name, journal, "each node's backlog on the hub");
    }
    let mut logs = Vec::new();
    for n in nodes {
        logs.push(n.proc.terminate_for_stderr());
    }
    for (i, (name, journal)) in names.iter().enumerate() {
        if std::panic::catch_unwind(|| hub_caught_up(hub_addr, name, journal)).is_err() {
            panic!("{name}'s log:\n{}", logs[i].join("\n"));
        }
    }
    let events = hub_events(hub_addr);
    let seqs: Vec<u64> = events.iter().map(|e| e["seq"].as_u64().unwrap()).collect();
    assert!(
        seqs.windows(2).all(|w| w[0] < w[1]),
        "the hub's seq strictly increases"
    );
    for (name, journal) in &names {
        assert_hub_has_exactly(&events, name, journal);
    }
    hub.terminate();
}

#[test]
fn a_broker_killed_mid_game_loses_nothing_and_doubles_nothing() {
    if !nats_broker::nats_server_or_skip(
        "cluster::a_broker_killed_mid_game_loses_nothing_and_doubles_nothing",
    ) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut broker = Broker::start(dir.path());
    let node = start_node(dir.path(), &broker, "hall-a", 3);
    let (hub, hub_addr) = start_hub(dir.path(), &broker);
    moves_on_hub(hub_addr, &["hall-a"]);
    broker.kill();
    // The node's boards, journal and dashboard go on without the broker.
    let before = journal_events(&node.journal).len();
    let grew = eventually(
        Duration::from_secs(30),
        "events journaled meanwhile",
        || {
            let now = journal_events(&node.journal).len();
            (now > before + 5).then_some(now)
        },
    );
    assert!(grew > before);
    let (status, _) = get(node.addr, "/api/boards");
    assert_eq!(status, 200);
    // The hub knows it is cut off: /health says so in words the dashboard shows, and what it
    // lists of the nodes is marked as last heard before the loss.
    let health = eventually(
        Duration::from_secs(20),
        "the hub sees the broker gone",
        || {
            let h = get_json(hub_addr, "/health");
            (h["daemon"]["hub"]["broker_connected"] == false).then_some(h)
        },
    );
    assert_eq!(health["status"], "degraded", "{health}");
    let notice = health["daemon"]["notice"].as_str().unwrap_or_default();
    assert!(notice.contains("lost the broker"), "{health}");
    assert_eq!(node_entry(hub_addr, "hall-a").unwrap()["stale"], true);
    broker.restart();
    // Play goes on a little after the broker is back, then the node stops.
    std::thread::sleep(Duration::from_secs(4));
    // The node was silent only because the hub could not hear anyone: back on the broker, the
    // hub hears it again before it judges, and no arbiter is told the PC went offline.
    let alerts = get_json(hub_addr, "/api/alerts");
    let false_offline: Vec<&Value> = alerts
        .as_array()
        .unwrap()
        .iter()
        .filter(|a| a["kind"] == "node_offline")
        .collect();
    assert!(false_offline.is_empty(), "{false_offline:?}");
    let n = node_entry(hub_addr, "hall-a").unwrap();
    assert_eq!(n["state"], "online", "{n}");
    assert_eq!(n.get("stale"), None, "{n}");
    // The backlog of the outage reaches the hub while the node still runs (on a loaded machine
    // it can take longer than a stopping node's bounded last publish).
    hub_reaches_journal_so_far(
        hub_addr,
        "hall-a",
        &node.journal,
        "the outage's backlog on the hub",
    );
    let journal = node.journal.clone();
    node.proc.terminate();
    hub_caught_up(hub_addr, "hall-a", &journal);
    assert_hub_has_exactly(&hub_events(hub_addr), "hall-a", &journal);
    let n = node_entry(hub_addr, "hall-a").unwrap();
    assert_eq!(n["gaps"], 0, "{n}");
    hub.terminate();
}

#[test]
fn a_restarted_hub_and_a_second_hub_rebuild_the_same_view() {
    if !nats_broker::nats_server_or_skip(
        "cluster::a_restarted_hub_and_a_second_hub_rebuild_the_same_view",
    ) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let broker = Broker::start(dir.path());
    let node = start_node(dir.path(), &broker, "hall-a", 5);
    let (first, first_addr) = start_hub(dir.path(), &broker);
    moves_on_hub(first_addr, &["hall-a"]);
    std::thread::sleep(Duration::from_secs(2));
    let seen = hub_events(first_addr);
    first.kill();
    let (second, second_addr) = start_hub(dir.path(), &broker);
    let (third, third_addr) = start_hub(dir.path(), &broker);
    for addr in [second_addr, third_addr] {
        let again = hub_events(addr);
        let by_seq: BTreeMap<u64, &Value> = again
            .iter()
            .map(|e| (e["seq"].as_u64().unwrap(), e))
            .collect();
        for e in &seen {
            let seq = e["seq"].as_u64().unwrap();
            let mut a = e.clone();
            let mut b = (*by_seq.get(&seq).expect("the same seq on the new hub")).clone();
            // Clock readings carry the time they were read; the rest is identical.
            a.as_object_mut().unwrap().remove("t_ms");
            b.as_object_mut().unwrap().remove("t_ms");
            assert_eq!(a, b, "seq {seq} differs after a restart");
        }
    }
    node.proc.terminate();
    second.terminate();
    third.terminate();
}

#[test]
fn a_killed_node_goes_offline_on_the_hub_then_catches_up() {
    if !nats_broker::nats_server_or_skip(
        "cluster::a_killed_node_goes_offline_on_the_hub_then_catches_up",
    ) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let broker = Broker::start(dir.path());
    let node = start_node(dir.path(), &broker, "hall-a", 9);
    let (hub, hub_addr) = start_hub(dir.path(), &broker);
    moves_on_hub(hub_addr, &["hall-a"]);
    let journal = node.journal.clone();
    node.proc.kill();
    let started = Instant::now();
    eventually(Duration::from_secs(20), "node_offline on the hub", || {
        let alerts = get_json(hub_addr, "/api/alerts?open=true");
        alerts.as_array()?.iter().find(|a| {
            a["kind"] == "node_offline" && a["severity"] == "review" && a["board"] == "hall-a"
        })?;
        (node_entry(hub_addr, "hall-a")?["state"] == "offline").then_some(())
    });
    assert!(started.elapsed() < Duration::from_secs(15));
    // Back with the same journal: online again, and what it journaled reaches the hub.
    let node = start_node(dir.path(), &broker, "hall-a", 9);
    assert_eq!(node.journal, journal);
    eventually(Duration::from_secs(20), "node_online on the hub", || {
        let alerts = get_json(hub_addr, "/api/alerts");
        alerts
            .as_array()?
            .iter()
            .find(|a| a["kind"] == "node_online")?;
        (node_entry(hub_addr, "hall-a")?["state"] == "online").then_some(())
    });
    std::thread::sleep(Duration::from_secs(2));
    node.proc.terminate();
    hub_caught_up(hub_addr, "hall-a", &journal);
    assert_hub_has_exactly(&hub_events(hub_addr), "hall-a", &journal);
    hub.terminate();
}

/// A PC started on a new journal under a node name the stream already knows would pass its
/// steps off as the old journal's next ones: it publishes nothing and says why, on its own
/// log and on the hub.
#[test]
fn a_new_journal_under_an_old_node_name_is_refused_not_mixed_in() {
    if !nats_broker::nats_server_or_skip(
        "cluster::a_new_journal_under_an_old_node_name_is_refused_not_mixed_in",
    ) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let broker = Broker::start(dir.path());
    let node = start_node(dir.path(), &broker, "hall-a", 5);
    let (hub, hub_addr) = start_hub(dir.path(), &broker);
    moves_on_hub(hub_addr, &["hall-a"]);
    let first = node.journal.clone();
    node.proc.terminate();
    hub_caught_up(hub_addr, "hall-a", &first);

    let mut other = start_node_on(
        dir.path(),
        &broker,
        "hall-a",
        6,
        dir.path().join("hall-a-new.sqlite"),
    );
    other.proc.stderr_line(
        "another journal runs under an old node name",
        Duration::from_secs(30),
    );
    eventually(Duration::from_secs(20), "the problem on /api/nodes", || {
        let entry = node_entry(hub_addr, "hall-a")?;
        (entry["healthy"] == false && entry["problem"].as_str()?.contains("new [cluster] node"))
            .then_some(())
    });
    // Whatever the new journal holds, the hub still has exactly the first one's events.
    std::thread::sleep(Duration::from_secs(2));
    assert_hub_has_exactly(&hub_events(hub_addr), "hall-a", &first);
    // Also once the new journal has more steps than the first: its steps would then pass
    // for the first one's next ones, but the stream's last message is not its own.
    let newer = dir.path().join("hall-a-new.sqlite");
    eventually(
        Duration::from_secs(90),
        "the new journal past the first",
        || (journal_last_seq(&newer) > journal_last_seq(&first) + 20).then_some(()),
    );
    std::thread::sleep(Duration::from_secs(7));
    assert_hub_has_exactly(&hub_events(hub_addr), "hall-a", &first);
    let entry = node_entry(hub_addr, "hall-a").expect("hall-a listed");
    assert_eq!(entry["healthy"], false, "{entry}");
    // Nor does it show the hub's dashboards its events as previews.
    let seen = runtime().block_on(async {
        let mut ws = dgt_testkit::ws::ws_connect(&format!("ws://{hub_addr}/ws?preview=1")).await;
        dgt_testkit::ws::read_ws_until_quiet(
            &mut ws,
            Duration::from_secs(3),
            Duration::from_secs(6),
        )
        .await
    });
    assert!(
        seen.iter().all(|v| v["type"] != "preview"),
        "{:?}",
        seen.iter().map(|v| &v["type"]).collect::<Vec<_>>()
    );
    other.proc.terminate();
    hub.terminate();
}

/// The shipped `config/nats-server.conf` (passwords set): the event runs through it, and a
/// node's credentials cannot publish as another node, take its actions, or read the hub's
/// inbox.
#[test]
fn the_shipped_broker_configuration_keeps_each_node_to_its_own_subjects() {
    if !nats_broker::nats_server_or_skip(
        "cluster::the_shipped_broker_configuration_keeps_each_node_to_its_own_subjects",
    ) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let broker = Broker::start_shipped(dir.path());
    assert!(broker.secured());
    let node = start_node(dir.path(), &broker, "hall-a", 21);
    let (hub, hub_addr) = start_hub(dir.path(), &broker);
    moves_on_hub(hub_addr, &["hall-a"]);
    let (status, body) = post(
        hub_addr,
        "/api/boards/hall-a%2Fboard-10001/claim",
        r#"{"kind": "fifty_move_rule", "side": "white"}"#,
    );
    assert_eq!(status, 200, "the hub may send actions to the node: {body}");

    // hall-a's credentials, by hand on the wire.
    let mut wire = NatsWire::connect(broker.port, "hall-a", "test-pw-hall-a");
    for own in [
        "dgt.open-2026.hall-a.heartbeat",
        "dgt.open-2026.hall-a.live",
    ] {
        assert_eq!(wire.try_pub(own), None, "its own subject {own}");
    }
    for subject in [
        "dgt.open-2026.hall-b.events",
        "dgt.open-2026.hall-b.live",
        "dgt.open-2026._hub.events",
        "dgt.open-2026.hall-b.actions",
        "$JS.API.STREAM.DELETE.DGT_open-2026",
        "$JS.API.STREAM.CREATE.DGT_open-2026",
        "$JS.API.STREAM.UPDATE.DGT_open-2026",
        "$JS.API.STREAM.PURGE.DGT_open-2026",
        "$JS.API.DIRECT.GET.DGT_open-2026.dgt.open-2026.hall-b.events",
    ] {
        let err = wire
            .try_pub(subject)
            .unwrap_or_else(|| panic!("{subject} was allowed"));
        assert!(err.contains("Permissions Violation"), "{subject}: {err}");
    }
    for subject in ["dgt.open-2026.hall-b.actions", "_INBOX_hub.>", "dgt.>"] {
        let err = wire
            .try_sub(subject)
            .unwrap_or_else(|| panic!("{subject} was allowed"));
        assert!(err.contains("Permissions Violation"), "{subject}: {err}");
    }
    // A wrong password is not let in at all.
    let err = NatsWire::refused(broker.port, "hall-a", "guess");
    assert!(err.contains("Authorization Violation"), "{err}");
    node.proc.terminate();
    hub.terminate();
}

/// The hub's arbiter sees a node's events as the node journals them, before the stream
/// (gathered here for 3 s) has numbered them: `/ws?preview=1` gets each first as a preview,
/// then its numbers (`numbered`), and the previews with their numbers are exactly the events
/// a client without previews gets whole. Through the shipped broker configuration, so the
/// node may tell and the hub may hear.
#[test]
fn the_hubs_dashboard_sees_a_nodes_events_before_the_stream_numbers_them() {
    if !nats_broker::nats_server_or_skip(
        "cluster::the_hubs_dashboard_sees_a_nodes_events_before_the_stream_numbers_them",
    ) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let broker = Broker::start_shipped(dir.path());
    let config = node_config_with(dir.path(), &broker, "hall-a", "publish_every_ms = 3000\n");
    let journal = dir.path().join("hall-a.sqlite");
    let (node, _) = start_demo(2, Some(5), &journal, Some(&config));
    let (hub, hub_addr) = start_hub(dir.path(), &broker);
    type Seen = BTreeMap<u64, (Instant, Value)>;
    // By node_seq: the previews, the same events with their numbers, and a plain client's.
    let (previews, numbered, whole) = runtime().block_on(async {
        let url = format!("ws://{hub_addr}/ws");
        let mut asked = dgt_testkit::ws::ws_connect(&format!("{url}?preview=1")).await;
        let mut plain = dgt_testkit::ws::ws_connect(&url).await;
        let (mut previews, mut numbered) = (Seen::new(), Seen::new());
        let deadline = Instant::now() + Duration::from_secs(90);
        let moves = |n: &Seen| n.values().filter(|(_, v)| v["type"] == "move").count();
        while moves(&numbered) < 5 {
            assert!(Instant::now() < deadline, "five moves previewed in time");
            let v = dgt_testkit::ws::next_json(&mut asked).await;
            let at = Instant::now();
            if v["type"] == "preview" {
                for e in v["events"].as_array().unwrap() {
                    let seq = e["node_seq"]
                        .as_u64()
                        .expect("a preview names its node_seq");
                    assert!(e.get("seq").is_none(), "{e}");
                    previews.insert(seq, (at, e.clone()));
                }
            } else if v["type"] == "numbered" {
                let (first, seq) = (v["node_seq"].as_u64().unwrap(), v["seq"].as_u64().unwrap());
                for i in 0..v["count"].as_u64().unwrap() {
                    let (_, mut e) = previews[&(first + i)].clone();
                    e["seq"] = json!(seq + i);
                    if e["type"] == "alert" {
                        e["id"] = json!(seq + i);
                    }
                    numbered.insert(first + i, (at, e));
                }
            }
        }
        let last = numbered
            .values()
            .map(|(_, e)| e["seq"].as_u64().unwrap())
            .max()
            .unwrap();
        let whole: BTreeMap<u64, Value> =
            dgt_testkit::ws::read_until(&mut plain, |v| v["seq"] == last)
                .await
                .into_iter()
                .filter_map(|v| Some((v["node_seq"].as_u64()?, v)))
                .collect();
        (previews, numbered, whole)
    });
    let mut leads = Vec::new();
    for (node_seq, (numbered_at, event)) in &numbered {
        let (preview_at, _) = previews[node_seq];
        leads.push(numbered_at.duration_since(preview_at));
        assert_eq!(Some(event), whole.get(node_seq), "node_seq {node_seq}");
    }
    leads.sort();
    assert!(leads.len() >= 10, "{} events previewed", leads.len());
    // The stream gathers for 3 s: an event waits 1.5 s on average for its message.
    assert!(
        leads[leads.len() / 2] >= Duration::from_millis(500),
        "the previews came {leads:?} before their numbers"
    );
    node.terminate();
    hub.terminate();
}

/// The NATS text protocol, just enough to try what a set of credentials may do.
struct NatsWire {
    stream: TcpStream,
    sid: u32,
}

impl NatsWire {
    fn open(port: u16, user: &str, password: &str) -> (TcpStream, String) {
        let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_millis(500)))
            .unwrap();
        let _info = read_some(&mut stream);
        write!(
            stream,
            "CONNECT {{\"verbose\":false,\"pedantic\":false,\"user\":\"{user}\",\"pass\":\"{password}\",\"protocol\":1}}\r\nPING\r\n"
        )
        .unwrap();
        let answer = read_some(&mut stream);
        (stream, answer)
    }

    fn connect(port: u16, user: &str, password: &str) -> NatsWire {
        let (stream, answer) = Self::open(port, user, password);
        assert!(answer.contains("PONG"), "signed in: {answer}");
        NatsWire { stream, sid: 0 }
    }

    fn refused(port: u16, user: &str, password: &str) -> String {
        Self::open(port, user, password).1
    }

    /// The server's error for the command, `None` when it was accepted.
    fn exchange(&mut self, command: String) -> Option<String> {
        write!(self.stream, "{command}PING\r\n").unwrap();
        let answer = read_some(&mut self.stream);
        answer
            .lines()
            .find(|l| l.starts_with("-ERR"))
            .map(str::to_string)
    }

    fn try_pub(&mut self, subject: &str) -> Option<String> {
        self.exchange(format!("PUB {subject} 2\r\nhi\r\n"))
    }

    fn try_sub(&mut self, subject: &str) -> Option<String> {
        self.sid += 1;
        self.exchange(format!("SUB {subject} {}\r\n", self.sid))
    }
}

/// What the server sends until it pauses (or answers PONG).
fn read_some(stream: &mut TcpStream) -> String {
    let mut out = String::new();
    let mut buf = [0u8; 4096];
    let end = Instant::now() + Duration::from_secs(5);
    while Instant::now() < end {
        match stream.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                out.push_str(&String::from_utf8_lossy(&buf[..n]));
                if out.contains("PONG") || out.contains("-ERR 'Authorization") {
                    break;
                }
            }
            Err(_) if !out.is_empty() => break,
            Err(_) => {}
        }
    }
    out
}

/// A tokio runtime for the tests that play another venue PC by hand.
fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// Another PC publishes on its own subject with message ids guessed from hall-b's and from
/// the hub's records (`hall-b:<step>`, `state:hall-b:false:<step>`): JetStream de-duplicates
/// ids across the whole stream, so ids like these used to make the broker drop hall-b's
/// events as `duplicate` and keep a dead PC "online". Nothing of ours carries an id now.
#[test]
fn message_ids_claimed_first_by_another_pc_hide_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let broker = Broker::start(dir.path());
    let (hub, hub_addr) = start_hub(dir.path(), &broker);
    // The hub made the stream; hall-a claims the ids first.
    runtime().block_on(async {
        let client = async_nats::connect(broker.url()).await.unwrap();
        let js = async_nats::jetstream::new(client);
        for k in 0..1500u64 {
            for id in [
                format!("hall-b:{k}"),
                format!("state:hall-b:false:{k}"),
                format!("state:hall-b:true:{k}"),
            ] {
                let mut h = async_nats::HeaderMap::new();
                h.insert("Nats-Msg-Id", id.as_str());
                js.publish_with_headers("dgt.open-2026.hall-a.events", h, "{}".into())
                    .await
                    .unwrap()
                    .await
                    .unwrap();
            }
        }
    });
    let node = start_node(dir.path(), &broker, "hall-b", 7);
    moves_on_hub(hub_addr, &["hall-b"]);
    hub_reaches_journal_so_far(hub_addr, "hall-b", &node.journal, "hall-b on the hub");
    let health = get_json(node.addr, "/health");
    assert_eq!(
        health["daemon"]["cluster"]["problem"],
        Value::Null,
        "{health}"
    );
    let journal = node.journal.clone();
    node.proc.kill();
    // Its `offline` record is stored although its old id was claimed.
    eventually(Duration::from_secs(20), "node_offline for hall-b", || {
        (node_entry(hub_addr, "hall-b")?["state"] == "offline").then_some(())
    });
    hub_caught_up(hub_addr, "hall-b", &journal);
    assert_hub_has_exactly(&hub_events(hub_addr), "hall-b", &journal);
    assert_eq!(node_entry(hub_addr, "hall-b").unwrap()["gaps"], 0);
    hub.terminate();
}

/// A stream made before the hub by someone else, with rollups allowed (one message could
/// wipe it): the hub does not start on it and the node publishes nothing to it, both saying
/// why.
#[test]
fn a_stream_not_configured_as_the_events_record_is_refused_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let broker = Broker::start(dir.path());
    runtime().block_on(async {
        let client = async_nats::connect(broker.url()).await.unwrap();
        let js = async_nats::jetstream::new(client);
        js.create_stream(async_nats::jetstream::stream::Config {
            name: "DGT_open-2026".into(),
            subjects: vec!["dgt.open-2026.*.events".into()],
            allow_rollup: true,
            allow_direct: true,
            ..Default::default()
        })
        .await
        .unwrap();
    });
    let node = start_node(dir.path(), &broker, "hall-a", 3);
    let health = eventually(Duration::from_secs(20), "the refusal on /health", || {
        let h = get_json(node.addr, "/health");
        (h["daemon"]["cluster"]["problem_kind"] == "refused").then_some(h)
    });
    assert_eq!(health["status"], "degraded", "{health}");
    let why = health["daemon"]["cluster"]["problem"].as_str().unwrap();
    assert!(why.contains("allows rollups"), "{why}");
    assert!(why.contains("nats stream rm DGT_open-2026"), "{why}");
    let config = hub_config(dir.path(), &broker);
    let (ok, _, stderr) = run_to_end(&["hub", "--config", path_str(&config)]);
    assert!(!ok, "the hub started on a stream that can be wiped");
    assert!(stderr.contains("allows rollups"), "{stderr}");
    // Nothing of the node's reached it.
    let stored = runtime().block_on(async {
        let client = async_nats::connect(broker.url()).await.unwrap();
        let js = async_nats::jetstream::new(client);
        let mut s = js.get_stream("DGT_open-2026").await.unwrap();
        s.info().await.unwrap().state.messages
    });
    assert_eq!(stored, 0);
    node.proc.terminate();
}

/// A node told to send one message a second gathers what its boards said meanwhile: the
/// stream holds a few messages where it would hold one per event, and the hub still has
/// every event exactly once.
#[test]
fn a_node_gathers_its_events_into_one_message_per_window() {
    let dir = tempfile::tempdir().unwrap();
    let broker = Broker::start(dir.path());
    let config = node_config_with(dir.path(), &broker, "hall-a", "publish_every_ms = 1000\n");
    let journal = dir.path().join("hall-a.sqlite");
    let started = Instant::now();
    let (node, _) = start_demo(2, Some(5), &journal, Some(&config));
    let (hub, hub_addr) = start_hub(dir.path(), &broker);
    moves_on_hub(hub_addr, &["hall-a"]);
    std::thread::sleep(Duration::from_secs(3));
    node.terminate();
    let seconds = started.elapsed().as_secs();
    hub_caught_up(hub_addr, "hall-a", &journal);
    assert_hub_has_exactly(&hub_events(hub_addr), "hall-a", &journal);
    let messages = runtime().block_on(async {
        let client = async_nats::connect(broker.url()).await.unwrap();
        let js = async_nats::jetstream::new(client);
        let s = js.get_stream(format!("DGT_{EVENT}")).await.unwrap();
        let subject = format!("dgt.{EVENT}.hall-a.events");
        let mut count = 0;
        let mut subjects = s.info_with_subjects(&subject).await.unwrap();
        while let Some(entry) = futures_util::StreamExt::next(&mut subjects).await {
            let (name, n) = entry.unwrap();
            if name == subject {
                count += n;
            }
        }
        count as u64
    });
    let events = journal_events(&journal).len() as u64;
    // One message a second at most, and the last one sent at the stop.
    assert!(
        messages <= seconds + 2,
        "{messages} messages in {seconds} s"
    );
    assert!(
        events >= 3 * messages,
        "{events} events in {messages} messages"
    );
    hub.terminate();
}

/// The broker PC is replaced mid-event (its store lost): the hub makes the stream again,
/// every node publishes its whole journal again with its original times, and the running
/// hub ends with every event once — no freeze, no gap.
#[test]
fn a_broker_store_lost_mid_event_is_filled_again_from_the_journals() {
    let dir = tempfile::tempdir().unwrap();
    let mut broker = Broker::start(dir.path());
    let node = start_node(dir.path(), &broker, "hall-a", 13);
    let (hub, hub_addr) = start_hub(dir.path(), &broker);
    moves_on_hub(hub_addr, &["hall-a"]);
    // The node restarts after a few seconds down: its journal has two sessions, each on its
    // own clock.
    let first = node.journal.clone();
    node.proc.terminate();
    hub_caught_up(hub_addr, "hall-a", &first);
    std::thread::sleep(Duration::from_secs(3));
    let node = start_node(dir.path(), &broker, "hall-a", 13);
    assert_eq!(node.journal, first);
    std::thread::sleep(Duration::from_secs(2));
    hub_reaches_journal_so_far(hub_addr, "hall-a", &node.journal, "hall-a before the loss");
    let before: Vec<Value> = hub_events(hub_addr);
    broker.kill();
    std::fs::remove_dir_all(broker.store()).unwrap();
    std::thread::sleep(Duration::from_secs(1));
    broker.restart();
    eventually(Duration::from_secs(60), "the stream made anew", || {
        let h = get_json(hub_addr, "/health");
        (h["daemon"]["hub"]["stream_recreated"].as_u64()? >= 1).then_some(())
    });
    hub_reaches_journal_so_far(hub_addr, "hall-a", &node.journal, "hall-a after the loss");
    let journal = node.journal.clone();
    node.proc.terminate();
    hub_caught_up(hub_addr, "hall-a", &journal);
    let after = hub_events(hub_addr);
    assert_hub_has_exactly(&after, "hall-a", &journal);
    // The events seen before the loss kept their numbers and their times.
    let by_seq: BTreeMap<u64, &Value> = after
        .iter()
        .map(|e| (e["seq"].as_u64().unwrap(), e))
        .collect();
    for e in before.iter().filter(|e| e["node"] == "hall-a") {
        assert_eq!(Some(&e), by_seq.get(&e["seq"].as_u64().unwrap()), "{e}");
    }
    let n = node_entry(hub_addr, "hall-a").unwrap();
    assert_eq!(n["gaps"], 0, "{n}");
    // A hub started now reads the journal as published again: every event with its
    // original time, the first session's too.
    let (second, second_addr) = start_hub(dir.path(), &broker);
    hub_caught_up(second_addr, "hall-a", &journal);
    let time_of = |events: &[Value]| -> BTreeMap<u64, Value> {
        events
            .iter()
            .filter(|e| e["node"] == "hall-a")
            .filter_map(|e| Some((e["node_seq"].as_u64()?, e["t_ms"].clone())))
            .collect()
    };
    assert_eq!(time_of(&hub_events(second_addr)), time_of(&after));
    // Its numbers cannot be those of the hub that ran through the loss, and it says so.
    let health = eventually(Duration::from_secs(10), "the numbering told", || {
        let h = get_json(second_addr, "/health");
        (h["daemon"]["hub"]["numbering_differs"] == true).then_some(h)
    });
    let notice = health["daemon"]["notice"].as_str().unwrap();
    assert!(notice.contains("numbers differ"), "{notice}");
    let alerts = health["daemon"]["hub"]["alerts"].as_array().unwrap();
    assert_eq!(alerts[0]["kind"], "hub_numbering_differs", "{alerts:?}");
    let first = get_json(hub_addr, "/health");
    assert_eq!(
        first["daemon"]["hub"]["numbering_differs"], false,
        "{first}"
    );
    second.terminate();
    hub.terminate();
}

/// A wrong password is named on the node's /health, with the fix.
#[test]
fn a_wrong_password_is_named_on_the_nodes_health() {
    let dir = tempfile::tempdir().unwrap();
    let broker = Broker::start_shipped(dir.path());
    let config = dir.path().join("hall-a.toml");
    std::fs::write(
        &config,
        format!(
            "[cluster]\nnats = \"{}\"\nnode = \"hall-a\"\nevent = \"{EVENT}\"\n\
             user = \"hall-a\"\npassword = \"not-the-password\"\n",
            broker.url()
        ),
    )
    .unwrap();
    let (mut proc, addr) = start_demo(2, Some(3), &dir.path().join("a.sqlite"), Some(&config));
    let health = eventually(Duration::from_secs(20), "the named problem", || {
        let h = get_json(addr, "/health");
        (h["daemon"]["cluster"]["problem_kind"] == "wrong_credentials").then_some(h)
    });
    assert_eq!(health["status"], "degraded", "{health}");
    let why = health["daemon"]["cluster"]["problem"].as_str().unwrap();
    assert!(why.contains("Fix"), "{why}");
    proc.stderr_line("authorization violation", Duration::from_secs(5));
    proc.terminate();
}
