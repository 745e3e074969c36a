//! Accepting connections with limits, so that the venue LAN cannot exhaust the daemon: each
//! port holds at most a set number of connections (one beyond is closed at once, and
//! counted), a client has a bounded time to send its request headers (which also closes
//! idle keep-alive connections), and request headers are bounded in size. The caps together
//! stay well below the process's file-descriptor limit, so a board plugged in again can
//! always have its serial port opened.

use std::convert::Infallible;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::Request;
use hyper::body::Incoming;
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

/// The limits of one listening port.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    pub max_connections: usize,
    pub header_timeout: Duration,
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
}

impl AsyncRead for Counted {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_read(cx, buf)
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

/// Serves `router` on `listener` under `limits` until `stop` turns true; then lets the open
/// connections finish (WebSocket sessions close themselves on the same signal), waiting at
/// most a few seconds. `refused` counts connections closed for the cap.
pub(crate) async fn serve(
    listener: TcpListener,
    router: Router,
    limits: Limits,
    mut stop: watch::Receiver<bool>,
    refused: Arc<AtomicU64>,
) -> io::Result<()> {
    let cap = limits.max_connections.max(1);
    let slots = Arc::new(Semaphore::new(cap));
    let addr = listener.local_addr()?;
    loop {
        let accepted = tokio::select! {
            a = listener.accept() => a,
            _ = crate::stop_requested(&mut stop) => break,
        };
        let stream = match accepted {
            Ok((stream, _peer)) => stream,
            Err(e) => {
                // Out of descriptors (EMFILE/ENFILE) or a connection reset before accept:
                // wait a moment rather than spin.
                tracing::warn!(%addr, error = %e, "accepting a connection failed");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let Ok(permit) = slots.clone().try_acquire_owned() else {
            let n = refused.fetch_add(1, Ordering::Relaxed) + 1;
            if n == 1 || n.is_power_of_two() {
                tracing::warn!(
                    %addr,
                    max_connections = cap,
                    refused_so_far = n,
                    "connection cap reached: closing new connections until some close"
                );
            }
            drop(stream);
            continue;
        };
        let io = TokioIo::new(Counted {
            stream,
            _permit: permit,
        });
        let router = router.clone();
        let mut stop = stop.clone();
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |req: Request<Incoming>| {
                let router = router.clone();
                async move {
                    let response = router.oneshot(req.map(Body::new)).await;
                    Ok::<_, Infallible>(match response {
                        Ok(r) => r,
                        Err(never) => match never {},
                    })
                }
            });
            let mut builder = hyper::server::conn::http1::Builder::new();
            builder
                .timer(TokioTimer::new())
                .header_read_timeout(limits.header_timeout)
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
