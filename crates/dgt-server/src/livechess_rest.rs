//! The LiveChess tournament REST calls (dgt-protocol.md §5.6) that broadcast tools read:
//!
//! * `GET /api/v1.0/tournaments` → `[{uuid, description, rounds}]`;
//! * `GET /api/v1.0/tournament/{uuid}` → `{uuid, name, description, location, country,
//!   rounds, eboards}`, board *n* of the current round being `eboards[n-1]` (`null` for a
//!   table with no board);
//! * `GET /api/v1.0/round/{uuid}/{n}` → `{nr, date, pairings: [{nr, uuid, white, black,
//!   live, result}]}`, players as `{fname, mname, lname, title, federation, gender, fideid}`;
//! * `GET /api/v1.0/game/{uuid}` → `{chess960, result, comment, clock, moves}`, each move
//!   `"SAN seconds"` (the mover's clock after the move, as LiveChess Cloud writes it; the SAN
//!   alone when the clock was not read).
//!
//! There is one tournament: this event. Uuids are derived from the event's name and the
//! round and table, so they stay the same across restarts. Results as LiveChess names them:
//! `WHITEWIN`, `BLACKWIN`, `DRAW`; a forfeit names the side that forfeited
//! (`WHITEFORFAIT` for "-+", `BLACKFORFAIT` for "+-"); `null` while playing or for a double
//! forfeit, which LiveChess has no name for.

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use dgt_core::Side;
use dgt_core::pairing::Player;
use serde_json::{Value, json};

use crate::App;
use crate::feed::Desk;
use crate::hall::STANDARD_START;
use crate::livechess_view::{clock_json, serialnr};

