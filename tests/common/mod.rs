//! Shared by the serial tests: a daemon on a fake port list with short timings, and a way
//! to watch the inputs it records or the events it publishes; emulated games on a pty. Real
//! time only: ptys and a paused tokio clock do not mix (rust-dependencies §7).

#![allow(dead_code)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use dgt_arbiter::edge::daemon::{ChannelRecorder, CoreOptions, Daemon, DaemonClock, SerialOptions};
use dgt_arbiter::edge::serial::{PortList, SerialTiming};
use dgt_core::{Event, Input, InputKind, Link};
use dgt_emulator::{BoardSpec, EmulatedBoard, HandlingRates, TimeControl, Truth};
use dgt_lab::simulated::emulated::{GameSeries, SeriesBoard};
use dgt_lab::simulated::pty_board::SharedBoard;
use dgt_lab::simulated::scripted_board::{ScriptedBoard, ScriptedBoardSpec};
use dgt_protocol::{BoardMessage, Decoded, Decoder, LineMode};
use tokio::sync::mpsc;

/// The defaults divided by about five, so a test sees heartbeats and reconnects in seconds.
pub fn fast_timing() -> SerialTiming {
    SerialTiming {
        scan_interval: Duration::from_millis(200),
        heartbeat: Duration::from_millis(300),
        dead_after: Duration::from_millis(1000),
        identify_timeout: Duration::from_millis(800),
        command_gap: Duration::from_millis(20),
        write_timeout: Duration::from_millis(600),
        backoff_min: Duration::from_millis(100),
        backoff_max: Duration::from_millis(400),
        read_board_log: false,
    }
}

/// A board that starts moving soon and keeps a steady pace.
pub fn quick_board(serial: &str) -> ScriptedBoard {
    let mut spec = ScriptedBoardSpec::new(serial);
    spec.seed = 7;
    // The board's time starts when it is built, not when the daemon finds its port: the
    // core starts a game only once the start position has stood still for `settle_ms`
    // (250 ms) after the first dump, so a first move sooner than that after a slow
    // discovery (≈ 200 ms on a loaded machine) left the whole game untracked.
    spec.first_move_ms = 1000;
    spec.move_interval_ms = 400;
    spec.update_gap_ms = 40;
    spec.max_plies = 500;
    ScriptedBoard::new(spec)
}

pub struct Harness {
    pub daemon: Daemon,
    pub ports: PortList,
    pub inputs: Inputs,
}

pub fn start_daemon() -> Harness {
    // `RUST_LOG=debug cargo test …` shows what the port tasks did.
    if std::env::var_os("RUST_LOG").is_some() {
        let _ = tracing_subscriber::fmt()
            .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
            .with_test_writer()
            .try_init();
    }
    let ports = PortList::new();
    let (tx, rx) = mpsc::unbounded_channel();
    let daemon = Daemon::start(
        CoreOptions {
            recorders: vec![Box::new(ChannelRecorder(tx))],
            ..Default::default()
        },
        SerialOptions {
            scan: Box::new(ports.clone()),
            labels: Default::default(),
            timing: fast_timing(),
        },
    );
    Harness {
        daemon,
        ports,
        inputs: Inputs {
            rx,
            seen: Vec::new(),
        },
    }
}

/// Every input the daemon recorded, in order.
pub struct Inputs {
    rx: mpsc::UnboundedReceiver<Input>,
    pub seen: Vec<Input>,
}

impl Inputs {
    /// Collects inputs until `done` holds for them (true) or `within` passes (false).
    pub async fn until(&mut self, within: Duration, done: impl Fn(&[Input]) -> bool) -> bool {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            if done(&self.seen) {
                return true;
            }
            match tokio::time::timeout_at(deadline, self.rx.recv()).await {
                Ok(Some(input)) => self.seen.push(input),
                Ok(None) | Err(_) => return done(&self.seen),
            }
        }
    }

    /// Collects for a while, whatever comes.
    pub async fn for_a_while(&mut self, d: Duration) {
        self.until(d, |_| false).await;
    }
}

pub fn is_connected(i: &Input) -> bool {
    matches!(i.kind, InputKind::Link(Link::Connected { .. }))
}

pub fn is_disconnected(i: &Input) -> bool {
    matches!(i.kind, InputKind::Link(Link::Disconnected { .. }))
}

pub fn disconnect_reason(i: &Input) -> Option<&str> {
    match &i.kind {
        InputKind::Link(Link::Disconnected { reason, .. }) => reason.as_deref(),
        _ => None,
    }
}

pub fn count(inputs: &[Input], pred: impl Fn(&Input) -> bool) -> usize {
    inputs.iter().filter(|i| pred(i)).count()
}

