//! Venue PCs the broker refuses to sign in, heard from the broker itself.
//!
//! A node with a wrong password never reaches the event: no heartbeat, nothing on the
//! stream, so the hub cannot hear from it. The broker can: for every refused sign-in,
//! nats-server (2.2 and later) publishes a `client_disconnect` advisory on
//! `$SYS.SERVER.<server id>.CLIENT.AUTH.ERR` in its system account, naming the user the client
//! tried, the connection name it gave (`dgt-arbiter <node>`, see [`super::super::connect`])
//! and its address; a sign-in is a `client_connect` advisory on `$SYS.ACCOUNT.<acc>.CONNECT`.
//! The hub reads both with the system account's `hub-events` user (subscribe only, in
//! config/nats-accounts.conf) and lists a refused node with the fix until it signs in.
//!
//! The broker has no such report for a refused certificate (the node refuses the broker's,
//! the broker only sees a handshake cut short) nor, in nats-server 2.9, for a permission
//! violation: those a node tells in its heartbeat when it can send one.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use serde::Deserialize;
use tokio_util::sync::CancellationToken;

use super::{Shared, lock};
use crate::cluster::connect::{LinkHealth, connect_reporting};
use crate::settings::ClusterSettings;

/// The broker's reports of refused sign-ins, from any of its servers.
pub const AUTH_ERRORS: &str = "$SYS.SERVER.*.CLIENT.AUTH.ERR";
/// The broker's reports of sign-ins, in any account.
pub const CONNECTS: &str = "$SYS.ACCOUNT.*.CONNECT";

/// At most this many refused names are kept (the name is the client's word: anything on
/// the LAN can knock with any name, and must not grow the hub's memory).
const MAX_REFUSED: usize = 64;

/// The client as an advisory describes it.
#[derive(Debug, Deserialize)]
struct ClientInfo {
    #[serde(default)]
    host: String,
    #[serde(default)]
    user: String,
    #[serde(default)]
    name: String,
}

#[derive(Debug, Deserialize)]
struct AdvisoryBody {
    client: ClientInfo,
    #[serde(default)]
    reason: String,
}

/// What one advisory says about a node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Advisory {
    Refused {
        node: String,
        host: String,
        reason: String,
    },
    SignedIn {
        node: String,
    },
}

/// The node a client is: the name it gave (`dgt-arbiter hall-a`), else its user (one user
/// per PC, named after it, in the shipped configuration).
fn node_of(client: &ClientInfo) -> Option<String> {
    let node = client
        .name
        .strip_prefix("dgt-arbiter ")
        .unwrap_or(&client.user);
    let ok = !node.is_empty()
        && node.len() <= 64
        && node
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    ok.then(|| node.to_string())
}

/// Reads one advisory; `None` for anything that names no node.
pub fn parse(subject: &str, payload: &[u8]) -> Option<Advisory> {
    let body: AdvisoryBody = serde_json::from_slice(payload).ok()?;
    let node = node_of(&body.client)?;
    if subject.ends_with(".CLIENT.AUTH.ERR") {
        Some(Advisory::Refused {
            node,
            host: body.client.host,
            reason: body.reason,
        })
    } else if subject.ends_with(".CONNECT") {
        Some(Advisory::SignedIn { node })
    } else {
        None
    }
}

/// A node the broker refused, since it last signed in.
#[derive(Debug, Clone)]
pub struct Refusal {
    pub host: String,
    pub reason: String,
    pub attempts: u64,
    pub last: Instant,
}

impl Refusal {
    /// The technician's words, with the fix.
    pub fn message(&self, node: &str) -> String {
        format!(
            "the broker refused to sign {node} in ({}, {} attempt(s) from {}): the user and \
             password (or nkey_seed_file, creds) in that PC's [cluster] are not the ones the \
             broker's configuration gives it. Fix: copy them from nats-accounts.conf into \
             {node}'s settings",
            if self.reason.is_empty() {
                "authorization violation"
            } else {
                &self.reason
            },
            self.attempts,
            if self.host.is_empty() {
                "?"
            } else {
                &self.host
            },
        )
    }
}

/// The refused nodes.
#[derive(Debug, Default)]
pub struct Refusals {
    by_node: BTreeMap<String, Refusal>,
}

impl Refusals {
    /// Applies an advisory; returns the refusal when it is new (to log once).
    pub fn apply(&mut self, advisory: Advisory, now: Instant) -> Option<(String, Refusal)> {
        match advisory {
            Advisory::SignedIn { node } => {
                self.signed_in(&node);
                None
            }
            Advisory::Refused { node, host, reason } => {
                if let Some(r) = self.by_node.get_mut(&node) {
                    r.attempts += 1;
                    r.last = now;
                    r.host = host;
                    r.reason = reason;
                    return None;
                }
                if self.by_node.len() >= MAX_REFUSED {
                    return None;
                }
                let r = Refusal {
                    host,
                    reason,
                    attempts: 1,
                    last: now,
                };
                self.by_node.insert(node.clone(), r.clone());
                Some((node, r))
            }
        }
    }

    /// A heartbeat heard from the node: it is in, unless a refusal came within `quiet` (a
    /// second PC knocking with the node's name and a wrong password, while the right one
    /// runs, stays listed). It stands in for a sign-in report the listener missed.
    pub fn heard(&mut self, node: &str, quiet: Duration) {
        if self
            .by_node
            .get(node)
            .is_some_and(|r| r.last.elapsed() >= quiet)
        {
            self.signed_in(node);
        }
    }

    /// The node signed in (the broker's report).
    pub fn signed_in(&mut self, node: &str) {
        if self.by_node.remove(node).is_some() {
            tracing::info!(%node, "hub: node signed in to the broker again");
        }
    }