fn fnv(seed: u64, text: &str) -> u64 {
    text.bytes().fold(seed, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// A uuid-shaped stable name for `text`.
fn uuid(text: &str) -> String {
    let a = fnv(0xcbf2_9ce4_8422_2325, text);
    let b = fnv(0x8422_2325_cbf2_9ce4, text);
    format!(
        "{:08x}-{:04x}-{:04x}-{:04x}-{:012x}",
        a >> 32,
        (a >> 16) & 0xffff,
        a & 0xffff,
        b >> 48,
        b & 0xffff_ffff_ffff
    )
}

fn tournament_uuid(app: &App) -> String {
    uuid(&format!(
        "tournament\n{}\n{}",
        app.config.event, app.config.site
    ))
}

fn game_uuid(app: &App, round: u32, table: u32) -> String {
    uuid(&format!("game\n{}\n{round}\n{table}", tournament_uuid(app)))
}

fn reply(status: StatusCode, value: Value) -> Response {
    let mut r = (status, value.to_string()).into_response();
    let h = r.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    r
}

fn not_found(what: String) -> Response {
    reply(StatusCode::NOT_FOUND, json!({ "message": what }))
}

fn event_name(app: &App, desk: &Desk) -> String {
    let book = desk.hall.book();
    book.current()
        .and_then(|r| book.round(r))
        .and_then(|i| i.pairings.event.clone())
        .unwrap_or_else(|| app.config.event.clone())
}

fn rounds(desk: &Desk) -> u32 {
    desk.hall
        .book()
        .rounds()
        .map(|(n, _)| *n)
        .max()
        .unwrap_or(0)
}

/// `GET /api/v1.0/tournaments`
pub(crate) async fn tournaments(State(app): State<Arc<App>>) -> Response {
    let desk = app.feed.desk();
    reply(
        StatusCode::OK,
        json!([{
            "uuid": tournament_uuid(&app),
            "description": event_name(&app, &desk),
            "rounds": rounds(&desk),
        }]),
    )
}

/// `GET /api/v1.0/tournament/{uuid}`
pub(crate) async fn tournament(State(app): State<Arc<App>>, Path(id): Path<String>) -> Response {
    if id != tournament_uuid(&app) {
        return not_found(format!("no tournament {id}"));
    }
    let desk = app.feed.desk();
    let hall = &desk.hall;
    let book = hall.book();
    let tables = book
        .current()
        .and_then(|r| book.round(r))
        .map(|i| i.pairings.tables.iter().map(|p| p.table).max().unwrap_or(0))
        .unwrap_or(0);
    let eboards: Vec<Value> = (1..=tables)
        .map(|t| {
            hall.board(&hall.tables().label(t))
                .filter(|b| b.status.is_some())
                .map_or(Value::Null, |b| serialnr(b).into())
        })
        .collect();
    let site = Some(app.config.site.clone()).filter(|s| s != "?");
    reply(
        StatusCode::OK,
        json!({
            "uuid": id,
            "name": event_name(&app, &desk),
            "description": event_name(&app, &desk),
            "location": site,
            "country": null,
            "rounds": rounds(&desk),
            "eboards": eboards,
        }),
    )
}

/// "Lastname, Firstname" as LiveChess splits names.
fn player(p: &Player) -> Value {
    let (last, first) = match p.name.split_once(',') {
        Some((l, f)) => (l.trim(), f.trim()),
        None => (p.name.trim(), ""),
    };
    json!({
        "fname": first,
        "mname": null,
        "lname": last,
        "title": p.title,
        "federation": p.federation,
        "gender": null,
        "fideid": p.fide_id,
    })
}

/// A result as LiveChess names it.
fn result_name(result: Option<&str>) -> Value {
    match result {
        Some("1-0" | "1-0u") => "WHITEWIN".into(),
        Some("0-1" | "0-1u") => "BLACKWIN".into(),
        Some("1/2-1/2" | "1/2-1/2u") => "DRAW".into(),
        Some("-+") => "WHITEFORFAIT".into(),
        Some("+-") => "BLACKFORFAIT".into(),
        _ => Value::Null,
    }
}

/// `GET /api/v1.0/round/{uuid}/{n}`
pub(crate) async fn round(
    State(app): State<Arc<App>>,
    Path((id, n)): Path<(String, u32)>,
) -> Response {
    if id != tournament_uuid(&app) {
        return not_found(format!("no tournament {id}"));
    }
    let desk = app.feed.desk();
    let hall = &desk.hall;
    let Some(info) = hall.book().round(n) else {
        return not_found(format!("no pairings for round {n}"));
    };
    let present = hall.present_boards();
    let pairings: Vec<Value> = hall
        .book()
        .outcomes(n, hall.tables(), &present)
        .iter()
        .map(|o| {
            json!({
                "nr": o.pairing.table,
                "uuid": game_uuid(&app, n, o.pairing.table),
                "white": player(&o.pairing.white),
                "black": player(&o.pairing.black),
                "live": o.state == dgt_pairings::TableState::Playing,
                "result": result_name(o.result.as_deref()),
            })
        })
        .collect();
    reply(
        StatusCode::OK,
        json!({ "nr": n, "date": info.pairings.date, "pairings": pairings }),
    )
}

/// `GET /api/v1.0/game/{uuid}`
pub(crate) async fn game(State(app): State<Arc<App>>, Path(id): Path<String>) -> Response {
    let desk = app.feed.desk();
    let hall = &desk.hall;
    let book = hall.book();
    let found = book.rounds().find_map(|(&n, info)| {
        info.pairings
            .tables
            .iter()
            .find(|p| game_uuid(&app, n, p.table) == id)
            .map(|p| (n, p.table))
    });
    let Some((n, table)) = found else {
        return not_found(format!("no game {id}"));
    };
    let label = hall.tables().label(table);
    let record = book.game_of(n, &label).and_then(|g| hall.game(g));
    let entered = book
        .round(n)
        .and_then(|i| i.entered.get(&table))
        .map(|e| e.result.clone());
    let result = entered.or_else(|| record.and_then(|g| g.result.clone()));
    let moves: Vec<String> = record
        .map(|g| {
            g.moves
                .iter()
                .map(|m| {
                    let left = match m.side {
                        Side::White => m.white_ms,
                        Side::Black => m.black_ms,
                    };
                    match left {
                        Some(ms) => format!("{} {}", m.san, ms / 1000),
                        None => m.san.clone(),
                    }
                })
                .collect()
        })
        .unwrap_or_default();
    let standard = record
        .and_then(|g| g.start_fen.as_deref())
        .is_none_or(|f| f == STANDARD_START);
    // The clock is the board's while its game is this one.
    let clock = hall
        .board(&label)
        .filter(|b| record.is_some_and(|g| b.game.as_deref() == Some(g.id.as_str())))
        .map_or(Value::Null, |b| clock_json(&desk, b));
    reply(
        StatusCode::OK,
        json!({
            "chess960": if standard { Value::from(518) } else { Value::Null },
            "result": result_name(result.as_deref()),
            "comment": null,
            "clock": clock,
            "moves": moves,
        }),
    )
}
