//! The writer thread: groups batches, never blocks the live feed, reports disk failures,
//! bounds its memory. Also measures what a batch costs with `synchronous=FULL`.

mod common;

use std::time::{Duration, Instant};

use dgt_core::{Core, CoreConfig, Input, InputKind};
use dgt_journal::{Batch, CapState, Journal, JournalWriter, Submitted, WriterSettings, recover};

use common::*;

fn rx_batch(t: u64, bytes: usize) -> Batch {
    let mut b = Batch::new();
    b.record_input(
        Input {
            t_ms: t,
            board: "board-1".into(),
            kind: InputKind::Rx(vec![0x8e; bytes]),
        },
        vec![],
    );
    b
}

#[test]
fn the_real_game_through_the_writer_recovers_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("j.sqlite");
    let writer = JournalWriter::start(Journal::open(&path).unwrap(), WriterSettings::default());
    let mut core = Core::new(CoreConfig::default());
    let inputs = real_capture();
    // One batch per call into the core, as a daemon handing over every step at once.
    run_live(&mut core, &inputs, |c, e| {
        let mut b = Batch::new();
        match c {
            dgt_journal::Cause::Input(i) => b.record_input(i, e),
            dgt_journal::Cause::Timers { until_ms } => b.record_timers(until_ms, e),
        }
        assert_eq!(writer.submit(b), Submitted::Queued);
    });
    assert!(writer.flush(Duration::from_secs(10)));
    let h = writer.health();
    assert_eq!(h.failure, None);
    assert_eq!(h.dropped_batches, 0);
    assert!(h.committed_transactions <= h.committed_batches);
    eprintln!(
        "writer: {} batches in {} transactions",
        h.committed_batches, h.committed_transactions
    );
    let journal = writer.stop().unwrap();
    let (recovered, report) = recover(&journal, CoreConfig::default()).unwrap();
    assert!(report.is_exact(), "{report:?}");
    assert_eq!(recovered.next_seq(), core.next_seq());
    eprintln!(
        "recovery of {} steps / {} events took {:?}",
        report.steps, report.journaled_events, report.duration
    );
}

#[test]
fn a_read_only_journal_is_reported_without_blocking_or_panicking() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("j.sqlite");
    drop(Journal::open(&path).unwrap());
    let settings = WriterSettings {
        retry_after: Duration::from_millis(20),
        ..Default::default()
    };
    let writer = JournalWriter::start(Journal::open_read_only(&path).unwrap(), settings);
    let started = Instant::now();
    for t in 0..100 {
        assert_eq!(writer.submit(rx_batch(t, 10)), Submitted::Queued);
    }
    assert!(
        started.elapsed() < Duration::from_millis(100),
        "submit never waits"
    );
    assert!(
        !writer.flush(Duration::from_secs(5)),
        "nothing can be committed"
    );
    let h = writer.health();
    let (kind, message) = h.failure.clone().expect("the failure is reported");
    assert_eq!(kind, "read_only");
    // The operator reads this text: it names the file and what to check.
    assert_eq!(
        message,
        format!(
            "journal {} is read-only (attempt to write a readonly database); nothing can be journaled: check the file's permissions and whether its file system was remounted read-only",
            path.display()
        )
    );
    assert_eq!(h.pending_batches, 100, "batches are kept for a retry");
    assert!(h.failed_attempts >= 1);
    drop(writer); // stops cleanly
}

#[test]
fn a_full_disk_is_reported_and_memory_stays_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("j.sqlite");
    let mut journal = Journal::open(&path).unwrap();
    journal.set_max_size(48 * 1024).unwrap();
    let settings = WriterSettings {
        max_queued_bytes: 200_000,
        retry_after: Duration::from_millis(10),
        max_group: 64,
        commit_window: Duration::ZERO,
    };
    let writer = JournalWriter::start(journal, settings);
    writer.submit(rx_batch(0, 10));
    assert!(writer.flush(Duration::from_secs(5)));
    let mut dropped = 0;
    for t in 1..400 {
        if writer.submit(rx_batch(t, 2000)) == Submitted::Dropped {
            dropped += 1;
        }
        std::thread::sleep(Duration::from_micros(200));
    }
    writer.flush(Duration::from_secs(5));
    let h = writer.health();
    assert_eq!(
        h.failure.as_ref().map(|f| f.0.as_str()),
        Some("disk_full"),
        "{h:?}"
    );
    assert!(dropped > 0 && h.dropped_batches == dropped, "{h:?}");
    assert!(h.pending_bytes <= 200_000, "{h:?}");
    assert!(h.committed_batches > 0, "{h:?}");
    let committed = h.committed_batches;
    drop(writer);

    // What was committed is intact and nothing else is there.
    let j = Journal::open(&path).unwrap();
    assert_eq!(j.step_count().unwrap(), committed);
}

