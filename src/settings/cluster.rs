//! `[cluster]`: one event across several venue PCs joined on NATS JetStream (contract §5).
//! Without this table a daemon stands alone and needs no broker.
//!
//! ```toml
//! [cluster]
//! nats = ["nats://10.0.0.2:4222", "nats://10.0.0.3:4222"]   # or one URL; tls:// for TLS
//! node = "hall-a"            # this PC's name in the event (letters, digits, '-')
//! event = "open-2026"        # the event's id (letters, digits, '-', '_')
//! creds = "/etc/dgt-arbiter/hall-a.creds"   # or user + password, or nkey_seed_file
//! ```

use std::path::PathBuf;

use serde::Deserialize;

use super::problem::Problem;

/// The default of [`ClusterSettings::publish_every_ms`].
pub const PUBLISH_EVERY_MS: u64 = 250;
/// The longest [`ClusterSettings::publish_every_ms`]: past it the hub's view of a node would
/// trail its boards by more than an arbiter expects of a live display.
const PUBLISH_EVERY_MS_MAX: u64 = 10_000;

/// How this daemon (a node) or the hub reaches the event's broker.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ClusterSettings {
    /// The broker's URLs (`nats://host:4222`, `tls://host:4222`); one or several servers of
    /// one cluster. A single string is accepted for one URL.
    #[serde(deserialize_with = "one_or_many")]
    pub nats: Vec<String>,
    /// This PC's name in the event: the prefix of its boards' and games' ids on the hub.
    pub node: String,
    /// The event's id: the stream `DGT_<event>` and the subjects `dgt.<event>.…`.
    pub event: String,
    pub user: Option<String>,
    pub password: Option<String>,
    /// A file holding the user's NKey seed (`SU…`).
    pub nkey_seed_file: Option<PathBuf>,
    /// A `.creds` file (JWT and seed), as `nsc` writes it.
    pub creds: Option<PathBuf>,
    /// A CA certificate (PEM) to trust for `tls://` URLs besides the system's roots.
    pub tls_ca: Option<PathBuf>,
    /// How often a node tells the hub it is alive, in milliseconds.
    pub heartbeat_ms: u64,
    /// A node silent this long is `node_offline` on the hub, in milliseconds.
    pub offline_after_ms: u64,
    /// Events per message published to the stream, at most (whole journal steps).
    pub batch_events: usize,
    /// The shortest time between two messages of this node on the stream, in milliseconds
    /// (0: each message leaves as soon as the broker took the one before). Every message
    /// costs the stream about 200 bytes of its own (subject, headers, index) whatever it
    /// carries; a node that gathers what its boards said over this window stores a fraction
    /// of the bytes, and each event reaches the hub up to this much later. An event after a
    /// quiet spell leaves at once. docs/cluster.md, "Stream size and delay".
    pub publish_every_ms: u64,
    /// How long the hub waits for a node to journal an arbiter action, in milliseconds.
    pub request_timeout_ms: u64,
    /// Copies of the event's stream the brokers keep: 1 on one broker, 3 on a cluster of
    /// three (a broker PC can then fail without losing or stopping anything).
    pub replicas: usize,
    /// The nodes whose pairings and table results the hub applies to the event's rounds
    /// (besides the chief's own, entered on the hub). From any other node they are a
    /// `result_conflict` alert, never applied.
    pub round_nodes: Vec<String>,
    /// The hub only: the broker's system-account user that may read its reports of failed
    /// sign-ins (`hub-events` in config/nats-accounts.conf), so that a venue PC the broker
    /// refuses (a wrong password) is named on the hub's `/api/nodes`. Unset: not heard.
    pub broker_events_user: Option<String>,
    pub broker_events_password: Option<String>,
    /// The hub only: its checkpoint file (docs/cluster.md, "Hub restart"). Unset: the hub
    /// keeps `hub-<event>.checkpoint` in `$STATE_DIRECTORY` when systemd gives one, and
    /// none otherwise (it then reads the whole stream at every start).
    pub hub_checkpoint: Option<PathBuf>,
    /// The hub only: how often it saves its checkpoint, in seconds (0: never).
    pub hub_checkpoint_every_s: u64,
}

