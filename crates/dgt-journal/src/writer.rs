//! The journal's one writer: a thread that owns the [`Journal`], fed through a channel.
//!
//! The live feed must never wait for the disk: [`JournalWriter::submit`] only queues. The
//! thread groups whatever is queued into one transaction (one fsync for a burst). Commits are
//! at least [`WriterSettings::commit_window`] apart: what arrives in between waits and joins
//! the next transaction, so that under load a WAL page is written (and fsynced) once for many
//! rows instead of once per row. A batch arriving after a quiet spell is committed at once; a
//! flush or a stop waits for the window's end at most. Nothing is lost by the wait: a batch is durable when
//! [`JournalWriter::committed_seq`] covers it, and everything that depends on the journal
//! (the event feed, the cluster publisher, acknowledgements) waits for exactly that. When the
//! disk fails (full, read-only) it keeps the batches and retries, reporting the failure in
//! [`JournalHealth`] for the daemon to turn into an alert. Memory is bounded: past the limit,
//! new batches are dropped, counted, logged loudly and noted in the journal as a gap.
//!
//! A core snapshot handed over as an image ([`crate::ImageSnapshot`]) is serialised on a
//! thread of its own once its batch is committed (seconds at 300 boards: neither the core
//! task nor the commits wait for it), and its row, naming the step it follows, is written by
//! this thread when the bytes are ready.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::batch::Batch;
use crate::core_snapshot::{CoreSnapshot, ImageSnapshot};
use crate::error::JournalError;
use crate::journal::Journal;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WriterSettings {
    /// Batches held in memory (queued or waiting for a retry) at most, in bytes.
    pub max_queued_bytes: usize,
    /// How long to wait before writing again after a failure.
    pub retry_after: Duration,
    /// At most this many batches in one transaction.
    pub max_group: usize,
    /// The least time from one commit's start to the next one's. Everything that arrives
    /// meanwhile is gathered into one transaction, so an event waits at most this long more
    /// before it is committed (and released to clients). Zero commits whatever is queued as
    /// soon as the previous commit is done.
    pub commit_window: Duration,
}

/// Measured at 1,000 blitz boards on one daemon (README, "Measured"): about 1,600 events and
/// some thousands of steps a second. Commits at most every 10 ms write each WAL page (and
/// fsync) at most 100 times a second; the wait adds at most 10 ms to an event's release,
/// well inside the 50 ms target for an event's latency.
pub const DEFAULT_COMMIT_WINDOW: Duration = Duration::from_millis(10);

/// How often the size is measured while commits follow each other: measuring it after every
/// commit (every 10 ms) still cost a ten-node bench's daemon about a twentieth of its CPU with
/// the statement cached, and the cap is warned of early (at `CAP_WARN_PERCENT`), so a second
/// is soon enough.
const SIZE_EVERY: Duration = Duration::from_secs(1);

impl Default for WriterSettings {
    fn default() -> Self {
        WriterSettings {
            max_queued_bytes: 64 * 1024 * 1024,
            retry_after: Duration::from_secs(1),
            max_group: 1024,
            commit_window: DEFAULT_COMMIT_WINDOW,
        }
    }
}

/// What the daemon reads to know whether the journal keeps up.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct JournalHealth {
    pub committed_batches: u64,
    pub committed_transactions: u64,
    /// Batches refused because the memory limit was reached: lost for the journal.
    pub dropped_batches: u64,
    /// Batches queued or waiting for a retry.
    pub pending_batches: usize,
    pub pending_bytes: usize,
    /// Set while writing fails: the error's kind ([`JournalError::kind`]) and message.
    pub failure: Option<(String, String)>,
    /// Failed write attempts so far.
    pub failed_attempts: u64,
    /// Duration of the last commit, in microseconds.
    pub last_commit_us: u64,
    /// The journal's size after the last commit (its free pages not counted).
    pub size_bytes: u64,
    /// Where the size stands against the cap (`journal.max_size_mb`).
    pub cap: CapState,
}

