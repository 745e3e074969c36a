//! Rounds: the pairings imported (TRF or CSV/TSV upload, arbiter token), the round's tables
//! with their boards, games and results, the arbiter's table results, the results for the
//! pairing program (CSV, TRF), and the round's PGN for broadcasts.
//!
//! | route | what |
//! |---|---|
//! | `GET /api/rounds`, `/api/rounds/{n}` | rounds; one round's tables, byes, boards without pairing |
//! | `POST /api/rounds/{n}/pairings[?order=white-line\|first-line]` | the pairing file as the body (arbiter token) |
//! | `POST /api/rounds/{n}/tables/{t}/result` | `{"result": "+-"}` (arbiter token; `null` withdraws; `"confirm": true` for an entry that contradicts the game) |
//! | `POST /api/rounds/{n}/tables/{t}/game` | `{"game": "7/3"}`: the table's game of the round (`null`: the next one on its board) |
//! | `GET /api/rounds/{n}/results.csv`, `results.trf` | results; `X-Unfinished-Tables` lists tables without one |
//! | `GET /public/round/{n}.pgn` | every game of the round with the public delay, `ETag`/`Last-Modified` |
//!
//! Pairings reach the core as an operator action and come back as an event, so they are
//! journaled, survive a restart and reach every view (dgt_core::pairing).

use std::sync::Arc;
use std::time::SystemTime;

use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use dgt_core::Operation;
use dgt_core::TableResult;
use dgt_core::pairing::{Pairing, ROUND_BOARD, TABLE_RESULTS, TableGameOp, TableResultOp};
use dgt_pairings::TableState;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::App;
use crate::api::{
    ApiError, ApiResult, ReadQuery, forward_by, json_response, may_act, may_read, ok, parse_body,
};
use crate::hall::GameRecord;
use crate::pgn::{Paired, game_pgn_paired};

/// `GET /api/rounds`: every round imported, the current one marked.
pub(crate) async fn list(
    State(app): State<Arc<App>>,
    Query(q): Query<ReadQuery>,
    headers: HeaderMap,
) -> ApiResult {
    may_read(&app, &headers, &q)?;
    let desk = app.feed.desk();
    let book = desk.hall.book();
    let rounds: Vec<Value> = book
        .rounds()
        .map(|(n, info)| {
            json!({
                "round": n,
                "current": book.current() == Some(*n),
                "date": info.pairings.date,
                "format": info.pairings.format,
                "tables": info.pairings.tables.len(),
                "byes": info.pairings.byes.len(),
            })
        })
        .collect();
    Ok(ok(Value::Array(rounds)))
}

fn no_round(round: u32) -> ApiError {
    ApiError::NotFound(format!(
        "no pairings for round {round}; import them first (dgt-arbiter pairings import FILE --round {round})"
    ))
}

/// `GET /api/rounds/{n}`
pub(crate) async fn one(
    State(app): State<Arc<App>>,
    Path(round): Path<u32>,
    Query(q): Query<ReadQuery>,
    headers: HeaderMap,
) -> ApiResult {
    let who = may_read(&app, &headers, &q)?;
    let desk = app.feed.desk();
    let mut view = desk.hall.round_json(round).ok_or_else(|| no_round(round))?;
    crate::scope::round_view(&who, desk.hall.tables(), &mut view);
    Ok(ok(view))
}

#[derive(Debug, Default, Deserialize)]
pub struct ImportQuery {
    pub token: Option<String>,
    /// How a TRF's pairs are numbered: `white-line` (default) or `first-line`.
    pub order: Option<String>,
}

