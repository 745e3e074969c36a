//! REST: tokens and the Origin check, the bind rule, actions forwarded to the core, games
//! with corrections applied, PGN with `%clk`, health and metrics.

mod common;

use common::*;
use dgt_core::event::MoveEvent;
use dgt_core::input::{SetupOp, Supervision};
use dgt_core::{Event, EventBody, InputKind, Operation, Side};
use dgt_server::{ServeError, Server, ServerConfig};
use serde_json::Value;

fn secured() -> ServerConfig {
    ServerConfig {
        arbiter_token: Some("arbiter-secret".into()),
        viewer_token: Some("viewer-secret".into()),
        ..test_config()
    }
}

const ARBITER: (&str, &str) = ("Authorization", "Bearer arbiter-secret");
const VIEWER: (&str, &str) = ("Authorization", "Bearer viewer-secret");

#[tokio::test]
async fn tokens_separate_reading_from_acting() {
    let events = capture_events();
    let mut server = start(secured()).await;
    server.send(&events);
    let last = events.last().unwrap().seq;
    server.wait_seq(last).await;
    let addr = server.addr;

    assert_eq!(http(addr, "GET", "/api/boards", &[], "").await.0, 401);
    assert_eq!(
        http(
            addr,
            "GET",
            "/api/boards",
            &[("Authorization", "Bearer wrong")],
            ""
        )
        .await
        .0,
        401
    );
    assert_eq!(http(addr, "GET", "/api/boards", &[VIEWER], "").await.0, 200);
    // Tokens stay out of URLs (logs, history, Referer): only the WebSocket takes ?token=.
    assert_eq!(
        http(addr, "GET", "/api/alerts?token=viewer-secret", &[], "")
            .await
            .0,
        400
    );
    assert_eq!(
        http(
            addr,
            "POST",
            &format!("/api/alerts/{last}/ack?token=arbiter-secret"),
            &[],
            ""
        )
        .await
        .0,
        400
    );
    assert_eq!(http(addr, "GET", "/metrics", &[], "").await.0, 401);
    // Health and the dashboard page itself need no token.
    assert_eq!(http(addr, "GET", "/health", &[], "").await.0, 200);
    assert_eq!(http(addr, "GET", "/", &[], "").await.0, 200);

    let ack = format!("/api/alerts/{last}/ack");
    assert_eq!(http(addr, "POST", &ack, &[], "").await.0, 401);
    assert_eq!(http(addr, "POST", &ack, &[VIEWER], "").await.0, 403);
    let evil = ("Origin", "http://evil.example");
    assert_eq!(http(addr, "POST", &ack, &[ARBITER, evil], "").await.0, 403);
    assert!(
        server.ops.try_recv().is_err(),
        "nothing refused reached the core"
    );
    let own = format!("http://{addr}");
    let (status, body) = http(addr, "POST", &ack, &[ARBITER, ("Origin", &own)], "").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        server.next_action().await.kind,
        InputKind::Op(Operation::Ack(last))
    );

    // The WebSocket: refused without a token, open with the viewer's in the query.
    let refused = tokio_tungstenite::connect_async(format!("ws://{addr}/ws")).await;
    assert!(refused.is_err());
    let mut ws = ws_connect(&format!("ws://{addr}/ws?token=viewer-secret")).await;
    assert_eq!(next_json(&mut ws).await["type"], "snapshot");
    // The public feed needs none.
    let mut public = ws_connect(&format!("ws://{addr}/ws/public")).await;
    assert_eq!(next_json(&mut public).await["type"], "snapshot");
}

#[tokio::test]
async fn a_foreign_origin_cannot_open_the_feed() {
    let server = start(test_config()).await;
    let mut request =
        tokio_tungstenite::tungstenite::client::IntoClientRequest::into_client_request(format!(
            "ws://{}/ws",
            server.addr
        ))
        .unwrap();
    request
        .headers_mut()
        .insert("Origin", "https://evil.example".parse().unwrap());
    assert!(tokio_tungstenite::connect_async(request).await.is_err());
}

#[tokio::test]
async fn listening_beyond_loopback_without_an_arbiter_token_is_refused() {
    let config = ServerConfig {
        listen: "0.0.0.0:0".parse().unwrap(),
        viewer_token: Some("v".into()),
        ..ServerConfig::default()
    };
    match Server::bind(config).await {
        // The operator reads this refusal: it says why and what to set.
        Err(ServeError::Insecure(message)) => assert_eq!(
            message,
            "refusing to listen on 0.0.0.0:0 without an arbiter token: anyone on that network could acknowledge alerts and change games. Set an arbiter token, or listen on 127.0.0.1"
        ),
        Err(e) => panic!("wrong error {e}"),
        Ok(_) => panic!("bound beyond loopback without a token"),
    }
    let config = ServerConfig {
        livechess_listen: Some("0.0.0.0:0".parse().unwrap()),
        ..test_config()
    };
    assert!(matches!(
        Server::bind(config).await,
        Err(ServeError::Insecure(_))
    ));
}