/// Measures one batch per transaction (the worst case: one fsync each) and grouped
/// transactions. Prints the numbers; asserts only a generous bound.
#[test]
fn append_latency_with_synchronous_full() {
    let dir = tempfile::tempdir().unwrap();
    let mut j = Journal::open(&dir.path().join("j.sqlite")).unwrap();
    let n = 200;
    let started = Instant::now();
    for t in 0..n {
        j.append(&rx_batch(t, 10)).unwrap();
    }
    let single = started.elapsed() / n as u32;
    let batches: Vec<Batch> = (0..1000).map(|t| rx_batch(n + t, 10)).collect();
    let started = Instant::now();
    j.append_all(batches.iter()).unwrap();
    let grouped = started.elapsed();
    eprintln!(
        "append: {single:?} per single-batch transaction; 1000 batches in one transaction: \
         {grouped:?}"
    );
    assert!(single < Duration::from_millis(200));
}

#[test]
fn a_batch_the_journal_refuses_is_set_aside_and_the_rest_is_written() {
    use dgt_core::Event;
    use dgt_core::event::{ClockEvent, EventBody};
    let event = |seq| Event {
        seq,
        board: "board-1".into(),
        t_ms: seq,
        body: EventBody::Clock(ClockEvent {
            white_ms: None,
            black_ms: None,
            running: None,
            left_ms: 0,
            right_ms: 0,
            white_side: None,
        }),
        node: None,
        node_seq: None,
    };
    let with_event = |t, seq| {
        let mut b = rx_batch(t, 4);
        b.record_timers(t, vec![event(seq)]);
        b
    };
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("j.sqlite");
    let writer = JournalWriter::start(Journal::open(&path).unwrap(), WriterSettings::default());
    writer.submit(with_event(1, 1));
    writer.submit(with_event(2, 2));
    writer.submit(with_event(3, 2)); // seq 2 again: refused
    writer.submit(with_event(4, 3));
    assert!(writer.flush(Duration::from_secs(5)));
    let h = writer.health();
    assert_eq!(h.failure, None);
    assert_eq!(h.dropped_batches, 1);
    assert_eq!(writer.committed_seq(), 3);
    let j = writer.stop().unwrap();
    assert_eq!(j.last_seq().unwrap(), 3);
    assert_eq!(j.step_count().unwrap(), 6);
    assert_eq!(
        j.dropped_batches().unwrap(),
        1,
        "the gap is noted in the journal"
    );
}

fn wait_for(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// The commit window: a lone batch is committed at once; the batches that arrive within the
/// window after a commit wait for its end and go into the next transaction, whole. What was
/// committed is what a crash leaves: a copy of the files taken then (the database and its
/// WAL, as a power cut would find them once the fsync returned) opens with every row.
#[test]
fn a_burst_inside_the_commit_window_is_one_transaction_and_survives_a_crash() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("j.sqlite");
    let settings = WriterSettings {
        // Long, so that the burst below surely falls inside it on a loaded machine.
        commit_window: Duration::from_secs(10),
        ..Default::default()
    };
    let writer = JournalWriter::start(Journal::open(&path).unwrap(), settings);
    writer.submit(rx_batch(1, 8));
    // Not held for the window: nothing was committed before it.
    wait_for("the first commit", || {
        writer.health().committed_transactions == 1
    });
    // Spread over some 200 ms: without the window, each would find the writer idle and be
    // committed on its own.
    for t in 2..=51 {
        assert_eq!(writer.submit(rx_batch(t, 8)), Submitted::Queued);
        std::thread::sleep(Duration::from_millis(4));
    }
    wait_for("the burst's commit", || {
        writer.health().committed_batches == 51
    });
    let h = writer.health();
    assert_eq!(
        h.committed_transactions, 2,
        "the burst is one transaction: {h:?}"
    );

    // The crash: the files as they are now, the writer still holding the journal open.
    let crashed = tempfile::tempdir().unwrap();
    let copy = crashed.path().join("j.sqlite");
    std::fs::copy(&path, &copy).unwrap();
    let wal = dir.path().join("j.sqlite-wal");
    if wal.exists() {
        std::fs::copy(&wal, crashed.path().join("j.sqlite-wal")).unwrap();
    }
    let j = Journal::open(&copy).unwrap();
    let times: Vec<u64> = j.inputs().unwrap().iter().map(|i| i.t_ms).collect();
    assert_eq!(times, (1..=51).collect::<Vec<u64>>());
    drop(writer);
}

