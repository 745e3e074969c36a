//! Everything loading cannot see: addresses, tokens, editions, time controls, ranges, the
//! table map and the folders the daemon writes. Each [`Problem`] names its key, the value,
//! what is wrong and the fix; `dgt-arbiter check-config` prints them, and the daemon
//! refuses to start with the same lines.
//!
//! Folders are checked on the machine `check` runs on, by creating (and removing) a probe
//! file: a journal or broadcast folder that is missing or not writable is a problem, as the
//! daemon would fail on it later. Relative paths (and the default journal, `journal.sqlite`
//! in `$STATE_DIRECTORY` or else the working directory) are taken from the working
//! directory, as the daemon takes them. For the answer the daemon under the unit would get,
//! run `check-config` as its user in its directory:
//! `cd /var/lib/dgt-arbiter && sudo -u dgt-arbiter dgt-arbiter check-config`;
//! under the systemd unit only the state directory (`/var/lib/dgt-arbiter`) is writable.

use std::collections::{BTreeMap, BTreeSet};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use dgt_core::input::Supervision;
use dgt_core::time_control::{Category, TimeControl};

use super::Settings;
use super::load::{Loaded, SYSTEM_FILE, SettingsError, load_sources, process_env};
pub use super::problem::Problem;
use super::tables::{is_plain_label, is_serial_number};
use crate::edge::serial::ScanMode;

mod server;

/// Tokens shorter than this can be guessed from the venue network.
const MIN_TOKEN_CHARS: usize = 16;

/// Every problem in `settings`, in the order of the keys in `config/default.toml`. Empty
/// when the daemon may start.
pub fn check(settings: &Settings) -> Vec<Problem> {
    check_as(settings, false)
}

/// [`check`] for `dgt-arbiter hub`: its `[[tables]]` may name a venue PC's board
/// (`label = "hall-a/7"`). [`load_checked_hub`] leaves out the `cluster.` and `journal.`
/// problems of a daemon.
pub fn check_hub(settings: &Settings) -> Vec<Problem> {
    check_as(settings, true)
}

fn check_as(settings: &Settings, hub: bool) -> Vec<Problem> {
    let mut c = Checker {
        hub,
        ..Checker::default()
    };
    c.listen(settings);
    c.capture(settings);
    c.runtime(settings);
    c.serial(settings);
    c.tables(settings);
    c.core(settings);
    c.server(settings);
    c.problems.extend(super::access::check(settings));
    c.journal(settings);
    c.event(settings);
    if let Some(cluster) = &settings.cluster {
        c.problems.extend(super::cluster::check(cluster, false));
        if settings.journal.disabled {
            c.add(
                "journal.disabled",
                "true",
                "a cluster node publishes its journal: it cannot run without one",
                "remove journal.disabled, or the [cluster] table",
            );
        }
    }
    c.problems
}

/// Why the daemon (or the hub) will not start with these settings: they could not be read,
/// or [`check`] found problems. Displayed as `check-config` prints it: the load error, or
/// every problem, one a line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refused {
    #[error(transparent)]
    Load(#[from] SettingsError),
    #[error("{}", lines(.0))]
    Problems(Vec<Problem>),
}

/// What `dgt-arbiter check-config [--config FILE]` prints: Ok with a summary (the layers,
/// the boards mapped, the addresses, the journal), or Err with every problem, one a line.
/// Reads [`SYSTEM_FILE`], `file` and the process environment, as `run` does.
pub fn check_report(file: Option<&Path>) -> Result<String, Refused> {
    let loaded = load_sources(Some(Path::new(SYSTEM_FILE)), file, process_env())?;
    check_loaded(&loaded)
}

