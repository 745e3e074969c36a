//! `bench --restart-history`: how long a daemon takes to serve again on a long journal.
//!
//! A synthetic history is written fast: the emulator's games (human handling, DGT 3000
//! clocks) played back to back on every board on virtual time, through one core straight
//! into a journal — no pseudo-terminals, no daemon — with a core snapshot every
//! `snapshot_every_s` of core time, as the daemon takes them. Then a daemon (`run`) is
//! started on that journal and timed from its start until `/health` answers; the same is
//! measured on a copy without snapshots (the whole journal replayed), and both recoveries
//! are also timed inside this process.

use std::collections::BinaryHeap;
use std::path::Path;
use std::time::{Duration, Instant};

use dgt_core::{Core, CoreConfig, Input, InputKind};
use dgt_emulator::{Dir, corpus_spec, generate_game};
use dgt_journal::{Batch, CoreSnapshot, Journal};
use serde::Serialize;

use super::procs::{self, Process};
use super::{BenchError, path_str, write};

/// What to write and measure.
#[derive(Debug, Clone)]
pub struct RestartOptions {
    pub boards: usize,
    pub hours: f64,
    pub seed: u64,
    pub snapshot_every_s: u64,
    /// Also restart on a copy without snapshots (slow on a long history).
    pub full_replay: bool,
}

/// The result, printed as one JSON line.
#[derive(Debug, Clone, Serialize)]
pub struct RestartReport {
    pub boards: usize,
    pub board_hours: f64,
    /// "debug" or "release": the build of this program (and of the daemon it starts).
    pub build: &'static str,
    pub steps: u64,
    pub events: u64,
    pub journal_mib: f64,
    pub write_s: f64,
    /// The newest snapshot: its size, and its whole cost (the copy and the serialisation).
    pub snapshot_kib: f64,
    pub snapshot_ms: f64,
    /// Of which the copy of the core's state, the daemon's core task's only pause, and the
    /// serialisation, which the daemon leaves to the journal's snapshot thread.
    pub snapshot_pause_ms: f64,
    pub snapshot_serialise_ms: f64,
    /// In this process: opening the journal, then restoring the core from the newest
    /// snapshot and replaying the steps after it.
    pub open_ms: f64,
    pub restore_ms: f64,
    pub steps_after_snapshot: u64,
    /// A daemon started on the journal: from its start until `/health` answers.
    pub restart_to_health_ms: f64,
    /// The same without snapshots (every step replayed): in this process, and a daemon.
    pub full_replay_ms: Option<f64>,
    pub restart_to_health_without_snapshot_ms: Option<f64>,
}

/// One game's board traffic (what the board sent), from its start.
struct Played {
    rx: Vec<(u64, Vec<u8>)>,
    length_ms: u64,
}

/// Games played in turn on one board: which game, where in it, and when it began.
struct Cursor {
    board: usize,
    game: usize,
    at: usize,
    began_ms: u64,
}

const GAMES: usize = 12;
/// Between two games on a board (the players leave, the arbiter sets up).
const BETWEEN_GAMES_MS: u64 = 90_000;
const BATCH_STEPS: usize = 20_000;

fn history_err(path: &Path, detail: impl ToString) -> BenchError {
    BenchError::History {
        path: path.to_path_buf(),
        detail: detail.to_string(),
    }
}

