//! What a hostile venue LAN or a web page can no longer do to the server: DNS rebinding
//! (a foreign `Host`), pages from other sites on the LiveChess port, `/health` telling
//! players about claims, connection floods, slow headers, huge WebSocket messages, too many
//! spectators and LiveChess subscriptions.

mod common;

use std::net::SocketAddr;
use std::time::Duration;

use common::*;
use dgt_server::ServerConfig;
use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

async fn raw(addr: SocketAddr, head: &str) -> (u16, String) {
    raw_request(addr, false, head).await
}

#[tokio::test]
async fn a_rebound_host_name_is_refused_and_ip_literals_localhost_and_listed_names_pass() {
    let server = start(ServerConfig {
        allowed_hosts: vec!["arbiter.local".into()],
        livechess_listen: Some(loopback()),
        ..test_config()
    })
    .await;
    let lc = server.livechess.unwrap();
    // The page of evil.example, its name re-pointed at 127.0.0.1: same "origin" as the Host.
    let (status, body) = raw(
        server.addr,
        "POST /api/alerts/1/ack HTTP/1.1\r\nHost: evil.example:1983\r\n\
         Origin: http://evil.example:1983\r\nContent-Length: 0",
    )
    .await;
    assert_eq!(status, 421, "{body}");
    assert!(body.contains("server.allowed_hosts"), "{body}");
    let (status, _) = raw(
        server.addr,
        "GET /api/boards HTTP/1.1\r\nHost: evil.example:1983",
    )
    .await;
    assert_eq!(status, 421);
    let (status, _) = raw(
        lc,
        "GET /api/v1.0/eboards HTTP/1.1\r\nHost: evil.example:1982",
    )
    .await;
    assert_eq!(status, 421, "the LiveChess port has the same rule");
    for host in [
        "127.0.0.1:1983",
        "localhost:1983",
        "arbiter.local",
        "[::1]:1983",
    ] {
        let (status, body) = raw(
            server.addr,
            &format!("GET /api/boards HTTP/1.1\r\nHost: {host}"),
        )
        .await;
        assert_eq!(status, 200, "{host}: {body}");
    }
    let (_, metrics) = http(server.addr, "GET", "/metrics", &[], "").await;
    assert!(
        metrics.contains("dgt_refused_total{reason=\"foreign_host\"} 3"),
        "{metrics}"
    );
}

#[tokio::test]
async fn livechess_pages_read_only_from_listed_origins_and_never_get_a_wildcard() {
    let events = capture_events();
    let mut server = start(ServerConfig {
        livechess_listen: Some(loopback()),
        ..test_config()
    })
    .await;
    let lc = server.livechess.unwrap();
    server.send(&events[..40]);
    server.wait_seq(events[39].seq).await;

    // REST: a page from another site is refused; lichess (the default) gets its own origin
    // back, never `*`; a program without an Origin reads without CORS headers.
    let (status, _) = raw(
        lc,
        &format!("GET /api/v1.0/eboards HTTP/1.1\r\nHost: {lc}\r\nOrigin: https://evil.example"),
    )
    .await;
    assert_eq!(status, 403);
    let (status, text) = raw(
        lc,
        &format!("GET /api/v1.0/eboards HTTP/1.1\r\nHost: {lc}\r\nOrigin: https://lichess.org"),
    )
    .await;
    assert_eq!(status, 200);
    let lower = text.to_ascii_lowercase();
    assert!(
        lower.contains("access-control-allow-origin: https://lichess.org"),
        "{text}"
    );
    assert!(!lower.contains("access-control-allow-origin: *"), "{text}");
    let (status, text) = raw(
        lc,
        &format!("GET /api/v1.0/tournaments HTTP/1.1\r\nHost: {lc}"),
    )
    .await;
    assert_eq!(status, 200);
    assert!(
        !text
            .to_ascii_lowercase()
            .contains("access-control-allow-origin"),
        "{text}"
    );

    // The WebSocket: a foreign page cannot even open it.
    let mut request = format!("ws://{lc}/api/v1.0").into_client_request().unwrap();
    request
        .headers_mut()
        .insert("Origin", "https://evil.example".parse().unwrap());
    assert!(tokio_tungstenite::connect_async(request).await.is_err());

    // lichess reads (subscribes) but may not set up or flip unless listed for actions; a
    // program without an Origin neither, by default.
    for origin in [Some("https://lichess.org"), None] {
        let mut request = format!("ws://{lc}/api/v1.0").into_client_request().unwrap();
        if let Some(o) = origin {
            request.headers_mut().insert("Origin", o.parse().unwrap());
        }
        let (mut ws, _) = tokio_tungstenite::connect_async(request).await.unwrap();
        ws_send(
            &mut ws,
            json!({"call": "subscribe", "id": 1, "param": {"feed": "eboardevent", "id": 7, "param": {"serialnr": "board-1"}}}),
        )
        .await;
        let ack = next_json(&mut ws).await;
        assert_eq!(ack["response"], "call", "{ack}");
        for call in [
            json!({"id": 2, "call": "call", "param": {"id": 7, "method": "setup", "param": {"fen": "4k3/8/8/8/8/8/8/4K2R w K - 0 1"}}}),
            json!({"id": 3, "call": "call", "param": {"id": 7, "method": "flip", "param": {"flip": true}}}),
        ] {
            ws_send(&mut ws, call).await;
            let reply = read_until(&mut ws, |v| v["response"] != "feed")
                .await
                .pop()
                .unwrap();
            assert_eq!(reply["response"], "error", "{origin:?}: {reply}");
            assert!(
                reply["param"]["message"]
                    .as_str()
                    .unwrap()
                    .contains("livechess_action_origins"),
                "{reply}"
            );
        }
    }
    assert!(server.ops.try_recv().is_err(), "no action reached the core");
}