/// `POST /api/rounds/{n}/pairings` with the file as the body: checked whole, then handed to
/// the core; a file with any problem is refused with every problem (line, message, fix).
pub(crate) async fn import(
    State(app): State<Arc<App>>,
    Path(round): Path<u32>,
    Query(q): Query<ImportQuery>,
    headers: HeaderMap,
    body: Bytes,
) -> ApiResult {
    let read = ReadQuery {
        token: q.token.clone(),
        ..ReadQuery::default()
    };
    let who = may_act(&app, &headers, &read)?;
    if who.role != crate::access::Role::Chief {
        return Err(ApiError::Refused(crate::auth::Refusal::NotAllowed));
    }
    // The journal's size cap reached (`journal.max_size_mb`): the round in play goes on
    // being journaled into the cap's reserve, but no new round starts on a full journal.
    if let Some(status) = &app.status
        && status.health()["journal"]["cap"] == "reached"
    {
        return Err(ApiError::BadRequest(
            "the journal has reached its size cap (journal.max_size_mb): no new round is \
             imported; free disk space or raise the cap and restart the daemon first (the \
             round in play goes on being journaled)"
                .into(),
        ));
    }
    let order = match q.order.as_deref() {
        None => dgt_pairings::BoardOrder::default(),
        Some(o) => o
            .parse::<dgt_pairings::BoardOrder>()
            .map_err(|e| ApiError::BadRequest(e.to_string()))?,
    };
    let pairings = match dgt_pairings::read_bytes(&body, round, order) {
        Ok(p) => p,
        Err(problems) => {
            let list: Vec<Value> = problems
                .0
                .iter()
                .map(|p| json!({ "line": p.line, "message": p.message, "fix": p.fix }))
                .collect();
            return Ok(json_response(
                StatusCode::UNPROCESSABLE_ENTITY,
                json!({
                    "error": format!("the pairing file has {} problem(s); nothing was imported", list.len()),
                    "problems": list,
                }),
            ));
        }
    };
    let summary = json!({
        "ok": true,
        "round": round,
        "format": pairings.format,
        "tables": pairings.tables.iter().map(|p| json!({
            "table": p.table, "white": p.white.name, "black": p.black.name,
            "label": app.config.tables.label(p.table),
        })).collect::<Vec<_>>(),
        "byes": pairings.byes.iter().map(|b| json!({"player": b.player.name, "code": b.code.to_string()})).collect::<Vec<_>>(),
    });
    forward_by(&app, &who, ROUND_BOARD, Operation::Pairings(pairings)).await?;
    Ok(ok(summary))
}

/// `POST /api/rounds/{n}/tables/{t}/result` with `{"result": "+-"}` (or `null` to withdraw).
/// Confirming the board's result is entering it. An entry that contradicts the table's
/// game — a forfeit on a table whose game has moves, or another result than the board's
/// end by rule — is usually meant for another table: it is refused with `409` until the
/// body says `"confirm": true`.
pub(crate) async fn enter_result(
    State(app): State<Arc<App>>,
    Path((round, table)): Path<(u32, u32)>,
    Query(q): Query<ReadQuery>,
    headers: HeaderMap,
    body: Bytes,
) -> ApiResult {
    let (who, value) = table_action(&app, &headers, &q, table, &body)?;
    let result = match value.get("result") {
        Some(Value::Null) => None,
        Some(Value::String(r)) if let Ok(r) = r.parse::<TableResult>() => Some(r),
        _ => {
            return Err(ApiError::BadRequest(format!(
                "result must be one of {} (or null to withdraw an entry)",
                TABLE_RESULTS.join(", ")
            )));
        }
    };
    let confirmed = match value.get("confirm") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(_) => {
            return Err(ApiError::BadRequest(
                "confirm must be true or false".to_string(),
            ));
        }
    };
    if let Some(unknown) = value.as_object().and_then(|o| {
        o.keys()
            .find(|k| !matches!(k.as_str(), "result" | "confirm"))
    }) {
        return Err(ApiError::BadRequest(format!(
            "unknown field {unknown:?}: send {{\"result\": …}} and, to confirm, \"confirm\": true"
        )));
    }
    let doubt = {
        let desk = app.feed.desk();
        let book = desk.hall.book();
        let info = book.round(round).ok_or_else(|| no_round(round))?;
        if info.pairings.table(table).is_none() {
            return Err(ApiError::NotFound(format!(
                "round {round} has no table {table}"
            )));
        }
        let game = book.table_game(round, table).and_then(|g| book.game(g));
        let present = desk.hall.present_boards();
        let playing = book
            .outcomes(round, desk.hall.tables(), &present)
            .iter()
            .any(|o| o.pairing.table == table && o.state == TableState::Playing);
        result.and_then(|r| entry_doubt(r, game, playing))
    };
    if let Some(doubt) = doubt
        && !confirmed
    {
        return Ok(json_response(
            StatusCode::CONFLICT,
            json!({
                "error": format!("table {table} of round {round}: {doubt}; is it the right table? Send it again with \"confirm\": true to enter it"),
                "confirm": true,
            }),
        ));
    }
    forward_by(
        &app,
        &who,
        ROUND_BOARD,
        Operation::TableResult(TableResultOp {
            round,
            table,
            result,
        }),
    )
    .await?;
    Ok(ok(json!({ "ok": true, "round": round, "table": table })))
}