    pub fn get(&self, node: &str) -> Option<&Refusal> {
        self.by_node.get(node)
    }

    pub fn nodes(&self) -> impl Iterator<Item = &String> {
        self.by_node.keys()
    }
}

/// Listens to the broker's sign-in advisories with the `broker_events_user`, for as long as
/// the hub runs (the client reconnects by itself).
pub(super) async fn listen(cluster: ClusterSettings, shared: Shared, stop: CancellationToken) {
    let (Some(user), Some(password)) = (
        cluster.broker_events_user.clone(),
        cluster.broker_events_password.clone(),
    ) else {
        return;
    };
    let settings = ClusterSettings {
        user: Some(user),
        password: Some(password),
        nkey_seed_file: None,
        creds: None,
        ..cluster
    };
    let link = Arc::new(LinkHealth::default());
    lock(&shared).events_link = Some(link.clone());
    let client = match connect_reporting(&settings, "hub-events", link).await {
        Ok(c) => c,
        Err(e) => {
            tracing::warn!("hub: cannot hear the broker's sign-in reports: {e}");
            return;
        }
    };
    let mut subs = Vec::new();
    for subject in [AUTH_ERRORS, CONNECTS] {
        loop {
            match client.subscribe(subject).await {
                Ok(s) => break subs.push(s),
                Err(e) => {
                    tracing::warn!(
                        subject,
                        "hub: cannot hear the broker's sign-in reports: {e}"
                    );
                    tokio::select! {
                        _ = stop.cancelled() => return,
                        _ = tokio::time::sleep(Duration::from_secs(1)) => {}
                    }
                }
            }
        }
    }
    let mut advisories = futures_util::stream::select_all(subs);
    loop {
        tokio::select! {
            _ = stop.cancelled() => return,
            msg = advisories.next() => {
                let Some(msg) = msg else { return };
                let Some(advisory) = parse(&msg.subject, &msg.payload) else { continue };
                let new = lock(&shared).refusals.apply(advisory, Instant::now());
                if let Some((node, refusal)) = new {
                    tracing::warn!(%node, kind = "wrong_credentials", "hub: {}", refusal.message(&node));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// As nats-server 2.9.10 sends it (trimmed).
    const AUTH_ERR: &str = r#"{"type":"io.nats.server.advisory.v1.client_disconnect","client":{"host":"10.0.0.7","id":6,"acc":"$G","user":"hall-a","name":"dgt-arbiter hall-a","kind":"Client"},"reason":"Authentication Failure"}"#;
    const CONNECT: &str = r#"{"type":"io.nats.server.advisory.v1.client_connect","client":{"host":"10.0.0.7","acc":"EVENT","user":"hall-a","name":"dgt-arbiter hall-a"}}"#;

    #[test]
    fn a_refused_sign_in_names_the_node_until_it_signs_in() {
        let refused = parse("$SYS.SERVER.NABC.CLIENT.AUTH.ERR", AUTH_ERR.as_bytes()).unwrap();
        assert_eq!(
            refused,
            Advisory::Refused {
                node: "hall-a".into(),
                host: "10.0.0.7".into(),
                reason: "Authentication Failure".into()
            }
        );
        let mut r = Refusals::default();
        let now = Instant::now();
        assert!(r.apply(refused.clone(), now).is_some(), "new: logged");
        assert!(
            r.apply(refused, now).is_none(),
            "again: counted, not logged"
        );
        let seen = r.get("hall-a").unwrap();
        assert_eq!(seen.attempts, 2);
        assert!(seen.message("hall-a").contains("Fix"));
        let connect = parse("$SYS.ACCOUNT.EVENT.CONNECT", CONNECT.as_bytes()).unwrap();
        r.apply(connect, now);
        assert!(r.get("hall-a").is_none());
    }

    #[test]
    fn a_heartbeat_clears_a_refusal_only_once_the_knocking_stopped() {
        let mut r = Refusals::default();
        let refused = Advisory::Refused {
            node: "hall-a".into(),
            host: "10.0.0.9".into(),
            reason: String::new(),
        };
        r.apply(refused.clone(), Instant::now());
        r.heard("hall-a", Duration::from_secs(6));
        assert!(r.get("hall-a").is_some(), "another PC still knocks");
        r.apply(refused, Instant::now() - Duration::from_secs(7));
        r.heard("hall-a", Duration::from_secs(6));
        assert!(r.get("hall-a").is_none());
    }

    #[test]
    fn the_user_names_the_node_when_the_client_gave_no_name() {
        let body = AUTH_ERR.replace("\"dgt-arbiter hall-a\"", "\"\"");
        let Some(Advisory::Refused { node, .. }) =
            parse("$SYS.SERVER.N.CLIENT.AUTH.ERR", body.as_bytes())
        else {
            panic!("not read");
        };
        assert_eq!(node, "hall-a");
        let junk = AUTH_ERR.replace("dgt-arbiter hall-a", "dgt-arbiter a b.c");
        assert_eq!(
            parse("$SYS.SERVER.N.CLIENT.AUTH.ERR", junk.as_bytes()),
            None
        );
    }

    #[test]
    fn anyone_knocking_with_made_up_names_cannot_grow_the_list() {
        let mut r = Refusals::default();
        for i in 0..1000 {
            r.apply(
                Advisory::Refused {
                    node: format!("n{i}"),
                    host: String::new(),
                    reason: String::new(),
                },
                Instant::now(),
            );
        }
        assert_eq!(r.nodes().count(), MAX_REFUSED);
    }
}
