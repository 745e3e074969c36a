//! The WebSocket endpoints: `/ws` (the arbiter feed: a snapshot or the missed events, then
//! live events, one per text frame) and `/ws/public` (the delayed public feed). Each client
//! has its own task reading a bounded broadcast: a client that falls behind gets
//! `{"type":"resync"}` and a fresh snapshot, one that stops reading is disconnected.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use axum::extract::ws::{Message, Utf8Bytes, WebSocket, WebSocketUpgrade};
use axum::extract::{Query, State};
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use tokio::sync::broadcast::error::RecvError;

use crate::App;
use crate::access::Principal;
use crate::auth::{self, Need};
use crate::feed::{Joined, shown_to};
use crate::metrics::ClientGuard;

/// The largest message a feed client may send: they only read (a ping or a close is all
/// that comes from them), so anything bigger is hostile and closes the connection.
pub const FEED_MESSAGE_MAX: usize = 4 * 1024;
/// The largest LiveChess call (a `setup` carries a FEN).
pub const CALL_MESSAGE_MAX: usize = 16 * 1024;

/// A WebSocket with small buffers and message limits instead of tungstenite's defaults
/// (64 MiB messages, 16 MiB frames, a 128 KiB write buffer per connection): thousands of
/// clients stay cheap, and one cannot make the server buffer a huge message.
pub(crate) fn small_frames(upgrade: WebSocketUpgrade, max_message: usize) -> WebSocketUpgrade {
    upgrade
        .read_buffer_size(4 * 1024)
        .write_buffer_size(8 * 1024)
        .max_message_size(max_message)
        .max_frame_size(max_message)
}

#[derive(Debug, Default, Deserialize)]
pub struct FeedQuery {
    /// Resume after this seq.
    pub since: Option<u64>,
    pub token: Option<String>,
}

/// Which feed a client reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Audience {
    Arbiter,
    Public,
}

/// `GET /ws[?since=SEQ][&token=T]`
pub(crate) async fn arbiter_feed(
    State(app): State<Arc<App>>,
    Query(q): Query<FeedQuery>,
    headers: HeaderMap,
    upgrade: WebSocketUpgrade,
) -> Response {
    // The one route that takes `?token=`: a browser cannot set headers on a WebSocket
    // (the dashboard itself sends its session cookie instead).
    let who = match auth::check_origin(&app.config, &headers).and_then(|_| {
        auth::authorize(
            &app.config,
            &app.sessions,
            &headers,
            q.token.as_deref(),
            Need::Read,
        )
    }) {
        Ok(who) => who,
        Err(r) => return r.into_response(),
    };
    small_frames(upgrade, FEED_MESSAGE_MAX).on_upgrade(move |socket| async move {
        let _counted = ClientGuard::new(&app.gauges.ws_clients);
        let who = (!who.whole_hall()).then_some(who);
        pump(socket, &app, Audience::Arbiter, q.since, who.as_ref()).await;
    })
}

/// `GET /ws/public`: no token, any Origin (it carries only what spectators may see). At most
/// `max_public_clients` at once, so spectators never take the arbiter's connections.
pub(crate) async fn public_feed(
    State(app): State<Arc<App>>,
    upgrade: WebSocketUpgrade,
) -> Response {
    let Ok(slot) = app.public_slots.clone().try_acquire_owned() else {
        app.gauges
            .refused_public_clients
            .fetch_add(1, Ordering::Relaxed);
        return crate::api::error(
            axum::http::StatusCode::SERVICE_UNAVAILABLE,
            "the public feed has as many spectators as it takes; try again later",
        );
    };
    small_frames(upgrade, FEED_MESSAGE_MAX).on_upgrade(move |socket| async move {
        let _slot = slot;
        let _counted = ClientGuard::new(&app.gauges.public_clients);
        pump(socket, &app, Audience::Public, None, None).await;
    })
}

fn join(
    app: &App,
    audience: Audience,
    since: Option<u64>,
    resync: bool,
    who: Option<&Principal>,
) -> Joined {
    match audience {
        Audience::Arbiter => app.feed.join_for(since, resync, who),
        Audience::Public => app.public.join(resync),
    }
}

/// How a send ended.
enum Sent {
    Ok,
    /// The client took nothing for the whole send timeout.
    Stalled,
    Gone,
}

async fn send(socket: &mut WebSocket, text: Utf8Bytes, timeout: Duration) -> Sent {
    match tokio::time::timeout(timeout, socket.send(Message::Text(text))).await {
        Ok(Ok(())) => Sent::Ok,
        Ok(Err(_)) => Sent::Gone,
        Err(_) => Sent::Stalled,
    }
}

/// Sends a backlog; false when the client is gone or stalled.
async fn send_backlog(app: &App, socket: &mut WebSocket, backlog: Vec<Utf8Bytes>) -> bool {
    let timeout = Duration::from_millis(app.config.send_timeout_ms);
    for text in backlog {
        match send(socket, text, timeout).await {
            Sent::Ok => {}
            Sent::Stalled => {
                app.gauges
                    .stalled_disconnects
                    .fetch_add(1, Ordering::Relaxed);
                return false;
            }
            Sent::Gone => return false,
        }
    }
    true
}

/// One client's life: backlog, then live messages until it leaves or the server stops.
/// `who`: a principal covering part of the hall gets only its boards' messages.
async fn pump(
    mut socket: WebSocket,
    app: &App,
    audience: Audience,
    since: Option<u64>,
    who: Option<&Principal>,
) {
    let mut joined = join(app, audience, since, false, who);
    let mut shutdown = app.shutdown.clone();
    if !send_backlog(app, &mut socket, std::mem::take(&mut joined.backlog)).await {
        return;
    }
    let mut seq = joined.seq;
    loop {
        tokio::select! {
            message = joined.live.recv() => match message {
                Ok(frame) => {
                    if let Some(s) = frame.seq {
                        // Already in the backlog the client was sent.
                        if s <= seq {
                            continue;
                        }
                        seq = s;
                    }
                    if who.is_some_and(|p| !shown_to(p, &app.config.tables, &frame.board)) {
                        continue;
                    }
                    if !send_backlog(app, &mut socket, vec![frame.text.clone()]).await {
                        return;
                    }
                }
                Err(RecvError::Lagged(missed)) => {
                    app.gauges.lagging_clients.fetch_add(1, Ordering::Relaxed);
                    tracing::info!(missed, "a feed client fell behind; resyncing it");
                    joined = join(app, audience, None, true, who);
                    let mut backlog = vec![Utf8Bytes::from_static(r#"{"type":"resync"}"#)];
                    backlog.append(&mut joined.backlog);
                    if !send_backlog(app, &mut socket, backlog).await {
                        return;
                    }
                    seq = joined.seq;
                }
                Err(RecvError::Closed) => return,
            },
            incoming = socket.recv() => match incoming {
                None | Some(Err(_)) | Some(Ok(Message::Close(_))) => return,
                Some(Ok(_)) => {}
            },
            _ = crate::stop_requested(&mut shutdown) => {
                let _ = socket.send(Message::Close(None)).await;
                return;
            }
        }
    }
}
