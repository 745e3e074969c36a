//! A round played the way venues play it, through the server: pairings imported while
//! boards play, games ended by mate, by a result gesture and by a stopped clock, pieces set
//! up again and played on, an unpaired board, a forfeit and arbiter results, a restart,
//! the next round imported. After each step the round's REST answer, results.csv,
//! results.trf and the public round PGN (read by pgn-reader) say exactly what was played.

mod common;
#[path = "common/pgn.rs"]
mod pgn;

use std::io::Read;
use std::time::Duration;

use common::*;
use dgt_core::event::EndReason;
use dgt_core::event_script::EventScript;
use dgt_core::pairing::{ROUND_BOARD, RoundPairings};
use dgt_core::{Alert, AlertKind, EventBody, InputKind, Operation, Severity};
use dgt_pairings::{BoardOrder, TableMap};
use dgt_server::ServerConfig;
use pgn::Game;
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const TRF: &str = include_str!("../../dgt-pairings/tests/samples/zomeropen-r3.trf");
const TOKEN: &str = "chief-secret";
const BEARER: (&str, &str) = ("Authorization", "Bearer chief-secret");
const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

fn config() -> ServerConfig {
    ServerConfig {
        arbiter_token: Some(TOKEN.into()),
        event: "Zomeropen".into(),
        time_control: Some("5400+30".into()),
        // Table 2's board is "b-2"; table 4 has none; board "9" is not paired.
        tables: TableMap::new([(2, "b-2".to_string())]),
        ..test_config()
    }
}

/// The hall's events: an [`EventScript`] with what a board's link and moves add.
trait Hall {
    fn status(&mut self, board: &str);
    /// Plays `sans` from ply `from` on (the SAN is what pgn-reader checks).
    fn play(&mut self, board: &str, game: &str, from: u32, sans: &[&str]);
}

impl Hall for EventScript {
    fn status(&mut self, board: &str) {
        self.push(board, identified_status(board));
    }

    fn play(&mut self, board: &str, game: &str, from: u32, sans: &[&str]) {
        for (i, san) in sans.iter().enumerate() {
            let ply = from + i as u32;
            let seq = self.seq() + 1;
            let clock = Some(5_400_000 - u64::from(ply) * 1000);
            self.ply(board, game, ply, san, format!("fen-{seq}"), (clock, clock));
        }
    }
}

fn round3() -> RoundPairings {
    dgt_pairings::read(TRF, 3, BoardOrder::WhiteLine).unwrap()
}

fn round4() -> RoundPairings {
    common::pairings(
        4,
        &[
            ("Jansen, Eva", "Dekker, Ilse"),
            ("Vermeer, Anna", "Visser, Kees"),
        ],
    )
}

/// Every game of a PGN, none with an illegal move.
fn parse(pgn: &str) -> Vec<Game> {
    let games = pgn::parse(pgn);
    assert!(
        games.iter().all(|g| !g.illegal),
        "an illegal move in {games:?}"
    );
    games
}

fn tag<'a>(g: &'a Game, name: &str) -> &'a str {
    pgn::tag(g, name).unwrap_or_default()
}

async fn get(server: &TestServer, path: &str) -> (u16, String, String) {
    request(server.addr, "GET", path, &[BEARER], "").await
}

async fn round_json(server: &TestServer, round: u32) -> Value {
    let (code, _, body) = get(server, &format!("/api/rounds/{round}")).await;
    assert_eq!(code, 200, "{body}");
    serde_json::from_str(&body).unwrap()
}

/// (game, result, state, confirmed) of each table.
fn tables(r: &Value) -> Vec<(String, String, String, bool)> {
    r["tables"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["game"].as_str().unwrap_or("-").to_string(),
                t["result"].as_str().unwrap_or("-").to_string(),
                t["state"].as_str().unwrap().to_string(),
                t["confirmed"].as_bool().unwrap(),
            )
        })
        .collect()
}

fn row(game: &str, result: &str, state: &str, confirmed: bool) -> (String, String, String, bool) {
    (game.into(), result.into(), state.into(), confirmed)
}

