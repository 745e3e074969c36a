//! Every kind of configuration error: what loading refuses (syntax, types, unknown keys —
//! naming the file or variable and the key) and what `check` reports (each problem with its
//! key, value and fix). One test per class of error; each fails without the check.

use std::path::PathBuf;

use dgt_arbiter::settings::{Problem, SettingsError, check, check_loaded, load_sources};

struct Venue {
    dir: tempfile::TempDir,
}

impl Venue {
    fn new() -> Self {
        Venue {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn write(&self, name: &str, text: &str) -> PathBuf {
        let path = self.path(name);
        std::fs::write(&path, text).unwrap();
        path
    }

    /// The base layer every test builds on: the journal in the temporary folder, so no
    /// check touches the working directory.
    fn base(&self) -> PathBuf {
        self.write(
            "base.toml",
            &format!(
                "[journal]\npath = \"{}\"\n",
                self.path("journal.sqlite").display()
            ),
        )
    }

    fn load_err(&self, toml: &str) -> SettingsError {
        let file = self.write("venue.toml", toml);
        load_sources(Some(&self.base()), Some(&file), Vec::new())
            .expect_err("the file should not load")
    }

    fn problems(&self, toml: &str) -> Vec<Problem> {
        let file = self.write("venue.toml", toml);
        let loaded = load_sources(Some(&self.base()), Some(&file), Vec::new())
            .unwrap_or_else(|e| panic!("should load: {e}"));
        check(&loaded.settings)
    }
}

fn problems(toml: &str) -> Vec<Problem> {
    Venue::new().problems(toml)
}

/// The problem reported at `key`, whose text contains `words`.
#[track_caller]
fn expect<'a>(problems: &'a [Problem], key: &str, words: &str) -> &'a Problem {
    problems
        .iter()
        .find(|p| p.key == key && p.problem.contains(words))
        .unwrap_or_else(|| {
            panic!(
                "no problem at {key} mentioning {words:?}; got:\n{}",
                lines(problems)
            )
        })
}

#[track_caller]
fn expect_none_at(problems: &[Problem], key: &str) {
    let at: Vec<&Problem> = problems.iter().filter(|p| p.key == key).collect();
    assert!(at.is_empty(), "unexpected problems at {key}: {at:?}");
}