/// The journal's size against its cap. The cap never stops the journal mid-round: `Near`
/// warns, `Reached` says not to start a new round (the file still grows into its reserve,
/// [`crate::journal::CAP_RESERVE_PERCENT`] of the cap, so that the round in play ends
/// journaled).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum CapState {
    #[default]
    Below,
    Near,
    Reached,
}

impl CapState {
    pub fn name(self) -> &'static str {
        match self {
            CapState::Below => "below",
            CapState::Near => "near",
            CapState::Reached => "reached",
        }
    }

    fn of(size: u64, cap: Option<u64>) -> CapState {
        match cap {
            Some(cap) if size >= cap => CapState::Reached,
            Some(cap) if size >= cap / 100 * crate::journal::CAP_WARN_PERCENT => CapState::Near,
            _ => CapState::Below,
        }
    }
}

/// Whether a batch was taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Submitted {
    Queued,
    /// The memory limit was reached (the disk has been failing for a while), or the writer
    /// has stopped.
    Dropped,
}

enum Message {
    Batch(Batch, usize),
    Flush(Sender<bool>),
    Stop,
    /// A snapshot made from an image, following step `.0`.
    Snapshot(u64, CoreSnapshot),
}

/// Called by the writer thread after each commit and each failed write.
type CommitHook = Box<dyn Fn() + Send + Sync>;

struct Shared {
    queued_bytes: AtomicUsize,
    /// The highest event seq committed so far.
    committed_seq: AtomicU64,
    dropped: AtomicU64,
    health: Mutex<JournalHealth>,
    on_commit: Mutex<Vec<CommitHook>>,
    /// Called on the snapshot thread before it serialises an image.
    before_snapshot: Mutex<Vec<CommitHook>>,
}

impl Shared {
    fn notify(&self) {
        if let Ok(hooks) = self.on_commit.lock() {
            for hook in hooks.iter() {
                hook();
            }
        }
    }
}

pub struct JournalWriter {
    tx: Sender<Message>,
    sealer: Option<Sealer>,
    shared: Arc<Shared>,
    max_queued_bytes: usize,
    thread: Option<JoinHandle<Journal>>,
}

impl JournalWriter {
    /// Starts the writer thread; it owns the journal until [`JournalWriter::stop`].
    pub fn start(journal: Journal, settings: WriterSettings) -> JournalWriter {
        let (tx, rx) = mpsc::channel();
        let committed_seq = journal.last_seq().unwrap_or(0);
        let shared = Arc::new(Shared {
            queued_bytes: AtomicUsize::new(0),
            committed_seq: AtomicU64::new(committed_seq),
            dropped: AtomicU64::new(0),
            health: Mutex::new(JournalHealth::default()),
            on_commit: Mutex::new(Vec::new()),
            before_snapshot: Mutex::new(Vec::new()),
        });
        let max_queued_bytes = settings.max_queued_bytes;
        let sealer = Sealer::start(journal.path());
        let thread_shared = Arc::clone(&shared);
        let maker = SnapshotMaker::start(tx.clone(), Arc::clone(&shared));
        let thread = std::thread::Builder::new()
            .name("journal-writer".into())
            .spawn(move || write_loop(journal, settings, rx, thread_shared, maker))
            .expect("spawning the journal writer thread");
        JournalWriter {
            tx,
            sealer,
            shared,
            max_queued_bytes,
            thread: Some(thread),
        }
    }

    /// Queues a batch; never blocks.
    pub fn submit(&self, batch: Batch) -> Submitted {
        if batch.is_empty() {
            return Submitted::Queued;
        }
        let bytes = batch.approx_bytes();
        let before = self.shared.queued_bytes.fetch_add(bytes, Ordering::AcqRel);
        if before + bytes > self.max_queued_bytes {
            self.shared.queued_bytes.fetch_sub(bytes, Ordering::AcqRel);
            return self.drop_batch(&batch, "the journal writer is too far behind");
        }
        if self.tx.send(Message::Batch(batch, bytes)).is_err() {
            self.shared.queued_bytes.fetch_sub(bytes, Ordering::AcqRel);
            return Submitted::Dropped;
        }
        Submitted::Queued
    }

