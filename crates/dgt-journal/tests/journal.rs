//! The journal file: round trips, capture export, and refusing files it must not touch.

mod common;

use dgt_core::input::SetupOp;
use dgt_core::{Core, CoreConfig, Input, InputKind, Link, Operation};
use dgt_journal::{Batch, Cause, Journal, JournalError};

use common::*;

fn input(t_ms: u64, kind: InputKind) -> Input {
    Input {
        t_ms,
        board: "board-7".into(),
        kind,
    }
}

#[test]
fn inputs_and_events_round_trip_and_survive_reopening() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("journal.sqlite");
    let steps = vec![
        Cause::Input(input(
            0,
            InputKind::Link(Link::Connected {
                port: Some("/dev/ttyACM0".into()),
            }),
        )),
        Cause::Input(input(5, InputKind::Tx(vec![0x45]))),
        Cause::Input(input(20, InputKind::Rx(vec![0x8e, 0, 5, 0x34, 0]))),
        Cause::Timers { until_ms: 270 },
        Cause::Input(input(
            300,
            InputKind::Op(Operation::Setup(SetupOp {
                time_control: Some(dgt_core::time_control::TimeControl::parse("180+2").unwrap()),
                ..Default::default()
            })),
        )),
        Cause::Input(input(310, InputKind::Op(Operation::Ack(2)))),
        Cause::Input(input(
            400,
            InputKind::Link(Link::Disconnected {
                reason: Some("unplugged".into()),
                stopping: false,
            }),
        )),
    ];
    let mut batch = Batch::new();
    let mut seq = 0;
    for c in &steps {
        seq += 1;
        let events = vec![clock_event(seq, c.t_ms())];
        match c.clone() {
            Cause::Input(i) => batch.record_input(i, events),
            Cause::Timers { until_ms } => batch.record_timers(until_ms, events),
        }
    }
    {
        let mut j = Journal::open(&path).unwrap();
        j.append(&batch).unwrap();
        assert_eq!(j.steps().unwrap(), steps);
    }
    let j = Journal::open(&path).unwrap();
    assert_eq!(j.steps().unwrap(), steps);
    let inputs: Vec<Input> = steps
        .iter()
        .filter_map(|c| match c {
            Cause::Input(i) => Some(i.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(j.inputs().unwrap(), inputs);
    assert_eq!(j.last_seq().unwrap(), 7);
    let since = j.events_since(5).unwrap();
    assert_eq!(
        since,
        vec![clock_event(6, 310).to_json(), clock_event(7, 400).to_json()]
    );
    assert_eq!(j.operations().unwrap().len(), 2);
    // Read-only readers see the same.
    let r = Journal::open_read_only(&path).unwrap();
    assert_eq!(r.events_since(0).unwrap().len(), 7);
}

#[test]
fn consecutive_timer_firings_merge_into_one_step() {
    let mut b = Batch::new();
    b.record_timers(100, vec![clock_event(1, 100)]);
    b.record_timers(250, vec![clock_event(2, 250)]);
    assert_eq!(b.steps().len(), 1);
    assert_eq!(b.steps()[0].cause, Cause::Timers { until_ms: 250 });
    assert_eq!(b.event_count(), 2);
}

#[test]
fn the_real_game_is_indexed_by_game_and_alert() {
    let dir = tempfile::tempdir().unwrap();
    let mut j = Journal::open(&dir.path().join("j.sqlite")).unwrap();
    let mut core = Core::new(CoreConfig::default());
    let mut batcher = Batcher::new(16);
    run_live(&mut core, &real_capture(), |c, e| batcher.push(c, e));
    drain(&mut core, |c, e| batcher.push(c, e));
    for b in batcher.finish() {
        j.append(&b).unwrap();
    }
    let games = j.games().unwrap();
    assert_eq!(games.len(), 1, "{games:?}");
    let moves = j
        .events_of_game(&games[0].id)
        .unwrap()
        .iter()
        .filter(|e| e.contains("\"type\":\"move\""))
        .count();
    assert_eq!(moves, 57);
}

/// Contract §2: a capture exported from a live session replays to the same events.
#[test]
fn exported_capture_replays_to_identical_events() {
    let dir = tempfile::tempdir().unwrap();
    let mut j = Journal::open(&dir.path().join("j.sqlite")).unwrap();
    let mut core = Core::new(CoreConfig::default());
    let mut batcher = Batcher::new(8);
    let mut live = Vec::new();
    run_live(&mut core, &real_capture(), |c, e| {
        live.extend(e.clone());
        batcher.push(c, e)
    });
    drain(&mut core, |c, e| {
        live.extend(e.clone());
        batcher.push(c, e)
    });
    for b in batcher.finish() {
        j.append(&b).unwrap();
    }

    let capture = j.export_capture(None, None, None).unwrap();
    // What `dgt-arbiter replay` does: every input, then the pending timers.
    let inputs = dgt_core::capture::parse_capture(&capture).unwrap();
    assert_eq!(inputs, real_capture());
    let mut replay = Core::new(CoreConfig::default());
    let mut replayed = Vec::new();
    for i in &inputs {
        replayed.extend(replay.handle(i));
    }
    while let Some(d) = replay.next_deadline() {
        replayed.extend(replay.advance(d));
    }
    assert_eq!(json(&replayed), j.events_since(0).unwrap());
    assert_eq!(json(&replayed), json(&live));

    // Per board and time range.
    let slice = j
        .export_capture(Some("board-1"), Some(1000), Some(5400))
        .unwrap();
    let sliced = dgt_core::capture::parse_capture(&slice).unwrap();
    assert!(!sliced.is_empty());
    assert!(sliced.iter().all(|i| (1000..=5400).contains(&i.t_ms)));
    assert!(
        j.export_capture(Some("board-9"), None, None)
            .unwrap()
            .is_empty()
    );
}

#[test]
fn a_file_of_garbage_is_refused_and_left_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("journal.sqlite");
    let garbage: Vec<u8> = (0..8192u32).map(|i| (i * 7 + 13) as u8).collect();
    std::fs::write(&path, &garbage).unwrap();
    let e = Journal::open(&path).unwrap_err();
    assert!(matches!(e, JournalError::Corrupt { .. }), "{e:?}");
    // The operator reads this text: it names the file and what to do with it.
    assert_eq!(
        e.to_string(),
        format!(
            "journal {} is damaged (file is not a database); it was left untouched: move it aside for inspection and start with a new journal, or restore a backup",
            path.display()
        )
    );
    assert_eq!(std::fs::read(&path).unwrap(), garbage);
    assert!(Journal::open_read_only(&path).is_err());
}

#[test]
fn a_journal_with_damaged_pages_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("journal.sqlite");
    {
        let mut j = Journal::open(&path).unwrap();
        let mut core = Core::new(CoreConfig::default());
        let mut batcher = Batcher::new(4);
        run_live(&mut core, &real_capture(), |c, e| batcher.push(c, e));
        for b in batcher.finish() {
            j.append(&b).unwrap();
        }
    } // closing the last connection checkpoints the WAL into the file
    let mut bytes = std::fs::read(&path).unwrap();
    assert!(bytes.len() > 16 * 4096, "journal is {} bytes", bytes.len());
    // Scribble over the middle pages (not page 1, the header).
    for b in &mut bytes[4096 * 3..4096 * 12] {
        *b = 0xA5;
    }
    std::fs::write(&path, &bytes).unwrap();
    let e = Journal::open(&path).unwrap_err();
    assert!(matches!(e, JournalError::Corrupt { .. }), "{e:?}");
}