fn lines(problems: &[Problem]) -> String {
    problems
        .iter()
        .map(|p| p.to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

// ---- What loading refuses ----

#[test]
fn a_syntax_error_names_the_file_and_the_line() {
    let v = Venue::new();
    let err = v.load_err("listen = \"127.0.0.1:1983\"\nround = = 3\n");
    let text = err.to_string();
    let file = v.path("venue.toml").display().to_string();
    assert!(text.starts_with(&format!("{file}: ")), "{text}");
    assert!(text.contains("line 2"), "{text}");
    assert!(!text.contains('\n'), "one line: {text}");
}

#[test]
fn an_unknown_key_names_the_key_the_file_and_what_is_expected() {
    let v = Venue::new();
    let err = v.load_err("sereal = { scan = \"usb\" }\n");
    let file = v.path("venue.toml").display().to_string();
    let text = err.to_string();
    assert!(
        text.starts_with(&format!(
            "{file}: unknown key \"sereal\" (expected one of listen, capture, runtime_workers, serial,"
        )),
        "{text}"
    );
    assert_eq!(err.key(), Some("sereal"));
}

#[test]
fn an_unknown_nested_key_names_its_full_path() {
    let err = Venue::new().load_err("[serial]\nsacn = \"usb\"\n");
    assert_eq!(err.key(), Some("serial.sacn"));
    assert!(
        err.to_string().contains(
            "unknown key \"serial.sacn\" (expected one of scan, ports, labels, read_board_log)"
        ),
        "{err}"
    );
    let err = Venue::new().load_err("[core]\nedtion = \"fide-2023\"\n");
    assert_eq!(err.key(), Some("core.edtion"));
    let err = Venue::new().load_err("[core.boards.\"7\"]\nclock_side = \"left\"\n");
    assert_eq!(err.key(), Some("core.boards.7.clock_side"));
}

#[test]
fn an_unknown_key_in_a_table_entry_names_the_entry() {
    let err = Venue::new().load_err(
        "[[tables]]\nboard = 1\nserials = [\"10001\"]\n[[tables]]\nboard = 2\nserial = \"10002\"\n",
    );
    assert_eq!(err.key(), Some("tables[1].serial"), "{err}");
    assert!(
        err.to_string()
            .contains("expected one of board, serials, label"),
        "{err}"
    );
}

#[test]
fn a_wrong_type_names_the_key_and_the_file() {
    let v = Venue::new();
    let err = v.load_err("[core]\nsettle_ms = \"fast\"\n");
    let text = err.to_string();
    assert!(
        text.starts_with(&v.path("venue.toml").display().to_string()),
        "{text}"
    );
    assert!(text.contains("key \"core.settle_ms\""), "{text}");
    assert!(text.contains("\"fast\""), "{text}");
    assert_eq!(err.key(), Some("core.settle_ms"));

    let err = Venue::new().load_err("[[tables]]\nboard = \"seven\"\n");
    assert_eq!(err.key(), Some("tables[0].board"), "{err}");

    let err = Venue::new().load_err("[core]\nsettle_ms = -5\n");
    assert_eq!(err.key(), Some("core.settle_ms"), "{err}");
}

#[test]
fn an_unknown_choice_names_the_key_and_the_choices() {
    let err = Venue::new().load_err("[serial]\nscan = \"usbb\"\n");
    let text = err.to_string();
    assert_eq!(err.key(), Some("serial.scan"), "{text}");
    assert!(text.contains("\"usbb\""), "{text}");
    assert!(text.contains("usb, dgt, off"), "{text}");

    let err = Venue::new().load_err("[core]\nsupervision = \"partial\"\n");
    assert_eq!(err.key(), Some("core.supervision"), "{err}");
    assert!(err.to_string().contains("full, reduced"), "{err}");

    let err = Venue::new().load_err("[core]\nwhite_clock_side = \"top\"\n");
    assert_eq!(err.key(), Some("core.white_clock_side"), "{err}");

    let err = Venue::new().load_err("[core]\nfivefold = \"sometimes\"\n");
    assert_eq!(err.key(), Some("core.fivefold"), "{err}");
    assert!(err.to_string().contains("consecutive, any_five"), "{err}");

    let err = Venue::new().load_err("[core]\nflag_counts = \"never\"\n");
    assert_eq!(err.key(), Some("core.flag_counts"), "{err}");
    assert!(err.to_string().contains("at_fall, when_called"), "{err}");
}

#[test]
fn a_missing_key_in_a_table_entry_is_named() {
    let err = Venue::new().load_err("[[tables]]\nserials = [\"10001\"]\n");
    assert_eq!(err.key(), Some("tables[0].board"), "{err}");
    assert!(err.to_string().contains("missing"), "{err}");
}

#[test]
fn a_missing_config_file_is_named() {
    let v = Venue::new();
    let absent = v.path("no-such-venue.toml");
    let err = load_sources(None, Some(&absent), Vec::new()).unwrap_err();
    assert!(matches!(err, SettingsError::Unreadable { .. }));
    assert!(
        err.to_string()
            .starts_with(&format!("{}: cannot read the file", absent.display())),
        "{err}"
    );
}

#[test]
fn an_error_in_the_system_file_names_the_system_file() {
    let v = Venue::new();
    let system = v.write("system.toml", "lisen = \"0.0.0.0:1983\"\n");
    let file = v.write("venue.toml", "listen = \"127.0.0.1:1983\"\n");
    let err = load_sources(Some(&system), Some(&file), Vec::new()).unwrap_err();
    assert!(
        err.to_string().starts_with(&system.display().to_string()),
        "{err}"
    );
}

#[test]
fn an_error_in_the_environment_names_the_variable() {
    let env = |k: &str, v: &str| vec![(k.to_string(), v.to_string())];
    let err = load_sources(None, None, env("DGT_ARBITER_CORE__SETTLE_MS", "fast")).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("environment variable DGT_ARBITER_CORE__SETTLE_MS: "),
        "{err}"
    );
    assert_eq!(err.key(), Some("core.settle_ms"));

    let err = load_sources(None, None, env("DGT_ARBITER_SEREAL__SCAN", "off")).unwrap_err();
    assert!(
        err.to_string().contains("DGT_ARBITER_SEREAL__SCAN"),
        "{err}"
    );
    assert!(err.to_string().contains("unknown key"), "{err}");

    let err = load_sources(None, None, env("DGT_ARBITER_JOURNAL__DISABLED", "maybe")).unwrap_err();
    assert_eq!(err.key(), Some("journal.disabled"), "{err}");

    let err = load_sources(None, None, env("DGT_ARBITER_TABLES", "1")).unwrap_err();
    assert!(err.to_string().contains("configuration file"), "{err}");
}

// ---- What check reports ----

#[test]
fn a_sound_configuration_has_no_problems() {
    let p = problems(
        r#"
        listen = "0.0.0.0:1983"
        [server]
        arbiter_token = "a-long-arbiter-secret-1"
        viewer_token = "a-long-viewer-secret-22"
        [[tables]]
        board = 1
        serials = ["10001"]
        "#,
    );
    assert!(p.is_empty(), "{}", lines(&p));
}

#[test]
fn a_problem_prints_key_value_problem_and_fix_on_one_line() {
    let p = problems("[serial.labels]\n\"13116\" = \"table-1\"\n\"13117\" = \"table-1\"\n");
    let dup = expect(&p, "serial.labels.\"13117\"", "label used twice");
    assert_eq!(
        dup.to_string(),
        format!(
            "serial.labels.\"13117\" = \"table-1\": label used twice (also for \"13116\"); fix: {}",
            dup.fix
        )
    );
    assert!(!dup.fix.is_empty());
}

#[test]
fn check_loaded_lists_every_problem_one_per_line() {
    let v = Venue::new();
    let file = v.write("venue.toml", "listen = \"nowhere\"\n[event]\nround = 0\n");
    let loaded = load_sources(Some(&v.base()), Some(&file), Vec::new()).unwrap();
    let err = check_loaded(&loaded).unwrap_err().to_string();
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 2, "{err}");
    assert!(lines[0].starts_with("listen = \"nowhere\": "), "{err}");
    assert!(lines[1].starts_with("event.round = 0: "), "{err}");
}

