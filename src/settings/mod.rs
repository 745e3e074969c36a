//! The daemon's settings, read with the `config` crate in layers, each over the one before:
//!
//! 1. the built-in defaults ([`Settings::default`], documented key by key in
//!    `config/default.toml`);
//! 2. the system file `/etc/dgt-arbiter/config.toml`, when it exists ([`SYSTEM_FILE`]);
//! 3. the file given with `--config FILE` (it must exist);
//! 4. `DGT_ARBITER_…` environment variables: `DGT_ARBITER_LISTEN=0.0.0.0:1983`, nested
//!    tables with `__`: `DGT_ARBITER_SERVER__ARBITER_TOKEN=…`, `DGT_ARBITER_CORE__SETTLE_MS=300`,
//!    lists comma-separated (`DGT_ARBITER_SERVER__ALLOWED_ORIGINS=https://a,https://b`).
//!
//! Tables (maps) merge key by key across layers; lists (`tables`, `serial.ports`,
//! `server.allowed_origins`) are replaced whole by the last layer that sets them.
//!
//! Loading ([`load`], [`load_layered`]) checks syntax, types and unknown keys and names the
//! layer (file or variable) at fault; [`check`] then finds everything else that can be wrong
//! (addresses, tokens, editions, time controls, the table map, directories), each
//! [`Problem`] with its key, value and fix. [`check_report`] is `dgt-arbiter check-config`.
//!
//! ```toml
//! listen = "0.0.0.0:1983"
//! [server]
//! arbiter_token = "a-long-random-secret"
//! [[tables]]                # board number 7 of the pairing; its label is "7"
//! board = 7
//! serials = ["13116", "20455"]   # 20455 replaced 13116 mid-round: the game stays on "7"
//! [core]
//! edition = "fide-2023"
//! time_control = "5400+30"
//! ```

mod access;
mod check;
pub mod cluster;
mod load;
mod problem;
mod tables;

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::Deserialize;

use crate::edge::serial::{ExplicitPort, ScanMode};

pub use check::{
    Refused, check, check_hub, check_loaded, check_report, load_checked, load_checked_hub,
};
pub use cluster::ClusterSettings;
pub use load::{
    CHOICE_KEYS, Layer, Loaded, SYSTEM_FILE, SettingsError, choices, load, load_layered,
    load_sources,
};
pub use problem::Problem;
pub use tables::Table;

/// The contract's default HTTP address (contract §4).
pub const DEFAULT_LISTEN: &str = "127.0.0.1:1983";

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Settings {
    /// Where the dashboard, WebSocket and REST API will listen (contract §4).
    pub listen: String,
    /// Capture file every input is appended to (contract §2), if any.
    pub capture: Option<PathBuf>,
    /// Threads that run the ports, the core, the dashboard and the feeds (the journal has
    /// threads of its own); 0 is one per core. Unset: [`DAEMON_WORKERS`] for `run`, one per
    /// core for `hub` — see [`Settings::workers`].
    pub runtime_workers: Option<usize>,
    pub serial: SerialSettings,
    /// The table map: which board serial numbers play at which board number of the pairing.
    pub tables: Vec<Table>,
    /// The parts of the hall (`[[sections]]`), which floor arbiters cover.
    pub sections: Vec<SectionSettings>,
    pub core: dgt_core::CoreConfig,
    pub server: ServerSettings,
    pub journal: JournalSettings,
    pub event: EventSettings,
    /// One event across several PCs (contract §5); `None` stands alone.
    pub cluster: Option<ClusterSettings>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            listen: DEFAULT_LISTEN.into(),
            capture: None,
            runtime_workers: None,
            serial: SerialSettings::default(),
            tables: Vec::new(),
            sections: Vec::new(),
            core: dgt_core::CoreConfig::default(),
            server: ServerSettings::default(),
            journal: JournalSettings::default(),
            event: EventSettings::default(),
            cluster: None,
        }
    }
}

