//! The event WebSocket: snapshot on connect, resume from a seq, resync when the ring no
//! longer holds the seq, a stalled client, acks reaching every client, and the public feed.

mod common;

use std::time::{Duration, Instant};

use common::*;
use dgt_core::event::ClockEvent;
use dgt_core::{Event, EventBody, InputKind, Operation};
use dgt_server::ServerConfig;
use serde_json::{Value, json};

fn last_seq(events: &[Event]) -> u64 {
    events.last().unwrap().seq
}

#[tokio::test]
async fn a_client_gets_a_snapshot_on_connect() {
    let events = capture_events();
    let server = start(test_config()).await;
    server.send(&events);
    server.wait_seq(last_seq(&events)).await;

    let mut ws = ws_connect(&format!("ws://{}/ws", server.addr)).await;
    let snap = next_json(&mut ws).await;
    assert_eq!(snap["type"], "snapshot");
    assert_eq!(snap["seq"], last_seq(&events));
    assert_eq!(snap["resync"], false);
    let board = &snap["boards"][0];
    assert_eq!(board["board"], "board-1");
    let last_move = events
        .iter()
        .rev()
        .find_map(|e| match &e.body {
            EventBody::Move(m) => Some(m.clone()),
            _ => None,
        })
        .unwrap();
    assert_eq!(board["fen"], last_move.fen.as_str());
    assert_eq!(board["last_move"]["san"], last_move.san.as_str());
    assert_eq!(board["moves"].as_array().unwrap().len(), 57);
    assert!(board["clock"]["white_ms"].is_u64());
    assert_eq!(board["status"]["state"], "disconnected");
    let alert_kinds: Vec<&str> = snap["alerts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["kind"].as_str().unwrap())
        .collect();
    // Open alerts, most urgent first, then in order: both are for review (a stopped clock
    // is a call for the arbiter, 6.11), and the clock was stopped before the board went.
    assert_eq!(alert_kinds, ["clock_stopped", "board_disconnected"]);
}

#[tokio::test]
async fn resuming_from_a_seq_gives_exactly_the_missed_events_then_live_ones() {
    let events = capture_events();
    let server = start(test_config()).await;
    server.send(&events[..100]);
    server.wait_seq(events[99].seq).await;

    let mut ws = ws_connect(&format!("ws://{}/ws?since={}", server.addr, events[49].seq)).await;
    server.send(&events[100..]);
    let got = read_until(&mut ws, |v| v["seq"] == last_seq(&events)).await;
    let seqs: Vec<u64> = got.iter().map(|v| v["seq"].as_u64().unwrap()).collect();
    let want: Vec<u64> = events[50..].iter().map(|e| e.seq).collect();
    assert_eq!(seqs, want, "no snapshot, no gap, no duplicate");
    // The same JSON as the contract (and `replay`) gives.
    let first: Value = serde_json::from_str(&events[50].to_json()).unwrap();
    assert_eq!(got[0], first);
}

#[tokio::test]
async fn resuming_from_before_the_ring_gets_a_resync_snapshot() {
    let events = capture_events();
    let server = start(ServerConfig {
        ring_capacity: 50,
        ..test_config()
    })
    .await;
    server.send(&events);
    server.wait_seq(last_seq(&events)).await;
    let mut ws = ws_connect(&format!("ws://{}/ws?since=10", server.addr)).await;
    let snap = next_json(&mut ws).await;
    assert_eq!(snap["type"], "snapshot");
    assert_eq!(snap["resync"], true);
    assert_eq!(snap["seq"], last_seq(&events));

    // Within the ring: the missed events only.
    let since = last_seq(&events) - 10;
    let mut ws = ws_connect(&format!("ws://{}/ws?since={since}", server.addr)).await;
    assert_eq!(next_json(&mut ws).await["seq"], since + 1);
}

fn clock_event(seq: u64) -> Event {
    Event {
        seq,
        board: "board-1".into(),
        t_ms: seq * 10,
        body: EventBody::Clock(ClockEvent {
            white_ms: Some(seq),
            black_ms: Some(180_000),
            running: Some(dgt_core::Side::White),
            left_ms: seq,
            right_ms: 180_000,
            white_side: None,
        }),
        node: None,
        node_seq: None,
    }
}

#[tokio::test]
async fn a_stalled_client_slows_neither_the_producer_nor_other_clients() {
    let config = ServerConfig {
        client_queue: 64,
        send_timeout_ms: 1000,
        ..test_config()
    };
    let server = start(config).await;
    let events = capture_events();
    server.send(&events);
    server.wait_seq(last_seq(&events)).await;

    // Connects and never reads again.
    let _stalled = ws_connect(&format!("ws://{}/ws", server.addr)).await;
    let mut reader = ws_connect(&format!("ws://{}/ws", server.addr)).await;
    assert_eq!(next_json(&mut reader).await["type"], "snapshot");

    let first = last_seq(&events) + 1;
    let last = first + 30_000;
    let produced = Instant::now();
    for seq in first..=last {
        server.events.send(clock_event(seq)).unwrap();
        if seq % 1000 == 0 {
            tokio::task::yield_now().await;
        }
    }
    // A producer held by the stalled client would wait out send_timeout_ms per event
    // (30,000 s); the bound only has to tell that from a loaded machine.
    assert!(
        produced.elapsed() < Duration::from_secs(15),
        "the producer never waits"
    );

    // The reader keeps up, or is resynced; either way it reaches the last seq in time.
    let started = Instant::now();
    let got = read_until(&mut reader, |v| {
        v["seq"] == last && (v["type"] == "clock" || v["type"] == "snapshot")
    })
    .await;
    assert!(
        started.elapsed() < Duration::from_secs(60),
        "the reader is not held back by the stalled client"
    );
    let mut previous = 0;
    for v in &got {
        if v["type"] == "clock" {
            let seq = v["seq"].as_u64().unwrap();
            assert!(seq > previous, "events stay in order without duplicates");
            previous = seq;
        } else if v["type"] == "snapshot" {
            previous = v["seq"].as_u64().unwrap();
        }
    }
    let (_, metrics) = http(server.addr, "GET", "/metrics", &[], "").await;
    assert!(metrics.contains("dgt_ws_clients{feed=\"arbiter\"}"));
}

#[tokio::test]
async fn an_ack_reaches_every_dashboard_and_the_core() {
    let events = capture_events();
    let mut server = start(test_config()).await;
    server.send(&events);
    server.wait_seq(last_seq(&events)).await;
    let mut a = ws_connect(&format!("ws://{}/ws", server.addr)).await;
    let mut b = ws_connect(&format!("ws://{}/ws", server.addr)).await;
    let snap = next_json(&mut a).await;
    next_json(&mut b).await;
    let id = snap["alerts"][0]["id"].as_u64().unwrap();

    let (status, body) = http(
        server.addr,
        "POST",
        &format!("/api/alerts/{id}/ack"),
        &[],
        "",
    )
    .await;
    assert_eq!(status, 200, "{body}");
    for ws in [&mut a, &mut b] {
        let m = next_json(ws).await;
        assert_eq!(m["type"], "alert_ack");
        assert_eq!(m["id"], id);
        assert_eq!(m["board"], "board-1");
    }
    let op = server.next_action().await;
    assert_eq!(op.board, "board-1");
    assert_eq!(op.kind, InputKind::Op(Operation::Ack(id)));

    let (_, open) = http(server.addr, "GET", "/api/alerts?open=true", &[], "").await;
    let open: Value = serde_json::from_str(&open).unwrap();
    assert!(open.as_array().unwrap().iter().all(|a| a["id"] != id));
    let (status, _) = http(server.addr, "POST", "/api/alerts/999999/ack", &[], "").await;
    assert_eq!(status, 404);

    // A client resuming from before the ack learns of it too.
    let mut c = ws_connect(&format!(
        "ws://{}/ws?since={}",
        server.addr,
        last_seq(&events)
    ))
    .await;
    let m = next_json(&mut c).await;
    assert_eq!(
        (m["type"].as_str(), m["id"].as_u64()),
        (Some("alert_ack"), Some(id))
    );
}

#[tokio::test]
async fn the_public_feed_is_delayed_and_never_carries_an_alert() {
    let delay = Duration::from_millis(1500);
    let server = start(ServerConfig {
        public_delay_ms: delay.as_millis() as u64,
        ..test_config()
    })
    .await;
    let mut public = ws_connect(&format!("ws://{}/ws/public", server.addr)).await;
    let snap = next_json(&mut public).await;
    assert_eq!(snap["type"], "snapshot");
    assert!(snap.get("alerts").is_none());

    let events = capture_events();
    let sent = Instant::now();
    server.send(&events);
    server.wait_seq(last_seq(&events)).await;
    let id = events
        .iter()
        .find(|e| matches!(e.body, EventBody::Alert(_)))
        .unwrap()
        .seq;
    let (status, _) = http(
        server.addr,
        "POST",
        &format!("/api/alerts/{id}/ack"),
        &[],
        "",
    )
    .await;
    assert_eq!(status, 200);

    let first = next_json(&mut public).await;
    assert!(
        sent.elapsed() >= delay - Duration::from_millis(50),
        "released after the delay"
    );
    let last_public = events
        .iter()
        .rfind(|e| dgt_server::feed::is_public(&e.body))
        .unwrap()
        .seq;
    let mut got = vec![first];
    if got[0]["seq"] != last_public {
        got.extend(read_until(&mut public, |v| v["seq"] == last_public).await);
    }
    for m in &got {
        let t = m["type"].as_str().unwrap();
        assert!(
            ["move", "clock", "game_start", "game_end"].contains(&t),
            "public got {t}"
        );
        assert!(m.get("alerts").is_none() && m.get("kind").is_none());
    }
    assert_eq!(got.iter().filter(|m| m["type"] == "move").count(), 57);

    let (status, body) = http(server.addr, "GET", "/api/public/games", &[], "").await;
    assert_eq!(status, 200);
    let games: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(games[0]["moves"].as_array().unwrap().len(), 57);
    assert!(!body.contains("alert") && !body.contains("clock_stopped"));
}

/// A hub hears a node's events before the stream numbers them: clients that asked for
/// previews get them at once in one message, without `seq` (and an alert without its `id`),
/// then only their numbers; other clients, one that joined after the preview, a resuming client and the
/// public feed get the numbered event whole, and never a preview.
#[tokio::test]
async fn previews_reach_only_the_clients_that_asked_and_then_only_their_numbers() {
    let server = start(test_config()).await;
    let events = capture_events();
    server.send(&events[..10]);
    let before = events[9].seq;
    server.wait_seq(before).await;
    let base = format!("ws://{}", server.addr);
    let mut asked = ws_connect(&format!("{base}/ws?preview=1&since={before}")).await;
    let mut plain = ws_connect(&format!("{base}/ws?since={before}")).await;
    let mut public = ws_connect(&format!("{base}/ws/public")).await;
    assert_eq!(next_json(&mut public).await["type"], "snapshot");

    // Two events of node hall-a (a clock reading and an alert), then one of the hub's own.
    let clock = of_node(clock_event(before + 1), 41);
    let mut alert = events
        .iter()
        .find(|e| matches!(e.body, EventBody::Alert(_)))
        .unwrap()
        .clone();
    alert.seq = before + 2;
    if let EventBody::Alert(a) = &mut alert.body {
        a.id = before + 2;
    }
    let alert = of_node(alert, 42);
    let own = clock_event(before + 3);
    // In one message; the hub's own event has no node: nothing to preview.
    server
        .previews
        .send(&[clock.clone(), alert.clone(), own.clone()]);
    let without_numbers = |e: &Event| {
        let mut v: Value = serde_json::from_str(&e.to_json()).unwrap();
        v.as_object_mut().unwrap().remove("seq");
        if v["type"] == "alert" {
            v.as_object_mut().unwrap().remove("id");
        }
        v
    };
    let got = next_json(&mut asked).await;
    assert_eq!(
        got,
        json!({"type": "preview", "events": [without_numbers(&clock), without_numbers(&alert)]})
    );
    let mut late = ws_connect(&format!("{base}/ws?preview=1&since={before}")).await;

    server.send(&[clock.clone(), alert.clone(), own.clone()]);
    let whole = |e: &Event| serde_json::from_str::<Value>(&e.to_json()).unwrap();
    assert_eq!(
        next_json(&mut asked).await,
        json!({"type": "numbered", "node": "hall-a", "node_seq": 41, "seq": before + 1, "count": 2})
    );
    assert_eq!(next_json(&mut asked).await, whole(&own));
    for ws in [&mut plain, &mut late] {
        for e in [&clock, &alert, &own] {
            assert_eq!(next_json(ws).await, whole(e));
        }
    }
    let mut resumed = ws_connect(&format!("{base}/ws?preview=1&since={before}")).await;
    for e in [&clock, &alert, &own] {
        assert_eq!(next_json(&mut resumed).await, whole(e));
    }
    // The public feed (no delay here), connected before the previews: the numbered clock
    // readings only.
    let got = read_ws_until_quiet(
        &mut public,
        Duration::from_millis(300),
        Duration::from_secs(10),
    )
    .await;
    assert_eq!(got, [whole(&clock), whole(&own)]);
}