#[test]
fn listen_must_be_an_address() {
    let p = problems("listen = \"localhost:1983\"\n");
    let x = expect(&p, "listen", "not an IP address");
    assert!(x.fix.contains("127.0.0.1:1983"));
    expect(
        &problems("listen = \"127.0.0.1\"\n"),
        "listen",
        "not an IP address",
    );
}

#[test]
fn listening_beyond_loopback_needs_the_arbiter_token() {
    let p = problems("listen = \"0.0.0.0:1983\"\n");
    expect(&p, "listen", "without server.arbiter_token");
    // A viewer token is not enough.
    let p = problems(
        "listen = \"192.168.1.10:1983\"\n[server]\nviewer_token = \"viewer-token-0123456789\"\n",
    );
    expect(&p, "listen", "without server.arbiter_token");
    let p = problems("listen = \"[::1]:1983\"\n");
    expect_none_at(&p, "listen");
}

#[test]
fn the_livechess_api_listens_on_loopback_at_an_address_of_its_own() {
    let p = problems("[server]\nlivechess_listen = \"1982\"\n");
    expect(&p, "server.livechess_listen", "not an IP address");
    let p = problems("[server]\nlivechess = true\nlivechess_listen = \"0.0.0.0:1982\"\n");
    expect(&p, "server.livechess_listen", "only listens on this PC");
    let p = problems("[server]\nlivechess = true\nlivechess_listen = \"127.0.0.1:1983\"\n");
    expect(&p, "server.livechess_listen", "same port as listen");
}

#[test]
fn the_livechess_api_on_the_venue_network_is_read_only() {
    let p = problems(
        "[server]\nlivechess = true\nlivechess_lan = true\nlivechess_listen = \"0.0.0.0:1982\"\n",
    );
    expect_none_at(&p, "server.livechess_listen");
    expect_none_at(&p, "server.livechess_action_origins");
    let p = problems(
        "[server]\nlivechess = true\nlivechess_lan = true\nlivechess_listen = \"0.0.0.0:1982\"\n\
         livechess_action_origins = [\"none\"]\n",
    );
    expect(&p, "server.livechess_action_origins", "read-only");
}

#[test]
fn tokens_must_be_long_url_safe_and_different() {
    let p = problems("[server]\narbiter_token = \"secret\"\nviewer_token = \"view\"\n");
    let short = expect(&p, "server.arbiter_token", "shorter than 16");
    assert!(
        !short.value.contains("secret"),
        "tokens are not printed: {short}"
    );
    expect(&p, "server.viewer_token", "shorter than 16");

    let p = problems("[server]\narbiter_token = \"a token with spaces!\"\n");
    expect(&p, "server.arbiter_token", "URL");

    let p = problems(
        "[server]\narbiter_token = \"same-token-0123456789\"\nviewer_token = \"same-token-0123456789\"\n",
    );
    expect(&p, "server.viewer_token", "same as server.arbiter_token");
}

#[test]
fn allowed_origins_must_be_origins() {
    let p = problems(
        "[server]\nallowed_origins = [\"https://ok.example\", \"https://bad.example/\", \"bad.example\"]\n",
    );
    expect_none_at(&p, "server.allowed_origins[0]");
    expect(&p, "server.allowed_origins[1]", "not an origin");
    expect(&p, "server.allowed_origins[2]", "not an origin");
}

