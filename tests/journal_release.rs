//! The daemon's promise to its clients: an event reaches a subscriber (the WebSocket feed,
//! the cluster publisher) only once the step that produced it is committed to the journal,
//! however long the journal writer gathers rows before a commit.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use dgt_arbiter::edge::daemon::{CoreOptions, DaemonClock, spawn_core};
use dgt_core::capture::parse_capture;
use dgt_journal::{Journal, JournalWriter, WriterSettings};
use tokio_util::sync::CancellationToken;

fn shared() -> PathBuf {
    let mut dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    while !dir.join("shared/captures").is_dir() {
        assert!(dir.pop(), "shared/ not found");
    }
    dir.join("shared")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_event_is_released_only_once_its_step_is_committed() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("j.sqlite");
    let settings = WriterSettings {
        // Far longer than the default, so that events wait for their commit visibly.
        commit_window: Duration::from_millis(200),
        ..Default::default()
    };
    let writer = Arc::new(JournalWriter::start(
        Journal::open(&path).unwrap(),
        settings,
    ));
    let stop = CancellationToken::new();
    let (handle, core) = spawn_core(
        CoreOptions {
            journal: Some(writer.clone()),
            ..Default::default()
        },
        DaemonClock::start(),
        stop.clone(),
    );
    let mut events = handle.subscribe();
    let text = std::fs::read_to_string(shared().join("captures/real-blitz-game-1.jsonl")).unwrap();
    let inputs = parse_capture(&text).unwrap();
    let sender = handle.inputs();
    let feeding = tokio::spawn(async move {
        for input in inputs {
            if sender.send(input).await.is_err() {
                return;
            }
        }
    });

    let mut released = 0u64;
    let mut last_seq = 0;
    while released < 200 {
        let e = match tokio::time::timeout(Duration::from_secs(30), events.recv()).await {
            Ok(Ok(e)) => e,
            Ok(Err(e)) => panic!("the subscriber lagged or the core stopped: {e}"),
            Err(_) => break,
        };
        let committed = writer.committed_seq();
        assert!(
            e.seq <= committed,
            "event {} released before its commit (committed seq {committed})",
            e.seq
        );
        assert!(e.seq > last_seq, "released in seq order");
        last_seq = e.seq;
        released += 1;
    }
    assert!(released >= 20, "the capture produced events ({released})");
    feeding.abort();
    stop.cancel();
    core.await.unwrap();
    let h = writer.health();
    assert_eq!(h.failure, None);
    assert!(
        h.committed_transactions < h.committed_batches,
        "steps were gathered into fewer transactions: {h:?}"
    );
}