    fn drop_batch(&self, batch: &Batch, why: &str) -> Submitted {
        let n = self.shared.dropped.fetch_add(1, Ordering::AcqRel) + 1;
        // Loud, but not once per batch: the first, then every 100th.
        if n == 1 || n.is_multiple_of(100) {
            tracing::error!(
                dropped_batches = n,
                events = batch.event_count(),
                limit_bytes = self.max_queued_bytes,
                "{why}: batch dropped, the journal is no longer a complete record"
            );
        }
        if let Ok(mut h) = self.shared.health.lock() {
            h.dropped_batches = n;
        }
        Submitted::Dropped
    }

    /// The highest event seq that is committed (0 before the first). A feed that sends an
    /// event to clients only once its seq is committed guarantees that a client never saw an
    /// event a restart could number differently.
    pub fn committed_seq(&self) -> u64 {
        self.shared.committed_seq.load(Ordering::Acquire)
    }

    /// Calls `hook` on the writer thread after every commit (when [`JournalWriter::committed_seq`]
    /// has moved on) and every failed write (when [`JournalWriter::health`] has changed), so
    /// that whoever waits for a commit need not poll. Hooks stay for the writer's life; each
    /// must be quick (it runs between commits), e.g. a notification.
    pub fn on_commit(&self, hook: impl Fn() + Send + Sync + 'static) {
        if let Ok(mut hooks) = self.shared.on_commit.lock() {
            hooks.push(Box::new(hook));
        }
    }

    /// Calls `hook` on the snapshot thread before it serialises each image (a test holds it
    /// there to show that neither the core nor the journal waits for the serialisation).
    pub fn before_snapshot_bytes(&self, hook: impl Fn() + Send + Sync + 'static) {
        if let Ok(mut hooks) = self.shared.before_snapshot.lock() {
            hooks.push(Box::new(hook));
        }
    }

    /// The writer's state right now.
    pub fn health(&self) -> JournalHealth {
        let mut h = self
            .shared
            .health
            .lock()
            .map(|h| h.clone())
            .unwrap_or_default();
        h.dropped_batches = self.shared.dropped.load(Ordering::Acquire);
        h.pending_bytes = self.shared.queued_bytes.load(Ordering::Acquire);
        h
    }

    /// Waits until everything submitted so far is committed, at most `timeout`. False when
    /// it is not (the disk fails, or the time ran out).
    pub fn flush(&self, timeout: Duration) -> bool {
        let (reply, answer) = mpsc::channel();
        if self.tx.send(Message::Flush(reply)).is_err() {
            return false;
        }
        answer.recv_timeout(timeout).unwrap_or(false)
    }

    /// Writes what it can, stops the thread and hands the journal back.
    pub fn stop(mut self) -> Option<Journal> {
        drop(self.sealer.take());
        let _ = self.tx.send(Message::Stop);
        self.thread.take().and_then(|t| t.join().ok())
    }
}

impl Drop for JournalWriter {
    fn drop(&mut self) {
        drop(self.sealer.take());
        if let Some(t) = self.thread.take() {
            let _ = self.tx.send(Message::Stop);
            let _ = t.join();
        }
    }
}