#[test]
fn an_unwritable_place_gives_a_clear_error() {
    // A directory that does not exist.
    let e = Journal::open(std::path::Path::new("/nonexistent-dgt/journal.sqlite")).unwrap_err();
    assert!(matches!(e, JournalError::CannotOpen { .. }), "{e:?}");
    assert!(e.to_string().contains("/nonexistent-dgt"), "{e}");
    // A directory nobody can create files in, root included.
    let e = Journal::open(std::path::Path::new("/proc/self/journal.sqlite")).unwrap_err();
    assert!(matches!(e, JournalError::CannotOpen { .. }), "{e:?}");
    assert!(e.to_string().contains("may write there"), "{e}");
}

#[test]
fn a_read_only_journal_is_refused_for_writing() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("journal.sqlite");
    drop(Journal::open(&path).unwrap());
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o444)).unwrap();
    // Root may write through any permission bits; the check only means something without.
    let privileged = std::fs::OpenOptions::new().append(true).open(&path).is_ok();
    if !privileged {
        let e = Journal::open(&path).unwrap_err();
        assert!(matches!(e, JournalError::ReadOnly { .. }), "{e:?}");
        assert!(e.to_string().contains("read-only"));
    }
    // A read-only connection refuses appends with the same error, whoever runs the test.
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
    let mut r = Journal::open_read_only(&path).unwrap();
    let mut b = Batch::new();
    b.record_input(input(1, InputKind::Rx(vec![1])), vec![]);
    let e = r.append(&b).unwrap_err();
    assert!(matches!(e, JournalError::ReadOnly { .. }), "{e:?}");
}

