//! A core snapshot as the journal takes it — its bytes ready, or the core's image still to
//! be serialised — and the row it is written to. [`crate::snapshots`] reads them back.

use std::sync::{Arc, Mutex, Weak};

use dgt_core::CoreImage;
use rusqlite::{Transaction, params};

/// Snapshots kept in the journal, newest first.
pub const KEPT: i64 = 3;

/// A core snapshot handed to the journal with the batch whose step it follows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CoreSnapshot {
    /// The seq the core gives its next event (`Core::next_seq`).
    pub next_seq: u64,
    /// The core time it was taken at (ms).
    pub t_ms: u64,
    /// What the bytes are (`dgt_core::SNAPSHOT_FORMAT`); the bytes' own header says it too.
    pub format: String,
    pub bytes: Vec<u8>,
}

/// A core snapshot handed to the journal as the core's image, with the batch whose step it
/// follows: the bytes are made on the writer's snapshot thread, never on the core task.
#[derive(Clone)]
pub struct ImageSnapshot {
    /// The core time it was taken at (ms).
    pub t_ms: u64,
    /// The seq the imaged core gives its next event.
    pub next_seq: u64,
    /// Shared by the batch's copies (a batch split between two segments); behind a mutex,
    /// never contended, because a session's caches are not shared between threads.
    image: Arc<Mutex<CoreImage>>,
}

/// Whether an image handed over is still to be saved ([`ImageSnapshot::in_flight`]).
#[derive(Debug, Clone, Default)]
pub struct InFlight(Weak<Mutex<CoreImage>>);

impl InFlight {
    /// True while the image is queued with its batch or being serialised.
    pub fn is_pending(&self) -> bool {
        self.0.strong_count() > 0
    }
}

impl ImageSnapshot {
    pub fn new(t_ms: u64, image: CoreImage) -> Self {
        ImageSnapshot {
            t_ms,
            next_seq: image.next_seq(),
            image: Arc::new(Mutex::new(image)),
        }
    }

    /// Alive while the image is still to be saved (queued with its batch, or being
    /// serialised): whoever takes images takes the next one only once this is gone, so
    /// that at most one image waits in memory and a slow disk cannot pile them up.
    pub fn in_flight(&self) -> InFlight {
        InFlight(Arc::downgrade(&self.image))
    }

    /// The snapshot's bytes (seconds at 300 boards: the snapshot thread's work).
    pub(crate) fn to_snapshot(&self) -> CoreSnapshot {
        CoreSnapshot {
            next_seq: self.next_seq,
            t_ms: self.t_ms,
            format: dgt_core::SNAPSHOT_FORMAT.into(),
            bytes: self
                .image
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner())
                .to_bytes(),
        }
    }
}

impl std::fmt::Debug for ImageSnapshot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ImageSnapshot")
            .field("t_ms", &self.t_ms)
            .field("next_seq", &self.next_seq)
            .finish()
    }
}

/// The same image (not merely an equal one: the sessions are not comparable).
impl PartialEq for ImageSnapshot {
    fn eq(&self, other: &Self) -> bool {
        self.t_ms == other.t_ms && Arc::ptr_eq(&self.image, &other.image)
    }
}

/// A snapshot as the journal holds it: the step it follows, without its bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SnapshotEntry {
    pub id: u64,
    /// The id of the step the core had just run when the snapshot was taken.
    pub after_step: u64,
    pub next_seq: u64,
    pub t_ms: u64,
    pub format: String,
    pub size: u64,
}

/// Stores `snapshot` as following step `after_step` and drops those beyond [`KEPT`].
pub(crate) fn insert(
    tx: &Transaction<'_>,
    after_step: u64,
    snapshot: &CoreSnapshot,
) -> rusqlite::Result<()> {
    tx.prepare_cached(
        "INSERT INTO snapshots (after_step, next_seq, t_ms, format, bytes) VALUES (?1, ?2, ?3, ?4, ?5)",
    )?
    .execute(params![
        after_step as i64,
        snapshot.next_seq as i64,
        snapshot.t_ms as i64,
        snapshot.format,
        snapshot.bytes
    ])?;
    tx.prepare_cached(
        "DELETE FROM snapshots WHERE id NOT IN \
         (SELECT id FROM snapshots ORDER BY after_step DESC, id DESC LIMIT ?1)",
    )?
    .execute([KEPT])?;
    Ok(())
}
