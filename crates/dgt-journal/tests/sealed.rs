//! Sealed blocks: a journal whose older steps are packed into blocks says exactly what the
//! same journal says in rows — to replay, export, the feed's resume, the cluster's tail, the
//! dashboard's queries — and a journal written before blocks existed (schema version 1) is
//! read as it is and migrated in place.

mod common;

use std::path::Path;
use std::time::Duration;

use dgt_core::CoreConfig;
use dgt_journal::{Batch, Journal, JournalWriter, WriterSettings, recover};

use common::*;

fn write(path: &Path, batches: &[Batch]) -> Journal {
    let mut journal = Journal::open(path).unwrap();
    for b in batches {
        journal.append(b).unwrap();
    }
    journal
}

fn block_count(path: &Path) -> i64 {
    let db = rusqlite::Connection::open(path).unwrap();
    db.query_row("SELECT count(*) FROM blocks", [], |r| r.get(0))
        .unwrap()
}

#[test]
fn a_sealed_journal_reads_and_replays_as_its_rows() {
    let inputs = hall(12);
    let all = batches(&inputs);
    let dir = tempfile::tempdir().unwrap();
    let rows = write(&dir.path().join("rows.sqlite"), &all);
    // Half written and sealed, the other half rows: both kinds read in one walk.
    let mixed_path = dir.path().join("mixed.sqlite");
    let half = all.len() / 2;
    let mut mixed = write(&mixed_path, &all[..half]);
    assert!(mixed.seal_all().unwrap() > 1_000);
    for b in &all[half..] {
        mixed.append(b).unwrap();
    }
    let sealed_half = block_count(&mixed_path);
    assert!(sealed_half >= 1);
    let expected = everything(&rows);
    assert!(expected.len() > 1_000);
    assert_eq!(everything(&mixed), expected);
    // All sealed (several blocks), and read by another connection.
    mixed.seal_all().unwrap();
    assert!(block_count(&mixed_path) > sealed_half);
    drop(mixed);
    let reader = Journal::open_read_only(&mixed_path).unwrap();
    assert_eq!(everything(&reader), expected);

    // Replay regenerates every sealed event, byte for byte, and the core goes on.
    let (core, report) = recover(&reader, CoreConfig::default()).unwrap();
    assert!(report.is_exact(), "{report:?}");
    assert_eq!(report.journaled_events, rows.last_seq().unwrap());
    assert_eq!(core.next_seq(), rows.last_seq().unwrap() + 1);
}

#[test]
fn a_step_appended_after_sealing_everything_keeps_its_number() {
    let all = batches(&hall(2));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("j.sqlite");
    let mut j = write(&path, &all[..all.len() - 1]);
    let before = j.last_step().unwrap();
    j.seal_all().unwrap();
    drop(j);
    // Reopened with no row left: the next step is numbered after the sealed ones.
    let mut j = Journal::open(&path).unwrap();
    j.append(all.last().unwrap()).unwrap();
    let added = all.last().unwrap().steps().len() as u64;
    assert_eq!(j.last_step().unwrap(), before + added);
    assert_eq!(j.step_count().unwrap(), before + added);
    let (_, report) = recover(&j, CoreConfig::default()).unwrap();
    assert!(report.is_exact(), "{report:?}");
}

#[test]
fn sealed_blocks_weigh_a_fraction_of_the_rows() {
    let all = batches(&hall(12));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("j.sqlite");
    let mut j = write(&path, &all);
    let db = rusqlite::Connection::open(&path).unwrap();
    let rows: i64 = db
        .query_row(
            "SELECT (SELECT sum(length(json)) FROM events) \
             + (SELECT sum(coalesce(length(bytes), 0) + coalesce(length(json), 0)) FROM steps)",
            [],
            |r| r.get(0),
        )
        .unwrap();
    j.seal_all().unwrap();
    let packed: i64 = db
        .query_row(
            "SELECT sum(length(steps) + length(events)) FROM blocks",
            [],
            |r| r.get(0),
        )
        .unwrap();
    // The row payload alone, before its row and index overhead.
    assert!(packed * 8 < rows, "packed {packed} vs rows {rows}");
}

