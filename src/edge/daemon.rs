//! The core task: owns the one [`Core`], takes every input over one channel, gives it the
//! daemon's time, fires the core's timers on time, records every input, and publishes the
//! events. Recording inputs (not events) is what makes a live session replayable: the
//! capture fed to `replay` produces the events this task published.
//!
//! With a journal, every step (an input, or the timers fired up to a time) is handed to the
//! journal writer with the events it produced, and an event reaches subscribers only once
//! its step is committed: a client never sees an event that a restart could number
//! differently. If the journal fails (disk full, read-only), events are released anyway —
//! the live feed keeps working — and the failure is logged and shown in `/health`.
//!
//! Time is milliseconds since the daemon started, on the monotonic clock; a daemon restarted
//! from a journal continues from the journal's last time. Inputs are stamped
//! by whoever saw them happen (a port task stamps a byte when it was read) and the core task
//! makes the stream non-decreasing: an input stamped before the last timer fired or the last
//! input handled takes that later time, and is recorded with it, so `replay` sees exactly
//! the order the live core saw.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;

use dgt_core::{Core, CoreConfig, Event, Input, InputKind, Operation};
use dgt_journal::{Batch, JournalWriter, Submitted};
use tokio::sync::{broadcast, mpsc, oneshot};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::edge::metrics::DaemonMetrics;
use crate::edge::serial::{self, PortScan, SerialContext, SerialTiming};

pub use super::clock::DaemonClock;

