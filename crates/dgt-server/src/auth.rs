//! Who may read and who may act: the arbiter token allows actions, the viewer token only
//! reads, and browsers from other sites are kept out by the Origin check. The public feed
//! needs no token because it carries nothing the Laws (12.6) keep from players.

use std::net::SocketAddr;

use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};

use crate::ServerConfig;

/// What a request wants to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Need {
    /// See boards, games and alerts.
    Read,
    /// Acknowledge alerts, set up boards, record claims and results.
    Act,
}

/// Why a request was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// No token, or one that matches nothing (401).
    Unauthenticated,
    /// A viewer token used for an action (403).
    NotAllowed,
    /// A browser page from another site (403).
    ForeignOrigin,
}

impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        let (status, message) = match self {
            Refusal::Unauthenticated => (
                StatusCode::UNAUTHORIZED,
                "a valid token is required (Authorization: Bearer TOKEN or ?token=TOKEN)",
            ),
            Refusal::NotAllowed => (
                StatusCode::FORBIDDEN,
                "this action needs the arbiter token; the viewer token only reads",
            ),
            Refusal::ForeignOrigin => (
                StatusCode::FORBIDDEN,
                "requests from this Origin are not allowed (add it to allowed_origins)",
            ),
        };
        let body = serde_json::json!({ "error": message }).to_string();
        let mut r = (status, body).into_response();
        r.headers_mut().insert(
            header::CONTENT_TYPE,
            header::HeaderValue::from_static("application/json"),
        );
        if status == StatusCode::UNAUTHORIZED {
            r.headers_mut().insert(
                header::WWW_AUTHENTICATE,
                header::HeaderValue::from_static("Bearer"),
            );
        }
        r
    }
}

/// The token a request carries: the `Authorization: Bearer` header first, then `?token=`.
pub fn presented_token<'a>(
    headers: &'a HeaderMap,
    query_token: Option<&'a str>,
) -> Option<&'a str> {
    headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| {
            v.strip_prefix("Bearer ")
                .or_else(|| v.strip_prefix("bearer "))
        })
        .map(str::trim)
        .or(query_token)
}

/// Decides whether a request may do what it needs. Without any token configured (only
/// allowed on loopback) everyone may act; with tokens, reading needs either token and acting
/// needs the arbiter's.
pub fn authorize(
    config: &ServerConfig,
    headers: &HeaderMap,
    query_token: Option<&str>,
    need: Need,
) -> Result<(), Refusal> {
    let arbiter = config.arbiter_token.as_deref();
    let viewer = config.viewer_token.as_deref();
    if arbiter.is_none() && viewer.is_none() {
        return Ok(());
    }
    let presented = presented_token(headers, query_token);
    let is_arbiter = matches!((presented, arbiter), (Some(p), Some(a)) if same_secret(p, a));
    let is_viewer = matches!((presented, viewer), (Some(p), Some(v)) if same_secret(p, v));
    match need {
        Need::Act if is_arbiter => Ok(()),
        // Only a viewer token configured (loopback only): acting needs what reading needs.
        Need::Act if arbiter.is_none() && is_viewer => Ok(()),
        Need::Act if is_viewer => Err(Refusal::NotAllowed),
        Need::Read if is_arbiter || is_viewer => Ok(()),
        _ => Err(Refusal::Unauthenticated),
    }
}

/// The Origin check for WebSocket upgrades and POSTs: requests without an Origin (not from a
/// browser page) pass; a browser page must come from this server or a configured origin.
pub fn check_origin(config: &ServerConfig, headers: &HeaderMap) -> Result<(), Refusal> {
    let Some(origin) = headers.get(header::ORIGIN).and_then(|v| v.to_str().ok()) else {
        return Ok(());
    };
    let origin = origin.trim_end_matches('/');
    if config
        .allowed_origins
        .iter()
        .any(|o| o == "*" || o.trim_end_matches('/').eq_ignore_ascii_case(origin))
    {
        return Ok(());
    }
    let host = headers.get(header::HOST).and_then(|v| v.to_str().ok());
    let same_origin = host.is_some_and(|h| {
        origin
            .strip_prefix("http://")
            .or_else(|| origin.strip_prefix("https://"))
            .is_some_and(|o| o.eq_ignore_ascii_case(h))
    });
    if same_origin {
        Ok(())
    } else {
        Err(Refusal::ForeignOrigin)
    }
}

/// Whether `serve` may bind `addr` with this configuration: beyond loopback, only with an
/// arbiter token, or anyone on the network could acknowledge alerts and change games.
pub fn check_bind(addr: SocketAddr, config: &ServerConfig) -> Result<(), String> {
    if addr.ip().is_loopback()
        || config
            .arbiter_token
            .as_deref()
            .is_some_and(|t| !t.is_empty())
    {
        Ok(())
    } else {
        Err(format!(
            "refusing to listen on {addr} without an arbiter token: anyone on that network \
             could acknowledge alerts and change games. Set an arbiter token, or listen on \
             127.0.0.1"
        ))
    }
}

/// Compares secrets in time independent of where they differ.
fn same_secret(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn config() -> ServerConfig {
        ServerConfig {
            arbiter_token: Some("arb".into()),
            viewer_token: Some("view".into()),
            ..ServerConfig::default()
        }
    }

    fn bearer(t: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(
            header::AUTHORIZATION,
            HeaderValue::from_str(&format!("Bearer {t}")).unwrap(),
        );
        h
    }

    #[test]
    fn viewer_reads_but_cannot_act() {
        let c = config();
        assert_eq!(authorize(&c, &bearer("view"), None, Need::Read), Ok(()));
        assert_eq!(
            authorize(&c, &bearer("view"), None, Need::Act),
            Err(Refusal::NotAllowed)
        );
        assert_eq!(authorize(&c, &bearer("arb"), None, Need::Act), Ok(()));
        assert_eq!(
            authorize(&c, &HeaderMap::new(), Some("arb"), Need::Act),
            Ok(())
        );
        assert_eq!(
            authorize(&c, &HeaderMap::new(), None, Need::Read),
            Err(Refusal::Unauthenticated)
        );
        assert_eq!(
            authorize(&c, &bearer("arx"), None, Need::Read),
            Err(Refusal::Unauthenticated)
        );
    }

    #[test]
    fn origin_must_be_this_server_or_listed() {
        let mut c = config();
        let mut h = HeaderMap::new();
        h.insert(header::HOST, HeaderValue::from_static("127.0.0.1:1983"));
        h.insert(
            header::ORIGIN,
            HeaderValue::from_static("http://127.0.0.1:1983"),
        );
        assert_eq!(check_origin(&c, &h), Ok(()));
        h.insert(
            header::ORIGIN,
            HeaderValue::from_static("https://evil.example"),
        );
        assert_eq!(check_origin(&c, &h), Err(Refusal::ForeignOrigin));
        c.allowed_origins.push("https://evil.example".into());
        assert_eq!(check_origin(&c, &h), Ok(()));
    }

    #[test]
    fn no_open_bind_beyond_loopback() {
        let mut c = ServerConfig::default();
        assert!(check_bind("127.0.0.1:1983".parse().unwrap(), &c).is_ok());
        assert!(check_bind("0.0.0.0:1983".parse().unwrap(), &c).is_err());
        c.arbiter_token = Some("t".into());
        assert!(check_bind("0.0.0.0:1983".parse().unwrap(), &c).is_ok());
    }
}