/// The board messages in the received bytes of `inputs` (one decoder over the stream).
pub fn received_messages(inputs: &[Input]) -> Vec<(u64, BoardMessage)> {
    let mut decoder = Decoder::new(LineMode::Single);
    let mut out = Vec::new();
    for i in inputs {
        if let InputKind::Rx(bytes) = &i.kind {
            for d in decoder.decode(bytes) {
                if let Decoded::Message(m) = d {
                    out.push((i.t_ms, m));
                }
            }
        }
    }
    out
}

pub fn field_updates(inputs: &[Input]) -> usize {
    received_messages(inputs)
        .iter()
        .filter(|(_, m)| matches!(m, BoardMessage::FieldUpdate { .. }))
        .count()
}

pub fn sent_bytes(inputs: &[Input]) -> Vec<u8> {
    inputs
        .iter()
        .filter_map(|i| match &i.kind {
            InputKind::Tx(b) => Some(b.clone()),
            _ => None,
        })
        .flatten()
        .collect()
}

/// An emulated game of `plies` at most on board `serial` from `seed`, clean handling at
/// 60+1, its clock started `start_delay_ms` after the board is plugged in.
pub fn clean_spec(serial: u32, seed: u64, plies: usize, start_delay_ms: u64) -> BoardSpec {
    let mut spec = BoardSpec::random(seed, plies)
        .with_rates(HandlingRates::clean())
        .with_time_control(TimeControl::parse("60+1").unwrap());
    spec.serial = serial;
    spec.start_delay_ms = start_delay_ms;
    spec
}

/// A short bullet game on a bus line. The clock starts 6 s after power-up, once the poller
/// has found every board (a broadcast round takes 1.25 s and collisions cost a few).
pub fn bus_spec(serial: u32, seed: u64, plies: usize) -> BoardSpec {
    clean_spec(serial, seed, plies, 6000)
}

/// The emulated boards of a bus line, one a serial number, each playing `bus_spec`'s game
/// from `seed` on (the first board `seed`, the next `seed + 1`, …), with their truths.
pub fn bus_line_of(
    serials: &[u32],
    seed: u64,
    plies: usize,
) -> (Vec<EmulatedBoard>, Vec<(u32, Truth)>) {
    let boards: Vec<EmulatedBoard> = serials
        .iter()
        .enumerate()
        .map(|(i, &s)| EmulatedBoard::new(bus_spec(s, seed + i as u64, plies)))
        .collect();
    let truths = truths_of(serials, &boards);
    (boards, truths)
}

/// Each board's truth (what its players play), by its serial number.
pub fn truths_of(serials: &[u32], boards: &[EmulatedBoard]) -> Vec<(u32, Truth)> {
    serials
        .iter()
        .zip(boards)
        .map(|(&s, b)| (s, b.truth().clone()))
        .collect()
}

/// The label of a board no table names: `board-` and its serial number.
pub fn label(serial: u32) -> String {
    format!("board-{serial:05}")
}

/// Emulated games of `plies` at most on board `serial`, from `seed` on, clean handling at
/// 60+1, the first starting `start_delay_ms` after the board is plugged in.
pub fn clean_series(serial: u32, seed: u64, plies: usize, start_delay_ms: u64) -> GameSeries {
    GameSeries {
        serial,
        first_seed: seed,
        seed_step: 1,
        template: Some(clean_spec(serial, seed, plies, start_delay_ms)),
    }
}

/// The moves the emulated players completed (pressed) by board time `t_ms`: the truth holds
/// the whole game planned ahead.
pub fn made_by(board: &SharedBoard<SeriesBoard>, t_ms: u64) -> Vec<String> {
    let b = board.lock().unwrap();
    b.current()
        .1
        .truth()
        .moves
        .iter()
        .take_while(|m| m.t_pressed_ms.unwrap_or(m.t_made_ms) <= t_ms)
        .map(|m| m.uci.clone())
        .collect()
}

/// A daemon on a fake port list whose published events are collected.
pub struct Running {
    pub daemon: Daemon,
    pub ports: PortList,
    pub clock: DaemonClock,
    pub events: Arc<Mutex<Vec<Event>>>,
}

/// Starts a daemon with the short timings, reading the boards' logs at a re-plug or not.
pub fn start_collecting(read_board_log: bool) -> Running {
    let ports = PortList::new();
    let clock = DaemonClock::start();
    let (daemon, mut feed) = Daemon::start_with(
        CoreOptions::default(),
        SerialOptions {
            scan: Box::new(ports.clone()),
            labels: Default::default(),
            timing: SerialTiming {
                read_board_log,
                ..fast_timing()
            },
        },
        clock,
        |h| h.subscribe(),
    );
    let events: Arc<Mutex<Vec<Event>>> = Arc::default();
    let sink = events.clone();
    tokio::spawn(async move {
        while let Ok(e) = feed.recv().await {
            sink.lock().unwrap().push(e);
        }
    });
    Running {
        daemon,
        ports,
        clock,
        events,
    }
}