/// Writes the history into `path`; returns (steps, events, the newest snapshot's bytes, its
/// copy's ms and its serialisation's ms).
fn write_history(
    path: &Path,
    o: &RestartOptions,
) -> Result<(u64, u64, usize, f64, f64), BenchError> {
    let games: Vec<Played> = (0..GAMES as u64)
        .map(|k| {
            let g = generate_game(corpus_spec(o.seed + k));
            let rx: Vec<(u64, Vec<u8>)> = g
                .traffic
                .into_iter()
                .filter(|t| t.dir == Dir::Rx)
                .map(|t| (t.t_ms, t.bytes))
                .collect();
            let length_ms = rx.last().map_or(0, |r| r.0);
            Played { rx, length_ms }
        })
        .collect();
    let end_ms = (o.hours * 3_600_000.0) as u64;
    let labels: Vec<String> = (0..o.boards).map(|b| format!("b{:03}", b + 1)).collect();
    // Earliest next input first (board breaks ties).
    let mut heap: BinaryHeap<std::cmp::Reverse<(u64, usize)>> = BinaryHeap::new();
    let mut cursors: Vec<Cursor> = (0..o.boards)
        .map(|b| Cursor {
            board: b,
            game: (b * 5) % GAMES,
            at: 0,
            began_ms: (b as u64 * 7_919) % 120_000,
        })
        .collect();
    for c in &cursors {
        heap.push(std::cmp::Reverse((c.began_ms, c.board)));
    }
    let mut journal = Journal::open(path).map_err(|e| history_err(path, e))?;
    let mut core = Core::new(CoreConfig::default());
    let mut batch = Batch::new();
    let (mut steps, mut events) = (0u64, 0u64);
    let every_ms = o.snapshot_every_s.max(1) * 1000;
    let mut last_snapshot = 0u64;
    let mut snapshot = (0usize, 0.0f64, 0.0f64);
    let append = |batch: &mut Batch, journal: &mut Journal| {
        journal
            .append(&std::mem::take(batch))
            .map_err(|e| history_err(path, e))
    };
    while let Some(std::cmp::Reverse((t, b))) = heap.pop() {
        let c = &mut cursors[b];
        let game = &games[c.game];
        let bytes = game.rx[c.at].1.clone();
        c.at += 1;
        let next = if c.at < game.rx.len() {
            Some(c.began_ms + game.rx[c.at].0)
        } else {
            c.began_ms += game.length_ms + BETWEEN_GAMES_MS;
            c.game = (c.game + 1) % GAMES;
            c.at = 0;
            Some(c.began_ms + games[c.game].rx[0].0)
        };
        if let Some(n) = next.filter(|&n| n < end_ms) {
            heap.push(std::cmp::Reverse((n, b)));
        }
        while let Some(d) = core.next_deadline().filter(|&d| d < t) {
            let produced = core.advance(d);
            events += produced.len() as u64;
            batch.record_timers(d, produced);
            steps += 1;
        }
        let input = Input {
            t_ms: t,
            board: labels[b].clone(),
            kind: InputKind::Rx(bytes),
        };
        let produced = core.handle(&input);
        events += produced.len() as u64;
        batch.record_input(input, produced);
        steps += 1;
        if t >= last_snapshot + every_ms {
            last_snapshot = t;
            // As the daemon does: the image taken (the core task's pause), then serialised.
            let started = Instant::now();
            let image = core.image();
            let copied = started.elapsed().as_secs_f64() * 1000.0;
            let started = Instant::now();
            let bytes = image.to_bytes();
            let serialised = started.elapsed().as_secs_f64() * 1000.0;
            snapshot = (bytes.len(), copied, serialised);
            batch.record_snapshot(CoreSnapshot {
                next_seq: core.next_seq(),
                t_ms: t,
                format: dgt_core::SNAPSHOT_FORMAT.into(),
                bytes,
            });
        }
        if batch.steps().len() >= BATCH_STEPS {
            append(&mut batch, &mut journal)?;
        }
    }
    append(&mut batch, &mut journal)?;
    // As a daemon's writer leaves it: the older steps sealed into blocks.
    journal.tidy().map_err(|e| history_err(path, e))?;
    Ok((steps, events, snapshot.0, snapshot.1, snapshot.2))
}

fn ms(d: Duration) -> f64 {
    (d.as_secs_f64() * 1000.0 * 10.0).round() / 10.0
}

/// Starts a daemon on `journal` and times it until `/health` answers; stops it again.
fn restart_to_health(
    exe: &Path,
    dir: &Path,
    name: &str,
    journal: &Path,
) -> Result<f64, BenchError> {
    let config = dir.join(format!("{name}.toml"));
    write(
        &config,
        "listen = \"127.0.0.1:0\"\n[serial]\nscan = \"usb\"\n",
    )?;
    let started = Instant::now();
    let mut proc = Process::spawn(
        name,
        exe,
        &[
            "run",
            "--config",
            path_str(&config)?,
            "--journal",
            path_str(journal)?,
        ],
        dir.join(format!("{name}.log")),
    )?;
    let addr = proc.dashboard_addr(Duration::from_secs(1800))?;
    let deadline = Instant::now() + Duration::from_secs(900);
    let served = loop {
        match procs::health(addr) {
            Ok(_) => break started.elapsed(),
            Err(e) if Instant::now() > deadline => return Err(e),
            Err(_) => std::thread::sleep(Duration::from_millis(5)),
        }
    };
    proc.stop(Duration::from_secs(60))?;
    Ok(ms(served))
}