/// Who acts on a table (an arbiter covering it) and the request's JSON.
fn table_action(
    app: &App,
    headers: &HeaderMap,
    q: &ReadQuery,
    table: u32,
    body: &Bytes,
) -> Result<(crate::access::Principal, Value), ApiError> {
    let who = may_act(app, headers, q)?;
    if !who.covers_table(Some(table)) {
        return Err(ApiError::Refused(crate::auth::Refusal::OutsideSections));
    }
    Ok((who, parse_body(body)?))
}

/// Why an entry may be meant for another table: a forfeit where moves were played, a
/// result for a game still being played (moves, no result, its clock not stopped after the
/// last move), or a result other than the board's end by rule.
fn entry_doubt(
    result: TableResult,
    game: Option<&dgt_pairings::book::GameInfo>,
    playing: bool,
) -> Option<String> {
    let game = game?;
    if playing && game.plies > 0 && game.result.is_none() {
        return Some(format!(
            "its game is still being played ({} move(s), its clock not stopped)",
            game.plies.div_ceil(2)
        ));
    }
    if matches!(
        result,
        TableResult::Forfeit { .. } | TableResult::BothForfeit
    ) && game.plies > 0
    {
        return Some(format!(
            "its game has {} move(s), and {result} is a forfeit",
            game.plies.div_ceil(2)
        ));
    }
    let by_rule = game
        .reason
        .is_some_and(|r| r != dgt_core::event::EndReason::ResultGesture);
    match &game.result {
        Some(board) if by_rule && *board != result.to_string() => Some(format!(
            "its game ended {board} on the board ({}), not {result}",
            game.reason.map(|r| r.words()).unwrap_or_default()
        )),
        _ => None,
    }
}

/// `POST /api/rounds/{n}/tables/{t}/game` with `{"game": "7/3"}` (or `null`): names the
/// table's game of the round — a game restarted by the arbiter's decision, a game bound
/// wrongly. Journaled with who did it.
pub(crate) async fn bind_game(
    State(app): State<Arc<App>>,
    Path((round, table)): Path<(u32, u32)>,
    Query(q): Query<ReadQuery>,
    headers: HeaderMap,
    body: Bytes,
) -> ApiResult {
    let (who, value) = table_action(&app, &headers, &q, table, &body)?;
    let game = match value.as_object().map(|o| (o.len(), o.get("game"))) {
        Some((1, Some(Value::Null))) => None,
        Some((1, Some(Value::String(g)))) => Some(g.clone()),
        _ => {
            return Err(ApiError::BadRequest(
                "send {\"game\": \"<game id>\"} (or null to let the next game on the board bind)"
                    .to_string(),
            ));
        }
    };
    {
        let desk = app.feed.desk();
        let hall = &desk.hall;
        let info = hall.book().round(round).ok_or_else(|| no_round(round))?;
        if info.pairings.table(table).is_none() {
            return Err(ApiError::NotFound(format!(
                "round {round} has no table {table}"
            )));
        }
        if let Some(g) = &game
            && hall.game(g).is_none()
        {
            return Err(ApiError::NotFound(format!("no game {g:?}")));
        }
    }
    forward_by(
        &app,
        &who,
        ROUND_BOARD,
        Operation::TableGame(TableGameOp {
            round,
            table,
            game: game.clone(),
        }),
    )
    .await?;
    Ok(ok(
        json!({ "ok": true, "round": round, "table": table, "game": game }),
    ))
}

