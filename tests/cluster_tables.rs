//! A node's boards stand at the event's tables on the hub without anyone naming them
//! (docs/cluster.md, "Tables across the event"): pairings imported on the hub, two venue PCs
//! whose emulated boards (`emulate --pty`) each play a mating game at the table of their
//! number (hall A's board 7, hall B's board 107); the hub's `results.csv` and public round
//! PGN hold each table's game with its moves and result. Then the chief names another game
//! for a table on the hub: every hub, also one started afterwards, binds it.

mod daemon_processes;
mod nats_broker;

use std::net::SocketAddr;
use std::path::Path;
use std::time::Duration;

use daemon_processes::*;
use nats_broker::{Broker, nats_server_or_skip};
use serde_json::Value;

const EVENT: &str = "tables-2026";
const PAIRINGS: &str = "Table,White,Black\n7,\"Anand, Viswanathan\",\"Kramnik, Vladimir\"\n\
                        107,\"Polgar, Judit\",\"Short, Nigel\"\n";
/// Fool's mate at hall A's board 7 and the scholar's at hall B's board 107.
const FOOLS: &str = "1. f3 e5 2. g4 Qh4# 0-1\n";
const SCHOLARS: &str = "1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7# 1-0\n";

fn cluster(broker: &Broker, node: Option<&str>) -> String {
    let mut t = format!(
        "[cluster]\nnats = \"{}\"\nevent = \"{EVENT}\"\nheartbeat_ms = 300\noffline_after_ms = 1500\n",
        broker.url()
    );
    if let Some(n) = node {
        t.push_str(&format!("node = \"{n}\"\n"));
    }
    t
}

/// No public delay, so the public round PGN shows the games at once.
const NO_DELAY: &str = "[server]\npublic_delay_s = 0\nallow_no_public_delay = true\n";

/// A hub; `tables`: its own `[[tables]]`.
fn start_hub(dir: &Path, broker: &Broker, name: &str, tables: &str) -> (Proc, SocketAddr) {
    let config = dir.join(format!("{name}.toml"));
    std::fs::write(
        &config,
        format!(
            "listen = \"127.0.0.1:0\"\n{NO_DELAY}{}{tables}",
            cluster(broker, None)
        ),
    )
    .unwrap();
    start_hub_from(&config)
}

/// An emulated board playing `game` first, and the venue PC `node` reading it as `table`.
fn start_hall(
    dir: &Path,
    broker: &Broker,
    node: &str,
    serial: &str,
    table: u32,
    game: &str,
) -> (Proc, Proc) {
    let (board, pty) = emulate_pgn(dir, node, serial, game);
    let config = dir.join(format!("{node}.toml"));
    std::fs::write(
        &config,
        format!(
            "listen = \"127.0.0.1:0\"\n[serial]\nscan = \"off\"\nports = [{{ path = \"{pty}\" }}]\n\
             [journal]\npath = \"{}\"\n{}[[tables]]\nboard = {table}\nserials = [\"{serial}\"]\n",
            dir.join(format!("{node}.sqlite")).display(),
            cluster(broker, Some(node))
        ),
    )
    .unwrap();
    let mut p = Proc::spawn(&["run", "--config", path_str(&config)]);
    p.stderr_line("dashboard at", Duration::from_secs(30));
    (board, p)
}

fn round_table(addr: SocketAddr, table: u32) -> Value {
    get_json(addr, "/api/rounds/1")["tables"]
        .as_array()
        .and_then(|t| t.iter().find(|t| t["table"] == table).cloned())
        .unwrap_or(Value::Null)
}

