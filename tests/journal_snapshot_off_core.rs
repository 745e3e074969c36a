//! The daemon's core snapshots are made off the core task: the core hands the journal a
//! copy of its state (an image) and goes on at once; the journal writer's snapshot thread
//! serialises it (1.5 s at 300 boards) and journals it as following the step it was taken
//! after. Here the snapshot thread is held at its start: the core handles a whole game and
//! the journal commits every step meanwhile; once let go, the snapshot holds the state after
//! the step it names, and a restart from it continues the journal exactly.

use std::sync::{Arc, Mutex, mpsc};
use std::time::Duration;

use dgt_arbiter::edge::daemon::{CoreOptions, DaemonClock, spawn_core};
use dgt_core::capture::parse_capture;
use dgt_core::{CoreConfig, Operation};
use dgt_journal::{Journal, JournalWriter, WriterSettings, core_after_step, recover_collecting};
use dgt_testkit::fixtures::real_game_capture;
use tokio_util::sync::CancellationToken;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_core_goes_on_while_its_snapshot_is_serialised_and_the_snapshot_names_its_step() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("j.sqlite");
    let writer = Arc::new(JournalWriter::start(
        Journal::open(&path).unwrap(),
        WriterSettings::default(),
    ));
    // The snapshot thread says when it starts on an image, then waits for the gate.
    let (started_tx, started) = mpsc::channel::<()>();
    let (open_gate, gate) = mpsc::channel::<()>();
    let (started_tx, gate) = (Mutex::new(started_tx), Mutex::new(gate));
    writer.before_snapshot_bytes(move || {
        let _ = started_tx.lock().unwrap().send(());
        let _ = gate.lock().unwrap().recv();
    });
    let stop = CancellationToken::new();
    let (handle, core) = spawn_core(
        CoreOptions {
            journal: Some(writer.clone()),
            snapshot_every_ms: Some(5_000),
            ..Default::default()
        },
        DaemonClock::start(),
        stop.clone(),
    );
    let inputs = parse_capture(&real_game_capture()).unwrap();
    let board = inputs[0].board.clone();
    let span_ms = inputs.last().unwrap().t_ms - inputs[0].t_ms;
    assert!(span_ms > 20_000, "several snapshots fall due in the game");
    for input in inputs {
        handle.inputs().send(input).await.unwrap();
    }
    let started =
        tokio::task::spawn_blocking(move || started.recv_timeout(Duration::from_secs(60)).is_ok())
            .await
            .unwrap();
    assert!(started, "the core handed an image to the snapshot thread");

    // The whole game handled, and every step committed, while the image is not serialised.
    tokio::time::timeout(
        Duration::from_secs(60),
        handle.send_op_handled(&board, Operation::Ack(999_999)),
    )
    .await
    .expect("the core handles inputs while its snapshot is being serialised")
    .unwrap();
    assert!(
        writer.flush(Duration::from_secs(30)),
        "the journal commits while the snapshot is being serialised"
    );
    let journal = Journal::open_read_only(&path).unwrap();
    assert!(journal.snapshots().unwrap().is_empty());
    drop(journal);
    stop.cancel();
    let summary = core.await.unwrap();
    assert_eq!(summary.snapshots, 1, "{summary:?}");
    assert!(
        summary.snapshots_skipped >= 1,
        "the snapshots due while the first was held were skipped: {summary:?}"
    );

    // Let go, the snapshot is journaled after the later steps, naming its own.
    drop(open_gate);
    let mut held = Vec::new();
    for _ in 0..300 {
        held = Journal::open_read_only(&path).unwrap().snapshots().unwrap();
        if !held.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(held.len(), 1, "the snapshot is journaled once serialised");
    assert!(writer.flush(Duration::from_secs(30)));
    drop(writer);

    let journal = Journal::open(&path).unwrap();
    let entry = &journal.snapshots().unwrap()[0];
    let steps = journal.step_count().unwrap();
    assert!(
        entry.after_step > 0 && entry.after_step < steps,
        "{entry:?}"
    );
    let bytes = journal.snapshot_bytes(entry.id).unwrap().unwrap();
    assert!(
        bytes
            == core_after_step(&journal, CoreConfig::default(), entry.after_step)
                .unwrap()
                .snapshot(),
        "the snapshot holds the state after step {}",
        entry.after_step
    );
    assert_eq!(
        entry.next_seq,
        journal
            .last_seq_of_step(entry.after_step)
            .unwrap()
            .unwrap_or(0)
            + 1
    );
    // A restart restores it and replays the steps after it to the journaled events.
    let (restored, report, _) = recover_collecting(&journal, CoreConfig::default()).unwrap();
    assert!(report.is_exact(), "{report:?}");
    assert_eq!(report.from_snapshot, Some(entry.after_step));
    assert_eq!(report.steps, steps - entry.after_step);
    assert_eq!(restored.next_seq(), journal.last_seq().unwrap() + 1);
}
