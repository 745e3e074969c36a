//! The daemon's promise to its clients: an event reaches a subscriber (the WebSocket feed,
//! the cluster publisher) only once the step that produced it is committed to the journal,
//! however long the journal writer gathers rows before a commit.

use std::sync::Arc;
use std::time::Duration;

use dgt_arbiter::edge::daemon::{CoreOptions, DaemonClock, spawn_core};
use dgt_core::capture::parse_capture;
use dgt_journal::{Journal, JournalWriter, WriterSettings};
use dgt_testkit::fixtures::real_game_capture;
use tokio_util::sync::CancellationToken;

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
    let inputs = parse_capture(&real_game_capture()).unwrap();
    // The cable pulled as the daemon stops: its events are the last the core produces.
    let last = inputs.last().cloned().unwrap();
    let unplugged = format!(
        r#"{{"board":"{}","link":{{"reason":"end of file","state":"disconnected"}},"t_ms":{}}}"#,
        last.board, last.t_ms
    );
    let unplugged = parse_capture(&unplugged).unwrap().remove(0);
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
    let _ = feeding.await;
    // Right after a commit (so inside the next commit window) the cable is pulled and the
    // daemon stops: those last events are held for their commit too, though nothing more
    // comes in.
    let commits = Arc::new(tokio::sync::Notify::new());
    let hook = commits.clone();
    writer.on_commit(move || hook.notify_one());
    let committed = commits.notified();
    handle.inputs().send(last.clone()).await.unwrap();
    committed.await;
    handle.inputs().send(unplugged).await.unwrap();
    stop.cancel();
    drop(handle);
    let mut at_stop = 0;
    loop {
        match tokio::time::timeout(Duration::from_secs(30), events.recv()).await {
            Ok(Ok(e)) => {
                let committed = writer.committed_seq();
                assert!(
                    e.seq <= committed,
                    "event {} released at the stop before its commit (committed seq {committed})",
                    e.seq
                );
                at_stop += 1;
            }
            Ok(Err(tokio::sync::broadcast::error::RecvError::Lagged(n))) => {
                panic!("the subscriber lagged by {n}")
            }
            Ok(Err(tokio::sync::broadcast::error::RecvError::Closed)) | Err(_) => break,
        }
    }
    core.await.unwrap();
    assert!(at_stop > 0, "events released as the core stopped");
    let h = writer.health();
    assert_eq!(h.failure, None);
    assert!(
        h.committed_transactions < h.committed_batches,
        "steps were gathered into fewer transactions: {h:?}"
    );
}
