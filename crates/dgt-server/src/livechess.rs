//! The LiveChess 2 API (dgt-protocol.md §5) on its own loopback port, so lichess, chess.com
//! and broadcast tools that speak to DGT LiveChess can use our boards: the WebSocket
//! `/api/v1.0` (`eboards`, `subscribe` to `eboardevent`, `call` → `setup` / `flip`) and
//! `GET /api/v1.0/eboards`. The move list (`san`) is built only from our `move` events, so a
//! result gesture or a guessed move can never appear in it.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::State;
use axum::extract::ws::{Message, Utf8Bytes, WebSocket, WebSocketUpgrade};
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use dgt_core::input::{SetupOp, StartFen};
use dgt_core::{Input, InputKind, Operation};
use serde_json::{Value, json};
use tokio::sync::broadcast::error::RecvError;

use crate::App;
use crate::feed::Desk;
use crate::hall::{BoardView, STANDARD_START};
use crate::livechess_view::{clock_json, epoch_ms, serialnr};
use crate::metrics::ClientGuard;
use crate::origin::{LiveChessAccess, livechess_access};

/// A `setup` a LiveChess client sent for a board: until the board's next game begins, the
/// board's feed starts at this position with an empty move list (the board-play client
/// rebuilds its game from there).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingSetup {
    pub fen: String,
    /// The board's game when the setup came; a different one is the new game.
    pub game_then: Option<String>,
}

type Setups = std::sync::Mutex<BTreeMap<String, PendingSetup>>;

/// The routes of the LiveChess port (loopback only), behind the Origin rule of
/// [`crate::origin`]: listed pages read, only pages allowed to act `setup` / `flip`.
pub(crate) fn router(app: Arc<App>) -> Router {
    Router::new()
        .route("/api/v1.0", get(socket))
        .route("/api/v1.0/eboards", get(eboards_rest))
        .route(
            "/api/v1.0/tournaments",
            get(crate::livechess_rest::tournaments),
        )
        .route(
            "/api/v1.0/tournament/{uuid}",
            get(crate::livechess_rest::tournament),
        )
        .route(
            "/api/v1.0/round/{uuid}/{n}",
            get(crate::livechess_rest::round),
        )
        .route("/api/v1.0/game/{uuid}", get(crate::livechess_rest::game))
        .layer(axum::middleware::from_fn_with_state(
            app.clone(),
            crate::origin::livechess_guard,
        ))
        .with_state(app)
}

fn find_board<'a>(desk: &'a Desk, serial: &str) -> Option<&'a BoardView> {
    desk.hall
        .boards()
        .find(|b| serialnr(b) == serial || b.board == serial)
}

/// The eboard `state` (§5.4): `null` for a board that never reported (known only from an
/// action), `NOTRESPONDING` while its link is down, `INACTIVE` for a board present whose
/// table has no pairing in the current round (the pairing leaves it out of play), else
/// `ACTIVE`.
fn state(desk: &Desk, b: &BoardView) -> Value {
    if b.status.is_none() {
        return Value::Null;
    }
    if !b.is_connected() {
        return "NOTRESPONDING".into();
    }
    let hall = &desk.hall;
    let unpaired = hall.book().current().is_some() && hall.pairing_of_board(&b.board).is_none();
    if unpaired { "INACTIVE" } else { "ACTIVE" }.into()
}

