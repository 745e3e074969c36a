//! Who may read and who may act: the arbiter token allows actions, the viewer token only
//! reads, and browsers from other sites are kept out by the Origin check. The public feed
//! needs no token because it carries nothing the Laws (12.6) keep from players.

use std::net::SocketAddr;

use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};

use crate::ServerConfig;
use crate::access::{self, Principal, Role, Sessions};

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
    /// A floor arbiter acting on (or reading) a board outside their sections (403).
    OutsideSections,
    /// `?token=` on a route other than the WebSocket (400): URLs end up in logs, browser
    /// history and `Referer` headers.
    TokenInUrl,
    /// A browser page from another site (403).
    ForeignOrigin,
}

impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        let (status, message) = match self {
            Refusal::Unauthenticated => (
                StatusCode::UNAUTHORIZED,
                "a valid token is required: sign in at /signin, or send Authorization: Bearer TOKEN",
            ),
            Refusal::NotAllowed => (
                StatusCode::FORBIDDEN,
                "this action needs an arbiter's token; a viewer only reads",
            ),
            Refusal::OutsideSections => (
                StatusCode::FORBIDDEN,
                "this board is not in your sections; the chief arbiter or its floor arbiter acts on it",
            ),
            Refusal::TokenInUrl => (
                StatusCode::BAD_REQUEST,
                "tokens are not accepted in URLs here (they end up in logs and Referer headers): \
                 send Authorization: Bearer TOKEN, or sign in at /signin",
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

/// The token a request carries in its `Authorization: Bearer` header, else in `?token=`
/// (which only the WebSocket accepts: browsers cannot set headers on it).
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

/// Who a request comes from, and whether they may do what it needs. Without any token or
/// account configured (only allowed on loopback) everyone is the chief arbiter; otherwise a
/// token (bearer, or `?token=` where the caller allows it) or a signed-in session must name
/// an account, and acting needs a role that acts. Which boards the principal may touch is
/// for the caller to check ([`Principal::covers_board`]).
pub fn authorize(
    config: &ServerConfig,
    sessions: &Sessions,
    headers: &HeaderMap,
    query_token: Option<&str>,
    need: Need,
) -> Result<Principal, Refusal> {
    let accounts = access::accounts(config);
    if accounts.is_empty() {
        return Ok(Principal::chief("local"));
    }
    let principal = match presented_token(headers, query_token) {
        Some(token) => access::account_for_token(&accounts, token)
            .map(|a| access::principal_of(a, &config.sections)),
        None => access::session_cookie(headers).and_then(|id| sessions.principal(id)),
    };
    let Some(principal) = principal else {
        return Err(Refusal::Unauthenticated);
    };
    let only_viewers = accounts.iter().all(|a| a.role == Role::Viewer);
    match need {
        Need::Read => Ok(principal),
        Need::Act if principal.may_act() => Ok(principal),
        // Only viewer tokens configured (loopback only): acting needs what reading needs.
        Need::Act if only_viewers => Ok(principal),
        Need::Act => Err(Refusal::NotAllowed),
    }
}

/// The Origin check for WebSocket upgrades and POSTs: requests without an Origin (not from a
/// browser page) pass; a browser page must come from this server or a configured origin.
pub fn check_origin(config: &ServerConfig, headers: &HeaderMap) -> Result<(), Refusal> {
    let Some(origin) = headers.get(header::ORIGIN).and_then(|v| v.to_str().ok()) else {
        return Ok(());
    };
    let origin = origin.trim_end_matches('/');
    // Under `Referrer-Policy: no-referrer` browsers send `Origin: null` on the dashboard's
    // own form posts and fetches; `Sec-Fetch-Site` (which no page can set) says whether the
    // request comes from a page of this very server.
    if origin == "null"
        && headers
            .get("sec-fetch-site")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.eq_ignore_ascii_case("same-origin"))
    {
        return Ok(());
    }
    if config
        .allowed_origins
        .iter()
        // Named origins only: a "*" would let every page on the LAN act (check-config
        // refuses it; the server does not honour it either).
        .any(|o| o != "*" && o.trim_end_matches('/').eq_ignore_ascii_case(origin))
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
/// arbiter token (or a chief arbiter's account), or anyone on the network could acknowledge
/// alerts and change games.
pub fn check_bind(addr: SocketAddr, config: &ServerConfig) -> Result<(), InsecureBind> {
    if addr.ip().is_loopback()
        || config
            .arbiter_token
            .as_deref()
            .is_some_and(|t| !t.is_empty())
        || config
            .arbiters
            .iter()
            .any(|a| a.role == Role::Chief && !a.token.is_empty())
    {
        Ok(())
    } else {
        Err(InsecureBind { addr })
    }
}

/// `serve` asked to listen beyond loopback with nobody's token to guard the actions.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "refusing to listen on {addr} without an arbiter token: anyone on that network could \
     acknowledge alerts and change games. Set an arbiter token, or listen on 127.0.0.1"
)]
pub struct InsecureBind {
    pub addr: SocketAddr,
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