#[tokio::test]
async fn setup_result_and_claim_go_to_the_core() {
    let mut server = start(test_config()).await;
    let addr = server.addr;
    let setup = r#"{"fen":"8/8/8/8/8/8/8/K1k5 w - - 0 1","time_control":"180+2","white_clock_side":"left","edition":"fide-2023","supervision":"reduced"}"#;
    let (status, body) = http(addr, "POST", "/api/boards/board-7/setup", &[], setup).await;
    assert_eq!(status, 200, "{body}");
    let input = server.next_action().await;
    assert_eq!(input.board, "board-7");
    let InputKind::Op(Operation::Setup(SetupOp {
        fen,
        time_control,
        supervision,
        ..
    })) = input.kind
    else {
        panic!("not a setup: {:?}", input.kind);
    };
    assert_eq!(fen.as_deref(), Some("8/8/8/8/8/8/8/K1k5 w - - 0 1"));
    assert_eq!(time_control.map(|t| t.text).as_deref(), Some("180+2"));
    assert_eq!(supervision, Some(Supervision::Reduced));

    assert_eq!(
        http(
            addr,
            "POST",
            "/api/boards/board-7/setup",
            &[],
            r#"{"colour":"x"}"#
        )
        .await
        .0,
        400
    );
    assert_eq!(
        http(
            addr,
            "POST",
            "/api/boards/board-7/setup",
            &[],
            r#"{"fen":"nonsense"}"#
        )
        .await
        .0,
        400
    );
    // A set-up the core could not play is refused with the reason, not dropped (a bad FEN
    // or time control) nor played under fide-2023 (an unknown edition).
    for (setup, reason) in [
        (
            r#"{"edition":"fide-2024"}"#,
            "unknown edition of the Laws \"fide-2024\": use one of fide-2005, fide-2017, \
             fide-2018, fide-2023",
        ),
        (
            r#"{"time_control":"5400:1800+30"}"#,
            "time control \"5400:1800+30\": period 1 has no move count",
        ),
        (
            r#"{"fen":"8/8/8/8/8/8/8/K7 w - - 0 1"}"#,
            "fen \"8/8/8/8/8/8/8/K7 w - - 0 1\": not a legal position",
        ),
    ] {
        let (status, body) = http(addr, "POST", "/api/boards/board-7/setup", &[], setup).await;
        assert_eq!(status, 400, "{body}");
        let refusal: serde_json::Value = serde_json::from_str(&body).unwrap();
        assert!(
            refusal["error"]
                .as_str()
                .is_some_and(|e| e.contains(reason)),
            "{setup}: {body}"
        );
    }

    assert_eq!(
        http(
            addr,
            "POST",
            "/api/boards/board-7/result",
            &[],
            r#"{"result":"1/2-1/2"}"#
        )
        .await
        .0,
        200
    );
    assert_eq!(
        server.next_action().await.kind,
        InputKind::Op(Operation::Result("1/2-1/2".parse().unwrap()))
    );
    // A result there is not is refused with the reason, and nothing is forwarded.
    let (status, body) = http(
        addr,
        "POST",
        "/api/boards/board-7/result",
        &[],
        r#"{"result":"2-0"}"#,
    )
    .await;
    assert_eq!(status, 400, "{body}");
    assert!(
        body.contains(r#"result must be \"1-0\", \"0-1\" or \"1/2-1/2\""#),
        "{body}"
    );

    let claim = r#"{"kind":"threefold_repetition","side":"white","move":"g1f3"}"#;
    assert_eq!(
        http(addr, "POST", "/api/boards/board-7/claim", &[], claim)
            .await
            .0,
        200
    );
    let InputKind::Op(Operation::Claim(c)) = server.next_action().await.kind else {
        panic!("not a claim")
    };
    assert_eq!(c.intended_move.as_deref(), Some("g1f3"));

    // A claim of a kind there is not, or by neither side, is refused with the reason and
    // nothing is forwarded: read as a repetition claim by the player on move, it would
    // judge a claim nobody made.
    for (claim, reason) in [
        (
            r#"{"kind":"other","side":"white"}"#,
            r#"unknown claim kind \"other\": use one of threefold_repetition, fifty_move_rule, flag"#,
        ),
        (
            r#"{"kind":"flag","side":"nobody"}"#,
            r#"unknown claimant \"nobody\": use white or black"#,
        ),
    ] {
        let (status, body) = http(addr, "POST", "/api/boards/board-7/claim", &[], claim).await;
        assert_eq!(status, 400, "{body}");
        assert!(body.contains(reason), "{body}");
    }
    while let Ok(input) = server.ops.try_recv() {
        assert!(
            !matches!(input.kind, InputKind::Op(Operation::Claim(_))),
            "a refused claim reached the core: {input:?}"
        );
    }
}

fn pgn_san(pgn: &str) -> Vec<String> {
    let movetext = pgn.split("\n\n").nth(1).unwrap();
    let mut out = Vec::new();
    let mut in_comment = false;
    for token in movetext.split_whitespace() {
        if token.starts_with('{') {
            in_comment = true;
        }
        if !in_comment && !token.ends_with('.') && !["1-0", "0-1", "1/2-1/2", "*"].contains(&token)
        {
            out.push(token.to_string());
        }
        if token.ends_with('}') {
            in_comment = false;
        }
    }
    out
}

#[tokio::test]
async fn pgn_has_the_tags_and_a_clock_comment_after_every_move() {
    let events = capture_events();
    let server = start(test_config()).await;
    server.send(&events);
    server.wait_seq(events.last().unwrap().seq).await;

    let (status, list) = http(server.addr, "GET", "/api/games", &[], "").await;
    assert_eq!(status, 200);
    let list: Value = serde_json::from_str(&list).unwrap();
    assert_eq!(list[0]["id"], "board-1/1");
    assert_eq!(list[0]["plies"], 57);

    for path in ["/api/games/board-1%2F1/pgn", "/api/games/board-1/1/pgn"] {
        let (status, pgn) = http(server.addr, "GET", path, &[], "").await;
        assert_eq!(status, 200, "{path}");
        for tag in [
            "[Event ", "[Site ", "[Date ", "[Round ", "[White ", "[Black ", "[Result ",
        ] {
            assert!(pgn.contains(tag), "{tag} missing in\n{pgn}");
        }
        assert_eq!(pgn.matches("[%clk ").count(), 57, "{pgn}");
        assert!(pgn.starts_with("[Event \"?\"]"));
        assert!(pgn.contains("1. e4 {[%clk 0:0"), "{pgn}");
        let sans: Vec<String> = events
            .iter()
            .filter_map(|e| match &e.body {
                EventBody::Move(m) => Some(m.san.clone()),
                _ => None,
            })
            .collect();
        assert_eq!(pgn_san(&pgn), sans);
    }
    let (status, game) = http(server.addr, "GET", "/api/games/board-1%2F1", &[], "").await;
    assert_eq!(status, 200);
    let game: Value = serde_json::from_str(&game).unwrap();
    let moves = game["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 57);
    assert!(
        moves
            .iter()
            .all(|m| m["white_ms"].is_u64() && m["black_ms"].is_u64())
    );
    let uci: Vec<&str> = moves.iter().map(|m| m["uci"].as_str().unwrap()).collect();
    assert_eq!(uci, expected_uci());
    assert_eq!(
        http(server.addr, "GET", "/api/games/nope", &[], "").await.0,
        404
    );
}

#[tokio::test]
async fn a_move_for_a_ply_already_sent_replaces_it_and_every_later_ply() {
    let events = capture_events();
    let server = start(test_config()).await;
    server.send(&events);
    let mut seq = events.last().unwrap().seq;
    // The core corrects ply 20: everything from ply 20 on is replaced by one move.
    let ply20 = events
        .iter()
        .find_map(|e| match &e.body {
            EventBody::Move(m) if m.ply == 20 => Some(m.clone()),
            _ => None,
        })
        .unwrap();
    seq += 1;
    let correction = Event {
        seq,
        board: "board-1".into(),
        t_ms: 400_000,
        body: EventBody::Move(MoveEvent {
            san: "Corrected".into(),
            fen: "8/8/8/8/8/8/8/K1k5 w - - 0 11".into(),
            side: Side::Black,
            ..ply20
        }),
        node: None,
        node_seq: None,
    };
    server.send(&[correction]);
    server.wait_seq(seq).await;

    let (_, game) = http(server.addr, "GET", "/api/games/board-1%2F1", &[], "").await;
    let game: Value = serde_json::from_str(&game).unwrap();
    let moves = game["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 20);
    assert_eq!(moves[19]["san"], "Corrected");
    assert_eq!(moves[18]["uci"].as_str().unwrap(), expected_uci()[18]);
    assert_eq!(game["corrections"], 1);

    let (_, boards) = http(server.addr, "GET", "/api/boards", &[], "").await;
    let boards: Value = serde_json::from_str(&boards).unwrap();
    assert_eq!(boards[0]["fen"], "8/8/8/8/8/8/8/K1k5 w - - 0 11");
    assert_eq!(boards[0]["last_move"]["san"], "Corrected");
    let mut ws = ws_connect(&format!("ws://{}/ws", server.addr)).await;
    let snap = next_json(&mut ws).await;
    assert_eq!(snap["boards"][0]["moves"].as_array().unwrap().len(), 20);
}

#[tokio::test]
async fn health_and_metrics_describe_the_hall() {
    let events = capture_events();
    let server = start(test_config()).await;
    server.send(&events);
    server.wait_seq(events.last().unwrap().seq).await;
    let (status, health) = http(server.addr, "GET", "/health", &[], "").await;
    assert_eq!(status, 200);
    let health: Value = serde_json::from_str(&health).unwrap();
    assert_eq!(health["status"], "ok");
    assert_eq!(health["boards"], 1);
    let (status, metrics) = http(server.addr, "GET", "/metrics", &[], "").await;
    assert_eq!(status, 200);
    for line in [
        "dgt_boards_connected 0",
        "dgt_events_total{type=\"move\"} 57",
        "dgt_alerts_total{kind=\"board_disconnected\",severity=\"review\"} 1",
        "dgt_ws_clients{feed=\"arbiter\"} 0",
        "dgt_ws_lagging_clients_total 0",
    ] {
        assert!(
            metrics.lines().any(|l| l == line),
            "{line} missing in\n{metrics}"
        );
    }
}

/// `POST /api/alerts/{id}/confirm` forwards a two-handed-move suspicion to the core as a
/// `confirm` op; any other alert is refused (400), an unknown id is 404.
#[tokio::test]
async fn only_a_two_handed_move_can_be_confirmed() {
    use dgt_core::{Alert, AlertKind, Severity};
    let events = capture_events();
    let mut server = start(test_config()).await;
    server.send(&events);
    let mut seq = events.last().unwrap().seq;
    let mut raise = |kind| {
        seq += 1;
        let mut a = Alert::new(kind, Severity::Review, "fide-2023", "suspicion".into());
        a.id = seq;
        Event {
            seq,
            board: "board-1".into(),
            t_ms: 400_000,
            body: EventBody::Alert(a),
            node: None,
            node_seq: None,
        }
    };
    let two_hands = raise(AlertKind::TwoHandedMove);
    let touch = raise(AlertKind::TouchMove);
    let (two_id, touch_id) = (two_hands.seq, touch.seq);
    server.send(&[two_hands, touch]);
    server.wait_seq(touch_id).await;
    let addr = server.addr;

    let path = |id: u64| format!("/api/alerts/{id}/confirm");
    assert_eq!(http(addr, "POST", &path(touch_id), &[], "").await.0, 400);
    assert_eq!(http(addr, "POST", &path(999_999), &[], "").await.0, 404);
    assert!(
        server.ops.try_recv().is_err(),
        "nothing refused reached the core"
    );
    let (status, body) = http(addr, "POST", &path(two_id), &[], "").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        server.next_action().await.kind,
        InputKind::Op(Operation::Confirm(two_id))
    );
}

/// The side to move of a game found under way, and a replacement board.
#[tokio::test]
async fn under_way_and_take_over_go_to_the_core() {
    let mut server = start(test_config()).await;
    let addr = server.addr;
    let (status, body) = http(
        addr,
        "POST",
        "/api/boards/board-7/under-way",
        &[],
        r#"{"to_move":"black"}"#,
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let InputKind::Op(Operation::UnderWay(u)) = server.next_action().await.kind else {
        panic!("not an under_way op")
    };
    assert_eq!(u.to_move, Side::Black);
    let (status, _) = http(
        addr,
        "POST",
        "/api/boards/board-7/under-way",
        &[],
        r#"{"to_move":"grey"}"#,
    )
    .await;
    assert_eq!(status, 400, "no such side");

    let (status, body) = http(
        addr,
        "POST",
        "/api/boards/spare/take-over",
        &[],
        r#"{"from":"board-7"}"#,
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let input = server.next_action().await;
    assert_eq!(input.board, "spare");
    let InputKind::Op(Operation::TakeOver(t)) = input.kind else {
        panic!("not a take_over op")
    };
    assert_eq!(t.from, "board-7");
    let (status, _) = http(
        addr,
        "POST",
        "/api/boards/spare/take-over",
        &[],
        r#"{"from":"spare"}"#,
    )
    .await;
    assert_eq!(status, 400, "a board cannot take over its own game");
}
