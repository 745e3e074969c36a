//! The journal in segments: a new round's pairings close the open segment (checked, made
//! read-only, listed in the manifest), every reader says across segments what one file says,
//! a damaged or missing closed segment is named while the rest reads, and the size cap
//! counts every segment.

mod common;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use dgt_core::pairing::{ROUND_BOARD, RoundPairings};
use dgt_core::{CoreConfig, Input, InputKind, Operation};
use dgt_journal::{
    Batch, CapState, Journal, JournalError, JournalWriter, SegmentRule, WriterSettings, recover,
};

use common::*;

/// A hall of 8 boards whose rounds 1–4 are posted at the start and at each quarter: the
/// segmented journal has three closed segments and an open one.
fn four_rounds() -> Vec<Batch> {
    let mut inputs = hall(8);
    let n = inputs.len();
    for (round, at) in [(4, 3 * n / 4), (3, n / 2), (2, n / 4), (1, 0)] {
        let t_ms = inputs[at].t_ms;
        inputs.insert(
            at,
            Input {
                t_ms,
                board: ROUND_BOARD.into(),
                kind: InputKind::Op(Operation::Pairings(RoundPairings {
                    round,
                    ..RoundPairings::default()
                })),
            },
        );
    }
    batches(&inputs)
}

/// Writes the batches through the daemon's writer (its sealer thread running beside).
fn write(path: &Path, rule: SegmentRule, batches: &[Batch]) {
    let mut journal = Journal::open(path).unwrap();
    journal.set_segment_rule(rule);
    let writer = JournalWriter::start(journal, WriterSettings::default());
    for b in batches {
        writer.submit(b.clone());
    }
    assert!(writer.flush(Duration::from_secs(30)));
    writer.stop().unwrap();
}

fn closed_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = ["r1", "r2", "r3"]
        .iter()
        .map(|r| dir.join(format!("journal.{r}.sqlite")))
        .collect();
    files.retain(|f| f.exists());
    files
}

