//! `dgt-arbiter bench` (contract §6): the daemon under load, measured from outside.
//!
//! The bench process hosts N emulated boards (blitz games with human handling and DGT 3000
//! clocks), each on its own pseudo-terminal; the daemons under test are separate `run`
//! processes that open those ptys as they would `/dev/ttyACM0`, so their CPU time and
//! memory (`/proc/PID/stat`, `/proc/PID/status`) are theirs alone. With `--nodes K` the
//! boards are split over K daemons that publish their journals to a real `nats-server`
//! (JetStream, started on a free loopback port) read by a `hub` process, and the clients
//! read the hub.
//!
//! **Latency.** Every board notes the Unix time of each write to its pty. Each daemon's
//! `/health` tells where its core clock's 0 falls in Unix time (`clock_epoch_unix_ms`), so
//! an event's `t_ms` maps onto the same wall clock (to about a millisecond: both are whole
//! milliseconds). After the run the journal tells what caused each event: bytes read from a
//! board (the latency then starts at that board's last pty write at or before the event's
//! time, which includes the pty, the serial reader and the core), or the core's own timers
//! (a move is judged once the board has stayed still for `settle_ms`; a deliberate wait, so
//! the latency starts when the timer fell due). It ends when a client's WebSocket frame
//! arrives: on a hub, the event's preview (the hub's first sight, before the stream has
//! numbered it) or its numbered event, whichever came first (`latency_ms_*`: what the
//! arbiter's dashboard shows); `record_latency_ms_*` end at the numbered event alone. Only
//! events caused inside the measured window count.
//!
//! **Loss.** Two seconds after the window the boards are unplugged (so the unplugging burst
//! delays no event of the window), and each client must then hold
//! every event its node journaled up to that node's committed seq (on a hub, by `node` and
//! `node_seq`); each event missing from a client is one lost.

pub mod boards;
pub mod clients;
mod error;
pub mod history;
pub mod journal;
pub mod procs;
pub mod restart;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Serialize;

use boards::{Boards, MAX_BOARDS, WriteLog, unix_us};
use clients::{Clients, Received};
pub use error::BenchError;
use procs::Process;

/// What to run.
#[derive(Debug, Clone)]
pub struct BenchOptions {
    pub boards: usize,
    pub seconds: u64,
    /// 0: one daemon, clients on it; K: K daemons, a broker and a hub, clients on the hub.
    pub nodes: usize,
    pub clients: usize,
    pub seed: u64,
    /// With nodes: how long each gathers events before it sends them to the stream.
    pub publish_every_ms: u64,
}

/// The result (contract §6), printed as one JSON line.
#[derive(Debug, Clone, Serialize)]
pub struct BenchReport {
    pub boards: usize,
    pub nodes: usize,
    pub clients: usize,
    pub seconds: u64,
    /// With nodes: each node's `publish_every_ms` (the stream's size and delay depend on it).
    pub publish_every_ms: Option<u64>,
    /// Events the daemons journaled in the window.
    pub events: u64,
    pub events_per_s: f64,
    pub latency_ms_p50: f64,
    pub latency_ms_p99: f64,
    pub latency_ms_max: f64,
    /// Latencies measured (events caused in the window × clients).
    pub latency_samples: usize,
    /// Up to the numbered event (on a hub it follows the preview by up to
    /// `publish_every_ms`; on a lone daemon the same as `latency_ms_*`).
    pub record_latency_ms_p50: f64,
    pub record_latency_ms_p99: f64,
    pub record_latency_ms_max: f64,
    /// Of one core, the daemon processes summed, over the window.
    pub cpu_percent: f64,
    /// Resident memory at the window's end, daemons summed.
    pub rss_mib: f64,
    pub rss_mib_per_board: f64,
    /// The bench process itself (the emulated boards and the clients), which shares the
    /// machine with the daemons: what the latencies were measured under.
    pub bench_cpu_percent: f64,
    pub hub_cpu_percent: Option<f64>,
    pub hub_rss_mib: Option<f64>,
    pub events_lost: u64,
    /// Times a client fell behind and was resynchronised (its skipped events are lost).
    pub client_resyncs: u64,
    /// The journals' size after the run, summed, less an empty journal's (the schema).
    pub journal_mib: f64,
    /// Of which the snapshots they hold (the core's and the views', the newest few of each,
    /// taken every few minutes and at a clean stop): bounded whatever the event's length.
    pub journal_snapshots_mib: f64,
    /// The journals' growth per hour of daemon time, summed: their size less the schema
    /// and the bounded snapshots (a short run would otherwise mostly weigh its snapshots).
    pub journal_mib_per_hour: f64,
    /// The same per 100 boards.
    pub journal_mib_per_100_board_hours: f64,
    /// With nodes: the event's stream on the broker's disk after the run (its JetStream
    /// store), in MiB.
    pub stream_mib: Option<f64>,
    /// Its growth per 100 board-hours (the nodes' longest journal span as the hours).
    pub stream_mib_per_100_board_hours: Option<f64>,
}

