//! Signed-in browsers: a random session id in an `HttpOnly` cookie names a principal.
//!
//! Each account holds a bounded number of sessions: a new sign-in beyond it ends the
//! oldest session of *that* account, never anyone else's, so a flood of viewer sign-ins
//! cannot sign the chief arbiter out. A session ends on sign-out, on that eviction, or
//! after `idle` without use; whichever way, the WebSockets it opened are closed with it
//! (each holds a [`Ended`] that completes then).

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};
use tokio::sync::watch;

use crate::access::Principal;

/// The cookie that carries a signed-in browser's session.
pub const SESSION_COOKIE: &str = "dgt_session";

/// How long a session lasts without use, by default (a round and then some).
pub const SESSION_IDLE: Duration = Duration::from_secs(12 * 3600);

/// Sessions one account holds at most (a shared viewer token on many tablets); a sign-in
/// beyond it ends that account's least recently used session.
pub const MAX_SESSIONS_PER_ACCOUNT: usize = 64;

struct BrowserSession {
    principal: Principal,
    last_used: Instant,
    /// Dropped when the session ends: every [`Ended`] of it completes.
    _alive: watch::Sender<()>,
    ended: watch::Receiver<()>,
}

/// The system gave no random bytes for a session id.
#[derive(Debug, thiserror::Error)]
#[error("no randomness for a session: {0}")]
pub struct NoRandomness(getrandom::Error);

/// Completes when its session ends (sign-out, eviction, expiry).
pub struct Ended(watch::Receiver<()>);

impl Ended {
    pub async fn wait(&mut self) {
        while self.0.changed().await.is_ok() {}
    }
}

/// Signed-in browsers: session id (kept only as its SHA-256) → principal.
pub struct Sessions {
    by_digest: Mutex<HashMap<[u8; 32], BrowserSession>>,
    idle: Duration,
    per_account: usize,
}

impl Default for Sessions {
    fn default() -> Self {
        Sessions::new(SESSION_IDLE, MAX_SESSIONS_PER_ACCOUNT)
    }
}

fn digest(id: &str) -> [u8; 32] {
    Sha256::digest(id.as_bytes()).into()
}

impl Sessions {
    pub fn new(idle: Duration, per_account: usize) -> Self {
        Sessions {
            by_digest: Mutex::new(HashMap::new()),
            idle,
            per_account: per_account.max(1),
        }
    }

    /// How long a session lasts without use.
    pub fn idle(&self) -> Duration {
        self.idle
    }

    fn map(&self) -> std::sync::MutexGuard<'_, HashMap<[u8; 32], BrowserSession>> {
        self.by_digest.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Opens a session for `principal`; returns its id (256 random bits, hex). The
    /// account's least recently used session ends when it already holds its bound.
    pub fn open(&self, principal: Principal) -> Result<String, NoRandomness> {
        let mut bytes = [0u8; 32];
        getrandom::fill(&mut bytes).map_err(NoRandomness)?;
        let id: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        let mut map = self.map();
        let idle = self.idle;
        map.retain(|_, s| s.last_used.elapsed() < idle);
        let mut own: Vec<([u8; 32], Instant)> = map
            .iter()
            .filter(|(_, s)| s.principal.name == principal.name)
            .map(|(k, s)| (*k, s.last_used))
            .collect();
        if own.len() >= self.per_account {
            own.sort_by_key(|(_, used)| *used);
            for (key, _) in &own[..=own.len() - self.per_account] {
                map.remove(key);
            }
            tracing::info!(
                arbiter = %principal.name,
                bound = self.per_account,
                "an account's sign-ins reached its bound: its oldest session ended"
            );
        }
        let (alive, ended) = watch::channel(());
        map.insert(
            digest(&id),
            BrowserSession {
                principal,
                last_used: Instant::now(),
                _alive: alive,
                ended,
            },
        );
        Ok(id)
    }

    /// The principal of a live session, refreshing its idle time.
    pub fn principal(&self, id: &str) -> Option<Principal> {
        let mut map = self.map();
        let key = digest(id);
        let session = map.get_mut(&key)?;
        if session.last_used.elapsed() >= self.idle {
            map.remove(&key);
            return None;
        }
        session.last_used = Instant::now();
        Some(session.principal.clone())
    }

    /// What completes when a live session ends (for the WebSockets it opens).
    pub fn ended(&self, id: &str) -> Option<Ended> {
        self.map().get(&digest(id)).map(|s| Ended(s.ended.clone()))
    }

    /// Ends a session (sign-out).
    pub fn close(&self, id: &str) {
        self.map().remove(&digest(id));
    }

    /// Ends every session idle for too long (run now and then, so their sockets close on
    /// time and not only when the session is next presented).
    pub fn expire(&self) {
        let idle = self.idle;
        self.map().retain(|_, s| s.last_used.elapsed() < idle);
    }

    /// Sessions open now.
    pub fn len(&self) -> usize {
        self.map().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The session id in a request's `Cookie` header.
pub fn session_cookie(headers: &axum::http::HeaderMap) -> Option<&str> {
    headers
        .get_all(axum::http::header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(k, _)| *k == SESSION_COOKIE)
        .map(|(_, v)| v.trim())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sessions_open_resolve_and_close() {
        let s = Sessions::default();
        let id = s.open(Principal::chief("Carl")).unwrap();
        assert_eq!(id.len(), 64);
        assert_eq!(s.principal(&id).unwrap().name, "Carl");
        assert!(s.principal("0000").is_none());
        s.close(&id);
        assert!(s.principal(&id).is_none());
        let other = s.open(Principal::chief("Dora")).unwrap();
        assert_ne!(id, other);
    }

    #[test]
    fn a_flood_of_one_accounts_sign_ins_ends_only_that_accounts_sessions() {
        let s = Sessions::new(SESSION_IDLE, 3);
        let chief = s.open(Principal::chief("Carl")).unwrap();
        let viewers: Vec<String> = (0..1000)
            .map(|_| s.open(Principal::chief("viewer")).unwrap())
            .collect();
        assert_eq!(s.principal(&chief).unwrap().name, "Carl");
        assert_eq!(s.len(), 4);
        assert!(s.principal(&viewers[0]).is_none());
        assert!(s.principal(&viewers[999]).is_some());
    }

    #[tokio::test]
    async fn a_session_ending_any_way_completes_its_ended() {
        let s = Sessions::new(Duration::from_millis(50), 1);
        let signed_out = s.open(Principal::chief("A")).unwrap();
        let mut a = s.ended(&signed_out).unwrap();
        s.close(&signed_out);
        tokio::time::timeout(Duration::from_secs(1), a.wait())
            .await
            .expect("sign-out");
        let evicted = s.open(Principal::chief("B")).unwrap();
        let mut b = s.ended(&evicted).unwrap();
        let _newer = s.open(Principal::chief("B")).unwrap();
        tokio::time::timeout(Duration::from_secs(1), b.wait())
            .await
            .expect("eviction");
        let idle = s.open(Principal::chief("C")).unwrap();
        let mut c = s.ended(&idle).unwrap();
        tokio::time::sleep(Duration::from_millis(80)).await;
        s.expire();
        tokio::time::timeout(Duration::from_secs(1), c.wait())
            .await
            .expect("expiry");
    }
}