fn steps_in_file(path: &Path) -> i64 {
    let db =
        rusqlite::Connection::open_with_flags(path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .unwrap();
    db.query_row(
        "SELECT (SELECT coalesce(sum(step_count), 0) FROM blocks) + (SELECT count(*) FROM steps)",
        [],
        |r| r.get(0),
    )
    .unwrap()
}

#[test]
fn a_new_rounds_pairings_close_the_open_segment() {
    let all = four_rounds();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("journal.sqlite");
    write(&path, SegmentRule::Round, &all);

    let closed = closed_files(dir.path());
    assert_eq!(closed.len(), 3, "{:?}", std::fs::read_dir(dir.path()));
    let journal = Journal::open_read_only(&path).unwrap();
    let segments = journal.closed_segments().unwrap();
    let labels: Vec<&str> = segments.iter().map(|s| s.entry.label.as_str()).collect();
    assert_eq!(labels, ["r1", "r2", "r3"]);
    // One numbering: each segment starts where the previous one ended.
    let mut next = 1;
    for s in &segments {
        assert_eq!(s.state, "ready");
        assert_eq!(s.entry.first_step, next);
        assert_eq!(steps_in_file(&s.path) as u64, s.entry.steps);
        assert_eq!(s.entry.checked, "quick_check: ok");
        next = s.entry.last_step + 1;
        // Read-only on disk, no WAL left beside it.
        let mode = std::fs::metadata(&s.path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o444, "{}", s.path.display());
        assert!(!PathBuf::from(format!("{}-wal", s.path.display())).exists());
    }
    // The open segment holds round 4 only: about a quarter of the steps.
    let total = journal.step_count().unwrap();
    let open = steps_in_file(&path) as u64;
    assert_eq!(
        open + segments.iter().map(|s| s.entry.steps).sum::<u64>(),
        total
    );
    assert!(open < total / 3, "open {open} of {total}");
    // The round-4 pairings are the open segment's first step.
    let mut first_open = None;
    journal
        .walk(next - 1, |s| {
            first_open = Some(s);
            false
        })
        .unwrap();
    let first_open = first_open.unwrap();
    assert_eq!(first_open.id, next);
    assert!(first_open.events[0].json.contains("\"round\":4"));
}

/// The UTC time the journal reads under `SegmentRule::Day` in the test below.
static WALL_CLOCK_S: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

fn test_wall_clock() -> u64 {
    WALL_CLOCK_S.load(std::sync::atomic::Ordering::SeqCst)
}

#[test]
fn midnight_closes_the_days_segment_under_the_day_rule() {
    // 2026-11-26 23:59:00 UTC, then 2026-11-27 00:01:00 UTC.
    const BEFORE_MIDNIGHT: u64 = 1_795_737_600 - 60;
    const AFTER_MIDNIGHT: u64 = 1_795_737_600 + 60;
    let all = batches(&hall(8));
    let half = all.len() / 2;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("journal.sqlite");
    let one = dir.path().join("one.sqlite");
    write(&one, SegmentRule::Off, &all);

    WALL_CLOCK_S.store(BEFORE_MIDNIGHT, std::sync::atomic::Ordering::SeqCst);
    let mut journal = Journal::open(&path).unwrap();
    journal.set_segment_rule(SegmentRule::Day);
    journal.set_wall_clock(test_wall_clock);
    let writer = JournalWriter::start(journal, WriterSettings::default());
    for b in &all[..half] {
        writer.submit(b.clone());
    }
    assert!(writer.flush(Duration::from_secs(30)));
    WALL_CLOCK_S.store(AFTER_MIDNIGHT, std::sync::atomic::Ordering::SeqCst);
    for b in &all[half..] {
        writer.submit(b.clone());
    }
    assert!(writer.flush(Duration::from_secs(30)));
    writer.stop().unwrap();

    let journal = Journal::open_read_only(&path).unwrap();
    let segments = journal.closed_segments().unwrap();
    let labels: Vec<&str> = segments.iter().map(|s| s.entry.label.as_str()).collect();
    assert_eq!(labels, ["2026-11-26"]);
    let day = &segments[0];
    assert_eq!(day.path, dir.path().join("journal.2026-11-26.sqlite"));
    assert_eq!(day.state, "ready");
    assert_eq!(day.entry.checked, "quick_check: ok");
    let mode = std::fs::metadata(&day.path).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o444);
    // The first day holds exactly the steps written before midnight.
    let before: u64 = all[..half].iter().map(|b| b.steps().len() as u64).sum();
    assert_eq!(day.entry.steps, before);
    assert_eq!(steps_in_file(&day.path) as u64, before);
    assert_eq!(
        steps_in_file(&path) as u64,
        journal.step_count().unwrap() - before
    );
    // Read across the two days, the journal says what one file says.
    assert_eq!(
        everything(&journal),
        everything(&Journal::open_read_only(&one).unwrap())
    );
}

#[test]
fn every_reader_says_across_segments_what_one_file_says() {
    let all = four_rounds();
    let dir = tempfile::tempdir().unwrap();
    let one = dir.path().join("one").join("journal.sqlite");
    let seg = dir.path().join("seg").join("journal.sqlite");
    std::fs::create_dir_all(one.parent().unwrap()).unwrap();
    std::fs::create_dir_all(seg.parent().unwrap()).unwrap();
    write(&one, SegmentRule::Off, &all);
    write(&seg, SegmentRule::Round, &all);
    assert!(closed_files(one.parent().unwrap()).is_empty());
    assert_eq!(closed_files(seg.parent().unwrap()).len(), 3);

    let expected = everything(&Journal::open_read_only(&one).unwrap());
    assert!(expected.len() > 1_000);
    assert_eq!(
        everything(&Journal::open_read_only(&seg).unwrap()),
        expected
    );
    // The daemon's own handle (open for writing) reads the same.
    let writable = Journal::open(&seg).unwrap();
    assert_eq!(everything(&writable), expected);

    // Replay across segments regenerates every event, and a restart numbers on.
    let (core, report) = recover(&writable, CoreConfig::default()).unwrap();
    assert!(report.is_exact(), "{report:?}");
    let last_seq = writable.last_seq().unwrap();
    assert_eq!(core.next_seq(), last_seq + 1);
    let last_step = writable.last_step().unwrap();
    drop(writable);
    let mut reopened = Journal::open(&seg).unwrap();
    reopened.append(&all[all.len() - 1]).unwrap();
    assert_eq!(
        reopened.last_step().unwrap(),
        last_step + all[all.len() - 1].steps().len() as u64
    );
}

