//! `bench --restart-history`: how long a daemon takes to serve again on a long journal.
//!
//! A synthetic history is written fast, the way a daemon writes its journal: the emulator's
//! games (human handling, DGT 3000 clocks) played back to back on every board on virtual
//! time, through one core — no pseudo-terminals, no daemon — and through the daemon's
//! journal writer (batches, the sealer's blocks, a segment closed at each round's
//! pairings), with a core snapshot every `snapshot_every_s` and a views snapshot (the
//! server's views, built by the server's own code from every event) every
//! `view_snapshot_s` of core time. Then a daemon (`run`) is started on that journal and
//! timed from its start until `/health` answers, and its `/api/boards` is compared with
//! the views the writer held at the end; optionally the same on a copy without snapshots
//! (the whole journal replayed). The recoveries are also timed inside this process.

use std::collections::BinaryHeap;
use std::path::Path;
use std::time::{Duration, Instant};

use dgt_core::{Core, CoreConfig, Input, InputKind};
use dgt_emulator::{Dir, corpus_spec, generate_game};
use dgt_journal::segments::SegmentRule;
use dgt_journal::{Batch, CoreSnapshot, Journal, JournalWriter, Submitted, WriterSettings};
use serde::Serialize;

use super::history::{self, DayViews};
use super::procs::{self, Process};
use super::{BenchError, path_str, write};

/// What to write and measure.
#[derive(Debug, Clone)]
pub struct RestartOptions {
    pub boards: usize,
    pub hours: f64,
    pub seed: u64,
    pub snapshot_every_s: u64,
    /// Core time between two views snapshots (`journal.view_snapshot_s`; 0: none).
    pub view_snapshot_s: u64,
    /// Core time between two rounds' pairings: each closes a journal segment.
    pub round_every_s: u64,
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
    /// Rounds posted, hence journal segments (the last one open).
    pub rounds: u32,
    /// Closed segments in the journal's manifest (a round's pairings close the open one).
    pub closed_segments: usize,
    /// Every file of the journal: the open segment, its WAL, the closed segments, the manifest.
    pub journal_mib: f64,
    pub journal_mib_per_100_board_hours: f64,
    pub write_s: f64,
    /// The newest snapshot: its size, and its whole cost (the copy and the serialisation).
    pub snapshot_kib: f64,
    pub snapshot_ms: f64,
    /// Of which the copy of the core's state, the daemon's core task's only pause, and the
    /// serialisation, which the daemon leaves to the journal's snapshot thread.
    pub snapshot_pause_ms: f64,
    pub snapshot_serialise_ms: f64,
    /// The newest views snapshot: its size, how long taking it took, how many were stored.
    pub views_snapshot_kib: f64,
    pub views_snapshot_ms: f64,
    pub views_snapshots: u64,
    /// In this process: opening the journal, then restoring the core from the newest
    /// snapshot and replaying the steps after it.
    pub open_ms: f64,
    pub restore_ms: f64,
    pub steps_after_snapshot: u64,
    /// In this process: the views from their newest snapshot and the events after it.
    pub views_restore_ms: f64,
    pub events_after_views_snapshot: u64,
    /// A daemon started on the journal: from its start until `/health` answers.
    pub restart_to_health_ms: f64,
    /// Boards whose game the restarted daemon shows as the writer's views held it at the
    /// end (game, position, moves, clock, result of every board are compared).
    pub games_where_they_were: usize,
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
/// The daemon is killed this long after the boards' last bytes.
const KILLED_AFTER_MS: u64 = 10_000;
/// Past this much queued in the journal writer, the history waits for it.
const QUEUED_BYTES: usize = 16 * 1024 * 1024;

fn history_err(path: &Path, detail: impl ToString) -> BenchError {
    BenchError::History {
        path: path.to_path_buf(),
        detail: detail.to_string(),
    }
}

/// What the writer knew at the end of the day.
struct Written {
    steps: u64,
    events: u64,
    rounds: u32,
    snapshot_bytes: usize,
    snapshot_pause_ms: f64,
    snapshot_serialise_ms: f64,
    views: DayViews,
}

/// Submits `batch` to the writer; waits for the writer to catch up when it holds more than
/// a few batches (the daemon's writer drops batches past its memory limit, and the core
/// here runs far faster than boards play).
fn submit(batch: &mut Batch, writer: &JournalWriter, path: &Path) -> Result<(), BenchError> {
    if writer.submit(std::mem::take(batch)) == Submitted::Dropped {
        return Err(history_err(path, "the journal writer dropped a batch"));
    }
    if writer.health().pending_bytes > QUEUED_BYTES && !writer.flush(Duration::from_secs(600)) {
        return Err(history_err(
            path,
            "the journal writer did not commit in 600 s",
        ));
    }
    Ok(())
}

/// Writes the history into `path` as a daemon writes its journal: batches through the
/// daemon's writer (its sealer beside it, segments closed by round), a core snapshot every
/// `snapshot_every_s` of core time, a views snapshot every `view_snapshot_s`, the pairings
/// of a new round every `round_every_s`. Ends as a killed daemon leaves it: no last
/// snapshot, the newest rows not sealed.
fn write_history(path: &Path, o: &RestartOptions) -> Result<Written, BenchError> {
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
    journal.set_segment_rule(SegmentRule::Round);
    let writer = JournalWriter::start(journal, WriterSettings::default());
    let mut core = Core::new(CoreConfig::default());
    let mut views = DayViews::new(o.view_snapshot_s);
    let mut batch = Batch::new();
    let (mut steps, mut events) = (0u64, 0u64);
    let every_ms = o.snapshot_every_s.max(1) * 1000;
    let round_ms = o.round_every_s.max(1) * 1000;
    let mut last_snapshot = 0u64;
    let mut snapshot = (0usize, 0.0f64, 0.0f64);
    let mut rounds = 0u32;
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
            views.apply(&produced);
            batch.record_timers(d, produced);
            steps += 1;
        }
        let mut inputs = Vec::with_capacity(2);
        // The arbiter posts the next round's pairings on the hour (round 1 at the start).
        if t >= u64::from(rounds) * round_ms {
            rounds += 1;
            inputs.push(history::round_pairings(t, rounds, o.boards));
        }
        inputs.push(Input {
            t_ms: t,
            board: labels[b].clone(),
            kind: InputKind::Rx(bytes),
        });
        for input in inputs {
            let produced = core.handle(&input);
            events += produced.len() as u64;
            views.apply(&produced);
            batch.record_input(input, produced);
            steps += 1;
        }
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
            submit(&mut batch, &writer, path)?;
        }
        if views.due(t) {
            submit(&mut batch, &writer, path)?;
            views
                .store(t, path, &writer)
                .map_err(|e| history_err(path, e))?;
        }
    }
    // The daemon lives on a little after the boards' last bytes: what waits on a timer (a
    // move settling) is journaled before the kill, so the views hold it as a restarted
    // daemon shows it.
    let last_t = end_ms.max(1) + KILLED_AFTER_MS;
    while let Some(d) = core.next_deadline().filter(|&d| d < last_t) {
        let produced = core.advance(d);
        events += produced.len() as u64;
        views.apply(&produced);
        batch.record_timers(d, produced);
        steps += 1;
    }
    submit(&mut batch, &writer, path)?;
    if !writer.flush(Duration::from_secs(600)) {
        return Err(history_err(
            path,
            "the journal writer did not commit in 600 s",
        ));
    }
    writer.stop();
    Ok(Written {
        steps,
        events,
        rounds,
        snapshot_bytes: snapshot.0,
        snapshot_pause_ms: snapshot.1,
        snapshot_serialise_ms: snapshot.2,
        views,
    })
}

