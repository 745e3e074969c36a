//! Accepting connections with limits, so that the venue LAN cannot exhaust the daemon: each
//! port holds at most a set number of connections, and one client address at most a share
//! of them (one beyond either cap is closed at once, and counted); a whole request —
//! headers and body — must arrive within a deadline counted from its first byte (which
//! also closes idle keep-alive connections); headers and bodies are bounded in size, a
//! body beyond its bound refused (413) before it is read. So one machine that opens
//! hundreds of requests and never finishes their bodies holds a few slots for a few
//! seconds, and `/health`, sign-in, actions and reconnects from everyone else go on. The
//! caps together stay well below the process's file-descriptor limit, so a board plugged
//! in again can always have its serial port opened.

use std::collections::HashMap;
use std::convert::Infallible;
use std::io;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Body;
use axum::extract::Request;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use http_body_util::{BodyExt, LengthLimitError, Limited};
use hyper::body::{Body as _, Incoming};
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, watch};
use tower::ServiceExt;

/// File descriptors kept free of connections: serial ports, the journal (SQLite and its
/// WAL), capture and broadcast files, NATS.
pub const FD_RESERVE: u64 = 256;

/// Request headers larger than this are refused (431).
const MAX_HEADER_BYTES: usize = 16 * 1024;

/// Bodies larger than this (the upload routes' own bound) are read at most this many at
/// once, so a flood of large uploads cannot make the server buffer them all.
const UPLOADS_AT_ONCE: usize = 4;

/// The limits of one listening port.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    pub max_connections: usize,
    /// Connections one client address (an IPv6 client: its /64) holds at once.
    pub max_per_address: usize,
    /// How long a whole request (headers and body) may take from its first byte; also how
    /// long an idle keep-alive connection is kept.
    pub request_timeout: Duration,
    /// The largest request body, and the largest on the routes [`Limits::uploads`] names.
    pub max_body: usize,
    pub max_upload: usize,
    /// Which requests are uploads (`POST …/pairings` on the dashboard port).
    pub uploads: fn(&axum::http::request::Parts) -> bool,
}

/// What the listener counts, for `/metrics` (`dgt_refused_total{reason=…}`).
#[derive(Debug, Clone, Default)]
pub struct Refusals {
    /// Connections closed because the port held its cap.
    pub connection_cap: Arc<AtomicU64>,
    /// Connections closed because their address held its share.
    pub address_cap: Arc<AtomicU64>,
    /// Requests whose body did not arrive in time (408).
    pub request_timeout: Arc<AtomicU64>,
    /// Requests whose body was larger than allowed (413).
    pub body_too_large: Arc<AtomicU64>,
}

/// The connection caps of the two ports, lowered (both in proportion) when together with
/// [`FD_RESERVE`] they would pass the soft limit on open files `fd_limit`.
pub fn fit_to_fd_limit(caps: (usize, usize), fd_limit: Option<u64>) -> (usize, usize) {
    let Some(limit) = fd_limit else {
        return caps;
    };
    let room = limit.saturating_sub(FD_RESERVE) as usize;
    let total = caps.0 + caps.1;
    if total <= room {
        return caps;
    }
    let scale = |c: usize| (c * room / total.max(1)).max(1);
    (scale(caps.0), scale(caps.1))
}

/// The soft limit on open files (`Max open files` of /proc/self/limits), where known.
pub fn fd_soft_limit() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = text.lines().find(|l| l.starts_with("Max open files"))?;
    line["Max open files".len()..]
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// A connection and its place under the port's cap, given back when the connection (or the
/// WebSocket it was upgraded to) closes.
struct Counted {
    stream: TcpStream,
    _permit: OwnedSemaphorePermit,
    _address: AddressSlot,
    clock: Arc<RequestClock>,
}

impl AsyncRead for Counted {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.stream).poll_read(cx, buf);
        if matches!(polled, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            self.clock.first_byte();
        }
        polled
    }
}

/// When the request being read on a connection sent its first byte: set by the first read
/// that brings data while no request is under way, taken when the request reaches the
/// service, cleared again once its body is in (so a keep-alive pause never counts).
#[derive(Debug)]
struct RequestClock {
    opened: Instant,
    /// Milliseconds after `opened`, plus one; 0: no request under way.
    began: AtomicU64,
}

impl RequestClock {
    fn new() -> Self {
        RequestClock {
            opened: Instant::now(),
            began: AtomicU64::new(0),
        }
    }

    fn first_byte(&self) {
        let now = self.opened.elapsed().as_millis() as u64 + 1;
        let _ = self
            .began
            .compare_exchange(0, now, Ordering::Relaxed, Ordering::Relaxed);
    }

