//! Reading the layers: defaults ← system file ← `--config` file ← environment.
//!
//! Every layer is first read on its own, so a syntax error, a wrong type or an unknown key
//! is reported with the file (or the environment variable) it came from; then the layers
//! are merged.

use std::fmt;
use std::path::{Path, PathBuf};

use config::{Config, ConfigError, FileFormat};

use super::Settings;

/// The system-wide configuration file, read when it exists.
pub const SYSTEM_FILE: &str = "/etc/dgt-arbiter/config.toml";

/// Environment variables starting with this (any case) are settings.
pub const ENV_PREFIX: &str = "DGT_ARBITER_";

/// Keys the environment gives as comma-separated lists.
const ENV_LIST_KEYS: &[&str] = &[
    "server.allowed_origins",
    "server.allowed_hosts",
    "server.livechess_origins",
    "server.livechess_action_origins",
    "cluster.nats",
];

/// Keys holding lists of tables, which only a file can give.
const FILE_ONLY_KEYS: &[&str] = &["tables", "serial.ports", "sections", "server.arbiters"];

/// Maps whose keys are names the user chose (labels, serial numbers): their case is kept
/// when they come from the environment, where everything else is lower-cased.
const USER_KEYED_MAPS: &[&str] = &["serial.labels", "core.boards"];

/// One layer of the settings, as `check-config` reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Layer {
    Defaults,
    /// [`SYSTEM_FILE`] (or the test's stand-in); skipped when not present.
    SystemFile {
        path: PathBuf,
        present: bool,
    },
    /// The `--config` file.
    File {
        path: PathBuf,
    },
    /// The `DGT_ARBITER_…` variables that were set.
    Environment {
        variables: Vec<String>,
    },
    /// Tokens read from systemd credentials (`LoadCredential=arbiter_token:…` in the unit:
    /// files `arbiter_token` / `viewer_token` in `$CREDENTIALS_DIRECTORY`), which — unlike
    /// `Environment=` — `systemctl show` does not print. They override every other layer.
    Credentials {
        dir: PathBuf,
        names: Vec<String>,
    },
}

impl fmt::Display for Layer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Layer::Defaults => write!(f, "built-in defaults"),
            Layer::SystemFile {
                path,
                present: true,
            } => write!(f, "{} (system file)", path.display()),
            Layer::SystemFile {
                path,
                present: false,
            } => write!(f, "{} (system file, not present: skipped)", path.display()),
            Layer::File { path } => write!(f, "{} (--config)", path.display()),
            Layer::Environment { variables } if variables.is_empty() => {
                write!(f, "environment (no {ENV_PREFIX}* variables set)")
            }
            Layer::Environment { variables } => {
                write!(f, "environment: {}", variables.join(", "))
            }
            Layer::Credentials { dir, names } => {
                write!(f, "credentials in {}: {}", dir.display(), names.join(", "))
            }
        }
    }
}

/// The merged settings and where they came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Loaded {
    pub settings: Settings,
    /// In the order applied (later wins).
    pub layers: Vec<Layer>,
}

/// Why the settings could not be read. Every message names the file or variable, and the
/// key where there is one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SettingsError {
    #[error("{}: cannot read the file: {reason}", path.display())]
    Unreadable { path: PathBuf, reason: String },
    #[error("{}: {message}", path.display())]
    File {
        path: PathBuf,
        /// The key at fault (`serial.scan`, `tables[2].board`), when known.
        key: Option<String>,
        message: String,
    },
    #[error("environment variable {variable}: {message}")]
    Environment {
        variable: String,
        key: Option<String>,
        message: String,
    },
    /// The layers read alone, but not together (should not happen).
    #[error("the merged configuration: {message}")]
    Merged { message: String },
}

impl SettingsError {
    /// The key at fault, when known.
    pub fn key(&self) -> Option<&str> {
        match self {
            SettingsError::File { key, .. } | SettingsError::Environment { key, .. } => {
                key.as_deref()
            }
            _ => None,
        }
    }
}