fn ms(d: Duration) -> f64 {
    (d.as_secs_f64() * 1000.0 * 10.0).round() / 10.0
}

/// Starts a daemon on `journal` and times it until `/health` answers; then reads
/// `/api/boards` and checks every board's game against `expected`; stops it again.
/// (ms to health, boards with a game where they were).
fn restart_to_health(
    exe: &Path,
    dir: &Path,
    name: &str,
    journal: &Path,
    expected: &[serde_json::Value],
) -> Result<(f64, usize), BenchError> {
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
    let boards = procs::http_get(addr, "/api/boards");
    proc.stop(Duration::from_secs(60))?;
    let games = history::same_games(expected, &boards?).map_err(|e| {
        history_err(
            journal,
            format!("after the restart, not every game is where it was: {e}"),
        )
    })?;
    Ok((ms(served), games))
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

/// Times the views' restore in this process as the daemon does it: the newest views
/// snapshot, the events after it, applied. (ms, events after the snapshot.)
fn views_here(path: &Path) -> Result<(f64, u64), BenchError> {
    let started = Instant::now();
    let journal = Journal::open_read_only(path).map_err(|e| history_err(path, e))?;
    let Some(stored) = journal
        .newest_view_snapshot(dgt_journal::view_snapshots::SERVER_VIEWS)
        .map_err(|e| history_err(path, e))?
    else {
        return Err(history_err(path, "the journal holds no views snapshot"));
    };
    let after = journal
        .events_since(stored.seq)
        .map_err(|e| history_err(path, e))?;
    let views = dgt_server::ViewsTap::standalone(&dgt_server::ServerConfig::default());
    views
        .restore(dgt_server::ViewsSnapshot {
            seq: stored.seq,
            bytes: stored.bytes,
        })
        .map_err(|e| history_err(path, e))?;
    for json in &after {
        let event: dgt_core::Event =
            serde_json::from_str(json).map_err(|e| history_err(path, e))?;
        views.apply(&event);
    }
    Ok((ms(started.elapsed()), after.len() as u64))
}

/// The files of the journal at `path` (`history.sqlite`: `history.sqlite-wal`,
/// `history.r2.sqlite`, `history.segments.json`, …).
fn journal_files(path: &Path) -> Result<Vec<std::path::PathBuf>, BenchError> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(|e| history_err(path, e))? {
        let entry = entry.map_err(|e| history_err(path, e))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with(&format!("{stem}.")) && entry.path().is_file() {
            files.push(entry.path());
        }
    }
    files.sort();
    Ok(files)
}