    /// When the request now at the service began (now, if no byte was seen).
    fn take(&self) -> Instant {
        match self.began.swap(0, Ordering::Relaxed) {
            0 => Instant::now(),
            ms => self.opened + Duration::from_millis(ms - 1),
        }
    }

    fn clear(&self) {
        self.began.store(0, Ordering::Relaxed);
    }
}

/// The key an address is counted under: an IPv4 address, or an IPv6 client's /64 (one
/// machine may take any number of addresses in its network).
pub(crate) fn address_key(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => {
                let mut octets = v6.octets();
                octets[8..].fill(0);
                IpAddr::V6(octets.into())
            }
        },
        v4 => v4,
    }
}

/// Open connections by client address.
#[derive(Debug, Default)]
struct Addresses(Mutex<HashMap<IpAddr, usize>>);

/// One connection's place in its address's share, given back when it closes.
struct AddressSlot {
    addresses: Arc<Addresses>,
    key: IpAddr,
}

impl Addresses {
    fn take(self: &Arc<Self>, ip: IpAddr, cap: usize) -> Option<AddressSlot> {
        let key = address_key(ip);
        let mut map = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let held = map.entry(key).or_insert(0);
        if *held >= cap {
            return None;
        }
        *held += 1;
        Some(AddressSlot {
            addresses: self.clone(),
            key,
        })
    }
}

impl Drop for AddressSlot {
    fn drop(&mut self) {
        let mut map = self.addresses.0.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(held) = map.get_mut(&self.key) {
            *held -= 1;
            if *held == 0 {
                map.remove(&self.key);
            }
        }
    }
}

impl AsyncWrite for Counted {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }
}

/// Logs a refusal the first time and then at every power of two, so a flood is told
/// without flooding the log.
fn warn_sometimes(counter: &AtomicU64, what: &str, addr: std::net::SocketAddr, cap: usize) {
    let n = counter.fetch_add(1, Ordering::Relaxed) + 1;
    if n == 1 || n.is_power_of_two() {
        tracing::warn!(%addr, cap, refused_so_far = n, "{what}");
    }
}

/// Serves `router` on `listener` under `limits` until `stop` turns true; then lets the open
/// connections finish (WebSocket sessions close themselves on the same signal), waiting at
/// most a few seconds. `refused` counts what the limits turned away.
pub(crate) async fn serve(
    listener: TcpListener,
    router: Router,
    limits: Limits,
    mut stop: watch::Receiver<bool>,
    refused: Refusals,
) -> io::Result<()> {
    let cap = limits.max_connections.max(1);
    let per_address = limits.max_per_address.max(1);
    let slots = Arc::new(Semaphore::new(cap));
    let addresses = Arc::new(Addresses::default());
    let uploads = Arc::new(Semaphore::new(UPLOADS_AT_ONCE));
    let addr = listener.local_addr()?;
    loop {
        let accepted = tokio::select! {
            a = listener.accept() => a,
            _ = crate::stop_requested(&mut stop) => break,
        };
        let (stream, peer) = match accepted {
            Ok(accepted) => accepted,
            Err(e) => {
                // Out of descriptors (EMFILE/ENFILE) or a connection reset before accept:
                // wait a moment rather than spin.
                tracing::warn!(%addr, error = %e, "accepting a connection failed");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let Some(address) = addresses.take(peer.ip(), per_address) else {
            warn_sometimes(
                &refused.address_cap,
                "one client address holds its share of connections: closing its new ones \
                 until some close",
                addr,
                per_address,
            );
            drop(stream);
            continue;
        };
        let Ok(permit) = slots.clone().try_acquire_owned() else {
            warn_sometimes(
                &refused.connection_cap,
                "connection cap reached: closing new connections until some close",
                addr,
                cap,
            );
            drop(stream);
            continue;
        };
        let clock = Arc::new(RequestClock::new());
        let io = TokioIo::new(Counted {
            stream,
            _permit: permit,
            _address: address,
            clock: clock.clone(),
        });
        let router = router.clone();
        let refused = refused.clone();
        let uploads = uploads.clone();
        let mut stop = stop.clone();
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |req: Request<Incoming>| {
                let router = router.clone();
                let clock = clock.clone();
                let refused = refused.clone();
                let uploads = uploads.clone();
                async move {
                    let deadline = clock.take() + limits.request_timeout;
                    let mut req = req;
                    req.extensions_mut()
                        .insert(axum::extract::ConnectInfo(peer));
                    let response = match whole_body(req, &limits, deadline, &uploads).await {
                        Ok(req) => {
                            clock.clear();
                            match router.oneshot(req).await {
                                Ok(r) => r,
                                Err(never) => match never {},
                            }
                        }
                        Err(cut) => cut.answer(&refused),
                    };
                    Ok::<_, Infallible>(response)
                }
            });
            let mut builder = hyper::server::conn::http1::Builder::new();
            builder
                .timer(TokioTimer::new())
                .header_read_timeout(limits.request_timeout)
                .max_buf_size(MAX_HEADER_BYTES.max(8192));
            let conn = builder.serve_connection(io, service).with_upgrades();
            tokio::pin!(conn);
            tokio::select! {
                _ = conn.as_mut() => {}
                _ = crate::stop_requested(&mut stop) => {
                    conn.as_mut().graceful_shutdown();
                    let _ = tokio::time::timeout(Duration::from_secs(5), conn).await;
                }
            }
        });
    }
    // Every slot back means every connection (and WebSocket) closed.
    let _ = tokio::time::timeout(Duration::from_secs(5), slots.acquire_many(cap as u32)).await;
    Ok(())
}