#[tokio::test]
async fn health_without_a_token_tells_only_the_status() {
    let events = capture_events();
    let server = start(ServerConfig {
        arbiter_token: Some("arbiter-secret-0123456789".into()),
        viewer_token: Some("viewer-secret-0123456789".into()),
        ..test_config()
    })
    .await;
    server.send(&events);
    server.wait_seq(events.last().unwrap().seq).await;
    let (status, body) = http(server.addr, "GET", "/health", &[], "").await;
    assert_eq!(status, 200);
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v, json!({"status": "ok"}), "nothing but the status: {v}");
    let (_, body) = http(
        server.addr,
        "GET",
        "/health",
        &[("Authorization", "Bearer viewer-secret-0123456789")],
        "",
    )
    .await;
    let v: Value = serde_json::from_str(&body).unwrap();
    assert!(v["open_alerts"].is_u64() && v["seq"].is_u64(), "{v}");
}

#[tokio::test]
async fn a_connection_flood_is_capped_and_the_port_serves_again_once_it_ends() {
    let server = start(ServerConfig {
        max_connections: 20,
        ..test_config()
    })
    .await;
    // 300 connections that never send a byte.
    let mut flood = Vec::new();
    for _ in 0..300 {
        if let Ok(s) = TcpStream::connect(server.addr).await {
            flood.push(s);
        }
    }
    // Those beyond the cap are closed by the server at once: reading gives end-of-file.
    let mut closed = 0;
    for s in flood.iter_mut() {
        let mut b = [0u8; 1];
        if let Ok(Ok(0)) = tokio::time::timeout(Duration::from_millis(200), s.read(&mut b)).await {
            closed += 1;
        }
    }
    assert!(closed >= 300 - 20, "only {closed} of 300 closed");
    drop(flood);
    // Once the flood is gone the port answers again (the slots come back).
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    loop {
        let (status, _) = raw(
            server.addr,
            &format!("GET /metrics HTTP/1.1\r\nHost: {}", server.addr),
        )
        .await;
        if status == 200 {
            break;
        }
        assert!(tokio::time::Instant::now() < deadline, "never served again");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let (_, metrics) = http(server.addr, "GET", "/metrics", &[], "").await;
    let refused: u64 = metrics
        .lines()
        .find_map(|l| l.strip_prefix("dgt_refused_total{reason=\"connection_cap\"} "))
        .unwrap()
        .parse()
        .unwrap();
    assert!(refused >= 280, "{refused}");
}

#[tokio::test]
async fn a_client_that_dribbles_its_headers_is_cut_off() {
    let server = start(ServerConfig {
        header_timeout_ms: 300,
        ..test_config()
    })
    .await;
    let mut s = TcpStream::connect(server.addr).await.unwrap();
    s.write_all(b"GET /api/boards HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        .await
        .unwrap();
    // The rest of the headers never come: the server closes the connection.
    let mut out = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(20), s.read_to_end(&mut out)).await;
    assert!(read.is_ok(), "the connection was kept open");
    let text = String::from_utf8_lossy(&out);
    assert!(!text.contains("200 OK"), "{text}");
}

#[tokio::test]
async fn an_oversized_client_message_closes_only_that_websocket() {
    let events = capture_events();
    let server = start(test_config()).await;
    let mut good = ws_connect(&format!("ws://{}/ws", server.addr)).await;
    let _snapshot = next_json(&mut good).await;
    let mut bad = ws_connect(&format!("ws://{}/ws/public", server.addr)).await;
    let _snapshot = next_json(&mut bad).await;
    let _ = bad.send(Message::text("x".repeat(1 << 20))).await;
    let ended = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            match bad.next().await {
                None | Some(Err(_)) | Some(Ok(Message::Close(_))) => return,
                Some(Ok(_)) => {}
            }
        }
    })
    .await;
    assert!(ended.is_ok(), "a 1 MiB message was taken");
    // The other client still gets its events.
    server.send(&events[..5]);
    let got = read_until(&mut good, |v| v["seq"] == events[4].seq).await;
    assert!(!got.is_empty());
}