/// What `dgt-arbiter hub` starts with: [`load_checked`]'s rules, but the `[cluster]` table
/// is required and names no node (the hub has no boards of its own).
pub fn load_checked_hub(file: Option<&Path>) -> Result<Settings, Refused> {
    let loaded = load_sources(Some(Path::new(SYSTEM_FILE)), file, process_env())?;
    let mut problems: Vec<Problem> = check_hub(&loaded.settings)
        .into_iter()
        .filter(|p| !p.key.starts_with("cluster.") && !p.key.starts_with("journal."))
        .collect();
    match &loaded.settings.cluster {
        Some(c) => problems.extend(super::cluster::check(c, true)),
        None => problems.push(Problem {
            key: "cluster".into(),
            value: "(missing)".into(),
            problem: "the hub reads the event from NATS and needs the [cluster] table".into(),
            fix: "add [cluster] with nats = \"nats://HOST:4222\" and event = \"…\" (the \
                  same event as the nodes')"
                .into(),
        }),
    }
    if problems.is_empty() {
        Ok(loaded.settings)
    } else {
        Err(Refused::Problems(problems))
    }
}

/// [`check_report`] for settings already loaded (tests load them with their own layers).
pub fn check_loaded(loaded: &Loaded) -> Result<String, Refused> {
    let problems = check(&loaded.settings);
    if problems.is_empty() {
        Ok(summary(loaded))
    } else {
        Err(Refused::Problems(problems))
    }
}

/// What the daemon starts with: the settings [`super::load`] reads, or — when they cannot be
/// read or [`check`] finds problems — the same message `check-config` prints.
pub fn load_checked(file: Option<&Path>) -> Result<Settings, Refused> {
    let loaded = load_sources(Some(Path::new(SYSTEM_FILE)), file, process_env())?;
    let problems = check(&loaded.settings);
    if problems.is_empty() {
        Ok(loaded.settings)
    } else {
        Err(Refused::Problems(problems))
    }
}

