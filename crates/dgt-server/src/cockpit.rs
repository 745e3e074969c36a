//! What the arbiters' cockpit asks beyond the plain REST views: the incident report of an
//! alert (for an appeals committee, Laws 11.10 / Guidelines on appeals) and the board's
//! events around a moment, for instant replay.

use std::sync::Arc;

use axum::extract::{Path, Query, State};
use axum::http::HeaderMap;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::App;
use crate::api::{ApiError, ApiResult, ReadQuery, may_read, must_cover, ok};

/// Replay window by default: 20 s before the moment to 10 s after.
pub const BEFORE_MS: u64 = 20_000;
pub const AFTER_MS: u64 = 10_000;
/// The longest window one request may ask for (ten minutes).
pub const MAX_WINDOW_MS: u64 = 600_000;

/// `GET /api/alerts/{id}/report`: the alert, its board and players, the game's moves with
/// clock times, and every arbiter action on that board from the alert on, with names.
pub(crate) async fn report(
    State(app): State<Arc<App>>,
    Path(id): Path<u64>,
    Query(q): Query<ReadQuery>,
    headers: HeaderMap,
) -> ApiResult {
    let who = may_read(&app, &headers, &q)?;
    let desk = app.feed.desk();
    let hall = &desk.hall;
    let alert = hall
        .alert(id)
        .ok_or_else(|| ApiError::NotFound(format!("no alert {id}")))?;
    must_cover(&app, &who, &alert.board)?;
    let game = alert
        .alert
        .game
        .as_deref()
        .and_then(|g| hall.game(g))
        .or_else(|| hall.current_game(&alert.board));
    let paired = game
        .and_then(|g| hall.pairing_of_game(&g.id))
        .or_else(|| hall.pairing_of_board(&alert.board));
    let pairing = paired.map(|(round, p)| crate::hall::pairing_json(round, p));
    // The event and time control the report is written under (the appeals committee reads
    // it on paper).
    let event = crate::rounds::event_name(
        &app.config.event,
        paired
            .and_then(|(round, _)| hall.book().round(round))
            .and_then(|i| i.pairings.event.as_deref()),
    );
    let actions: Vec<&crate::hall::ActionRecord> = hall
        .actions()
        .iter()
        .filter(|a| a.board == alert.board && (a.alert() == Some(id) || a.seq > alert.seq))
        .collect();
    // The positions before and after: the alert's own evidence, else the first position
    // after the alert (the last one when nothing followed) and the one before the move that
    // made it — never the same position twice (an alert after the last move, a flag or a
    // stopped clock, has one position: `position_before` is then null).
    let t = alert.t_ms;
    let after = alert.alert.fen.clone().or_else(|| {
        game.and_then(|g| {
            g.moves
                .iter()
                .find(|m| m.t_ms >= t)
                .or(g.moves.last())
                .map(|m| m.fen.clone())
        })
    });
    let before = alert
        .alert
        .fen_before
        .clone()
        .or_else(|| {
            let g = game?;
            match g.moves.iter().rposition(|m| Some(&m.fen) == after.as_ref()) {
                Some(0) => g.start_fen.clone(),
                Some(i) => Some(g.moves[i - 1].fen.clone()),
                None => g
                    .moves
                    .iter()
                    .rev()
                    .find(|m| m.t_ms < t)
                    .map(|m| m.fen.clone())
                    .or_else(|| g.start_fen.clone()),
            }
        })
        .filter(|b| Some(b) != after.as_ref());
    Ok(ok(json!({
        "alert": alert,
        "position_before": before,
        "position_after": after,
        "board": alert.board,
        "table": hall.tables().table(&alert.board),
        "pairing": pairing,
        "event": event,
        "time_control": app.config.time_control_of(&alert.board),
        "game": game.map(|g| json!({
            "id": g.id, "start_fen": g.start_fen, "result": g.result, "reason": g.reason,
            "moves": g.moves,
        })),
        "actions": actions,
        "now_t_ms": desk.now_t_ms(),
    })))
}

#[derive(Debug, Default, Deserialize)]
pub struct ReplayQuery {
    pub token: Option<String>,
    /// The window, in event time; default: 20 s before `at_ms` to 10 s after.
    pub from_ms: Option<u64>,
    pub to_ms: Option<u64>,
    /// The moment to replay around (an alert's time); default: the event time now.
    pub at_ms: Option<u64>,
    /// Replay around this alert (its board and time).
    pub alert: Option<u64>,
}