/// Where inputs are recorded. Today a capture file; the SQLite journal will be another one.
pub trait InputRecorder: Send {
    fn record(&mut self, input: &Input) -> std::io::Result<()>;
    /// Called when the daemon stops.
    fn close(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A capture file (contract §2), one line per input, flushed after each line so a crash
/// loses nothing already handled.
pub struct CaptureWriter {
    out: BufWriter<File>,
}

impl CaptureWriter {
    /// Creates (or truncates) the file.
    pub fn create(path: &Path) -> std::io::Result<Self> {
        Ok(CaptureWriter {
            out: BufWriter::new(File::create(path)?),
        })
    }
}

impl InputRecorder for CaptureWriter {
    fn record(&mut self, input: &Input) -> std::io::Result<()> {
        writeln!(self.out, "{}", dgt_core::capture::write_line(input))?;
        self.out.flush()
    }

    fn close(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

/// Records into a channel (tests, and anything that wants the raw input stream).
pub struct ChannelRecorder(pub mpsc::UnboundedSender<Input>);

impl InputRecorder for ChannelRecorder {
    fn record(&mut self, input: &Input) -> std::io::Result<()> {
        let _ = self.0.send(input.clone());
        Ok(())
    }
}

/// Everything the core task needs.
pub struct CoreOptions {
    pub core: CoreConfig,
    /// A core rebuilt from the journal (`dgt_journal::recover`); a fresh one otherwise.
    pub recovered: Option<Core>,
    /// The journal writer: every step is journaled, events are released once committed.
    pub journal: Option<Arc<JournalWriter>>,
    /// Counters and histograms for `/metrics`.
    pub metrics: Arc<DaemonMetrics>,
    pub recorders: Vec<Box<dyn InputRecorder>>,
    /// Print each event as one JSON line on stdout (`--print-events`).
    pub print_events: bool,
    /// How many events a slow subscriber may fall behind before it misses some.
    pub event_capacity: usize,
    /// How many inputs may wait for the core.
    pub input_capacity: usize,
    /// Core time (ms) between two core snapshots handed to the journal with the step they
    /// follow (`journal.snapshot_every_s`); `None`: none.
    pub snapshot_every_ms: Option<u64>,
}

impl Default for CoreOptions {
    fn default() -> Self {
        CoreOptions {
            core: CoreConfig::default(),
            recovered: None,
            journal: None,
            metrics: Arc::default(),
            recorders: Vec::new(),
            print_events: false,
            event_capacity: 4096,
            input_capacity: 4096,
            snapshot_every_ms: None,
        }
    }
}

/// The way in and out of the core task: send inputs (operator actions), subscribe to events.
#[derive(Clone)]
pub struct DaemonHandle {
    clock: DaemonClock,
    inputs: mpsc::Sender<Input>,
    /// Actions whose sender waits until the core has taken them (and handed what they did
    /// to the journal writer): a cluster node answers the hub only then.
    handled: mpsc::Sender<(Input, oneshot::Sender<()>)>,
    events: broadcast::Sender<Event>,
}

impl DaemonHandle {
    /// Live events from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<Event> {
        self.events.subscribe()
    }

    /// The input channel (the serial edge and the HTTP server send here).
    pub fn inputs(&self) -> mpsc::Sender<Input> {
        self.inputs.clone()
    }

    pub fn clock(&self) -> DaemonClock {
        self.clock
    }

    /// The event broadcast itself (the server subscribes through it).
    pub fn events(&self) -> &broadcast::Sender<Event> {
        &self.events
    }

    /// Sends an operator or arbiter action for `board`, stamped now. Fails only when the
    /// core task has stopped.
    pub async fn send_op(&self, board: &str, op: Operation) -> Result<(), CoreStopped> {
        let input = Input {
            t_ms: self.clock.now_ms(),
            board: board.to_string(),
            kind: InputKind::Op(op),
        };
        self.inputs.send(input).await.map_err(|_| CoreStopped)
    }

    /// [`DaemonHandle::send_op`], returning once the core has handled the action and
    /// submitted its step to the journal writer (flush the writer to know it is on disk).
    pub async fn send_op_handled(&self, board: &str, op: Operation) -> Result<(), CoreStopped> {
        let input = Input {
            t_ms: self.clock.now_ms(),
            board: board.to_string(),
            kind: InputKind::Op(op),
        };
        let (done, handled) = oneshot::channel();
        self.handled
            .send((input, done))
            .await
            .map_err(|_| CoreStopped)?;
        handled.await.map_err(|_| CoreStopped)
    }
}

#[derive(Debug, thiserror::Error)]
#[error("the core task has stopped")]
pub struct CoreStopped;

/// What the core task did, returned when it stops.
#[derive(Debug, Default, Clone)]
pub struct CoreSummary {
    pub inputs: u64,
    pub events: u64,
    /// Recording errors (the first one is logged; the session goes on without the file).
    pub record_errors: u64,
    /// Steps the journal writer could not take (it was too far behind a failing disk).
    pub journal_dropped: u64,
    /// Core snapshots taken (as images handed to the journal).
    pub snapshots: u64,
    /// Core snapshots skipped because the previous one was still being written.
    pub snapshots_skipped: u64,
}

/// Starts the core task. It runs until `stop` is cancelled, then handles what is already
/// queued and returns.
pub fn spawn_core(
    options: CoreOptions,
    clock: DaemonClock,
    stop: CancellationToken,
) -> (DaemonHandle, JoinHandle<CoreSummary>) {
    let (handle, start) = prepare_core(options, clock, stop);
    (handle, start())
}

/// The core's channels now, the task when the returned function is called: whoever must
/// see every event (the server) subscribes in between.
fn prepare_core(
    options: CoreOptions,
    clock: DaemonClock,
    stop: CancellationToken,
) -> (DaemonHandle, impl FnOnce() -> JoinHandle<CoreSummary>) {
    let (inputs, rx) = mpsc::channel(options.input_capacity.max(1));
    let (handled, handled_rx) = mpsc::channel(64);
    let (events, _) = broadcast::channel(options.event_capacity.max(1));
    let handle = DaemonHandle {
        clock,
        inputs,
        handled,
        events: events.clone(),
    };
    let start = move || tokio::spawn(core_loop(options, clock, rx, handled_rx, events, stop));
    (handle, start)
}

async fn core_loop(
    options: CoreOptions,
    clock: DaemonClock,
    mut rx: mpsc::Receiver<Input>,
    mut handled: mpsc::Receiver<(Input, oneshot::Sender<()>)>,
    events: broadcast::Sender<Event>,
    stop: CancellationToken,
) -> CoreSummary {
    let mut core = options.recovered.unwrap_or_else(|| Core::new(options.core));
    let (release_tx, release_rx) = mpsc::unbounded_channel();
    let metrics = options.metrics.clone();
    let releaser = tokio::spawn(release_loop(
        release_rx,
        events,
        options.journal.clone(),
        metrics.clone(),
    ));
    // The latest time the core has seen; inputs never go behind it.
    let mut now_ms = clock.now_ms();
    let mut out = Publisher {
        release: release_tx,
        journal: options.journal,
        recorders: options.recorders,
        print_events: options.print_events,
        summary: CoreSummary::default(),
        snapshots: options
            .snapshot_every_ms
            .filter(|&every| every > 0)
            .map(|every| Snapshots {
                every_ms: every,
                last_ms: now_ms,
                in_flight: Default::default(),
            }),
    };
    loop {
        let deadline = core.next_deadline();
        tokio::select! {
            biased;
            _ = stop.cancelled() => break,
            input = rx.recv() => match input {
                Some(input) => handle_input(&mut core, &mut out, &metrics, clock, &mut now_ms, input),
                None => break,
            },
            Some((input, done)) = handled.recv() => {
                handle_input(&mut core, &mut out, &metrics, clock, &mut now_ms, input);
                let _ = done.send(());
            }
            _ = sleep_until_core_time(clock, deadline) => {
                if let Some(d) = deadline {
                    // Fire at the deadline itself, as replay does: a timer's events carry
                    // its own time, whatever the scheduler's lateness.
                    let t = d.max(now_ms);
                    now_ms = t;
                    let started = std::time::Instant::now();
                    let produced = core.advance(t);
                    metrics.core_step.observe(started.elapsed());
                    out.timers(t, produced, &core);
                }
            }
        }
    }
    // Whatever was sent before the stop is still handled and recorded.
    rx.close();
    while let Some(input) = rx.recv().await {
        handle_input(&mut core, &mut out, &metrics, clock, &mut now_ms, input);
    }
    handled.close();
    while let Some((input, done)) = handled.recv().await {
        handle_input(&mut core, &mut out, &metrics, clock, &mut now_ms, input);
        let _ = done.send(());
    }
    // Then the pending timers fire, as at the end of a replay: a move waiting for the board
    // to stay quiet is judged now rather than lost, and the journal of a stopped daemon
    // replays to exactly the events it published. (Bounded: each firing moves time on.)
    for _ in 0..1000 {
        let Some(d) = core.next_deadline() else { break };
        let t = d.max(now_ms);
        now_ms = t;
        let produced = core.advance(t);
        out.timers(t, produced, &core);
    }
    for r in &mut out.recorders {
        if let Err(e) = r.close() {
            tracing::error!("closing the capture: {e}");
        }
    }
    let summary = out.summary.clone();
    drop(out);
    let _ = releaser.await;
    summary
}

fn handle_input(
    core: &mut Core,
    out: &mut Publisher,
    metrics: &DaemonMetrics,
    clock: DaemonClock,
    now_ms: &mut u64,
    mut input: Input,
) {
    // An operator action is stamped when the core takes it (the server has its own clock).
    if matches!(input.kind, InputKind::Op(_)) {
        input.t_ms = clock.now_ms();
    }
    input.t_ms = input.t_ms.max(*now_ms);
    *now_ms = input.t_ms;
    out.record(&input);
    count(metrics, &input);
    let started = std::time::Instant::now();
    let produced = core.handle(&input);
    metrics.core_step.observe(started.elapsed());
    out.input(input, produced, core);
}

fn count(metrics: &DaemonMetrics, input: &Input) {
    use std::sync::atomic::Ordering::Relaxed;
    metrics.inputs.fetch_add(1, Relaxed);
    match &input.kind {
        InputKind::Rx(b) => {
            metrics.rx_bytes.fetch_add(b.len() as u64, Relaxed);
        }
        InputKind::Tx(b) => {
            metrics.tx_bytes.fetch_add(b.len() as u64, Relaxed);
        }
        InputKind::Link(dgt_core::Link::Disconnected { .. }) => {
            metrics.link_drops.fetch_add(1, Relaxed);
        }
        InputKind::Op(_) => {
            metrics.operator_actions.fetch_add(1, Relaxed);
        }
        InputKind::Link(_) => {}
    }
}

/// Events wait here until the journal has committed them (or the journal is failing).
async fn release_loop(
    mut rx: mpsc::UnboundedReceiver<Vec<Event>>,
    events: broadcast::Sender<Event>,
    journal: Option<Arc<JournalWriter>>,
    metrics: Arc<DaemonMetrics>,
) {
    let Some(journal) = journal else {
        while let Some(batch) = rx.recv().await {
            for e in batch {
                if matches!(e.body, dgt_core::EventBody::Move(_)) {
                    metrics.move_release.observe(Duration::ZERO);
                }
                // No subscriber is not an error: the inputs are still recorded.
                let _ = events.send(e);
            }
        }
        return;
    };
    // The writer says when it has committed (or failed): no polling while events wait.
    let commits = Arc::new(tokio::sync::Notify::new());
    let woken = commits.clone();
    journal.on_commit(move || woken.notify_one());
    let mut held: VecDeque<(tokio::time::Instant, Event)> = VecDeque::new();
    let mut open = true;
    while open || !held.is_empty() {
        if held.is_empty() {
            match rx.recv().await {
                Some(batch) => {
                    let now = tokio::time::Instant::now();
                    held.extend(batch.into_iter().map(|e| (now, e)));
                }
                None => open = false,
            }
        } else {
            // Woken by the next commit (a notification that came while nothing was held is
            // kept and only causes one look too many); the timer is for `RELEASE_ANYWAY`.
            tokio::select! {
                more = rx.recv(), if open => match more {
                    Some(batch) => {
                        let now = tokio::time::Instant::now();
                        held.extend(batch.into_iter().map(|e| (now, e)));
                    }
                    None => open = false,
                },
                _ = commits.notified() => {}
                _ = tokio::time::sleep(RELEASE_POLL) => {}
            }
        }
        let committed = journal.committed_seq();
        // A failing journal must not stop the feed: after a while, release anyway.
        let failing = journal.health().failure.is_some();
        while let Some((since, e)) = held.front() {
            // Also at the stop: the core's last events (the boards' disconnections, the timers
            // fired at the end) wait for their commit like any other.
            if e.seq <= committed || failing || since.elapsed() >= RELEASE_ANYWAY {
                let (since, e) = held.pop_front().expect("front exists");
                if matches!(e.body, dgt_core::EventBody::Move(_)) {
                    metrics.move_release.observe(since.elapsed());
                }
                let _ = events.send(e);
            } else {
                break;
            }
        }
    }
}

/// How often held events are checked against the journal's committed seq when no commit
/// says so (the writer notifies each commit; this only bounds `RELEASE_ANYWAY`'s lateness).
const RELEASE_POLL: Duration = Duration::from_millis(50);
/// An event not committed after this long goes out anyway (the disk is failing).
const RELEASE_ANYWAY: Duration = Duration::from_secs(2);

async fn sleep_until_core_time(clock: DaemonClock, deadline: Option<u64>) {
    match deadline {
        Some(t) => tokio::time::sleep_until(clock.instant_at(t)).await,
        None => std::future::pending().await,
    }
}

/// The core task's outputs: recorders, the journal, stdout, and the release queue.
struct Publisher {
    release: mpsc::UnboundedSender<Vec<Event>>,
    journal: Option<Arc<JournalWriter>>,
    recorders: Vec<Box<dyn InputRecorder>>,
    print_events: bool,
    summary: CoreSummary,
    /// When the core is next saved for the journal (none without a journal's setting).
    snapshots: Option<Snapshots>,
}

/// Core snapshots taken every `every_ms` of core time.
struct Snapshots {
    every_ms: u64,
    last_ms: u64,
    /// The last image handed to the journal, until it is serialised.
    in_flight: dgt_journal::InFlight,
}

impl Publisher {
    fn record(&mut self, input: &Input) {
        self.summary.inputs += 1;
        for r in &mut self.recorders {
            if let Err(e) = r.record(input) {
                if self.summary.record_errors == 0 {
                    tracing::error!("recording an input failed: {e}");
                }
                self.summary.record_errors += 1;
            }
        }
    }

    /// `core.handle(input)` produced `events`.
    fn input(&mut self, input: Input, events: Vec<Event>, core: &Core) {
        if let Some(j) = self.journal.clone() {
            let mut batch = Batch::new();
            let t_ms = input.t_ms;
            batch.record_input(input, events.clone());
            self.snapshot_if_due(&mut batch, t_ms, core);
            self.submit(j, batch);
        }
        self.publish(events);
    }

    /// `core.advance(t)` produced `events`. Journaled even when nothing came out: the
    /// timers changed the core's state, and recovery must fire them at the same point.
    fn timers(&mut self, t_ms: u64, events: Vec<Event>, core: &Core) {
        if let Some(j) = self.journal.clone() {
            let mut batch = Batch::new();
            batch.record_timers(t_ms, events.clone());
            self.snapshot_if_due(&mut batch, t_ms, core);
            self.submit(j, batch);
        }
        self.publish(events);
    }

    /// Adds the core's image to the batch of the step just made, when a snapshot is due:
    /// the journal serialises it on a thread of its own once the batch is committed and
    /// journals it as following exactly that step. The core task pays only for the copy
    /// (the serialisation took it 1.5 s at 300 boards). While the previous image is still
    /// being written this one is skipped (the next is due `every_ms` later).
    fn snapshot_if_due(&mut self, batch: &mut Batch, t_ms: u64, core: &Core) {
        let Some(s) = &mut self.snapshots else { return };
        if t_ms < s.last_ms.saturating_add(s.every_ms) {
            return;
        }
        s.last_ms = t_ms;
        if s.in_flight.is_pending() {
            self.summary.snapshots_skipped += 1;
            tracing::debug!(
                t_ms,
                skipped = self.summary.snapshots_skipped,
                "core snapshot skipped: the previous one is still being written"
            );
            return;
        }
        let started = std::time::Instant::now();
        let image = dgt_journal::ImageSnapshot::new(t_ms, core.image());
        tracing::debug!(
            t_ms,
            ms = started.elapsed().as_secs_f64() * 1000.0,
            "core image taken for a snapshot"
        );
        s.in_flight = image.in_flight();
        self.summary.snapshots += 1;
        batch.record_image(image);
    }

    fn submit(&mut self, journal: Arc<JournalWriter>, batch: Batch) {
        if journal.submit(batch) == Submitted::Dropped {
            self.summary.journal_dropped += 1;
        }
    }

    fn publish(&mut self, produced: Vec<Event>) {
        if produced.is_empty() {
            return;
        }
        if self.print_events {
            let mut stdout = std::io::stdout().lock();
            for e in &produced {
                let _ = writeln!(stdout, "{}", e.to_json());
            }
            let _ = stdout.flush();
        }
        self.summary.events += produced.len() as u64;
        let _ = self.release.send(produced);
    }
}

/// A running daemon: the core task and the serial edge feeding it.
pub struct Daemon {
    handle: DaemonHandle,
    serial_stop: CancellationToken,
    core_stop: CancellationToken,
    serial_task: JoinHandle<()>,
    core_task: JoinHandle<CoreSummary>,
}

/// How the serial edge of a daemon is set up.
pub struct SerialOptions {
    pub scan: Box<dyn PortScan>,
    pub labels: std::collections::BTreeMap<String, String>,
    pub timing: SerialTiming,
}

impl Daemon {
    /// Starts the core task, then the serial edge.
    pub fn start(core: CoreOptions, serial: SerialOptions) -> Self {
        Self::start_with_clock(core, serial, DaemonClock::start())
    }

    /// [`Daemon::start`] on a given clock (a restarted daemon continues the journal's time).
    pub fn start_with_clock(core: CoreOptions, serial: SerialOptions, clock: DaemonClock) -> Self {
        Self::start_with(core, serial, clock, |_| ()).0
    }

    /// [`Daemon::start_with_clock`], calling `before` with the handle before the core and
    /// the ports start, so that a subscriber made there misses no event.
    pub fn start_with<T>(
        core: CoreOptions,
        serial: SerialOptions,
        clock: DaemonClock,
        before: impl FnOnce(&DaemonHandle) -> T,
    ) -> (Self, T) {
        let core_stop = CancellationToken::new();
        let (handle, start) = prepare_core(core, clock, core_stop.clone());
        let before = before(&handle);
        let core_task = start();
        let serial_stop = CancellationToken::new();
        let (log_requests, _) = tokio::sync::broadcast::channel(64);
        tokio::spawn(serial::route_log_requests(
            handle.events().subscribe(),
            log_requests.clone(),
            serial_stop.clone(),
        ));
        let context = SerialContext {
            inputs: handle.inputs(),
            clock,
            labels: std::sync::Arc::new(serial.labels),
            timing: serial.timing,
            claims: Default::default(),
            log_requests,
        };
        let serial_task = serial::spawn(serial.scan, context, serial_stop.clone());
        let daemon = Daemon {
            handle,
            serial_stop,
            core_stop,
            serial_task,
            core_task,
        };
        (daemon, before)
    }

    pub fn handle(&self) -> &DaemonHandle {
        &self.handle
    }

    /// Stops cleanly: every port reports its link as disconnected, the core handles what
    /// is queued, the recorders are flushed.
    pub async fn shutdown(self) -> CoreSummary {
        self.serial_stop.cancel();
        let _ = self.serial_task.await;
        self.core_stop.cancel();
        self.core_task.await.unwrap_or_default()
    }
}

/// Waits for SIGINT (Ctrl-C) or SIGTERM (systemd stop).
pub async fn shutdown_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = term.recv() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}
