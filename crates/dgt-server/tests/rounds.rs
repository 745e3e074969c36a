//! Rounds on the server: a TRF uploaded with the arbiter token becomes one `pairings` op;
//! once the core's event is back, the boards carry their players, the PGN its tags, the
//! round PGN answers pollers with 304s, and the LiveChess tournament calls answer as
//! broadcast tools expect.

mod common;
#[path = "common/pgn.rs"]
mod pgn;

use std::time::Duration;

use common::*;
use dgt_core::event::{BoardStatus, EndReason, LinkState, Orientation};
use dgt_core::event_script::EventScript;
use dgt_core::pairing::{ROUND_BOARD, RoundPairings};
use dgt_core::{Alert, AlertKind, EventBody, InputKind, Operation, Severity, Side};
use dgt_pairings::{BoardOrder, TableMap};
use dgt_server::ServerConfig;
use serde_json::{Value, json};

const TRF: &str = include_str!("../../dgt-pairings/tests/samples/zomeropen-r3.trf");
const TOKEN: &str = "chief-secret";

fn config() -> ServerConfig {
    ServerConfig {
        arbiter_token: Some(TOKEN.into()),
        livechess_listen: Some(loopback()),
        // The LiveChess tests speak as a program on this PC (no Origin) that sets up boards.
        livechess_action_origins: vec![dgt_server::origin::NO_ORIGIN.into()],
        event: "Zomeropen".into(),
        // Table 2's board is labelled "b-2"; table 4 has none; board "9" is not paired.
        tables: TableMap::new([(2, "b-2".to_string())]),
        ..test_config()
    }
}

fn auth() -> (&'static str, String) {
    ("Authorization", format!("Bearer {TOKEN}"))
}

const START_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// The status of a board the serial edge has identified, with its serial number.
fn identified(board: &str, serial: &str) -> EventBody {
    EventBody::BoardStatus(BoardStatus {
        state: LinkState::Identified,
        serial: Some(serial.into()),
        version: None,
        orientation: Orientation::Normal,
        port: Some(format!("/dev/ttyACM{board}")),
        clock_version: None,
    })
}

/// Ply `ply` of `game`, both clocks at `ms`; its FEN names its seq (`fen-N`), which
/// [`wait_public`] looks for in the public view.
fn mv(s: &mut EventScript, board: &str, game: &str, ply: u32, san: &str, ms: u64) {
    let fen = format!("fen-{}", s.seq() + 1);
    s.ply(board, game, ply, san, fen, (Some(ms), Some(ms)));
}

fn round3() -> RoundPairings {
    dgt_pairings::read(TRF, 3, BoardOrder::WhiteLine).unwrap()
}

/// Round 3's table 4, which has no board, lost by White by forfeit (`-+`), as the arbiter
/// enters it.
fn forfeit_at_table_4(s: &mut EventScript) {
    s.push(
        ROUND_BOARD,
        EventBody::TableResult(dgt_core::pairing::TableResultOp {
            round: 3,
            table: 4,
            result: Some("-+".parse().unwrap()),
        }),
    );
}

/// The hall before and after round 3's pairings: boards 1, b-2, 3 and 9 present (seqs 1
/// to 12).
fn hall() -> EventScript {
    let mut s = EventScript::new(1000);
    for (board, serial) in [
        ("1", "13101"),
        ("b-2", "13102"),
        ("3", "13103"),
        ("9", "13109"),
    ] {
        s.push(board, identified(board, serial));
    }
    s.push(ROUND_BOARD, EventBody::Pairings(round3()));
    s.start("1", "1/1", START_FEN);
    mv(&mut s, "1", "1/1", 1, "e4", 5_399_000);
    mv(&mut s, "1", "1/1", 2, "c5", 5_398_000);
    s.start("b-2", "b-2/1", START_FEN);
    mv(&mut s, "b-2", "b-2/1", 1, "d4", 5_390_000);
    s.start("9", "9/1", START_FEN);
    mv(&mut s, "9", "9/1", 1, "Nf3", 5_000_000);
    s
}

