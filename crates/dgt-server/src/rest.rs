//! The HTTP routes of the dashboard port: REST under `/api/` (boards, games, PGN, alerts and
//! the arbiter's actions), `/health`, `/metrics`, and the router that joins them with the
//! WebSocket feeds and the dashboard files. Actions go to the core as [`Input`]s.

use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use dgt_core::input::{ClaimOp, SetupOp};
use dgt_core::{AlertKind, Operation};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::App;
use crate::access::Principal;
use crate::api::{
    ApiError, ApiResult, ReadQuery, forward_by, may_act, may_read, must_cover, ok, parse_body,
};
use crate::auth;
use crate::hall::{GameRecord, Hall};
use crate::{assets, metrics, pgn, rounds, ws};

/// Every route of the dashboard port.
pub(crate) fn router(app: Arc<App>) -> Router {
    Router::new()
        .route("/", get(assets::index))
        .route("/assets/{file}", get(assets::file))
        .route("/ws", get(ws::arbiter_feed))
        .route("/ws/public", get(ws::public_feed))
        .route("/health", get(health))
        .route("/metrics", get(metrics_text))
        .route("/api/boards", get(boards))
        .route("/api/boards/{board}", get(board))
        .route("/api/boards/{board}/setup", post(setup))
        .route("/api/boards/{board}/result", post(result))
        .route("/api/boards/{board}/claim", post(claim))
        .route("/api/boards/{board}/under-way", post(under_way))
        .route("/api/boards/{board}/take-over", post(take_over))
        .route("/api/games", get(games))
        .route("/api/games/{*path}", get(game))
        .route("/api/alerts", get(alerts))
        .route("/api/alerts/{id}/ack", post(ack))
        .route("/api/alerts/{id}/confirm", post(confirm))
        .route("/api/alerts/{id}/report", get(crate::cockpit::report))
        .route("/api/boards/{board}/replay", get(crate::cockpit::replay))
        .route("/api/public/games", get(public_games))
        .route("/api/nodes", get(nodes))
        .route("/api/rounds", get(rounds::list))
        .route("/api/rounds/{round}", get(rounds::one))
        .route("/api/rounds/{round}/pairings", post(rounds::import))
        .route(
            "/api/rounds/{round}/tables/{table}/result",
            post(rounds::enter_result),
        )
        .route(
            "/api/rounds/{round}/tables/{table}/game",
            post(rounds::bind_game),
        )
        .route("/api/rounds/{round}/{file}", get(rounds::results))
        .route("/public/round/{file}", get(rounds::public_pgn))
        .route("/signin", get(assets::signin).post(signin_form))
        .route(
            "/api/session",
            get(session_who).post(session_open).delete(session_close),
        )
        .with_state(app)
        .layer(axum::middleware::map_response(security_headers))
}

/// Whether a request is an upload (a round's pairing file), which may be larger than other
/// bodies (`max_upload_bytes`).
pub(crate) fn is_upload(parts: &axum::http::request::Parts) -> bool {
    parts.method == axum::http::Method::POST
        && parts.uri.path().starts_with("/api/rounds/")
        && parts.uri.path().ends_with("/pairings")
}

/// On every response of the dashboard port: no script, style, frame or connection from
/// anywhere but this server (`default-src 'self'`), and no URL of this server leaked to
/// another site in a `Referer`.
async fn security_headers(mut r: Response) -> Response {
    let h = r.headers_mut();
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static("default-src 'self'; frame-ancestors 'none'"),
    );
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    r
}

#[derive(Debug, Deserialize)]
struct SignIn {
    token: String,
}

/// `POST /api/session` with `{"token": "…"}`: signs a browser in. The answer sets an
/// `HttpOnly`, `SameSite=Strict` session cookie (`Secure` behind an HTTPS proxy), so the
/// page never holds the token.
async fn session_open(
    State(app): State<Arc<App>>,
    Query(q): Query<ReadQuery>,
    headers: HeaderMap,
    body: Bytes,
) -> ApiResult {
    if q.token.is_some() {
        return Err(auth::Refusal::TokenInUrl.into());
    }
    auth::check_origin(&app.config, &headers)?;
    let sign_in: SignIn = parse_body(&body)?;
    let (principal, cookie) = open_session(&app, &headers, &sign_in.token)?;
    let mut r = ok(who_json(&app, &principal));
    r.headers_mut().insert(header::SET_COOKIE, cookie);
    Ok(r)
}

