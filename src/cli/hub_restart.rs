//! `dgt-arbiter bench --hub-restart`: how long a hub takes to serve again at the end of a
//! long event, with and without its checkpoint (docs/cluster.md, "Hub restart").
//!
//! A synthetic event is written fast, straight into a real `nats-server`'s stream as the
//! nodes' messages would carry it: every board plays a game per round (legal moves from a
//! pool of seeded random games, a clock reading after each move, a start and an end), on
//! virtual time. A first hub reads it and saves its checkpoint; it is killed, and the time
//! from starting a hub to its `/health` answering with the whole stream applied is measured
//! for a hub that finds the checkpoint and for one that reads the whole stream.
//!
//! It lives in the binary, which hosts the product and the lab: the messages are the
//! product's wire format (`cluster::wire`), the processes are the lab's bench helpers.

use std::net::SocketAddr;
use std::path::Path;
use std::time::{Duration, Instant};

use dgt_arbiter::cluster::Names;
use dgt_arbiter::cluster::wire::{NodeBatch, Record};
use dgt_core::event::{ClockEvent, MoveEvent};
use dgt_core::outcome::{EndReason, GameResult};
use dgt_core::{Event, EventBody, Side};
use dgt_lab::bench::procs::{self, Process};
use serde::Serialize;
use shakmaty::{Chess, EnPassantMode, Position, fen::Fen, san::San, uci::UciMove};

use super::CliError;

const EVENT: &str = "bench";
/// Events per stream message (a node's default `batch_events`).
const BATCH: usize = 500;
/// Distinct games played over and over by the boards.
const POOL: usize = 32;

/// What to write and measure.
#[derive(Debug, Clone)]
pub struct HubRestartOptions {
    pub boards: usize,
    pub nodes: usize,
    pub rounds: u32,
    pub plies: usize,
    /// Clock readings after each move (a DGT clock reports about one a second: 30 for a
    /// move every 30 s).
    pub clocks_per_move: u32,
    pub seed: u64,
    /// Also time a hub that reads the whole stream (minutes at full scale).
    pub whole_stream: bool,
}

/// The figure, printed as one JSON line.
#[derive(Debug, Serialize)]
pub struct HubRestartReport {
    pub boards: usize,
    pub nodes: usize,
    pub rounds: u32,
    pub plies: usize,
    pub clocks_per_move: u32,
    pub games: usize,
    pub events: u64,
    pub stream_messages: u64,
    pub stream_mib: f64,
    pub write_s: f64,
    /// From the writing's start until the first hub (reading as it is written) has applied
    /// the whole stream.
    pub first_read_s: f64,
    /// From the writing's start until the first hub's checkpoint holds the whole stream.
    pub checkpoint_saved_s: f64,
    pub checkpoint_mib: f64,
    /// Hub start → `/health` answering with the whole stream applied.
    pub start_with_checkpoint_s: f64,
    /// The same for a hub that reads the whole stream (not timed with `--skip-full-replay`).
    pub start_without_checkpoint_s: Option<f64>,
    /// What the first hub answered; the restarted hubs answered the same.
    pub answers: Answers,
    /// How this binary was built (the figures depend on it).
    pub build: &'static str,
}

fn bench_error(e: impl std::fmt::Display) -> CliError {
    CliError::Bench(e.to_string())
}

/// A seeded random game: (uci, san, fen after) per ply.
fn random_game(seed: u64, plies: usize) -> Vec<(String, String, String)> {
    let mut rng = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    let mut pos = Chess::default();
    let mut out = Vec::with_capacity(plies);
    for _ in 0..plies {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            break;
        }
        rng = rng
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let m = moves[(rng >> 33) as usize % moves.len()];
        let san = San::from_move(&pos, m).to_string();
        let uci = UciMove::from_standard(m).to_string();
        pos.play_unchecked(m);
        let fen = Fen::from_position(&pos, EnPassantMode::Legal).to_string();
        out.push((uci, san, fen));
    }
    out
}

/// Every event of one node, round after round, on virtual time (ms from the node's 0).
struct NodeHistory {
    name: String,
    boards: Vec<String>,
    seq: u64,
    step: u64,
    pending: Vec<Record>,
}

impl NodeHistory {
    fn push(&mut self, board: &str, t_ms: u64, body: EventBody) -> Option<NodeBatch> {
        self.seq += 1;
        self.pending.push(Record::Event(Box::new(Event::new(
            self.seq, board, t_ms, body,
        ))));
        (self.pending.len() >= BATCH).then(|| self.batch())
    }