/// One daemon under test.
struct Node {
    name: String,
    proc: Process,
    addr: SocketAddr,
    journal: PathBuf,
    boards: usize,
    /// Unix ms of the daemon clock's 0.
    epoch_ms: u64,
}

/// How long the boards play on after the measured window before they are unplugged.
const UNPLUG_AFTER: Duration = Duration::from_secs(2);

fn blocking<T>(f: impl FnOnce() -> T) -> T {
    tokio::task::block_in_place(f)
}

fn toml_str(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_default()
}

/// The settings of daemon `name`: its ptys only, an ephemeral port, its cluster link.
/// The bench's clients all connect from loopback: one address may hold the whole port.
const BENCH_SERVER: &str = "[server]\nmax_connections_per_address = 512\n";

fn node_config(ports: &[String], nats: Option<(u16, u64)>, name: &str) -> String {
    let mut text = String::from("listen = \"127.0.0.1:0\"\n[serial]\nscan = \"off\"\nports = [\n");
    for p in ports {
        text += &format!("  {{ path = {} }},\n", toml_str(p));
    }
    text += "]\n";
    text += BENCH_SERVER;
    if let Some((port, publish_every_ms)) = nats {
        text += &format!(
            "[cluster]\nnats = \"nats://127.0.0.1:{port}\"\nnode = \"{name}\"\nevent = \"bench\"\n\
             publish_every_ms = {publish_every_ms}\n"
        );
    }
    text
}

fn write(path: &Path, text: &str) -> Result<(), BenchError> {
    std::fs::write(path, text).map_err(|source| BenchError::File {
        path: path.to_path_buf(),
        source,
    })
}

fn path_str(p: &Path) -> Result<&str, BenchError> {
    p.to_str()
        .ok_or_else(|| BenchError::PathNotUtf8(p.to_path_buf()))
}

fn start_node(
    exe: &Path,
    dir: &Path,
    name: &str,
    ports: &[String],
    nats: Option<(u16, u64)>,
) -> Result<Node, BenchError> {
    let config = dir.join(format!("{name}.toml"));
    write(&config, &node_config(ports, nats, name))?;
    let journal = dir.join(format!("{name}.sqlite"));
    let mut proc = Process::spawn(
        name,
        exe,
        &[
            "run",
            "--config",
            path_str(&config)?,
            "--journal",
            path_str(&journal)?,
        ],
        dir.join(format!("{name}.log")),
    )?;
    let addr = blocking(|| proc.dashboard_addr(Duration::from_secs(120)))?;
    Ok(Node {
        name: name.to_string(),
        proc,
        addr,
        journal,
        boards: ports.len(),
        epoch_ms: 0,
    })
}

