//! Restart from a core snapshot: recovery restores the newest snapshot that decodes and
//! replays only the steps after it; the events, the seqs and the core that goes on are those
//! of an uninterrupted run. A snapshot that does not restore, or whose later steps do not
//! replay exactly, is passed over for an older one or for the full replay.

mod common;

use std::path::Path;

use dgt_core::{Core, CoreConfig, Input};
use dgt_journal::{
    Batch, Cause, CoreSnapshot, ImageSnapshot, Journal, JournalWriter, WriterSettings,
    core_after_step, recover_collecting,
};

use common::*;

/// The real game on four boards, shifted in time.
fn four_boards() -> Vec<Input> {
    let game = real_capture();
    let mut inputs = Vec::new();
    for b in 0..4u64 {
        for i in &game {
            let mut i = i.clone();
            i.board = format!("board-{}", b + 1);
            i.t_ms += b * 211;
            inputs.push(i);
        }
    }
    inputs.sort_by_key(|i| i.t_ms);
    inputs
}

fn snapshot_of(core: &Core, t_ms: u64) -> CoreSnapshot {
    CoreSnapshot {
        next_seq: core.next_seq(),
        t_ms,
        format: dgt_core::SNAPSHOT_FORMAT.into(),
        bytes: core.snapshot(),
    }
}

/// Runs `inputs` daemon-style: every step recorded in a batch, `snapshot` called after every
/// `every` steps (in the batch of the step it follows), each batch of 20 steps and the last
/// handed to `append`.
fn daemon_style(
    inputs: &[Input],
    every: usize,
    mut snapshot: impl FnMut(&Core, u64, &mut Batch),
    mut append: impl FnMut(Batch),
) {
    let mut core = Core::new(CoreConfig::default());
    let mut batch = Batch::new();
    let mut steps = 0;
    let mut step = |core: &mut Core, batch: &mut Batch, cause: Cause| {
        let events = dgt_journal::recovery::run_step(core, &cause);
        let t = cause.t_ms();
        match cause {
            Cause::Input(i) => batch.record_input(i, events),
            Cause::Timers { until_ms } => batch.record_timers(until_ms, events),
        }
        steps += 1;
        if steps % every == 0 {
            snapshot(core, t, batch);
        }
        if batch.steps().len() >= 20 {
            append(std::mem::take(batch));
        }
    };
    for input in inputs {
        while let Some(d) = core.next_deadline().filter(|&d| d < input.t_ms) {
            step(&mut core, &mut batch, Cause::Timers { until_ms: d });
        }
        step(&mut core, &mut batch, Cause::Input(input.clone()));
    }
    append(batch);
}

/// Journals `inputs` daemon-style in batches of 20 steps, a core snapshot after every
/// `every` steps (in the batch of the step it follows), then "dies".
fn journal_with_snapshots(path: &Path, inputs: &[Input], every: usize) {
    let mut journal = Journal::open(path).unwrap();
    daemon_style(
        inputs,
        every,
        |core, t, batch| batch.record_snapshot(snapshot_of(core, t)),
        |batch| journal.append(&batch).unwrap(),
    );
}

/// Recovers, checks what is handed back, finishes the input and compares everything with
/// the uninterrupted run.
fn recover_and_compare(path: &Path, inputs: &[Input], cut: usize) -> dgt_journal::RecoveryReport {
    let journal = Journal::open(path).unwrap();
    let (mut core, report, recovered) =
        recover_collecting(&journal, CoreConfig::default()).unwrap();
    assert!(report.is_exact(), "{report:?}");
    assert_eq!(core.next_seq(), journal.last_seq().unwrap() + 1);
    let mut all = if recovered.events_complete {
        recovered.events
    } else {
        assert!(report.from_snapshot.is_some(), "{report:?}");
        dgt_journal::journaled_events(&journal).unwrap()
    };
    assert_eq!(json(&all), journal.events_since(0).unwrap());
    assert_eq!(recovered.last_t_ms, inputs[cut - 1].t_ms);
    run_live(&mut core, &inputs[cut..], |_, e| all.extend(e));
    drain(&mut core, |_, e| all.extend(e));
    assert_eq!(json(&all), json(&uninterrupted(inputs)));
    report
}

#[test]
fn recovery_restores_the_newest_snapshot_and_replays_only_the_steps_after_it() {
    let inputs = four_boards();
    for (cut, every) in [(inputs.len() * 2 / 3, 97), (150, 1), (300, 64)] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("journal.sqlite");
        journal_with_snapshots(&path, &inputs[..cut], every);
        let journal = Journal::open(&path).unwrap();
        let held = journal.snapshots().unwrap();
        assert_eq!(
            held.len(),
            dgt_journal::snapshots::KEPT as usize,
            "only the newest kept"
        );
        let newest = held[0].after_step;
        let steps = journal.step_count().unwrap();
        // Timer firings in a row merge into one journaled step: the count drifts a little.
        assert!(
            newest <= steps && steps - newest <= 2 * every as u64,
            "{newest} of {steps}"
        );
        drop(journal);
        let report = recover_and_compare(&path, &inputs, cut);
        assert_eq!(
            report.from_snapshot,
            Some(newest),
            "cut {cut} every {every}"
        );
        assert_eq!(report.steps, steps - newest);
        assert_eq!(report.snapshot_refused, None);
    }
}

