//! Accounts under attack: a flood of one account's sign-ins signs no one else out; signing
//! out or a session's expiry closes that session's open WebSockets (and only those);
//! guessing tokens is slowed per address, counted and answered 429; a floor arbiter's
//! `/health`, `/metrics` and round views hold her sections only.

mod common;

use std::net::SocketAddr;
use std::time::Duration;

use common::*;
use dgt_core::event::{BoardStatus, LinkState, Orientation};
use dgt_core::pairing::{Pairing, Player, ROUND_BOARD, RoundPairings};
use dgt_core::{Alert, AlertKind, Event, EventBody, Severity};
use dgt_server::ServerConfig;
use dgt_server::access::{Account, Role, Section};
use futures_util::StreamExt;
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

const CHIEF: &str = "chief-secret-0123456789";
const VIEWER: &str = "viewer-secret-0123456789";
const FLOOR: &str = "floor-secret-0123456789";

fn config() -> ServerConfig {
    ServerConfig {
        arbiter_token: Some(CHIEF.into()),
        viewer_token: Some(VIEWER.into()),
        sections: vec![
            Section {
                name: "top".into(),
                tables: (1..=40).collect(),
            },
            Section {
                name: "open".into(),
                tables: (41..=80).collect(),
            },
        ],
        arbiters: vec![Account {
            name: "Ana".into(),
            role: Role::Floor,
            token: FLOOR.into(),
            sections: vec!["open".into()],
        }],
        ..test_config()
    }
}

/// Signs in with `token`; the session cookie (`dgt_session=…`).
async fn sign_in(addr: SocketAddr, token: &str) -> String {
    let (status, head, body) = request(
        addr,
        "POST",
        "/api/session",
        &[("Content-Type", "application/json")],
        &json!({ "token": token }).to_string(),
    )
    .await;
    assert_eq!(status, 200, "{head}{body}");
    header(&head, "set-cookie")
        .unwrap()
        .split(';')
        .next()
        .unwrap()
        .to_string()
}