#[tokio::test]
async fn spectators_beyond_the_cap_are_turned_away_without_touching_the_arbiter() {
    let server = start(ServerConfig {
        max_public_clients: 3,
        ..test_config()
    })
    .await;
    let mut held = Vec::new();
    for _ in 0..3 {
        let mut ws = ws_connect(&format!("ws://{}/ws/public", server.addr)).await;
        let _ = next_json(&mut ws).await;
        held.push(ws);
    }
    let fourth = tokio_tungstenite::connect_async(format!("ws://{}/ws/public", server.addr)).await;
    match fourth {
        Err(tokio_tungstenite::tungstenite::Error::Http(r)) => assert_eq!(r.status(), 503),
        other => panic!("a fourth spectator was let in: {:?}", other.map(|_| ())),
    }
    let mut arbiter = ws_connect(&format!("ws://{}/ws", server.addr)).await;
    assert_eq!(next_json(&mut arbiter).await["type"], "snapshot");
    // A spectator leaving frees its place.
    drop(held.pop());
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    loop {
        if tokio_tungstenite::connect_async(format!("ws://{}/ws/public", server.addr))
            .await
            .is_ok()
        {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the place never came back"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn a_livechess_client_holds_a_bounded_number_of_subscriptions() {
    let events = capture_events();
    let server = start(ServerConfig {
        livechess_listen: Some(loopback()),
        livechess_max_subscriptions: 4,
        ..test_config()
    })
    .await;
    let lc = server.livechess.unwrap();
    server.send(&events[..10]);
    server.wait_seq(events[9].seq).await;
    let mut ws = ws_connect(&format!("ws://{lc}/api/v1.0")).await;
    let mut refused = 0;
    for feed in 0..10 {
        ws_send(
            &mut ws,
            json!({"call": "subscribe", "id": 100 + feed, "param": {"feed": "eboardevent", "id": feed, "param": {"serialnr": "board-1"}}}),
        )
        .await;
        let reply = read_until(&mut ws, |v| v["response"] != "feed")
            .await
            .pop()
            .unwrap();
        if reply["response"] == "error" {
            refused += 1;
            assert!(
                reply["param"]["message"]
                    .as_str()
                    .unwrap()
                    .contains("at most 4"),
                "{reply}"
            );
        }
    }
    assert_eq!(refused, 6);
}

/// The daemon's journal, as far as the test is concerned: every event sent.
struct Kept(Vec<dgt_core::Event>);

impl dgt_server::feed::EventSource for Kept {
    fn events_after(&self, seq: u64) -> Result<Vec<dgt_core::Event>, dgt_server::SourceError> {
        Ok(self.0.iter().filter(|e| e.seq > seq).cloned().collect())
    }
}

/// Sends every event of the capture into an 8-deep broadcast before the server runs at all
/// (this test's runtime has one thread): the server falls far behind. Returns the final
/// health and metrics, and the alert ids a dashboard client received.
async fn fall_behind(source: Option<Kept>) -> (Value, String, Vec<u64>) {
    let events = capture_events();
    let mut server = dgt_server::Server::bind(test_config()).await.unwrap();
    if let Some(s) = source {
        server = server.with_event_source(std::sync::Arc::new(s));
    }
    let addr = server.local_addr();
    let (tx, _) = tokio::sync::broadcast::channel(8);
    let (ops, _ops_rx) = tokio::sync::mpsc::channel(8);
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(server.run(&tx, ops, async move {
        let _ = stopped.await;
    }));
    let mut ws = ws_connect(&format!("ws://{addr}/ws")).await;
    let _snapshot = next_json(&mut ws).await;
    for e in &events {
        tx.send(e.clone()).unwrap();
    }
    let last = events.last().unwrap().seq;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    let mut alerts = Vec::new();
    loop {
        let v = match tokio::time::timeout(Duration::from_secs(2), ws.next()).await {
            Ok(Some(Ok(Message::Text(t)))) => serde_json::from_str::<Value>(&t).unwrap(),
            _ => break,
        };
        if v["type"] == "alert" {
            alerts.push(v["id"].as_u64().unwrap());
        }
        if v["seq"].as_u64() == Some(last) || tokio::time::Instant::now() > deadline {
            break;
        }
    }
    let (_, health) = http(addr, "GET", "/health", &[], "").await;
    let (_, metrics) = http(addr, "GET", "/metrics", &[], "").await;
    let _ = stop.send(());
    (serde_json::from_str(&health).unwrap(), metrics, alerts)
}

#[tokio::test(flavor = "current_thread")]
async fn a_server_that_falls_behind_resynchronises_from_the_journal_and_loses_no_alert() {
    let events = capture_events();
    let all_alerts: Vec<u64> = events
        .iter()
        .filter_map(|e| match &e.body {
            dgt_core::EventBody::Alert(a) => Some(a.id),
            _ => None,
        })
        .collect();
    assert!(!all_alerts.is_empty());
    // Without a source the events are only counted as lost: the fall is real.
    let (_, metrics, _) = fall_behind(None).await;
    assert!(
        !metrics.contains("dgt_events_lost_total 0\n"),
        "the server did not fall behind: {metrics}"
    );
    // With the journal to read back from: the hall reaches the last seq, nothing is lost,
    // and the dashboard client got every alert.
    let (health, metrics, alerts) = fall_behind(Some(Kept(events.clone()))).await;
    assert_eq!(health["seq"], events.last().unwrap().seq, "{health}");
    assert!(metrics.contains("dgt_events_lost_total 0\n"), "{metrics}");
    assert_eq!(alerts, all_alerts);
}

#[tokio::test]
async fn malformed_livechess_calls_get_errors_and_an_oversized_one_closes_only_its_client() {
    let events = capture_events();
    let server = start(ServerConfig {
        livechess_listen: Some(loopback()),
        ..test_config()
    })
    .await;
    let lc = server.livechess.unwrap();
    server.send(&events[..10]);
    server.wait_seq(events[9].seq).await;
    let mut other = ws_connect(&format!("ws://{lc}/api/v1.0")).await;
    let mut ws = ws_connect(&format!("ws://{lc}/api/v1.0")).await;
    let deep = "[".repeat(10_000);
    for bad in [
        "not json".to_string(),
        "[1,2,3]".to_string(),
        deep,
        json!({"id": 1, "call": "subscribe", "param": {"feed": "eboardevent"}}).to_string(),
        json!({"id": 2, "call": "call", "param": {"id": 99, "method": "setup"}}).to_string(),
    ] {
        ws.send(Message::text(bad.clone())).await.unwrap();
        let reply = next_json(&mut ws).await;
        assert_eq!(reply["response"], "error", "{bad:.40}: {reply}");
    }
    // 1 MiB in one call: the connection is closed.
    let _ = ws.send(Message::text("x".repeat(1 << 20))).await;
    let closed = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            match ws.next().await {
                None | Some(Err(_)) | Some(Ok(Message::Close(_))) => return,
                Some(Ok(_)) => {}
            }
        }
    })
    .await;
    assert!(closed.is_ok(), "a 1 MiB call was taken");
    // The other client is unaffected.
    ws_send(
        &mut other,
        json!({"id": 5, "call": "eboards", "param": null}),
    )
    .await;
    let reply = next_json(&mut other).await;
    assert_eq!(reply["response"], "call");
    assert_eq!(reply["param"][0]["serialnr"], "board-1");
}

