//! Which `Host` names both ports answer, and which browser pages may use the LiveChess port.
//!
//! DNS rebinding: a page on `evil.example` whose name is re-pointed at 127.0.0.1 reaches
//! the daemon with `Host: evil.example` and `Origin: http://evil.example`, so "the Origin is
//! this server" holds for it. The `Host` a request names must therefore be an IP literal,
//! `localhost` or one of `allowed_hosts` (the names the venue uses for the dashboard PC);
//! anything else is refused before any route runs.
//!
//! The LiveChess port has no tokens (LiveChess clients send none). Browser pages are told
//! apart by their `Origin`: those in `livechess_origins` may read (the lichess board-play
//! client, `https://lichess.org`, by default); only those in `livechess_action_origins` may
//! also `setup` / `flip` a board. A client without an `Origin` (a program on this PC, not a
//! web page) may read, and may act only when `livechess_action_origins` holds `"none"`.
//! A local program could forge any `Origin`: the port stays loopback-only for that reason.

use std::net::IpAddr;
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::{App, ServerConfig};

/// The entry of `livechess_action_origins` that lets clients without an `Origin` act.
pub const NO_ORIGIN: &str = "none";

/// Whether `host` (a `Host` header: name or IP literal, optional port) names this server:
/// an IP literal, `localhost`, or one of `allowed`. Case and a trailing dot are ignored.
pub fn host_allowed(allowed: &[String], host: &str) -> bool {
    let host = host.trim();
    // `[::1]:1983`: an IPv6 literal.
    if let Some(rest) = host.strip_prefix('[') {
        return rest
            .split_once(']')
            .is_some_and(|(ip, port)| ip.parse::<IpAddr>().is_ok() && is_port_suffix(port));
    }
    let name = match host.rsplit_once(':') {
        Some((name, port)) if is_port_suffix(&format!(":{port}")) => name,
        Some(_) => return false,
        None => host,
    };
    let name = name.strip_suffix('.').unwrap_or(name);
    if name.is_empty() {
        return false;
    }
    name.parse::<IpAddr>().is_ok()
        || name.eq_ignore_ascii_case("localhost")
        || allowed.iter().any(|a| {
            let a = a.trim_end_matches('.');
            a.eq_ignore_ascii_case(name)
        })
}

fn is_port_suffix(text: &str) -> bool {
    text.is_empty()
        || text
            .strip_prefix(':')
            .is_some_and(|p| !p.is_empty() && p.len() <= 5 && p.bytes().all(|b| b.is_ascii_digit()))
}

/// Refuses requests whose `Host` is not this server's (see the module documentation).
/// Requests without a `Host` (HTTP/1.0 programs; browsers always send one) pass.
pub(crate) async fn host_guard(
    State(app): State<Arc<App>>,
    request: Request,
    next: Next,
) -> Response {
    let host = request
        .headers()
        .get(header::HOST)
        .map(|v| v.to_str().unwrap_or(""));
    match host {
        Some(h) if !host_allowed(&app.config.allowed_hosts, h) => {
            app.gauges
                .foreign_hosts
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            crate::api::error(
                StatusCode::MISDIRECTED_REQUEST,
                "this server answers only IP addresses, localhost and the names in \
                 server.allowed_hosts",
            )
        }
        _ => next.run(request).await,
    }
}

/// What a LiveChess client may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum LiveChessAccess {
    /// A web page from an origin not listed: refused.
    Refused,
    /// List boards, subscribe to their feeds.
    Read,
    /// Also `setup` and `flip`.
    Act,
}

fn listed(list: &[String], origin: &str) -> bool {
    let origin = origin.trim_end_matches('/');
    list.iter()
        .any(|o| o != NO_ORIGIN && o.trim_end_matches('/').eq_ignore_ascii_case(origin))
}

