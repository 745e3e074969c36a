//! The LiveChess 2 API (dgt-protocol.md §5) on its own loopback port, so lichess, chess.com
//! and broadcast tools that speak to DGT LiveChess can use our boards: the WebSocket
//! `/api/v1.0` (`eboards`, `subscribe` to `eboardevent`, `call` → `setup` / `flip`) and
//! `GET /api/v1.0/eboards`. The move list (`san`) is built only from our `move` events, so a
//! result gesture or a guessed move can never appear in it.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use axum::Router;
use axum::extract::State;
use axum::extract::ws::{Message, Utf8Bytes, WebSocket, WebSocketUpgrade};
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use dgt_core::input::SetupOp;
use dgt_core::{Input, InputKind, Operation, Side};
use serde_json::{Value, json};
use tokio::sync::broadcast::error::RecvError;

use crate::App;
use crate::feed::Desk;
use crate::hall::{BoardView, STANDARD_START};
use crate::metrics::ClientGuard;

/// The routes of the LiveChess port. Any Origin is accepted: the port is loopback only.
pub(crate) fn router(app: Arc<App>) -> Router {
    Router::new()
        .route("/api/v1.0", get(socket))
        .route("/api/v1.0/eboards", get(eboards_rest))
        .with_state(app)
}

fn epoch_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// The board's serial number as LiveChess names it: the serial the board reported, else our
/// label.
fn serialnr(b: &BoardView) -> String {
    b.status
        .as_ref()
        .and_then(|s| s.serial.clone())
        .unwrap_or_else(|| b.board.clone())
}

fn find_board<'a>(desk: &'a Desk, serial: &str) -> Option<&'a BoardView> {
    desk.hall
        .boards()
        .find(|b| serialnr(b) == serial || b.board == serial)
}

/// The `clock` object: seconds left, `run` true while White's clock runs, `time` the epoch
/// ms of the reading.
fn clock_json(desk: &Desk, b: &BoardView) -> Value {
    let Some(c) = &b.clock else {
        return Value::Null;
    };
    let age = desk.now_t_ms().saturating_sub(c.t_ms);
    json!({
        "white": c.white_ms.map(|ms| ms / 1000),
        "black": c.black_ms.map(|ms| ms / 1000),
        "run": c.running.map(|s| s == Side::White),
        "time": epoch_ms().saturating_sub(age),
    })
}

/// One `eboard` object (§5.4).
fn eboard(desk: &Desk, b: &BoardView) -> Value {
    let source = b.status.as_ref().and_then(|s| s.port.clone());
    json!({
        "serialnr": serialnr(b),
        "source": source.unwrap_or_else(|| b.board.clone()),
        "state": if b.is_connected() { "ACTIVE" } else { "NOTRESPONDING" },
        "battery": if b.battery_low { Value::from("10%") } else { Value::Null },
        "comment": null,
        "board": b.placement(),
        "flipped": b.is_rotated(),
        "clock": clock_json(desk, b),
    })
}

fn eboards(desk: &Desk) -> Value {
    Value::Array(desk.hall.boards().map(|b| eboard(desk, b)).collect())
}

/// `GET /api/v1.0/eboards`
async fn eboards_rest(State(app): State<Arc<App>>) -> Response {
    let mut r = eboards(&app.feed.desk()).to_string().into_response();
    let h = r.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    h.insert(
        header::ACCESS_CONTROL_ALLOW_ORIGIN,
        HeaderValue::from_static("*"),
    );
    r
}

/// One `eboardevent` subscription: the board and what was last sent, so `board` and `clock`
/// are sent only when they change and identical messages are not repeated.
struct Subscription {
    board: String,
    last_board: Option<Value>,
    last_clock: Option<Value>,
    last_sent: Option<Value>,
}

impl Subscription {
    /// The feed `param` when something changed since the last one sent.
    fn next(&mut self, desk: &Desk) -> Option<Value> {
        let b = desk.hall.board(&self.board)?;
        let game = desk.hall.current_game(&self.board);
        let placement = json!(b.placement());
        let clock = clock_json(desk, b);
        let mut param = json!({
            "serialnr": serialnr(b),
            "flipped": b.is_rotated(),
            "start": game.and_then(|g| g.start_fen.clone()).unwrap_or_else(|| STANDARD_START.into()),
            "san": game.map(|g| g.san_list()).unwrap_or_default(),
            "match": b.irregular_placement.is_none(),
        });
        if self.last_board.as_ref() != Some(&placement) {
            param["board"] = placement.clone();
        }
        // `time` moves with the wall clock; compare the reading itself.
        let reading = json!([clock["white"], clock["black"], clock["run"]]);
        if self.last_clock.as_ref() != Some(&reading) {
            param["clock"] = clock;
        }
        if self.last_sent.as_ref() == Some(&param) {
            return None;
        }
        self.last_board = Some(placement);
        self.last_clock = Some(reading);
        self.last_sent = Some(param.clone());
        Some(param)
    }
}

async fn socket(State(app): State<Arc<App>>, upgrade: WebSocketUpgrade) -> Response {
    upgrade.on_upgrade(move |socket| async move {
        let _counted = ClientGuard::new(&app.gauges.livechess_clients);
        session(socket, &app).await;
    })
}

