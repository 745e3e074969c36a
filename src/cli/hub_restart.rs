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
use dgt_core::outcome::EndReason;
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
    pub checkpoint_mib: f64,
    /// Hub start → `/health` answering with the whole stream applied.
    pub start_with_checkpoint_s: f64,
    pub start_without_checkpoint_s: f64,
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

/// Publishes the whole synthetic event; (events, messages).
async fn write_event(
    port: u16,
    o: &HubRestartOptions,
    pool: &[Vec<(String, String, String)>],
) -> Result<(u64, u64), CliError> {
    let client = async_nats::connect(format!("nats://127.0.0.1:{port}"))
        .await
        .map_err(bench_error)?;
    let js = async_nats::jetstream::new(client);
    let names = Names::new(EVENT);
    let mut nodes: Vec<NodeHistory> = (0..o.nodes)
        .map(|k| NodeHistory {
            name: format!("node-{}", k + 1),
            boards: (0..o.boards)
                .filter(|b| b % o.nodes == k)
                .map(|b| (b + 1).to_string())
                .collect(),
            seq: 0,
            step: 0,
            pending: Vec::new(),
        })
        .collect();
    let (mut events, mut messages) = (0u64, 0u64);
    let mut acks = Vec::new();
    let send = async |batch: NodeBatch, acks: &mut Vec<_>| -> Result<(), CliError> {
        let payload = batch.encode().map_err(bench_error)?;
        let ack = js
            .publish(names.events(&batch.node), payload.into())
            .await
            .map_err(bench_error)?;
        acks.push(ack);
        if acks.len() >= 256 {
            for a in acks.drain(..) {
                a.await.map_err(bench_error)?;
            }
        }
        Ok(())
    };
    for round in 0..o.rounds {
        // A round of four hours; a move every 30 s on every board.
        let round_ms = u64::from(round) * 4 * 3_600_000;
        for node in &mut nodes {
            let boards = node.boards.clone();
            for (i, board) in boards.iter().enumerate() {
                let game = &pool[(i + round as usize) % pool.len()];
                let id = format!("{board}/{}", round + 1);
                let mut t = round_ms;
                let mut out = Vec::new();
                out.extend(node.push(
                    board,
                    t,
                    EventBody::GameStart {
                        game: id.clone(),
                        start_fen:
                            Fen::from_position(&Chess::default(), EnPassantMode::Legal).to_string(),
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
                    out.extend(node.push(
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
                        out.extend(node.push(
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
                out.extend(node.push(
                    board,
                    t + 1_000,
                    EventBody::GameEnd {
                        game: id,
                        result: "1/2-1/2".parse().map_err(bench_error)?,
                        reason: EndReason::Arbiter,
                    },
                ));
                for b in out {
                    events += b.records.len() as u64;
                    messages += 1;
                    send(b, &mut acks).await?;
                }
            }
        }
    }
    for node in &mut nodes {
        if !node.pending.is_empty() {
            let b = node.batch();
            events += b.records.len() as u64;
            messages += 1;
            send(b, &mut acks).await?;
        }
    }
    for a in acks {
        a.await.map_err(bench_error)?;
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
    // The first hub applies everything and saves its checkpoint at the stream's end.
    let last = messages;
    let deadline = Instant::now() + Duration::from_secs(3600);
    let mut told: Option<String> = None;
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
    let _ = first.child.kill();
    let _ = first.child.wait();
    let checkpoint_mib = std::fs::metadata(&checkpoint).map_or(0.0, |m| m.len() as f64 / 1048576.0);
    let stream_mib = procs::dir_size(&dir.path().join("jetstream")) as f64 / 1048576.0;
    eprintln!("bench: checkpoint {checkpoint_mib:.1} MiB, stream {stream_mib:.1} MiB");

    let started = Instant::now();
    let mut with = spawn_hub(&exe, dir.path(), "hub-first", &first_config)?;
    let (_, with_s) = tokio::task::block_in_place(|| until_serving(&mut with, last, started))?;
    eprintln!("bench: hub with its checkpoint served in {with_s:.2} s");
    let _ = with.stop(Duration::from_secs(30));

    let whole_config = hub_config(dir.path(), "hub-whole", port, None);
    let started = Instant::now();
    let mut whole = spawn_hub(&exe, dir.path(), "hub-whole", &whole_config)?;
    let (_, without_s) = tokio::task::block_in_place(|| until_serving(&mut whole, last, started))?;
    eprintln!("bench: hub reading the whole stream served in {without_s:.2} s");
    let _ = whole.stop(Duration::from_secs(30));

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
        checkpoint_mib,
        start_with_checkpoint_s: with_s,
        start_without_checkpoint_s: without_s,
        build: if cfg!(debug_assertions) {
            "debug"
        } else {
            "release"
        },
    })
}