#[test]
fn the_public_delay_is_in_seconds_and_below_a_day() {
    let p = problems("[server]\npublic_delay_s = 900000\n");
    expect(&p, "server.public_delay_s", "more than a day");
}

#[test]
fn no_public_delay_must_be_chosen_explicitly() {
    let p = problems("[server]\npublic_delay_s = 0\n");
    expect(&p, "server.public_delay_s", "no anti-cheating delay");
    let p = problems("[server]\npublic_delay_s = 0\nallow_no_public_delay = true\n");
    expect_none_at(&p, "server.public_delay_s");
}

#[test]
fn placeholder_tokens_from_an_example_are_refused() {
    let p = problems(
        "[server]\narbiter_token = \"example-arbiter-token-REPLACE-ME\"\n\
         viewer_token = \"xxxxxxxxxxxxxxxxxxxxxxxx\"\n",
    );
    let a = expect(&p, "server.arbiter_token", "placeholder");
    assert!(
        !a.value.contains("REPLACE"),
        "the token is hidden: {}",
        a.value
    );
    expect(&p, "server.viewer_token", "placeholder");
    let p = problems("[server]\narbiter_token = \"3f9c1e0b7a5d42e8b6c0d1f2a3b4c5d6\"\n");
    expect_none_at(&p, "server.arbiter_token");
}

#[test]
fn host_names_and_livechess_origins_must_be_well_formed() {
    let p = problems(
        "[server]\nallowed_hosts = [\"arbiter.local\", \"http://x\", \"a b\"]\n\
         livechess_origins = [\"https://lichess.org/\"]\n\
         livechess_action_origins = [\"none\", \"lichess.org\"]\nmax_connections = 0\n",
    );
    expect_none_at(&p, "server.allowed_hosts[0]");
    expect(&p, "server.allowed_hosts[1]", "not a host name");
    expect(&p, "server.allowed_hosts[2]", "not a host name");
    expect(&p, "server.livechess_origins[0]", "not an origin");
    expect_none_at(&p, "server.livechess_action_origins[0]");
    expect(&p, "server.livechess_action_origins[1]", "not an origin");
    expect(&p, "server.max_connections", "outside 1");
}

#[test]
fn tokens_come_from_systemd_credentials_over_every_file() {
    let venue = Venue::new();
    let creds = venue.path("creds");
    std::fs::create_dir(&creds).unwrap();
    std::fs::write(
        creds.join("arbiter_token"),
        "3f9c1e0b7a5d42e8b6c0d1f2a3b4c5d6\n",
    )
    .unwrap();
    let file = venue.write(
        "venue.toml",
        "[server]\narbiter_token = \"example-arbiter-token-REPLACE-ME\"\n",
    );
    let env = vec![(
        "CREDENTIALS_DIRECTORY".to_string(),
        creds.display().to_string(),
    )];
    let loaded = load_sources(Some(&venue.base()), Some(&file), env).unwrap();
    assert_eq!(
        loaded.settings.server.arbiter_token.as_deref(),
        Some("3f9c1e0b7a5d42e8b6c0d1f2a3b4c5d6")
    );
    assert!(check(&loaded.settings).is_empty());
    let report = check_loaded(&loaded).unwrap();
    assert!(report.contains("credentials in"), "{report}");
    assert!(
        !report.contains("3f9c1e0b"),
        "the token is never printed: {report}"
    );
}

/// An unknown edition is refused when the file is read (parsed into `Edition` once, no
/// fall-back to fide-2023), naming the key and the editions there are.
#[test]
fn editions_must_be_known() {
    let err = Venue::new().load_err("[core]\nedition = \"fide-2024\"\n");
    assert_eq!(err.key(), Some("core.edition"));
    let text = err.to_string();
    assert!(
        text.contains(
            "key \"core.edition\": unknown edition of the Laws \"fide-2024\": use one of \
             fide-2005, fide-2017, fide-2018, fide-2023"
        ),
        "{text}"
    );
    let err =
        Venue::new().load_err("[core.boards.\"7\"]\nedition = \"2018\"\n[[tables]]\nboard = 7\n");
    assert!(
        err.to_string()
            .contains("unknown edition of the Laws \"2018\": use one of fide-2005"),
        "{err}"
    );
    let p = problems("[core]\nedition = \"fide-2018\"\n");
    expect_none_at(&p, "core.edition");
}

