//! A game found under way on a venue PC, seen on the hub, with the real processes:
//! an emulated board (`emulate --pty`) plays a game set up from a position (its own log has
//! no start of it, so nothing can be rebuilt) before the node (`run` with `[cluster]`)
//! starts. The hub's game, its PGN, the round's record and the public round PGN all take the
//! game from the position found, say that the moves before were not seen, and hold the moves
//! the emulated players made from there.

mod daemon_processes;
mod nats_broker;

use std::net::SocketAddr;
use std::path::Path;
use std::time::Duration;

use daemon_processes::*;
use nats_broker::{Broker, nats_server_or_skip};
use serde_json::Value;
use shakmaty::fen::Fen;
use shakmaty::san::San;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Position};

const EVENT: &str = "under-way-2026";
const SERIAL: &str = "10036";
const PAIRINGS: &str = include_str!("../crates/dgt-pairings/tests/samples/clubavond-r1.csv");

/// A Ruy Lopez set up after 3.Bb5 and played on by the emulated players (the Breyer line).
const START: &str = "r1bqkbnr/pppp1ppp/2n5/1B2p3/4P3/5N2/PPPP1PPP/RNBQK2R b KQkq - 3 3";
const LINE: &str = "a6 Ba4 Nf6 O-O Be7 Re1 b5 Bb3 d6 c3 O-O h3 Nb8 d4 Nbd7 Nbd2 Bb7 Bc2 Re8 \
                    Nf1 Bf8 Ng3 g6 a4 c5 d5 c4 Bg5 h6 Be3 Nc5 Qd2 h5 Bg5 Be7";

fn script_pgn() -> String {
    format!("[FEN \"{START}\"]\n[SetUp \"1\"]\n\n{LINE} *\n")
}

/// The line's moves in UCI, and the placement and side to move before each of them.
fn line_ucis() -> (Vec<String>, Vec<String>) {
    let fen: Fen = START.parse().unwrap();
    let mut pos: Chess = fen.into_position(CastlingMode::Standard).unwrap();
    let (mut ucis, mut before) = (Vec::new(), Vec::new());
    for san in LINE.split_whitespace() {
        let m = san.parse::<San>().unwrap().to_move(&pos).unwrap();
        before.push(placement_and_turn(&pos));
        ucis.push(UciMove::from_standard(m).to_string());
        pos.play_unchecked(m);
    }
    (ucis, before)
}

fn placement_and_turn(pos: &Chess) -> String {
    let fen = Fen::from_position(pos, shakmaty::EnPassantMode::Legal).to_string();
    fen.split(' ').take(2).collect::<Vec<_>>().join(" ")
}

fn cluster(broker: &Broker, node: Option<&str>) -> String {
    let mut t = format!(
        "[cluster]\nnats = \"{}\"\nevent = \"{EVENT}\"\nheartbeat_ms = 300\noffline_after_ms = 1500\n",
        broker.url()
    );
    match node {
        Some(n) => t.push_str(&format!("node = \"{n}\"\n")),
        // The venue PC's arbiter keeps the round's record.
        None => t.push_str("round_nodes = [\"hall-a\"]\n"),
    }
    t
}

/// No public delay, so the public round PGN shows the game at once.
const NO_DELAY: &str = "[server]\npublic_delay_s = 0\nallow_no_public_delay = true\n";

fn start_hub(dir: &Path, broker: &Broker) -> (Proc, SocketAddr) {
    let config = dir.join("hub.toml");
    std::fs::write(
        &config,
        format!(
            "listen = \"127.0.0.1:0\"\n{NO_DELAY}{}",
            cluster(broker, None)
        ),
    )
    .unwrap();
    start_hub_from(&config)
}

/// The venue PC: the emulated board is table 1's (label "1").
fn start_node(dir: &Path, broker: &Broker, pty: &str) -> (Proc, SocketAddr) {
    let config = dir.join("hall-a.toml");
    std::fs::write(
        &config,
        format!(
            "listen = \"127.0.0.1:0\"\n{NO_DELAY}[serial]\nscan = \"off\"\nports = [{{ path = \"{pty}\" }}]\n\
             [journal]\npath = \"{}\"\n{}[[tables]]\nboard = 1\nserials = [\"{SERIAL}\"]\n",
            dir.join("hall-a.sqlite").display(),
            cluster(broker, Some("hall-a"))
        ),
    )
    .unwrap();
    let mut p = Proc::spawn(&["run", "--config", path_str(&config)]);
    let addr = dashboard_addr(&p.stderr_line("dashboard at", Duration::from_secs(30)));
    (p, addr)
}