/// `GET /api/rounds/{n}/results.csv` and `results.trf`.
pub(crate) async fn results(
    State(app): State<Arc<App>>,
    Path((round, file)): Path<(u32, String)>,
    Query(q): Query<ReadQuery>,
    headers: HeaderMap,
) -> ApiResult {
    let who = may_read(&app, &headers, &q)?;
    let desk = app.feed.desk();
    let hall = &desk.hall;
    let info = hall.book().round(round).ok_or_else(|| no_round(round))?;
    let present = hall.present_boards();
    let mut outcomes = hall.book().outcomes(round, hall.tables(), &present);
    // A floor arbiter's results are her tables'; the TRF is the whole tournament's.
    outcomes.retain(|o| who.covers_table(Some(o.pairing.table)));
    if !who.whole_hall() && file == "results.trf" {
        return Err(ApiError::Refused(crate::auth::Refusal::OutsideSections));
    }
    let unfinished = dgt_pairings::results::unfinished(&outcomes);
    let encoding = info.pairings.encoding.as_deref();
    let (body, kind) = match file.as_str() {
        "results.csv" => (
            dgt_pairings::results::csv(&info.pairings, &outcomes),
            "text/csv",
        ),
        "results.trf" => (
            dgt_pairings::results::trf(&info.pairings, &outcomes).ok_or_else(|| {
                ApiError::BadRequest(format!(
                    "round {round}'s pairings came from a pairing list, not a TRF: import the \
                     round's TRF to get results as TRF, or take results.csv"
                ))
            })?,
            "text/plain",
        ),
        other => {
            return Err(ApiError::NotFound(format!(
                "no {other:?} for a round: results.csv or results.trf"
            )));
        }
    };
    // Back to the pairing program in the encoding its file came in.
    let content_type = format!("{kind}; charset={}", dgt_pairings::charset(encoding));
    let mut r = dgt_pairings::encode(&body, encoding).into_response();
    let h = r.headers_mut();
    if let Ok(v) = HeaderValue::from_str(&content_type) {
        h.insert(header::CONTENT_TYPE, v);
    }
    let unconfirmed = dgt_pairings::results::unconfirmed(&outcomes)
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(",");
    if let Ok(v) = HeaderValue::from_str(&unconfirmed) {
        h.insert("x-unconfirmed-tables", v);
    }
    let list = unfinished
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(",");
    if let Ok(v) = HeaderValue::from_str(&list) {
        h.insert("x-unfinished-tables", v);
    }
    Ok(r)
}

/// The last rendering of a round's public PGN.
#[derive(Debug, Clone)]
pub struct CachedPgn {
    /// (public hall seq, round book version) it was rendered at.
    key: (u64, u64),
    body: Arc<str>,
    /// The same body gzipped, made once per rendering for pollers that ask for it.
    gzip: Arc<[u8]>,
    etag: String,
    modified: SystemTime,
}

/// FNV-1a, 64 bits: the ETag of a body (a change detector, not a security measure).
fn fnv64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// Whether the client's copy is current (RFC 9110 13.1.2 and 13.1.3: `If-None-Match` wins
/// over `If-Modified-Since`).
fn not_modified(headers: &HeaderMap, etag: &str, modified: SystemTime) -> bool {
    if let Some(tags) = headers
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
    {
        return tags
            .split(',')
            .map(|t| t.trim().trim_start_matches("W/"))
            .any(|t| t == etag || t == "*");
    }
    headers
        .get(header::IF_MODIFIED_SINCE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| httpdate::parse_http_date(v).ok())
        .is_some_and(|since| {
            // HTTP dates have whole seconds.
            let secs = |t: SystemTime| {
                t.duration_since(SystemTime::UNIX_EPOCH)
                    .map_or(0, |d| d.as_secs())
            };
            secs(modified) <= secs(since)
        })
}