#[test]
fn a_reader_opened_before_a_segment_closes_sees_it() {
    let all = four_rounds();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("journal.sqlite");
    // Round 1 and part of round 2 written; a long-lived reader (the cluster's publisher).
    let mut journal = Journal::open(&path).unwrap();
    let round_two = all
        .iter()
        .position(|b| {
            b.steps()
                .iter()
                .any(|s| s.events.iter().any(|e| e.to_json().contains("\"round\":2")))
        })
        .unwrap();
    for b in &all[..round_two] {
        journal.append(b).unwrap();
    }
    let reader = Journal::open_read_only(&path).unwrap();
    let read_before = reader.tail(0, usize::MAX).unwrap();
    for b in &all[round_two..] {
        journal.append(b).unwrap();
    }
    assert_eq!(journal.closed_segments().unwrap().len(), 3);
    // Its tail goes on from where it was, through the closed segments.
    let rest = reader.tail(read_before.to_step, usize::MAX).unwrap();
    let whole = journal.tail(0, usize::MAX).unwrap();
    let mut joined = read_before.records.clone();
    joined.extend(rest.records);
    assert_eq!(joined, whole.records);
}

#[test]
fn a_closed_segment_is_never_written_again() {
    let all = four_rounds();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("journal.sqlite");
    write(&path, SegmentRule::Round, &all[..all.len() / 2]);
    let closed = closed_files(dir.path());
    assert!(!closed.is_empty());
    let before: Vec<(Vec<u8>, std::time::SystemTime)> = closed
        .iter()
        .map(|f| {
            (
                std::fs::read(f).unwrap(),
                std::fs::metadata(f).unwrap().modified().unwrap(),
            )
        })
        .collect();
    // Reopened, read through, written on, stopped cleanly (tidied): the closed files stay
    // as they were checked.
    let journal = Journal::open(&path).unwrap();
    everything(&journal);
    drop(journal);
    write(&path, SegmentRule::Round, &all[all.len() / 2..]);
    for (f, (bytes, mtime)) in closed.iter().zip(before) {
        assert_eq!(std::fs::read(f).unwrap(), bytes, "{}", f.display());
        assert_eq!(std::fs::metadata(f).unwrap().modified().unwrap(), mtime);
        let mode = std::fs::metadata(f).unwrap().permissions().mode();
        assert_eq!(mode & 0o222, 0, "{} is writable", f.display());
    }
}

/// Overwrites a stretch in the middle of a closed segment (as a failing disk would).
fn damage(path: &Path) {
    use std::io::{Seek, SeekFrom, Write};
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o644)).unwrap();
    let len = std::fs::metadata(path).unwrap().len();
    let mut f = std::fs::OpenOptions::new().write(true).open(path).unwrap();
    f.seek(SeekFrom::Start(len / 2)).unwrap();
    f.write_all(&vec![0x5a; 8192]).unwrap();
}

#[test]
fn a_damaged_closed_segment_is_named_and_the_rest_reads() {
    let all = four_rounds();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("journal.sqlite");
    write(&path, SegmentRule::Round, &all);
    let good = Journal::open_read_only(&path).unwrap();
    let segments = good.closed_segments().unwrap();
    let r2 = &segments[1];
    let after_r2 = r2.entry.last_seq.unwrap();
    let expected_rest = good.events_since(after_r2).unwrap();
    drop(good);
    damage(&r2.path);

    // Its size or time changed since it was checked: it is checked again at open.
    let journal = Journal::open(&path).unwrap();
    let state = &journal.closed_segments().unwrap()[1].state;
    assert!(state.starts_with("damaged"), "{state}");
    // Whatever reaches it names its file; nothing is deleted; the rest reads.
    let err = journal.walk(0, |_| true).unwrap_err();
    assert!(matches!(err, JournalError::Corrupt { .. }), "{err:?}");
    assert!(err.to_string().contains("journal.r2.sqlite"), "{err}");
    assert!(r2.path.exists());
    assert_eq!(journal.events_since(after_r2).unwrap(), expected_rest);
    assert!(journal.events_since(0).is_err());
    let r3_first = segments[2].entry.first_step;
    let mut steps = 0;
    journal
        .walk(r3_first - 1, |_| {
            steps += 1;
            true
        })
        .unwrap();
    assert!(steps > 0);
}