/// `POST /signin` from the sign-in page's form (`token=…`, form-encoded): on success a
/// session cookie and a redirect to the dashboard, else back to the form (`?failed`).
async fn signin_form(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    axum::Form(sign_in): axum::Form<SignIn>,
) -> ApiResult {
    auth::check_origin(&app.config, &headers)?;
    let mut r = StatusCode::SEE_OTHER.into_response();
    match open_session(&app, &headers, &sign_in.token) {
        Ok((_, cookie)) => {
            r.headers_mut().insert(header::SET_COOKIE, cookie);
            r.headers_mut()
                .insert(header::LOCATION, HeaderValue::from_static("/"));
        }
        Err(ApiError::Refused(_)) => {
            r.headers_mut()
                .insert(header::LOCATION, HeaderValue::from_static("/signin?failed"));
            r.extensions_mut().insert(crate::throttle::TokenRefused);
        }
        Err(e) => return Err(e),
    }
    Ok(r)
}

/// Checks a token and opens a session for its account: the principal and the cookie.
fn open_session(
    app: &App,
    headers: &HeaderMap,
    token: &str,
) -> Result<(Principal, HeaderValue), ApiError> {
    let accounts = crate::access::accounts(&app.config);
    let principal = if accounts.is_empty() {
        Principal::chief("local")
    } else {
        let account = crate::access::account_for_token(&accounts, token.trim())
            .ok_or(auth::Refusal::Unauthenticated)?;
        crate::access::principal_of(account, &app.config.sections)
    };
    let id = app
        .sessions
        .open(principal.clone())
        .map_err(|e| ApiError::NodeUnavailable(e.to_string()))?;
    let secure = headers
        .get("x-forwarded-proto")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|p| p.eq_ignore_ascii_case("https"));
    let cookie = format!(
        "{}={id}; Path=/; HttpOnly; SameSite=Strict; Max-Age={}{}",
        crate::access::SESSION_COOKIE,
        app.sessions.idle().as_secs(),
        if secure { "; Secure" } else { "" }
    );
    tracing::info!(arbiter = %principal.name, role = ?principal.role, "signed in");
    let cookie = HeaderValue::from_str(&cookie).map_err(|e| ApiError::BadRequest(e.to_string()))?;
    Ok((principal, cookie))
}

/// `GET /api/session`: who this browser (or bearer token) is, with the sections covered.
async fn session_who(
    State(app): State<Arc<App>>,
    Query(q): Query<ReadQuery>,
    headers: HeaderMap,
) -> ApiResult {
    let who = may_read(&app, &headers, &q)?;
    Ok(ok(who_json(&app, &who)))
}

/// `DELETE /api/session`: signs out (the session ends on the server, the cookie is cleared).
async fn session_close(State(app): State<Arc<App>>, headers: HeaderMap) -> ApiResult {
    auth::check_origin(&app.config, &headers)?;
    if let Some(id) = crate::access::session_cookie(&headers) {
        app.sessions.close(id);
    }
    let mut r = ok(json!({ "ok": true }));
    r.headers_mut().insert(
        header::SET_COOKIE,
        HeaderValue::from_str(&format!(
            "{}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0",
            crate::access::SESSION_COOKIE
        ))
        .map_err(|e| ApiError::BadRequest(e.to_string()))?,
    );
    Ok(r)
}

fn who_json(app: &App, who: &Principal) -> Value {
    json!({
        "name": who.name,
        "role": who.role,
        "sections": who.sections,
        "tables": who.tables,
        "all_sections": app.config.sections,
        "signed_in_needed": !crate::access::accounts(&app.config).is_empty(),
    })
}

