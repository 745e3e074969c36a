//! When and how the hub saves its [`checkpoint`](super::checkpoint), and how a starting hub
//! restores one.
//!
//! A checkpoint holds the hub's state and its server's views at one stream position P. The
//! stream follower saves it between two messages: it notes the view's state at P (its last
//! hub seq S), waits until the server has applied every event up to S (it learns them
//! through a channel), takes the server's views ([`ViewsTap::snapshot`]) and, on a hub that
//! writes broadcast folders, the broadcast writer's books at the same seq
//! ([`BooksTap::snapshot`]), and writes the file on a blocking thread while it goes on
//! following.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use dgt_core::Event;
use dgt_server::{ViewsSnapshot, ViewsTap};
use tokio::sync::broadcast;

use super::checkpoint::{self, Checkpoint, Expected, Saved, StreamIdentity};
use super::local::NUMBERING_DIFFERS;
use super::reader::ReaderStats;
use super::view::HubView;
use super::{HubState, Shared, lock};
use crate::cluster::wire::unix_ms;
use crate::output::BooksTap;

/// How long the saver waits for the server to apply the events up to the checkpoint's seq
/// (a server far behind after a catch-up, on a slow machine).
const VIEWS_PATIENCE: Duration = Duration::from_secs(600);

/// What `/health` tells of the checkpoint (`hub.checkpoint`).
#[derive(Debug, Clone, Default)]
pub struct CheckpointStatus {
    pub path: Option<PathBuf>,
    /// The stream position the hub started from (restored), if it did.
    pub restored_position: Option<u64>,
    /// Why a checkpoint found at the start was not used.
    pub ignored: Option<String>,
    pub saved_position: Option<u64>,
    pub saved_unix_ms: Option<u64>,
    pub saved_bytes: Option<u64>,
    /// The last failure to save (cleared by the next success).
    pub problem: Option<String>,
}

impl CheckpointStatus {
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "path": self.path.as_ref().map(|p| p.display().to_string()),
            "restored_position": self.restored_position,
            "ignored": self.ignored,
            "saved_position": self.saved_position,
            "saved_unix_ms": self.saved_unix_ms,
            "saved_bytes": self.saved_bytes,
            "problem": self.problem,
        })
    }
}

/// Reads the checkpoint at `path` if it fits the stream now; anything else is logged and
/// noted, and the hub reads the stream from its start.
pub fn load(
    path: &Path,
    expected: &Expected<'_>,
    status: &mut CheckpointStatus,
) -> Option<Checkpoint> {
    status.path = Some(path.to_path_buf());
    match checkpoint::load(path, expected) {
        Ok(Some(c)) => {
            tracing::info!(
                path = %path.display(),
                position = c.saved.position,
                hub_seq = c.saved.view.seq,
                written_unix_ms = c.saved.written_unix_ms,
                "hub: starting from its checkpoint; reading the stream after it"
            );
            status.restored_position = Some(c.saved.position);
            Some(c)
        }
        Ok(None) => {
            tracing::info!(path = %path.display(), "hub: no checkpoint yet; reading the stream from its start");
            None
        }
        Err(e) => {
            tracing::warn!("hub: checkpoint ignored: {e}; reading the stream from its start");
            status.ignored = Some(e.to_string());
            None
        }
    }
}

/// Puts a restored checkpoint's hub state into `state` (the reader is resumed separately).
pub fn restore(state: &mut HubState, saved: Saved) -> ReaderStats {
    state.view = HubView::restore(saved.view);
    state.hub_subject_seq = saved.hub_subject_seq;
    state.stream_position = saved.position;
    state.remade_told = saved.remade_told;
    state.pending_acks = saved.pending_acks;
    if let Some((why, raised)) = saved.numbering_differs {
        state.local.set(NUMBERING_DIFFERS, Some(why), raised);
    }
    state.reader.recreated = saved.recreated;
    state.reader
}

/// A server that starts from a checkpoint's views; the events after them follow as its
/// history.
pub fn with_views(
    server: dgt_server::Server,
    seq: u64,
    bytes: Vec<u8>,
) -> Result<dgt_server::Server, dgt_server::ViewsError> {
    server.with_views(ViewsSnapshot { seq, bytes })
}

/// Saves the hub's checkpoint every so often.
pub struct Saver {
    pub path: PathBuf,
    pub every: Duration,
    pub stream: StreamIdentity,
    pub tap: ViewsTap,
    /// The broadcast writer's books, when the hub writes broadcast folders.
    pub books: Option<BooksTap>,
    /// The position of the last checkpoint written (none written again before it moves).
    last_position: u64,
    /// Since when a checkpoint is due (see [`Saver::due`]).
    due_since: Option<Instant>,
    writing: Option<tokio::task::JoinHandle<()>>,
}

impl Saver {
    pub fn new(
        path: PathBuf,
        every: Duration,
        stream: StreamIdentity,
        tap: ViewsTap,
        books: Option<BooksTap>,
    ) -> Self {
        Saver {
            path,
            every,
            stream,
            tap,
            books,
            last_position: 0,
            due_since: None,
            writing: None,
        }
    }