fn write_loop(
    mut journal: Journal,
    settings: WriterSettings,
    rx: Receiver<Message>,
    shared: Arc<Shared>,
    mut maker: Option<SnapshotMaker>,
) -> Journal {
    let mut pending: VecDeque<(Batch, usize)> = VecDeque::new();
    // Snapshots made from images, waiting for their row.
    let mut made: Vec<(u64, CoreSnapshot)> = Vec::new();
    let mut waiters: Vec<Sender<bool>> = Vec::new();
    let mut failing_since: Option<Instant> = None;
    let mut retry_at = Instant::now();
    let mut gaps_recorded = 0u64;
    let mut stopping = false;
    // When the last commit started (none yet: the first batch is committed at once).
    let mut last_commit: Option<Instant> = None;
    // When the size was last measured.
    let mut sized_at: Option<Instant> = None;

    while !stopping {
        // Sleep until a message arrives, or until the retry is due while batches wait, or
        // until the size a last commit grew is due to be measured.
        let first = if !pending.is_empty() {
            rx.recv_timeout(retry_at.saturating_duration_since(Instant::now()))
        } else if let Some(at) = sized_at.filter(|_| size_stale(last_commit, sized_at)) {
            rx.recv_timeout((at + SIZE_EVERY).saturating_duration_since(Instant::now()))
        } else {
            rx.recv().map_err(|_| RecvTimeoutError::Disconnected)
        };
        let take = |m: Message,
                    pending: &mut VecDeque<(Batch, usize)>,
                    waiters: &mut Vec<Sender<bool>>,
                    made: &mut Vec<(u64, CoreSnapshot)>,
                    stopping: &mut bool| match m {
            Message::Batch(b, bytes) => pending.push_back((b, bytes)),
            Message::Flush(reply) => waiters.push(reply),
            Message::Stop => *stopping = true,
            Message::Snapshot(after_step, s) => made.push((after_step, s)),
        };
        match first {
            Ok(m) => take(m, &mut pending, &mut waiters, &mut made, &mut stopping),
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => stopping = true,
        }
        // The commit window: while the disk works, a commit follows the previous one's
        // start by at least `commit_window`; what arrives until then joins this transaction.
        // The thread sleeps rather than waits on the channel, so that the batches arriving
        // meanwhile only queue (a wake-up per batch cost the daemon more than the insert). A
        // flush or a stop already received skips the wait; one arriving during it waits at
        // most `commit_window` more.
        if failing_since.is_none()
            && !stopping
            && waiters.is_empty()
            && !pending.is_empty()
            && let Some(last) = last_commit
        {
            let left = (last + settings.commit_window).saturating_duration_since(Instant::now());
            if !left.is_zero() {
                std::thread::sleep(left);
            }
        }
        // Whatever else is queued joins this transaction.
        while let Ok(m) = rx.try_recv() {
            take(m, &mut pending, &mut waiters, &mut made, &mut stopping);
        }

        if !pending.is_empty()
            && (failing_since.is_none() || Instant::now() >= retry_at || stopping)
        {
            while !pending.is_empty() {
                // After a failure, one batch at a time: on a nearly full disk as much as
                // fits is kept, and grouping resumes with the first success.
                let group_limit = if failing_since.is_some() {
                    1
                } else {
                    settings.max_group.max(1)
                };
                let n = pending.len().min(group_limit);
                let started = Instant::now();
                last_commit = Some(started);
                let first_step = journal.next_step();
                match journal.append_all(pending.iter().take(n).map(|(b, _)| b)) {
                    Ok(()) => {
                        let group: Vec<(Batch, usize)> = pending.drain(..n).collect();
                        hand_images(&mut maker, &group, first_step);
                        committed(&shared, &group, started);
                        if let Some(since) = failing_since.take() {
                            tracing::warn!(
                                path = %journal.path().display(),
                                failed_for_s = since.elapsed().as_secs(),
                                "journal writes again; nothing queued was lost"
                            );
                        }
                    }
                    Err(e) if is_batch_fault(&e) => {
                        // Not the disk: one batch the journal refuses (a seq journaled
                        // twice). Write the group one by one and set aside the refused
                        // ones, so that a bad batch cannot stall the journal.
                        let group: Vec<(Batch, usize)> = pending.drain(..n).collect();
                        let mut rest = group.into_iter();
                        let mut disk_failed = false;
                        while let Some((batch, bytes)) = rest.next() {
                            let started = Instant::now();
                            let first_step = journal.next_step();
                            match journal.append(&batch) {
                                Ok(()) => {
                                    let group = [(batch, bytes)];
                                    hand_images(&mut maker, &group, first_step);
                                    committed(&shared, &group, started);
                                    failing_since = None;
                                }
                                Err(e) if is_batch_fault(&e) => {
                                    shared.queued_bytes.fetch_sub(bytes, Ordering::AcqRel);
                                    let n = shared.dropped.fetch_add(1, Ordering::AcqRel) + 1;
                                    tracing::error!(
                                        dropped_batches = n,
                                        "journal refused a batch, set aside: {e}"
                                    );
                                }
                                Err(e) => {
                                    // The disk failed meanwhile: keep order, retry later.
                                    let mut back: Vec<(Batch, usize)> = vec![(batch, bytes)];
                                    back.extend(rest.by_ref());
                                    for item in back.into_iter().rev() {
                                        pending.push_front(item);
                                    }
                                    report_failure(&shared, &journal, &e, failing_since.is_none());
                                    failing_since.get_or_insert_with(Instant::now);
                                    retry_at = Instant::now() + settings.retry_after;
                                    disk_failed = true;
                                    break;
                                }
                            }
                        }
                        if disk_failed {
                            break;
                        }
                    }
                    Err(e) => {
                        report_failure(&shared, &journal, &e, failing_since.is_none());
                        failing_since.get_or_insert_with(Instant::now);
                        retry_at = Instant::now() + settings.retry_after;
                        break;
                    }
                }
            }
        }
        if failing_since.is_none() {
            write_made(&mut journal, &mut made);
        }
        // The size (against the cap) at most every SIZE_EVERY while commits follow each
        // other, and before answering a flush or stopping, so that whoever flushed reads it
        // up to date.
        if size_stale(last_commit, sized_at)
            && (sized_at.is_none_or(|at| at.elapsed() >= SIZE_EVERY)
                || !waiters.is_empty()
                || stopping)
        {
            sized_at = Some(Instant::now());
            note_size(&shared, &journal);
        }
        // Batches dropped since the last note: mark the place in the journal, so that
        // recovery knows the record is incomplete from here.
        let dropped = shared.dropped.load(Ordering::Acquire);
        if failing_since.is_none() && dropped > gaps_recorded {
            match journal.record_gap(dropped - gaps_recorded) {
                Ok(()) => gaps_recorded = dropped,
                Err(e) => tracing::debug!(error = %e, "gap not recorded yet"),
            }
        }
        if let Ok(mut h) = shared.health.lock() {
            h.pending_batches = pending.len();
        }
        let done = pending.is_empty();
        for w in waiters.drain(..) {
            let _ = w.send(done);
        }
    }
    // The image being serialised is waited for (a second or two at 300 boards): the
    // restart then starts from it.
    if let Some(maker) = maker.take() {
        maker.finish();
        while let Ok(m) = rx.try_recv() {
            if let Message::Snapshot(after_step, s) = m {
                made.push((after_step, s));
            }
        }
    }
    if pending.is_empty() {
        write_made(&mut journal, &mut made);
    }
    if !pending.is_empty() {
        tracing::error!(
            path = %journal.path().display(),
            batches = pending.len(),
            "journal writer stopped with batches it could not write"
        );
    } else if let Err(e) = journal.tidy() {
        tracing::warn!(
            kind = e.kind(),
            "journal not tidied at stop (it stays readable): {e}"
        );
    }
    journal
}