#[tokio::test]
async fn a_trf_upload_is_checked_whole_and_handed_to_the_core() {
    let mut server = start_server().await;
    let (token_name, token) = auth();
    // Without the arbiter token: refused.
    let (code, _, _) = request(server.addr, "POST", "/api/rounds/3/pairings", &[], TRF).await;
    assert_eq!(code, 401);
    // A broken file: every problem with its line, nothing forwarded.
    let broken = TRF.replace("   3 w 1     1 b", "   3 w 1     7 b");
    assert_ne!(broken, TRF);
    let (code, _, body) = request(
        server.addr,
        "POST",
        "/api/rounds/3/pairings",
        &[(token_name, &token)],
        &broken,
    )
    .await;
    assert_eq!(code, 422, "{body}");
    let v: Value = serde_json::from_str(&body).unwrap();
    // The arbiter reads that nothing was imported, and why (the problems below).
    assert_eq!(
        v["error"], "the pairing file has 2 problem(s); nothing was imported",
        "{v}"
    );
    assert!(
        v["problems"]
            .as_array()
            .unwrap()
            .iter()
            .all(|p| p["line"].is_u64() && p["fix"].is_string()),
        "{body}"
    );
    assert!(server.ops.try_recv().is_err(), "nothing half-imported");

    let (code, _, body) = request(
        server.addr,
        "POST",
        "/api/rounds/3/pairings",
        &[(token_name, &token)],
        TRF,
    )
    .await;
    assert_eq!(code, 200, "{body}");
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["tables"][1]["label"], "b-2");
    let op = server.next_action().await;
    assert_eq!(op.board, ROUND_BOARD);
    assert_eq!(op.kind, InputKind::Op(Operation::Pairings(round3())));

    // A forfeit entered for table 4 (no board there).
    let mut s = EventScript::new(1000);
    s.push(ROUND_BOARD, EventBody::Pairings(round3()));
    server.send(&s.events);
    server.wait_seq(1).await;
    let (code, _, _) = request(
        server.addr,
        "POST",
        "/api/rounds/3/tables/4/result",
        &[(token_name, &token)],
        r#"{"result": "1-0 forfeit"}"#,
    )
    .await;
    assert_eq!(code, 400);
    let (code, _, _) = request(
        server.addr,
        "POST",
        "/api/rounds/3/tables/9/result",
        &[(token_name, &token)],
        r#"{"result": "-+"}"#,
    )
    .await;
    assert_eq!(code, 404, "round 3 has no table 9");
    let (code, _, _) = request(
        server.addr,
        "POST",
        "/api/rounds/3/tables/4/result",
        &[(token_name, &token)],
        r#"{"result": "-+"}"#,
    )
    .await;
    assert_eq!(code, 200);
    let op = server.next_action().await;
    let InputKind::Op(Operation::TableResult(r)) = op.kind else {
        panic!("not a table result: {op:?}")
    };
    assert_eq!(
        (
            r.round,
            r.table,
            r.result.map(dgt_core::TableResult::as_str)
        ),
        (3, 4, Some("-+"))
    );
}

async fn start_server() -> TestServer {
    start(config()).await
}

/// Reading with the chief's token in its header (`?token=` is refused beyond `/ws`).
const BEARER: (&str, &str) = ("Authorization", "Bearer chief-secret");

#[tokio::test]
async fn boards_and_pgn_carry_the_players_and_unpaired_things_are_shown() {
    let server = start_server().await;
    let mut s = hall();
    server.send(&s.events);
    server.wait_seq(12).await;

    let (_, _, body) = request(server.addr, "GET", "/api/boards/b-2", &[BEARER], "").await;
    let b: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(b["pairing"]["round"], 3);
    assert_eq!(b["pairing"]["table"], 2);
    assert_eq!(b["pairing"]["white"]["name"], "de Vries, Pieter");
    assert_eq!(b["pairing"]["black"]["fide_id"], 1_000_002);

    let (_, _, body) = request(server.addr, "GET", "/api/rounds/3", &[BEARER], "").await;
    let r: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(r["tables_without_board"], json!([4]));
    assert_eq!(r["boards_without_pairing"], json!(["9"]));
    assert_eq!(r["tables"][0]["state"], "playing");
    assert_eq!(r["tables"][2]["state"], "not_started");
    assert_eq!(r["byes"][0]["code"], "U");

    let (_, _, pgn) = request(server.addr, "GET", "/api/games/1%2F1/pgn", &[BEARER], "").await;
    for tag in [
        "[Round \"3.1\"]",
        "[White \"Vermeer, Anna\"]",
        "[Black \"Jansen, Eva\"]",
        "[WhiteFideId \"1000001\"]",
        "[BlackFideId \"1000004\"]",
        "[WhiteElo \"2301\"]",
        "[BlackElo \"2105\"]",
        "[WhiteTitle \"WGM\"]",
        "[Event \"Zomeropen Testdorp 2025\"]",
        "[Date \"2025.07.05\"]",
    ] {
        assert!(pgn.contains(tag), "{tag} missing:\n{pgn}");
    }
    // The unpaired board's PGN is what it always was.
    let (_, _, pgn) = request(server.addr, "GET", "/api/games/9%2F1/pgn", &[BEARER], "").await;
    assert!(pgn.starts_with("[Event \"?\"]\n[Site \"?\"]\n[Date \"????.??.??\"]\n[Round \"?\"]\n[White \"?\"]\n[Black \"?\"]\n[Result \"*\"]\n[Board \"9\"]\n[GameId \"9/1\"]\n"), "{pgn}");

    // Results for the pairing program, the unfinished tables named.
    s.end("1", "1/1", "1/2-1/2", EndReason::Arbiter);
    forfeit_at_table_4(&mut s);
    server.send(&s.events[12..]);
    server.wait_seq(14).await;
    let (code, head, trf) = request(
        server.addr,
        "GET",
        "/api/rounds/3/results.trf",
        &[BEARER],
        "",
    )
    .await;
    assert_eq!(code, 200);
    assert_eq!(header(&head, "x-unfinished-tables"), Some("2,3"));
    let mut problems = dgt_pairings::Problems::default();
    let players = dgt_pairings::trf::players(&trf, &mut problems);
    let code_of = |s: u32| {
        players.iter().find(|p| p.start == s).unwrap().rounds[2]
            .unwrap()
            .result
    };
    assert_eq!(
        [code_of(1), code_of(4), code_of(9), code_of(7), code_of(3)],
        ['=', '=', '-', '+', ' ']
    );
    let (_, _, csv) = request(
        server.addr,
        "GET",
        "/api/rounds/3/results.csv",
        &[BEARER],
        "",
    )
    .await;
    assert!(
        csv.contains("1,\"Vermeer, Anna\",1000001,\"Jansen, Eva\",1000004,1/2-1/2,board,finished"),
        "{csv}"
    );
    assert!(csv.contains(",-+,arbiter,finished"), "{csv}");
}