/// Journals `inputs` through the writer in batches of 20 steps, the core's image (as the
/// daemon hands it over) after every `every` steps. The snapshot thread is held until every
/// batch is committed: each snapshot's row is written after steps that follow its own.
fn journal_with_images(path: &Path, inputs: &[Input], every: usize) {
    let writer = JournalWriter::start(Journal::open(path).unwrap(), WriterSettings::default());
    let (open, gate) = std::sync::mpsc::channel::<()>();
    let gate = std::sync::Mutex::new(gate);
    writer.before_snapshot_bytes(move || {
        let _ = gate.lock().unwrap().recv();
    });
    daemon_style(
        inputs,
        every,
        |core, t, batch| batch.record_image(ImageSnapshot::new(t, core.image())),
        |batch| {
            writer.submit(batch);
        },
    );
    assert!(writer.flush(std::time::Duration::from_secs(30)));
    assert!(
        Journal::open_read_only(path)
            .unwrap()
            .snapshots()
            .unwrap()
            .is_empty(),
        "every step committed while no image was serialised"
    );
    drop(open);
    writer.stop().unwrap();
}

/// The daemon's snapshots are serialised off the core task: the image taken after a step is
/// journaled once its bytes are made, after later steps. Each row holds the state after the
/// step it names, and recovery restores the newest and replays only the steps after it.
#[test]
fn an_image_journaled_after_later_steps_restores_the_state_at_its_step() {
    let inputs = four_boards();
    let cut = inputs.len() * 2 / 3;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("journal.sqlite");
    journal_with_images(&path, &inputs[..cut], 97);
    let journal = Journal::open(&path).unwrap();
    let held = journal.snapshots().unwrap();
    assert_eq!(held.len(), dgt_journal::snapshots::KEPT as usize);
    for entry in &held {
        let bytes = journal.snapshot_bytes(entry.id).unwrap().unwrap();
        assert!(
            bytes
                == core_after_step(&journal, CoreConfig::default(), entry.after_step)
                    .unwrap()
                    .snapshot(),
            "the snapshot after step {} holds the state after that step",
            entry.after_step
        );
    }
    let newest = held[0].after_step;
    let steps = journal.step_count().unwrap();
    assert!(newest < steps, "steps journaled after the newest snapshot");
    drop(journal);
    let report = recover_and_compare(&path, &inputs, cut);
    assert_eq!(report.from_snapshot, Some(newest));
    assert_eq!(report.steps, steps - newest);
}

/// The newest snapshot damaged: the one before it is used; all of them damaged: the whole
/// journal is replayed. Either way the restart is exact.
#[test]
fn a_snapshot_that_does_not_restore_is_passed_over() {
    let inputs = four_boards();
    let cut = inputs.len() / 2;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("journal.sqlite");
    journal_with_snapshots(&path, &inputs[..cut], 50);
    let held = Journal::open(&path).unwrap().snapshots().unwrap();
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute(
        "UPDATE snapshots SET bytes = substr(bytes, 1, length(bytes) / 2) WHERE id = ?1",
        [held[0].id as i64],
    )
    .unwrap();
    let report = recover_and_compare(&path, &inputs, cut);
    assert_eq!(report.from_snapshot, Some(held[1].after_step));
    assert!(
        report
            .snapshot_refused
            .as_deref()
            .is_some_and(|r| r.contains("does not decode")),
        "{report:?}"
    );
    conn.execute("UPDATE snapshots SET bytes = x'00'", [])
        .unwrap();
    drop(conn);
    let report = recover_and_compare(&path, &inputs, cut);
    assert_eq!(report.from_snapshot, None);
    assert_eq!(
        report.steps,
        Journal::open(&path).unwrap().step_count().unwrap()
    );
}

/// A snapshot that restores but is not the state the journal continues from (here: a fresh
/// core's, numbered as the journal expects): the steps after it do not regenerate the
/// journaled events, and recovery replays the whole journal instead.
#[test]
fn a_snapshot_whose_later_steps_differ_falls_back_to_the_full_replay() {
    let inputs = four_boards();
    let cut = inputs.len() / 2;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("journal.sqlite");
    journal_with_snapshots(&path, &inputs[..cut], 1_000_000);
    {
        let mut journal = Journal::open(&path).unwrap();
        let steps = journal.step_count().unwrap();
        let next_seq = journal.last_seq_of_step(steps / 2).unwrap().unwrap_or(0) + 1;
        let wrong = Core::with_first_seq(CoreConfig::default(), next_seq);
        let mut batch = Batch::new();
        batch.record_snapshot(snapshot_of(&wrong, 0));
        // Recorded as following the last step; moved back to the middle of the journal.
        journal.append(&batch).unwrap();
        drop(journal);
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute("UPDATE snapshots SET after_step = ?1", [(steps / 2) as i64])
            .unwrap();
    }
    let report = recover_and_compare(&path, &inputs, cut);
    assert_eq!(report.from_snapshot, None);
}

/// A journal written before snapshots (schema 2) gets the table on open, and recovers by
/// the full replay until its first snapshot.
#[test]
fn a_version_2_journal_is_migrated_and_replayed_in_full() {
    let inputs = real_capture();
    let cut = inputs.len() / 3;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("journal.sqlite");
    journal_with_snapshots(&path, &inputs[..cut], 1_000_000);
    let db = rusqlite::Connection::open(&path).unwrap();
    db.execute_batch("DROP TABLE snapshots; UPDATE schema_version SET version = 2;")
        .unwrap();
    drop(db);
    let old = Journal::open_read_only(&path).unwrap();
    assert_eq!(old.snapshots().unwrap(), Vec::new());
    drop(old);
    let report = recover_and_compare(&path, &inputs, cut);
    assert_eq!(report.from_snapshot, None);
    let db = rusqlite::Connection::open(&path).unwrap();
    let version: i64 = db
        .query_row("SELECT version FROM schema_version", [], |r| r.get(0))
        .unwrap();
    assert_eq!(version, 3);
}