/// The daemon's runtime threads unless `runtime_workers` says otherwise. One thread runs
/// 1,000 boards with a fifth of a core to spare and takes less CPU than two: with two, a
/// board's bytes read on one thread wake the core on the other, and the wake-ups cost more
/// than the work (docs/performance.md, "one runtime thread").
pub const DAEMON_WORKERS: usize = 1;

/// The most runtime threads a setting may ask for (more only costs memory and wake-ups).
pub const MAX_WORKERS: usize = 64;

/// Which program the runtime is for: the daemon's work is one core task fed by its ports;
/// the hub's is fanning the event out to every client, which more threads share.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Daemon,
    Hub,
}

impl Settings {
    /// How many runtime threads `role` starts: `None` is one per core (tokio's own count,
    /// which `TOKIO_WORKER_THREADS` may set).
    pub fn workers(&self, role: Role) -> Option<usize> {
        match (self.runtime_workers, role) {
            (Some(0), _) | (None, Role::Hub) => None,
            (Some(n), _) => Some(n),
            (None, Role::Daemon) => Some(DAEMON_WORKERS),
        }
    }

    /// Board serial number → board label, as the serial edge wants it: `serial.labels`,
    /// then every serial of every [`Table`] mapped to that table's label (the board number,
    /// e.g. `"7"`, unless the entry names a label). Several serials may share one table's
    /// label (a board swapped mid-round keeps the game on its table); where `serial.labels`
    /// and `tables` disagree about a serial, `tables` wins here and [`check`] reports it.
    pub fn board_labels(&self) -> BTreeMap<String, String> {
        let mut labels = self.serial.labels.clone();
        for table in &self.tables {
            let label = table.label();
            for serial in &table.serials {
                labels.insert(serial.clone(), label.clone());
            }
        }
        labels
    }
}

/// Who may use the dashboard port, and the LiveChess-compatible API (contract §4).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ServerSettings {
    /// Allows arbiter actions; required when `listen` is not a loopback address.
    pub arbiter_token: Option<String>,
    /// Allows reading only (dashboards on other tablets).
    pub viewer_token: Option<String>,
    /// Origins besides the dashboard's own allowed to open `/ws` and POST.
    pub allowed_origins: Vec<String>,
    /// Host names (besides IP addresses and `localhost`) the dashboard is reached by; other
    /// `Host` headers are refused (DNS rebinding).
    pub allowed_hosts: Vec<String>,
    /// How long the public feed holds back moves and clocks (anti-cheating), in seconds.
    pub public_delay_s: u64,
    /// `public_delay_s = 0` is refused unless this says the undelayed feed is meant.
    pub allow_no_public_delay: bool,
    /// Connections the dashboard port holds at once.
    pub max_connections: usize,
    /// Connections one client address holds on the dashboard port (raise it to
    /// `max_connections` behind a reverse proxy on the same machine).
    pub max_connections_per_address: usize,
    /// `/ws/public` clients at once.
    pub max_public_clients: usize,
    /// Serve the LiveChess-compatible API (loopback only unless `livechess_lan`).
    pub livechess: bool,
    pub livechess_listen: String,
    /// Let the LiveChess API listen beyond loopback, read-only (a broadcast PC on the LAN).
    pub livechess_lan: bool,
    /// Web origins that may read the LiveChess API.
    pub livechess_origins: Vec<String>,
    /// Web origins (and `"none"`: programs sending no Origin) that may set up and flip
    /// boards through it.
    pub livechess_action_origins: Vec<String>,
    /// Connections the LiveChess port holds at once.
    pub livechess_max_connections: usize,
    /// Connections one client address holds on the LiveChess port.
    pub livechess_max_connections_per_address: usize,

    /// Named arbiter accounts (`[[server.arbiters]]`), each with its own token and role.
    pub arbiters: Vec<dgt_server::access::Account>,
}

