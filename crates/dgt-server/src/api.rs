//! What every API handler shares: who may read or act, the error type and the JSON
//! responses. A leaf under the route modules (`rest`, `cockpit`, `rounds`, `ws`, `origin`),
//! so they depend on it and not on each other.

use std::time::Duration;

use axum::body::Bytes;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use dgt_core::{Input, InputKind, Operation};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::App;
use crate::access::Principal;
use crate::auth::{self, Need};

#[derive(Debug, Default, Deserialize)]
pub struct ReadQuery {
    pub token: Option<String>,
    pub open: Option<bool>,
    pub board: Option<String>,
}

/// Why an API request failed; each becomes a JSON `{"error": ...}` with its status.
#[derive(Debug)]
pub enum ApiError {
    Refused(auth::Refusal),
    BadRequest(String),
    NotFound(String),
    /// The core did not take the action in time.
    Unavailable,
    /// On a hub: the node owning the board did not confirm the action.
    NodeUnavailable(String),
}

impl From<auth::Refusal> for ApiError {
    fn from(r: auth::Refusal) -> Self {
        ApiError::Refused(r)
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        match self {
            ApiError::Refused(r) => r.into_response(),
            ApiError::BadRequest(m) => error(StatusCode::BAD_REQUEST, m),
            ApiError::NotFound(m) => error(StatusCode::NOT_FOUND, m),
            ApiError::Unavailable => error(
                StatusCode::SERVICE_UNAVAILABLE,
                "the daemon's core is not taking actions right now; try again",
            ),
            ApiError::NodeUnavailable(m) => error(StatusCode::SERVICE_UNAVAILABLE, m),
        }
    }
}

pub(crate) type ApiResult = Result<Response, ApiError>;

pub(crate) fn json_response(status: StatusCode, value: Value) -> Response {
    let mut r = (status, value.to_string()).into_response();
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    r
}

pub(crate) fn ok(value: Value) -> Response {
    json_response(StatusCode::OK, value)
}

pub(crate) fn error(status: StatusCode, message: impl Into<String>) -> Response {
    json_response(status, json!({ "error": message.into() }))
}

/// Who reads: a bearer token or a signed-in session. `?token=` is refused here (only the
/// WebSocket takes it): URLs end up in logs, history and `Referer` headers.
pub(crate) fn may_read(
    app: &App,
    headers: &HeaderMap,
    q: &ReadQuery,
) -> Result<Principal, auth::Refusal> {
    who(app, headers, q, Need::Read)
}

/// Who acts: as [`may_read`], from an allowed Origin, with a role that acts.
pub(crate) fn may_act(
    app: &App,
    headers: &HeaderMap,
    q: &ReadQuery,
) -> Result<Principal, auth::Refusal> {
    who(app, headers, q, Need::Act)
}

/// The one path of [`may_read`] and [`may_act`]: no token in the URL, the Origin checked
/// for an action, then the token or session.
fn who(
    app: &App,
    headers: &HeaderMap,
    q: &ReadQuery,
    need: Need,
) -> Result<Principal, auth::Refusal> {
    if q.token.is_some() {
        return Err(auth::Refusal::TokenInUrl);
    }
    if need == Need::Act {
        auth::check_origin(&app.config, headers)?;
    }
    auth::authorize(&app.config, &app.sessions, headers, None, need)
}

/// Refuses (403) a principal a board outside its sections.
pub(crate) fn must_cover(app: &App, who: &Principal, board: &str) -> Result<(), ApiError> {
    if who.covers_board(&app.config.tables, board) {
        Ok(())
    } else {
        Err(ApiError::Refused(auth::Refusal::OutsideSections))
    }
}

pub(crate) fn parse_body<T: serde::de::DeserializeOwned>(body: &Bytes) -> Result<T, ApiError> {
    serde_json::from_slice(body)
        .map_err(|e| ApiError::BadRequest(format!("invalid request body: {e}")))
}

/// Forwards an action to the core; 503 when the core does not take it within two seconds.
/// On a hub, to the node that reads the board, answered once that node journaled it.
pub(crate) async fn forward(app: &App, board: &str, op: Operation) -> Result<(), ApiError> {
    if let Some(sink) = &app.actions {
        return sink.act(board.to_string(), op).await.map_err(|e| match e {
            crate::ActionError::Refused(m) => ApiError::BadRequest(m),
            crate::ActionError::Unavailable(m) => ApiError::NodeUnavailable(m),
        });
    }
    let input = Input {
        t_ms: app.now_ms(),
        board: board.to_string(),
        kind: InputKind::Op(op),
    };
    match tokio::time::timeout(Duration::from_secs(2), app.ops.send(input)).await {
        Ok(Ok(())) => Ok(()),
        _ => Err(ApiError::Unavailable),
    }
}

/// Forwards an action, then who took it (an [`Operation::By`], journaled beside it).
pub(crate) async fn forward_by(
    app: &App,
    who: &Principal,
    board: &str,
    op: Operation,
) -> Result<(), ApiError> {
    forward(app, board, op.clone()).await?;
    let by = Operation::By(dgt_core::input::ActionBy {
        arbiter: who.name.clone(),
        role: crate::feed::enum_name(&who.role),
        action: Box::new(op),
    });
    if let Err(e) = forward(app, board, by).await {
        tracing::warn!(?e, board, arbiter = %who.name, "the action was taken but who took it was not recorded");
    }
    Ok(())
}
