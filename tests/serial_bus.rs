//! DGT bus mode end to end (protocol §2.4, §3.7): emulated boards share one pseudo-terminal
//! declared `bus = true`; the real daemon finds them by ping, polls them by address and
//! rebuilds every board's game, move for move as the emulator's truth says — also when a
//! changes packet arrives garbled or not at all and has to be asked for again.

mod common;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::fast_timing;
use dgt_arbiter::edge::bus_line_board::{BusLineBoard, BusMember};
use dgt_arbiter::edge::daemon::{ChannelRecorder, CoreOptions, Daemon, DaemonClock, SerialOptions};
use dgt_arbiter::edge::pty_board::{self, BoardClock, BoardModel, PtyBoard};
use dgt_arbiter::edge::serial::{ExplicitPort, ScanMode, SystemPorts};
use dgt_core::{Event, EventBody, Input, InputKind, Link};
use dgt_emulator::{BoardSpec, EmulatedBoard, HandlingRates, TimeControl, Truth};
use tokio::sync::mpsc;

/// A short bullet game with clean handling. The clock starts 6–8 s after power-up, once the
/// daemon has found every board (a broadcast round takes 1.25 s and collisions cost a few).
fn spec(serial: u32, seed: u64, plies: usize) -> BoardSpec {
    let mut spec = BoardSpec::random(seed, plies)
        .with_rates(HandlingRates::clean())
        .with_time_control(TimeControl::parse("60+1").unwrap());
    spec.serial = serial;
    spec.start_delay_ms = 6000;
    spec
}

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

fn label(serial: u32) -> String {
    format!("board-{serial:05}")
}