/// Reads the settings the daemon runs with: [`SYSTEM_FILE`] when it exists, then `file`
/// (which must exist), then the process environment.
pub fn load(file: Option<&Path>) -> Result<Settings, SettingsError> {
    load_layered(Some(Path::new(SYSTEM_FILE)), file)
}

/// [`load`] with the system file chosen by the caller (tests pass a temporary one, or
/// `None` to skip it).
pub fn load_layered(
    system_file: Option<&Path>,
    file: Option<&Path>,
) -> Result<Settings, SettingsError> {
    load_sources(system_file, file, process_env()).map(|l| l.settings)
}

/// The process's `DGT_ARBITER_…` variables.
pub(crate) fn process_env() -> Vec<(String, String)> {
    std::env::vars_os()
        .filter_map(|(k, v)| {
            let k = k.into_string().ok()?;
            (has_env_prefix(&k) || k == CREDENTIALS_VARIABLE)
                .then(|| (k, v.to_string_lossy().into_owned()))
        })
        .collect()
}

fn has_env_prefix(name: &str) -> bool {
    name.len() > ENV_PREFIX.len()
        && name.is_char_boundary(ENV_PREFIX.len())
        && name[..ENV_PREFIX.len()].eq_ignore_ascii_case(ENV_PREFIX)
}

/// The whole layering with an explicit environment (variables without the prefix are
/// ignored), so tests need not touch the process environment.
pub fn load_sources(
    system_file: Option<&Path>,
    file: Option<&Path>,
    env: impl IntoIterator<Item = (String, String)>,
) -> Result<Loaded, SettingsError> {
    let env: Vec<(String, String)> = env.into_iter().collect();
    let credentials = env
        .iter()
        .find(|(k, v)| k == CREDENTIALS_VARIABLE && !v.is_empty())
        .map(|(_, v)| PathBuf::from(v));
    let mut layers = vec![Layer::Defaults];
    let mut builder = Config::builder();
    if let Some(path) = system_file {
        let present = path.exists();
        if present {
            builder = builder.add_source(read_layer(path)?);
        }
        layers.push(Layer::SystemFile {
            path: path.to_path_buf(),
            present,
        });
    }
    if let Some(path) = file {
        builder = builder.add_source(read_layer(path)?);
        layers.push(Layer::File {
            path: path.to_path_buf(),
        });
    }
    let env = env_layer(env)?;
    layers.push(Layer::Environment {
        variables: env.iter().map(|v| v.variable.clone()).collect(),
    });
    let mut alone = Config::builder();
    for var in &env {
        builder = var.apply(builder)?;
        alone = var.apply(alone)?;
    }
    // The environment on its own, for errors that name the variable.
    if let Err(e) = alone.build().and_then(|c| c.try_deserialize::<Settings>()) {
        let (key, message) = describe(e);
        let variable = key
            .as_deref()
            .and_then(|k| env.iter().find(|v| key_covers(&v.key, k)))
            .or(env.first())
            .map(|v| v.variable.clone())
            .unwrap_or_else(|| format!("{ENV_PREFIX}*"));
        return Err(SettingsError::Environment {
            variable,
            key,
            message,
        });
    }
    let mut settings = builder
        .build()
        .and_then(|c| c.try_deserialize::<Settings>())
        .map_err(|e| SettingsError::Merged {
            message: describe(e).1,
        })?;
    if let Some(dir) = credentials {
        let mut names = Vec::new();
        for (name, slot) in [
            ("arbiter_token", &mut settings.server.arbiter_token),
            ("viewer_token", &mut settings.server.viewer_token),
        ] {
            let path = dir.join(name);
            match std::fs::read_to_string(&path) {
                // An empty file (the unit needs both to exist) means no such token.
                Ok(text) if text.trim().is_empty() => {}
                Ok(text) => {
                    *slot = Some(text.trim_end_matches(['\n', '\r']).to_string());
                    names.push(name.to_string());
                }
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => {
                    return Err(SettingsError::Unreadable {
                        path,
                        reason: e.to_string(),
                    });
                }
            }
        }
        if !names.is_empty() {
            layers.push(Layer::Credentials { dir, names });
        }
    }
    Ok(Loaded { settings, layers })
}

