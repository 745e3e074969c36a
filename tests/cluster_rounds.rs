//! Round-wide records across the event (docs/cluster.md, "Round-wide records have an
//! owner"): pairings and table results count on the hub only when the chief enters them on
//! the hub or a node named in `[cluster] round_nodes` sends them; a venue PC that sends its
//! own is shown as a `result_conflict` and changes nothing.

mod daemon_processes;
mod nats_broker;

use std::net::SocketAddr;
use std::path::Path;
use std::time::Duration;

use daemon_processes::*;
use nats_broker::Broker;
use serde_json::Value;

const EVENT: &str = "rounds-2026";
const TRF: &str = include_str!("../crates/dgt-pairings/tests/samples/zomeropen-r3.trf");

fn table(broker: &Broker, node: Option<&str>, round_nodes: &str) -> String {
    let mut t = format!(
        "[cluster]\nnats = \"{}\"\nevent = \"{EVENT}\"\nheartbeat_ms = 300\noffline_after_ms = 1500\nround_nodes = [{round_nodes}]\n",
        broker.url()
    );
    if let Some(n) = node {
        t.push_str(&format!("node = \"{n}\"\n"));
    }
    t
}

fn conflicts(hub: SocketAddr) -> Vec<Value> {
    get_json(hub, "/api/alerts")
        .as_array()
        .unwrap()
        .iter()
        .filter(|a| a["kind"] == "result_conflict")
        .cloned()
        .collect()
}

fn start(dir: &Path, name: &str, text: String, hub: bool) -> (Proc, SocketAddr) {
    let config = dir.join(format!("{name}.toml"));
    if hub {
        std::fs::write(&config, format!("listen = \"127.0.0.1:0\"\n{text}")).unwrap();
        let mut p = Proc::spawn(&["hub", "--config", path_str(&config)]);
        let addr = dashboard_addr(&p.stderr_line("dashboard at", Duration::from_secs(30)));
        (p, addr)
    } else {
        std::fs::write(&config, text).unwrap();
        start_demo(
            2,
            Some(5),
            &dir.join(format!("{name}.sqlite")),
            Some(&config),
        )
    }
}

#[test]
fn a_nodes_own_round_records_are_a_conflict_and_the_named_ones_count() {
    let dir = tempfile::tempdir().unwrap();
    let broker = Broker::start(dir.path());
    let (hub, hub_addr) = start(dir.path(), "hub", table(&broker, None, "\"hall-b\""), true);
    let (a, a_addr) = start(
        dir.path(),
        "hall-a",
        table(&broker, Some("hall-a"), ""),
        false,
    );
    let (b, b_addr) = start(
        dir.path(),
        "hall-b",
        table(&broker, Some("hall-b"), ""),
        false,
    );

    // hall-a imports pairings and forfeits a table on its own dashboard: not the event's.
    let (status, body) = post(a_addr, "/api/rounds/3/pairings", TRF);
    assert_eq!(status, 200, "{body}");
    eventually(Duration::from_secs(20), "round 3 on hall-a", || {
        (get(a_addr, "/api/rounds/3/results.csv").0 == 200).then_some(())
    });
    let (status, body) = post(
        a_addr,
        "/api/rounds/3/tables/1/result",
        r#"{"result": "+-"}"#,
    );
    assert_eq!(status, 200, "{body}");
    let shown = eventually(Duration::from_secs(30), "two conflicts on the hub", || {
        let c = conflicts(hub_addr);
        (c.len() == 2).then_some(c)
    });
    for c in &shown {
        assert_eq!(c["severity"], "review", "{c}");
        assert!(c["message"].as_str().unwrap().contains("hall-a"), "{c}");
    }
    let (status, _) = get(hub_addr, "/api/rounds/3/results.csv");
    assert_eq!(status, 404, "hall-a's pairings made a round on the hub");

    // hall-b is named for the rounds: its pairings are the event's.
    let (status, body) = post(b_addr, "/api/rounds/3/pairings", TRF);
    assert_eq!(status, 200, "{body}");
    eventually(Duration::from_secs(30), "round 3 on the hub", || {
        (get(hub_addr, "/api/rounds/3/results.csv").0 == 200).then_some(())
    });
    // The chief enters a result on the hub itself: the hub records it in the stream.
    let (status, body) = post(
        hub_addr,
        "/api/rounds/3/tables/2/result",
        r#"{"result": "0-1"}"#,
    );
    assert_eq!(status, 200, "{body}");
    let csv = eventually(Duration::from_secs(30), "the chief's result", || {
        let (status, csv) = get(hub_addr, "/api/rounds/3/results.csv");
        (status == 200 && csv.contains("0-1")).then_some(csv)
    });
    assert!(!csv.contains("+-"), "hall-a's forfeit counted: {csv}");
    assert_eq!(conflicts(hub_addr).len(), 2);
    a.terminate();
    b.terminate();
    hub.terminate();
}
