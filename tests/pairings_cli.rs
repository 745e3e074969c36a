//! `dgt-arbiter pairings` as an arbiter runs it: a TRF checked and imported into the
//! journal before the round, the real game played on table 1's board, then `export pgn`
//! with the players' tags, the results TRF, and a journal that still replays exactly.

mod daemon_processes;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use dgt_core::{Core, CoreConfig};
use dgt_journal::{Batch, Journal};

const TRF: &str = "crates/dgt-pairings/tests/samples/zomeropen-r3.trf";

fn root() -> PathBuf {
    dgt_testkit::fixtures::workspace_root()
}

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dgt-arbiter"))
        .args(args)
        .env_remove("DGT_ARBITER_TOKEN")
        .current_dir(root())
        .output()
        .expect("the binary runs")
}

/// Round 3 of the TRF as `pairings import` lists it: what the arbiter checks before and
/// after importing.
const ROUND_3: &str = concat!(
    "round 3: 4 tables, 1 byes (trf)\n",
    "  table   1 (board 1): Vermeer, Anna - Jansen, Eva\n",
    "  table   2 (board 2): de Vries, Pieter - Bakker, Jan\n",
    "  table   3 (board 3): Smit, Tom - Bos, Ruud\n",
    "  table   4 (board 4): Dekker, Ilse - Visser, Kees\n",
    "  bye (U): Mulder, Lotte\n",
);

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Settings whose daemon port nothing listens on (the journal import checks it).
fn settings(dir: &Path) -> PathBuf {
    let path = dir.join("venue.toml");
    std::fs::write(
        &path,
        "listen = \"127.0.0.1:9\"\n[event]\nname = \"Zomeropen\"\n",
    )
    .unwrap();
    path
}

/// The real game, relabelled to board "1", appended after what the journal holds.
fn play_real_game(journal: &Path) {
    let capture = dgt_testkit::fixtures::real_game_capture();
    let inputs = dgt_core::capture::parse_capture(&capture).unwrap();
    let mut j = Journal::open(journal).unwrap();
    let (mut core, _, recovered): (Core, _, _) =
        dgt_journal::recover_collecting(&j, CoreConfig::default()).unwrap();
    let offset = recovered.last_t_ms + 1;
    let mut batch = Batch::new();
    for mut input in inputs {
        input.board = "1".into();
        input.t_ms += offset;
        let events = core.handle(&input);
        batch.record_input(input, events);
    }
    j.append(&batch).unwrap();
}