/// `GET /health`: always 200 while the server runs. Without a token that may read (when
/// tokens are configured) only `status`: the rest (open alerts, claims among them, the seq,
/// the journal's path) is not for players (Laws 12.6).
async fn health(
    State(app): State<Arc<App>>,
    Query(q): Query<ReadQuery>,
    headers: HeaderMap,
) -> Response {
    let daemon = app.status.as_ref().map(|s| s.health());
    let degraded = daemon
        .as_ref()
        .is_some_and(|d| d.get("ok") == Some(&Value::Bool(false)));
    let status = if degraded { "degraded" } else { "ok" };
    let Ok(who) = may_read(&app, &headers, &q) else {
        return ok(json!({ "status": status }));
    };
    let desk = app.feed.desk();
    let hall = &desk.hall;
    // A floor arbiter's counts cover her sections; the daemon's own state (serial ports,
    // the journal) is the whole hall's.
    let covered = |board: &str| hall.covers(&who, board);
    let mut body = json!({
        "status": status,
        "seq": hall.last_seq(),
        "boards": hall.boards().filter(|b| covered(&b.board)).count(),
        "boards_connected": hall.boards().filter(|b| covered(&b.board) && b.is_connected()).count(),
        "open_alerts": hall.open_alerts().into_iter().filter(|a| covered(&a.board)).count(),
        "uptime_ms": app.now_ms(),
    });
    if let Some(d) = daemon
        && who.whole_hall()
    {
        body["daemon"] = d;
    }
    ok(body)
}

/// `GET /metrics`
async fn metrics_text(
    State(app): State<Arc<App>>,
    Query(q): Query<ReadQuery>,
    headers: HeaderMap,
) -> ApiResult {
    let who = may_read(&app, &headers, &q)?;
    let mut text = metrics::render(&app.feed.desk(), &app.gauges, &app.throttle, &who);
    if let Some(status) = &app.status
        && who.whole_hall()
    {
        text.push_str(&status.metrics());
    }
    let mut r = text.into_response();
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; version=0.0.4"),
    );
    Ok(r)
}

/// `GET /api/boards`
async fn boards(
    State(app): State<Arc<App>>,
    Query(q): Query<ReadQuery>,
    headers: HeaderMap,
) -> ApiResult {
    let who = may_read(&app, &headers, &q)?;
    let desk = app.feed.desk();
    let list: Vec<Value> = desk
        .hall
        .boards()
        .filter(|b| desk.hall.covers(&who, &b.board))
        .map(|b| desk.hall.board_json(b, true))
        .collect();
    Ok(ok(Value::Array(list)))
}

/// `GET /api/boards/{board}`: the board, its games and its alert history.
async fn board(
    State(app): State<Arc<App>>,
    Path(board): Path<String>,
    Query(q): Query<ReadQuery>,
    headers: HeaderMap,
) -> ApiResult {
    let who = may_read(&app, &headers, &q)?;
    must_cover(&app, &who, &board)?;
    let desk = app.feed.desk();
    let hall = &desk.hall;
    let Some(view) = hall.board(&board) else {
        return Err(ApiError::NotFound(format!("no board {board:?}")));
    };
    let mut v = hall.board_json(view, true);
    v["games"] = Value::Array(
        hall.games()
            .filter(|g| g.board == board)
            .map(game_summary)
            .collect(),
    );
    v["alerts"] = serde_json::to_value(
        hall.alerts()
            .filter(|a| a.board == board)
            .collect::<Vec<_>>(),
    )
    .unwrap_or_default();
    Ok(ok(v))
}

fn game_summary(g: &GameRecord) -> Value {
    json!({
        "id": g.id, "board": g.board, "start_fen": g.start_fen, "start_t_ms": g.start_t_ms,
        "plies": g.moves.len(), "result": g.result, "reason": g.reason, "end_t_ms": g.end_t_ms,
    })
}

fn games_of(hall: &Hall, board: Option<&str>, who: &Principal) -> Value {
    Value::Array(
        hall.games()
            .filter(|g| board.is_none_or(|b| g.board == b))
            .filter(|g| hall.covers(who, &g.board))
            .map(game_summary)
            .collect(),
    )
}

/// `GET /api/games[?board=B]`
async fn games(
    State(app): State<Arc<App>>,
    Query(q): Query<ReadQuery>,
    headers: HeaderMap,
) -> ApiResult {
    let who = may_read(&app, &headers, &q)?;
    Ok(ok(games_of(
        &app.feed.desk().hall,
        q.board.as_deref(),
        &who,
    )))
}

