//! The daemon's settings: one TOML file (optional) under `DGT_ARBITER_…` environment
//! variables, read with the `config` crate. Every field has a default, so `run` without
//! `--config` works.
//!
//! Environment keys: `DGT_ARBITER_LISTEN=0.0.0.0:1983`, `DGT_ARBITER_CAPTURE=/var/lib/x.jsonl`,
//! nested tables with `__`: `DGT_ARBITER_SERIAL__SCAN=off`.
//!
//! ```toml
//! listen = "127.0.0.1:1983"
//! capture = "/var/lib/dgt-arbiter/live.jsonl"
//!
//! [serial]
//! scan = "usb"             # "usb" (ttyACM*/ttyUSB*), "dgt" (known DGT VID:PIDs only), "off"
//! ports = [{ path = "/dev/serial/by-path/pci-0000:00:14.0-usb-0:2:1.0", label = "table-3" }]
//!
//! [serial.labels]          # board serial number → table label
//! "13116" = "table-1"
//!
//! [core]                   # dgt_core::CoreConfig
//! edition = "fide-2023"
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::edge::serial::{ExplicitPort, ScanMode};

/// The contract's default HTTP address (contract §4).
pub const DEFAULT_LISTEN: &str = "127.0.0.1:1983";

#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Settings {
    /// Where the dashboard, WebSocket and REST API will listen (contract §4).
    pub listen: String,
    /// Capture file every input is appended to (contract §2), if any.
    pub capture: Option<PathBuf>,
    pub serial: SerialSettings,
    pub core: dgt_core::CoreConfig,
    pub server: ServerSettings,
    pub journal: JournalSettings,
    pub event: EventSettings,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            listen: DEFAULT_LISTEN.into(),
            capture: None,
            serial: SerialSettings::default(),
            core: dgt_core::CoreConfig::default(),
            server: ServerSettings::default(),
            journal: JournalSettings::default(),
            event: EventSettings::default(),
        }
    }
}

/// Who may use the dashboard port, and the LiveChess-compatible API (contract §4).
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ServerSettings {
    /// Allows arbiter actions; required when `listen` is not a loopback address.
    pub arbiter_token: Option<String>,
    /// Allows reading only (dashboards on other tablets).
    pub viewer_token: Option<String>,
    /// Origins besides the dashboard's own allowed to open `/ws` and POST.
    pub allowed_origins: Vec<String>,
    /// How long the public feed holds back moves and clocks (anti-cheating), in seconds.
    pub public_delay_s: u64,
    /// Serve the LiveChess-compatible API (loopback only).
    pub livechess: bool,
    pub livechess_listen: String,
}

impl Default for ServerSettings {
    fn default() -> Self {
        ServerSettings {
            arbiter_token: None,
            viewer_token: None,
            allowed_origins: Vec::new(),
            public_delay_s: 15 * 60,
            livechess: false,
            livechess_listen: "127.0.0.1:1982".into(),
        }
    }
}

/// The SQLite journal and the broadcast folders written from it.
#[derive(Debug, Clone, Default, Deserialize)]
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
}

/// The event the games belong to (PGN tags, broadcast folder).
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct EventSettings {
    pub name: String,
    pub site: String,
    /// The round being played now.
    pub round: u32,
}

impl Default for EventSettings {
    fn default() -> Self {
        EventSettings {
            name: "?".into(),
            site: "?".into(),
            round: 1,
        }
    }
}

/// Which ports the daemon reads and how boards are named.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SerialSettings {
    pub scan: ScanMode,
    /// Ports opened whether or not the scan finds them (by-path names tie a USB socket to a
    /// table).
    pub ports: Vec<ExplicitPort>,
    /// Board serial number → board label. Unlisted boards are `board-<serial>`.
    pub labels: BTreeMap<String, String>,
}

/// Reads the settings: built-in defaults, then `file` (if given; it must exist), then the
/// environment.
pub fn load(file: Option<&Path>) -> Result<Settings, config::ConfigError> {
    let mut builder = config::Config::builder();
    if let Some(path) = file {
        builder = builder.add_source(
            config::File::from(path)
                .format(config::FileFormat::Toml)
                .required(true),
        );
    }
    builder
        .add_source(
            config::Environment::with_prefix("DGT_ARBITER")
                .prefix_separator("_")
                .separator("__")
                .try_parsing(true),
        )
        .build()?
        .try_deserialize()
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let s = load(Some(&path)).unwrap();
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
        let s = load(None).unwrap();
        assert_eq!(s.serial.scan, ScanMode::Usb);
        assert!(s.serial.ports.is_empty());
    }
}