/// Where systemd puts the files of `LoadCredential=`.
pub const CREDENTIALS_VARIABLE: &str = "CREDENTIALS_DIRECTORY";

/// Reads one file and checks it alone (syntax, types, unknown keys).
fn read_layer(
    path: &Path,
) -> Result<config::File<config::FileSourceString, FileFormat>, SettingsError> {
    let text = std::fs::read_to_string(path).map_err(|e| SettingsError::Unreadable {
        path: path.to_path_buf(),
        reason: e.to_string(),
    })?;
    let source = || config::File::from_str(&text, FileFormat::Toml);
    Config::builder()
        .add_source(source())
        .build()
        .and_then(|c| c.try_deserialize::<Settings>())
        .map_err(|e| {
            let (key, message) = describe(e);
            SettingsError::File {
                path: path.to_path_buf(),
                key,
                message,
            }
        })?;
    Ok(source())
}

/// One `DGT_ARBITER_…` variable as a settings key.
struct EnvVar {
    variable: String,
    key: String,
    value: EnvValue,
}

enum EnvValue {
    Text(String),
    List(Vec<String>),
}

impl EnvVar {
    fn apply(
        &self,
        builder: config::ConfigBuilder<config::builder::DefaultState>,
    ) -> Result<config::ConfigBuilder<config::builder::DefaultState>, SettingsError> {
        let result = match &self.value {
            EnvValue::Text(t) => builder.set_override(&self.key, t.clone()),
            EnvValue::List(l) => builder.set_override(&self.key, l.clone()),
        };
        result.map_err(|e| SettingsError::Environment {
            variable: self.variable.clone(),
            key: Some(self.key.clone()),
            message: format!("\"{}\" is not a settings key: {e}", self.key),
        })
    }
}

/// `DGT_ARBITER_SERVER__ARBITER_TOKEN` → `server.arbiter_token`.
fn env_key(variable: &str) -> String {
    let rest = &variable[ENV_PREFIX.len()..];
    let mut key = String::new();
    for segment in rest.split("__") {
        let keep_case = USER_KEYED_MAPS.contains(&key.as_str());
        if !key.is_empty() {
            key.push('.');
        }
        if keep_case {
            key.push_str(segment);
        } else {
            key.push_str(&segment.to_ascii_lowercase());
        }
    }
    key
}

fn env_layer(
    env: impl IntoIterator<Item = (String, String)>,
) -> Result<Vec<EnvVar>, SettingsError> {
    let mut vars: Vec<(String, String)> = env
        .into_iter()
        .filter(|(k, v)| has_env_prefix(k) && !v.is_empty())
        .collect();
    vars.sort();
    let mut out = Vec::new();
    for (variable, value) in vars {
        let key = env_key(&variable);
        if let Some(list) = FILE_ONLY_KEYS.iter().find(|k| key_covers(k, &key)) {
            return Err(SettingsError::Environment {
                variable,
                key: Some(key),
                message: format!(
                    "`{list}` is a list of tables and can only be set in a configuration file"
                ),
            });
        }
        let value = if ENV_LIST_KEYS.contains(&key.as_str()) {
            EnvValue::List(
                value
                    .split(',')
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(String::from)
                    .collect(),
            )
        } else {
            EnvValue::Text(value)
        };
        out.push(EnvVar {
            variable,
            key,
            value,
        });
    }
    Ok(out)
}

/// Whether `key` is `parent` or lies inside it.
fn key_covers(parent: &str, key: &str) -> bool {
    key == parent
        || key
            .strip_prefix(parent)
            .is_some_and(|rest| rest.starts_with('.') || rest.starts_with('['))
}