impl ClusterSettings {
    /// Where the hub keeps its checkpoint, if anywhere (see [`ClusterSettings::hub_checkpoint`]).
    pub fn hub_checkpoint_path(&self) -> Option<PathBuf> {
        if self.hub_checkpoint_every_s == 0 {
            return None;
        }
        if let Some(p) = &self.hub_checkpoint {
            return Some(p.clone());
        }
        // systemd may list several directories separated by ':'; the first is ours.
        let dirs = std::env::var_os("STATE_DIRECTORY")?;
        let first = dirs.to_string_lossy().split(':').next()?.to_string();
        (!first.is_empty())
            .then(|| PathBuf::from(first).join(format!("hub-{}.checkpoint", self.event)))
    }
}

impl Default for ClusterSettings {
    fn default() -> Self {
        ClusterSettings {
            nats: vec!["nats://127.0.0.1:4222".into()],
            node: String::new(),
            event: String::new(),
            user: None,
            password: None,
            nkey_seed_file: None,
            creds: None,
            tls_ca: None,
            heartbeat_ms: 2_000,
            offline_after_ms: 6_000,
            batch_events: 500,
            publish_every_ms: PUBLISH_EVERY_MS,
            request_timeout_ms: 5_000,
            replicas: 1,
            round_nodes: Vec::new(),
            broker_events_user: None,
            broker_events_password: None,
            hub_checkpoint: None,
            hub_checkpoint_every_s: 60,
        }
    }
}

fn one_or_many<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum OneOrMany {
        One(String),
        Many(Vec<String>),
    }
    Ok(match OneOrMany::deserialize(d)? {
        OneOrMany::One(s) => s
            .split(',')
            .map(|u| u.trim().to_string())
            .filter(|u| !u.is_empty())
            .collect(),
        OneOrMany::Many(v) => v,
    })
}

/// A node or event name: what NATS subjects and stream names can carry.
fn is_name(s: &str, extra: &[char]) -> bool {
    !s.is_empty()
        && s.len() <= 64
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || extra.contains(&c))
}