#[test]
fn a_bad_file_is_refused_whole_with_its_lines() {
    let dir = tempfile::tempdir().unwrap();
    let trf = std::fs::read_to_string(root().join(TRF)).unwrap();
    let bad = dir.path().join("bad.trf");
    std::fs::write(&bad, trf.replace("   3 w 1     1 b", "   3 w 1     7 b")).unwrap();
    let journal = dir.path().join("j.sqlite");
    let out = run(&[
        "pairings",
        "import",
        bad.to_str().unwrap(),
        "--round",
        "3",
        "--journal",
        journal.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    // The arbiter reads every problem with its line and its fix.
    assert_eq!(
        text(&out.stderr),
        format!(
            "dgt-arbiter pairings import: {} has 2 problem(s); nothing was imported:\n{}",
            bad.display(),
            concat!(
                "line 10: round 3: player 1 plays 4, but player 4 (line 13) does not play 1; fix: make both players' round entries name each other\n",
                "line 13: round 3: player 4 plays 7, but player 7 (line 16) does not play 4; fix: make both players' round entries name each other\n",
            )
        )
    );
    assert!(!journal.exists(), "nothing written");
}

#[test]
fn imported_before_the_round_the_game_carries_the_pairing_out() {
    let dir = tempfile::tempdir().unwrap();
    let config = settings(dir.path());
    let journal = dir.path().join("journal.sqlite");
    Journal::open(&journal).unwrap();

    let check = run(&["pairings", "import", TRF, "--round", "3", "--check"]);
    assert!(check.status.success(), "{}", text(&check.stderr));
    // The arbiter reads the round as it would be imported.
    assert_eq!(text(&check.stdout), ROUND_3);

    let out = run(&[
        "pairings",
        "import",
        TRF,
        "--round",
        "3",
        "--config",
        config.to_str().unwrap(),
        "--journal",
        journal.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    // The arbiter reads the round imported and where it went.
    assert_eq!(
        text(&out.stdout),
        format!(
            "{ROUND_3}round 3: journaled as event 1 in {}\n",
            journal.display()
        )
    );

    play_real_game(&journal);
    // The journal replays exactly with the pairings in it.
    let j = Journal::open_read_only(&journal).unwrap();
    let report = dgt_journal::recover(&j, CoreConfig::default()).unwrap().1;
    assert!(report.is_exact(), "{report:?}");

    let pgn = run(&[
        "export",
        "pgn",
        "--journal",
        journal.to_str().unwrap(),
        "--config",
        config.to_str().unwrap(),
    ]);
    assert!(pgn.status.success(), "{}", text(&pgn.stderr));
    let pgn = text(&pgn.stdout);
    for tag in [
        "[Event \"Zomeropen Testdorp 2025\"]",
        "[Round \"3.1\"]",
        "[White \"Vermeer, Anna\"]",
        "[Black \"Jansen, Eva\"]",
        "[WhiteFideId \"1000001\"]",
        "[WhiteElo \"2301\"]",
        "[BlackElo \"2105\"]",
        "[Date \"2025.07.05\"]",
    ] {
        assert!(pgn.contains(tag), "{tag} missing:\n{pgn}");
    }
    let result = pgn
        .lines()
        .find_map(|l| l.strip_prefix("[Result \""))
        .and_then(|r| r.strip_suffix("\"]"))
        .unwrap()
        .to_string();

    let out = run(&[
        "pairings",
        "results",
        "--round",
        "3",
        "--format",
        "trf",
        "--journal",
        journal.to_str().unwrap(),
        "--config",
        config.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let trf = text(&out.stdout);
    let mut problems = dgt_pairings::Problems::default();
    let players = dgt_pairings::trf::players(&trf, &mut problems);
    let code = |s: u32| {
        players.iter().find(|p| p.start == s).unwrap().rounds[2]
            .unwrap()
            .result
    };
    let expected = dgt_pairings::trf::codes(&result).map_or((' ', ' '), |c| c);
    assert_eq!((code(1), code(4)), expected, "result {result}");
    // Tables 2-4 had no game: named on stderr.
    assert!(
        text(&out.stderr).contains("no result yet at table(s) 2, 3, 4")
            || (expected == (' ', ' ') && text(&out.stderr).contains("1, 2, 3, 4")),
        "{}",
        text(&out.stderr)
    );
}

const ARBITER: &str = "3f9c1e0b7a5d42e8b6c0d1f2a3b4c5d6";

/// Without `--journal` the pairings go to the running daemon by REST with the arbiter
/// token; a wrong token and a daemon that does not answer are each told with their fix.
#[test]
fn imported_through_the_running_daemon_with_its_token() {
    let dir = tempfile::tempdir().unwrap();
    let import = |url: &str, token: &str| {
        run(&[
            "pairings", "import", TRF, "--round", "3", "--url", url, "--token", token,
        ])
    };
    let nobody = import("127.0.0.1:9", ARBITER);
    assert_eq!(nobody.status.code(), Some(2));
    // The arbiter reads why and the fix.
    assert_eq!(
        text(&nobody.stderr),
        "dgt-arbiter pairings import: cannot reach the daemon at 127.0.0.1:9 (io: Connection refused (os error 111)); fix: start it (systemctl start dgt-arbiter), give its address with --url, or import into a stopped daemon's journal with --journal\n"
    );

    let config = dir.path().join("demo.toml");
    std::fs::write(
        &config,
        format!("[server]\narbiter_token = \"{ARBITER}\"\n"),
    )
    .unwrap();
    let journal = dir.path().join("journal.sqlite");
    let (demo, addr) = daemon_processes::start_demo(1, Some(1), &journal, Some(&config));
    let url = format!("http://{addr}/");

    let wrong = import(&url, "not-the-arbiter-token-0123456789");
    assert_eq!(wrong.status.code(), Some(2));
    assert_eq!(
        text(&wrong.stderr),
        "dgt-arbiter pairings import: the daemon refused the arbiter token (401); fix: give --token or set server.arbiter_token in the configuration\n"
    );

    let out = import(&url, ARBITER);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        format!("{ROUND_3}round 3: handed to the daemon at {addr}\n")
    );
    // The round's view is built from the journaled event, released once committed.
    let bearer = format!("Bearer {ARBITER}");
    let round = daemon_processes::eventually(Duration::from_secs(10), "round 3", || {
        let r = dgt_testkit::http::request(
            addr,
            "GET",
            "/api/rounds/3",
            &[("Authorization", &bearer)],
            "",
        );
        (r.status == 200).then_some(r.body)
    });
    assert!(round.contains("Vermeer, Anna"), "{round}");
    demo.terminate();
}