#[test]
fn the_writer_seals_as_the_journal_grows() {
    let all = batches(&hall(12));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("j.sqlite");
    let writer = JournalWriter::start(Journal::open(&path).unwrap(), WriterSettings::default());
    for b in &all {
        writer.submit(b.clone());
    }
    assert!(writer.flush(Duration::from_secs(30)));
    // The sealer thread seals while the writer runs (not only at the stop).
    let started = std::time::Instant::now();
    while block_count(&path) == 0 && started.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(block_count(&path) >= 1);
    let j = writer.stop().unwrap();
    // A clean stop leaves no row.
    let db = rusqlite::Connection::open(&path).unwrap();
    let rows: i64 = db
        .query_row("SELECT count(*) FROM steps", [], |r| r.get(0))
        .unwrap();
    assert_eq!(rows, 0);
    // ... and gives the pages the rows took back to the file system.
    let free: i64 = db
        .query_row("PRAGMA freelist_count", [], |r| r.get(0))
        .unwrap();
    assert_eq!(free, 0);
    let rows = write(&dir.path().join("rows.sqlite"), &all);
    assert_eq!(j.events_since(0).unwrap(), rows.events_since(0).unwrap());
    let (_, report) = recover(&j, CoreConfig::default()).unwrap();
    assert!(report.is_exact(), "{report:?}");
}

/// A journal as version 1 wrote it: the same rows, no `blocks` table.
fn as_version_1(path: &Path) {
    let db = rusqlite::Connection::open(path).unwrap();
    db.execute_batch(
        "DROP TABLE blocks; DROP TABLE snapshots; UPDATE schema_version SET version = 1;",
    )
    .unwrap();
}

#[test]
fn a_version_1_journal_is_read_as_it_is_and_migrated_on_open() {
    let all = batches(&hall(3));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.sqlite");
    let expected = everything(&write(&path, &all));
    as_version_1(&path);
    // `export` and the dashboard read it without changing it.
    let old = Journal::open_read_only(&path).unwrap();
    assert_eq!(everything(&old), expected);
    drop(old);
    let db = rusqlite::Connection::open(&path).unwrap();
    let version: i64 = db
        .query_row("SELECT version FROM schema_version", [], |r| r.get(0))
        .unwrap();
    assert_eq!(version, 1);
    // The daemon migrates it, seals it and replays it exactly.
    let mut j = Journal::open(&path).unwrap();
    j.seal_all().unwrap();
    assert!(block_count(&path) >= 1);
    assert_eq!(everything(&j), expected);
    let (_, report) = recover(&j, CoreConfig::default()).unwrap();
    assert!(report.is_exact(), "{report:?}");
}

/// The rows are only the newest steps, so the journal keeps no lookup index on them that
/// every commit would dirty at a page per board and per game; the lookups by board and by
/// game read the same as before.
#[test]
fn the_rows_carry_no_index_by_board_or_by_game() {
    let all = batches(&hall(3));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("j.sqlite");
    let j = write(&path, &all);
    let db = rusqlite::Connection::open(&path).unwrap();
    let indexes: Vec<String> = db
        .prepare("SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name IN ('steps', 'events') AND sql IS NOT NULL")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap();
    assert_eq!(indexes, ["events_by_step"]);
    // Every reader answers as it does through the indexes (which a journal written by an
    // earlier version still has).
    let unindexed = everything(&j);
    drop(j);
    db.execute_batch(
        "CREATE INDEX steps_by_board ON steps (board, t_ms); \
         CREATE INDEX events_by_game ON events (game, seq);",
    )
    .unwrap();
    assert_eq!(
        everything(&Journal::open_read_only(&path).unwrap()),
        unindexed
    );
}