    fn who(r: Result<Principal, Refusal>) -> Result<String, Refusal> {
        r.map(|p| p.name)
    }

    #[test]
    fn a_wildcard_in_allowed_origins_lets_no_page_in() {
        let c = ServerConfig {
            allowed_origins: vec!["*".into(), "https://results.example".into()],
            ..config()
        };
        let from = |origin: &str| {
            let mut h = HeaderMap::new();
            h.insert(header::HOST, HeaderValue::from_static("10.0.0.2:1983"));
            h.insert(header::ORIGIN, HeaderValue::from_str(origin).unwrap());
            check_origin(&c, &h)
        };
        assert_eq!(from("https://evil.example"), Err(Refusal::ForeignOrigin));
        assert_eq!(from("https://results.example"), Ok(()));
        assert_eq!(from("http://10.0.0.2:1983"), Ok(()));
    }

    #[test]
    fn viewer_reads_but_cannot_act() {
        let c = config();
        let s = Sessions::default();
        let none = HeaderMap::new();
        assert_eq!(
            who(authorize(&c, &s, &bearer("view"), None, Need::Read)),
            Ok("viewer".into())
        );
        assert_eq!(
            who(authorize(&c, &s, &bearer("view"), None, Need::Act)),
            Err(Refusal::NotAllowed)
        );
        assert_eq!(
            who(authorize(&c, &s, &bearer("arb"), None, Need::Act)),
            Ok("arbiter".into())
        );
        assert_eq!(
            who(authorize(&c, &s, &none, Some("arb"), Need::Act)),
            Ok("arbiter".into())
        );
        assert_eq!(
            who(authorize(&c, &s, &none, None, Need::Read)),
            Err(Refusal::Unauthenticated)
        );
        assert_eq!(
            who(authorize(&c, &s, &bearer("arx"), None, Need::Read)),
            Err(Refusal::Unauthenticated)
        );
    }

    #[test]
    fn a_session_cookie_names_its_account() {
        let mut c = config();
        c.arbiters.push(access::Account {
            name: "Ana".into(),
            role: Role::Floor,
            token: "ana-secret".into(),
            sections: vec![],
        });
        let s = Sessions::default();
        let ana = authorize(&c, &s, &bearer("ana-secret"), None, Need::Act).unwrap();
        assert_eq!(ana.role, Role::Floor);
        let id = s.open(ana).unwrap();
        let mut h = HeaderMap::new();
        h.insert(
            header::COOKIE,
            HeaderValue::from_str(&format!("theme=dark; dgt_session={id}")).unwrap(),
        );
        assert_eq!(
            who(authorize(&c, &s, &h, None, Need::Act)),
            Ok("Ana".into())
        );
        s.close(&id);
        assert_eq!(
            who(authorize(&c, &s, &h, None, Need::Read)),
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
        // An opaque origin passes only from this server's own pages.
        h.insert(header::ORIGIN, HeaderValue::from_static("null"));
        assert_eq!(check_origin(&c, &h), Err(Refusal::ForeignOrigin));
        h.insert("sec-fetch-site", HeaderValue::from_static("cross-site"));
        assert_eq!(check_origin(&c, &h), Err(Refusal::ForeignOrigin));
        h.insert("sec-fetch-site", HeaderValue::from_static("same-origin"));
        assert_eq!(check_origin(&c, &h), Ok(()));
    }

    #[test]
    fn no_open_bind_beyond_loopback() {
        let mut c = ServerConfig::default();
        assert!(check_bind("127.0.0.1:1983".parse().unwrap(), &c).is_ok());
        let refused = check_bind("0.0.0.0:1983".parse().unwrap(), &c).unwrap_err();
        assert_eq!(
            refused.to_string(),
            "refusing to listen on 0.0.0.0:1983 without an arbiter token: anyone on that \
             network could acknowledge alerts and change games. Set an arbiter token, or \
             listen on 127.0.0.1"
        );
        c.arbiter_token = Some("t".into());
        assert!(check_bind("0.0.0.0:1983".parse().unwrap(), &c).is_ok());
    }
}