#[test]
fn a_capped_journal_reports_disk_full_and_keeps_what_was_committed() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("journal.sqlite");
    let mut j = Journal::open(&path).unwrap();
    let mut b = Batch::new();
    b.record_input(
        input(1, InputKind::Rx(vec![1; 100])),
        vec![clock_event(1, 1)],
    );
    j.append(&b).unwrap();
    j.set_max_size(64 * 1024).unwrap();
    let mut big = Batch::new();
    for k in 0..200 {
        big.record_input(input(2 + k, InputKind::Rx(vec![7; 1000])), vec![]);
    }
    let e = j.append(&big).unwrap_err();
    assert!(matches!(e, JournalError::DiskFull { .. }), "{e:?}");
    assert!(e.to_string().contains("free space"));
    drop(j);
    let j = Journal::open(&path).unwrap();
    assert_eq!(j.step_count().unwrap(), 1, "the failed batch left no trace");
    assert_eq!(j.last_seq().unwrap(), 1);
}

/// The journal holds every game and alert: mode 0600 whatever the umask, also for a file
/// that existed with a wider mode, and SQLite's WAL takes the same mode.
#[test]
fn the_journal_file_is_private() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    let fresh = dir.path().join("fresh.sqlite");
    let mut j = Journal::open(&fresh).unwrap();
    let mut b = Batch::new();
    b.record_input(input(1, InputKind::Rx(vec![1])), vec![]);
    j.append(&b).unwrap();
    assert_eq!(mode(&fresh), 0o600);
    let wal = dir.path().join("fresh.sqlite-wal");
    if wal.exists() {
        assert_eq!(mode(&wal), 0o600);
    }
    let old = dir.path().join("old.sqlite");
    std::fs::write(&old, b"").unwrap();
    std::fs::set_permissions(&old, std::fs::Permissions::from_mode(0o644)).unwrap();
    let _j = Journal::open(&old).unwrap();
    assert_eq!(mode(&old), 0o600);
}

/// The reason `steps()` gives for a journal whose one step is the op `op`.
fn bad_row_detail(op: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("j.sqlite");
    drop(Journal::open(&path).unwrap());
    rusqlite::Connection::open(&path)
        .unwrap()
        .execute(
            "INSERT INTO steps (t_ms, board, kind, json) VALUES (1, 'board-7', 'op', ?1)",
            [op],
        )
        .unwrap();
    let err = Journal::open(&path).unwrap().steps().unwrap_err();
    let JournalError::BadRow { detail, .. } = err else {
        panic!("not a bad row: {err:?}")
    };
    detail
}

/// A journaled op with a result there is not (a game's or a table's) is a bad row with the
/// reason, never played as text.
#[test]
fn a_step_with_an_unknown_result_is_a_bad_row() {
    for (op, reason) in [
        (
            r#"{"result":"*"}"#,
            r#"unknown result "*": use one of 1-0, 0-1, 1/2-1/2"#,
        ),
        (
            r#"{"table_result":{"round":1,"table":2,"result":"0-0"}}"#,
            r#"unknown result "0-0": use one of 1-0, 0-1, 1/2-1/2, +-, -+, --, 1-0u, 0-1u, 1/2-1/2u at line 1 column 52"#,
        ),
    ] {
        // The operator reads the reason: it names the step and the values accepted.
        assert_eq!(bad_row_detail(op), format!("step 1: {reason}"));
    }
}

/// A journaled claim of a kind there is not, or by a claimant who is neither side, is a bad
/// row with the reason, never read as a repetition claim by the player on move: that would
/// judge a claim nobody made.
#[test]
fn a_step_with_an_unknown_claim_is_a_bad_row() {
    for (op, reason) in [
        (
            r#"{"claim":{"kind":"other"}}"#,
            r#"unknown claim kind "other": use one of threefold_repetition, fifty_move_rule, flag (or the aliases threefold, repetition, fifty, fifty_moves, flag_fall) at line 1 column 25"#,
        ),
        (
            r#"{"claim":{"kind":"flag","side":"both"}}"#,
            r#"unknown claimant "both": use white or black, or leave it out for the player on move at line 1 column 38"#,
        ),
    ] {
        // The operator reads the reason: it names the step and the values accepted.
        assert_eq!(bad_row_detail(op), format!("step 1: {reason}"));
    }
}