async fn who(addr: SocketAddr, cookie: &str) -> u16 {
    request(addr, "GET", "/api/session", &[("Cookie", cookie)], "")
        .await
        .0
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_of_viewer_sign_ins_signs_no_one_else_out() {
    let server = start(config()).await;
    let chief = sign_in(server.addr, CHIEF).await;
    let first_viewer = sign_in(server.addr, VIEWER).await;
    let started = std::time::Instant::now();
    let mut tasks = Vec::new();
    for _ in 0..4 {
        let addr = server.addr;
        tasks.push(tokio::spawn(async move {
            for _ in 0..250 {
                sign_in(addr, VIEWER).await;
            }
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
    println!(
        "accounts: 1,000 viewer sign-ins in {} ms",
        started.elapsed().as_millis()
    );
    assert_eq!(
        who(server.addr, &chief).await,
        200,
        "the chief stays signed in"
    );
    assert_eq!(
        who(server.addr, &first_viewer).await,
        401,
        "the viewer account's oldest session made room"
    );
}

type Ws =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

async fn ws_with_cookie(addr: SocketAddr, cookie: &str) -> Ws {
    let mut request = format!("ws://{addr}/ws").into_client_request().unwrap();
    request
        .headers_mut()
        .insert("Cookie", cookie.parse().unwrap());
    let (mut ws, _) = tokio_tungstenite::connect_async(request).await.unwrap();
    assert_eq!(next_json(&mut ws).await["type"], "snapshot");
    ws
}

/// The close code the server ends the socket with, if it does within `within`.
async fn closed_with(ws: &mut Ws, within: Duration) -> Option<u16> {
    tokio::time::timeout(within, async {
        loop {
            match ws.next().await {
                Some(Ok(Message::Close(frame))) => return frame.map(|f| u16::from(f.code)),
                None | Some(Err(_)) => return None,
                Some(Ok(_)) => {}
            }
        }
    })
    .await
    .ok()
    .flatten()
}

#[tokio::test]
async fn signing_out_closes_that_sessions_websockets_and_only_those() {
    let server = start(config()).await;
    let leaving = sign_in(server.addr, CHIEF).await;
    let staying = sign_in(server.addr, CHIEF).await;
    let mut gone = ws_with_cookie(server.addr, &leaving).await;
    let mut kept = ws_with_cookie(server.addr, &staying).await;
    let (status, _, _) = request(
        server.addr,
        "DELETE",
        "/api/session",
        &[("Cookie", &leaving)],
        "",
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(
        closed_with(&mut gone, Duration::from_secs(3)).await,
        Some(4401)
    );
    assert_eq!(
        closed_with(&mut kept, Duration::from_millis(500)).await,
        None,
        "another session's socket stays open"
    );
    server.send(&[Event::new(1, "41", 1000, status_body())]);
    let got = read_until(&mut kept, |v| v["seq"] == 1).await;
    assert!(!got.is_empty());
}

#[tokio::test]
async fn an_expired_session_closes_its_websockets() {
    let server = start(ServerConfig {
        session_idle_ms: 600,
        ..config()
    })
    .await;
    let cookie = sign_in(server.addr, CHIEF).await;
    let mut ws = ws_with_cookie(server.addr, &cookie).await;
    assert_eq!(
        closed_with(&mut ws, Duration::from_secs(5)).await,
        Some(4401)
    );
    assert_eq!(who(server.addr, &cookie).await, 401);
}

/// One request from another machine (127.0.0.2); the status and the head.
async fn from_other_machine(addr: SocketAddr, head: &str) -> (u16, String) {
    let (line, rest) = head.split_once("\r\n").unwrap_or((head, ""));
    let head = if rest.is_empty() {
        format!("{line}\r\nHost: {addr}")
    } else {
        format!("{line}\r\nHost: {addr}\r\n{rest}")
    };
    raw_request(addr, true, &head).await
}

#[tokio::test]
async fn guessing_tokens_is_slowed_per_address_and_counted() {
    let server = start(config()).await;
    let started = std::time::Instant::now();
    let mut statuses = Vec::new();
    for i in 0..200 {
        let (status, head) = from_other_machine(
            server.addr,
            &format!("GET /api/alerts HTTP/1.1\r\nAuthorization: Bearer guess-{i:04}"),
        )
        .await;
        if status == 429 {
            assert!(header(&head, "retry-after").is_some(), "{head}");
        }
        statuses.push(status);
    }
    let answered = statuses.iter().filter(|&&s| s == 401).count();
    println!(
        "accounts: 200 wrong tokens from one address in {} ms: {answered} looked at, the rest 429",
        started.elapsed().as_millis()
    );
    assert!(
        answered <= 12,
        "{answered} wrong tokens looked at: {statuses:?}"
    );
    assert_eq!(statuses.last(), Some(&429));
    // While it waits, even the right token from that address is not looked at…
    let (status, _) = from_other_machine(
        server.addr,
        &format!("GET /api/alerts HTTP/1.1\r\nAuthorization: Bearer {CHIEF}"),
    )
    .await;
    assert_eq!(status, 429);
    // …and a sign-in from it neither; another machine is not slowed at all.
    let (status, _) = from_other_machine(
        server.addr,
        "POST /api/session HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: 0",
    )
    .await;
    assert_eq!(status, 429);
    let bearer = format!("Bearer {CHIEF}");
    let (status, metrics) = http(
        server.addr,
        "GET",
        "/metrics",
        &[("Authorization", &bearer)],
        "",
    )
    .await;
    assert_eq!(status, 200);
    let value = |name: &str| -> u64 {
        metrics
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or_else(|| panic!("{name} not in {metrics}"))
    };
    assert_eq!(value("dgt_auth_failures_total "), answered as u64);
    assert!(value("dgt_refused_total{reason=\"auth_throttled\"} ") >= 190);
}

fn status_body() -> EventBody {
    EventBody::BoardStatus(BoardStatus {
        state: LinkState::Identified,
        serial: Some("1".into()),
        version: None,
        orientation: Orientation::Normal,
        port: None,
        clock_version: None,
    })
}

fn pair(table: u32) -> Pairing {
    let player = |name: String| Player {
        name,
        ..Player::default()
    };
    Pairing {
        table,
        white: player(format!("White {table}")),
        black: player(format!("Black {table}")),
    }
}

#[tokio::test]
async fn a_floor_arbiter_sees_only_her_sections_in_health_metrics_and_round_views() {
    let server = start(config()).await;
    let mut alert = Alert::new(
        AlertKind::BatteryLow,
        Severity::Info,
        "fide-2023",
        "The clock shows its battery-low indicator.".into(),
    );
    alert.id = 1;
    server.send(&[
        Event::new(1, "1", 1000, status_body()),
        Event::new(2, "41", 1000, status_body()),
        Event::new(3, "2", 1000, status_body()),
        Event::new(4, "1", 2000, EventBody::Alert(alert)),
        Event::new(
            5,
            ROUND_BOARD,
            3000,
            EventBody::Pairings(RoundPairings {
                round: 1,
                tables: vec![pair(1), pair(41), pair(42)],
                format: Some("csv".into()),
                ..RoundPairings::default()
            }),
        ),
    ]);
    server.wait_seq(5).await;
    let get = |path: &'static str, token: &'static str| {
        let addr = server.addr;
        async move {
            let bearer = format!("Bearer {token}");
            http(addr, "GET", path, &[("Authorization", &bearer)], "").await
        }
    };

    let (_, chief) = get("/health", CHIEF).await;
    let chief: Value = serde_json::from_str(&chief).unwrap();
    assert_eq!(
        (chief["boards"].as_u64(), chief["open_alerts"].as_u64()),
        (Some(3), Some(1))
    );
    let (_, ana) = get("/health", FLOOR).await;
    let ana: Value = serde_json::from_str(&ana).unwrap();
    assert_eq!(ana["boards"], 1, "{ana}");
    assert_eq!(ana["boards_connected"], 1, "{ana}");
    assert_eq!(ana["open_alerts"], 0, "{ana}");

    let (_, metrics) = get("/metrics", FLOOR).await;
    assert!(metrics.contains("dgt_boards_known 1\n"), "{metrics}");
    assert!(metrics.contains("dgt_alerts_open 0\n"), "{metrics}");
    assert!(!metrics.contains("dgt_events_total"), "{metrics}");
    assert!(!metrics.contains("dgt_alerts_total"), "{metrics}");
    let (_, metrics) = get("/metrics", CHIEF).await;
    assert!(metrics.contains("dgt_boards_known 3\n"), "{metrics}");

    let (status, round) = get("/api/rounds/1", FLOOR).await;
    assert_eq!(status, 200, "{round}");
    let round: Value = serde_json::from_str(&round).unwrap();
    let tables: Vec<u64> = round["tables"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["table"].as_u64().unwrap())
        .collect();
    assert_eq!(tables, [41, 42], "{round}");
    assert!(
        round["boards_without_pairing"]
            .as_array()
            .unwrap()
            .iter()
            .all(|b| b != "2"),
        "{round}"
    );
    let (status, csv) = get("/api/rounds/1/results.csv", FLOOR).await;
    assert_eq!(status, 200);
    assert_eq!(csv.lines().count(), 3, "a header and tables 41, 42: {csv}");
    assert!(!csv.contains("White 1,"), "{csv}");
    let (status, _) = get("/api/rounds/1/results.trf", FLOOR).await;
    assert_eq!(status, 403);
}

/// A hub's own state, as far as the server is concerned: two nodes and their boards.
struct Hub;

impl dgt_server::StatusSource for Hub {
    fn health(&self) -> Value {
        json!({ "ok": true, "nodes": 2 })
    }

    fn metrics(&self) -> String {
        "dgt_hub_nodes 2\n".into()
    }

    fn nodes(&self) -> Option<Value> {
        Some(json!([
            { "node": "left", "boards": 2, "board_labels": ["1", "41"] },
            { "node": "right", "boards": 2, "board_labels": ["2", "42"] },
        ]))
    }
}

#[tokio::test]
async fn on_a_hub_a_floor_arbiter_sees_her_boards_of_each_node_and_not_the_hubs_state() {
    let server = dgt_server::Server::bind(config())
        .await
        .unwrap()
        .with_status(std::sync::Arc::new(Hub));
    let server = start_bound(server, Some(CHIEF.into()));
    let get = |path: &'static str, token: &'static str| {
        let addr = server.addr;
        async move {
            let bearer = format!("Bearer {token}");
            http(addr, "GET", path, &[("Authorization", &bearer)], "").await
        }
    };
    let (status, nodes) = get("/api/nodes", FLOOR).await;
    assert_eq!(status, 200, "{nodes}");
    let nodes: Value = serde_json::from_str(&nodes).unwrap();
    assert_eq!(nodes[0]["board_labels"], json!(["41"]), "{nodes}");
    assert_eq!(nodes[1]["board_labels"], json!(["42"]), "{nodes}");
    assert_eq!(nodes[1]["boards"], 1, "{nodes}");
    let (_, nodes) = get("/api/nodes", CHIEF).await;
    let nodes: Value = serde_json::from_str(&nodes).unwrap();
    assert_eq!(nodes[0]["board_labels"], json!(["1", "41"]));
    let (_, health) = get("/health", FLOOR).await;
    assert!(!health.contains("daemon"), "{health}");
    let (_, metrics) = get("/metrics", FLOOR).await;
    assert!(!metrics.contains("dgt_hub_nodes"), "{metrics}");
    let (_, metrics) = get("/metrics", CHIEF).await;
    assert!(metrics.contains("dgt_hub_nodes 2"), "{metrics}");
}

/// Previews on a hub: a floor arbiter shown part of the hall gets her boards' previews only,
/// and every numbered event of her boards whole (which boards she is shown may change
/// between a preview and its number).
#[tokio::test]
async fn a_floor_arbiter_gets_her_boards_previews_only_and_their_events_whole() {
    let server = start(config()).await;
    server.send(&[Event::new(1, "41", 1000, status_body())]);
    server.wait_seq(1).await;
    let url = format!("ws://{}/ws?preview=1&since=1&token={FLOOR}", server.addr);
    let mut ws = dgt_testkit::ws::ws_connect(&url).await;
    let mine = of_node(Event::new(2, "41", 2000, status_body()), 10);
    let other = of_node(Event::new(3, "1", 2000, status_body()), 11);
    server.previews.send(&[mine.clone(), other.clone()]);
    let got = next_json(&mut ws).await;
    assert_eq!(got["type"], "preview");
    let boards: Vec<&Value> = got["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| &e["board"])
        .collect();
    assert_eq!(boards, [&json!("41")]);
    server.send(&[mine.clone(), other]);
    let whole: Value = serde_json::from_str(&mine.to_json()).unwrap();
    assert_eq!(next_json(&mut ws).await, whole);
}