impl Default for ServerSettings {
    fn default() -> Self {
        ServerSettings {
            arbiter_token: None,
            viewer_token: None,
            allowed_origins: Vec::new(),
            allowed_hosts: Vec::new(),
            public_delay_s: 15 * 60,
            allow_no_public_delay: false,
            max_connections: 512,
            max_connections_per_address: 64,
            max_public_clients: 256,
            livechess: false,
            livechess_listen: "127.0.0.1:1982".into(),
            livechess_lan: false,
            livechess_origins: vec!["https://lichess.org".into()],
            livechess_action_origins: Vec::new(),
            livechess_max_connections: 64,
            livechess_max_connections_per_address: 16,

            arbiters: Vec::new(),
        }
    }
}

/// A part of the hall: `[[sections]] name = "Open", tables = ["41-80", 90]` (table
/// numbers, or ranges "first-last").
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SectionSettings {
    pub name: String,
    pub tables: Vec<TableSpan>,
}

/// One table number, or a range `"41-80"`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum TableSpan {
    One(u32),
    Range(String),
}

/// A section's table range that is not one ("41-80": from 1, at most 10,000 tables).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not a range of tables like \"41-80\"")]
pub struct BadTableRange(pub String);

impl SectionSettings {
    /// The tables listed, ranges expanded; the first bad range as an error.
    pub fn table_numbers(&self) -> Result<Vec<u32>, BadTableRange> {
        let mut out = Vec::new();
        for span in &self.tables {
            match span {
                TableSpan::One(n) => out.push(*n),
                TableSpan::Range(r) => {
                    let parsed = r.split_once('-').and_then(|(a, b)| {
                        Some((a.trim().parse::<u32>().ok()?, b.trim().parse::<u32>().ok()?))
                    });
                    match parsed {
                        Some((a, b)) if a >= 1 && a <= b && b - a < 10_000 => out.extend(a..=b),
                        _ => return Err(BadTableRange(r.clone())),
                    }
                }
            }
        }
        Ok(out)
    }
}

/// The SQLite journal and the broadcast folders written from it.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct JournalSettings {
    /// The journal file. Default: `journal.sqlite` in `$STATE_DIRECTORY` (systemd's
    /// `StateDirectory`), else in the working directory.
    pub path: Option<PathBuf>,
    /// Run without a journal (nothing survives a restart). For trials only.
    pub disabled: bool,
    /// A LiveChess-style folder kept live (`tournament.json`, `round-N/…`), if any.
    pub broadcast_dir: Option<PathBuf>,
    /// Its public copy, delayed by `server.public_delay_s`, if any.
    pub public_broadcast_dir: Option<PathBuf>,
    /// The journal file's size cap in MiB: past it appends fail as "disk full" (the feed
    /// goes on, `/health` turns degraded, a log line names the cap) instead of filling the
    /// disk the rest of the PC needs.
    pub max_size_mb: u64,
    /// When the journal starts a new segment: `round` (default), `day` or `off`.
    pub segment: dgt_journal::SegmentRule,
    /// Seconds between two snapshots of the server's views kept in the journal (a restart
    /// restores the newest and applies only the events after it); 0 keeps none.
    pub view_snapshot_s: u64,
    /// Seconds of core time between two core snapshots in the journal (0: none). A
    /// restarted daemon restores the newest and replays only the steps after it.
    pub snapshot_every_s: u64,
}

impl Default for JournalSettings {
    fn default() -> Self {
        JournalSettings {
            path: None,
            disabled: false,
            broadcast_dir: None,
            public_broadcast_dir: None,
            max_size_mb: 4096,
            segment: dgt_journal::SegmentRule::Round,
            view_snapshot_s: 120,
            snapshot_every_s: 600,
        }
    }
}

impl JournalSettings {
    /// Where the journal lives (see [`JournalSettings::path`]).
    pub fn resolved_path(&self) -> PathBuf {
        if let Some(p) = &self.path {
            return p.clone();
        }
        match std::env::var_os("STATE_DIRECTORY") {
            // systemd may list several directories separated by ':'; the first is ours.
            Some(dirs) => {
                let first = dirs
                    .to_string_lossy()
                    .split(':')
                    .next()
                    .unwrap_or("")
                    .to_string();
                PathBuf::from(first).join("journal.sqlite")
            }
            None => PathBuf::from("journal.sqlite"),
        }
    }