/// A time control is parsed with its rules when the file is read: a load error naming the
/// key, the fault and how to write it.
#[test]
fn time_controls_must_parse_and_make_sense() {
    let cases = [
        (
            "[core]\ntime_control = \"90min+30s\"\n",
            "core.time_control",
            "not a number",
            "5400+30",
        ),
        (
            "[core.boards.\"7\"]\ntime_control = \"5400:1800+30\"\n[[tables]]\nboard = 7\n",
            "core.boards.7.time_control",
            "only the last period",
            "give every period but the last its moves",
        ),
        (
            "[core.boards.\"8\"]\ntime_control = \"0\"\n[[tables]]\nboard = 8\n",
            "core.boards.8.time_control",
            "period 1 has no time",
            "PGN TimeControl style",
        ),
        (
            "[core.boards.\"9\"]\ntime_control = \"0/5400:1800\"\n[[tables]]\nboard = 9\n",
            "core.boards.9.time_control",
            "period 1 is for 0 moves",
            "PGN TimeControl style",
        ),
    ];
    for (toml, key, fault, fix) in cases {
        let err = Venue::new().load_err(toml);
        let text = err.to_string();
        assert!(
            text.contains(&format!("key \"{key}\": time control")),
            "{key}: {text}"
        );
        assert!(text.contains(fault) && text.contains(fix), "{key}: {text}");
    }
    let ok = problems("[core]\ntime_control = \"40/5400+30:1800+30\"\n");
    assert!(ok.is_empty(), "{}", lines(&ok));
}

#[test]
fn reduced_supervision_is_only_for_rapid_and_blitz() {
    let p = problems("[core]\ntime_control = \"5400+30\"\nsupervision = \"reduced\"\n");
    expect(&p, "core.supervision", "standard time control");
    let p = problems(
        "[core]\ntime_control = \"5400+30\"\n[core.boards.\"7\"]\nsupervision = \"reduced\"\n[core.boards.\"8\"]\nsupervision = \"reduced\"\ntime_control = \"1500+10\"\n[[tables]]\nboard = 7\n[[tables]]\nboard = 8\n",
    );
    expect(&p, "core.boards.\"7\".supervision", "standard time control");
    expect_none_at(&p, "core.boards.\"8\".supervision");
}

#[test]
fn timings_must_be_in_range() {
    let p = problems("[core]\nsettle_ms = 20\npress_wait_ms = 600000\nillegal_position_ms = 0\n");
    expect(&p, "core.settle_ms", "outside 100–2000 ms");
    expect(&p, "core.press_wait_ms", "outside");
    expect(&p, "core.illegal_position_ms", "outside");
    let p = problems("[core]\nsettle_ms = 2000\npress_wait_ms = 1500\n");
    expect(&p, "core.press_wait_ms", "not longer than core.settle_ms");
}

#[test]
fn blitz_must_end_before_rapid() {
    let p = problems("[core]\nblitz_max_minutes = 60\nrapid_max_minutes = 60\n");
    expect(
        &p,
        "core.blitz_max_minutes",
        "not below the rapid bound (60 minutes)",
    );
    // Alone, blitz is compared with FIDE's 60 minutes.
    let p = problems("[core]\nblitz_max_minutes = 75\n");
    expect(
        &p,
        "core.blitz_max_minutes",
        "not below the rapid bound (60 minutes)",
    );
    let p = problems("[core]\nblitz_max_minutes = 0\n");
    expect(&p, "core.blitz_max_minutes", "no game would be blitz");
}

#[test]
fn per_board_settings_must_name_a_board() {
    let p = problems(
        "[core.boards.\"table-7\"]\nwhite_clock_side = \"left\"\n[core.boards.board-13116]\nedition = \"fide-2018\"\n[core.boards.\"1\"]\nedition = \"fide-2018\"\n[[tables]]\nboard = 1\n",
    );
    expect(&p, "core.boards.table-7", "no board is labelled");
    expect_none_at(&p, "core.boards.board-13116");
    expect_none_at(&p, "core.boards.\"1\"");
}

#[test]
fn serial_ports_are_absolute_paths_listed_once_with_plain_labels() {
    let p = problems(
        "[serial]\nports = [{ path = \"ttyACM0\" }, { path = \"/dev/ttyACM1\", label = \"table 1\" }, { path = \"/dev/ttyACM1\" }]\n",
    );
    let x = expect(&p, "serial.ports[0].path", "not an absolute");
    assert_eq!(x.value, "\"ttyACM0\"");
    expect(&p, "serial.ports[1].label", "URLs");
    expect(&p, "serial.ports[2].path", "same port as serial.ports[1]");
    let p =
        problems("[serial]\nports = [{ path = \"/dev/ttyUSB0\", bus = true, label = \"t1\" }]\n");
    expect(&p, "serial.ports[0].label", "bus line");
}