/// The public round PGN once `ready` holds for its games (the public view releases events
/// on its own task).
async fn round_pgn(server: &TestServer, round: u32, ready: impl Fn(&[Game]) -> bool) -> Vec<Game> {
    let mut last = String::new();
    for _ in 0..300 {
        let (code, _, body) = request(
            server.addr,
            "GET",
            &format!("/public/round/{round}.pgn"),
            &[],
            "",
        )
        .await;
        assert_eq!(code, 200);
        let games = parse(&body);
        if ready(&games) {
            return games;
        }
        last = body;
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("the round PGN never got there:\n{last}");
}

/// The TRF result code of each start number in round 3.
fn trf_codes(trf: &str, starts: &[u32]) -> Vec<char> {
    let mut problems = dgt_pairings::Problems::default();
    let players = dgt_pairings::trf::players(trf, &mut problems);
    starts
        .iter()
        .map(|s| {
            players.iter().find(|p| p.start == *s).unwrap().rounds[2]
                .unwrap()
                .result
        })
        .collect()
}

/// Takes the table action the server forwarded and passes it back as the core does: the
/// action's event, then who took it.
async fn echo(server: &mut TestServer, script: &mut EventScript) {
    let op = server.ops.recv().await.unwrap();
    let body = match op.kind {
        InputKind::Op(Operation::TableResult(r)) => EventBody::TableResult(r),
        InputKind::Op(Operation::TableGame(g)) => EventBody::TableGame(g),
        other => panic!("not a table action: {other:?}"),
    };
    server.send(&[script.push(ROUND_BOARD, body).clone()]);
    let by = server.ops.recv().await.unwrap();
    let InputKind::Op(Operation::By(by)) = by.kind else {
        panic!("who took it is missing: {by:?}");
    };
    server.send(&[script
        .push(ROUND_BOARD, EventBody::ArbiterAction(by))
        .clone()]);
    server.wait_seq(script.seq()).await;
}

async fn enter(server: &TestServer, table: u32, body: &str) -> (u16, Value) {
    enter_in(server, 3, table, body).await
}

async fn enter_in(server: &TestServer, round: u32, table: u32, body: &str) -> (u16, Value) {
    let (code, _, text) = request(
        server.addr,
        "POST",
        &format!("/api/rounds/{round}/tables/{table}/result"),
        &[BEARER, ("Content-Type", "application/json")],
        body,
    )
    .await;
    (code, serde_json::from_str(&text).unwrap_or(Value::Null))
}

/// The raw bytes of a response body, asking for gzip.
async fn get_gzip(server: &TestServer, path: &str) -> (String, Vec<u8>) {
    let mut s = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    let req = format!(
        "GET {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\nAccept-Encoding: br;q=1.0, gzip;q=0.8\r\n\r\n",
        server.addr
    );
    s.write_all(req.as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).await.unwrap();
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    let head = String::from_utf8_lossy(&raw[..split]).to_string();
    (head, raw[split + 4..].to_vec())
}

#[tokio::test]
async fn a_round_keeps_each_tables_game_and_result_through_play_after_it_and_a_restart() {
    let mut server = start(config()).await;
    let mut s = EventScript::new(1000);
    for b in ["1", "b-2", "3", "9"] {
        s.status(b);
    }
    // Board 1 plays before the pairings are in.
    s.start("1", "1/1", START);
    s.play("1", "1/1", 1, &["e4", "c5"]);
    s.push(ROUND_BOARD, EventBody::Pairings(round3()));
    s.start("b-2", "b-2/1", START);
    s.play("b-2", "b-2/1", 1, &["d4", "d5", "c4"]);
    s.start("3", "3/1", START);
    s.start("9", "9/1", START);
    s.play("9", "9/1", 1, &["Nf3"]);
    server.send(&s.events);
    server.wait_seq(s.seq()).await;
    let r = round_json(&server, 3).await;
    assert_eq!(
        tables(&r),
        [
            row("1/1", "-", "playing", false),
            row("b-2/1", "-", "playing", false),
            row("3/1", "-", "playing", false),
            row("-", "-", "no_board", false),
        ]
    );
    assert_eq!(r["boards_without_pairing"], serde_json::json!(["9"]));

    // Table 3: a mate, then the pieces set up again and played on. Table 2: a draw shown
    // with the kings, then skittles. Table 1: the clock stopped (a resignation) and a new
    // game set up.
    let from = s.seq();
    s.play(
        "3",
        "3/1",
        1,
        &["e4", "e5", "Bc4", "Nc6", "Qh5", "Nf6", "Qxf7#"],
    );
    s.end("3", "3/1", "1-0", EndReason::Checkmate);
    s.start("3", "3/2", START);
    s.play("3", "3/2", 1, &["e4", "e5", "Nf3"]);
    s.end("b-2", "b-2/1", "1/2-1/2", EndReason::ResultGesture);
    s.start("b-2", "b-2/2", START);
    s.play("b-2", "b-2/2", 1, &["g4", "e5", "f3", "Qh4#"]);
    s.end("b-2", "b-2/2", "0-1", EndReason::Checkmate);
    s.play("1", "1/1", 3, &["Nf3"]);
    s.clock_stopped("1", "1/1");
    s.start("1", "1/2", START);
    s.play("1", "1/2", 1, &["d4"]);
    s.play("9", "9/1", 2, &["d5"]);
    server.send(&s.events[from as usize..]);
    server.wait_seq(s.seq()).await;
    let r = round_json(&server, 3).await;
    let expected = [
        row("1/1", "-", "result_owed", false),
        row("b-2/1", "1/2-1/2", "finished", false),
        row("3/1", "1-0", "finished", true),
        row("-", "-", "no_board", false),
    ];
    assert_eq!(tables(&r), expected);
    assert_eq!(r["tables"][1]["source"], "gesture");
    assert_eq!(r["tables"][2]["plies"], 7);
    assert_eq!(r["unconfirmed"], serde_json::json!([2]));
    assert_eq!(r["unfinished"], serde_json::json!([1, 4]));

    // The board page: table 3's board plays after its round game, which it names.
    let (_, _, body) = get(&server, "/api/boards/3").await;
    let b: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(b["after_game"], true);
    assert_eq!(b["round_game"]["game"], "3/1");
    assert_eq!(b["round_game"]["result"], "1-0");
    assert_eq!(b["pairing"]["table"], 3);

    let games = round_pgn(&server, 3, |g| g.len() == 4 && g[2].sans.len() == 7).await;
    assert_eq!(games[0].sans, ["e4", "c5", "Nf3"]);
    assert_eq!(tag(&games[0], "Result"), "*");
    assert_eq!(
        games[1].sans,
        ["d4", "d5", "c4"],
        "never the skittles after it"
    );
    assert_eq!(tag(&games[1], "Result"), "1/2-1/2");
    assert_eq!(
        games[2].sans,
        ["e4", "e5", "Bc4", "Nc6", "Qh5", "Nf6", "Qxf7#"]
    );
    assert_eq!(tag(&games[2], "Result"), "1-0");
    assert_eq!(games[2].outcome.as_deref(), Some("1-0"));
    assert!(games[3].sans.is_empty());
    assert!(
        games
            .iter()
            .all(|g| tag(g, "Event") == "Zomeropen Testdorp 2025"
                && tag(g, "TimeControl") == "5400+30"),
        "{games:?}"
    );
    assert!(
        games.iter().all(|g| tag(g, "White") != "?"),
        "the unpaired board is not in the round: {games:?}"
    );

    // gzip when asked, the same PGN.
    let (head, bytes) = get_gzip(&server, "/public/round/3.pgn").await;
    assert_eq!(header(&head, "content-encoding"), Some("gzip"), "{head}");
    let mut text = String::new();
    flate2::read::GzDecoder::new(&bytes[..])
        .read_to_string(&mut text)
        .unwrap();
    assert_eq!(parse(&text), games);

    // Results: table 1's resignation entered, table 2's gesture confirmed in one click, a
    // forfeit on table 4, and a forfeit typed on table 3 (whose game was played) asked
    // again before it counts.
    let (code, _) = enter(&server, 1, r#"{"result": "0-1"}"#).await;
    assert_eq!(code, 200);
    echo(&mut server, &mut s).await;
    let (code, _) = enter(&server, 2, r#"{"result": "1/2-1/2"}"#).await;
    assert_eq!(code, 200);
    echo(&mut server, &mut s).await;
    let (code, _) = enter(&server, 4, r#"{"result": "+-"}"#).await;
    assert_eq!(code, 200);
    echo(&mut server, &mut s).await;
    let (code, v) = enter(&server, 3, r#"{"result": "-+"}"#).await;
    assert_eq!(code, 409, "{v}");
    // The arbiter reads why the entry is asked again.
    assert_eq!(
        v["error"],
        r#"table 3 of round 3: its game has 4 move(s), and -+ is a forfeit; is it the right table? Send it again with "confirm": true to enter it"#,
        "{v}"
    );
    assert!(server.ops.try_recv().is_err(), "nothing forwarded");
    let (code, v) = enter(&server, 3, r#"{"result": "+-", "confirm": true}"#).await;
    assert_eq!(code, 200, "{v}");
    echo(&mut server, &mut s).await;

    let r = round_json(&server, 3).await;
    let entered = [
        row("1/1", "0-1", "finished", true),
        row("b-2/1", "1/2-1/2", "finished", true),
        row("3/1", "+-", "finished", true),
        row("-", "+-", "finished", true),
    ];
    assert_eq!(tables(&r), entered);
    assert_eq!(r["tables"][1]["by"], "arbiter");
    assert_eq!(r["unfinished"], serde_json::json!([]));
    let (code, head, trf) = get(&server, "/api/rounds/3/results.trf").await;
    assert_eq!(code, 200);
    assert_eq!(header(&head, "x-unfinished-tables"), Some(""));
    assert_eq!(
        trf_codes(&trf, &[1, 4, 3, 2, 5, 8, 9, 7]),
        ['0', '1', '=', '=', '+', '-', '+', '-']
    );
    let (_, _, csv) = get(&server, "/api/rounds/3/results.csv").await;
    assert!(
        csv.contains(
            "2,\"de Vries, Pieter\",1000003,\"Bakker, Jan\",1000002,1/2-1/2,arbiter,finished,yes,arbiter"
        ),
        "{csv}"
    );
    let games = round_pgn(&server, 3, |g| tag(&g[3], "Result") == "1-0").await;
    assert_eq!(
        games.iter().map(|g| tag(g, "Result")).collect::<Vec<_>>(),
        ["0-1", "1/2-1/2", "1-0", "1-0"],
        "the table record's result, forfeits included"
    );
    assert!(
        games[3].sans.is_empty(),
        "a forfeit is a game with no moves"
    );
    assert_eq!(games[1].sans, ["d4", "d5", "c4"]);

    // A restart: a new server fed the same events has the same round.
    let before = round_json(&server, 3).await;
    let (_, _, pgn_before) = request(server.addr, "GET", "/public/round/3.pgn", &[], "").await;
    let restarted = start(config()).await;
    restarted.send(&s.events);
    restarted.wait_seq(s.seq()).await;
    assert_eq!(round_json(&restarted, 3).await["tables"], before["tables"]);
    let again = round_pgn(&restarted, 3, |g| tag(&g[3], "Result") == "1-0").await;
    assert_eq!(again, parse(&pgn_before));

    // Round 4: what is on the boards now was played after round 3's games; left off when
    // the board is set up for round 4, it gives way to the game started then.
    let from = s.seq();
    s.push(ROUND_BOARD, EventBody::Pairings(round4()));
    s.start("1", "1/3", START);
    s.play("1", "1/3", 1, &["c4"]);
    server.send(&s.events[from as usize..]);
    server.wait_seq(s.seq()).await;
    let r4 = round_json(&server, 4).await;
    assert_eq!(
        tables(&r4),
        [
            row("1/3", "-", "playing", false),
            row("-", "-", "not_started", false),
        ]
    );
    assert_eq!(
        tables(&round_json(&server, 3).await),
        entered,
        "round 3 stays"
    );
    // A result typed for a table whose game is still being played is usually meant for
    // another table: asked again, nothing applied.
    let (code, v) = enter_in(&server, 4, 1, r#"{"result": "1-0"}"#).await;
    assert_eq!(code, 409, "{v}");
    // The arbiter reads why the entry is asked again.
    assert_eq!(
        v["error"],
        r#"table 1 of round 4: its game is still being played (1 move(s), its clock not stopped); is it the right table? Send it again with "confirm": true to enter it"#,
        "{v}"
    );
    assert!(server.ops.try_recv().is_err(), "nothing forwarded");
    let games = round_pgn(&server, 4, |g| g.len() == 2 && g[0].sans.len() == 1).await;
    assert_eq!(games[0].sans, ["c4"]);
    assert_eq!(tag(&games[0], "Round"), "4.1");
    assert!(games[1].sans.is_empty());
}

#[tokio::test]
async fn the_replay_of_a_game_end_opens_on_that_game_though_the_next_one_starts_in_the_window() {
    let server = start(config()).await;
    // Five seconds between events: the replay window (20 s before the alert) opens in the
    // middle of the game.
    let mut s = EventScript::new(5000);
    s.status("3");
    s.start("3", "3/1", START);
    s.play("3", "3/1", 1, &["e4", "e5", "Bc4", "Nc6", "Qh5", "Nf6"]);
    let mut mate = Alert::new(
        AlertKind::Checkmate,
        Severity::Info,
        "5.1.1",
        "Checkmate.".into(),
    );
    s.play("3", "3/1", 7, &["Qxf7#"]);
    mate.id = s.seq() + 1;
    mate.game = Some("3/1".into());
    s.push("3", EventBody::Alert(mate));
    s.end("3", "3/1", "1-0", EndReason::Checkmate);
    // The pieces set up again ten seconds after the mate.
    s.start("3", "3/2", START);
    server.send(&s.events);
    server.wait_seq(s.seq()).await;
    let id = s.seq() - 2;
    let (code, _, body) = get(&server, &format!("/api/boards/3/replay?alert={id}")).await;
    assert_eq!(code, 200, "{body}");
    let v: Value = serde_json::from_str(&body).unwrap();
    // The window opens 20 s before the alert, after White's third move of the mated game.
    assert_eq!(v["start"]["fen"], "fen-5", "not the next game's start: {v}");
    assert_eq!(v["start"]["white_ms"], 5_397_000, "with the clocks: {v}");
}

#[tokio::test]
async fn an_incident_report_shows_the_position_before_the_move_and_after_it() {
    let server = start(config()).await;
    let mut s = EventScript::new(1000);
    s.status("1");
    s.start("1", "1/1", START);
    s.play("1", "1/1", 1, &["e4", "e5", "Nf3"]);
    // An alert about the last move (its position), and one after it with none.
    let mut touch = Alert::new(AlertKind::TouchMove, Severity::Review, "4.3", "m".into());
    touch.id = s.seq() + 1;
    touch.game = Some("1/1".into());
    touch.fen = Some("fen-5".into());
    s.push("1", EventBody::Alert(touch));
    s.clock_stopped("1", "1/1");
    server.send(&s.events);
    server.wait_seq(s.seq()).await;
    let report = |id: u64| {
        let server = &server;
        async move {
            let (code, _, body) = get(server, &format!("/api/alerts/{id}/report")).await;
            assert_eq!(code, 200, "{body}");
            serde_json::from_str::<Value>(&body).unwrap()
        }
    };
    let r = report(s.seq() - 1).await;
    assert_eq!(
        (r["position_before"].as_str(), r["position_after"].as_str()),
        (Some("fen-4"), Some("fen-5"))
    );
    // What the printed report is written under.
    assert_eq!(
        (r["event"].as_str(), r["time_control"].as_str()),
        (Some("Zomeropen"), Some("5400+30"))
    );
    // After the last move: the position it left and the one before it.
    let r = report(s.seq()).await;
    assert_eq!(
        (r["position_before"].as_str(), r["position_after"].as_str()),
        (Some("fen-4"), Some("fen-5")),
        "{r}"
    );
}