/// `GET /public/round/{n}.pgn`: every table of the round, in table order, as the public
/// sees it (moves `public_delay` late; a table whose game has not reached the public yet
/// has its tags only). No token. A poller sends `If-None-Match` or `If-Modified-Since` and
/// gets `304 Not Modified` with no body until something changes.
pub(crate) async fn public_pgn(
    State(app): State<Arc<App>>,
    Path(file): Path<String>,
    headers: HeaderMap,
) -> Response {
    let Some(round) = file
        .strip_suffix(".pgn")
        .and_then(|n| n.parse::<u32>().ok())
    else {
        return crate::api::error(
            StatusCode::NOT_FOUND,
            "the round PGN is /public/round/{n}.pgn",
        );
    };
    // The pairings come from the live book (pairings are public before the round); which
    // game is each table's, its moves and the arbiter's results from the delayed hall, so
    // an entered result reaches the public when the moves before it do. One lock at a time.
    let (version, tables, event, date) = {
        let desk = app.feed.desk();
        let hall = &desk.hall;
        let book = hall.book();
        let Some(info) = book.round(round) else {
            return ApiError::NotFound(format!("no pairings for round {round}")).into_response();
        };
        let tables: Vec<(Pairing, String)> = info
            .pairings
            .tables
            .iter()
            .map(|p| (p.clone(), hall.tables().label(p.table)))
            .collect();
        (
            book.version(),
            tables,
            info.pairings.event.clone(),
            info.pairings.date.clone(),
        )
    };
    let event = event_name(&app.config.event, event.as_deref());
    let cached = {
        let public = app.public.hall();
        let key = (public.last_seq(), version);
        let mut cache = app.round_pgn.lock().unwrap_or_else(|p| p.into_inner());
        match cache.get(&round).filter(|c| c.key == key) {
            Some(c) => c.clone(),
            None => {
                let body = round_pgn(
                    &app,
                    &public,
                    round,
                    &tables,
                    event.as_deref(),
                    date.as_deref(),
                );
                let etag = format!("\"{:016x}\"", fnv64(body.as_bytes()));
                let modified = match cache.get(&round) {
                    Some(old) if old.etag == etag => old.modified,
                    _ => SystemTime::now(),
                };
                let gzip = gzip(body.as_bytes());
                let fresh = CachedPgn {
                    key,
                    body: Arc::from(body),
                    gzip: Arc::from(gzip),
                    etag,
                    modified,
                };
                cache.insert(round, fresh.clone());
                fresh
            }
        }
    };
    let gzipped = accepts_gzip(&headers);
    let mut r = if not_modified(&headers, &cached.etag, cached.modified) {
        StatusCode::NOT_MODIFIED.into_response()
    } else {
        let mut r = if gzipped {
            let mut r = Bytes::from(cached.gzip.to_vec()).into_response();
            r.headers_mut()
                .insert(header::CONTENT_ENCODING, HeaderValue::from_static("gzip"));
            r
        } else {
            cached.body.to_string().into_response()
        };
        r.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/x-chess-pgn; charset=utf-8"),
        );
        r
    };
    let h = r.headers_mut();
    // The body depends on Accept-Encoding: caches keep both forms apart.
    h.insert(header::VARY, HeaderValue::from_static("accept-encoding"));
    if let Ok(v) = HeaderValue::from_str(&cached.etag) {
        h.insert(header::ETAG, v);
    }
    if let Ok(v) = HeaderValue::from_str(&httpdate::fmt_http_date(cached.modified)) {
        h.insert(header::LAST_MODIFIED, v);
    }
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    h.insert(
        header::ACCESS_CONTROL_ALLOW_ORIGIN,
        HeaderValue::from_static("*"),
    );
    r
}

/// The event's name in every record: the pairing file's when it names the tournament,
/// else the settings' (`[event] name`) — the same rule as the game PGNs, the broadcast
/// folders and `export pgn`.
pub(crate) fn event_name(settings: &str, pairings: Option<&str>) -> Option<String> {
    pairings
        .filter(|e| !e.trim().is_empty())
        .or(Some(settings).filter(|e| !e.is_empty() && *e != "?"))
        .map(str::to_string)
}

/// The round as PGN: one record per table in table order, each the table's round game as
/// the delayed hall has it (nothing played on the board after it), its result the
/// arbiter's entry when there is one (forfeits included: a game with no moves and its
/// result), else the game's.
fn round_pgn(
    app: &App,
    public: &crate::hall::Hall,
    round: u32,
    tables: &[(Pairing, String)],
    event: Option<&str>,
    date: Option<&str>,
) -> String {
    let book = public.book();
    let entered = book.round(round).map(|i| &i.entered);
    let mut body = String::new();
    for (pairing, label) in tables {
        let empty = GameRecord::new("", label, None, 0);
        let record = book
            .table_game(round, pairing.table)
            .and_then(|g| public.game(g))
            .unwrap_or(&empty);
        let result = entered
            .and_then(|e| e.get(&pairing.table))
            .map(|e| dgt_pairings::results::pgn_result(&e.result));
        let time_control = app.config.time_control_of(&record.board);
        let paired = Paired {
            round,
            pairing,
            event,
            date,
            time_control,
            result,
        };
        body.push_str(&game_pgn_paired(record, &app.config.site, Some(paired)));
        body.push('\n');
    }
    body
}

/// Whether the client takes a gzipped body (RFC 9110 12.5.3: `gzip` not refused by `q=0`).
fn accepts_gzip(headers: &HeaderMap) -> bool {
    headers
        .get_all(header::ACCEPT_ENCODING)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|coding| {
            let mut parts = coding.split(';').map(str::trim);
            let name = parts.next().unwrap_or_default();
            let refused = parts.any(|p| {
                p.strip_prefix("q=")
                    .and_then(|q| q.parse::<f32>().ok())
                    .is_some_and(|q| q <= 0.0)
            });
            (name.eq_ignore_ascii_case("gzip") || name == "*") && !refused
        })
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    // Writing into a Vec cannot fail.
    let _ = encoder.write_all(bytes);
    encoder.finish().unwrap_or_default()
}