/// `GET /api/boards/{board}/replay`: the board's events in a window (moves, clock readings,
/// alerts, link changes), oldest first, with the position and clocks the window starts
/// from. From the resume ring; where the ring no longer reaches back, the game's moves
/// (with their clock times) stand in for it (`complete: false`).
pub(crate) async fn replay(
    State(app): State<Arc<App>>,
    Path(board): Path<String>,
    Query(q): Query<ReplayQuery>,
    headers: HeaderMap,
) -> ApiResult {
    let read = ReadQuery {
        token: q.token.clone(),
        ..ReadQuery::default()
    };
    let who = may_read(&app, &headers, &read)?;
    must_cover(&app, &who, &board)?;
    // The desk is not held across the journal read.
    let (events, complete, start, rotated, at, from, to) = {
        let desk = app.feed.desk();
        let hall = &desk.hall;
        if hall.board(&board).is_none() {
            return Err(ApiError::NotFound(format!("no board {board:?}")));
        }
        let at = match q.alert {
            Some(id) => {
                let a = hall
                    .alert(id)
                    .filter(|a| a.board == board)
                    .ok_or_else(|| ApiError::NotFound(format!("no alert {id} on {board}")))?;
                a.t_ms
            }
            None => q.at_ms.unwrap_or_else(|| desk.now_t_ms()),
        };
        let from = q.from_ms.unwrap_or(at.saturating_sub(BEFORE_MS));
        let to = q.to_ms.unwrap_or(at.saturating_add(AFTER_MS));
        if to < from || to - from > MAX_WINDOW_MS {
            return Err(ApiError::BadRequest(format!(
                "the window must run forwards and last at most {} s",
                MAX_WINDOW_MS / 1000
            )));
        }
        let (mut events, complete) = desk.board_events(&board, from, to);
        // The game the window is in, and where it stood when the window opens: the alert's
        // own game (at a game's end the next game may start within the window), else the
        // game going on when the window opens, else the first one started in it.
        let alert_game = q
            .alert
            .and_then(|id| hall.alert(id))
            .and_then(|a| a.alert.game.as_deref())
            .and_then(|g| hall.game(g));
        let on_board = || hall.games().filter(|g| g.board == board);
        let game = alert_game
            .or_else(|| {
                on_board()
                    .filter(|g| g.start_t_ms <= from)
                    .max_by_key(|g| g.start_t_ms)
            })
            .or_else(|| {
                on_board()
                    .filter(|g| g.start_t_ms <= to)
                    .min_by_key(|g| g.start_t_ms)
            });
        let before = game.and_then(|g| g.moves.iter().rev().find(|m| m.t_ms < from));
        if !complete && let Some(g) = game {
            let seen: std::collections::BTreeSet<u64> = events
                .iter()
                .filter_map(|e| e.get("seq").and_then(Value::as_u64))
                .collect();
            for m in g
                .moves
                .iter()
                .filter(|m| m.t_ms >= from && m.t_ms <= to && !seen.contains(&m.seq))
            {
                events.push(json!({
                    "type": "move", "seq": m.seq, "t_ms": m.t_ms, "board": board, "game": g.id,
                    "ply": m.ply, "side": m.side, "uci": m.uci, "san": m.san, "fen": m.fen,
                    "white_ms": m.white_ms, "black_ms": m.black_ms,
                }));
            }
        }
        // In event time (the stream's order; seq breaks ties).
        events.sort_by_key(|e| {
            let n = |k: &str| e.get(k).and_then(Value::as_u64).unwrap_or(0);
            (n("t_ms"), n("seq"))
        });
        let rotated = hall.board(&board).is_some_and(|b| b.is_rotated());
        let start = json!({
            "fen": before.map(|m| m.fen.clone()).or_else(|| game.and_then(|g| g.start_fen.clone())),
            "white_ms": before.and_then(|m| m.white_ms),
            "black_ms": before.and_then(|m| m.black_ms),
            "last_move": before.map(|m| m.uci.clone()),
        });
        (events, complete, start, rotated, at, from, to)
    };

    // Field update by field update, from the journal (a daemon; a hub has events only).
    let field_updates = match app.board_log.clone() {
        Some(log) => {
            let b = board.clone();
            let read = tokio::task::spawn_blocking(move || log.field_updates(&b, from, to)).await;
            match read {
                Ok(Ok(list)) => Some(list),
                Ok(Err(e)) => {
                    tracing::warn!(board = %board, error = %e, "replay: the journal could not be read");
                    None
                }
                Err(_) => None,
            }
        }
        None => None,
    };
    let field_updates = field_updates.map(|list| {
        list.iter()
            .map(|f| {
                json!({
                    "type": "field_update", "t_ms": f.t_ms,
                    "square": square_name(f.index, rotated), "piece": f.piece.map(String::from),
                })
            })
            .collect::<Vec<_>>()
    });
    Ok(ok(json!({
        "board": board,
        "at_ms": at,
        "field_updates": field_updates,
        "from_ms": from,
        "to_ms": to,
        "complete": complete,
        "start": start,
        "events": events,
    })))
}

/// The algebraic square of a board's field index (protocol §3.3: 0 is a8 seen from White
/// in normal orientation, 63 is h1; a rotated board numbers from h1).
pub fn square_name(index: u8, rotated: bool) -> String {
    let i = if rotated { 63 - index } else { index };
    let file = (b'a' + i % 8) as char;
    let rank = 8 - i / 8;
    format!("{file}{rank}")
}

#[cfg(test)]
mod tests {
    use super::square_name;

    #[test]
    fn field_indexes_name_squares_from_a8_or_from_h1_when_rotated() {
        assert_eq!(square_name(0, false), "a8");
        assert_eq!(square_name(7, false), "h8");
        assert_eq!(square_name(63, false), "h1");
        assert_eq!(square_name(12, false), "e7");
        assert_eq!(square_name(0, true), "h1");
        assert_eq!(square_name(63, true), "a8");
    }
}
