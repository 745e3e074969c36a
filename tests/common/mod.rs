//! Shared by the serial tests: a daemon on a fake port list with short timings, and a way
//! to watch the inputs it records. Real time only: ptys and a paused tokio clock do not mix
//! (rust-dependencies §7).

#![allow(dead_code)]

use std::time::Duration;

use dgt_arbiter::edge::daemon::{ChannelRecorder, CoreOptions, Daemon, SerialOptions};
use dgt_arbiter::edge::serial::{PortList, SerialTiming};
use dgt_core::{Input, InputKind, Link};
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
