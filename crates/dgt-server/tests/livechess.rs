//! The LiveChess-compatible API as lichess and DgtAngel use it: `eboards`, `subscribe` to
//! `eboardevent` with the full state right after the ack, `call` → `setup`, and the REST
//! `eboards`.

mod common;

use common::*;
use dgt_core::{EventBody, InputKind, Operation};
use dgt_server::ServerConfig;
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

#[tokio::test]
async fn a_livechess_client_lists_subscribes_and_sets_up() {
    let events = capture_events();
    let mut server = start(ServerConfig {
        livechess_listen: Some(loopback()),
        livechess_action_origins: vec!["https://lichess.org".into()],
        ..test_config()
    })
    .await;
    let lc = server.livechess.expect("livechess port");
    // Up to the 10th move.
    let cut = events
        .iter()
        .position(|e| matches!(&e.body, EventBody::Move(m) if m.ply == 10))
        .unwrap();
    server.send(&events[..=cut]);
    server.wait_seq(events[cut].seq).await;

    // A browser page from lichess.org is accepted on the LiveChess port.
    let mut request = format!("ws://{lc}/api/v1.0").into_client_request().unwrap();
    request
        .headers_mut()
        .insert("Origin", "https://lichess.org".parse().unwrap());
    let (mut ws, _) = tokio_tungstenite::connect_async(request).await.unwrap();

    ws_send(&mut ws, json!({"id": 1, "call": "eboards", "param": null})).await;
    let reply = next_json(&mut ws).await;
    assert_eq!(reply["response"], "call");
    assert_eq!(reply["id"], 1);
    assert!(reply["time"].as_u64().unwrap() > 1_600_000_000_000);
    let board = &reply["param"][0];
    assert_eq!(board["serialnr"], "board-1");
    assert_eq!(board["state"], "ACTIVE");
    assert_eq!(board["flipped"], false);
    let fen10 = match &events[cut].body {
        EventBody::Move(m) => m.fen.clone(),
        _ => unreachable!(),
    };
    assert_eq!(board["board"], fen10.split(' ').next().unwrap());
    assert!(board["clock"]["white"].is_u64() && board["clock"]["time"].is_u64());

    ws_send(
        &mut ws,
        json!({"call": "subscribe", "id": 42, "param": {"feed": "eboardevent", "id": 7, "param": {"serialnr": "board-1"}}}),
    )
    .await;
    let ack = next_json(&mut ws).await;
    assert_eq!(
        (ack["response"].as_str(), ack["id"].as_i64()),
        (Some("call"), Some(42))
    );
    let initial = next_json(&mut ws).await;
    assert_eq!(initial["response"], "feed");
    assert_eq!(initial["id"], 7);
    let san: Vec<String> = events[..=cut]
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::Move(m) => Some(m.san.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(initial["param"]["san"], json!(san));
    assert_eq!(initial["param"]["match"], true);
    assert_eq!(
        initial["param"]["start"],
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
    );
    assert!(initial["param"]["board"].is_string() && initial["param"].get("clock").is_some());

    // The rest of the game: the whole SAN list arrives in the feed.
    server.send(&events[cut + 1..]);
    let all: Vec<String> = events
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::Move(m) => Some(m.san.clone()),
            _ => None,
        })
        .collect();
    let fed = read_until(&mut ws, |v| {
        v["param"]["san"].as_array().is_some_and(|a| a.len() == 57)
    })
    .await;
    assert_eq!(fed.last().unwrap()["param"]["san"], json!(all));
    assert!(fed.iter().all(|v| v["response"] == "feed" && v["id"] == 7));

    let fen = "4k3/8/8/8/8/8/8/4K2R w K - 0 1";
    ws_send(
        &mut ws,
        json!({"id": 3, "call": "call", "param": {"id": 7, "method": "setup", "param": {"fen": fen}}}),
    )
    .await;
    let reply = read_until(&mut ws, |v| v["response"] != "feed")
        .await
        .pop()
        .unwrap();
    assert_eq!(
        (reply["response"].as_str(), reply["id"].as_i64()),
        (Some("call"), Some(3))
    );
    let input = server.ops.recv().await.unwrap();
    assert_eq!(input.board, "board-1");
    let InputKind::Op(Operation::Setup(setup)) = input.kind else {
        panic!("not a setup")
    };
    assert_eq!(setup.fen.as_deref(), Some(fen));

    // A FEN the core could not start from is refused with the reason; nothing is sent on.
    ws_send(
        &mut ws,
        json!({"id": 5, "call": "call", "param": {"id": 7, "method": "setup", "param": {"fen": "4k3/8/8 w - - 0 1"}}}),
    )
    .await;
    let reply = read_until(&mut ws, |v| v["response"] != "feed")
        .await
        .pop()
        .unwrap();
    assert_eq!(
        (reply["response"].as_str(), reply["id"].as_i64()),
        (Some("error"), Some(5))
    );
    assert!(
        reply["param"]["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("fen \"4k3/8/8 w - - 0 1\": not a FEN")),
        "{reply}"
    );
    assert!(
        server.ops.try_recv().is_err(),
        "the refused setup reached the core"
    );

    ws_send(&mut ws, json!({"id": 4, "call": "nonsense"})).await;
    let reply = read_until(&mut ws, |v| v["response"] != "feed")
        .await
        .pop()
        .unwrap();
    assert_eq!(reply["response"], "error");
    assert!(reply["param"]["message"].is_string());

    let (status, body) = http(lc, "GET", "/api/v1.0/eboards", &[], "").await;
    assert_eq!(status, 200);
    let list: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        list[0]["state"], "NOTRESPONDING",
        "the capture ends with the board lost"
    );
}
