//! The dashboard in a real browser: headless Chromium driven over the DevTools protocol.
//! The page must draw the boards, show a move and an alert as they arrive, acknowledge the
//! alert with its button, and the acknowledgement must reach a second client. Screenshots go
//! to /tmp/dashboard.png and /tmp/dashboard-board.png.
//!
//! Skipped, with a notice, only when no Chromium is installed and `CI` is unset.

mod common;

use std::time::Duration;

use common::*;
use dgt_core::{Alert, AlertKind, Event, EventBody, InputKind, Operation, Severity, Side};
use dgt_testkit::cdp::{Cdp, chromium_or_skip, launch};
use serde_json::json;

/// An illegal move by Black in the final position of the real game: the king steps into
/// the rook's line (the kind of alert the arbiter must act on).
fn illegal_move_alert(seq: u64, before: &str) -> Event {
    let mut a = Alert::new(
        AlertKind::IllegalMove,
        Severity::Intervene,
        "fide-2023",
        "Black completed an illegal move, Kg8-h8 (the king stands in check from the rook on h7): Black's first illegal move.".into(),
    );
    a.id = seq;
    a.side = Some(Side::Black);
    a.article = Some("7.5.1".into());
    a.ply = Some(58);
    a.game = Some("board-2/1".into());
    a.fen_before = Some(before.to_string());
    a.fen = Some("r6k/p1p2rpR/1p3BQ1/2p1p3/4P3/3P3P/bPn3P1/6K1 w - - 6 30".into());
    a.prescription = Some(
        "Restore the position before the illegal move and let Black make a legal king move (4.3); give White two extra minutes (7.5.5). A second illegal move by Black loses the game.".into(),
    );
    a.squares = vec!["g8".into(), "h8".into()];
    a.uci = Some("g8h8".into());
    Event {
        seq,
        board: "board-2".into(),
        t_ms: 1_000_000,
        body: EventBody::Alert(a),
        node: None,
        node_seq: None,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_dashboard_shows_moves_and_alerts_and_acks_reach_other_clients() {
    let Some(binary) = chromium_or_skip("browser test") else {
        return;
    };
    let events = hall_events(6);
    let mut server = start(test_config()).await;
    // Everything but board-2's last move, which arrives while the page watches.
    let last_move_2 = events
        .iter()
        .rposition(|e| e.board == "board-2" && matches!(e.body, EventBody::Move(_)))
        .unwrap();
    // A node's move (as a hub serves it), so that it can be previewed.
    let held = of_node(events[last_move_2].clone(), 500);
    let before: Vec<Event> = events
        .iter()
        .filter(|e| e.seq != held.seq)
        .cloned()
        .collect();
    let mut last_seq = events.last().unwrap().seq;
    server.send(&before);
    server.wait_seq(last_seq).await;

    let profile = std::env::temp_dir().join(format!("dgt-browser-{}", std::process::id()));
    let (chrome, endpoint) = launch(&binary, &profile).await;
    let mut cdp = Cdp::new_page(&endpoint).await;
    cdp.open_desktop(&format!("http://{}/#/cards", server.addr))
        .await;

    // Six boards drawn as chessboards with pieces.
    cdp.wait_for("document.querySelectorAll('#hall .card').length === 6")
        .await;
    cdp.wait_for("document.querySelector('#conn').textContent === 'live'")
        .await;
    assert_eq!(
        cdp.eval("document.querySelectorAll('#hall .card svg .piece').length > 60")
            .await,
        json!(true)
    );
    assert_eq!(
        cdp.eval("document.querySelectorAll('#hall .card .sq-last').length >= 10")
            .await,
        json!(true)
    );
    // A bughouse drop marks the one square the piece was put on.
    assert_eq!(
        cdp.eval(
            "(Diagram.svg('8/8/8/8/8/7n/8/8 w - - 0 1', { lastMove: 'N@h3' }).match(/sq-last/g) || []).length"
        )
        .await,
        json!(1)
    );

    // A bughouse board's reserves arrive: shown as glyphs under its card.
    last_seq += 1;
    let game = match &held.body {
        EventBody::Move(m) => m.game.clone(),
        _ => unreachable!(),
    };
    server.send(&[Event {
        seq: last_seq,
        board: "board-3".into(),
        t_ms: held.t_ms,
        body: EventBody::Reserves {
            game,
            white: "NP".into(),
            black: String::new(),
        },
        node: None,
        node_seq: None,
    }]);
    cdp.wait_for(
        "[...document.querySelectorAll('#hall .card')].some(c => c.dataset.open === 'board-3' && (c.querySelector('.res-white') || {}).textContent === 'White \\u265E\\u265F' && c.querySelector('.res-black').textContent === 'Black \\u2014')",
    )
    .await;

    // A move arrives.
    let EventBody::Move(m) = &held.body else {
        unreachable!()
    };
    // First as a preview (a hub's first sight of a node's event, before the stream numbers
    // it): drawn at once.
    let moves_before = cdp.eval("hall.boards.get('board-2').moves.length").await;
    server.previews.send(std::slice::from_ref(&held));
    let shown = format!("{}… {}", m.ply.div_ceil(2), m.san);
    cdp.wait_for(&format!(
        "[...document.querySelectorAll('#hall .card')].some(c => c.dataset.open === 'board-2' && c.querySelector('.last').textContent === {})",
        json!(shown)
    ))
    .await;
    assert_eq!(
        cdp.eval("hall.seq").await,
        json!(last_seq),
        "a preview has no seq"
    );
    // Then numbered, with a newer seq as the hub would give it (the page is sent only the
    // numbers): the same move, not twice.
    last_seq += 1;
    let mut arriving = held.clone();
    arriving.seq = last_seq;
    server.send(&[arriving]);
    cdp.wait_for(&format!("hall.seq === {last_seq}")).await;
    assert_eq!(
        cdp.eval("hall.boards.get('board-2').moves.length").await,
        json!(moves_before.as_u64().unwrap() + 1)
    );

    // An alert arrives, previewed then numbered: in the queue, first (intervene), with
    // evidence and a button that acknowledges it by its number.
    last_seq += 1;
    let alert = of_node(illegal_move_alert(last_seq, &m.fen), 501);
    server.previews.send(std::slice::from_ref(&alert));
    server.send(&[alert]);
    let button = format!("document.querySelector('#alerts [data-ack=\"{last_seq}\"]')");
    cdp.wait_for(&format!("{button} !== null")).await;
    assert_eq!(
        cdp.eval(&format!(
            "document.querySelector('#alerts .alert').dataset.alert === '{last_seq}'"
        ))
        .await,
        json!(true),
        "intervene comes first"
    );
    assert_eq!(
        cdp.eval("document.querySelectorAll('#alerts .alert.sev-intervene .evidence svg').length")
            .await,
        json!(2)
    );
    assert_eq!(
        cdp.eval("document.querySelectorAll('#alerts .alert.sev-intervene .sq-mark').length")
            .await,
        json!(4)
    );
    tokio::time::sleep(Duration::from_millis(300)).await;
    cdp.screenshot("/tmp/dashboard.png").await;

    // A second dashboard is watching.
    let mut other = ws_connect(&format!("ws://{}/ws", server.addr)).await;
    assert_eq!(next_json(&mut other).await["type"], "snapshot");

    // The arbiter clicks Acknowledge.
    cdp.eval(&format!("{button}.click(), true")).await;
    let got = read_until(&mut other, |v| v["type"] == "alert_ack").await;
    assert_eq!(got.last().unwrap()["id"], last_seq);
    cdp.wait_for(&format!("{button} === null")).await;

    // A two-handed-move suspicion: the arbiter confirms it as an offence with its button;
    // the core gets the confirm op, and the suspicion is acknowledged with it.
    last_seq += 1;
    let mut two = Alert::new(
        AlertKind::TwoHandedMove,
        Severity::Review,
        "fide-2023",
        "The pieces on e1 and h1 left the board 40 ms apart: possibly a move made with two hands."
            .into(),
    );
    two.id = last_seq;
    two.side = Some(Side::White);
    server.send(&[Event {
        seq: last_seq,
        board: "board-2".into(),
        t_ms: 1_000_500,
        body: EventBody::Alert(two),
        node: None,
        node_seq: None,
    }]);
    let confirm = format!("document.querySelector('#alerts [data-confirm=\"{last_seq}\"]')");
    cdp.wait_for(&format!("{confirm} !== null")).await;
    cdp.eval(&format!("{confirm}.click(), true")).await;
    let confirmed = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            let op = server.ops.recv().await.expect("ops channel open");
            if op.kind == InputKind::Op(Operation::Confirm(last_seq)) {
                break op;
            }
        }
    })
    .await
    .expect("the confirm op reached the core");
    assert_eq!(confirmed.board, "board-2");
    cdp.wait_for(&format!("{confirm} === null")).await;

    // The board page: move list, clock history, alert history, forms.
    cdp.eval("location.hash = '#/board/board-1', true").await;
    cdp.wait_for("document.querySelectorAll('#board-page .moves tr').length === 57")
        .await;
    assert_eq!(
        cdp.eval("document.querySelector('#board-page .chart path.w') !== null")
            .await,
        json!(true)
    );
    assert_eq!(cdp.eval("document.querySelector('#claim-form') !== null && document.querySelector('#setup-form') !== null").await, json!(true));
    // The claim form offers only kinds the core accepts (any other is refused): each option
    // parses.
    let kinds = cdp
        .eval("Array.from(document.querySelectorAll('#claim-kind option')).map(o => o.value)")
        .await;
    let kinds: Vec<String> = serde_json::from_value(kinds).unwrap();
    assert_eq!(kinds, ["threefold_repetition", "fifty_move_rule", "flag"]);
    for k in &kinds {
        k.parse::<dgt_core::claim::ClaimKindName>().unwrap();
    }
    cdp.wait_for("document.querySelectorAll('#bp-history .alert').length === 2")
        .await;
    cdp.screenshot("/tmp/dashboard-board.png").await;

    // A tablet held upright still shows boards and the queue.
    cdp.call(
        "Emulation.setDeviceMetricsOverride",
        json!({ "width": 768, "height": 1024, "deviceScaleFactor": 1, "mobile": true }),
    )
    .await;
    cdp.eval("location.hash = '#/cards', true").await;
    cdp.wait_for("document.querySelectorAll('#hall .card').length === 6")
        .await;
    cdp.screenshot("/tmp/dashboard-tablet.png").await;

    // Killed, and its profile removed, when dropped.
    drop(chrome);
}
