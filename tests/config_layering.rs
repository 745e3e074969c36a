//! The configuration layers: built-in defaults ← system file ← `--config` file ←
//! `DGT_ARBITER_*` environment, and the shipped files `config/default.toml` and
//! `config/example-venue.toml`.
//!
//! The environment is given to `load_sources` explicitly, so tests never touch the process
//! environment; the one test of the real environment runs this binary again as a child.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use dgt_arbiter::edge::serial::ScanMode;
use dgt_arbiter::settings::{
    self, Layer, Role, Settings, SettingsError, check, check_loaded, load_sources,
};

fn repo_file(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(name)
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn env(vars: &[(&str, &str)]) -> Vec<(String, String)> {
    vars.iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

fn no_env() -> Vec<(String, String)> {
    Vec::new()
}

#[test]
fn default_toml_loads_to_exactly_the_built_in_defaults() {
    let loaded = load_sources(None, Some(&repo_file("config/default.toml")), no_env()).unwrap();
    assert_eq!(loaded.settings, Settings::default());
}

#[test]
fn default_toml_comments_every_key() {
    let text = std::fs::read_to_string(repo_file("config/default.toml")).unwrap();
    // Every key line belongs to a paragraph (lines between blank lines) with a comment.
    for paragraph in text.split("\n\n") {
        let has_comment = paragraph.lines().any(|l| l.trim_start().starts_with('#'));
        for line in paragraph.lines() {
            let l = line.trim();
            if l.contains(" = ") && !l.starts_with('#') {
                assert!(
                    has_comment,
                    "config/default.toml: `{l}` has no comment above it"
                );
            }
        }
    }
}

/// The keys a table accepts, as the loader lists them for an unknown key.
fn accepted_keys(dir: &Path, toml: &str) -> Vec<String> {
    let path = write(dir, "probe.toml", toml);
    let err = load_sources(None, Some(&path), no_env()).unwrap_err();
    let text = err.to_string();
    let list = text
        .split("expected one of ")
        .nth(1)
        .unwrap_or_else(|| panic!("no key list in {text}"));
    list.trim_end_matches(')')
        .split(", ")
        .map(String::from)
        .collect()
}

#[test]
fn default_toml_documents_every_key_the_loader_accepts() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(repo_file("config/default.toml")).unwrap();
    let probes = [
        "zzz = 1",
        "[serial]\nzzz = 1",
        "[core]\nzzz = 1",
        "[core.boards.x]\nzzz = 1",
        "[server]\nzzz = 1",
        "[journal]\nzzz = 1",
        "[event]\nzzz = 1",
        "[cluster]\nzzz = 1",
        "[[tables]]\nboard = 1\nzzz = 1",
        "[serial]\nports = [{ path = \"/dev/x\", zzz = 1 }]",
    ];
    let mut missing = BTreeSet::new();
    for probe in probes {
        for key in accepted_keys(dir.path(), probe) {
            let documented = text.lines().any(|l| {
                let l = l.trim_start_matches(['#', ' ']);
                l.starts_with(&format!("{key} ="))
                    || l.starts_with(&format!("{{ {key} ="))
                    || l.contains(&format!(", {key} ="))
                    || l.contains(&format!("{{ {key} ="))
                    || l.starts_with(&format!("[{key}]"))
                    || l.starts_with(&format!("[serial.{key}]"))
                    || l.starts_with(&format!("[core.{key}]"))
            });
            if !documented {
                missing.insert(format!("{probe:?}: {key}"));
            }
        }
    }
    assert!(missing.is_empty(), "undocumented keys: {missing:?}");
}

#[test]
fn example_venue_passes_check_and_maps_sixty_boards() {
    // As shipped, its placeholder tokens must be replaced: check-config says so.
    let shipped = load_sources(
        None,
        Some(&repo_file("config/example-venue.toml")),
        no_env(),
    )
    .unwrap();
    let keys: Vec<String> = check(&shipped.settings)
        .into_iter()
        .map(|p| {
            assert!(p.problem.contains("placeholder"), "{p}");
            p.key
        })
        .collect();
    assert_eq!(keys, ["server.arbiter_token", "server.viewer_token"]);
    // With real tokens (here from the environment, as a drop-in gives them) it passes.
    let loaded = load_sources(
        None,
        Some(&repo_file("config/example-venue.toml")),
        env(&[
            (
                "DGT_ARBITER_SERVER__ARBITER_TOKEN",
                "3f9c1e0b7a5d42e8b6c0d1f2a3b4c5d6",
            ),
            (
                "DGT_ARBITER_SERVER__VIEWER_TOKEN",
                "9a8b7c6d5e4f30211203f4e5d6c7b8a9",
            ),
        ]),
    )
    .unwrap();
    let problems = check(&loaded.settings);
    assert!(
        problems.is_empty(),
        "example-venue.toml: {}",
        problems
            .iter()
            .map(|p| p.to_string())
            .collect::<Vec<_>>()
            .join("\n")
    );
    let s = &loaded.settings;
    assert_eq!(s.tables.len(), 60);
    let labels = s.board_labels();
    let boards: BTreeSet<&str> = labels.values().map(String::as_str).collect();
    assert_eq!(boards.len(), 60, "60 board labels");
    // Table 23's board was swapped: both serial numbers play on board "23".
    assert_eq!(labels["13123"], "23");
    assert_eq!(labels["20417"], "23");
    assert_eq!(labels.len(), 61);
    let text = |tc: Option<&dgt_core::time_control::TimeControl>| tc.map(|t| t.text.clone());
    assert_eq!(
        text(s.core.time_control.as_ref()).as_deref(),
        Some("5400+30")
    );
    assert_eq!(
        text(s.core.for_board("55").time_control.as_ref()).as_deref(),
        Some("1500+10")
    );
    assert_eq!(
        s.core.for_board("3").white_clock_side,
        Some(dgt_core::input::ClockSide::Right)
    );
    assert_eq!(s.serial.scan, ScanMode::Dgt);
    assert!(check_loaded(&loaded).unwrap().contains("60 tables"));
}

#[test]
fn later_layers_win_and_tables_merge_key_by_key() {
    let dir = tempfile::tempdir().unwrap();
    let system = write(
        dir.path(),
        "system.toml",
        r#"
        listen = "127.0.0.1:2000"
        [event]
        name = "System Open"
        round = 2
        [serial.labels]
        "11111" = "a"
        [[tables]]
        board = 1
        serials = ["10001"]
        [[tables]]
        board = 2
        serials = ["10002"]
        "#,
    );
    let file = write(
        dir.path(),
        "venue.toml",
        r#"
        listen = "127.0.0.1:3000"
        [event]
        round = 3
        [serial.labels]
        "22222" = "b"
        [[tables]]
        board = 9
        serials = ["10009"]
        "#,
    );
    let loaded = load_sources(
        Some(&system),
        Some(&file),
        env(&[("DGT_ARBITER_LISTEN", "127.0.0.1:4000")]),
    )
    .unwrap();
    let s = &loaded.settings;
    assert_eq!(s.listen, "127.0.0.1:4000", "the environment wins");
    assert_eq!(s.event.round, 3, "--config wins over the system file");
    assert_eq!(s.event.name, "System Open", "unset keys fall through");
    assert_eq!(s.event.site, "?", "defaults under everything");
    assert_eq!(s.serial.labels.len(), 2, "maps merge");
    assert_eq!(s.tables.len(), 1, "lists are replaced whole");
    assert_eq!(s.tables[0].board, 9);
    assert_eq!(
        loaded.layers,
        vec![
            Layer::Defaults,
            Layer::SystemFile {
                path: system.clone(),
                present: true
            },
            Layer::File { path: file.clone() },
            Layer::Environment {
                variables: vec!["DGT_ARBITER_LISTEN".into()]
            },
        ]
    );
}

#[test]
fn the_system_file_is_skipped_when_absent_but_the_config_file_must_exist() {
    let dir = tempfile::tempdir().unwrap();
    let absent = dir.path().join("nothing.toml");
    let loaded = load_sources(Some(&absent), None, no_env()).unwrap();
    assert_eq!(loaded.settings, Settings::default());
    assert_eq!(
        loaded.layers[1],
        Layer::SystemFile {
            path: absent.clone(),
            present: false
        }
    );
    assert!(loaded.layers[1].to_string().contains("not present"));

    let err = load_sources(None, Some(&absent), no_env()).unwrap_err();
    assert!(matches!(err, SettingsError::Unreadable { .. }));
    assert!(err.to_string().starts_with(&absent.display().to_string()));
}

#[test]
fn environment_variables_nest_with_double_underscores() {
    let loaded = load_sources(
        None,
        None,
        env(&[
            ("DGT_ARBITER_SERVER__ARBITER_TOKEN", "0123456789abcdef0123"),
            ("DGT_ARBITER_CORE__SETTLE_MS", "300"),
            ("DGT_ARBITER_CORE__SUPERVISION", "reduced"),
            ("DGT_ARBITER_CORE__BOARDS__Top-1__EDITION", "fide-2018"),
            ("DGT_ARBITER_JOURNAL__DISABLED", "true"),
            ("DGT_ARBITER_SERIAL__SCAN", "off"),
            ("DGT_ARBITER_SERIAL__LABELS__13116", "007"),
            (
                "DGT_ARBITER_SERVER__ALLOWED_ORIGINS",
                "https://a.example, https://b.example",
            ),
            ("DGT_ARBITER_EVENT__NAME", ""),
            ("OTHER_VARIABLE", "ignored"),
            ("PATH", "/usr/bin"),
        ]),
    )
    .unwrap();
    let s = &loaded.settings;
    // A token of digits keeps its leading zero: values stay strings until typed.
    assert_eq!(
        s.server.arbiter_token.as_deref(),
        Some("0123456789abcdef0123")
    );
    assert_eq!(s.core.settle_ms, 300);
    assert_eq!(s.core.supervision, dgt_core::input::Supervision::Reduced);
    assert_eq!(
        s.core.boards["Top-1"].edition,
        Some(dgt_core::arbiter::Edition::Fide2018),
        "labels keep their case"
    );
    assert!(s.journal.disabled);
    assert_eq!(s.serial.scan, ScanMode::Off);
    assert_eq!(s.serial.labels["13116"], "007");
    assert_eq!(
        s.server.allowed_origins,
        vec!["https://a.example", "https://b.example"]
    );
    assert_eq!(s.event.name, "?", "an empty variable counts as unset");
    let Layer::Environment { variables } = &loaded.layers[1] else {
        panic!("{:?}", loaded.layers)
    };
    assert_eq!(variables.len(), 8, "the empty one is left out");
}

#[test]
fn the_environment_overrides_every_file() {
    let dir = tempfile::tempdir().unwrap();
    let system = write(dir.path(), "system.toml", "[core]\nsettle_ms = 200\n");
    let file = write(dir.path(), "venue.toml", "[core]\nsettle_ms = 220\n");
    let s = load_sources(
        Some(&system),
        Some(&file),
        env(&[("DGT_ARBITER_CORE__SETTLE_MS", "240")]),
    )
    .unwrap()
    .settings;
    assert_eq!(s.core.settle_ms, 240);
}

#[test]
fn runtime_workers_one_for_the_daemon_one_per_core_for_the_hub_unless_set() {
    let workers = |vars: &[(&str, &str)]| {
        let s = load_sources(None, None, env(vars)).unwrap().settings;
        (s.workers(Role::Daemon), s.workers(Role::Hub))
    };
    assert_eq!(workers(&[]), (Some(1), None), "unset");
    assert_eq!(
        workers(&[("DGT_ARBITER_RUNTIME_WORKERS", "0")]),
        (None, None),
        "0: one per core for both"
    );
    assert_eq!(
        workers(&[("DGT_ARBITER_RUNTIME_WORKERS", "4")]),
        (Some(4), Some(4))
    );
}

/// Run as a child by `the_process_environment_is_read`: the variables are set there.
#[test]
#[ignore = "run by the_process_environment_is_read"]
fn child_reads_the_process_environment() {
    let system = std::env::var_os("CHILD_SYSTEM_FILE").expect("run as a child");
    let s = settings::load_layered(Some(Path::new(&system)), None).unwrap();
    assert_eq!(s.event.round, 4, "environment over the system file");
    assert_eq!(s.event.name, "From The System File");
    assert_eq!(
        s.server.arbiter_token.as_deref(),
        Some("a-token-from-the-environment")
    );
}

#[test]
fn the_process_environment_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let system = write(
        dir.path(),
        "system.toml",
        "[event]\nname = \"From The System File\"\nround = 2\n",
    );
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "child_reads_the_process_environment",
            "--ignored",
            "--nocapture",
        ])
        .env("CHILD_SYSTEM_FILE", &system)
        .env("DGT_ARBITER_EVENT__ROUND", "4")
        .env(
            "DGT_ARBITER_SERVER__ARBITER_TOKEN",
            "a-token-from-the-environment",
        )
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("1 passed"),
        "child failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn check_report_summarises_the_layers_and_the_boards() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(
        dir.path(),
        "venue.toml",
        &format!(
            r#"
            [journal]
            path = "{}/journal.sqlite"
            [[tables]]
            board = 1
            serials = ["10001", "10002"]
            "#,
            dir.path().display()
        ),
    );
    let absent = dir.path().join("absent.toml");
    let loaded = load_sources(Some(&absent), Some(&file), no_env()).unwrap();
    let report = check_loaded(&loaded).unwrap();
    assert!(report.contains("built-in defaults"), "{report}");
    assert!(report.contains("not present"), "{report}");
    assert!(report.contains(&file.display().to_string()), "{report}");
    assert!(report.contains("listen: 127.0.0.1:1983"), "{report}");
    assert!(report.contains("1 tables"), "{report}");
    assert!(report.contains("1 with a swapped board"), "{report}");
    assert!(report.contains("journal.sqlite"), "{report}");
}

#[test]
fn check_report_reads_the_named_file() {
    // The system file of this machine may add its own layer; a missing --config file is an
    // error whatever it holds.
    let dir = tempfile::tempdir().unwrap();
    let absent = dir.path().join("venue.toml");
    let err = settings::check_report(Some(&absent)).unwrap_err();
    // A file that cannot be read is a load error, not a list of problems.
    assert!(matches!(err, settings::Refused::Load(_)), "{err}");
    if !Path::new(settings::SYSTEM_FILE).exists() {
        assert!(err.to_string().contains("venue.toml"), "{err}");
    }
}