/// Times a recovery of `path` in this process: (open ms, recover ms, report).
fn recover_here(path: &Path) -> Result<(f64, f64, dgt_journal::RecoveryReport), BenchError> {
    let started = Instant::now();
    let journal = Journal::open(path).map_err(|e| history_err(path, e))?;
    let opened = started.elapsed();
    let started = Instant::now();
    let (_, report) =
        dgt_journal::recover(&journal, CoreConfig::default()).map_err(|e| history_err(path, e))?;
    Ok((ms(opened), ms(started.elapsed()), report))
}

/// Runs the restart bench; progress on stderr.
pub fn run(o: RestartOptions) -> Result<RestartReport, BenchError> {
    if o.boards == 0 {
        return Err(BenchError::BoardCount);
    }
    let dir = tempfile::tempdir().map_err(BenchError::TempDir)?;
    let exe = std::env::current_exe().map_err(BenchError::OwnPath)?;
    let path = dir.path().join("history.sqlite");
    eprintln!(
        "bench: writing {} boards × {} h of play into a journal",
        o.boards, o.hours
    );
    let started = Instant::now();
    let (steps, events, snapshot_bytes, pause_ms, serialise_ms) = write_history(&path, &o)?;
    let write_s = started.elapsed().as_secs_f64();
    let journal_mib = std::fs::metadata(&path).map_or(0, |m| m.len()) as f64 / 1_048_576.0;
    eprintln!("bench: {steps} steps, {events} events, {journal_mib:.1} MiB in {write_s:.1} s");
    // The copy without snapshots, taken before any daemon appends to the journal.
    let bare = dir.path().join("without-snapshots.sqlite");
    if o.full_replay {
        std::fs::copy(&path, &bare).map_err(|e| history_err(&bare, e))?;
        let db = rusqlite::Connection::open(&bare).map_err(|e| history_err(&bare, e))?;
        db.execute("DELETE FROM snapshots", [])
            .map_err(|e| history_err(&bare, e))?;
    }
    let (open_ms, restore_ms, report) = recover_here(&path)?;
    if report.from_snapshot.is_none() || !report.is_exact() {
        return Err(history_err(
            &path,
            format!("the recovery did not use a snapshot exactly: {report:?}"),
        ));
    }
    eprintln!(
        "bench: restored in {restore_ms} ms ({} steps after the snapshot)",
        report.steps
    );
    let restart = restart_to_health(&exe, dir.path(), "restarted", &path)?;
    eprintln!("bench: a daemon served /health {restart} ms after its start");
    let (full_replay_ms, without) = if o.full_replay {
        let (_, full, _) = recover_here(&bare)?;
        eprintln!("bench: the full replay took {full} ms");
        let without = restart_to_health(&exe, dir.path(), "without-snapshots", &bare)?;
        (Some(full), Some(without))
    } else {
        (None, None)
    };
    Ok(RestartReport {
        boards: o.boards,
        board_hours: o.boards as f64 * o.hours,
        build: if cfg!(debug_assertions) {
            "debug"
        } else {
            "release"
        },
        steps,
        events,
        journal_mib: (journal_mib * 10.0).round() / 10.0,
        write_s: (write_s * 10.0).round() / 10.0,
        snapshot_kib: (snapshot_bytes as f64 / 1024.0 * 10.0).round() / 10.0,
        snapshot_ms: ((pause_ms + serialise_ms) * 10.0).round() / 10.0,
        snapshot_pause_ms: (pause_ms * 100.0).round() / 100.0,
        snapshot_serialise_ms: (serialise_ms * 10.0).round() / 10.0,
        open_ms,
        restore_ms,
        steps_after_snapshot: report.steps,
        restart_to_health_ms: restart,
        full_replay_ms,
        restart_to_health_without_snapshot_ms: without,
    })
}