fn round1(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
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
    let written = write_history(&path, &o)?;
    let write_s = started.elapsed().as_secs_f64();
    let files = journal_files(&path)?;
    let journal_mib = files
        .iter()
        .map(|f| std::fs::metadata(f).map_or(0, |m| m.len()))
        .sum::<u64>() as f64
        / 1_048_576.0;
    let board_hours = o.boards as f64 * o.hours;
    let closed_segments = Journal::open_read_only(&path)
        .and_then(|j| j.closed_segments())
        .map_err(|e| history_err(&path, e))?
        .len();
    eprintln!(
        "bench: {} steps, {} events, {} rounds, {journal_mib:.1} MiB in {write_s:.1} s",
        written.steps, written.events, written.rounds
    );
    let expected = written.views.boards();
    // The copy without snapshots (the same file names in a folder of its own: the manifest
    // names the closed segments), taken before any daemon appends to the journal.
    let bare_dir = dir.path().join("without-snapshots");
    let bare = bare_dir.join("history.sqlite");
    if o.full_replay {
        std::fs::create_dir(&bare_dir).map_err(|e| history_err(&bare_dir, e))?;
        for f in &files {
            let to = bare_dir.join(f.file_name().unwrap_or_default());
            std::fs::copy(f, &to).map_err(|e| history_err(&to, e))?;
        }
        let db = rusqlite::Connection::open(&bare).map_err(|e| history_err(&bare, e))?;
        db.execute_batch("DELETE FROM snapshots; DELETE FROM view_snapshots;")
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
    let (views_restore_ms, events_after_views) = views_here(&path)?;
    eprintln!(
        "bench: views restored in {views_restore_ms} ms ({events_after_views} events after \
         their snapshot)"
    );
    let (restart, games) = restart_to_health(&exe, dir.path(), "restarted", &path, &expected)?;
    eprintln!(
        "bench: a daemon served /health {restart} ms after its start, {games} games where \
         they were"
    );
    let (full_replay_ms, without) = if o.full_replay {
        let (_, full, _) = recover_here(&bare)?;
        eprintln!("bench: the full replay took {full} ms");
        let (without, _) =
            restart_to_health(&exe, &bare_dir, "without-snapshots", &bare, &expected)?;
        (Some(full), Some(without))
    } else {
        (None, None)
    };
    Ok(RestartReport {
        boards: o.boards,
        board_hours,
        build: if cfg!(debug_assertions) {
            "debug"
        } else {
            "release"
        },
        steps: written.steps,
        events: written.events,
        rounds: written.rounds,
        closed_segments,
        journal_mib: round1(journal_mib),
        journal_mib_per_100_board_hours: round1(journal_mib / board_hours * 100.0),
        write_s: round1(write_s),
        snapshot_kib: round1(written.snapshot_bytes as f64 / 1024.0),
        snapshot_ms: round1(written.snapshot_pause_ms + written.snapshot_serialise_ms),
        snapshot_pause_ms: (written.snapshot_pause_ms * 100.0).round() / 100.0,
        snapshot_serialise_ms: round1(written.snapshot_serialise_ms),
        views_snapshot_kib: round1(written.views.last_bytes as f64 / 1024.0),
        views_snapshot_ms: round1(written.views.last_take_ms),
        views_snapshots: written.views.stored,
        open_ms,
        restore_ms,
        steps_after_snapshot: report.steps,
        views_restore_ms,
        events_after_views_snapshot: events_after_views,
        restart_to_health_ms: restart,
        games_where_they_were: games,
        full_replay_ms,
        restart_to_health_without_snapshot_ms: without,
    })
}
