//! The command line's arguments (clap structs) and what each subcommand runs, by role:
//!
//! * [`daemon`]: `run`, `hub`, `demo` — the long-running services;
//! * [`boards`]: `emulate`, `ports` — boards on pseudo-terminals and real ports;
//! * [`journal`]: `export`, `replay` — what was recorded, out again;
//! * [`checks`]: `verify`, `check-config`, `bench` — checks and measurements;
//! * [`pairings`]: `pairings import|results`.
//!
//! Names, flags and outputs are the contract's (§1): they are added to, never changed.

mod boards;
mod checks;
mod daemon;
mod hub_restart;
mod journal;
mod pairings;

use std::future::Future;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "dgt-arbiter",
    version,
    about = "Eyes on every DGT board for the arbiter"
)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// The daemon: finds DGT boards on serial/USB ports and reads them.
    Run(daemon::RunArgs),
    /// The event's hub: no boards of its own; reads every node's events from the event's
    /// NATS JetStream stream and serves the dashboard, REST and feeds for all of them.
    Hub(daemon::HubArgs),
    /// The daemon with N emulated boards on pseudo-terminals (the production serial path).
    Demo(daemon::DemoArgs),
    /// One emulated board with a DGT 3000 clock on a pseudo-terminal, until Ctrl-C. Prints
    /// the pty path on stdout. It plays one game after another (the first from --pgn if
    /// given), with human-like handling.
    Emulate(boards::EmulateArgs),
    /// Lists serial ports with their USB ids, and whether a DGT board answers on each.
    Ports(boards::PortsArgs),
    /// Play a corpus of emulated games through the core and compare the rebuilt moves with
    /// what was really played (exact, invented, missed, corrections, latency).
    Verify(checks::VerifyArgs),
    /// Captures, PGN (with `[%clk]`), alerts or events out of the journal, on stdout.
    Export(journal::ExportArgs),
    /// Validates the configuration (defaults, /etc/dgt-arbiter/config.toml, FILE, the
    /// DGT_ARBITER_* environment): every problem with its key, value and fix.
    CheckConfig(checks::CheckConfigArgs),
    /// A round's pairings in (FIDE TRF or a CSV/TSV pairing list), its results out.
    Pairings(pairings::PairingsArgs),
    /// Measures daemons under load: N emulated blitz boards (in this process) on
    /// pseudo-terminals read by separate daemon processes, C WebSocket clients timing every
    /// event from the pty write to its arrival. Prints one JSON object on its last line.
    Bench(checks::BenchArgs),
    /// Feed a capture file through the core on virtual time and print every event as JSON.
    Replay(journal::ReplayArgs),
}

impl Cli {
    /// Runs the subcommand; its exit status.
    pub fn run(self) -> ExitCode {
        match self.command {
            Command::Run(a) => daemon::run(a),
            Command::Hub(a) => daemon::hub(a),
            Command::Demo(a) => daemon::demo(a),
            Command::Emulate(a) => boards::emulate(a),
            Command::Ports(a) => boards::ports(a),
            Command::Verify(a) => checks::verify(a),
            Command::Export(a) => journal::export(a),
            Command::CheckConfig(a) => checks::check_config(a),
            Command::Pairings(a) => pairings::pairings(a),
            Command::Bench(a) => checks::bench(a),
            Command::Replay(a) => journal::replay(a),
        }
    }
}

/// Exit status for a configuration error (sysexits EX_CONFIG); the systemd unit does not
/// restart on it (`RestartPreventExitStatus=78`).
const EXIT_CONFIG: u8 = 78;

/// What stops a subcommand that runs in the runtime, as `dgt-arbiter: …` tells it.
#[derive(Debug, thiserror::Error)]
enum CliError {
    #[error("{0}")]
    Services(#[from] dgt_arbiter::services::ServicesError),
    #[error("{0}")]
    Hub(#[from] dgt_arbiter::cluster::hub::HubError),
    /// The settings' own message (settings, problems and fixes).
    #[error("{0}")]
    Settings(String),
    #[error("cannot create the capture {}: {source}", .path.display())]
    Capture {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot make a temporary directory: {0}")]
    TempDir(std::io::Error),
    #[error("cannot open a pseudo-terminal: {0}")]
    Pty(std::io::Error),
    #[error(
        "--serial {0:?}: a DGT serial number is 5 digits, at most 16383 (the bus address holds \
         14 bits)"
    )]
    BadSerial(String),
    #[error("--time-control {text:?}: {detail}")]
    BadTimeControl { text: String, detail: String },
    #[error("cannot read {}: {source}", .path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    /// A PGN the emulator cannot play.
    #[error("{}: {detail}", .path.display())]
    BadPgn { path: PathBuf, detail: String },
    #[error("game: {0}")]
    Unplayable(String),
    /// The bench's own message.
    #[error("{0}")]
    Bench(String),
    #[error("{0}")]
    Json(#[from] serde_json::Error),
}

fn with_runtime(job: impl Future<Output = Result<(), CliError>>) -> ExitCode {
    with_runtime_workers(None, job)
}

/// [`with_runtime`] on `workers` threads (`None`: one per core, or `TOKIO_WORKER_THREADS`).
fn with_runtime_workers(
    workers: Option<usize>,
    job: impl Future<Output = Result<(), CliError>>,
) -> ExitCode {
    // journald under systemd, readable lines on a terminal; stdout carries events.
    dgt_arbiter::logging::init();
    let mut builder = tokio::runtime::Builder::new_multi_thread();
    if let Some(n) = workers {
        builder.worker_threads(n);
    }
    let runtime = match builder.enable_all().build() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("dgt-arbiter: cannot start the runtime: {e}");
            return ExitCode::from(1);
        }
    };
    match runtime.block_on(job) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("dgt-arbiter: {e}");
            ExitCode::from(1)
        }
    }
}