/// Every problem of `[cluster]`; `hub` is true for `dgt-arbiter hub` (no node name needed).
pub fn check(c: &ClusterSettings, hub: bool) -> Vec<Problem> {
    let mut out = Vec::new();
    let mut add = |key: &str, value: String, problem: &str, fix: &str| {
        out.push(Problem {
            key: format!("cluster.{key}"),
            value,
            problem: problem.into(),
            fix: fix.into(),
        })
    };
    if c.nats.is_empty() {
        add(
            "nats",
            "[]".into(),
            "names no broker",
            "give the broker's URL, e.g. \"nats://10.0.0.2:4222\"",
        );
    }
    for (i, url) in c.nats.iter().enumerate() {
        let scheme_ok = ["nats://", "tls://"].iter().any(|p| url.starts_with(p));
        let host = url.split("://").nth(1).unwrap_or("");
        if !scheme_ok || host.is_empty() || host.contains('/') {
            add(
                &format!("nats[{i}]"),
                format!("{url:?}"),
                "is not a NATS URL",
                "write nats://HOST:PORT (or tls://HOST:PORT for TLS), e.g. \"nats://10.0.0.2:4222\"",
            );
        }
    }
    if !hub && !is_name(&c.node, &[]) {
        add(
            "node",
            format!("{:?}", c.node),
            "must name this PC with letters, digits and '-' (at most 64)",
            "e.g. node = \"hall-a\"; every PC of the event needs its own name",
        );
    }
    if !is_name(&c.event, &['_']) {
        add(
            "event",
            format!("{:?}", c.event),
            "must be the event's id in letters, digits, '-' and '_' (at most 64)",
            "e.g. event = \"open-2026\"; the same on every PC and on the hub",
        );
    }
    if c.user.is_some() != c.password.is_some() {
        add(
            "user",
            "(hidden)".into(),
            "user and password go together",
            "give both cluster.user and cluster.password, or neither",
        );
    }
    if let Some(pw) = &c.password
        && (pw.contains("CHANGE-ME") || pw.len() < 8)
    {
        add(
            "password",
            "(hidden)".into(),
            "is the shipped placeholder or shorter than 8 characters",
            "set the password the broker's configuration gives this PC (openssl rand -hex 24)",
        );
    }
    let methods = [
        c.user.is_some(),
        c.nkey_seed_file.is_some(),
        c.creds.is_some(),
    ];
    if methods.iter().filter(|m| **m).count() > 1 {
        add(
            "creds",
            "(hidden)".into(),
            "more than one way to sign in is given",
            "choose one of user/password, nkey_seed_file or creds",
        );
    }
    for (key, file) in [
        ("nkey_seed_file", &c.nkey_seed_file),
        ("creds", &c.creds),
        ("tls_ca", &c.tls_ca),
    ] {
        if let Some(f) = file
            && !f.is_file()
        {
            add(
                key,
                format!("{:?}", f.display().to_string()),
                "is not a readable file",
                "give the path of the file the broker's operator handed out",
            );
        }
    }
    if c.heartbeat_ms == 0 || c.offline_after_ms <= c.heartbeat_ms {
        add(
            "offline_after_ms",
            c.offline_after_ms.to_string(),
            "must be longer than heartbeat_ms (a node would be offline between two heartbeats)",
            "e.g. heartbeat_ms = 2000, offline_after_ms = 6000",
        );
    }
    if c.replicas != 1 && c.replicas != 3 {
        add(
            "replicas",
            c.replicas.to_string(),
            "must be 1 (one broker) or 3 (a cluster of three brokers)",
            "replicas = 3 with three brokers in the nats list, otherwise leave it unset (1)",
        );
    }
    for (i, n) in c.round_nodes.iter().enumerate() {
        if !is_name(n, &[]) {
            add(
                &format!("round_nodes[{i}]"),
                format!("{n:?}"),
                "is not a node name",
                "name nodes as their [cluster] node setting does, e.g. round_nodes = [\"hall-a\"]",
            );
        }
    }
    if c.broker_events_user.is_some() != c.broker_events_password.is_some() {
        add(
            "broker_events_user",
            "(hidden)".into(),
            "broker_events_user and broker_events_password go together",
            "give both (the hub-events user of nats-accounts.conf), or neither",
        );
    }
    if let Some(pw) = &c.broker_events_password
        && (pw.contains("CHANGE-ME") || pw.len() < 8)
    {
        add(
            "broker_events_password",
            "(hidden)".into(),
            "is the shipped placeholder or shorter than 8 characters",
            "set the password nats-accounts.conf gives the hub-events user",
        );
    }
    if hub
        && let Some(path) = &c.hub_checkpoint
        && let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty())
        && !dir.is_dir()
    {
        add(
            "hub_checkpoint",
            format!("{:?}", path.display().to_string()),
            "is in a folder that does not exist",
            "name a file in an existing folder the hub may write, e.g. \"/var/lib/dgt-arbiter/hub.checkpoint\"",
        );
    }
    if c.publish_every_ms > PUBLISH_EVERY_MS_MAX {
        add(
            "publish_every_ms",
            c.publish_every_ms.to_string(),
            "would hold a node's events back from the hub for more than 10 seconds",
            "at most 10000; 250 keeps the stream small, 0 sends each event at once",
        );
    }
    if c.batch_events == 0 {
        add(
            "batch_events",
            "0".into(),
            "must be at least 1",
            "leave it unset (500)",
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn good() -> ClusterSettings {
        ClusterSettings {
            node: "hall-a".into(),
            event: "open_2026".into(),
            ..Default::default()
        }
    }

    #[test]
    fn a_plain_cluster_table_is_fine() {
        assert!(check(&good(), false).is_empty());
    }

    #[test]
    fn a_node_holds_its_events_back_ten_seconds_at_most() {
        let mut c = good();
        c.publish_every_ms = PUBLISH_EVERY_MS_MAX;
        assert!(check(&c, false).is_empty());
        c.publish_every_ms = PUBLISH_EVERY_MS_MAX + 1;
        let keys: Vec<String> = check(&c, false).into_iter().map(|p| p.key).collect();
        assert_eq!(keys, ["cluster.publish_every_ms"]);
    }

    #[test]
    fn the_hubs_checkpoint_goes_in_a_folder_that_exists_or_nowhere() {
        let mut c = good();
        c.hub_checkpoint = Some(PathBuf::from("/no/such/folder/hub.checkpoint"));
        let keys: Vec<String> = check(&c, true).into_iter().map(|p| p.key).collect();
        assert_eq!(keys, ["cluster.hub_checkpoint"]);
        assert_eq!(
            c.hub_checkpoint_path(),
            Some(PathBuf::from("/no/such/folder/hub.checkpoint"))
        );
        // Saved every 0 s: none at all.
        c.hub_checkpoint_every_s = 0;
        assert_eq!(c.hub_checkpoint_path(), None);
    }

    #[test]
    fn names_that_subjects_cannot_carry_are_refused_with_the_key() {
        let mut c = good();
        c.node = "hall a".into();
        c.event = "open.2026".into();
        c.nats = vec!["http://x:4222".into()];
        let keys: Vec<String> = check(&c, false).into_iter().map(|p| p.key).collect();
        assert_eq!(keys, ["cluster.nats[0]", "cluster.node", "cluster.event"]);
        // The hub has no node name of its own.
        c.node.clear();
        assert!(!check(&c, true).iter().any(|p| p.key == "cluster.node"));
    }

    #[test]
    fn credentials_come_one_way_and_whole() {
        let mut c = good();
        c.user = Some("hall-a".into());
        assert_eq!(check(&c, false)[0].key, "cluster.user");
        c.password = Some("CHANGE-ME-hall-a".into());
        assert_eq!(check(&c, false)[0].key, "cluster.password");
        c.password = Some("a-long-secret".into());
        assert!(check(&c, false).is_empty());
        c.creds = Some("/nonexistent.creds".into());
        let keys: Vec<String> = check(&c, false).into_iter().map(|p| p.key).collect();
        assert_eq!(keys, ["cluster.creds", "cluster.creds"]);
    }

    #[test]
    fn the_broker_events_user_comes_with_a_real_password() {
        let mut c = good();
        c.broker_events_user = Some("hub-events".into());
        assert_eq!(check(&c, true)[0].key, "cluster.broker_events_user");
        c.broker_events_password = Some("CHANGE-ME-hub-events".into());
        assert_eq!(check(&c, true)[0].key, "cluster.broker_events_password");
        c.broker_events_password = Some("a-long-secret".into());
        assert!(check(&c, true).is_empty());
    }

    #[test]
    fn one_url_or_a_list() {
        let c: ClusterSettings =
            toml_like(r#"{"nats": "nats://a:1, nats://b:2", "node": "n", "event": "e"}"#);
        assert_eq!(c.nats, ["nats://a:1", "nats://b:2"]);
        let c: ClusterSettings =
            toml_like(r#"{"nats": ["nats://a:1"], "node": "n", "event": "e"}"#);
        assert_eq!(c.nats, ["nats://a:1"]);
    }

    fn toml_like(json: &str) -> ClusterSettings {
        serde_json::from_str(json).unwrap()
    }
}