#[test]
fn a_missing_closed_segment_is_named_and_export_reads_the_rest() {
    let all = four_rounds();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("journal.sqlite");
    write(&path, SegmentRule::Round, &all);
    let archive = dir.path().join("archive");
    std::fs::create_dir(&archive).unwrap();
    let r1 = dir.path().join("journal.r1.sqlite");
    let whole = Journal::open_read_only(&path)
        .unwrap()
        .export_capture(None, None, None)
        .unwrap();
    std::fs::rename(&r1, archive.join("journal.r1.sqlite")).unwrap();

    let journal = Journal::open_read_only(&path).unwrap();
    let segments = journal.closed_segments().unwrap();
    assert_eq!(segments[0].state, "missing");
    assert_eq!(segments[0].path, r1);
    let rest = journal.export_capture(None, None, None).unwrap();
    assert!(!rest.is_empty() && rest.len() < whole.len());
    assert!(whole.ends_with(&rest));
}

#[test]
fn the_size_cap_counts_every_segment() {
    let all = four_rounds();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("journal.sqlite");
    let tail = all.len() - 5;
    write(&path, SegmentRule::Round, &all[..tail]);
    let journal = Journal::open(&path).unwrap();
    let closed: u64 = journal
        .closed_segments()
        .unwrap()
        .iter()
        .map(|s| s.entry.size_bytes)
        .sum();
    let total = journal.size_bytes().unwrap();
    assert!(closed > 0 && total > closed);
    drop(journal);

    // A cap the open segment alone stays far below, the closed ones reach: "reached" (no
    // new round), while the round in play is still journaled.
    let mut journal = Journal::open(&path).unwrap();
    journal.set_max_size(total).unwrap();
    let writer = JournalWriter::start(journal, WriterSettings::default());
    for b in &all[tail..] {
        writer.submit(b.clone());
    }
    let flushed = writer.flush(Duration::from_secs(30));
    let health = writer.health();
    assert!(flushed, "{health:?}");
    assert_eq!(health.cap, CapState::Reached, "{health:?}");
    assert!(health.failure.is_none(), "{health:?}");
    assert!(health.size_bytes >= total);
    let j = writer.stop().unwrap();
    assert_eq!(j.last_step().unwrap(), {
        let mut n = 0;
        j.walk(0, |_| {
            n += 1;
            true
        })
        .unwrap();
        n
    });
}

/// Adds `mib` MiB of sealed blocks after the journal's last step (incompressible bytes: the
/// integrity check reads every page whatever they hold), as a long round would leave.
fn grow(path: &Path, mib: usize) {
    let db = rusqlite::Connection::open(path).unwrap();
    let last: i64 = db
        .query_row("SELECT coalesce(max(last_step), 0) FROM blocks", [], |r| {
            r.get(0)
        })
        .unwrap();
    let last = last.max(
        db.query_row("SELECT coalesce(max(id), 0) FROM steps", [], |r| r.get(0))
            .unwrap(),
    );
    let tx = db.unchecked_transaction().unwrap();
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15 ^ last as u64;
    for k in 0..(mib * 8) as i64 {
        let blob: Vec<u8> = (0..128 * 1024)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect();
        let first = last + 1 + k * 1_536;
        tx.execute(
            "INSERT INTO blocks (first_step, last_step, first_t_ms, last_t_ms, step_count, \
             steps, events) VALUES (?1, ?2, 0, 0, 1536, ?3, x'')",
            rusqlite::params![first, first + 1_535, blob],
        )
        .unwrap();
    }
    tx.commit().unwrap();
}

/// Builds a journal of `rounds` rounds of `mib_per_round` MiB each, under `rule`.
fn long_event(path: &Path, rule: SegmentRule, rounds: u32, mib_per_round: usize) {
    let mut core = dgt_core::Core::new(CoreConfig::default());
    for round in 1..=rounds {
        drop(Journal::open(path).unwrap());
        grow(path, mib_per_round);
        let mut journal = Journal::open(path).unwrap();
        journal.set_segment_rule(rule);
        let input = Input {
            t_ms: u64::from(round) * 1_000,
            board: ROUND_BOARD.into(),
            kind: InputKind::Op(Operation::Pairings(RoundPairings {
                round: round + 1,
                ..RoundPairings::default()
            })),
        };
        let events = core.handle(&input);
        let mut batch = Batch::new();
        batch.record_input(input, events);
        journal.append(&batch).unwrap();
    }
}