use pgn::{parse, tag};

/// Waits until the public (delayed) view has released the event with this seq.
async fn wait_public(server: &TestServer, seq: u64) {
    for _ in 0..500 {
        let (_, _, body) = request(server.addr, "GET", "/api/public/games", &[], "").await;
        let games: Value = serde_json::from_str(&body).unwrap();
        let released = games.as_array().unwrap().iter().any(|g| {
            g["moves"]
                .as_array()
                .unwrap()
                .iter()
                .any(|m| m["fen"] == format!("fen-{seq}"))
        });
        if released {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("the public view never released event {seq}");
}

#[tokio::test]
async fn the_round_pgn_is_read_by_pgn_reader_and_polling_it_costs_a_304() {
    let server = start_server().await;
    let mut s = hall();
    server.send(&s.events);
    server.wait_seq(12).await;
    wait_public(&server, 12).await;
    // No token: it is public.
    let (code, head, pgn) = request(server.addr, "GET", "/public/round/3.pgn", &[], "").await;
    assert_eq!(code, 200);
    assert!(header(&head, "content-type").unwrap().contains("chess-pgn"));
    let etag = header(&head, "etag").unwrap().to_string();
    let modified = header(&head, "last-modified").unwrap().to_string();
    let games = parse(&pgn);
    assert_eq!(games.len(), 4, "one game per table:\n{pgn}");
    assert!(games.iter().all(|g| !g.illegal));
    assert_eq!(tag(&games[0], "Round"), Some("3.1"));
    assert_eq!(tag(&games[0], "White"), Some("Vermeer, Anna"));
    assert_eq!(games[0].sans, ["e4", "c5"]);
    assert_eq!(tag(&games[1], "Board"), Some("b-2"));
    assert_eq!(games[1].sans, ["d4"]);
    // Table 4 has no board: its pairing only.
    assert_eq!(tag(&games[3], "White"), Some("Dekker, Ilse"));
    assert!(games[3].sans.is_empty());
    assert_eq!(tag(&games[3], "Result"), Some("*"));

    // A poller with the ETag or the date gets 304 and no body.
    let (code, head, body) = request(
        server.addr,
        "GET",
        "/public/round/3.pgn",
        &[("If-None-Match", &etag)],
        "",
    )
    .await;
    assert_eq!((code, body.as_str()), (304, ""));
    assert_eq!(header(&head, "etag"), Some(etag.as_str()));
    let (code, _, _) = request(
        server.addr,
        "GET",
        "/public/round/3.pgn",
        &[("If-Modified-Since", &modified)],
        "",
    )
    .await;
    assert_eq!(code, 304);
    // A clock reading changes nothing in the PGN: still 304.
    s.push(
        "1",
        EventBody::Clock(dgt_core::event::ClockEvent {
            white_ms: Some(5_300_000),
            black_ms: Some(5_398_000),
            running: Some(Side::White),
            left_ms: 0,
            right_ms: 0,
            white_side: None,
        }),
    );
    server.send(&s.events[12..]);
    server.wait_seq(13).await;
    let (code, _, _) = request(
        server.addr,
        "GET",
        "/public/round/3.pgn",
        &[("If-None-Match", &etag)],
        "",
    )
    .await;
    assert_eq!(code, 304);
    // A move does.
    mv(&mut s, "1", "1/1", 3, "Nf3", 5_290_000);
    server.send(&s.events[13..]);
    wait_public(&server, 14).await;
    let (code, head, pgn) = request(
        server.addr,
        "GET",
        "/public/round/3.pgn",
        &[("If-None-Match", &etag)],
        "",
    )
    .await;
    assert_eq!(code, 200);
    assert_ne!(header(&head, "etag"), Some(etag.as_str()));
    assert_eq!(parse(&pgn)[0].sans, ["e4", "c5", "Nf3"]);
    let (code, _, _) = request(server.addr, "GET", "/public/round/7.pgn", &[], "").await;
    assert_eq!(code, 404);
}

#[tokio::test]
async fn the_round_pgn_keeps_the_public_delay() {
    let server = start(ServerConfig {
        public_delay_ms: 3_600_000,
        ..config()
    })
    .await;
    server.send(&hall().events);
    server.wait_seq(12).await;
    let (_, _, pgn) = request(server.addr, "GET", "/public/round/3.pgn", &[], "").await;
    let games = parse(&pgn);
    // The players are public before the round; no move is, for an hour.
    assert_eq!(tag(&games[0], "White"), Some("Vermeer, Anna"));
    assert!(games.iter().all(|g| g.sans.is_empty()), "{pgn}");
}

async fn lc_get(server: &TestServer, path: &str) -> (u16, Value) {
    let (code, _, body) = request(server.livechess.unwrap(), "GET", path, &[], "").await;
    (code, serde_json::from_str(&body).unwrap_or(Value::Null))
}

#[tokio::test]
async fn livechess_tournament_calls_as_broadcast_tools_make_them() {
    let server = start_server().await;
    let mut s = hall();
    s.push(
        "1",
        EventBody::Alert(Alert::new(
            AlertKind::BatteryLow,
            Severity::Info,
            "fide-2023",
            "The clock shows its battery-low indicator.".into(),
        )),
    );
    server.send(&s.events);
    server.wait_seq(13).await;

    let (code, list) = lc_get(&server, "/api/v1.0/tournaments").await;
    assert_eq!(code, 200);
    assert_eq!(list[0]["rounds"], 3);
    assert_eq!(list[0]["description"], "Zomeropen Testdorp 2025");
    let uuid = list[0]["uuid"].as_str().unwrap().to_string();
    assert_eq!(uuid.len(), 36);

    let (_, t) = lc_get(&server, &format!("/api/v1.0/tournament/{uuid}")).await;
    assert_eq!(t["uuid"], uuid);
    // Board n of the round is eboards[n-1]; table 4 has no board.
    assert_eq!(t["eboards"], json!(["13101", "13102", "13103", null]));

    let (_, r) = lc_get(&server, &format!("/api/v1.0/round/{uuid}/3")).await;
    assert_eq!(r["nr"], 3);
    assert_eq!(r["date"], "2025.07.05");
    let p = &r["pairings"][0];
    assert_eq!(p["nr"], 1);
    assert_eq!(p["white"]["lname"], "Vermeer");
    assert_eq!(p["white"]["fname"], "Anna");
    assert_eq!(p["white"]["title"], "WGM");
    assert_eq!(p["white"]["fideid"], 1_000_001);
    assert_eq!(p["live"], true);
    assert_eq!(p["result"], Value::Null);
    let (code, _) = lc_get(&server, "/api/v1.0/round/nope/3").await;
    assert_eq!(code, 404);

    let game = p["uuid"].as_str().unwrap().to_string();
    let (_, g) = lc_get(&server, &format!("/api/v1.0/game/{game}")).await;
    assert_eq!(g["moves"], json!(["e4 5399", "c5 5398"]));
    assert_eq!(g["chess960"], 518);
    assert_eq!(g["result"], Value::Null);

    // eboards: a board the round leaves out is INACTIVE; no battery level is made up.
    let (_, boards) = lc_get(&server, "/api/v1.0/eboards").await;
    let state = |serial: &str| {
        boards
            .as_array()
            .unwrap()
            .iter()
            .find(|b| b["serialnr"] == serial)
            .unwrap()
            .clone()
    };
    assert_eq!(state("13101")["state"], "ACTIVE");
    assert_eq!(state("13109")["state"], "INACTIVE");
    assert_eq!(state("13101")["battery"], Value::Null);

    // Results as LiveChess names them once the games end.
    s.end("1", "1/1", "0-1", EndReason::Arbiter);
    forfeit_at_table_4(&mut s);
    server.send(&s.events[13..]);
    server.wait_seq(15).await;
    let (_, r) = lc_get(&server, &format!("/api/v1.0/round/{uuid}/3")).await;
    assert_eq!(r["pairings"][0]["result"], "BLACKWIN");
    assert_eq!(r["pairings"][0]["live"], false);
    assert_eq!(r["pairings"][3]["result"], "WHITEFORFAIT");
}

#[tokio::test]
async fn a_livechess_setup_restarts_the_move_list_and_setup_flip_flips() {
    let mut server = start_server().await;
    let mut s = hall();
    server.send(&s.events);
    server.wait_seq(12).await;
    let mut ws = ws_connect(&format!("ws://{}/api/v1.0", server.livechess.unwrap())).await;
    ws_send(
        &mut ws,
        json!({"call": "subscribe", "id": 1, "param": {"feed": "eboardevent", "id": 5, "param": {"serialnr": "13101"}}}),
    )
    .await;
    let _ack = next_json(&mut ws).await;
    let initial = next_json(&mut ws).await;
    assert_eq!(initial["param"]["san"], json!(["e4", "c5"]));

    // lichess sends the online game's position: the list restarts there at once.
    let fen = "rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq c6 0 2";
    ws_send(
        &mut ws,
        json!({"id": 2, "call": "call", "param": {"id": 5, "method": "setup", "param": {"fen": fen}}}),
    )
    .await;
    let ack = next_json(&mut ws).await;
    assert_eq!(
        (ack["response"].as_str(), ack["id"].as_i64()),
        (Some("call"), Some(2))
    );
    let fed = next_json(&mut ws).await;
    assert_eq!(fed["param"]["start"], fen);
    assert_eq!(fed["param"]["san"], json!([]));
    let op = server.next_action().await;
    let InputKind::Op(Operation::Setup(setup)) = op.kind else {
        panic!("{op:?}")
    };
    assert_eq!(setup.fen.as_deref(), Some(fen));

    // A move of the old game changes nothing in the list; the new game's moves count.
    mv(&mut s, "1", "1/1", 3, "Nf3", 5_300_000);
    server.send(&s.events[12..]);
    let fed = next_json(&mut ws).await;
    assert_eq!(fed["param"]["san"], json!([]));
    s.start("1", "1/2", fen);
    mv(&mut s, "1", "1/2", 3, "Nf3", 5_300_000);
    server.send(&s.events[13..]);
    let fed = read_until(&mut ws, |v| v["param"]["san"] == json!(["Nf3"])).await;
    assert_eq!(fed.last().unwrap()["param"]["start"], fen);

    // The Go client's flip: method "setup" with {flip}.
    ws_send(
        &mut ws,
        json!({"id": 3, "call": "call", "param": {"id": 5, "method": "setup", "param": {"flip": true}}}),
    )
    .await;
    let ack = read_until(&mut ws, |v| v["response"] == "call").await;
    assert_eq!(ack.last().unwrap()["id"], 3);
    let op = server.next_action().await;
    let InputKind::Op(Operation::Setup(setup)) = op.kind else {
        panic!("{op:?}")
    };
    assert_eq!((setup.rotated, setup.fen), (Some(true), None));
}

/// The daemon's journal at its size cap (its `/health` says `cap: reached`).
struct FullJournal;

impl dgt_server::StatusSource for FullJournal {
    fn health(&self) -> Value {
        json!({ "ok": true, "journal": { "cap": "reached" } })
    }
    fn metrics(&self) -> String {
        String::new()
    }
}

#[tokio::test]
async fn a_new_round_is_refused_once_the_journal_reached_its_cap() {
    let server = dgt_server::Server::bind(config())
        .await
        .unwrap()
        .with_status(std::sync::Arc::new(FullJournal));
    let mut server = start_bound(server, Some(TOKEN.into()));
    let (token_name, token) = auth();
    let (code, _, body) = request(
        server.addr,
        "POST",
        "/api/rounds/3/pairings",
        &[(token_name, &token)],
        TRF,
    )
    .await;
    assert_eq!(code, 400, "{body}");
    assert!(body.contains("journal.max_size_mb"), "{body}");
    assert!(server.ops.try_recv().is_err(), "nothing forwarded");
}