/// The access of a LiveChess request, from its `Origin`.
pub fn livechess_access(config: &ServerConfig, headers: &HeaderMap) -> LiveChessAccess {
    let actions = &config.livechess_action_origins;
    match headers
        .get(header::ORIGIN)
        .map(|v| v.to_str().unwrap_or(""))
    {
        None if actions.iter().any(|o| o == NO_ORIGIN) => LiveChessAccess::Act,
        None => LiveChessAccess::Read,
        Some(origin) if listed(actions, origin) => LiveChessAccess::Act,
        Some(origin) if listed(&config.livechess_origins, origin) => LiveChessAccess::Read,
        Some(_) => LiveChessAccess::Refused,
    }
}

/// The 403 a page from an origin not listed gets.
pub fn foreign_livechess_origin() -> Response {
    crate::api::error(
        StatusCode::FORBIDDEN,
        "this web page's Origin may not use the LiveChess API (add it to \
         server.livechess_origins)",
    )
}

/// The Origin rule of the whole LiveChess port (REST and the WebSocket upgrade): a page
/// from an origin not listed is refused; one listed gets its own origin back in
/// `Access-Control-Allow-Origin` (never `*`), so other pages cannot read the answers.
pub(crate) async fn livechess_guard(
    State(app): State<Arc<App>>,
    request: Request,
    next: Next,
) -> Response {
    if livechess_access(&app.config, request.headers()) == LiveChessAccess::Refused {
        return foreign_livechess_origin();
    }
    let origin = request.headers().get(header::ORIGIN).cloned();
    let mut r = next.run(request).await;
    let h = r.headers_mut();
    h.remove(header::ACCESS_CONTROL_ALLOW_ORIGIN);
    if let Some(origin) = origin {
        h.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin);
        h.insert(header::VARY, HeaderValue::from_static("Origin"));
    }
    r.into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_are_ip_literals_localhost_or_configured() {
        let none: Vec<String> = Vec::new();
        for ok in [
            "127.0.0.1:1983",
            "127.0.0.1",
            "192.168.1.20:1983",
            "[::1]:1983",
            "[::1]",
            "localhost:1983",
            "LocalHost.",
        ] {
            assert!(host_allowed(&none, ok), "{ok}");
        }
        for bad in [
            "evil.example",
            "evil.example:1983",
            "localhost.evil.example",
            "127.0.0.1.evil.example",
            "",
            ":1983",
            "[evil]:1983",
            "localhost:19x3",
        ] {
            assert!(!host_allowed(&none, bad), "{bad}");
        }
        let venue = vec!["arbiter.local".to_string()];
        assert!(host_allowed(&venue, "Arbiter.Local:1983"));
        assert!(!host_allowed(&venue, "other.local:1983"));
    }

    fn with_origin(o: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(header::ORIGIN, HeaderValue::from_str(o).unwrap());
        h
    }

    #[test]
    fn livechess_pages_read_only_when_listed_and_act_only_when_allowed_to() {
        let mut c = ServerConfig::default();
        assert_eq!(
            livechess_access(&c, &with_origin("https://lichess.org")),
            LiveChessAccess::Read
        );
        assert_eq!(
            livechess_access(&c, &with_origin("https://evil.example")),
            LiveChessAccess::Refused
        );
        assert_eq!(
            livechess_access(&c, &with_origin("null")),
            LiveChessAccess::Refused
        );
        assert_eq!(
            livechess_access(&c, &HeaderMap::new()),
            LiveChessAccess::Read
        );
        c.livechess_action_origins = vec!["https://lichess.org".into()];
        assert_eq!(
            livechess_access(&c, &with_origin("https://lichess.org/")),
            LiveChessAccess::Act
        );
        assert_eq!(
            livechess_access(&c, &HeaderMap::new()),
            LiveChessAccess::Read
        );
        c.livechess_action_origins.push(NO_ORIGIN.into());
        assert_eq!(
            livechess_access(&c, &HeaderMap::new()),
            LiveChessAccess::Act
        );
        // "none" names the absence of an Origin, not a page whose Origin says "none".
        assert_eq!(
            livechess_access(&c, &with_origin("none")),
            LiveChessAccess::Refused
        );
    }
}