/// Whoever waits for a commit is told: the hook runs once the commit's seq is published.
#[test]
fn the_commit_hook_runs_after_each_commit() {
    use dgt_core::Event;
    use dgt_core::event::{ClockEvent, EventBody};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("j.sqlite");
    let writer = JournalWriter::start(Journal::open(&path).unwrap(), WriterSettings::default());
    let (told, commits) = std::sync::mpsc::channel();
    let told = std::sync::Mutex::new(told);
    writer.on_commit(move || {
        let _ = told.lock().unwrap().send(());
    });
    let mut b = rx_batch(1, 4);
    b.record_timers(
        1,
        vec![Event {
            seq: 1,
            board: "board-1".into(),
            t_ms: 1,
            body: EventBody::Clock(ClockEvent {
                white_ms: None,
                black_ms: None,
                running: None,
                left_ms: 0,
                right_ms: 0,
                white_side: None,
            }),
            node: None,
            node_seq: None,
        }],
    );
    writer.submit(b);
    commits
        .recv_timeout(Duration::from_secs(30))
        .expect("the hook ran");
    assert_eq!(writer.committed_seq(), 1);
}

/// A flush or a stop that comes while batches wait for the window's end still finds every
/// queued batch committed (each waits for the window's end at most).
#[test]
fn a_flush_and_a_stop_inside_the_window_commit_everything_queued() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("j.sqlite");
    let settings = WriterSettings {
        commit_window: Duration::from_millis(300),
        ..Default::default()
    };
    let writer = JournalWriter::start(Journal::open(&path).unwrap(), settings);
    for t in 1..=10 {
        assert_eq!(writer.submit(rx_batch(t, 8)), Submitted::Queued);
    }
    assert!(writer.flush(Duration::from_secs(30)));
    assert_eq!(writer.health().committed_batches, 10);
    for t in 11..=20 {
        assert_eq!(writer.submit(rx_batch(t, 8)), Submitted::Queued);
    }
    let journal = writer.stop().expect("the writer hands the journal back");
    assert_eq!(journal.step_count().unwrap(), 20);
}

/// The size cap never stops the round in play: past the cap the writer says so (`Reached`:
/// start no new round) and goes on journaling into the reserve; a warning comes first.
#[test]
fn the_size_cap_warns_and_never_stops_the_journal_at_the_cap() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("j.sqlite");
    let mut journal = Journal::open(&path).unwrap();
    journal.set_max_size(256 * 1024).unwrap();
    let settings = WriterSettings {
        commit_window: Duration::ZERO,
        ..WriterSettings::default()
    };
    let writer = JournalWriter::start(journal, settings);
    let mut seen = Vec::new();
    // About 260 KiB of pages: past the cap, inside its reserve.
    for t in 0..125 {
        writer.submit(rx_batch(t, 2000));
        assert!(writer.flush(Duration::from_secs(5)));
        let h = writer.health();
        assert_eq!(h.failure, None, "{h:?}");
        if seen.last() != Some(&h.cap) {
            seen.push(h.cap);
        }
    }
    assert_eq!(
        seen,
        [CapState::Below, CapState::Near, CapState::Reached],
        "{:?}",
        writer.health()
    );
    assert_eq!(writer.health().committed_batches, 125);
    drop(writer);
    assert_eq!(Journal::open(&path).unwrap().step_count().unwrap(), 125);
}

/// The size is measured at most once a second while commits follow each other, but never
/// left behind: without a flush, the size a last commit grew is measured within that second.
#[test]
fn the_size_after_the_last_commit_is_measured_without_a_flush() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("j.sqlite");
    let settings = WriterSettings {
        commit_window: Duration::ZERO,
        ..WriterSettings::default()
    };
    let writer = JournalWriter::start(Journal::open(&path).unwrap(), settings);
    writer.submit(rx_batch(0, 8));
    assert!(writer.flush(Duration::from_secs(5)));
    let before = writer.health().size_bytes;
    assert!(before > 0, "{:?}", writer.health());
    // About 400 KiB of pages, then nothing more: no flush asks for the size.
    for t in 1..=200 {
        writer.submit(rx_batch(t, 2000));
    }
    wait_for("the last batches committed", || {
        writer.health().committed_batches == 201
    });
    wait_for("the grown size measured", || {
        writer.health().size_bytes >= before + 300 * 1024
    });
}
