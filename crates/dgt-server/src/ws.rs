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
use futures_util::SinkExt;
use serde::Deserialize;
use tokio::sync::broadcast::error::{RecvError, TryRecvError};

use crate::App;
use crate::access::Principal;
use crate::auth::{self, Need};
use crate::feed::{Frame, Joined, PREVIEW, preview_text, shown_to};
use crate::metrics::ClientGuard;
use crate::preview::Outgoing;

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
    /// `1`: also first sights of events before they are numbered (a hub's previews,
    /// [`crate::feed::Feed::preview`]).
    pub preview: Option<u8>,
}

/// Which feed a client reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Audience {
    /// `previews`: the client asked for first sights too.
    Arbiter {
        previews: bool,
    },
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
    // A socket opened by a signed-in browser (no token) closes when its session ends.
    let ended = match auth::presented_token(&headers, q.token.as_deref()) {
        Some(_) => None,
        None => crate::access::session_cookie(&headers).and_then(|id| app.sessions.ended(id)),
    };
    small_frames(upgrade, FEED_MESSAGE_MAX).on_upgrade(move |socket| async move {
        let _counted = ClientGuard::new(&app.gauges.ws_clients);
        let who = (!who.whole_hall()).then_some(who);
        let audience = Audience::Arbiter {
            previews: q.preview == Some(1),
        };
        pump(socket, &app, audience, q.since, who.as_ref(), ended).await;
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
        pump(socket, &app, Audience::Public, None, None, None).await;
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
        Audience::Arbiter { .. } => app.feed.join_for(since, resync, who),
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

/// Queues one message in the socket's write buffer (written out when the buffer fills).
async fn feed(socket: &mut WebSocket, text: Utf8Bytes, timeout: Duration) -> Sent {
    sent(tokio::time::timeout(timeout, socket.feed(Message::Text(text))).await)
}

fn sent(r: Result<Result<(), axum::Error>, tokio::time::error::Elapsed>) -> Sent {
    match r {
        Ok(Ok(())) => Sent::Ok,
        Ok(Err(_)) => Sent::Gone,
        Err(_) => Sent::Stalled,
    }
}

/// Sends a backlog (or a burst of live messages) with one flush at the end: the messages
/// leave in as few writes as the buffer allows instead of one system call each. False when
/// the client is gone or stalled (took nothing for a whole send timeout).
async fn send_backlog(app: &App, socket: &mut WebSocket, backlog: Vec<Utf8Bytes>) -> bool {
    if backlog.is_empty() {
        return true;
    }
    let timeout = Duration::from_millis(app.config.send_timeout_ms);
    let mut outcome = Sent::Ok;
    for text in backlog {
        outcome = feed(socket, text, timeout).await;
        if !matches!(outcome, Sent::Ok) {
            break;
        }
    }
    if matches!(outcome, Sent::Ok) {
        outcome = sent(tokio::time::timeout(timeout, socket.flush()).await);
    }
    match outcome {
        Sent::Ok => true,
        Sent::Stalled => {
            app.gauges
                .stalled_disconnects
                .fetch_add(1, Ordering::Relaxed);
            false
        }
        Sent::Gone => false,
    }
}

/// Live messages taken together at most (one flush each).
const BURST: usize = 64;

/// A preview message as one client may see it: whole, or only its boards' events.
fn previews_shown(app: &App, frame: &Frame, who: Option<&Principal>) -> Option<Utf8Bytes> {
    let Some(p) = who else {
        return Some(frame.text.clone());
    };
    let shown: Vec<&Utf8Bytes> = frame
        .previews
        .iter()
        .filter(|(board, _)| shown_to(p, &app.config.tables, board))
        .map(|(_, text)| text)
        .collect();
    (!shown.is_empty()).then(|| preview_text(shown))
}

/// Completes when the session behind a socket ends; never for a socket without one.
async fn session_ended(ended: &mut Option<crate::sessions::Ended>) {
    match ended {
        Some(e) => e.wait().await,
        None => std::future::pending().await,
    }
}

/// One client's life: backlog, then live messages until it leaves, its session ends or the
/// server stops. `who`: a principal covering part of the hall gets only its boards'
/// messages.
async fn pump(
    mut socket: WebSocket,
    app: &App,
    audience: Audience,
    since: Option<u64>,
    who: Option<&Principal>,
    mut ended: Option<crate::sessions::Ended>,
) {
    let mut joined = join(app, audience, since, false, who);
    let mut shutdown = app.shutdown.clone();
    if !send_backlog(app, &mut socket, std::mem::take(&mut joined.backlog)).await {
        return;
    }
    let mut seq = joined.seq;
    let previews = matches!(audience, Audience::Arbiter { previews: true });
    loop {
        tokio::select! {
            message = joined.live.recv() => {
                // The journal releases events per commit, so they come in bursts: what is
                // already waiting goes out with this one, in one write.
                let mut next = match message {
                    Ok(frame) => Some(Ok(frame)),
                    Err(RecvError::Lagged(missed)) => Some(Err(missed)),
                    Err(RecvError::Closed) => return,
                };
                // Numbered events this client was sent the previews of: their numbers only.
                let mut burst = Outgoing::default();
                let mut lagged = None;
                let mut taken = 0;
                while let Some(item) = next.take() {
                    taken += 1;
                    match item {
                        Ok(frame) => {
                            // Not if already in the backlog the client was sent.
                            let fresh = match frame.seq {
                                Some(s) if s <= seq => false,
                                Some(s) => {
                                    seq = s;
                                    true
                                }
                                None => true,
                            };
                            if frame.kind == PREVIEW {
                                if previews && let Some(text) = previews_shown(app, &frame, who) {
                                    burst.whole(text);
                                }
                            } else if fresh
                                && who.is_none_or(|p| shown_to(p, &app.config.tables, &frame.board))
                            {
                                // Sent since it joined (a lag makes it join again), so
                                // it has it. A client shown part of the hall gets every
                                // event whole: which boards it is shown may change between
                                // a preview and its number.
                                let had_preview = frame
                                    .previewed
                                    .as_ref()
                                    .zip(frame.seq)
                                    .filter(|(p, _)| {
                                        previews && who.is_none() && p.no >= joined.first_preview
                                    });
                                match had_preview {
                                    Some((p, s)) => burst.numbers(p, s),
                                    None => burst.whole(frame.text.clone()),
                                }
                            }
                        }
                        Err(missed) => {
                            lagged = Some(missed);
                            break;
                        }
                    }
                    if taken < BURST {
                        next = match joined.live.try_recv() {
                            Ok(frame) => Some(Ok(frame)),
                            Err(TryRecvError::Lagged(missed)) => Some(Err(missed)),
                            // Nothing more now (or closed: the next recv says so).
                            Err(_) => None,
                        };
                    }
                }
                if !send_backlog(app, &mut socket, burst.finish()).await {
                    return;
                }
                if let Some(missed) = lagged {
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
            }
            incoming = socket.recv() => match incoming {
                None | Some(Err(_)) | Some(Ok(Message::Close(_))) => return,
                Some(Ok(_)) => {}
            },
            _ = crate::stop_requested(&mut shutdown) => {
                let _ = socket.send(Message::Close(None)).await;
                return;
            }
            _ = session_ended(&mut ended) => {
                // 4401: the application's "sign in again" (close codes 4000-4999 are free
                // for applications, RFC 6455 7.4.2).
                let frame = axum::extract::ws::CloseFrame {
                    code: 4401,
                    reason: Utf8Bytes::from_static("the session ended: sign in again"),
                };
                let _ = socket.send(Message::Close(Some(frame))).await;
                return;
            }
        }
    }
}
