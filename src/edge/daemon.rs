//! The core task: owns the one [`Core`], takes every input over one channel, gives it the
//! daemon's time, fires the core's timers on time, records every input, and publishes the
//! events. Recording inputs (not events) is what makes a live session replayable: the
//! capture fed to `replay` produces the events this task published.
//!
//! Time is milliseconds since the daemon started, on the monotonic clock. Inputs are stamped
//! by whoever saw them happen (a port task stamps a byte when it was read) and the core task
//! makes the stream non-decreasing: an input stamped before the last timer fired or the last
//! input handled takes that later time, and is recorded with it, so `replay` sees exactly
//! the order the live core saw.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use dgt_core::{Core, CoreConfig, Event, Input, InputKind, Operation};
use tokio::sync::{broadcast, mpsc};
use tokio::task::JoinHandle;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::edge::serial::{self, PortScan, SerialContext, SerialTiming};

/// The daemon's clock: milliseconds since it started (monotonic).
#[derive(Debug, Clone, Copy)]
pub struct DaemonClock {
    epoch: Instant,
}

impl DaemonClock {
    pub fn start() -> Self {
        DaemonClock {
            epoch: Instant::now(),
        }
    }

    pub fn now_ms(&self) -> u64 {
        self.epoch.elapsed().as_millis() as u64
    }

    /// The instant a core time falls on.
    pub fn instant_at(&self, t_ms: u64) -> Instant {
        self.epoch + std::time::Duration::from_millis(t_ms)
    }
}

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
    pub recorders: Vec<Box<dyn InputRecorder>>,
    /// Print each event as one JSON line on stdout (`--print-events`).
    pub print_events: bool,
    /// How many events a slow subscriber may fall behind before it misses some.
    pub event_capacity: usize,
    /// How many inputs may wait for the core.
    pub input_capacity: usize,
}

impl Default for CoreOptions {
    fn default() -> Self {
        CoreOptions {
            core: CoreConfig::default(),
            recorders: Vec::new(),
            print_events: false,
            event_capacity: 4096,
            input_capacity: 4096,
        }
    }
}

/// The way in and out of the core task: send inputs (operator actions), subscribe to events.
#[derive(Clone)]
pub struct DaemonHandle {
    clock: DaemonClock,
    inputs: mpsc::Sender<Input>,
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
}

/// Starts the core task. It runs until `stop` is cancelled, then handles what is already
/// queued and returns.
pub fn spawn_core(
    options: CoreOptions,
    clock: DaemonClock,
    stop: CancellationToken,
) -> (DaemonHandle, JoinHandle<CoreSummary>) {
    let (inputs, rx) = mpsc::channel(options.input_capacity.max(1));
    let (events, _) = broadcast::channel(options.event_capacity.max(1));
    let handle = DaemonHandle {
        clock,
        inputs,
        events: events.clone(),
    };
    let task = tokio::spawn(core_loop(options, clock, rx, events, stop));
    (handle, task)
}

async fn core_loop(
    options: CoreOptions,
    clock: DaemonClock,
    mut rx: mpsc::Receiver<Input>,
    events: broadcast::Sender<Event>,
    stop: CancellationToken,
) -> CoreSummary {
    let mut core = Core::new(options.core);
    let mut out = Publisher {
        events,
        recorders: options.recorders,
        print_events: options.print_events,
        summary: CoreSummary::default(),
    };
    // The latest time the core has seen; inputs never go behind it.
    let mut now_ms = 0u64;
    loop {
        let deadline = core.next_deadline();
        tokio::select! {
            biased;
            _ = stop.cancelled() => break,
            input = rx.recv() => match input {
                Some(mut input) => {
                    input.t_ms = input.t_ms.max(now_ms);
                    now_ms = input.t_ms;
                    out.record(&input);
                    let produced = core.handle(&input);
                    out.publish(produced);
                }
                None => break,
            },
            _ = sleep_until_core_time(clock, deadline) => {
                if let Some(d) = deadline {
                    // Fire at the deadline itself, as replay does: a timer's events carry
                    // its own time, whatever the scheduler's lateness.
                    let t = d.max(now_ms);
                    now_ms = t;
                    let produced = core.advance(t);
                    out.publish(produced);
                }
            }
        }
    }
    // Whatever was sent before the stop is still handled and recorded.
    rx.close();
    while let Some(mut input) = rx.recv().await {
        input.t_ms = input.t_ms.max(now_ms);
        now_ms = input.t_ms;
        out.record(&input);
        let produced = core.handle(&input);
        out.publish(produced);
    }
    for r in &mut out.recorders {
        if let Err(e) = r.close() {
            tracing::error!("closing the capture: {e}");
        }
    }
    out.summary
}

async fn sleep_until_core_time(clock: DaemonClock, deadline: Option<u64>) {
    match deadline {
        Some(t) => tokio::time::sleep_until(clock.instant_at(t)).await,
        None => std::future::pending().await,
    }
}

/// The core task's outputs: recorders, the broadcast channel, stdout.
struct Publisher {
    events: broadcast::Sender<Event>,
    recorders: Vec<Box<dyn InputRecorder>>,
    print_events: bool,
    summary: CoreSummary,
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
        for e in produced {
            self.summary.events += 1;
            // No subscriber is not an error: the events are still recorded as inputs.
            let _ = self.events.send(e);
        }
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
        let clock = DaemonClock::start();
        let core_stop = CancellationToken::new();
        let (handle, core_task) = spawn_core(core, clock, core_stop.clone());
        let serial_stop = CancellationToken::new();
        let context = SerialContext {
            inputs: handle.inputs(),
            clock,
            labels: std::sync::Arc::new(serial.labels),
            timing: serial.timing,
        };
        let serial_task = serial::spawn(serial.scan, context, serial_stop.clone());
        Daemon {
            handle,
            serial_stop,
            core_stop,
            serial_task,
            core_task,
        }
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
