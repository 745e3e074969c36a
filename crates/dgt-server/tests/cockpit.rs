//! The cockpit's access rules over REST and the feed: named arbiters with roles and
//! sections, sign-in sessions in an HttpOnly cookie, who took each action, tokens kept out
//! of URLs, and the security headers of every response.

mod common;

use common::*;
use dgt_core::{Event, EventBody, InputKind, Operation};
use dgt_pairings::TableMap;
use dgt_server::ServerConfig;
use dgt_server::access::{Account, Role, Section};
use serde_json::Value;

pub const CHIEF: (&str, &str) = ("Authorization", "Bearer carl-chief-secret-0001");
pub const FLOOR: (&str, &str) = ("Authorization", "Bearer ana-floor-secret-00002");

/// Six boards at tables 1–6; section "A" is tables 1–3, "B" tables 4–6; Ana walks B.
pub fn sectioned() -> ServerConfig {
    ServerConfig {
        tables: TableMap::new((1..=6).map(|t| (t, format!("board-{t}")))),
        sections: vec![
            Section {
                name: "A".into(),
                tables: vec![1, 2, 3],
            },
            Section {
                name: "B".into(),
                tables: vec![4, 5, 6],
            },
        ],
        arbiters: vec![
            Account {
                name: "Carl".into(),
                role: Role::Chief,
                token: "carl-chief-secret-0001".into(),
                sections: vec![],
            },
            Account {
                name: "Ana".into(),
                role: Role::Floor,
                token: "ana-floor-secret-00002".into(),
                sections: vec!["B".into()],
            },
        ],
        viewer_token: Some("viewer-secret-000003".into()),
        ..test_config()
    }
}

fn open_alert_on(events: &[Event], board: &str) -> Option<u64> {
    events.iter().rev().find_map(|e| match &e.body {
        EventBody::Alert(a) if e.board == board => Some(a.id),
        _ => None,
    })
}

