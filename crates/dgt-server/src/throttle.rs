//! Guessing tokens is slow: every wrong token (a bearer token, `?token=` on the WebSocket,
//! a sign-in) counts against the address it came from; past a few, that address's requests
//! that carry a token are answered 429 without looking at the token, for a time that
//! doubles with each further failure (up to a minute). Each slowing is logged and counted
//! (`dgt_auth_failures_total`, `dgt_refused_total{reason="auth_throttled"}`).
//!
//! Only tokens count: a stale session cookie (a browser after sign-out) is 256 random bits,
//! not worth guessing, and must not lock a venue laptop out. Requests without a token
//! (`/health`'s status, the public feed) are never slowed. The count is by address (an
//! IPv6 client: its /64): tokens name no account until one matches, so a wrong one can
//! only be charged to where it came from.

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::extract::{ConnectInfo, Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::App;

/// Wrong tokens an address may send before it is slowed.
pub const FREE_FAILURES: u32 = 10;
/// The longest an address waits between two tries.
pub const MAX_WAIT: Duration = Duration::from_secs(60);
/// An address's failures are forgotten after this long without one.
const FORGET_AFTER: Duration = Duration::from_secs(15 * 60);
/// Addresses remembered at most (the oldest forgotten beyond it).
const MAX_ADDRESSES: usize = 10_000;

/// A response to a request whose token (or sign-in) matched no account.
#[derive(Debug, Clone, Copy)]
pub struct TokenRefused;

#[derive(Debug, Clone, Copy)]
struct Strikes {
    failures: u32,
    last: Instant,
    wait_until: Instant,
}

/// Wrong tokens by address.
#[derive(Debug, Default)]
pub struct Throttle {
    by_address: Mutex<HashMap<IpAddr, Strikes>>,
    pub failures: AtomicU64,
    pub throttled: AtomicU64,
}

/// How long the `n`-th failure (beyond the free ones) makes an address wait.
fn wait_after(failures: u32) -> Duration {
    match failures.checked_sub(FREE_FAILURES) {
        None | Some(0) => Duration::ZERO,
        Some(n) => Duration::from_secs(1u64 << (n - 1).min(6)).min(MAX_WAIT),
    }
}

impl Throttle {
    fn map(&self) -> std::sync::MutexGuard<'_, HashMap<IpAddr, Strikes>> {
        self.by_address.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// How long `ip` must still wait before a token of it is looked at.
    pub fn wait(&self, ip: IpAddr) -> Option<Duration> {
        let now = Instant::now();
        self.map()
            .get(&crate::listen::address_key(ip))
            .and_then(|s| s.wait_until.checked_duration_since(now))
            .filter(|d| !d.is_zero())
    }

    /// Counts a wrong token from `ip`; the wait it now has.
    pub fn failed(&self, ip: IpAddr) -> Duration {
        self.failures.fetch_add(1, Ordering::Relaxed);
        let now = Instant::now();
        let mut map = self.map();
        if map.len() >= MAX_ADDRESSES {
            map.retain(|_, s| now.duration_since(s.last) < FORGET_AFTER);
            if map.len() >= MAX_ADDRESSES
                && let Some(oldest) = map.iter().min_by_key(|(_, s)| s.last).map(|(k, _)| *k)
            {
                map.remove(&oldest);
            }
        }
        let strikes = map
            .entry(crate::listen::address_key(ip))
            .or_insert(Strikes {
                failures: 0,
                last: now,
                wait_until: now,
            });
        if now.duration_since(strikes.last) >= FORGET_AFTER {
            strikes.failures = 0;
        }
        strikes.failures += 1;
        strikes.last = now;
        let wait = wait_after(strikes.failures);
        strikes.wait_until = now + wait;
        wait
    }
}

/// Whether a request carries a token to check: a bearer header, `?token=`, or a sign-in.
fn carries_token(req: &Request) -> bool {
    let path = req.uri().path();
    req.headers().contains_key(header::AUTHORIZATION)
        || req
            .uri()
            .query()
            .is_some_and(|q| q.split('&').any(|p| p.starts_with("token=")))
        || (req.method() == Method::POST && (path == "/api/session" || path == "/signin"))
}

/// The middleware of the dashboard port: an address that is slowed gets 429 (with
/// `Retry-After`) for any request with a token; a wrong token is counted.
pub(crate) async fn guard(State(app): State<Arc<App>>, req: Request, next: Next) -> Response {
    let ip = req
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map(|c| c.0.ip());
    let (Some(ip), true) = (ip, carries_token(&req)) else {
        return next.run(req).await;
    };
    let throttle = &app.throttle;
    if let Some(wait) = throttle.wait(ip) {
        throttle.throttled.fetch_add(1, Ordering::Relaxed);
        let secs = wait.as_secs_f64().ceil().max(1.0) as u64;
        let mut r = crate::api::error(
            StatusCode::TOO_MANY_REQUESTS,
            format!(
                "too many wrong tokens from this address: try again in {secs} s (check the \
                 token you were given)"
            ),
        );
        if let Ok(v) = HeaderValue::from_str(&secs.to_string()) {
            r.headers_mut().insert(header::RETRY_AFTER, v);
        }
        return r;
    }
    let r = next.run(req).await;
    let refused =
        r.status() == StatusCode::UNAUTHORIZED || r.extensions().get::<TokenRefused>().is_some();
    if refused {
        let wait = throttle.failed(ip);
        if !wait.is_zero() {
            tracing::warn!(
                %ip,
                wait_s = wait.as_secs(),
                failures_total = throttle.failures.load(Ordering::Relaxed),
                "wrong tokens from one address: its tokens are not looked at for a while"
            );
        }
    }
    r.into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_beyond_the_free_ones_wait_longer_each_time_up_to_a_minute() {
        let t = Throttle::default();
        let ip: IpAddr = "10.0.0.7".parse().unwrap();
        for _ in 0..FREE_FAILURES {
            assert_eq!(t.failed(ip), Duration::ZERO);
        }
        assert!(t.wait(ip).is_none());
        assert_eq!(t.failed(ip), Duration::from_secs(1));
        assert_eq!(t.failed(ip), Duration::from_secs(2));
        assert!(t.wait(ip).is_some());
        for _ in 0..20 {
            t.failed(ip);
        }
        assert_eq!(t.failed(ip), MAX_WAIT);
        // Another machine is not slowed.
        assert!(t.wait("10.0.0.8".parse().unwrap()).is_none());
        assert_eq!(t.failures.load(Ordering::Relaxed), 33);
    }
}