/// Every board's moves as a consumer rebuilds them (contract §3: a move with a `game` and
/// `ply` already sent replaces that ply and every later one), first game only.
fn moves_by_board(events: &[Event]) -> BTreeMap<String, Vec<String>> {
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for e in events {
        if let EventBody::Move(m) = &e.body
            && m.game.ends_with("/1")
        {
            let list = out.entry(e.board.clone()).or_default();
            list.truncate(m.ply as usize - 1);
            list.push(m.uci.clone());
        }
    }
    out
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
        let moves = moves_by_board(&bus.events.lock().unwrap());
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

fn assert_games(moves: &BTreeMap<String, Vec<String>>, truths: &[(u32, Truth)]) {
    for (serial, truth) in truths {
        assert_eq!(
            moves.get(&label(*serial)).cloned().unwrap_or_default(),
            truth.ucis(),
            "board {serial}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn eight_boards_on_one_line_are_found_and_read_move_for_move() {
    let serials = [1025u32, 1803, 2620, 3377, 4096, 5555, 7001, 12345];
    let boards: Vec<EmulatedBoard> = serials
        .iter()
        .enumerate()
        .map(|(i, &s)| EmulatedBoard::new(spec(s, 900 + i as u64, 14)))
        .collect();
    let truths: Vec<(u32, Truth)> = serials
        .iter()
        .zip(&boards)
        .map(|(&s, b)| (s, b.truth().clone()))
        .collect();
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
    assert_games(&moves, &truths);
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

/// A member whose changes packets (`BUS_UPDATE` with data) go wrong on the way: the
/// `corrupt_at`-th arrives with a bad checksum, the `drop_at`-th not at all.
struct Flaky {
    inner: BusMember,
    held: Vec<u8>,
    packets: Arc<AtomicUsize>,
    corrupt_at: usize,
    drop_at: usize,
}

impl BoardModel for Flaky {
    fn on_host_bytes(&mut self, t_ms: u64, bytes: &[u8]) {
        self.inner.on_host_bytes(t_ms, bytes);
    }

    fn poll_output(&mut self, t_ms: u64) -> Vec<u8> {
        self.held.extend(self.inner.poll_output(t_ms));
        // Frames go out whole (a bus reply carries its length, §3.7); stray bytes at once.
        let mut out = Vec::new();
        loop {
            match self.held.first() {
                None => break,
                Some(b) if b & 0x80 == 0 => out.push(self.held.remove(0)),
                Some(_) => {
                    if self.held.len() < 3 {
                        break;
                    }
                    let len = ((self.held[1] as usize) << 7) | self.held[2] as usize;
                    if self.held.len() < len.max(3) {
                        break;
                    }
                    let mut frame: Vec<u8> = self.held.drain(..len.max(3)).collect();
                    if frame[0] == 0x85 && len > 6 {
                        let n = self.packets.fetch_add(1, Ordering::SeqCst) + 1;
                        if n == self.corrupt_at {
                            *frame.last_mut().unwrap() ^= 0x01;
                        } else if n == self.drop_at {
                            continue;
                        }
                    }
                    out.extend(frame);
                }
            }
        }
        out
    }

    fn next_deadline(&self) -> Option<u64> {
        self.inner.next_deadline()
    }

    fn finished(&self) -> bool {
        self.inner.finished()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_garbled_or_missing_changes_packet_is_asked_again_and_no_move_is_lost() {
    let serials = [2222u32, 3333, 4444];
    let boards: Vec<EmulatedBoard> = serials
        .iter()
        .enumerate()
        .map(|(i, &s)| {
            let mut spec = spec(s, 700 + i as u64, 14);
            spec.start_delay_ms = 4000;
            EmulatedBoard::new(spec)
        })
        .collect();
    let truths: Vec<(u32, Truth)> = serials
        .iter()
        .zip(&boards)
        .map(|(&s, b)| (s, b.truth().clone()))
        .collect();
    let last_end = truths.iter().map(|(_, t)| t.end_ms).max().unwrap();
    let packets = Arc::new(AtomicUsize::new(0));
    let members: Vec<Box<dyn BoardModel>> = boards
        .into_iter()
        .enumerate()
        .map(|(i, b)| -> Box<dyn BoardModel> {
            if i == 1 {
                // The first packet with data is the board's log since power-up; the later
                // ones hold moves.
                Box::new(Flaky {
                    inner: BusMember(b),
                    held: Vec::new(),
                    packets: packets.clone(),
                    corrupt_at: 3,
                    drop_at: 5,
                })
            } else {
                Box::new(BusMember(b))
            }
        })
        .collect();
    let mut bus = start(BusLineBoard::new(members));

    let moves = read_games(&mut bus, &truths, Duration::from_millis(last_end + 8000)).await;
    save_capture(&bus, "flaky");

    assert!(
        packets.load(Ordering::SeqCst) >= 5,
        "only {} packets: the faults were not injected",
        packets.load(Ordering::SeqCst)
    );
    assert_games(&moves, &truths);
    // The flaky board was asked REPEAT_CHANGES (0x84) for the garbled and the missing
    // packet, and never lost.
    let flaky = label(serials[1]);
    let repeats = bus
        .inputs
        .seen
        .iter()
        .filter(|i| i.board == flaky && matches!(&i.kind, InputKind::Tx(b) if b[0] == 0x84))
        .count();
    assert!(repeats >= 2, "{repeats} REPEAT_CHANGES");
    assert!(
        !bus.inputs
            .seen
            .iter()
            .any(|i| matches!(i.kind, InputKind::Link(Link::Disconnected { .. }))),
        "a board was reported lost"
    );
    bus.daemon.shutdown().await;
}

/// A member that can be cut off the line: it hears nothing and is not heard, and plays on.
struct Cuttable {
    inner: BusMember,
    cut: Arc<std::sync::atomic::AtomicBool>,
}

impl BoardModel for Cuttable {
    fn on_host_bytes(&mut self, t_ms: u64, bytes: &[u8]) {
        if !self.cut.load(Ordering::SeqCst) {
            self.inner.on_host_bytes(t_ms, bytes);
        }
    }

    fn poll_output(&mut self, t_ms: u64) -> Vec<u8> {
        let out = self.inner.poll_output(t_ms);
        if self.cut.load(Ordering::SeqCst) {
            Vec::new()
        } else {
            out
        }
    }

    fn next_deadline(&self) -> Option<u64> {
        self.inner.next_deadline()
    }

    fn finished(&self) -> bool {
        self.inner.finished()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_board_cut_off_is_reported_lost_then_found_again_with_the_moves_made_meanwhile() {
    let serials = [6001u32, 6002];
    let boards: Vec<EmulatedBoard> = serials
        .iter()
        .enumerate()
        .map(|(i, &s)| {
            let mut spec =
                spec(s, 500 + i as u64, 14).with_time_control(TimeControl::parse("120+1").unwrap());
            spec.start_delay_ms = 4000;
            EmulatedBoard::new(spec)
        })
        .collect();
    let truths: Vec<(u32, Truth)> = serials
        .iter()
        .zip(&boards)
        .map(|(&s, b)| (s, b.truth().clone()))
        .collect();
    let last_end = truths.iter().map(|(_, t)| t.end_ms).max().unwrap();
    let cut = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let members: Vec<Box<dyn BoardModel>> = boards
        .into_iter()
        .enumerate()
        .map(|(i, b)| -> Box<dyn BoardModel> {
            if i == 1 {
                Box::new(Cuttable {
                    inner: BusMember(b),
                    cut: cut.clone(),
                })
            } else {
                Box::new(BusMember(b))
            }
        })
        .collect();
    let clock = BoardClock::start();
    let mut bus = start(BusLineBoard::new(members));

    // Cut off after its second move, for 4 s (lost after three silent polls, ~3 s).
    let moves = &truths[1].1.moves;
    let cut_at = moves[1].t_made_ms + 300;
    let back_at = cut_at + 4000;
    let made_while_cut = moves
        .iter()
        .filter(|m| m.t_made_ms > cut_at && m.t_made_ms < back_at)
        .count();
    tokio::time::sleep(Duration::from_millis(cut_at.saturating_sub(clock.now_ms()))).await;
    cut.store(true, Ordering::SeqCst);
    tokio::time::sleep(Duration::from_millis(
        back_at.saturating_sub(clock.now_ms()),
    ))
    .await;
    cut.store(false, Ordering::SeqCst);

    let games = read_games(&mut bus, &truths, Duration::from_millis(last_end + 8000)).await;
    save_capture(&bus, "cut");

    let cut_label = label(serials[1]);
    let links: Vec<&InputKind> = bus
        .inputs
        .seen
        .iter()
        .filter(|i| i.board == cut_label && matches!(i.kind, InputKind::Link(_)))
        .map(|i| &i.kind)
        .collect();
    assert!(
        matches!(
            links[..],
            [
                InputKind::Link(Link::BusConnected { .. }),
                InputKind::Link(Link::Disconnected { .. }),
                InputKind::Link(Link::BusConnected { .. }),
                ..
            ]
        ),
        "{links:?}"
    );
    assert!(made_while_cut >= 1, "no move while cut off");
    assert_games(&games, &truths);
    bus.daemon.shutdown().await;
}