/// `GET /api/games/{id}` and `GET /api/games/{id}/pgn`. Game ids hold a `/`
/// (`board-1/1`); both the plain and the `%2F` spelling are accepted.
async fn game(
    State(app): State<Arc<App>>,
    Path(path): Path<String>,
    Query(q): Query<ReadQuery>,
    headers: HeaderMap,
) -> ApiResult {
    let who = may_read(&app, &headers, &q)?;
    let desk = app.feed.desk();
    let (id, as_pgn) = match path.strip_suffix("/pgn") {
        Some(id) if desk.hall.game(&path).is_none() => (id, true),
        _ => (path.as_str(), false),
    };
    let Some(game) = desk.hall.game(id) else {
        return Err(ApiError::NotFound(format!("no game {id:?}")));
    };
    must_cover(&app, &who, &game.board)?;
    if as_pgn {
        let paired = desk.hall.pairing_of_game(id).map(|(round, pairing)| {
            let info = desk.hall.book().round(round);
            pgn::Paired {
                round,
                pairing,
                event: info
                    .and_then(|i| i.pairings.event.as_deref())
                    .or(Some(app.config.event.as_str()).filter(|e| *e != "?")),
                date: info.and_then(|i| i.pairings.date.as_deref()),
                time_control: app.config.time_control_of(&game.board),
                result: None,
            }
        });
        let mut r = pgn::game_pgn_paired(game, &app.config.site, paired).into_response();
        r.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/x-chess-pgn; charset=utf-8"),
        );
        return Ok(r);
    }
    Ok(ok(serde_json::to_value(game).unwrap_or_default()))
}

/// `GET /api/alerts[?open=true][&board=B]`: open alerts most urgent first; all alerts
/// newest first.
async fn alerts(
    State(app): State<Arc<App>>,
    Query(q): Query<ReadQuery>,
    headers: HeaderMap,
) -> ApiResult {
    let who = may_read(&app, &headers, &q)?;
    let desk = app.feed.desk();
    let on_board = |a: &&crate::hall::AlertRecord| {
        q.board.as_deref().is_none_or(|b| a.board == b) && desk.hall.covers(&who, &a.board)
    };
    let list: Vec<_> = if q.open == Some(true) {
        desk.hall
            .open_alerts()
            .into_iter()
            .filter(on_board)
            .collect()
    } else {
        let mut all: Vec<_> = desk.hall.alerts().filter(on_board).collect();
        all.reverse();
        all
    };
    Ok(ok(serde_json::to_value(list).unwrap_or_default()))
}

/// `GET /api/nodes` (a hub): every node of the event with its state; 404 elsewhere.
async fn nodes(
    State(app): State<Arc<App>>,
    Query(q): Query<ReadQuery>,
    headers: HeaderMap,
) -> ApiResult {
    let who = may_read(&app, &headers, &q)?;
    match app.status.as_ref().and_then(|s| s.nodes()) {
        Some(mut nodes) => {
            crate::scope::node_list(&who, &app.config.tables, &mut nodes);
            Ok(ok(nodes))
        }
        None => Err(ApiError::NotFound(
            "this daemon is not a hub: it has no nodes".into(),
        )),
    }
}

/// `POST /api/alerts/{id}/ack`
async fn ack(
    State(app): State<Arc<App>>,
    Path(id): Path<u64>,
    Query(q): Query<ReadQuery>,
    headers: HeaderMap,
) -> ApiResult {
    let who = may_act(&app, &headers, &q)?;
    let (board, _) = alert_board(&app, id)?;
    must_cover(&app, &who, &board)?;
    forward_by(&app, &who, &board, Operation::Ack(id)).await?;
    app.feed.record_ack(id);
    Ok(ok(json!({ "ok": true, "id": id, "board": board })))
}