#[test]
fn a_scan_turned_off_needs_ports() {
    let p = problems("[serial]\nscan = \"off\"\n");
    expect(&p, "serial.scan", "no port would ever be opened");
    let p = problems("[serial]\nscan = \"off\"\nports = [{ path = \"/dev/ttyACM0\" }]\n");
    expect_none_at(&p, "serial.scan");
}

#[test]
fn serial_labels_need_five_digit_serials_plain_labels_used_once() {
    let p = problems(
        "[serial.labels]\n\"1311\" = \"a\"\n\"13116\" = \"table/1\"\n\"13117\" = \"b\"\n\"13118\" = \"b\"\n",
    );
    expect(&p, "serial.labels.\"1311\"", "not a board serial number");
    expect(&p, "serial.labels.\"13116\"", "URLs");
    expect(&p, "serial.labels.\"13118\"", "label used twice");
}

#[test]
fn table_numbers_start_at_one() {
    let p = problems("[[tables]]\nboard = 0\nserials = [\"10001\"]\n");
    expect(&p, "tables[0].board", "start at 1");
}

#[test]
fn a_table_is_listed_once() {
    let p = problems(
        "[[tables]]\nboard = 7\nserials = [\"10001\"]\n[[tables]]\nboard = 7\nserials = [\"10002\"]\n",
    );
    expect(&p, "tables[1].board", "listed twice");
    let p = problems(
        "[[tables]]\nboard = 7\nlabel = \"x\"\n[[tables]]\nboard = 8\nlabel = \"x\"\n[[tables]]\nboard = 9\nlabel = \"bad label\"\n",
    );
    expect(&p, "tables[1].label", "listed twice");
    expect(&p, "tables[2].label", "URLs");
    // Two sections with the same board number, told apart by their labels.
    let p = problems(
        "[[tables]]\nboard = 7\nlabel = \"a-7\"\n[[tables]]\nboard = 7\nlabel = \"b-7\"\n",
    );
    assert!(p.is_empty(), "{}", lines(&p));
}

#[test]
fn table_serials_are_five_digits_and_listed_once() {
    let p = problems("[[tables]]\nboard = 1\nserials = [\"13116\", \"1311X\", \"13116\"]\n");
    expect(&p, "tables[0].serials[1]", "not a board serial number");
    expect(&p, "tables[0].serials[2]", "listed twice");
}

#[test]
fn a_swapped_board_shares_its_table_but_a_board_is_at_one_table_only() {
    // The spare 20455 replaced 13116 at table 7: allowed.
    let p = problems("[[tables]]\nboard = 7\nserials = [\"13116\", \"20455\"]\n");
    assert!(p.is_empty(), "{}", lines(&p));
    // The same board at tables 7 and 9: an error.
    let p = problems(
        "[[tables]]\nboard = 7\nserials = [\"13116\"]\n[[tables]]\nboard = 9\nserials = [\"13116\"]\n",
    );
    let x = expect(&p, "tables[1].serials[0]", "at two tables");
    assert!(
        x.problem.contains("\"7\"") && x.problem.contains("\"9\""),
        "{x}"
    );
}

#[test]
fn serial_labels_and_the_table_map_agree() {
    let p = problems(
        "[serial.labels]\n\"13116\" = \"top\"\n\"13117\" = \"7\"\n\"13118\" = \"8\"\n[[tables]]\nboard = 7\nserials = [\"13116\"]\n[[tables]]\nboard = 8\nserials = [\"13118\"]\n",
    );
    // 13116 is at table 7 by the map, "top" by serial.labels.
    expect(
        &p,
        "serial.labels.\"13116\"",
        "puts board 13116 at table \"7\"",
    );
    // 13117 borrows table 7's label without being in its entry.
    let x = expect(&p, "serial.labels.\"13117\"", "label used twice");
    assert!(x.fix.contains("tables[0].serials"), "{x}");
    // 13118 says the same as the map: fine.
    expect_none_at(&p, "serial.labels.\"13118\"");
}

#[test]
fn the_journal_folder_must_exist_and_be_writable() {
    let v = Venue::new();
    let missing = v.path("no-such-folder").join("journal.sqlite");
    let p = v.problems(&format!("[journal]\npath = \"{}\"\n", missing.display()));
    let x = expect(&p, "journal.path", "does not exist");
    assert!(x.fix.contains("/var/lib/dgt-arbiter"), "{x}");

    let p = v.problems(&format!(
        "[journal]\npath = \"{}\"\n",
        v.dir.path().display()
    ));
    expect(&p, "journal.path", "is a folder");

    // Disabled: no journal, nothing to check.
    let p = v.problems(&format!(
        "[journal]\ndisabled = true\npath = \"{}\"\n",
        missing.display()
    ));
    expect_none_at(&p, "journal.path");
}