/// One `eboard` object (§5.4).
fn eboard(desk: &Desk, b: &BoardView) -> Value {
    let source = b.status.as_ref().and_then(|s| s.port.clone());
    json!({
        "serialnr": serialnr(b),
        "source": source.unwrap_or_else(|| b.board.clone()),
        "state": state(desk, b),
        // A battery level is never read from a board here (USB boards have none to tell,
        // and a clock's low-battery flag is not a level): always unknown.
        "battery": Value::Null,
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
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
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

/// What a feed message is built from, copied out of the desk so the lock is held only for
/// the copy, not while messages are built and compared.
struct BoardSnap {
    serialnr: String,
    flipped: bool,
    placement: Value,
    clock: Value,
    matched: bool,
    game: Option<String>,
    start_fen: Option<String>,
    san: Vec<String>,
}

fn snap(desk: &Desk, board: &str) -> Option<BoardSnap> {
    let b = desk.hall.board(board)?;
    let game = desk.hall.current_game(board);
    Some(BoardSnap {
        serialnr: serialnr(b),
        flipped: b.is_rotated(),
        placement: json!(b.placement()),
        clock: clock_json(desk, b),
        matched: b.irregular_placement.is_none(),
        game: game.map(|g| g.id.clone()),
        start_fen: game.and_then(|g| g.start_fen.clone()),
        san: game.map(|g| g.san_list()).unwrap_or_default(),
    })
}

/// Copies of the boards `boards` names, taken under one short hold of the desk.
fn snaps<'a>(app: &App, boards: impl Iterator<Item = &'a str>) -> BTreeMap<String, BoardSnap> {
    let desk = app.feed.desk();
    boards
        .filter_map(|b| snap(&desk, b).map(|s| (b.to_string(), s)))
        .collect()
}

impl Subscription {
    /// The feed `param` when something changed since the last one sent.
    fn next(&mut self, b: &BoardSnap, setups: &Setups) -> Option<Value> {
        // After a `setup` the move list restarts at its position until the board's next
        // game begins (the board-play client rebuilds the game from `start` and `san`).
        let pending = {
            let mut setups = setups.lock().unwrap_or_else(|p| p.into_inner());
            match setups.get(&self.board) {
                Some(p) if p.game_then == b.game => Some(p.fen.clone()),
                Some(_) => {
                    setups.remove(&self.board);
                    None
                }
                None => None,
            }
        };
        let (start, san) = match pending {
            Some(fen) => (fen, Vec::new()),
            None => (
                b.start_fen.clone().unwrap_or_else(|| STANDARD_START.into()),
                b.san.clone(),
            ),
        };
        let mut param = json!({
            "serialnr": b.serialnr,
            "flipped": b.flipped,
            "start": start,
            "san": san,
            "match": b.matched,
        });
        if self.last_board.as_ref() != Some(&b.placement) {
            param["board"] = b.placement.clone();
        }
        // `time` moves with the wall clock; compare the reading itself.
        let clock = &b.clock;
        let reading = json!([clock["white"], clock["black"], clock["run"]]);
        if self.last_clock.as_ref() != Some(&reading) {
            param["clock"] = clock.clone();
        }
        if self.last_sent.as_ref() == Some(&param) {
            return None;
        }
        self.last_board = Some(b.placement.clone());
        self.last_clock = Some(reading);
        self.last_sent = Some(param.clone());
        Some(param)
    }
}

async fn socket(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    upgrade: WebSocketUpgrade,
) -> Response {
    // `livechess_guard` already refused pages from origins not listed.
    let access = livechess_access(&app.config, &headers);
    crate::ws::small_frames(upgrade, crate::ws::CALL_MESSAGE_MAX).on_upgrade(
        move |socket| async move {
            let _counted = ClientGuard::new(&app.gauges.livechess_clients);
            session(socket, &app, access).await;
        },
    )
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
async fn session(mut socket: WebSocket, app: &App, access: LiveChessAccess) {
    let mut live = app.feed.subscribe();
    let mut subs: BTreeMap<i64, Subscription> = BTreeMap::new();
    let mut shutdown = app.shutdown.clone();
    let timeout = Duration::from_millis(app.config.send_timeout_ms);
    loop {
        let mut out: Vec<Utf8Bytes> = Vec::new();
        tokio::select! {
            incoming = socket.recv() => match incoming {
                Some(Ok(Message::Text(text))) => {
                    out = handle_call(app, &mut subs, &text, access).await;
                }
                Some(Ok(Message::Close(_))) | None | Some(Err(_)) => return,
                Some(Ok(_)) => {}
            },
            frame = live.recv() => {
                let refresh_all = matches!(frame, Err(RecvError::Lagged(_)));
                if matches!(frame, Err(RecvError::Closed)) {
                    return;
                }
                let board = frame.ok().map(|f| f.board.clone());
                let wanted = |sub: &Subscription| {
                    refresh_all || board.as_deref() == Some(sub.board.as_str())
                };
                let boards = snaps(app, subs.values().filter(|s| wanted(s)).map(|s| s.board.as_str()));
                for (id, sub) in subs.iter_mut() {
                    if wanted(sub)
                        && let Some(b) = boards.get(&sub.board)
                        && let Some(param) = sub.next(b, &app.setups)
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
    access: LiveChessAccess,
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
            let cap = app.config.livechess_max_subscriptions;
            if subs.len() >= cap && !subs.contains_key(&feed_id) {
                app.gauges
                    .refused_subscriptions
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                return vec![failure(
                    &id,
                    &format!("at most {cap} subscriptions per client: unsubscribe one first"),
                )];
            }
            let found = {
                let desk = app.feed.desk();
                find_board(&desk, serial)
                    .and_then(|b| snap(&desk, &b.board).map(|s| (b.board.clone(), s)))
            };
            let Some((board, state)) = found else {
                return vec![failure(&id, &format!("no eboard with serialnr {serial}"))];
            };
            let mut sub = Subscription {
                board,
                last_board: None,
                last_clock: None,
                last_sent: None,
            };
            // The full state goes out straight after the ack (§5.3).
            let mut replies = vec![envelope("call", &id, Value::Null)];
            if let Some(state) = sub.next(&state, &app.setups) {
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
            if access != LiveChessAccess::Act {
                return vec![failure(
                    &id,
                    "this client may only read: setup and flip need an Origin listed in \
                     server.livechess_action_origins (\"none\" for programs that send no Origin)",
                )];
            }
            let flip = param.pointer("/param/flip").and_then(Value::as_bool);
            let fen = param.pointer("/param/fen").and_then(Value::as_str);
            let setup = match (param.get("method").and_then(Value::as_str), fen, flip) {
                (Some("setup"), Some(fen), _) => match StartFen::parse(fen) {
                    Ok(fen) => SetupOp {
                        fen: Some(fen),
                        rotated: flip,
                        ..SetupOp::default()
                    },
                    Err(e) => return vec![failure(&id, &e.to_string())],
                },
                // One client's builder sends `flip` as method "setup" (§5.3): it is a flip.
                (Some("setup"), None, Some(flip)) | (Some("flip"), _, Some(flip)) => SetupOp {
                    rotated: Some(flip),
                    ..SetupOp::default()
                },
                (Some("flip"), _, None) => SetupOp {
                    rotated: Some(true),
                    ..SetupOp::default()
                },
                (Some("setup"), None, None) => {
                    return vec![failure(&id, "setup needs param.fen (or param.flip)")];
                }
                _ => {
                    return vec![failure(
                        &id,
                        "unknown method (setup and flip are supported)",
                    )];
                }
            };
            if let Some(fen) = &setup.fen {
                let game_then = app
                    .feed
                    .desk()
                    .hall
                    .board(&board)
                    .and_then(|b| b.game.clone());
                app.setups.lock().unwrap_or_else(|p| p.into_inner()).insert(
                    board.clone(),
                    PendingSetup {
                        fen: fen.to_string(),
                        game_then,
                    },
                );
            }
            let input = Input {
                t_ms: app.now_ms(),
                board: board.clone(),
                kind: InputKind::Op(Operation::Setup(setup)),
            };
            match tokio::time::timeout(Duration::from_secs(2), app.ops.send(input)).await {
                Ok(Ok(())) => {
                    let mut replies = vec![envelope("call", &id, Value::Null)];
                    // The feeds of the board restart at the new position at once.
                    let state = snaps(app, std::iter::once(board.as_str()));
                    if let Some(b) = state.get(&board) {
                        for (feed_id, sub) in subs.iter_mut().filter(|(_, s)| s.board == board) {
                            if let Some(param) = sub.next(b, &app.setups) {
                                replies.push(envelope("feed", &json!(feed_id), param));
                            }
                        }
                    }
                    replies
                }
                _ => vec![failure(&id, "the daemon is not taking actions right now")],
            }
        }
        Some(other) => vec![failure(&id, &format!("unknown call {other:?}"))],
        None => vec![failure(&id, "missing \"call\"")],
    }
}
