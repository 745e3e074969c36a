//! The daemon keeps a snapshot of the server's views in the journal every
//! `journal.view_snapshot_s` seconds and at a clean stop, so that a restart restores the
//! views from the newest one and applies only the events after it (see
//! `docs/journal.md`, "Views after a restart").
//!
//! A snapshot is stored only once the journal has committed every event in it: the views
//! never claim an event the journal could still lose.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use dgt_journal::JournalWriter;
use dgt_journal::view_snapshots::{SERVER_VIEWS, ViewSnapshotStore};
use dgt_server::ViewsTap;
use tokio_util::sync::CancellationToken;

/// How long a snapshot waits for the journal to commit the events in it.
const COMMIT_WAIT: Duration = Duration::from_secs(5);

/// Takes and stores the server's views snapshots.
pub struct ViewsKeeper {
    tap: ViewsTap,
    writer: Arc<JournalWriter>,
    path: PathBuf,
    store: Option<ViewSnapshotStore>,
    /// The seq of the last snapshot stored: an idle hall stores none again.
    stored_seq: Option<u64>,
}

impl ViewsKeeper {
    pub fn new(tap: ViewsTap, writer: Arc<JournalWriter>, path: PathBuf) -> Self {
        ViewsKeeper {
            tap,
            writer,
            path,
            store: None,
            stored_seq: None,
        }
    }

    /// Takes a snapshot and stores it once its events are committed. The seq stored, or
    /// `None` when nothing changed since the last one or the journal did not commit in
    /// time (the next turn tries again).
    pub fn store_now(&mut self) -> Result<Option<u64>, dgt_journal::JournalError> {
        let snapshot = self.tap.snapshot();
        if self.stored_seq == Some(snapshot.seq) {
            return Ok(None);
        }
        if snapshot.seq > self.writer.committed_seq()
            && (!self.writer.flush(COMMIT_WAIT) || snapshot.seq > self.writer.committed_seq())
        {
            tracing::debug!(
                seq = snapshot.seq,
                "views snapshot skipped: the journal has not committed its events yet"
            );
            return Ok(None);
        }
        let store = match &mut self.store {
            Some(s) => s,
            None => self.store.insert(ViewSnapshotStore::open(&self.path)?),
        };
        store.store(SERVER_VIEWS, snapshot.seq, &snapshot.bytes)?;
        self.stored_seq = Some(snapshot.seq);
        tracing::debug!(
            seq = snapshot.seq,
            bytes = snapshot.bytes.len(),
            "views snapshot stored"
        );
        Ok(Some(snapshot.seq))
    }

    /// Stores a snapshot every `every` until `stop`, then a last one.
    pub async fn run(mut self, every: Duration, stop: CancellationToken) {
        let mut tick = tokio::time::interval_at(tokio::time::Instant::now() + every, every);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            let last = tokio::select! {
                _ = stop.cancelled() => true,
                _ = tick.tick() => false,
            };
            // Snapshotting and writing are blocking work (copying the views, deflating,
            // SQLite): off the runtime's threads.
            let (keeper, result) = match tokio::task::spawn_blocking(move || {
                let r = self.store_now();
                (self, r)
            })
            .await
            {
                Ok(done) => done,
                Err(e) => {
                    tracing::error!("views snapshot task failed: {e}");
                    return;
                }
            };
            self = keeper;
            if let Err(e) = result {
                tracing::warn!(
                    "cannot store a views snapshot in the journal ({e}): a restart applies \
                     the events since the last one"
                );
            }
            if last {
                return;
            }
        }
    }
}
