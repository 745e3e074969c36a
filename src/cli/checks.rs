//! `verify`, `check-config` and `bench`: checks of the core and the settings, and
//! measurements under load.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;
use dgt_arbiter::settings;

use super::{CliError, EXIT_CONFIG, with_runtime};

// `verify`'s arguments.
#[derive(Args)]
pub struct VerifyArgs {
    /// How many games.
    #[arg(long, default_value_t = 1000)]
    games: usize,
    /// The first seed; games use consecutive seeds.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Instead of games: check the dead-position analysis against a labelled set in
    /// chasolver's format (its `tests/positions.txt` or `tests/lichess.txt`: FEN, then
    /// whether White / Black can mate) and report agreement and timings.
    #[arg(long)]
    dead_positions: Option<PathBuf>,
    /// Instead of the move check: play the games at three paces (careful, blitz, time
    /// scramble) with irregularities whose truth is kept aside, and report per alert kind
    /// and pace the true and false alerts, misses, precision, recall and false
    /// review/intervene alerts per 100 games (`--games` per pace).
    #[arg(long)]
    alerts: bool,
    /// Instead of the move check: play bughouse matches under each regulation (quick
    /// drops, captures of just-dropped pieces, promotions taking pieces from the partner
    /// board) and report per regulation the matches read exactly and the false claims
    /// (`--games` matches per regulation).
    #[arg(long)]
    bughouse: bool,
}

// `check-config`'s arguments.
#[derive(Args)]
pub struct CheckConfigArgs {
    /// The file `run --config` would be given.
    file: Option<PathBuf>,
}

// `bench`'s arguments.
#[derive(Args)]
pub struct BenchArgs {
    #[arg(long, default_value_t = 100)]
    boards: usize,
    /// Length of the measured window.
    #[arg(long, default_value_t = 30)]
    seconds: u64,
    /// Split the boards over K daemons joined by a nats-server to a hub (clients on the
    /// hub); 0: one daemon, clients on it.
    #[arg(long, default_value_t = 0)]
    nodes: usize,
    #[arg(long, default_value_t = 10)]
    clients: usize,
    /// With --nodes: each node's `[cluster] publish_every_ms` (its default when unset).
    #[arg(long)]
    publish_every_ms: Option<u64>,
    /// Seed of the first board's first game.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Instead of the load run: the hub's restart at the end of a synthetic event of
    /// `--boards` boards on `--nodes` PCs (10 when 0) over `--rounds` rounds, with and without
    /// its checkpoint.
    #[arg(long)]
    hub_restart: bool,
    /// With --hub-restart: the event's rounds.
    #[arg(long, default_value_t = 9)]
    rounds: u32,
    /// With --hub-restart: the plies of each game.
    #[arg(long, default_value_t = 80)]
    plies: usize,
    /// With --hub-restart: clock readings after each move.
    #[arg(long, default_value_t = 1)]
    clocks_per_move: u32,
    /// Instead of the load: write `--boards` × `--hours` of play into a journal (fast, on
    /// virtual time) and time a daemon's restart on it, with and without core snapshots.
    #[arg(long)]
    restart_history: bool,
    /// `--restart-history`: hours of play per board.
    #[arg(long, default_value_t = 8.0)]
    hours: f64,
    /// `--restart-history`: core time between two snapshots (`journal.snapshot_every_s`).
    #[arg(long, default_value_t = 600)]
    snapshot_every_s: u64,
    /// `--restart-history`: core time between two views snapshots (`journal.view_snapshot_s`).
    #[arg(long, default_value_t = 120)]
    view_snapshot_s: u64,
    /// `--restart-history`: core time between two rounds' pairings (each closes a segment).
    #[arg(long, default_value_t = 3600)]
    round_every_s: u64,
    /// `--restart-history`: skip the restart without snapshots (minutes on a long history);
    /// `--hub-restart`: skip the hub that reads the whole stream.
    #[arg(long)]
    skip_full_replay: bool,
}

