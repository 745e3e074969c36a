//! DGT bus mode end to end (protocol §2.4, §3.7): emulated boards share one pseudo-terminal
//! declared `bus = true`; the real daemon finds them by ping, polls them by address and
//! rebuilds every board's game, move for move as the emulator's truth says. This is the
//! smoke test of the I/O; the poller's cases (garbled and missing packets, a board cut off
//! and found again, reopening) run on virtual time in `bus_poller.rs`.

mod common;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{bus_line_of, fast_timing, label};
use dgt_arbiter::edge::daemon::{ChannelRecorder, CoreOptions, Daemon, DaemonClock, SerialOptions};
use dgt_arbiter::edge::serial::{ExplicitPort, ScanMode, SystemPorts};
use dgt_arbiter::test_support::moves::{assert_first_games, first_games};
use dgt_core::{Event, Input, InputKind, Link};
use dgt_emulator::Truth;
use dgt_lab::simulated::bus_line_board::BusLineBoard;
use dgt_lab::simulated::pty_board::{self, BoardClock, PtyBoard};
use tokio::sync::mpsc;

/// The inputs the daemon recorded, in order.
struct Recorded {
    rx: mpsc::UnboundedReceiver<Input>,
    seen: Vec<Input>,
}

impl Recorded {
    async fn for_a_while(&mut self, d: Duration) {
        let deadline = tokio::time::Instant::now() + d;
        while let Ok(Some(input)) = tokio::time::timeout_at(deadline, self.rx.recv()).await {
            self.seen.push(input);
        }
    }
}

struct Bus {
    daemon: Daemon,
    inputs: Recorded,
    events: Arc<Mutex<Vec<Event>>>,
    _pty: PtyBoard,
}

/// The daemon, configured with one bus port: the pty of `line`.
fn start(line: BusLineBoard) -> Bus {
    if std::env::var_os("RUST_LOG").is_some() {
        let _ = tracing_subscriber::fmt()
            .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
            .with_test_writer()
            .try_init();
    }
    let pty = PtyBoard::plug_in(pty_board::share(line), BoardClock::start(), None).unwrap();
    let port = ExplicitPort {
        path: pty.path().to_path_buf(),
        bus: true,
        ..Default::default()
    };
    let (tx, rx) = mpsc::unbounded_channel();
    let events = Arc::new(Mutex::new(Vec::new()));
    let (daemon, mut feed) = Daemon::start_with(
        CoreOptions {
            recorders: vec![Box::new(ChannelRecorder(tx))],
            ..Default::default()
        },
        SerialOptions {
            scan: Box::new(SystemPorts::new(ScanMode::Off, vec![port])),
            labels: Default::default(),
            timing: fast_timing(),
        },
        DaemonClock::start(),
        |h| h.subscribe(),
    );
    let sink = events.clone();
    tokio::spawn(async move {
        while let Ok(e) = feed.recv().await {
            sink.lock().unwrap().push(e);
        }
    });
    Bus {
        daemon,
        inputs: Recorded {
            rx,
            seen: Vec::new(),
        },
        events,
        _pty: pty,
    }
}

/// Waits until every board's moves are the truth's, or `within` passes; returns the moves.
async fn read_games(
    bus: &mut Bus,
    truths: &[(u32, Truth)],
    within: Duration,
) -> BTreeMap<String, Vec<String>> {
    let deadline = tokio::time::Instant::now() + within;
    loop {
        bus.inputs.for_a_while(Duration::from_millis(250)).await;
        let moves = first_games(&bus.events.lock().unwrap());
        let all = truths
            .iter()
            .all(|(s, t)| moves.get(&label(*s)) == Some(&t.ucis()));
        if all || tokio::time::Instant::now() >= deadline {
            eprintln!(
                "games read: {} after {:.1} s",
                if all {
                    "all as played"
                } else {
                    "NOT all as played"
                },
                (tokio::time::Instant::now() + within - deadline).as_secs_f64()
            );
            return moves;
        }
    }
}

/// With `BUS_CAPTURE=DIR`, what the daemon recorded goes to `DIR/<name>.jsonl`, a capture
/// `dgt-arbiter replay` reads.
fn save_capture(bus: &Bus, name: &str) {
    if let Some(dir) = std::env::var_os("BUS_CAPTURE") {
        let lines: Vec<String> = bus
            .inputs
            .seen
            .iter()
            .map(dgt_core::capture::write_line)
            .collect();
        let path = std::path::Path::new(&dir).join(format!("{name}.jsonl"));
        std::fs::write(path, lines.join("\n") + "\n").unwrap();
    }
}

fn bus_connected(i: &Input) -> bool {
    matches!(i.kind, InputKind::Link(Link::BusConnected { .. }))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn eight_boards_on_one_line_are_found_and_read_move_for_move() {
    let serials = [1025u32, 1803, 2620, 3377, 4096, 5555, 7001, 12345];
    let (boards, truths) = bus_line_of(&serials, 900, 14);
    let last_end = truths.iter().map(|(_, t)| t.end_ms).max().unwrap();
    let mut bus = start(BusLineBoard::of_boards(boards));

    let moves = read_games(&mut bus, &truths, Duration::from_millis(last_end + 8000)).await;
    save_capture(&bus, "eight");

    // Eight boards found on the one port, each once, under its serial's label.
    let connected: Vec<&Input> = bus
        .inputs
        .seen
        .iter()
        .filter(|i| bus_connected(i))
        .collect();
    let labels: std::collections::BTreeSet<&str> =
        connected.iter().map(|i| i.board.as_str()).collect();
    assert_eq!(connected.len(), 8, "{connected:?}");
    assert_eq!(labels.len(), 8);
    for s in serials {
        assert!(labels.contains(label(s).as_str()), "{s} not found");
    }
    // Every board's game as it was played.
    assert_first_games(&moves, &truths, &BTreeMap::new());
    assert!(truths.iter().all(|(_, t)| t.moves.len() >= 6));
    // Nobody was lost on the way.
    assert!(
        !bus.inputs
            .seen
            .iter()
            .any(|i| matches!(i.kind, InputKind::Link(Link::Disconnected { .. }))),
        "a board was reported lost"
    );
    bus.daemon.shutdown().await;
}