/// The open time of a long event's journal in segments against one file of the same size
/// (`docs/journal.md`, "Segments"). Sizes: `SEGMENT_BENCH_ROUNDS` × `SEGMENT_BENCH_MIB`.
#[test]
#[ignore = "a measurement: writes two journals of some hundred MiB"]
fn measure_open_time_in_segments_and_in_one_file() {
    let env = |k: &str, d: usize| {
        std::env::var(k)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(d)
    };
    let rounds = env("SEGMENT_BENCH_ROUNDS", 8) as u32;
    let mib = env("SEGMENT_BENCH_MIB", 64);
    let dir =
        tempfile::tempdir_in(std::env::var("SEGMENT_BENCH_DIR").unwrap_or(".".into())).unwrap();
    let one = dir.path().join("one.sqlite");
    let seg = dir.path().join("seg.sqlite");
    let t = std::time::Instant::now();
    long_event(&one, SegmentRule::Off, rounds, mib);
    let write_one = t.elapsed();
    let t = std::time::Instant::now();
    long_event(&seg, SegmentRule::Round, rounds, mib);
    let write_seg = t.elapsed();
    let size = |p: &Path| std::fs::metadata(p).unwrap().len() as f64 / (1 << 20) as f64;
    let closed = Journal::open_read_only(&seg)
        .unwrap()
        .closed_segments()
        .unwrap();
    let closed_mib: f64 = closed.iter().map(|s| size(&s.path)).sum();
    let open_ms = |p: &Path| {
        let mut best = f64::MAX;
        for _ in 0..3 {
            let t = std::time::Instant::now();
            let j = Journal::open(p).unwrap();
            best = best.min(t.elapsed().as_secs_f64() * 1e3);
            drop(j);
        }
        best
    };
    let (ms_one, ms_seg) = (open_ms(&one), open_ms(&seg));
    println!(
        "one file: {:.0} MiB, opened in {ms_one:.0} ms (written in {:.1} s); in segments: \
         {} closed ({closed_mib:.0} MiB) + open {:.1} MiB, opened in {ms_seg:.1} ms (written, \
         closing each, in {:.1} s)",
        size(&one),
        write_one.as_secs_f64(),
        closed.len(),
        size(&seg),
        write_seg.as_secs_f64()
    );
    assert!(ms_seg < ms_one);
}

fn rows_in(path: &Path, table: &str) -> i64 {
    let db =
        rusqlite::Connection::open_with_flags(path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .unwrap();
    db.query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0))
        .unwrap()
}

/// A restart restores from the open segment's snapshots only: the closed segments keep none
/// (at 300 boards they are megabytes in every round's file), the open one keeps its own.
#[test]
fn a_closed_segment_keeps_no_snapshots() {
    let mut all = four_rounds();
    all[0].record_snapshot(dgt_journal::CoreSnapshot {
        next_seq: 1,
        t_ms: 0,
        format: "test".into(),
        bytes: vec![7; 1024 * 1024],
    });
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("journal.sqlite");
    drop(Journal::open(&path).unwrap());
    dgt_journal::view_snapshots::ViewSnapshotStore::open(&path)
        .unwrap()
        .store("server", 0, &[9; 1024 * 1024])
        .unwrap();
    write(&path, SegmentRule::Round, &all);

    let closed = closed_files(dir.path());
    assert_eq!(closed.len(), 3);
    for file in &closed {
        assert_eq!(rows_in(file, "snapshots"), 0, "{}", file.display());
        assert_eq!(rows_in(file, "view_snapshots"), 0, "{}", file.display());
        // The pages they held went back to the file system.
        assert!(
            std::fs::metadata(file).unwrap().len() < 1024 * 1024,
            "{}",
            file.display()
        );
    }
    assert_eq!(rows_in(&path, "snapshots"), 1);
    assert_eq!(rows_in(&path, "view_snapshots"), 1);
}