pub fn verify(a: VerifyArgs) -> ExitCode {
    if let Some(path) = &a.dead_positions {
        return verify_dead_positions(path);
    }
    if a.alerts {
        let report =
            dgt_lab::verify_alerts::check_alerts(a.seed, a.games, &dgt_core::CoreConfig::default());
        print!("{report}");
        return ExitCode::SUCCESS;
    }
    if a.bughouse {
        let report = dgt_lab::verify_bughouse::check_bughouse(a.seed, a.games);
        print!("{report}");
        return if report.all_exact() {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(1)
        };
    }
    let report = dgt_lab::verify::check_corpus(a.seed, a.games, &dgt_core::CoreConfig::default());
    print!("{report}");
    if report.invented == 0 && report.missed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

pub fn check_config(a: CheckConfigArgs) -> ExitCode {
    match settings::check_report(a.file.as_deref()) {
        Ok(report) => {
            print!("{report}");
            ExitCode::SUCCESS
        }
        Err(problems) => {
            let problems = problems.to_string();
            eprint!("{problems}");
            if !problems.ends_with('\n') {
                eprintln!();
            }
            ExitCode::from(EXIT_CONFIG)
        }
    }
}

pub fn bench(a: BenchArgs) -> ExitCode {
    if a.hub_restart {
        return with_runtime(async move {
            let report = super::hub_restart::run(super::hub_restart::HubRestartOptions {
                boards: a.boards,
                nodes: if a.nodes == 0 { 10 } else { a.nodes },
                rounds: a.rounds,
                plies: a.plies,
                clocks_per_move: a.clocks_per_move,
                seed: a.seed,
                whole_stream: !a.skip_full_replay,
            })
            .await?;
            println!("{}", serde_json::to_string(&report)?);
            Ok(())
        });
    }
    if a.restart_history {
        let options = dgt_lab::bench::restart::RestartOptions {
            boards: a.boards,
            hours: a.hours,
            seed: a.seed,
            snapshot_every_s: a.snapshot_every_s,
            view_snapshot_s: a.view_snapshot_s,
            round_every_s: a.round_every_s,
            full_replay: !a.skip_full_replay,
        };
        return match dgt_lab::bench::restart::run(options) {
            Ok(report) => {
                println!("{}", serde_json::to_string(&report).unwrap_or_default());
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("dgt-arbiter bench: {e}");
                ExitCode::from(1)
            }
        };
    }
    with_runtime(run_bench(dgt_lab::bench::BenchOptions {
        boards: a.boards,
        seconds: a.seconds,
        nodes: a.nodes,
        clients: a.clients,
        seed: a.seed,
        publish_every_ms: a
            .publish_every_ms
            .unwrap_or(settings::cluster::PUBLISH_EVERY_MS),
    }))
}

async fn run_bench(options: dgt_lab::bench::BenchOptions) -> Result<(), CliError> {
    let report = dgt_lab::bench::run(options)
        .await
        .map_err(|e| CliError::Bench(e.to_string()))?;
    let json = serde_json::to_string(&report)?;
    println!("{json}");
    Ok(())
}

fn verify_dead_positions(path: &Path) -> ExitCode {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("dgt-arbiter verify: cannot read {}: {e}", path.display());
            return ExitCode::from(2);
        }
    };
    let started = std::time::Instant::now();
    let a = dgt_core::dead::check_labelled_parallel(&text);
    let wall = started.elapsed();
    println!("positions      {}", a.positions);
    println!(
        "agree          {} of {} verdicts (White and Black per position)",
        a.agree,
        2 * a.positions
    );
    println!(
        "unsound        {} ('cannot mate' where a mate exists)",
        a.unsound
    );
    println!("wrong can-mate {}", a.wrong_can_mate);
    println!(
        "undetermined   {} (a review alert, never a draw)",
        a.undetermined
    );
    println!("unreadable     {}", a.unreadable);
    let n = a.positions.max(1) as f64;
    println!(
        "time           {:.1} s wall, {:.0} µs mean per position, slowest {:.1} ms",
        wall.as_secs_f64(),
        a.total_micros as f64 / n,
        a.slowest_micros as f64 / 1000.0
    );
    if a.unsound == 0 && a.agree == 2 * a.positions && a.unreadable == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