    fn batch(&mut self) -> NodeBatch {
        let from = self.step;
        self.step += 1;
        NodeBatch {
            node: self.name.clone(),
            from_step: from,
            to_step: self.step,
            clock_unix_ms: 1_800_000_000_000,
            records: std::mem::take(&mut self.pending),
        }
    }
}

/// One node's whole event, round after round, encoded as the node publishes it: (subject,
/// payload, events) per message, in the node's order, into `out`.
fn play_node(
    mut node: NodeHistory,
    o: &HubRestartOptions,
    pool: &[Vec<(String, String, String)>],
    out: &tokio::sync::mpsc::Sender<(String, Vec<u8>, u64)>,
) -> Result<(), String> {
    let subject = Names::new(EVENT).events(&node.name);
    let send = |b: NodeBatch| -> Result<(), String> {
        let events = b.records.len() as u64;
        let payload = b.encode().map_err(|e| e.to_string())?;
        out.blocking_send((subject.clone(), payload, events))
            .map_err(|_| "the publisher stopped".to_string())
    };
    let start_fen = Fen::from_position(&Chess::default(), EnPassantMode::Legal).to_string();
    for round in 0..o.rounds {
        // A round of four hours; a move every 30 s on every board.
        let round_ms = u64::from(round) * 4 * 3_600_000;
        let boards = node.boards.clone();
        for (i, board) in boards.iter().enumerate() {
            let game = &pool[(i + round as usize) % pool.len()];
            let id = format!("{board}/{}", round + 1);
            let mut t = round_ms;
            let mut full = Vec::new();
            full.extend(node.push(
                board,
                t,
                EventBody::GameStart {
                    game: id.clone(),
                    start_fen: start_fen.clone(),
                    found_under_way: false,
                },
            ));
            for (ply, (uci, san, fen)) in game.iter().enumerate() {
                t += 30_000;
                let side = if ply % 2 == 0 {
                    Side::White
                } else {
                    Side::Black
                };
                let left = 5_400_000u64.saturating_sub(t - round_ms);
                full.extend(node.push(
                    board,
                    t,
                    EventBody::Move(MoveEvent {
                        game: id.clone(),
                        ply: ply as u32 + 1,
                        side,
                        uci: uci.clone(),
                        san: san.clone(),
                        fen: fen.clone(),
                        white_ms: Some(left),
                        black_ms: Some(left),
                    }),
                ));
                for k in 0..o.clocks_per_move {
                    let read = left.saturating_sub(u64::from(k) * 1_000);
                    full.extend(node.push(
                        board,
                        t + 500 + u64::from(k) * 1_000,
                        EventBody::Clock(ClockEvent {
                            white_ms: Some(read),
                            black_ms: Some(left),
                            running: Some(side.other()),
                            left_ms: read,
                            right_ms: left,
                            white_side: None,
                        }),
                    ));
                }
            }
            full.extend(node.push(
                board,
                t + 1_000,
                EventBody::GameEnd {
                    game: id,
                    result: GameResult::Drawn,
                    reason: EndReason::Arbiter,
                },
            ));
            for b in full {
                send(b)?;
            }
        }
    }
    if !node.pending.is_empty() {
        send(node.batch())?;
    }
    Ok(())
}

/// Publishes the whole synthetic event; (events, messages). Every node's messages are made
/// on a thread of its own (in the node's order), and published with many acks awaited at
/// once, as ten venue PCs publish side by side.
async fn write_event(
    port: u16,
    o: &HubRestartOptions,
    pool: &[Vec<(String, String, String)>],
) -> Result<(u64, u64), CliError> {
    let client = async_nats::connect(format!("nats://127.0.0.1:{port}"))
        .await
        .map_err(bench_error)?;
    let js = async_nats::jetstream::new(client);
    let (tx, mut rx) = tokio::sync::mpsc::channel(1024);
    let pool = std::sync::Arc::new(pool.to_vec());
    let mut threads = Vec::new();
    for k in 0..o.nodes {
        let node = NodeHistory {
            name: format!("node-{}", k + 1),
            boards: (0..o.boards)
                .filter(|b| b % o.nodes == k)
                .map(|b| (b + 1).to_string())
                .collect(),
            seq: 0,
            step: 0,
            pending: Vec::new(),
        };
        let (o, pool, tx) = (o.clone(), pool.clone(), tx.clone());
        threads.push(std::thread::spawn(move || play_node(node, &o, &pool, &tx)));
    }
    drop(tx);
    let (mut events, mut messages) = (0u64, 0u64);
    let mut acks = std::collections::VecDeque::new();
    while let Some((subject, payload, n)) = rx.recv().await {
        let ack = js
            .publish(subject, payload.into())
            .await
            .map_err(bench_error)?;
        acks.push_back(ack);
        if acks.len() > 1024
            && let Some(a) = acks.pop_front()
        {
            a.await.map_err(bench_error)?;
        }
        events += n;
        messages += 1;
    }
    for a in acks {
        a.await.map_err(bench_error)?;
    }
    for t in threads {
        t.join()
            .map_err(|_| bench_error("a node's writer panicked"))?
            .map_err(bench_error)?;
    }
    Ok((events, messages))
}