#[test]
fn broadcast_folders_must_be_writable_distinct_and_need_the_journal() {
    let v = Venue::new();
    let deep = v.path("a").join("b").join("broadcast");
    let p = v.problems(&format!(
        "[journal]\nbroadcast_dir = \"{}\"\n",
        deep.display()
    ));
    expect(&p, "journal.broadcast_dir", "cannot be written");

    let here = v.path("broadcast");
    let p = v.problems(&format!(
        "[journal]\nbroadcast_dir = \"{0}\"\npublic_broadcast_dir = \"{0}\"\n",
        here.display()
    ));
    expect_none_at(&p, "journal.broadcast_dir");
    expect(&p, "journal.public_broadcast_dir", "same folder");
    assert!(!here.exists(), "check creates nothing");

    let p = v.problems(&format!(
        "[journal]\ndisabled = true\nbroadcast_dir = \"{}\"\n",
        here.display()
    ));
    expect(&p, "journal.broadcast_dir", "journal.disabled");
}

#[test]
fn the_capture_file_must_be_creatable() {
    let v = Venue::new();
    let missing = v.path("nope").join("capture.jsonl");
    let p = v.problems(&format!("capture = \"{}\"\n", missing.display()));
    expect(&p, "capture", "does not exist");
    let p = v.problems(&format!("capture = \"{}\"\n", v.dir.path().display()));
    expect(&p, "capture", "is a folder");
    let ok = v.problems(&format!("capture = \"{}\"\n", v.path("c.jsonl").display()));
    expect_none_at(&ok, "capture");
}

#[test]
fn rounds_count_from_one_and_names_are_not_empty() {
    let p = problems("[event]\nround = 0\nname = \"\"\nsite = \" \"\n");
    expect(&p, "event.round", "from 1");
    expect(&p, "event.name", "empty");
    expect(&p, "event.site", "empty");
}

#[test]
fn the_round_date_is_a_pgn_date() {
    let p = problems("[event]\ndate = \"23/11/2026\"\n");
    expect(&p, "event.date", "not a PGN date");
    expect_none_at(&problems("[event]\ndate = \"2026.11.??\"\n"), "event.date");
}

#[test]
fn check_does_not_depend_on_the_file_it_came_from() {
    // The same problems from a file and from the environment.
    let v = Venue::new();
    let loaded = load_sources(
        Some(&v.base()),
        None,
        vec![("DGT_ARBITER_LISTEN".to_string(), "0.0.0.0:1983".to_string())],
    )
    .unwrap();
    expect(
        &check(&loaded.settings),
        "listen",
        "without server.arbiter_token",
    );
}

#[test]
fn bughouse_matches_need_two_known_boards_each() {
    let p = problems(
        "[core]\nbughouse = [{ boards = [\"7\", \"7\"] }, { boards = [\"7\", \"8\"] }, { boards = [\"8\", \"12\"], rules = \"flemish\" }]\n[[tables]]\nboard = 7\n[[tables]]\nboard = 8\n",
    );
    expect(&p, "core.bughouse[0].boards", "two different boards");
    expect(&p, "core.bughouse[2].boards", "already in core.bughouse[1]");
    expect(&p, "core.bughouse[2].boards", "no board is labelled \"12\"");
    expect_none_at(&p, "core.bughouse[1].boards");

    let err = Venue::new()
        .load_err("[core]\nbughouse = [{ boards = [\"1\", \"2\"], rules = \"fide\" }]\n");
    assert!(
        err.to_string().contains("djc-stein, knsb-2000, flemish"),
        "{err}"
    );

    // A good match loads and the summary names it.
    let v = Venue::new();
    let file = v.write(
        "venue.toml",
        "[core]\nbughouse = [{ boards = [\"7\", \"8\"], drop_ranks = \"absolute\" }]\n[[tables]]\nboard = 7\n[[tables]]\nboard = 8\n",
    );
    let loaded = load_sources(Some(&v.base()), Some(&file), Vec::new()).unwrap();
    let summary = check_loaded(&loaded).unwrap();
    assert!(
        summary.contains(
            "bughouse match 7 + 8 under bughouse-djc-stein (team A White on 7), drop ranks absolute"
        ),
        "{summary}"
    );
}