/// `POST /api/alerts/{id}/confirm`: the arbiter confirms a suspicion (a move made with two
/// hands) as an offence; the core counts and penalises it.
async fn confirm(
    State(app): State<Arc<App>>,
    Path(id): Path<u64>,
    Query(q): Query<ReadQuery>,
    headers: HeaderMap,
) -> ApiResult {
    let who = may_act(&app, &headers, &q)?;
    let (board, kind) = alert_board(&app, id)?;
    must_cover(&app, &who, &board)?;
    if kind != AlertKind::TwoHandedMove {
        return Err(ApiError::BadRequest(format!(
            "alert {id} is not a two_handed_move alert: only those can be confirmed"
        )));
    }
    forward_by(&app, &who, &board, Operation::Confirm(id)).await?;
    Ok(ok(json!({ "ok": true, "id": id, "board": board })))
}

/// The board an alert belongs to, and its kind; 404 for an unknown id.
fn alert_board(app: &App, id: u64) -> Result<(String, AlertKind), ApiError> {
    app.feed
        .desk()
        .hall
        .alert(id)
        .map(|a| (a.board.clone(), a.alert.kind))
        .ok_or_else(|| ApiError::NotFound(format!("no alert {id}")))
}

/// `POST /api/boards/{board}/setup` with a setup object (`fen`, `time_control`,
/// `white_clock_side`, `edition`, `supervision`, `rotated`).
async fn setup(
    State(app): State<Arc<App>>,
    Path(board): Path<String>,
    Query(q): Query<ReadQuery>,
    headers: HeaderMap,
    body: Bytes,
) -> ApiResult {
    // The FEN, time control and edition are parsed here: a bad one is a 400 with the reason.
    board_action(&app, &headers, &q, &board, |_| {
        Ok(Operation::Setup(parse_body::<SetupOp>(&body)?))
    })
    .await
}

/// `POST /api/boards/{board}/result` with `{"result": "1-0" | "0-1" | "1/2-1/2"}`.
async fn result(
    State(app): State<Arc<App>>,
    Path(board): Path<String>,
    Query(q): Query<ReadQuery>,
    headers: HeaderMap,
    body: Bytes,
) -> ApiResult {
    board_action(&app, &headers, &q, &board, |_| {
        let value: Value = parse_body(&body)?;
        let result: dgt_core::GameResult = value
            .get("result")
            .and_then(Value::as_str)
            .or(value.as_str())
            .unwrap_or_default()
            .parse()
            .map_err(|_| {
                ApiError::BadRequest("result must be \"1-0\", \"0-1\" or \"1/2-1/2\"".into())
            })?;
        Ok(Operation::Result(result))
    })
    .await
}

/// `POST /api/boards/{board}/claim` with `{"kind": .., "side": .., "move": ..}`, or the
/// same wrapped as the operator action is (`{"claim": {...}}`).
async fn claim(
    State(app): State<Arc<App>>,
    Path(board): Path<String>,
    Query(q): Query<ReadQuery>,
    headers: HeaderMap,
    body: Bytes,
) -> ApiResult {
    board_action(&app, &headers, &q, &board, |_| {
        Ok(Operation::Claim(claim_op(&body)?))
    })
    .await
}

/// A claim from a request body. Every field is read or the claim is refused: a field
/// dropped silently would check the claim for the other player or another rule.
fn claim_op(body: &Bytes) -> Result<ClaimOp, ApiError> {
    let mut value: Value = parse_body(body)?;
    if let Some(inner) = value.as_object().and_then(|o| {
        (o.len() == 1)
            .then(|| o.get("claim"))
            .flatten()
            .filter(|c| c.is_object())
    }) {
        value = inner.clone();
    }
    let Some(fields) = value.as_object() else {
        return Err(ApiError::BadRequest(
            "a claim is an object: {\"kind\": …, \"side\": \"white\"|\"black\", \"move\": …}"
                .into(),
        ));
    };
    if let Some(unknown) = fields
        .keys()
        .find(|k| !matches!(k.as_str(), "kind" | "side" | "move"))
    {
        return Err(ApiError::BadRequest(format!(
            "unknown claim field {unknown:?}: a claim has kind, side and move"
        )));
    }
    serde_json::from_value(value).map_err(|e| ApiError::BadRequest(format!("bad claim: {e}")))
}