/// Waits until the node sees all its boards; notes its clock's epoch.
fn wait_connected(node: &mut Node, within: Duration) -> Result<(), BenchError> {
    let end = Instant::now() + within;
    loop {
        let h = procs::health(node.addr)?;
        let connected = h["boards_connected"].as_u64().unwrap_or(0) as usize;
        if connected >= node.boards {
            node.epoch_ms = h["daemon"]["clock_epoch_unix_ms"].as_u64().ok_or_else(|| {
                BenchError::HealthField {
                    node: node.name.clone(),
                    field: "clock_epoch_unix_ms",
                }
            })?;
            return Ok(());
        }
        if Instant::now() > end {
            return Err(BenchError::NotConnected {
                node: node.name.clone(),
                connected,
                boards: node.boards,
                within,
            });
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

fn committed_seq(node: &Node) -> Result<u64, BenchError> {
    let h = procs::health(node.addr)?;
    h["daemon"]["journal"]["committed_seq"]
        .as_u64()
        .ok_or_else(|| BenchError::HealthField {
            node: node.name.clone(),
            field: "committed_seq",
        })
}

/// Runs the bench; progress on stderr.
pub async fn run(o: BenchOptions) -> Result<BenchReport, BenchError> {
    if o.boards == 0 || o.boards > MAX_BOARDS {
        return Err(BenchError::BoardCount);
    }
    if o.seconds == 0 {
        return Err(BenchError::NoSeconds);
    }
    if o.nodes > o.boards {
        return Err(BenchError::MoreNodesThanBoards);
    }
    if o.clients == 0 {
        return Err(BenchError::NoClients);
    }
    let dir = tempfile::tempdir().map_err(BenchError::TempDir)?;
    let exe = std::env::current_exe().map_err(BenchError::OwnPath)?;
    let boards = Boards::plug_in(o.boards, o.seed)?;
    let paths = boards.paths();
    eprintln!("bench: {} boards on pseudo-terminals", o.boards);
    let broker = if o.nodes > 0 {
        let (b, port) = blocking(|| procs::start_broker(dir.path()))?;
        eprintln!("bench: nats-server with JetStream on 127.0.0.1:{port}");
        Some((b, port))
    } else {
        None
    };
    let nats = broker.as_ref().map(|(_, p)| *p);
    let k = o.nodes.max(1);
    let mut nodes = Vec::new();
    for i in 0..k {
        let ports = &paths[i * o.boards / k..(i + 1) * o.boards / k];
        let cluster = nats.map(|port| (port, o.publish_every_ms));
        let node = start_node(&exe, dir.path(), &format!("node-{}", i + 1), ports, cluster)?;
        eprintln!(
            "bench: {} with {} boards at {}",
            node.name,
            ports.len(),
            node.addr
        );
        nodes.push(node);
    }
    let connect_within = Duration::from_secs(60 + o.boards as u64 / 10);
    for node in &mut nodes {
        blocking(|| wait_connected(node, connect_within))?;
    }
    let mut hub = None;
    if let Some(port) = nats {
        let config = dir.path().join("hub.toml");
        write(
            &config,
            &format!(
                "listen = \"127.0.0.1:0\"\n{BENCH_SERVER}[cluster]\nnats = \"nats://127.0.0.1:{port}\"\nevent = \"bench\"\n"
            ),
        )?;
        let mut proc = Process::spawn(
            "hub",
            &exe,
            &["hub", "--config", path_str(&config)?],
            dir.path().join("hub.log"),
        )?;
        let addr = blocking(|| proc.dashboard_addr(Duration::from_secs(60)))?;
        eprintln!("bench: hub at {addr}");
        hub = Some((proc, addr));
    }
    let index: HashMap<String, usize> = if hub.is_some() {
        nodes
            .iter()
            .enumerate()
            .map(|(i, n)| (n.name.clone(), i))
            .collect()
    } else {
        HashMap::new()
    };
    let feed = hub.as_ref().map(|(_, a)| *a).unwrap_or(nodes[0].addr);
    let clients = Clients::connect(feed, o.clients, Arc::new(index)).await?;
    eprintln!(
        "bench: {} WebSocket clients on {feed}; measuring {} s",
        o.clients, o.seconds
    );

    // The measured window.
    let ticks = procs::ticks_per_second();
    let node_cpu = |nodes: &[Node]| -> u64 {
        nodes
            .iter()
            .filter_map(|n| procs::cpu_ticks(n.proc.pid()))
            .sum()
    };
    let hub_pid = hub.as_ref().map(|(p, _)| p.pid());
    let seq_start: Vec<u64> =
        blocking(|| nodes.iter().map(committed_seq).collect::<Result<_, _>>())?;
    let cpu_start = node_cpu(&nodes);
    let me = std::process::id();
    let bench_cpu_start = procs::cpu_ticks(me).unwrap_or(0);
    let hub_cpu_start = hub_pid.and_then(procs::cpu_ticks);
    let window_start = unix_us();
    let started = Instant::now();
    tokio::time::sleep(Duration::from_secs(o.seconds)).await;
    let elapsed = started.elapsed().as_secs_f64();
    let window_end = unix_us();
    let cpu_end = node_cpu(&nodes);
    let bench_cpu_end = procs::cpu_ticks(me).unwrap_or(0);
    let hub_cpu_end = hub_pid.and_then(procs::cpu_ticks);
    let rss: f64 = nodes
        .iter()
        .filter_map(|n| procs::rss_mib(n.proc.pid()))
        .sum();
    let hub_rss = hub_pid.and_then(procs::rss_mib);
    let seq_end: Vec<u64> = blocking(|| nodes.iter().map(committed_seq).collect::<Result<_, _>>())?;

    // The boards play on a little before they are unplugged: the events caused at the end
    // of the window are then measured under the same load as the rest, not behind the burst
    // of disconnections the unplugging causes (it held them up to half a second).
    tokio::time::sleep(UNPLUG_AFTER).await;
    // Everything journaled so far must reach every client.
    let log = boards.unplug().await;
    tokio::time::sleep(Duration::from_secs(1)).await;
    let last: Vec<u64> = blocking(|| nodes.iter().map(committed_seq).collect::<Result<_, _>>())?;
    let end = Instant::now() + Duration::from_secs(60);
    while !clients.all_have(&last) && Instant::now() < end {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let received = clients.finish().await?;
    eprintln!("bench: stopping");
    if let Some((mut proc, _)) = hub {
        blocking(|| proc.stop(Duration::from_secs(30)))?;
    }
    for node in &mut nodes {
        blocking(|| node.proc.stop(Duration::from_secs(60)))?;
    }
    if let Some((mut b, _)) = broker {
        // nats-server's exit status after SIGTERM is not a verdict on the daemons.
        let _ = blocking(|| b.stop(Duration::from_secs(10)));
    }

    let empty_journal = journal::empty_size(dir.path())?;
    let mut latencies = Vec::new();
    let mut record_latencies = Vec::new();
    let mut lost = 0;
    let mut journal_bytes = 0;
    let mut snapshot_bytes = 0;
    let mut per_hour = 0.0;
    let mut longest_hours: f64 = 1e-9;
    for (i, node) in nodes.iter().enumerate() {
        let read = journal::open(&node.journal)?;
        let journaled = journal::events(&read, last[i])?;
        let judged = judge(
            i,
            node.epoch_ms,
            &journaled,
            &received,
            &log,
            (window_start, window_end),
        );
        latencies.extend(judged.first_sight);
        record_latencies.extend(judged.record);
        lost += judged.lost;
        let snapshots = journal::snapshots_size(&read)?;
        snapshot_bytes += snapshots;
        let bytes = journal::size(&node.journal).saturating_sub(empty_journal);
        journal_bytes += bytes;
        // What grows with the play: the file less its schema and its bounded snapshots.
        let bytes = bytes.saturating_sub(snapshots);
        let (first, last_t) = journal::time_span(&read)?;
        let hours = (last_t.saturating_sub(first) as f64 / 3_600_000.0).max(1e-9);
        per_hour += bytes as f64 / MIB / hours;
        longest_hours = longest_hours.max(hours);
    }
    let stream_bytes = nats.map(|_| procs::dir_size(&dir.path().join("jetstream")));
    latencies.sort_by(f64::total_cmp);
    record_latencies.sort_by(f64::total_cmp);
    let events: u64 = seq_end.iter().zip(&seq_start).map(|(e, s)| e - s).sum();
    let cpu = |a: u64, b: u64| (b.saturating_sub(a)) as f64 / ticks / elapsed * 100.0;
    Ok(BenchReport {
        boards: o.boards,
        nodes: o.nodes,
        clients: o.clients,
        seconds: o.seconds,
        publish_every_ms: nats.map(|_| o.publish_every_ms),
        events,
        events_per_s: round2(events as f64 / elapsed),
        latency_ms_p50: round2(percentile(&latencies, 0.50)),
        latency_ms_p99: round2(percentile(&latencies, 0.99)),
        latency_ms_max: round2(latencies.last().copied().unwrap_or(0.0)),
        latency_samples: latencies.len(),
        record_latency_ms_p50: round2(percentile(&record_latencies, 0.50)),
        record_latency_ms_p99: round2(percentile(&record_latencies, 0.99)),
        record_latency_ms_max: round2(record_latencies.last().copied().unwrap_or(0.0)),
        cpu_percent: round2(cpu(cpu_start, cpu_end)),
        rss_mib: round2(rss),
        rss_mib_per_board: round2(rss / o.boards as f64),
        bench_cpu_percent: round2(cpu(bench_cpu_start, bench_cpu_end)),
        hub_cpu_percent: hub_cpu_start
            .zip(hub_cpu_end)
            .map(|(a, b)| round2(cpu(a, b))),
        hub_rss_mib: hub_rss.map(round2),
        events_lost: lost,
        client_resyncs: received.iter().map(|r| r.resyncs).sum(),
        journal_mib: round2(journal_bytes as f64 / MIB),
        journal_snapshots_mib: round2(snapshot_bytes as f64 / MIB),
        journal_mib_per_hour: round2(per_hour),
        journal_mib_per_100_board_hours: round2(per_hour * 100.0 / o.boards as f64),
        stream_mib: stream_bytes.map(|b| round2(b as f64 / MIB)),
        stream_mib_per_100_board_hours: stream_bytes
            .map(|b| round2(b as f64 / MIB / longest_hours * 100.0 / o.boards as f64)),
    })
}

const MIB: f64 = 1024.0 * 1024.0;

fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

/// The value below which a fraction `q` of the sorted samples lie (nearest rank).
fn percentile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = (q * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// Ms of wall time the mapping of a core time onto the Unix clock may be off (both are
/// whole milliseconds).
const CLOCK_SLACK_US: u64 = 2_000;

/// What [`judge`] found for one node's events.
#[derive(Debug, Default, PartialEq)]
struct Judged {
    /// Ms to each client's first sight (preview or numbered) of each event caused in the
    /// window.
    first_sight: Vec<f64>,
    /// Ms to each client's numbered event.
    record: Vec<f64>,
    /// (event, client) pairs whose numbered event never arrived.
    lost: u64,
}

/// The latencies (ms) of node `node`'s events caused in `window`, for every client, and how
/// many (event, client) pairs never arrived.
fn judge(
    node: usize,
    epoch_ms: u64,
    journaled: &[journal::Journaled],
    received: &[Received],
    log: &WriteLog,
    window: (u64, u64),
) -> Judged {
    let mut out = Judged::default();
    for e in journaled {
        let at_us = (epoch_ms + e.t_ms) * 1000;
        let cause = if e.from_board {
            log.last_write(&e.board, at_us + CLOCK_SLACK_US)
                .unwrap_or(at_us)
        } else {
            at_us
        };
        let in_window = cause >= window.0 && cause <= window.1;
        let ms = |arrived: u64| arrived.saturating_sub(cause) as f64 / 1000.0;
        for r in received {
            match r.arrival(node, e.seq) {
                Some(arrived) if in_window => {
                    out.record.push(ms(arrived));
                    out.first_sight
                        .push(ms(r.first_sight(node, e.seq).unwrap_or(arrived)));
                }
                Some(_) => {}
                None => out.lost += 1,
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_by_nearest_rank() {
        let v: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(percentile(&v, 0.5), 50.0);
        assert_eq!(percentile(&v, 0.99), 99.0);
        assert_eq!(percentile(&[], 0.5), 0.0);
        assert_eq!(percentile(&[3.0], 0.99), 3.0);
    }

    #[test]
    fn a_board_event_is_timed_from_its_write_a_timer_event_from_its_time() {
        let epoch_ms = 1_000_000;
        let log = WriteLog::from_writes(vec![vec![1_000_100_000, 1_000_500_000]]);
        let journaled = vec![
            journal::Journaled {
                seq: 1,
                t_ms: 101,
                board: "board-10001".into(),
                from_board: true,
            },
            journal::Journaled {
                seq: 2,
                t_ms: 350,
                board: "board-10001".into(),
                from_board: false,
            },
            journal::Journaled {
                seq: 3,
                t_ms: 501,
                board: "board-10001".into(),
                from_board: true,
            },
        ];
        let r = Received {
            arrivals: vec![vec![0, 1_000_104_000, 1_000_353_000, 0]],
            // Seq 1 was seen first as a preview; seq 3's preview does not make it arrive.
            previews: vec![vec![0, 1_000_102_000, 0, 1_000_502_000]],
            ..Default::default()
        };
        let judged = judge(
            0,
            epoch_ms,
            &journaled,
            &[r],
            &log,
            (1_000_000_000, 2_000_000_000),
        );
        assert_eq!(
            judged,
            Judged {
                first_sight: vec![2.0, 3.0],
                record: vec![4.0, 3.0],
                lost: 1,
            },
            "seq 3 never arrived numbered"
        );
    }
}