/// A `config` error as (key, one-line message naming the key).
pub(crate) fn describe(e: ConfigError) -> (Option<String>, String) {
    match e {
        ConfigError::FileParse { cause, .. } => (None, one_line_parse_error(&cause.to_string())),
        ConfigError::Type {
            unexpected,
            expected,
            key,
            ..
        } => {
            let key = key.map(|k| fix_key(&k));
            let expected = plain_expected(expected);
            let found = unexpected
                .to_string()
                .replace("64-bit unsigned integer", "the number")
                .replace("64-bit integer", "the number")
                .replace("boolean", "the boolean");
            let message = match &key {
                Some(k) => format!("key \"{k}\": expected {expected}, found {found}"),
                None => format!("expected {expected}, found {found}"),
            };
            (key, message)
        }
        ConfigError::At { error, key, .. } => {
            let key = key.map(|k| fix_key(&k));
            match *error {
                ConfigError::Message(m) => serde_message(key, &m),
                other => {
                    let (inner_key, m) = describe(other);
                    let key = inner_key.or(key);
                    match &key {
                        Some(k) if !m.contains(k.as_str()) => {
                            (key.clone(), format!("key \"{k}\": {m}"))
                        }
                        _ => (key, m),
                    }
                }
            }
        }
        ConfigError::Message(m) => serde_message(None, &m),
        ConfigError::NotFound(k) => {
            let k = fix_key(&k);
            (Some(k.clone()), format!("key \"{k}\" is missing"))
        }
        other => (None, strip_origin(&other.to_string())),
    }
}

/// serde's messages, rephrased with the full key.
fn serde_message(key: Option<String>, message: &str) -> (Option<String>, String) {
    let join = |name: &str| match &key {
        Some(k) => format!("{k}.{name}"),
        None => name.to_string(),
    };
    let message = strip_origin(message);
    if let Some(rest) = message.strip_prefix("unknown field `") {
        let (name, tail) = rest.split_once('`').unwrap_or((rest, ""));
        let full = join(name);
        let expected = backticked(tail);
        let hint = if expected.is_empty() {
            String::from("this table takes no keys")
        } else {
            format!("expected one of {}", expected.join(", "))
        };
        return (
            Some(full.clone()),
            format!("unknown key \"{full}\" ({hint})"),
        );
    }
    if let Some(rest) = message.strip_prefix("missing field `") {
        let name = rest.split('`').next().unwrap_or(rest);
        let full = join(name);
        return (Some(full.clone()), format!("key \"{full}\" is missing"));
    }
    if let Some(rest) = message.strip_prefix("unknown variant `") {
        let (name, tail) = rest.split_once('`').unwrap_or((rest, ""));
        let expected = backticked(tail);
        let shown = key.as_deref().unwrap_or("value");
        return (
            key.clone(),
            format!(
                "key \"{shown}\": unknown value \"{name}\" (expected one of {})",
                expected.join(", ")
            ),
        );
    }
    // config's own enum deserializer: "enum ScanMode does not have variant constructor usbb".
    if let Some((_, name)) = message.split_once("does not have variant constructor ") {
        let shown = key.as_deref().unwrap_or("value");
        let last = shown.rsplit('.').next().unwrap_or(shown);
        let hint = match choices(last) {
            Some(names) => format!(" (expected one of {})", names.join(", ")),
            None => String::new(),
        };
        return (
            key.clone(),
            format!("key \"{shown}\": unknown value \"{name}\"{hint}"),
        );
    }
    match &key {
        Some(k) => (key.clone(), format!("key \"{k}\": {message}")),
        None => (None, message),
    }
}