/// `POST /api/boards/{board}/under-way` with `{"to_move": "white" | "black"}`: the arbiter
/// says who is on move in a game found under way whose clock does not say (issue 35).
async fn under_way(
    State(app): State<Arc<App>>,
    Path(board): Path<String>,
    Query(q): Query<ReadQuery>,
    headers: HeaderMap,
    body: Bytes,
) -> ApiResult {
    board_action(&app, &headers, &q, &board, |_| {
        Ok(Operation::UnderWay(parse_body(&body)?))
    })
    .await
}

/// `POST /api/boards/{board}/take-over` with `{"from": "<board>"}`: the game being played
/// on `from` continues on `board`, a replacement the arbiter set the position up on. The
/// arbiter must cover both boards.
async fn take_over(
    State(app): State<Arc<App>>,
    Path(board): Path<String>,
    Query(q): Query<ReadQuery>,
    headers: HeaderMap,
    body: Bytes,
) -> ApiResult {
    board_action(&app, &headers, &q, &board, |who| {
        let op: dgt_core::input::TakeOverOp = parse_body(&body)?;
        if op.from == board {
            return Err(ApiError::BadRequest(
                "a board cannot take over its own game".into(),
            ));
        }
        must_cover(&app, who, &op.from)?;
        Ok(Operation::TakeOver(op))
    })
    .await
}

/// An arbiter's action on one board: who acts (an arbiter covering the board), the operation
/// read from the request (`read` may refuse it, with who acts in hand), sent to the core
/// with their name; answered `{"ok": true, "board": …}`.
async fn board_action(
    app: &App,
    headers: &HeaderMap,
    q: &ReadQuery,
    board: &str,
    read: impl FnOnce(&Principal) -> Result<Operation, ApiError>,
) -> ApiResult {
    let who = may_act(app, headers, q)?;
    must_cover(app, &who, board)?;
    let op = read(&who)?;
    forward_by(app, &who, board, op).await?;
    Ok(ok(json!({ "ok": true, "board": board })))
}

/// `GET /api/public/games`: the delayed games with their moves, for anyone.
async fn public_games(State(app): State<Arc<App>>) -> Response {
    let hall = app.public.hall();
    let list: Vec<Value> = hall
        .games()
        .map(|g| {
            json!({
                "id": g.id, "board": g.board, "start_fen": g.start_fen,
                "result": g.result, "reason": g.reason,
                "moves": g.moves.iter().map(|m| json!({
                    "ply": m.ply, "side": m.side, "san": m.san, "uci": m.uci, "fen": m.fen,
                    "white_ms": m.white_ms, "black_ms": m.black_ms,
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    let mut r = ok(Value::Array(list));
    r.headers_mut().insert(
        header::ACCESS_CONTROL_ALLOW_ORIGIN,
        HeaderValue::from_static("*"),
    );
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_claim_wrapped_as_the_operator_action_is_read_whole_and_unknown_fields_refused() {
        let read = |b: &'static [u8]| claim_op(&Bytes::from_static(b));
        let wrapped = read(br#"{"claim":{"kind":"fifty_move_rule","side":"white","move":"Nf3"}}"#)
            .unwrap_or_else(|_| panic!("refused"));
        let flat = read(br#"{"kind":"fifty_move_rule","side":"white","move":"Nf3"}"#)
            .unwrap_or_else(|_| panic!("refused"));
        assert_eq!(wrapped, flat);
        assert_eq!(flat.side, Some(dgt_core::Side::White));
        assert_eq!(flat.intended_move.as_deref(), Some("Nf3"));
        for bad in [
            &br#"{"claim":{"kind":"fifty_move_rule","sdie":"white"}}"#[..],
            br#"{"claim":{"kind":"flag"},"side":"white"}"#,
            br#"{"kind":"flag","claimant":"white"}"#,
            br#"["flag"]"#,
        ] {
            match read(bad) {
                Err(ApiError::BadRequest(m)) => assert!(
                    m.contains("claim"),
                    "{m} for {}",
                    String::from_utf8_lossy(bad)
                ),
                _ => panic!("{} was not refused", String::from_utf8_lossy(bad)),
            }
        }
    }
}