fn lines(problems: &[Problem]) -> String {
    problems
        .iter()
        .map(|p| p.to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

fn summary(loaded: &Loaded) -> String {
    let s = &loaded.settings;
    let mut out = String::from("configuration OK\nlayers (later ones win):\n");
    for (i, layer) in loaded.layers.iter().enumerate() {
        out.push_str(&format!("  {}. {layer}\n", i + 1));
    }
    let tokens = match (&s.server.arbiter_token, &s.server.viewer_token) {
        (Some(_), Some(_)) => "arbiter and viewer tokens set",
        (Some(_), None) => "arbiter token set, no viewer token",
        (None, Some(_)) => "viewer token set, no arbiter token",
        (None, None) => "no tokens",
    };
    out.push_str(&format!("listen: {} ({tokens})\n", s.listen));
    if s.server.livechess {
        out.push_str(&format!(
            "LiveChess-compatible API: {}\n",
            s.server.livechess_listen
        ));
    }
    let labels = s.board_labels();
    let swapped = s.tables.iter().filter(|t| t.serials.len() > 1).count();
    out.push_str(&format!(
        "boards: {} tables in the table map ({} with a swapped board), {} serial numbers mapped \
         in all; other boards are board-<serial>\n",
        s.tables.len(),
        swapped,
        labels.len()
    ));
    let scan = match s.serial.scan {
        ScanMode::Usb => "usb (every ttyACM*/ttyUSB*)",
        ScanMode::Dgt => "dgt (known DGT USB ids only)",
        ScanMode::Off => "off (configured ports only)",
    };
    out.push_str(&format!(
        "serial: scan {scan}, {} configured ports\n",
        s.serial.ports.len()
    ));
    let tc = s
        .core
        .time_control
        .as_ref()
        .map_or("from the boards' clocks", |tc| tc.text.as_str());
    out.push_str(&format!(
        "rules: {}, time control {tc}, supervision {}, {} boards with their own settings\n",
        s.core.edition,
        match s.core.supervision {
            Supervision::Full => "full",
            Supervision::Reduced => "reduced",
        },
        s.core.boards.len()
    ));
    if s.core.flag_counts == dgt_core::config::FlagCounts::WhenCalled {
        out.push_str(
            "flags count when called (6.8): acknowledge a flag alert to end the game on time\n",
        );
    }
    if s.core.guideline_iii {
        out.push_str("Guideline III announced: both flags with the order unknown per III.3.1\n");
    }
    if let Some(reading) = s.core.fivefold {
        out.push_str(&format!(
            "fivefold repetition (9.6.1) read as {} in every edition that has it\n",
            match reading {
                dgt_core::config::FivefoldReading::Consecutive => "consecutive",
                dgt_core::config::FivefoldReading::AnyFive => "any_five",
            }
        ));
    }
    for m in &s.core.bughouse {
        out.push_str(&format!(
            "bughouse match {} + {} under {} (team A White on {}), drop ranks {}\n",
            m.boards[0],
            m.boards[1],
            m.rules.name(),
            m.boards[0],
            match m.drop_ranks {
                dgt_core::bughouse::RankReading::Relative => "relative",
                dgt_core::bughouse::RankReading::Absolute => "absolute",
            }
        ));
    }
    if s.journal.disabled {
        out.push_str("journal: disabled (nothing survives a restart)\n");
    } else {
        let path = s.journal.resolved_path();
        let path = std::path::absolute(&path).unwrap_or(path);
        out.push_str(&format!("journal: {}\n", path.display()));
    }
    if let Some(d) = &s.journal.broadcast_dir {
        out.push_str(&format!("broadcast: {}\n", d.display()));
    }
    if let Some(d) = &s.journal.public_broadcast_dir {
        out.push_str(&format!(
            "public broadcast: {} (delayed {} s)\n",
            d.display(),
            s.server.public_delay_s
        ));
    }
    if let Some(c) = &s.capture {
        out.push_str(&format!("capture: {}\n", c.display()));
    }
    out.push_str(&format!(
        "event: {:?} at {:?}, round {}\n",
        s.event.name, s.event.site, s.event.round
    ));
    out
}

/// A string value as TOML writes it.
fn quoted(text: &str) -> String {
    format!("{text:?}")
}

fn quoted_path(path: &Path) -> String {
    quoted(&path.to_string_lossy())
}

/// A token, without showing it.
fn hidden(secret: &str) -> String {
    format!("(hidden, {} characters)", secret.chars().count())
}

/// `parent."name"`: map keys that are not bare TOML-ish identifiers are quoted.
fn map_key(parent: &str, name: &str) -> String {
    let bare = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if bare {
        format!("{parent}.{name}")
    } else {
        format!("{parent}.{name:?}")
    }
}

#[derive(Default)]
struct Checker {
    problems: Vec<Problem>,
    /// Checking the hub's settings.
    hub: bool,
}

impl Checker {
    fn add(
        &mut self,
        key: impl Into<String>,
        value: impl Into<String>,
        problem: impl Into<String>,
        fix: impl Into<String>,
    ) {
        self.problems.push(Problem::new(key, value, problem, fix));
    }

    fn listen(&mut self, s: &Settings) {
        match s.listen.parse::<SocketAddr>() {
            Err(e) => self.add(
                "listen",
                quoted(&s.listen),
                format!("not an IP address and port ({e})"),
                "write IP:port, e.g. \"127.0.0.1:1983\" (this PC only) or \"0.0.0.0:1983\" \
                 (the venue network, with server.arbiter_token)",
            ),
            Ok(addr) => {
                let token =
                    s.server
                        .arbiter_token
                        .as_deref()
                        .is_some_and(|t| !t.is_empty())
                        || s.server.arbiters.iter().any(|a| {
                            a.role == dgt_server::access::Role::Chief && !a.token.is_empty()
                        });
                if !addr.ip().is_loopback() && !token {
                    self.add(
                        "listen",
                        quoted(&s.listen),
                        "listens beyond this PC without server.arbiter_token: anyone on that \
                         network could acknowledge alerts and change games",
                        "set server.arbiter_token (16 or more random characters), or listen \
                         on \"127.0.0.1:1983\"",
                    );
                }
            }
        }
    }

    fn capture(&mut self, s: &Settings) {
        if let Some(path) = &s.capture {
            if path.is_dir() {
                self.add(
                    "capture",
                    quoted_path(path),
                    "is a folder; the capture is a file",
                    "name a file, e.g. \"/var/lib/dgt-arbiter/round-1.jsonl\"",
                );
            } else if let Err(why) = writable_dir(parent_of(path)) {
                self.add(
                    "capture",
                    quoted_path(path),
                    format!("the capture file cannot be created: {why}"),
                    "create the folder and let the daemon's user write in it, or put the \
                     capture under /var/lib/dgt-arbiter",
                );
            }
        }
    }

    fn serial(&mut self, s: &Settings) {
        if s.serial.scan == ScanMode::Off && s.serial.ports.is_empty() {
            self.add(
                "serial.scan",
                quoted("off"),
                "no port would ever be opened: the scan is off and serial.ports is empty",
                "use scan = \"usb\" (or \"dgt\"), or list the ports in serial.ports",
            );
        }
        let mut seen_paths: BTreeMap<&Path, usize> = BTreeMap::new();
        for (i, port) in s.serial.ports.iter().enumerate() {
            let key = format!("serial.ports[{i}].path");
            if !port.path.is_absolute() {
                self.add(
                    &key,
                    quoted_path(&port.path),
                    "not an absolute device path",
                    "write the full path, e.g. \"/dev/serial/by-path/pci-0000:00:14.0-usb-0:2:1.0\" \
                     or \"/dev/ttyACM0\"",
                );
            }
            if let Some(first) = seen_paths.insert(&port.path, i) {
                self.add(
                    &key,
                    quoted_path(&port.path),
                    format!("the same port as serial.ports[{first}]"),
                    "list each port once",
                );
            }
            if port.bus && port.label.is_some() {
                self.add(
                    format!("serial.ports[{i}].label"),
                    quoted(port.label.as_deref().unwrap_or("")),
                    "a bus line carries several boards, each named by its serial number, so a \
                     port label would be ignored",
                    "remove the label; map the boards' serial numbers in [[tables]]",
                );
            }
            if let Some(label) = &port.label
                && !is_plain_label(label)
            {
                self.add(
                    format!("serial.ports[{i}].label"),
                    quoted(label),
                    "a label goes into URLs and file names",
                    "use letters, digits, '-', '_' and '.' only, e.g. \"table-3\"",
                );
            }
        }
        let mut by_label: BTreeMap<&str, &str> = BTreeMap::new();
        for (serial, label) in &s.serial.labels {
            let key = map_key("serial.labels", serial);
            if !is_serial_number(serial) {
                self.add(
                    &key,
                    quoted(label),
                    format!("{serial:?} is not a board serial number (a DGT board reports 5 digits)"),
                    "write the 5 digits on the sticker under the board (the daemon logs them as \"board identified\"), e.g. \"13116\"",
                );
            }
            if !is_plain_label(label) {
                self.add(
                    &key,
                    quoted(label),
                    "a label goes into URLs and file names",
                    "use letters, digits, '-', '_' and '.' only, e.g. \"table-1\"",
                );
            }
            if let Some(other) = by_label.insert(label, serial) {
                self.add(
                    &key,
                    quoted(label),
                    format!("label used twice (also for {other:?})"),
                    "give each board its own label; if one board replaced the other, put both \
                     serial numbers in one [[tables]] entry instead",
                );
            }
        }
    }

    /// A `[[tables]]` label: a board's own label on a daemon; on the hub also a venue PC's
    /// board as the hub names it, `<node>/<label>`.
    fn table_label(&mut self, i: usize, label: &str) {
        let node_board = label
            .split_once('/')
            .is_some_and(|(node, board)| is_plain_label(node) && is_plain_label(board));
        if is_plain_label(label) || (self.hub && node_board) {
            return;
        }
        let (problem, fix) = if node_board {
            (
                "a \"<node>/<board>\" label names a venue PC's board as the hub sees it: only \
                 the hub's [[tables]] take one",
                "on this PC use the board's own label (e.g. \"7\", or leave label out); put \
                 label = \"hall-a/7\" with the event's board number in the hub's [[tables]]",
            )
        } else if self.hub {
            (
                "the hub's table labels are a venue PC's board: \"<node>/<board>\"",
                "write the node name and its board's label, e.g. label = \"hall-a/7\"",
            )
        } else {
            (
                "a label goes into URLs and file names",
                "use letters, digits, '-', '_' and '.' only, e.g. \"open-b-12\"",
            )
        };
        self.add(format!("tables[{i}].label"), quoted(label), problem, fix);
    }

    fn tables(&mut self, s: &Settings) {
        let mut by_label: BTreeMap<String, usize> = BTreeMap::new();
        let mut by_serial: BTreeMap<&str, usize> = BTreeMap::new();
        for (i, table) in s.tables.iter().enumerate() {
            let label = table.label();
            if table.board == 0 {
                self.add(
                    format!("tables[{i}].board"),
                    "0",
                    "board numbers start at 1",
                    "use the board number of the pairing",
                );
            }
            if let Some(l) = &table.label {
                self.table_label(i, l);
            }
            if let Some(first) = by_label.insert(label.clone(), i) {
                let (key, value) = match &table.label {
                    Some(l) => (format!("tables[{i}].label"), quoted(l)),
                    None => (format!("tables[{i}].board"), table.board.to_string()),
                };
                self.add(
                    key,
                    value,
                    format!("table {label:?} is listed twice (also tables[{first}])"),
                    "put every serial number used at that table in one entry's serials (or \
                     give the entries different labels)",
                );
            }
            let mut own: BTreeSet<&str> = BTreeSet::new();
            for (k, serial) in table.serials.iter().enumerate() {
                let key = format!("tables[{i}].serials[{k}]");
                if !is_serial_number(serial) {
                    self.add(
                        &key,
                        quoted(serial),
                        "not a board serial number (a DGT board reports 5 digits)",
                        "write the 5 digits on the sticker under the board (the daemon logs them as \"board identified\"), e.g. \"13116\"",
                    );
                }
                if !own.insert(serial) {
                    self.add(
                        &key,
                        quoted(serial),
                        format!("listed twice for table {label:?}"),
                        "list it once",
                    );
                    continue;
                }
                if let Some(first) = by_serial.insert(serial, i) {
                    let other = s.tables[first].label();
                    if other != label {
                        self.add(
                            &key,
                            quoted(serial),
                            format!(
                                "board {serial} is at two tables: {other:?} (tables[{first}]) and {label:?}"
                            ),
                            "a board stands at one table: remove it from one of them",
                        );
                    }
                }
                if let Some(l) = s.serial.labels.get(serial.as_str())
                    && *l != label
                {
                    self.add(
                        map_key("serial.labels", serial),
                        quoted(l),
                        format!("tables[{i}] puts board {serial} at table {label:?}"),
                        "remove it from serial.labels; the table map decides",
                    );
                }
            }
        }
        // A serial.labels label that is also a table's label, for a board not in that table.
        for (serial, l) in &s.serial.labels {
            if let Some(&i) = by_label.get(l)
                && !s.tables[i].serials.iter().any(|x| x == serial)
            {
                self.add(
                    map_key("serial.labels", serial),
                    quoted(l),
                    format!("label used twice (also tables[{i}])"),
                    format!(
                        "if board {serial} replaced one at that table, add it to tables[{i}].serials \
                         and remove it here; otherwise give it its own label"
                    ),
                );
            }
        }
    }

    fn core(&mut self, s: &Settings) {
        let c = &s.core;
        self.range(
            "core.settle_ms",
            c.settle_ms,
            100,
            2000,
            "250 suits DGT boards, which scan the 64 squares in 200–250 ms",
        );
        self.range(
            "core.press_wait_ms",
            c.press_wait_ms,
            1000,
            60_000,
            "5000 (the default) waits five seconds for the clock press",
        );
        if c.press_wait_ms <= c.settle_ms {
            self.add(
                "core.press_wait_ms",
                c.press_wait_ms.to_string(),
                format!(
                    "not longer than core.settle_ms ({}): a move would be emitted before the \
                     board settled",
                    c.settle_ms
                ),
                "make press_wait_ms several seconds, e.g. 5000",
            );
        }
        self.range(
            "core.illegal_position_ms",
            c.illegal_position_ms,
            500,
            60_000,
            "3000 (the default) ignores a piece knocked over and put back at once",
        );
        if c.blitz_max_minutes == Some(0) {
            self.add(
                "core.blitz_max_minutes",
                "0",
                "no game would be blitz",
                "FIDE: 10 (base + 60 × increment, in minutes), or leave it unset for each \
                 edition's own definition",
            );
        }
        if let Some(blitz) = c.blitz_max_minutes
            && blitz >= c.rapid_max_minutes.unwrap_or(60)
        {
            self.add(
                "core.blitz_max_minutes",
                blitz.to_string(),
                format!(
                    "not below the rapid bound ({} minutes): blitz must end before rapid does",
                    c.rapid_max_minutes.unwrap_or(60)
                ),
                "FIDE: blitz_max_minutes = 10, rapid_max_minutes = 60, or leave both unset",
            );
        }
        // Time controls and editions were checked as they were read (a load error).
        let global = c.time_control.as_ref();
        if let (Supervision::Reduced, Some(tc)) = (c.supervision, global) {
            self.reduced_on_standard("core.supervision", tc, s, c.edition);
        }
        let known = known_labels(s);
        for (label, b) in &c.boards {
            let base = map_key("core.boards", label);
            if !known.contains(label.as_str()) && !label.starts_with("board-") {
                self.add(
                    &base,
                    "{ … }",
                    format!("no board is labelled {label:?}, so these settings apply to none"),
                    "use a label of the table map (the board number, e.g. \"7\"), of serial.labels \
                     or serial.ports, or board-<serial> for a board not mapped",
                );
            }
            let tc = b.time_control.as_ref().or(global);
            if let (Some(Supervision::Reduced), Some(tc)) = (b.supervision, tc) {
                let edition = b.edition.unwrap_or(c.edition);
                self.reduced_on_standard(&format!("{base}.supervision"), tc, s, edition);
            }
        }
        self.bughouse(s, &known);
    }

    /// Bughouse matches: two different boards each, a board in one match at most.
    fn bughouse(&mut self, s: &Settings, known: &BTreeSet<String>) {
        let mut seen = BTreeMap::new();
        for (i, m) in s.core.bughouse.iter().enumerate() {
            let key = format!("core.bughouse[{i}].boards");
            let value = format!("[{:?}, {:?}]", m.boards[0], m.boards[1]);
            if m.boards[0] == m.boards[1] || m.boards.iter().any(|b| b.is_empty()) {
                self.add(
                    &key,
                    value.clone(),
                    "a match needs two different boards",
                    "name the two boards of the match, e.g. [\"1\", \"2\"]: team A has White on \
                     the first and Black on the second",
                );
                continue;
            }
            for b in &m.boards {
                if let Some(other) = seen.insert(b.clone(), i) {
                    self.add(
                        &key,
                        value.clone(),
                        format!("board {b:?} is already in core.bughouse[{other}]"),
                        "a board plays in one match only",
                    );
                }
                if !known.contains(b) && !b.starts_with("board-") {
                    self.add(
                        &key,
                        value.clone(),
                        format!("no board is labelled {b:?}"),
                        "use a label of the table map (the board number, e.g. \"7\"), of \
                         serial.labels or serial.ports, or board-<serial>",
                    );
                }
            }
        }
    }

    fn range(&mut self, key: &str, value: u64, min: u64, max: u64, fix: &str) {
        if !(min..=max).contains(&value) {
            self.add(
                key,
                value.to_string(),
                format!("outside {min}–{max} ms"),
                fix,
            );
        }
    }

    fn reduced_on_standard(
        &mut self,
        key: &str,
        tc: &TimeControl,
        s: &Settings,
        edition: dgt_core::arbiter::Edition,
    ) {
        let category = s.core.category(tc, edition.laws());
        if category == Category::Standard {
            self.add(
                key,
                quoted("reduced"),
                format!(
                    "{:?} is a standard time control; reduced supervision exists only for \
                     rapid and blitz (Appendices A and B)",
                    tc.text
                ),
                "remove supervision (or set \"full\"), or check the time control",
            );
        }
    }

    fn journal(&mut self, s: &Settings) {
        let j = &s.journal;
        if j.view_snapshot_s > 86_400 {
            self.add(
                "journal.view_snapshot_s",
                j.view_snapshot_s.to_string(),
                "more than a day: a restart would apply a day of events",
                "120 (0 keeps no snapshot)",
            );
        }
        if !(1..=1_048_576).contains(&j.max_size_mb) {
            self.add(
                "journal.max_size_mb",
                j.max_size_mb.to_string(),
                "outside 1–1048576 MiB",
                "4096 (4 GiB) holds many weekends",
            );
        }
        if j.snapshot_every_s > 86_400 {
            self.add(
                "journal.snapshot_every_s",
                j.snapshot_every_s.to_string(),
                "more than a day: a restart would replay up to that much play",
                "600 (a restart replays at most ten minutes of play); 0 turns snapshots off",
            );
        }
        if !j.disabled {
            let path = j.resolved_path();
            let (key, value) = match &j.path {
                Some(p) => ("journal.path", quoted_path(p)),
                None => ("journal.path", format!("(unset: {})", path.display())),
            };
            if path.is_dir() {
                self.add(
                    key,
                    value,
                    "is a folder; the journal is a file",
                    "name a file, e.g. \"/var/lib/dgt-arbiter/journal.sqlite\"",
                );
            } else if let Err(why) = writable_dir(parent_of(&path)) {
                self.add(
                    key,
                    value,
                    format!("the journal cannot be written: {why}"),
                    "create the folder and let the daemon's user write in it; under systemd \
                     leave journal.path unset (the state directory /var/lib/dgt-arbiter is used)",
                );
            }
        }
        for (key, dir) in [
            ("journal.broadcast_dir", &j.broadcast_dir),
            ("journal.public_broadcast_dir", &j.public_broadcast_dir),
        ] {
            let Some(dir) = dir else { continue };
            if j.disabled {
                self.add(
                    key,
                    quoted_path(dir),
                    "the broadcast is written from the journal, which journal.disabled turns off",
                    "remove journal.disabled, or this key",
                );
            }
            if let Err(why) = creatable_dir(dir) {
                self.add(
                    key,
                    quoted_path(dir),
                    format!("the broadcast folder cannot be written: {why}"),
                    "create it and let the daemon's user write in it (under systemd: a folder \
                     under /var/lib/dgt-arbiter, or add it to ReadWritePaths= in a drop-in)",
                );
            }
        }
        if let (Some(a), Some(b)) = (&j.broadcast_dir, &j.public_broadcast_dir)
            && a == b
        {
            self.add(
                "journal.public_broadcast_dir",
                quoted_path(b),
                "the same folder as journal.broadcast_dir: the delayed copy would overwrite the live one",
                "use two folders, e.g. \"broadcast\" and \"public\"",
            );
        }
    }

    fn event(&mut self, s: &Settings) {
        let e = &s.event;
        if e.round == 0 {
            self.add(
                "event.round",
                "0",
                "rounds are numbered from 1",
                "set the round being played, e.g. 1",
            );
        }
        if let Some(date) = &e.date
            && !is_pgn_date(date)
        {
            self.add(
                "event.date",
                quoted(date),
                "not a PGN date",
                "write YYYY.MM.DD, e.g. \"2026.11.23\" (unknown parts as ??)",
            );
        }
        for (key, value) in [("event.name", &e.name), ("event.site", &e.site)] {
            if value.trim().is_empty() {
                self.add(
                    key,
                    quoted(value),
                    "empty (it goes into every PGN)",
                    "write the name, or \"?\" when unknown (PGN's convention)",
                );
            }
        }
    }
}

/// PGN's date form (PGN standard 8.1.1.3): "YYYY.MM.DD", digits or '?' for unknown parts.
fn is_pgn_date(text: &str) -> bool {
    let parts: Vec<&str> = text.split('.').collect();
    parts.len() == 3
        && [4, 2, 2]
            .iter()
            .zip(&parts)
            .all(|(n, p)| p.len() == *n && p.bytes().all(|b| b.is_ascii_digit() || b == b'?'))
}

/// The labels a board can have: the table map, serial.labels and the ports' labels.
fn known_labels(s: &Settings) -> BTreeSet<String> {
    let mut known: BTreeSet<String> = s.board_labels().into_values().collect();
    known.extend(s.tables.iter().map(|t| t.label()));
    known.extend(s.serial.ports.iter().filter_map(|p| p.label.clone()));
    known
}

fn is_origin(text: &str) -> bool {
    let Some(rest) = text
        .strip_prefix("https://")
        .or_else(|| text.strip_prefix("http://"))
    else {
        return false;
    };
    !rest.is_empty()
        && !rest.contains('/')
        && !rest.contains(char::is_whitespace)
        && !rest.starts_with(':')
}

fn parent_of(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// Why a folder cannot take the daemon's files (its path shown absolute).
#[derive(Debug, thiserror::Error)]
enum FolderProblem {
    #[error("the folder {} does not exist", .0.display())]
    Missing(PathBuf),
    #[error("{} is not a folder", .0.display())]
    NotAFolder(PathBuf),
    #[error("cannot write in {}: {source}", .dir.display())]
    NotWritable {
        dir: PathBuf,
        source: std::io::Error,
    },
    /// The folder is missing and its parent cannot take it.
    #[error("{} does not exist and {parent}", .dir.display())]
    CannotCreate {
        dir: PathBuf,
        parent: Box<FolderProblem>,
    },
}

/// A folder exists and a file can be created in it (by creating and removing one).
/// Relative paths are taken from the working directory, as the daemon takes them (the unit
/// sets it to the state directory), and shown absolute.
fn writable_dir(dir: &Path) -> Result<(), FolderProblem> {
    let shown = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
    let dir = shown.as_path();
    if !dir.exists() {
        return Err(FolderProblem::Missing(shown));
    }
    if !dir.is_dir() {
        return Err(FolderProblem::NotAFolder(shown));
    }
    static PROBES: AtomicU64 = AtomicU64::new(0);
    let probe: PathBuf = dir.join(format!(
        ".dgt-arbiter-check-{}-{}",
        std::process::id(),
        PROBES.fetch_add(1, Ordering::Relaxed)
    ));
    match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&probe)
    {
        Ok(_) => {
            let _ = std::fs::remove_file(&probe);
            Ok(())
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(source) => Err(FolderProblem::NotWritable { dir: shown, source }),
    }
}

/// A folder that is writable, or can be created in a writable parent.
fn creatable_dir(dir: &Path) -> Result<(), FolderProblem> {
    if dir.exists() {
        return writable_dir(dir);
    }
    writable_dir(parent_of(dir)).map_err(|why| FolderProblem::CannotCreate {
        dir: std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf()),
        parent: Box::new(why),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_problem_reads_as_one_line() {
        let p = Problem {
            key: map_key("serial.labels", "13116"),
            value: quoted("table-1"),
            problem: "label used twice (also for \"13117\")".into(),
            fix: "give each board its own label, or remove one".into(),
        };
        assert_eq!(
            p.to_string(),
            "serial.labels.\"13116\" = \"table-1\": label used twice (also for \"13117\"); \
             fix: give each board its own label, or remove one"
        );
    }

    #[test]
    fn a_folder_problem_says_which_folder_and_why() {
        let tmp = tempfile::tempdir().unwrap();
        let file = tmp.path().join("a-file");
        std::fs::write(&file, "").unwrap();
        let missing = tmp.path().join("gone");
        let deeper = missing.join("deeper");
        assert!(writable_dir(tmp.path()).is_ok());
        assert!(creatable_dir(&missing).is_ok());
        assert_eq!(
            writable_dir(&file).unwrap_err().to_string(),
            format!("{} is not a folder", file.display())
        );
        assert_eq!(
            creatable_dir(&deeper).unwrap_err().to_string(),
            format!(
                "{} does not exist and the folder {} does not exist",
                deeper.display(),
                missing.display()
            )
        );
    }

    #[test]
    fn map_keys_are_quoted_when_not_bare() {
        assert_eq!(map_key("core.boards", "top"), "core.boards.top");
        assert_eq!(map_key("core.boards", "7"), "core.boards.\"7\"");
        assert_eq!(
            map_key("core.boards", "board-13116"),
            "core.boards.board-13116"
        );
    }

    #[test]
    fn origins() {
        assert!(is_origin("https://results.example.org"));
        assert!(is_origin("http://192.168.1.20:8080"));
        assert!(!is_origin("https://results.example.org/"));
        assert!(!is_origin("results.example.org"));
        assert!(!is_origin("*"));
    }
}