/// The choices of the settings that are enums, by their last key segment (config's enum
/// errors do not list them): the names each setting's type accepts, listed by the type.
pub fn choices(last_key: &str) -> Option<Vec<String>> {
    use dgt_core::bughouse::{RankReading, Regulation};
    use dgt_core::config::{FivefoldReading, FlagCounts, SettingChoices};
    use dgt_core::input::{ClockSide, Supervision};
    Some(match last_key {
        "drop_ranks" => RankReading::setting_names(),
        "edition" => dgt_core::arbiter::Edition::setting_names(),
        "fivefold" => FivefoldReading::setting_names(),
        "flag_counts" => FlagCounts::setting_names(),
        "rules" => Regulation::setting_names(),
        "scan" => crate::edge::serial::ScanMode::setting_names(),
        "supervision" => Supervision::setting_names(),
        "white_clock_side" => ClockSide::setting_names(),
        _ => return None,
    })
}

/// Every enum-like setting [`choices`] knows, by its last key segment.
pub const CHOICE_KEYS: &[&str] = &[
    "drop_ranks",
    "edition",
    "fivefold",
    "flag_counts",
    "rules",
    "scan",
    "supervision",
    "white_clock_side",
];

/// serde's names of integer types, as a user would say them.
fn plain_expected(expected: &str) -> &str {
    if expected.starts_with("an unsigned") && expected.ends_with("integer") {
        "a whole number, 0 or more"
    } else if expected.starts_with("a signed") && expected.ends_with("integer") {
        "a whole number"
    } else {
        expected
    }
}

/// The names between backticks in serde's "expected one of `a`, `b`".
fn backticked(text: &str) -> Vec<String> {
    text.split('`')
        .enumerate()
        .filter(|(i, _)| i % 2 == 1)
        .map(|(_, s)| s.to_string())
        .collect()
}

/// `config` writes `tables[0]board` for `tables[0].board`.
fn fix_key(key: &str) -> String {
    let mut out = String::with_capacity(key.len() + 4);
    let mut after_bracket = false;
    for c in key.chars() {
        if after_bracket && c != '.' && c != '[' {
            out.push('.');
        }
        after_bracket = c == ']';
        out.push(c);
    }
    out
}

/// The caller names the variable; `config`'s own " in the environment" tail goes. (Files
/// are read from text, so `config` knows no file name to append.)
fn strip_origin(message: &str) -> String {
    message
        .strip_suffix(" in the environment")
        .unwrap_or(message)
        .to_string()
}

/// toml's multi-line report (position, excerpt, caret, message) in one line.
fn one_line_parse_error(text: &str) -> String {
    let mut lines = text.lines().map(str::trim_end).filter(|l| !l.is_empty());
    let head = lines.next().unwrap_or("syntax error").to_string();
    let reason = text
        .lines()
        .map(str::trim)
        .rfind(|l| !l.is_empty() && !l.starts_with('|') && !l.contains(" | ") && *l != head)
        .unwrap_or("");
    let head = head.replace("TOML parse error", "TOML syntax error");
    if reason.is_empty() {
        head
    } else {
        format!("{head}: {reason}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_keys_nest_with_double_underscores_and_keep_label_case() {
        assert_eq!(env_key("DGT_ARBITER_LISTEN"), "listen");
        assert_eq!(
            env_key("DGT_ARBITER_SERVER__ARBITER_TOKEN"),
            "server.arbiter_token"
        );
        assert_eq!(
            env_key("DGT_ARBITER_CORE__BOARDS__Top-1__EDITION"),
            "core.boards.Top-1.edition"
        );
        assert_eq!(
            env_key("DGT_ARBITER_SERIAL__LABELS__13116"),
            "serial.labels.13116"
        );
    }

    #[test]
    fn config_keys_get_their_dots_back() {
        assert_eq!(fix_key("tables[0]board"), "tables[0].board");
        assert_eq!(fix_key("a[1][2]b.c"), "a[1][2].b.c");
        assert_eq!(fix_key("serial.ports[1].path"), "serial.ports[1].path");
    }

    #[test]
    fn toml_errors_fit_on_one_line() {
        let text = "TOML parse error at line 1, column 5\n  |\n1 | n = = 3\n  |     ^\nextra `=`, expected nothing\n";
        assert_eq!(
            one_line_parse_error(text),
            "TOML syntax error at line 1, column 5: extra `=`, expected nothing"
        );
    }
}