#[test]
fn sections_and_arbiter_accounts_are_checked() {
    let found = problems(
        r#"
[[sections]]
name = "Open A"
tables = ["1-40"]
[[sections]]
name = "Open B"
tables = ["40-80", "9-3"]
[[server.arbiters]]
name = "Ana"
role = "floor"
token = "ana-floor-secret-00002"
sections = ["Open C"]
[[server.arbiters]]
name = "Ana"
role = "floor"
token = "short"
[[server.arbiters]]
name = "Carl"
role = "chief"
token = "ana-floor-secret-00002"
"#,
    );
    expect(&found, "sections[1].tables", "not a range");
    expect(
        &found,
        "server.arbiters[0].sections[0]",
        "no [[sections]] entry",
    );
    expect(&found, "server.arbiters[1].name", "another account");
    expect(&found, "server.arbiters[1].token", "shorter than 16");
    expect(&found, "server.arbiters[1].sections", "covers no board");
    expect(
        &found,
        "server.arbiters[2].token",
        "the same as server.arbiters[0].token",
    );

    let found = problems(
        r#"
[[sections]]
name = "Open A"
tables = ["1-40"]
[[sections]]
name = "Open B"
tables = [40, "41-80"]
"#,
    );
    expect(
        &found,
        "sections[1].tables",
        "table 40 is also in section \"Open A\"",
    );

    // A chief's account lets the dashboard listen beyond this PC, as the arbiter token does.
    let fine = problems(
        r#"
listen = "0.0.0.0:1983"
[[sections]]
name = "Open A"
tables = ["1-40"]
[[server.arbiters]]
name = "Carl"
role = "chief"
token = "carl-chief-secret-0001"
[[server.arbiters]]
name = "Ana"
role = "floor"
token = "ana-floor-secret-00002"
sections = ["Open A"]
"#,
    );
    assert!(fine.is_empty(), "{}", lines(&fine));
}

/// Where each enum-like setting is written in a venue file, `{}` standing for its value.
fn choice_toml(key: &str) -> String {
    match key {
        "rules" | "drop_ranks" => format!(
            "[core]\nbughouse = [{{ boards = [\"7\", \"8\"], {key} = \"{{}}\" }}]\n[[tables]]\nboard = 7\n[[tables]]\nboard = 8\n"
        ),
        "scan" => "[serial]\nscan = \"{}\"\n".to_string(),
        _ => format!("[core]\n{key} = \"{{}}\"\n"),
    }
}

/// One list of names per enum-like setting: every name the error message offers loads, and a
/// name that is none of them is refused with exactly that list. (`rules = "knsb-2000"`, the
/// documented spelling, was refused while the message offered it.)
#[test]
fn every_offered_choice_loads_and_the_refusal_lists_them_all() {
    for key in dgt_arbiter::settings::CHOICE_KEYS {
        let names = dgt_arbiter::settings::choices(key).expect("a listed key has choices");
        assert!(names.len() >= 2, "{key}: {names:?}");
        let toml = choice_toml(key);
        for name in &names {
            let v = Venue::new();
            let file = v.write("venue.toml", &toml.replace("{}", name));
            if let Err(e) = load_sources(Some(&v.base()), Some(&file), Vec::new()) {
                panic!("{key} = \"{name}\" is offered but refused: {e}");
            }
        }
        let err = Venue::new().load_err(&toml.replace("{}", "no-such-choice"));
        assert!(err.to_string().contains(&names.join(", ")), "{key}: {err}");
    }
}

/// The manual, the docs and the example configurations spell each choice as the parser
/// does: every `key = "value"` of an enum-like setting names one of its choices.
#[test]
fn the_documentation_spells_every_choice_as_the_parser_does() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = vec![root.join("README.md")];
    for dir in ["docs", "config"] {
        for entry in std::fs::read_dir(root.join(dir)).unwrap() {
            let path = entry.unwrap().path();
            if matches!(
                path.extension().and_then(|e| e.to_str()),
                Some("md" | "toml")
            ) {
                files.push(path);
            }
        }
    }
    let mut seen = 0;
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        for key in dgt_arbiter::settings::CHOICE_KEYS {
            let names = dgt_arbiter::settings::choices(key).unwrap();
            let pattern = format!("{key} = \"");
            for (at, _) in text.match_indices(&pattern) {
                let before = text[..at].chars().next_back();
                if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                    continue;
                }
                let rest = &text[at + pattern.len()..];
                let value = rest.split('"').next().unwrap_or("");
                assert!(
                    names.iter().any(|n| n == value),
                    "{}: {key} = \"{value}\" is not one of {}",
                    file.display(),
                    names.join(", ")
                );
                seen += 1;
            }
        }
    }
    assert!(seen > 0, "no documented choice found in {files:?}");
}