/// Hands the images of a committed `group` (whose first step is `first_step`) to the
/// snapshot thread, each with the step it follows.
fn hand_images(maker: &mut Option<SnapshotMaker>, group: &[(Batch, usize)], first_step: u64) {
    let mut first = first_step;
    for (batch, _) in group {
        if let Some((n, image)) = batch.image() {
            let after_step = (first + n as u64).saturating_sub(1);
            match maker {
                Some(m) => m.make(after_step, image.clone()),
                None => tracing::warn!(
                    after_step,
                    "no snapshot thread: the core's image is not saved"
                ),
            }
        }
        first += batch.steps().len() as u64;
    }
}

/// Writes the snapshots made from images. A snapshot only shortens a restart: one that
/// cannot be written is logged and let go (recovery uses an older one, or replays).
fn write_made(journal: &mut Journal, made: &mut Vec<(u64, CoreSnapshot)>) {
    for (after_step, snapshot) in made.drain(..) {
        match journal.insert_snapshot(after_step, &snapshot) {
            Ok(()) => tracing::debug!(
                after_step,
                bytes = snapshot.bytes.len(),
                "core snapshot journaled"
            ),
            Err(e) => tracing::warn!(
                kind = e.kind(),
                after_step,
                "core snapshot not journaled (a restart replays more): {e}"
            ),
        }
    }
}