    /// Whether a broadcast folder is written (live or delayed): then the broadcast writer's
    /// books are kept in the views snapshots and the hub's checkpoint.
    pub fn writes_broadcast_folders(&self) -> bool {
        self.broadcast_dir.is_some() || self.public_broadcast_dir.is_some()
    }
}

/// The event the games belong to (PGN tags, broadcast folder).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct EventSettings {
    pub name: String,
    pub site: String,
    /// The round being played now.
    pub round: u32,
    /// The round's date for the PGN Date tag, "YYYY.MM.DD".
    pub date: Option<String>,
}

impl Default for EventSettings {
    fn default() -> Self {
        EventSettings {
            name: "?".into(),
            site: "?".into(),
            round: 1,
            date: None,
        }
    }
}

/// Which ports the daemon reads and how boards are named.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SerialSettings {
    pub scan: ScanMode,
    /// Ports opened whether or not the scan finds them (by-path names tie a USB socket to a
    /// table).
    pub ports: Vec<ExplicitPort>,
    /// Board serial number → board label. Unlisted boards are `board-<serial>`; see also
    /// [`Settings::tables`] and [`Settings::board_labels`].
    pub labels: BTreeMap<String, String>,
    /// Read each board's EEPROM log at every connection, to recover the moves made while a
    /// board was unplugged but powered (protocol §3.6). Costs ~8 s of line time per
    /// connection for a full log.
    pub read_board_log: bool,
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    fn no_env() -> Vec<(String, String)> {
        Vec::new()
    }

    #[test]
    fn a_file_fills_the_serial_table() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("arbiter.toml");
        std::fs::write(
            &path,
            r#"
            capture = "/tmp/x.jsonl"
            [serial]
            scan = "off"
            ports = [{ path = "/dev/pts/9", label = "table-9" }, { path = "/dev/ttyACM3" }]
            [serial.labels]
            "13116" = "table-1"
            [core]
            settle_ms = 300
            "#,
        )
        .unwrap();
        let s = load_sources(None, Some(&path), no_env()).unwrap().settings;
        assert_eq!(s.listen, DEFAULT_LISTEN);
        assert_eq!(s.capture.as_deref(), Some(Path::new("/tmp/x.jsonl")));
        assert_eq!(s.serial.scan, ScanMode::Off);
        assert_eq!(s.serial.ports.len(), 2);
        assert_eq!(s.serial.ports[0].label.as_deref(), Some("table-9"));
        assert_eq!(s.serial.labels["13116"], "table-1");
        assert_eq!(s.core.settle_ms, 300);
    }

    #[test]
    fn defaults_without_a_file() {
        let s = load_sources(None, None, no_env()).unwrap().settings;
        assert_eq!(s, Settings::default());
        assert_eq!(s.serial.scan, ScanMode::Usb);
        assert!(s.serial.ports.is_empty());
    }

    #[test]
    fn board_labels_merge_the_table_map_and_keep_swapped_boards_on_their_table() {
        let mut s = Settings::default();
        s.serial.labels.insert("10001".into(), "top".into());
        s.tables = vec![
            Table {
                board: 7,
                serials: vec!["13116".into(), "20455".into()],
                ..Default::default()
            },
            Table {
                board: 8,
                serials: vec!["13117".into()],
                label: Some("open-b-8".into()),
                ..Default::default()
            },
        ];
        let labels = s.board_labels();
        assert_eq!(labels["10001"], "top");
        assert_eq!(labels["13116"], "7");
        assert_eq!(labels["20455"], "7");
        assert_eq!(labels["13117"], "open-b-8");
        assert_eq!(labels.len(), 4);
    }
}