#[tokio::test]
async fn a_floor_arbiter_sees_and_acts_on_their_sections_only() {
    let mut events = hall_events(6);
    let next = events.last().unwrap().seq + 1;
    let mut a = dgt_core::Alert::new(
        dgt_core::AlertKind::IllegalMove,
        dgt_core::Severity::Intervene,
        "fide-2023",
        "White completed an illegal move".into(),
    );
    a.id = next;
    events.push(Event::new(next, "board-5", 2_000_000, EventBody::Alert(a)));
    let mut server = start(sectioned()).await;
    server.send(&events);
    server.wait_seq(events.last().unwrap().seq).await;
    let addr = server.addr;

    // Ana (section B: boards 4–6) sees three boards; the chief sees six.
    let (code, _, body) = request(addr, "GET", "/api/boards", &[FLOOR], "").await;
    assert_eq!(code, 200);
    let boards: Vec<Value> = serde_json::from_str(&body).unwrap();
    let names: Vec<&str> = boards
        .iter()
        .map(|b| b["board"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["board-4", "board-5", "board-6"]);
    assert_eq!(boards[0]["section"], "B");
    assert_eq!(boards[0]["table"], 4);
    let (_, _, body) = request(addr, "GET", "/api/boards", &[CHIEF], "").await;
    assert_eq!(serde_json::from_str::<Vec<Value>>(&body).unwrap().len(), 6);

    // Alerts: only section B's.
    let (_, _, body) = request(addr, "GET", "/api/alerts", &[FLOOR], "").await;
    let alerts: Vec<Value> = serde_json::from_str(&body).unwrap();
    assert!(!alerts.is_empty());
    assert!(
        alerts
            .iter()
            .all(|a| ["board-4", "board-5", "board-6"].contains(&a["board"].as_str().unwrap()))
    );
    // Another section's board: refused, to read and to act.
    assert_eq!(
        request(addr, "GET", "/api/boards/board-1", &[FLOOR], "")
            .await
            .0,
        403
    );
    let result = r#"{"result":"1-0"}"#;
    let (code, _, body) =
        request(addr, "POST", "/api/boards/board-2/result", &[FLOOR], result).await;
    assert_eq!(code, 403, "{body}");
    assert!(body.contains("not in your sections"));
    let other_alert = open_alert_on(&events, "board-1").unwrap();
    assert_eq!(
        request(
            addr,
            "POST",
            &format!("/api/alerts/{other_alert}/ack"),
            &[FLOOR],
            ""
        )
        .await
        .0,
        403
    );
    // Nothing reached the core.
    assert!(server.ops.try_recv().is_err());

    // Her own board: the action reaches the core, and then who took it.
    let (code, _, _) = request(addr, "POST", "/api/boards/board-5/result", &[FLOOR], result).await;
    assert_eq!(code, 200);
    let op = server.ops.recv().await.unwrap();
    assert_eq!(op.board, "board-5");
    assert_eq!(
        op.kind,
        InputKind::Op(Operation::Result("1-0".parse().unwrap()))
    );
    let by = server.ops.recv().await.unwrap();
    let InputKind::Op(Operation::By(by)) = by.kind else {
        panic!("no signature: {by:?}")
    };
    assert_eq!((by.arbiter.as_str(), by.role.as_str()), ("Ana", "floor"));
    assert_eq!(*by.action, Operation::Result("1-0".parse().unwrap()));

    // The feed: her snapshot holds only section B's boards and alerts.
    let mut ws = ws_connect(&format!("ws://{addr}/ws?token=ana-floor-secret-00002")).await;
    let snap = next_json(&mut ws).await;
    assert_eq!(snap["type"], "snapshot");
    let boards: Vec<&str> = snap["boards"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["board"].as_str().unwrap())
        .collect();
    assert_eq!(boards, ["board-4", "board-5", "board-6"]);
    assert!(
        snap["alerts"]
            .as_array()
            .unwrap()
            .iter()
            .all(|a| a["board"] != "board-1")
    );

    // The viewer reads everything and acts on nothing.
    let viewer = ("Authorization", "Bearer viewer-secret-000003");
    let (_, _, body) = request(addr, "GET", "/api/boards", &[viewer], "").await;
    assert_eq!(serde_json::from_str::<Vec<Value>>(&body).unwrap().len(), 6);
    assert_eq!(
        request(
            addr,
            "POST",
            "/api/boards/board-5/result",
            &[viewer],
            result
        )
        .await
        .0,
        403
    );
}

#[tokio::test]
async fn the_arbiter_action_event_names_who_acknowledged() {
    let mut events = hall_events(2);
    let alert = open_alert_on(&events, "board-1").unwrap();
    let next = events.last().unwrap().seq + 1;
    events.push(Event::new(
        next,
        "board-1",
        events.last().unwrap().t_ms,
        EventBody::ArbiterAction(dgt_core::input::ActionBy {
            arbiter: "Carl".into(),
            role: "chief".into(),
            action: Box::new(Operation::Ack(alert)),
        }),
    ));
    let server = start(sectioned()).await;
    server.send(&events);
    server.wait_seq(next).await;
    let (_, _, body) = request(server.addr, "GET", "/api/alerts", &[CHIEF], "").await;
    let alerts: Vec<Value> = serde_json::from_str(&body).unwrap();
    let a = alerts.iter().find(|a| a["id"] == alert).unwrap();
    assert_eq!(a["acked"], true);
    assert_eq!(a["acked_by"], "Carl");
}

#[tokio::test]
async fn signing_in_trades_the_token_for_an_http_only_cookie() {
    let server = start(sectioned()).await;
    let addr = server.addr;
    // The page itself carries the security headers.
    let (code, head, _) = request(addr, "GET", "/signin", &[], "").await;
    assert_eq!(code, 200);
    assert_eq!(
        header(&head, "content-security-policy"),
        Some("default-src 'self'; frame-ancestors 'none'")
    );
    assert_eq!(header(&head, "referrer-policy"), Some("no-referrer"));
    let (_, head, _) = request(addr, "GET", "/api/boards", &[CHIEF], "").await;
    assert_eq!(header(&head, "referrer-policy"), Some("no-referrer"));

    // A wrong token: no session.
    let (code, head, _) = request(
        addr,
        "POST",
        "/api/session",
        &[],
        r#"{"token":"ana-floor-secret-0000X"}"#,
    )
    .await;
    assert_eq!(code, 401);
    assert!(header(&head, "set-cookie").is_none());

    let (code, head, body) = request(
        addr,
        "POST",
        "/api/session",
        &[],
        r#"{"token":"ana-floor-secret-00002"}"#,
    )
    .await;
    assert_eq!(code, 200, "{body}");
    let who: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(who["name"], "Ana");
    assert_eq!(who["role"], "floor");
    assert_eq!(who["sections"][0], "B");
    let cookie = header(&head, "set-cookie").unwrap().to_string();
    assert!(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"));
    assert!(
        !cookie.contains("ana-floor-secret"),
        "the token is not the cookie"
    );
    let session = cookie.split(';').next().unwrap().to_string();

    let jar = ("Cookie", session.as_str());
    let (code, _, body) = request(addr, "GET", "/api/session", &[jar], "").await;
    assert_eq!(code, 200);
    assert_eq!(serde_json::from_str::<Value>(&body).unwrap()["name"], "Ana");
    assert_eq!(request(addr, "GET", "/api/boards", &[jar], "").await.0, 200);
    // Signed out: the session is gone on the server.
    let (code, head, _) = request(addr, "DELETE", "/api/session", &[jar], "").await;
    assert_eq!(code, 200);
    assert!(header(&head, "set-cookie").unwrap().contains("Max-Age=0"));
    assert_eq!(request(addr, "GET", "/api/boards", &[jar], "").await.0, 401);
    // Tokens in URLs are refused beyond the WebSocket.
    assert_eq!(
        request(
            addr,
            "GET",
            "/api/boards?token=carl-chief-secret-0001",
            &[],
            ""
        )
        .await
        .0,
        400
    );
}