fn hub_config(dir: &Path, name: &str, port: u16, checkpoint: Option<&Path>) -> std::path::PathBuf {
    let mut text = format!(
        "listen = \"127.0.0.1:0\"\n[cluster]\nnats = \"nats://127.0.0.1:{port}\"\nevent = \"{EVENT}\"\n"
    );
    match checkpoint {
        Some(p) => text.push_str(&format!(
            "hub_checkpoint = {:?}\nhub_checkpoint_every_s = 20\n",
            p.display().to_string()
        )),
        None => text.push_str("hub_checkpoint_every_s = 0\n"),
    }
    let path = dir.join(format!("{name}.toml"));
    let _ = std::fs::write(&path, text);
    path
}

fn spawn_hub(exe: &Path, dir: &Path, name: &str, config: &Path) -> Result<Process, CliError> {
    Process::spawn(
        name,
        exe,
        &["hub", "--config", config.to_str().unwrap_or_default()],
        dir.join(format!("{name}.log")),
    )
    .map_err(bench_error)
}

/// Time from `started` to `/health` answering with stream position `last` applied.
fn until_serving(
    hub: &mut Process,
    last: u64,
    started: Instant,
) -> Result<(SocketAddr, f64), CliError> {
    let within = Duration::from_secs(3600);
    let addr = hub.dashboard_addr(within).map_err(bench_error)?;
    loop {
        if let Ok(h) = procs::health(addr)
            && h["daemon"]["hub"]["stream_position"].as_u64() >= Some(last)
        {
            return Ok((addr, started.elapsed().as_secs_f64()));
        }
        if started.elapsed() > within {
            return Err(bench_error("the hub did not serve within an hour"));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// What a hub answers at the end of the event: two hubs that applied the same stream give
/// the same.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Answers {
    /// The last hub seq (`dgt_hub_seq`).
    pub seq: u64,
    pub games: usize,
    pub rounds: usize,
    /// `/api/games` and `/api/rounds` whole (compared, not printed).
    #[serde(skip)]
    bodies: (String, String),
}

fn answers(addr: SocketAddr) -> Result<Answers, CliError> {
    let get = |path| procs::http_get(addr, path).map_err(bench_error);
    let seq = get("/metrics")?
        .lines()
        .find_map(|l| l.strip_prefix("dgt_hub_seq "))
        .and_then(|v| v.trim().parse().ok())
        .ok_or_else(|| bench_error("no dgt_hub_seq in the hub's /metrics"))?;
    let (games, rounds) = (get("/api/games")?, get("/api/rounds")?);
    let count = |body: &str| {
        serde_json::from_str::<serde_json::Value>(body)
            .ok()
            .and_then(|v| v.as_array().map(Vec::len))
            .unwrap_or(0)
    };
    Ok(Answers {
        seq,
        games: count(&games),
        rounds: count(&rounds),
        bodies: (games, rounds),
    })
}

/// The restarted hub's answers against the first hub's.
fn same_answers(which: &str, got: &Answers, first: &Answers) -> Result<(), CliError> {
    if got == first {
        return Ok(());
    }
    Err(bench_error(format!(
        "the {which} answers otherwise than the first hub: seq {} games {} rounds {} (first: \
         seq {} games {} rounds {}; /api/games {}, /api/rounds {})",
        got.seq,
        got.games,
        got.rounds,
        first.seq,
        first.games,
        first.rounds,
        if got.bodies.0 == first.bodies.0 {
            "same"
        } else {
            "differs"
        },
        if got.bodies.1 == first.bodies.1 {
            "same"
        } else {
            "differs"
        },
    )))
}

pub async fn run(o: HubRestartOptions) -> Result<HubRestartReport, CliError> {
    if o.nodes == 0 || o.boards < o.nodes {
        return Err(bench_error("--hub-restart needs --nodes 1..=boards"));
    }
    let dir = tempfile::tempdir().map_err(CliError::TempDir)?;
    let exe = std::env::current_exe().map_err(bench_error)?;
    let (_broker, port) = procs::start_broker(dir.path()).map_err(bench_error)?;
    let checkpoint = dir.path().join("hub.checkpoint");
    // The first hub makes the stream (nodes may not), then reads what is written.
    let first_config = hub_config(dir.path(), "hub-first", port, Some(&checkpoint));
    let mut first = spawn_hub(&exe, dir.path(), "hub-first", &first_config)?;
    let first_addr = first
        .dashboard_addr(Duration::from_secs(60))
        .map_err(bench_error)?;
    let pool: Vec<_> = (0..POOL as u64)
        .map(|g| random_game(o.seed + g, o.plies))
        .collect();
    let written = Instant::now();
    let (events, messages) = write_event(port, &o, &pool).await?;
    let write_s = written.elapsed().as_secs_f64();
    eprintln!("bench: {events} events in {messages} stream messages written in {write_s:.1} s");
    // The first hub applies everything (it reads while the event is written) and saves its
    // checkpoint at the stream's end.
    let last = messages;
    let deadline = Instant::now() + Duration::from_secs(3 * 3600);
    let mut told: Option<String> = None;
    let mut first_read_s = None;
    loop {
        // A loaded machine may keep an answer waiting: asked again until the deadline.
        let h = match tokio::task::block_in_place(|| procs::health(first_addr)) {
            Ok(h) => h,
            Err(e) if Instant::now() < deadline => {
                eprintln!("bench: the first hub's /health: {e}");
                continue;
            }
            Err(e) => return Err(bench_error(e)),
        };
        if first_read_s.is_none() && h["daemon"]["hub"]["stream_position"].as_u64() >= Some(last) {
            let s = written.elapsed().as_secs_f64();
            eprintln!(
                "bench: the first hub applied the whole stream {s:.1} s after the writing began"
            );
            first_read_s = Some(s);
        }
        let c = &h["daemon"]["hub"]["checkpoint"];
        if c["saved_position"].as_u64() >= Some(last) {
            break;
        }
        if let Some(p) = c["problem"].as_str()
            && told.as_deref() != Some(p)
        {
            eprintln!("bench: checkpoint: {p}");
            told = Some(p.to_string());
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    let first_read_s = first_read_s.unwrap_or_else(|| written.elapsed().as_secs_f64());
    let checkpoint_saved_s = written.elapsed().as_secs_f64();
    let first_answers = tokio::task::block_in_place(|| answers(first_addr))?;
    eprintln!(
        "bench: the first hub: seq {}, {} games, {} rounds",
        first_answers.seq, first_answers.games, first_answers.rounds
    );
    let _ = first.child.kill();
    let _ = first.child.wait();
    let checkpoint_mib = std::fs::metadata(&checkpoint).map_or(0.0, |m| m.len() as f64 / 1048576.0);
    let stream_mib = procs::dir_size(&dir.path().join("jetstream")) as f64 / 1048576.0;
    eprintln!("bench: checkpoint {checkpoint_mib:.1} MiB, stream {stream_mib:.1} MiB");

    let started = Instant::now();
    let mut with = spawn_hub(&exe, dir.path(), "hub-first", &first_config)?;
    let (addr, with_s) = tokio::task::block_in_place(|| until_serving(&mut with, last, started))?;
    eprintln!("bench: hub with its checkpoint served in {with_s:.2} s");
    let got = tokio::task::block_in_place(|| answers(addr))?;
    same_answers("hub restarted from its checkpoint", &got, &first_answers)?;
    let _ = with.stop(Duration::from_secs(30));

    let mut without_s = None;
    if o.whole_stream {
        let whole_config = hub_config(dir.path(), "hub-whole", port, None);
        let started = Instant::now();
        let mut whole = spawn_hub(&exe, dir.path(), "hub-whole", &whole_config)?;
        let (addr, s) = tokio::task::block_in_place(|| until_serving(&mut whole, last, started))?;
        eprintln!("bench: hub reading the whole stream served in {s:.2} s");
        let got = tokio::task::block_in_place(|| answers(addr))?;
        same_answers("hub that read the whole stream", &got, &first_answers)?;
        let _ = whole.stop(Duration::from_secs(30));
        without_s = Some(s);
    }

    Ok(HubRestartReport {
        boards: o.boards,
        nodes: o.nodes,
        rounds: o.rounds,
        plies: o.plies,
        clocks_per_move: o.clocks_per_move,
        games: o.boards * o.rounds as usize,
        events,
        stream_messages: messages,
        stream_mib,
        write_s,
        first_read_s,
        checkpoint_saved_s,
        checkpoint_mib,
        start_with_checkpoint_s: with_s,
        start_without_checkpoint_s: without_s,
        answers: first_answers,
        build: if cfg!(debug_assertions) {
            "debug"
        } else {
            "release"
        },
    })
}