/// Table 1's game in a round record (`GET /api/rounds/1`).
fn table_one(addr: SocketAddr) -> Value {
    get_json(addr, "/api/rounds/1")["tables"]
        .as_array()
        .and_then(|t| t.iter().find(|t| t["table"] == 1).cloned())
        .unwrap_or(Value::Null)
}

fn says_found(pgn: &str, start_fen: &str) -> bool {
    pgn.contains("[SetUp \"1\"]")
        && pgn.contains(&format!("[FEN \"{start_fen}\"]"))
        && pgn.contains("moves before this position were not seen")
}

#[test]
fn a_game_found_under_way_on_a_node_is_recorded_on_the_hub_from_where_it_stood() {
    if !nats_server_or_skip("a_game_found_under_way_on_a_node_is_recorded_on_the_hub") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let broker = Broker::start(dir.path());
    let (hub, hub_addr) = start_hub(dir.path(), &broker);

    let (board, pty) = emulate_pgn(dir.path(), "ruy", SERIAL, &script_pgn());
    // The players are at it before the venue PC starts.
    std::thread::sleep(Duration::from_secs(8));
    let (node, node_addr) = start_node(dir.path(), &broker, &pty);
    // The round's pairings, imported on the venue PC as the game is being found.
    let (status, body) = post(node_addr, "/api/rounds/1/pairings", PAIRINGS);
    assert_eq!(status, 200, "{body}");

    let game = eventually(
        Duration::from_secs(150),
        "a game with moves on the hub",
        || {
            get_json(hub_addr, "/api/games")
                .as_array()
                .cloned()
                .unwrap_or_default()
                .into_iter()
                .find(|g| g["board"] == "hall-a/1" && g["plies"].as_u64().unwrap_or(0) >= 4)
        },
    );
    let id = game["id"].as_str().unwrap().to_string();
    let local = id.strip_prefix("hall-a/").unwrap().to_string();
    let detail = get_json(hub_addr, &format!("/api/games/{id}"));

    // The game starts where the node found it: a position of the line, after some moves.
    let (ucis, before) = line_ucis();
    let start_fen = detail["start_fen"].as_str().unwrap().to_string();
    let start_key: String = start_fen.split(' ').take(2).collect::<Vec<_>>().join(" ");
    let from = before
        .iter()
        .position(|b| *b == start_key)
        .unwrap_or_else(|| panic!("{start_fen} is no position of the line"));
    assert!(from > 0, "the players had moved before the node started");
    assert_eq!(detail["found_under_way"], true, "{detail}");
    let got: Vec<String> = detail["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["uci"].as_str().unwrap().to_string())
        .collect();
    assert!(
        ucis[from..].starts_with(&got),
        "the hub's moves {got:?} are the players' from ply {from}: {:?}",
        &ucis[from..]
    );

    // Its PGN on the hub: set up from there, with the note.
    let (status, pgn) = get(hub_addr, &format!("/api/games/{id}/pgn"));
    assert_eq!(status, 200, "{pgn}");
    assert!(says_found(&pgn, &start_fen), "{pgn}");

    // The venue PC's round record binds it to table 1 and its public round PGN shows it so.
    let table = table_one(node_addr);
    assert_eq!(table["game"], local.as_str(), "{table}");
    let (status, public) = get(node_addr, "/public/round/1.pgn");
    assert_eq!(status, 200, "{public}");
    assert!(public.contains("[Round \"1.1\"]"), "{public}");
    assert!(says_found(&public, &start_fen), "{public}");

    // The arbiter names it table 1's game: the event's round record on the hub holds it, and
    // the hub's public round PGN takes it from where it stood.
    let (status, body) = post(
        node_addr,
        "/api/rounds/1/tables/1/game",
        &format!(r#"{{"game": "{local}"}}"#),
    );
    assert_eq!(status, 200, "{body}");
    let table = eventually(Duration::from_secs(30), "table 1's game on the hub", || {
        let t = table_one(hub_addr);
        t["game"].is_string().then_some(t)
    });
    assert_eq!(table["game"], id.as_str(), "{table}");
    let (status, public) = get(hub_addr, "/public/round/1.pgn");
    assert_eq!(status, 200, "{public}");
    assert!(public.contains("[Round \"1.1\"]"), "{public}");
    assert!(says_found(&public, &start_fen), "{public}");
    node.terminate();
    board.terminate();
    hub.terminate();
}
