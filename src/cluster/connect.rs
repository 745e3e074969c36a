//! Reaching the event's broker with the configured credentials.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use async_nats::{Client, ClientError, ConnectOptions, Event, ServerAddr, ServerError};

use crate::settings::ClusterSettings;

/// Why the broker could not be used.
#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    #[error("cluster.nats: {url:?} is not a NATS URL: {why}")]
    Url { url: String, why: String },
    #[error("cluster credentials: {0}")]
    Credentials(String),
    #[error("cannot reach the broker at {urls}: {why}")]
    Connect { urls: String, why: String },
}

/// How often the client pings the broker. A connection that stays open while nothing
/// crosses it (a hung switch) is found dead after two unanswered pings: a few seconds, where
/// the client's default (two minutes) would let a hub show a frozen view as live.
pub const PING_INTERVAL: Duration = Duration::from_secs(2);

pub use super::link_problem::LinkProblem;

/// The link's state as the client reports it, for `/health` and `/api/nodes`.
#[derive(Debug, Default)]
pub struct LinkHealth {
    inner: Mutex<LinkInner>,
}

#[derive(Debug, Default)]
struct LinkInner {
    connected: bool,
    problem: Option<(LinkProblem, Instant)>,
}

/// A permission refusal is forgotten after this long without another (the operation that
/// met it may never be tried again).
const PERMISSION_MEMORY: Duration = Duration::from_secs(60);

impl LinkHealth {
    pub fn connected(&self) -> bool {
        self.inner.lock().map(|i| i.connected).unwrap_or(false)
    }

    /// The current problem, if any.
    pub fn problem(&self) -> Option<LinkProblem> {
        let inner = self.inner.lock().ok()?;
        let (p, at) = inner.problem.as_ref()?;
        if p.kind == "permission_denied" && at.elapsed() > PERMISSION_MEMORY {
            return None;
        }
        Some(p.clone())
    }

    /// Records a problem, logged at warning level the first time it is seen.
    pub fn report(&self, problem: LinkProblem) {
        let Ok(mut inner) = self.inner.lock() else {
            return;
        };
        let new = inner.problem.as_ref().map(|(p, _)| p) != Some(&problem);
        if new {
            tracing::warn!(kind = problem.kind, "cluster: {}", problem.message);
        }
        inner.problem = Some((problem, Instant::now()));
    }

    fn set_connected(&self, connected: bool) {
        if let Ok(mut inner) = self.inner.lock() {
            inner.connected = connected;
            // Signed in: the credentials and the certificate are fine now.
            if connected
                && inner
                    .problem
                    .as_ref()
                    .is_some_and(|(p, _)| p.kind != "permission_denied")
            {
                inner.problem = None;
            }
        }
    }
}

/// What a client event says about the link.
fn classify(event: &Event, settings: &ClusterSettings, name: &str) -> Option<LinkProblem> {
    let urls = settings.nats.join(", ");
    match event {
        Event::ServerError(ServerError::AuthorizationViolation) => Some(wrong_credentials(name)),
        Event::ClientError(ClientError::Other(s)) if s.contains("authorization violation") => {
            Some(wrong_credentials(name))
        }
        Event::ServerError(ServerError::Other(s)) if s.contains("Permissions Violation") => {
            Some(LinkProblem {
                kind: "permission_denied",
                message: format!(
                    "the broker refused {name}: {s}. Fix: the broker's configuration must give the user {name} this permission (the user blocks of config/nats-accounts.conf, with the event's id and this PC's node name), or [cluster] event/node are not the broker's"
                ),
            })
        }
        Event::ClientError(ClientError::Other(s)) => Some(LinkProblem {
            kind: "unreachable",
            message: format!(
                "cannot reach the broker at {urls} ({s}). Fix: check that nats-server runs there and the network between; for tls:// URLs check the certificate (tls_ca)"
            ),
        }),
        _ => None,
    }
}

fn wrong_credentials(name: &str) -> LinkProblem {
    LinkProblem {
        kind: "wrong_credentials",
        message: format!(
            "the broker refused to sign {name} in (authorization violation): the user and password (or nkey_seed_file, creds) in [cluster] are not the ones the broker's configuration gives this PC. Fix: copy them from the broker's file"
        ),
    }
}

/// Connects as `name` (the node, or `hub`), retrying in the background when the broker is
/// not up yet, so that boards are watched whatever the broker does. Inbox replies go under
/// `_INBOX_<name>.`, which a venue's broker configuration can grant to this user alone.
pub async fn connect(settings: &ClusterSettings, name: &str) -> Result<Client, ConnectError> {
    connect_reporting(settings, name, Arc::new(LinkHealth::default())).await
}

/// [`connect`], telling `health` what the client meets.
pub async fn connect_reporting(
    settings: &ClusterSettings,
    name: &str,
    health: Arc<LinkHealth>,
) -> Result<Client, ConnectError> {
    let addrs = settings
        .nats
        .iter()
        .map(|u| {
            u.parse::<ServerAddr>().map_err(|e| ConnectError::Url {
                url: u.clone(),
                why: e.to_string(),
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let mut options = if let Some(creds) = &settings.creds {
        ConnectOptions::with_credentials_file(creds)
            .await
            .map_err(|e| ConnectError::Credentials(format!("{}: {e}", creds.display())))?
    } else if let Some(seed_file) = &settings.nkey_seed_file {
        let seed = std::fs::read_to_string(seed_file)
            .map_err(|e| ConnectError::Credentials(format!("{}: {e}", seed_file.display())))?;
        ConnectOptions::with_nkey(seed.trim().to_string())
    } else if let (Some(user), Some(password)) = (&settings.user, &settings.password) {
        ConnectOptions::with_user_and_password(user.clone(), password.clone())
    } else {
        ConnectOptions::new()
    };
    if let Some(ca) = &settings.tls_ca {
        options = options.add_root_certificates(ca.clone());
    }
    if settings.nats.iter().any(|u| u.starts_with("tls://")) {
        options = options.require_tls(true);
    }
    let who = name.to_string();
    let watched = settings.clone();
    options
        .event_callback(move |event| {
            let health = health.clone();
            let problem = classify(&event, &watched, &who);
            let settings = watched.clone();
            async move {
                match event {
                    Event::Connected => health.set_connected(true),
                    Event::Disconnected | Event::Closed => health.set_connected(false),
                    _ => {}
                }
                if let Some(mut p) = problem {
                    if p.kind == "unreachable"
                        && settings.nats.iter().any(|u| u.starts_with("tls://"))
                        && let Some(tls) = super::tls_check::diagnose(&settings).await
                    {
                        p = tls;
                    }
                    health.report(p);
                }
            }
        })
        .ping_interval(PING_INTERVAL)
        .name(format!("dgt-arbiter {name}"))
        .custom_inbox_prefix(format!("_INBOX_{name}"))
        .retry_on_initial_connect()
        .connection_timeout(Duration::from_secs(5))
        .max_reconnects(None)
        .reconnect_delay_callback(|attempts| {
            // Quick at first (a broker restarted), then every 2 s at most.
            Duration::from_millis((100 * attempts as u64).min(2_000))
        })
        .connect(addrs)
        .await
        .map_err(|e| ConnectError::Connect {
            urls: settings.nats.join(", "),
            why: e.to_string(),
        })
}