/// Why a request was answered before it reached the routes.
enum Cut {
    /// The body did not arrive by the deadline.
    Late(Duration),
    /// The body is (or says it is) larger than `limit`.
    TooLarge { limit: usize, upload: bool },
    /// The body could not be read (the client broke it off, or sent a malformed chunk).
    Broken(String),
}

impl Cut {
    fn answer(self, refused: &Refusals) -> Response {
        let (status, message) = match self {
            Cut::Late(limit) => {
                refused.request_timeout.fetch_add(1, Ordering::Relaxed);
                (
                    StatusCode::REQUEST_TIMEOUT,
                    format!(
                        "the request (headers and body) did not arrive within {} ms; send it \
                         whole, at once",
                        limit.as_millis()
                    ),
                )
            }
            Cut::TooLarge { limit, upload } => {
                refused.body_too_large.fetch_add(1, Ordering::Relaxed);
                let what = if upload {
                    "the file is"
                } else {
                    "the request body is"
                };
                (
                    StatusCode::PAYLOAD_TOO_LARGE,
                    format!(
                        "{what} larger than {limit} bytes, the most this server takes; nothing \
                         was applied"
                    ),
                )
            }
            Cut::Broken(e) => (
                StatusCode::BAD_REQUEST,
                format!("the request body could not be read: {e}"),
            ),
        };
        let mut r = (status, serde_json::json!({ "error": message }).to_string()).into_response();
        let h = r.headers_mut();
        h.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        // What is left of the body is never read: the connection ends with this answer.
        h.insert(header::CONNECTION, HeaderValue::from_static("close"));
        r
    }
}

/// The request with its whole body read (within `deadline` and the size limit), so no
/// handler ever waits on a client that does not send.
async fn whole_body(
    req: Request<Incoming>,
    limits: &Limits,
    deadline: Instant,
    uploads: &Semaphore,
) -> Result<Request, Cut> {
    let (parts, body) = req.into_parts();
    if body.is_end_stream() {
        return Ok(Request::from_parts(parts, Body::new(body)));
    }
    let upload = (limits.uploads)(&parts);
    let limit = if upload {
        limits.max_upload
    } else {
        limits.max_body
    };
    let declared = body.size_hint().exact();
    if declared.is_some_and(|n| n > limit as u64) {
        return Err(Cut::TooLarge { limit, upload });
    }
    let deadline = tokio::time::Instant::from_std(deadline);
    // A large body waits for one of a few places (within the same deadline).
    let _place = if upload {
        match tokio::time::timeout_at(deadline, uploads.acquire()).await {
            Ok(Ok(p)) => Some(p),
            _ => return Err(Cut::Late(limits.request_timeout)),
        }
    } else {
        None
    };
    match tokio::time::timeout_at(deadline, Limited::new(body, limit).collect()).await {
        Err(_) => Err(Cut::Late(limits.request_timeout)),
        Ok(Err(e)) if e.downcast_ref::<LengthLimitError>().is_some() => {
            Err(Cut::TooLarge { limit, upload })
        }
        Ok(Err(e)) => Err(Cut::Broken(e.to_string())),
        Ok(Ok(collected)) => Ok(Request::from_parts(parts, Body::from(collected.to_bytes()))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caps_fit_below_the_descriptor_limit_with_room_for_the_boards() {
        assert_eq!(fit_to_fd_limit((512, 64), Some(65_536)), (512, 64));
        assert_eq!(fit_to_fd_limit((512, 64), None), (512, 64));
        let (a, b) = fit_to_fd_limit((512, 64), Some(512));
        assert!(a + b + FD_RESERVE as usize <= 512, "{a} {b}");
        assert!(a > b && b >= 1);
        assert_eq!(fit_to_fd_limit((512, 64), Some(10)), (1, 1));
    }

    #[test]
    fn the_soft_limit_is_read() {
        // Linux always has /proc/self/limits; elsewhere the caps stand as configured.
        if std::path::Path::new("/proc/self/limits").exists() {
            assert!(fd_soft_limit().is_some_and(|n| n > 0));
        }
    }
}