/// Beyond loopback the LiveChess API needs `livechess_lan`, and is then read-only: a
/// program on the network can send any Origin, so no Origin list may grant actions.
#[tokio::test]
async fn the_livechess_api_listens_on_the_network_only_read_only() {
    let anywhere: SocketAddr = "0.0.0.0:0".parse().unwrap();
    let refused = dgt_server::Server::bind(ServerConfig {
        livechess_listen: Some(anywhere),
        ..test_config()
    })
    .await;
    assert!(matches!(refused, Err(dgt_server::ServeError::Insecure(_))));
    let acting = dgt_server::Server::bind(ServerConfig {
        livechess_listen: Some(anywhere),
        livechess_lan: true,
        livechess_action_origins: vec!["none".into()],
        ..test_config()
    })
    .await;
    assert!(matches!(acting, Err(dgt_server::ServeError::Insecure(_))));
    // Both are refused before anything is bound; tests bind only loopback, so the accepted
    // case is check-config's test.
}

const ARBITER: &str = "arbiter-secret-0123456789";
const VIEWER: &str = "viewer-secret-0123456789";

fn guarded() -> ServerConfig {
    ServerConfig {
        arbiter_token: Some(ARBITER.into()),
        viewer_token: Some(VIEWER.into()),
        livechess_listen: Some(loopback()),
        ..test_config()
    }
}