/// The PGN's movetext without its `{[%clk …]}` comments, on one line.
fn without_comments(pgn: &str) -> String {
    let mut out = String::new();
    let mut depth = 0;
    for c in pgn.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn node_boards_stand_at_their_tables_on_the_hub_and_the_chief_rebinds_one() {
    if !nats_server_or_skip("node_boards_stand_at_their_tables_on_the_hub") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let broker = Broker::start(dir.path());
    let (hub, hub_addr) = start_hub(dir.path(), &broker, "hub", "");
    let (status, body) = post(hub_addr, "/api/rounds/1/pairings", PAIRINGS);
    assert_eq!(status, 200, "{body}");
    eventually(Duration::from_secs(20), "round 1 on the hub", || {
        (get(hub_addr, "/api/rounds/1").0 == 200).then_some(())
    });
    let (board_a, node_a) = start_hall(dir.path(), &broker, "hall-a", "10036", 7, FOOLS);
    let (board_b, node_b) = start_hall(dir.path(), &broker, "hall-b", "10037", 107, SCHOLARS);

    // Both games end by mate; each is its table's game on the hub, named by no one.
    let csv = eventually(Duration::from_secs(120), "both results on the hub", || {
        let (status, csv) = get(hub_addr, "/api/rounds/1/results.csv");
        (status == 200 && csv.contains("0-1") && csv.contains("1-0")).then_some(csv)
    });
    let seven = round_table(hub_addr, 7);
    assert_eq!(seven["game"], "hall-a/7/1", "{seven}");
    assert_eq!(seven["board"], "hall-a/7", "{seven}");
    assert_eq!(seven["result"], "0-1", "{seven}");
    assert!(seven["bound_by"].is_null(), "no one named it: {seven}");
    let far = round_table(hub_addr, 107);
    assert_eq!(far["game"], "hall-b/107/1", "{far}");
    assert_eq!(far["result"], "1-0", "{far}");
    for line in csv
        .lines()
        .filter(|l| l.starts_with("7,") || l.starts_with("107,"))
    {
        assert!(
            line.contains("board"),
            "a result from the board: {line}\n{csv}"
        );
    }
    let (status, pgn) = get(hub_addr, "/public/round/1.pgn");
    assert_eq!(status, 200, "{pgn}");
    assert!(pgn.contains("[Round \"1.7\"]"), "{pgn}");
    assert!(pgn.contains("[Round \"1.107\"]"), "{pgn}");
    let moves = without_comments(&pgn);
    assert!(moves.contains("1. f3 e5 2. g4 Qh4# 0-1"), "{pgn}");
    assert!(
        moves.contains("1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7# 1-0"),
        "{pgn}"
    );

    // The board plays on after its round game; the chief names that game table 7's (a
    // game restarted by decision) on the hub, by its hub id.
    eventually(Duration::from_secs(60), "hall-a/7's second game", || {
        get_json(hub_addr, "/api/games")
            .as_array()
            .and_then(|g| g.iter().find(|g| g["id"] == "hall-a/7/2").cloned())
    });
    let (status, body) = post(
        hub_addr,
        "/api/rounds/1/tables/7/game",
        r#"{"game": "hall-a/7/2"}"#,
    );
    assert_eq!(status, 200, "{body}");
    let seven = eventually(Duration::from_secs(20), "the rebind on the hub", || {
        let t = round_table(hub_addr, 7);
        // Who named it arrives as the record after the binding.
        (t["game"] == "hall-a/7/2" && t["bound_by"].is_string()).then_some(t)
    });
    // A hub started afterwards reads the chief's record from the stream alike.
    let (second, second_addr) = start_hub(dir.path(), &broker, "hub-2", "");
    let other = eventually(
        Duration::from_secs(30),
        "the rebind on the second hub",
        || {
            let t = round_table(second_addr, 7);
            (t["game"] == "hall-a/7/2").then_some(t)
        },
    );
    assert_eq!(other["bound_by"], seven["bound_by"], "{other}");
    assert_eq!(round_table(second_addr, 107)["game"], "hall-b/107/1");
    for p in [node_a, node_b, board_a, board_b, second, hub] {
        p.terminate();
    }
}

#[test]
fn two_nodes_with_one_table_number_are_told_and_the_hubs_tables_place_them() {
    if !nats_server_or_skip("two_nodes_with_one_table_number_are_told") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let broker = Broker::start(dir.path());
    let (mut hub, hub_addr) = start_hub(dir.path(), &broker, "hub", "");
    let (status, body) = post(hub_addr, "/api/rounds/1/pairings", PAIRINGS);
    assert_eq!(status, 200, "{body}");
    // Both halls number their board 7.
    let (board_a, node_a) = start_hall(dir.path(), &broker, "hall-a", "10036", 7, FOOLS);
    let (board_b, node_b) = start_hall(dir.path(), &broker, "hall-b", "10037", 7, SCHOLARS);
    let contested = eventually(Duration::from_secs(60), "table 7 contested", || {
        let c = get_json(hub_addr, "/api/rounds/1")["contested_tables"].clone();
        (c.as_array().is_some_and(|c| !c.is_empty())).then_some(c)
    });
    assert_eq!(
        contested,
        serde_json::json!([{"table": 7, "boards": ["hall-a/7", "hall-b/7"]}])
    );
    let warning = hub.stderr_line("is claimed by", Duration::from_secs(10));
    assert!(
        warning.contains("hall-a/7") && warning.contains("hall-b/7"),
        "{warning}"
    );
    // The hub's own [[tables]] say where hall B's board stands: a hub with them binds both.
    let (second, second_addr) = start_hub(
        dir.path(),
        &broker,
        "hub-2",
        "[[tables]]\nboard = 107\nlabel = \"hall-b/7\"\n",
    );
    eventually(
        Duration::from_secs(120),
        "both results on the mapped hub",
        || {
            let (seven, far) = (round_table(second_addr, 7), round_table(second_addr, 107));
            (seven["result"] == "0-1" && far["result"] == "1-0").then_some(())
        },
    );
    assert_eq!(round_table(second_addr, 7)["game"], "hall-a/7/1");
    assert_eq!(round_table(second_addr, 107)["game"], "hall-b/7/1");
    assert_eq!(
        get_json(second_addr, "/api/rounds/1")["contested_tables"],
        serde_json::json!([])
    );
    for p in [node_a, node_b, board_a, board_b, second, hub] {
        p.terminate();
    }
}