/// The thread that turns the core's images into snapshots' bytes (serde_json and deflate:
/// 1.5 s at 300 boards in release), beside the writer, which goes on committing meanwhile
/// and writes each snapshot's row when its bytes come back.
struct SnapshotMaker {
    images: Option<Sender<(u64, ImageSnapshot)>>,
    thread: Option<JoinHandle<()>>,
}

impl SnapshotMaker {
    fn start(writer: Sender<Message>, shared: Arc<Shared>) -> Option<SnapshotMaker> {
        let (images, rx) = mpsc::channel::<(u64, ImageSnapshot)>();
        let thread = std::thread::Builder::new()
            .name("journal-snapshot".into())
            .spawn(move || {
                for (after_step, image) in rx {
                    if let Ok(hooks) = shared.before_snapshot.lock() {
                        for hook in hooks.iter() {
                            hook();
                        }
                    }
                    let started = Instant::now();
                    let snapshot = image.to_snapshot();
                    // The image is let go now: whoever waits for it may take the next.
                    drop(image);
                    tracing::debug!(
                        after_step,
                        bytes = snapshot.bytes.len(),
                        ms = started.elapsed().as_secs_f64() * 1000.0,
                        "core snapshot serialised off the core task"
                    );
                    if writer
                        .send(Message::Snapshot(after_step, snapshot))
                        .is_err()
                    {
                        break;
                    }
                }
            });
        match thread {
            Ok(thread) => Some(SnapshotMaker {
                images: Some(images),
                thread: Some(thread),
            }),
            Err(e) => {
                tracing::warn!("no snapshot thread, core snapshots are not saved: {e}");
                None
            }
        }
    }

    fn make(&self, after_step: u64, image: ImageSnapshot) {
        if let Some(images) = &self.images {
            let _ = images.send((after_step, image));
        }
    }