/// Opens `n` requests from 127.0.0.2 whose headers are complete and whose body (1000 bytes
/// announced) never comes; the connections the server kept open.
async fn hold_bodies(addr: SocketAddr, path: &str, n: usize) -> Vec<TcpStream> {
    let mut held = Vec::new();
    for _ in 0..n {
        let Ok(mut s) = connect(addr, true).await else {
            continue;
        };
        let head = format!(
            "POST {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
             Content-Length: 1000\r\n\r\n{{\"result\""
        );
        if s.write_all(head.as_bytes()).await.is_ok() {
            held.push(s);
        }
    }
    held
}

/// Expectation: one machine sends 512 POSTs with complete headers and a body that never
/// arrives (on both ports). It holds its share of connections, no more: meanwhile
/// `/health`, sign-in, an action and a WebSocket reconnect from another machine all answer
/// at once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_machine_holding_512_unfinished_bodies_starves_no_one_else() {
    let events = capture_events();
    let mut server = start(guarded()).await;
    let lc = server.livechess.unwrap();
    server.send(&events[..10]);
    server.wait_seq(events[9].seq).await;
    let _held = hold_bodies(server.addr, "/api/boards/board-1/result", 512).await;
    let _held_lc = hold_bodies(lc, "/api/v1.0/eboards", 64).await;
    tokio::time::sleep(Duration::from_millis(300)).await;

    let within = Duration::from_secs(3);
    let started = tokio::time::Instant::now();
    let (status, body) = tokio::time::timeout(within, http(server.addr, "GET", "/health", &[], ""))
        .await
        .expect("/health answered in time");
    assert_eq!((status, body.as_str()), (200, r#"{"status":"ok"}"#));
    let sign_in = json!({ "token": ARBITER }).to_string();
    let (status, head, _) = tokio::time::timeout(
        within,
        request(
            server.addr,
            "POST",
            "/api/session",
            &[("Content-Type", "application/json")],
            &sign_in,
        ),
    )
    .await
    .expect("sign-in answered in time");
    assert_eq!(status, 200, "{head}");
    assert!(header(&head, "set-cookie").is_some(), "{head}");
    let bearer = format!("Bearer {ARBITER}");
    let (status, body) = tokio::time::timeout(
        within,
        http(
            server.addr,
            "POST",
            "/api/boards/board-1/result",
            &[("Authorization", &bearer)],
            r#"{"result":"1-0"}"#,
        ),
    )
    .await
    .expect("the action answered in time");
    assert_eq!(status, 200, "{body}");
    assert!(matches!(
        server.next_action().await.kind,
        dgt_core::InputKind::Op(dgt_core::Operation::Result(_))
    ));
    let mut ws = tokio::time::timeout(
        within,
        ws_connect(&format!("ws://{}/ws?token={VIEWER}", server.addr)),
    )
    .await
    .expect("the dashboard reconnected in time");
    assert_eq!(next_json(&mut ws).await["type"], "snapshot");
    let (status, _) = tokio::time::timeout(
        within,
        raw(lc, &format!("GET /api/v1.0/eboards HTTP/1.1\r\nHost: {lc}")),
    )
    .await
    .expect("the LiveChess port answered in time");
    assert_eq!(status, 200);
    println!(
        "limits: 512 + 64 held bodies from one address; /health, sign-in, an action, a \
         reconnect and LiveChess answered in {} ms",
        started.elapsed().as_millis()
    );
    let (_, metrics) = http(
        server.addr,
        "GET",
        "/metrics",
        &[("Authorization", &bearer)],
        "",
    )
    .await;
    let refused: u64 = metrics
        .lines()
        .find_map(|l| l.strip_prefix("dgt_refused_total{reason=\"address_cap\"} "))
        .unwrap()
        .parse()
        .unwrap();
    assert!(refused >= (512 - 64) + (64 - 16), "{refused}");
}

/// Expectation: a body that never arrives, or arrives a byte at a time, is cut off when the
/// request's deadline (counted from its first byte) passes: 408, the connection closed,
/// nothing applied.
#[tokio::test]
async fn a_body_that_never_comes_or_dribbles_is_cut_off_at_the_deadline() {
    let mut server = start(ServerConfig {
        header_timeout_ms: 600,
        ..guarded()
    })
    .await;
    for dribble in [false, true] {
        let mut s = TcpStream::connect(server.addr).await.unwrap();
        let head = format!(
            "POST /api/boards/board-1/result HTTP/1.1\r\nHost: {}\r\n\
             Authorization: Bearer {ARBITER}\r\nContent-Type: application/json\r\n\
             Content-Length: 100\r\n\r\n{{",
            server.addr
        );
        s.write_all(head.as_bytes()).await.unwrap();
        let started = tokio::time::Instant::now();
        let mut out = Vec::new();
        let read = if dribble {
            // A byte every 100 ms: never idle, never done.
            let (mut r, mut w) = s.into_split();
            let writer = tokio::spawn(async move {
                for _ in 0..80 {
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    if w.write_all(b" ").await.is_err() {
                        break;
                    }
                }
            });
            let read = tokio::time::timeout(Duration::from_secs(5), r.read_to_end(&mut out)).await;
            writer.abort();
            read
        } else {
            tokio::time::timeout(Duration::from_secs(5), s.read_to_end(&mut out)).await
        };
        assert!(
            read.is_ok(),
            "dribble {dribble}: the connection was kept open"
        );
        let text = String::from_utf8_lossy(&out);
        assert!(
            text.starts_with("HTTP/1.1 408"),
            "dribble {dribble}: {text}"
        );
        assert!(text.contains("did not arrive within 600 ms"), "{text}");
        assert!(started.elapsed() < Duration::from_secs(3));
    }
    assert!(server.ops.try_recv().is_err(), "nothing reached the core");
}

/// Expectation: a body beyond its bound is refused whole with 413 before it is read: an
/// action's JSON beyond `max_body_bytes`, a pairing file beyond `max_upload_bytes`.
#[tokio::test]
async fn bodies_beyond_their_bound_are_refused_and_nothing_is_applied() {
    let mut server = start(guarded()).await;
    let bearer = format!("Bearer {ARBITER}");
    let padded = format!(r#"{{"result":"1-0","pad":"{}"}}"#, "x".repeat(100 * 1024));
    let (status, body) = http(
        server.addr,
        "POST",
        "/api/boards/board-1/result",
        &[("Authorization", &bearer)],
        &padded,
    )
    .await;
    assert_eq!(status, 413, "{body}");
    // The client's author reads the bound.
    assert_eq!(
        body,
        r#"{"error":"the request body is larger than 65536 bytes, the most this server takes; nothing was applied"}"#
    );
    let mut file = String::from("table,white,black\n");
    let mut t = 1;
    while file.len() < 1536 * 1024 {
        file.push_str(&format!("{t},White Player {t},Black Player {t}\n"));
        t += 1;
    }
    // Written whole before the answer is read: the server answers 413 as soon as the bound
    // is passed and closes, which a client still sending (any HTTP client) sees as a broken
    // pipe rather than the answer.
    let head = format!(
        "POST /api/rounds/1/pairings HTTP/1.1\r\nHost: {}\r\nAuthorization: {bearer}\r\n\
         Content-Type: text/csv\r\nContent-Length: {}\r\n\r\n",
        server.addr,
        file.len()
    );
    let mut s = TcpStream::connect(server.addr).await.unwrap();
    let _ = s.write_all(format!("{head}{file}").as_bytes()).await;
    let mut answer = Vec::new();
    let _ = s.read_to_end(&mut answer).await;
    let answer = String::from_utf8_lossy(&answer).to_string();
    let status = answer
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok());
    let body = answer.split_once("\r\n\r\n").map_or("", |(_, b)| b);
    assert_eq!(status, Some(413), "{answer}");
    // The arbiter reads the bound of an imported file.
    assert_eq!(
        body,
        r#"{"error":"the file is larger than 1048576 bytes, the most this server takes; nothing was applied"}"#
    );
    assert!(server.ops.try_recv().is_err(), "nothing reached the core");
}

/// Reads one response (headers and a `Content-Length` body) from a keep-alive connection;
/// its status.
async fn read_response(s: &mut TcpStream) -> u16 {
    let mut buf = Vec::new();
    let mut byte = [0u8; 1];
    while !buf.ends_with(b"\r\n\r\n") {
        let n = tokio::time::timeout(Duration::from_secs(5), s.read(&mut byte))
            .await
            .expect("an answer in time")
            .unwrap();
        assert_eq!(n, 1, "closed: {}", String::from_utf8_lossy(&buf));
        buf.push(byte[0]);
    }
    let head = String::from_utf8_lossy(&buf).to_string();
    let length: usize = header(&head, "content-length").unwrap().parse().unwrap();
    let mut body = vec![0u8; length];
    s.read_exact(&mut body).await.unwrap();
    head.split_whitespace().nth(1).unwrap().parse().unwrap()
}

/// Expectation: the deadline counts from a request's first byte, not from the connection's
/// or an earlier request's: a keep-alive connection that pauses between requests (for less
/// than the idle limit) is served, even when the earlier body came late and its own body
/// comes a while after its headers.
#[tokio::test]
async fn a_keep_alive_pause_between_requests_does_not_count_against_the_next() {
    let server = start(ServerConfig {
        header_timeout_ms: 600,
        ..guarded()
    })
    .await;
    let mut s = TcpStream::connect(server.addr).await.unwrap();
    let body = r#"{"result":"1-0"}"#;
    let head = format!(
        "POST /api/boards/board-1/result HTTP/1.1\r\nHost: {}\r\n\
         Authorization: Bearer {ARBITER}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\n\r\n",
        server.addr,
        body.len()
    );
    // Three requests whose bodies come 250 ms after their headers, 400 ms apart: each
    // has its own 600 ms.
    for i in 0..3 {
        if i > 0 {
            tokio::time::sleep(Duration::from_millis(400)).await;
        }
        s.write_all(head.as_bytes()).await.unwrap();
        tokio::time::sleep(Duration::from_millis(250)).await;
        s.write_all(body.as_bytes()).await.unwrap();
        assert_eq!(read_response(&mut s).await, 200, "request {i}");
    }
}

/// Expectation: a replay window named by extreme numbers is answered (a window, or 400),
/// never an arithmetic overflow that drops the connection.
#[tokio::test]
async fn an_extreme_replay_window_is_answered() {
    let events = capture_events();
    let server = start(test_config()).await;
    server.send(&events[..10]);
    server.wait_seq(events[9].seq).await;
    for query in [
        format!("at_ms={}", u64::MAX),
        format!("from_ms=0&to_ms={}", u64::MAX),
        format!("from_ms={}&to_ms=0", u64::MAX),
    ] {
        let path = format!("/api/boards/board-1/replay?{query}");
        let (status, body) = http(server.addr, "GET", &path, &[], "").await;
        assert!(status == 200 || status == 400, "{query}: {status} {body}");
    }
}