    /// Marks a checkpoint due (the interval passed).
    pub fn make_due(&mut self) {
        self.due_since.get_or_insert_with(Instant::now);
    }

    /// Whether to save now: a checkpoint is due and the server has taken every event sent
    /// (then saving pauses the follower for moments only) — or it has been due a whole
    /// interval while the server was behind (a catch-up): then the follower waits for it.
    pub fn due(&self, sent: &broadcast::Sender<Event>) -> bool {
        self.due_since
            .is_some_and(|since| sent.is_empty() || since.elapsed() >= self.every)
    }

    /// Saves a checkpoint at the position the hub's view is at now, unless it has not moved
    /// or the last one is still being written. Called by the follower between two messages.
    pub async fn save(&mut self, shared: &Shared, sent: &broadcast::Sender<Event>) {
        self.due_since = None;
        if self.writing.as_ref().is_some_and(|w| !w.is_finished()) {
            return;
        }
        let saved = {
            let state = lock(shared);
            if state.stream_position == self.last_position {
                return;
            }
            Saved {
                format: checkpoint::FORMAT,
                program: checkpoint::PROGRAM.into(),
                stream: self.stream.clone(),
                position: state.stream_position,
                written_unix_ms: unix_ms(),
                view: state.view.state(),
                hub_subject_seq: state.hub_subject_seq,
                recreated: state.reader.recreated,
                remade_told: state.remade_told,
                numbering_differs: state
                    .local
                    .open(NUMBERING_DIFFERS)
                    .map(|a| (a.message.clone(), a.raised_unix_ms)),
                pending_acks: state.pending_acks.clone(),
                views_seq: state.view.last_seq(),
            }
        };
        // The server learns events through a channel (`sent`): once it has taken every
        // event, its views are at the view's seq within moments (nothing else feeds it while
        // the follower waits here). A snapshot copies and encodes every view, so it is taken
        // once the channel is empty, off the runtime's workers.
        let started = Instant::now();
        let views = loop {
            while !sent.is_empty() {
                if started.elapsed() > VIEWS_PATIENCE {
                    self.failed(
                        shared,
                        format!(
                            "the server did not take the hub's events within {} s",
                            VIEWS_PATIENCE.as_secs()
                        ),
                    );
                    return;
                }
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
            let tap = self.tap.clone();
            let snap = match tokio::task::spawn_blocking(move || tap.snapshot()).await {
                Ok(snap) => snap,
                Err(e) => {
                    self.failed(shared, format!("taking the server's views: {e}"));
                    return;
                }
            };
            if snap.seq == saved.views_seq {
                break snap.bytes;
            }
            if snap.seq > saved.views_seq || started.elapsed() > VIEWS_PATIENCE {
                self.failed(
                    shared,
                    format!(
                        "the server's views are at seq {}, the hub's view at {}",
                        snap.seq, saved.views_seq
                    ),
                );
                return;
            }
        };
        let books = match self.books_at(saved.views_seq, started).await {
            Ok(books) => books,
            Err(why) => {
                self.failed(shared, why);
                return;
            }
        };
        let position = saved.position;
        self.last_position = position;
        let path = self.path.clone();
        let shared = shared.clone();
        self.writing = Some(tokio::task::spawn_blocking(move || {
            let written = checkpoint::write(
                &path,
                &Checkpoint {
                    saved,
                    views,
                    books,
                },
            );
            let mut state = lock(&shared);
            match written {
                Ok(bytes) => {
                    tracing::debug!(position, bytes, "hub: checkpoint saved");
                    let s = &mut state.checkpoint;
                    s.saved_position = Some(position);
                    s.saved_unix_ms = Some(unix_ms());
                    s.saved_bytes = Some(bytes);
                    s.problem = None;
                }
                Err(e) => {
                    let why = format!("cannot write {}: {e}", path.display());
                    tracing::error!("hub: checkpoint not saved: {why}");
                    state.checkpoint.problem = Some(why);
                }
            }
        }));
    }

    /// The broadcast books at hub seq `seq` (`None` on a hub without broadcast folders). The
    /// writer takes the same events as the server through the same channel, so once the
    /// channel is empty it is at `seq` within moments.
    async fn books_at(&self, seq: u64, started: Instant) -> Result<Option<Vec<u8>>, String> {
        let Some(tap) = &self.books else {
            return Ok(None);
        };
        loop {
            let Some((at, bytes)) = tap.snapshot().await else {
                return Err("the broadcast writer has stopped".into());
            };
            if at == seq {
                return Ok(Some(bytes));
            }
            if at > seq || started.elapsed() > VIEWS_PATIENCE {
                return Err(format!(
                    "the broadcast books are at seq {at}, the hub's view at {seq}"
                ));
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }

    fn failed(&mut self, shared: &Shared, why: String) {
        tracing::warn!("hub: checkpoint not saved: {why}");
        lock(shared).checkpoint.problem = Some(why);
    }

    /// Waits for a checkpoint being written (at shutdown).
    pub async fn finish(&mut self) {
        if let Some(w) = self.writing.take() {
            let _ = w.await;
        }
    }
}