    /// Waits for the images handed over so far to be serialised.
    fn finish(mut self) {
        drop(self.images.take());
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// How often the sealer looks whether enough rows gathered: at 1,000 boards the rows grow
/// by about 3,000 steps a second, so they stay under two blocks.
const SEAL_EVERY: Duration = Duration::from_millis(500);

/// The thread that seals the journal's oldest rows into blocks (see [`crate::sealed`]), on a
/// connection of its own: reading the rows and deflating them happens beside the writer,
/// which waits for the sealer's short write transaction at most, never for the deflate.
struct Sealer {
    stop: Option<Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl Sealer {
    fn start(path: &std::path::Path) -> Option<Sealer> {
        let mut journal = match Journal::open_sealer(path) {
            Ok(Some(j)) => j,
            Ok(None) => return None,
            Err(e) => {
                tracing::warn!(kind = e.kind(), "journal rows will not be sealed: {e}");
                return None;
            }
        };
        let (stop, stopped) = mpsc::channel::<()>();
        let thread = std::thread::Builder::new()
            .name("journal-sealer".into())
            .spawn(move || {
                while let Err(RecvTimeoutError::Timeout) = stopped.recv_timeout(SEAL_EVERY) {
                    if let Err(e) = journal.seal_pending() {
                        tracing::warn!(
                            kind = e.kind(),
                            "journal rows not sealed (kept as rows): {e}"
                        );
                    }
                }
            })
            .ok()?;
        Some(Sealer {
            stop: Some(stop),
            thread: Some(thread),
        })
    }
}

impl Drop for Sealer {
    fn drop(&mut self) {
        drop(self.stop.take());
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// True for a failure of the batch itself (a constraint), not of the disk or the file.
fn is_batch_fault(e: &JournalError) -> bool {
    matches!(
        e,
        JournalError::Sqlite { source, .. }
            if source.sqlite_error_code() == Some(rusqlite::ErrorCode::ConstraintViolation)
    )
}

/// Books a committed group: memory released, counters and the committed seq advanced.
fn committed(shared: &Shared, group: &[(Batch, usize)], started: Instant) {
    let bytes: usize = group.iter().map(|(_, s)| s).sum();
    shared.queued_bytes.fetch_sub(bytes, Ordering::AcqRel);
    let last_seq = group
        .iter()
        .flat_map(|(b, _)| b.steps())
        .flat_map(|s| s.events.iter().map(|e| e.seq))
        .max();
    if let Some(seq) = last_seq {
        shared.committed_seq.fetch_max(seq, Ordering::AcqRel);
    }
    if let Ok(mut h) = shared.health.lock() {
        h.committed_batches += group.len() as u64;
        h.committed_transactions += 1;
        h.failure = None;
        h.last_commit_us = started.elapsed().as_micros() as u64;
    }
    shared.notify();
}

/// Whether the size is still to be measured: never yet, or a commit started since.
fn size_stale(last_commit: Option<Instant>, sized_at: Option<Instant>) -> bool {
    sized_at.is_none_or(|at| last_commit.is_some_and(|c| c >= at))
}

/// Measures the journal's size and its state against the cap (`journal.max_size_mb`),
/// warning when it nears or reaches it.
fn note_size(shared: &Shared, journal: &Journal) {
    let Ok(size) = journal.size_bytes() else {
        return;
    };
    if let Ok(mut h) = shared.health.lock() {
        h.size_bytes = size;
        let cap = CapState::of(size, journal.max_size());
        if cap != h.cap && cap != CapState::Below {
            tracing::warn!(
                path = %journal.path().display(),
                size_mib = size / (1024 * 1024),
                cap_mib = journal.max_size().unwrap_or(0) / (1024 * 1024),
                state = cap.name(),
                "the journal nears or has reached its size cap (journal.max_size_mb): the \
                 round in play goes on being journaled; free space or raise the cap \
                 before the next round"
            );
        }
        h.cap = cap;
    }
}

fn report_failure(shared: &Shared, journal: &Journal, e: &JournalError, first: bool) {
    if first
        && matches!(e, JournalError::DiskFull { .. })
        && let Some(cap) = journal.max_size()
    {
        tracing::error!(
            path = %journal.path().display(),
            cap_mib = cap / (1024 * 1024),
            "the journal reached its size cap (journal.max_size_mb) or the disk is full: \
             events wait in memory and are retried; raise the cap and restart, or free space"
        );
    }
    if first {
        tracing::error!(
            path = %journal.path().display(),
            kind = e.kind(),
            "journal write failed, batches kept in memory and retried: {e}"
        );
    } else {
        tracing::debug!(kind = e.kind(), "journal write failed again: {e}");
    }
    if let Ok(mut h) = shared.health.lock() {
        h.failure = Some((e.kind().to_string(), e.to_string()));
        h.failed_attempts += 1;
    }
    shared.notify();
}