fn envelope(response: &str, id: &Value, param: Value) -> Utf8Bytes {
    Utf8Bytes::from(
        json!({ "response": response, "id": id, "param": param, "time": epoch_ms() }).to_string(),
    )
}

fn failure(id: &Value, message: &str) -> Utf8Bytes {
    envelope("error", id, json!({ "message": message }))
}

/// One LiveChess client: calls in, call responses and feed messages out.
async fn session(mut socket: WebSocket, app: &App) {
    let mut live = app.feed.subscribe();
    let mut subs: BTreeMap<i64, Subscription> = BTreeMap::new();
    let mut shutdown = app.shutdown.clone();
    let timeout = Duration::from_millis(app.config.send_timeout_ms);
    loop {
        let mut out: Vec<Utf8Bytes> = Vec::new();
        tokio::select! {
            incoming = socket.recv() => match incoming {
                Some(Ok(Message::Text(text))) => out = handle_call(app, &mut subs, &text).await,
                Some(Ok(Message::Close(_))) | None | Some(Err(_)) => return,
                Some(Ok(_)) => {}
            },
            frame = live.recv() => {
                let refresh_all = matches!(frame, Err(RecvError::Lagged(_)));
                if matches!(frame, Err(RecvError::Closed)) {
                    return;
                }
                let board = frame.ok().map(|f| f.board.clone());
                let desk = app.feed.desk();
                for (id, sub) in subs.iter_mut() {
                    if (refresh_all || board.as_deref() == Some(sub.board.as_str()))
                        && let Some(param) = sub.next(&desk)
                    {
                        out.push(envelope("feed", &json!(id), param));
                    }
                }
            },
            _ = crate::stop_requested(&mut shutdown) => return,
        }
        for text in out {
            match tokio::time::timeout(timeout, socket.send(Message::Text(text))).await {
                Ok(Ok(())) => {}
                _ => return,
            }
        }
    }
}

/// Answers one client message; the replies to send, in order.
async fn handle_call(
    app: &App,
    subs: &mut BTreeMap<i64, Subscription>,
    text: &str,
) -> Vec<Utf8Bytes> {
    let Ok(request) = serde_json::from_str::<Value>(text) else {
        return vec![failure(&Value::Null, "not a JSON object")];
    };
    let id = request.get("id").cloned().unwrap_or(Value::Null);
    let param = request.get("param").cloned().unwrap_or(Value::Null);
    match request.get("call").and_then(Value::as_str) {
        Some("eboards") => vec![envelope("call", &id, eboards(&app.feed.desk()))],
        Some("subscribe") => {
            let feed = param.get("feed").and_then(Value::as_str);
            let feed_id = param.get("id").and_then(Value::as_i64);
            let serial = param.pointer("/param/serialnr").and_then(Value::as_str);
            let (Some("eboardevent"), Some(feed_id), Some(serial)) = (feed, feed_id, serial) else {
                return vec![failure(
                    &id,
                    "subscribe needs feed \"eboardevent\", an id and param.serialnr",
                )];
            };
            let desk = app.feed.desk();
            let Some(board) = find_board(&desk, serial) else {
                return vec![failure(&id, &format!("no eboard with serialnr {serial}"))];
            };
            let mut sub = Subscription {
                board: board.board.clone(),
                last_board: None,
                last_clock: None,
                last_sent: None,
            };
            // The full state goes out straight after the ack (§5.3).
            let mut replies = vec![envelope("call", &id, Value::Null)];
            if let Some(state) = sub.next(&desk) {
                replies.push(envelope("feed", &json!(feed_id), state));
            }
            subs.insert(feed_id, sub);
            replies
        }
        Some("unsubscribe") => {
            if let Some(feed_id) = param.get("id").and_then(Value::as_i64) {
                subs.remove(&feed_id);
            }
            vec![envelope("call", &id, Value::Null)]
        }
        Some("call") => {
            let board = param
                .get("id")
                .and_then(Value::as_i64)
                .and_then(|f| subs.get(&f))
                .map(|s| s.board.clone());
            let Some(board) = board else {
                return vec![failure(&id, "call needs the id of a subscribed feed")];
            };
            let setup = match param.get("method").and_then(Value::as_str) {
                Some("setup") => match param.pointer("/param/fen").and_then(Value::as_str) {
                    Some(fen) => SetupOp {
                        fen: Some(fen.to_string()),
                        ..SetupOp::default()
                    },
                    None => return vec![failure(&id, "setup needs param.fen")],
                },
                Some("flip") => SetupOp {
                    rotated: Some(
                        param
                            .pointer("/param/flip")
                            .and_then(Value::as_bool)
                            .unwrap_or(true),
                    ),
                    ..SetupOp::default()
                },
                _ => {
                    return vec![failure(
                        &id,
                        "unknown method (setup and flip are supported)",
                    )];
                }
            };
            let input = Input {
                t_ms: app.now_ms(),
                board,
                kind: InputKind::Op(Operation::Setup(setup)),
            };
            match tokio::time::timeout(Duration::from_secs(2), app.ops.send(input)).await {
                Ok(Ok(())) => vec![envelope("call", &id, Value::Null)],
                _ => vec![failure(&id, "the daemon is not taking actions right now")],
            }
        }
        Some(other) => vec![failure(&id, &format!("unknown call {other:?}"))],
        None => vec![failure(&id, "missing \"call\"")],
    }
}
