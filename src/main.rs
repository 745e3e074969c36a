//! The `dgt-arbiter` command line (contract §1).

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use dgt_arbiter::edge::daemon::{CaptureWriter, CoreOptions, Daemon, InputRecorder, SerialOptions};
use dgt_arbiter::edge::pty_board::{self, BoardClock, PtyBoard};
use dgt_arbiter::edge::scripted_board::{ScriptedBoard, ScriptedBoardSpec, pgn_moves};
use dgt_arbiter::edge::serial::discovery::list_system_ports;
use dgt_arbiter::edge::serial::probe::{ProbeAnswer, probe_port};
use dgt_arbiter::edge::serial::{ExplicitPort, ScanMode, SerialTiming, SystemPorts};
use dgt_arbiter::settings::{self, Settings};

#[derive(Parser)]
#[command(
    name = "dgt-arbiter",
    version,
    about = "Eyes on every DGT board for the arbiter"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// The daemon: finds DGT boards on serial/USB ports and reads them.
    Run {
        /// TOML settings (see `settings.rs`); built-in defaults without it.
        #[arg(long)]
        config: Option<PathBuf>,
        /// Append every input to this capture file (overrides the settings' `capture`).
        #[arg(long)]
        capture: Option<PathBuf>,
        /// Print every event as one JSON line on stdout.
        #[arg(long)]
        print_events: bool,
    },
    /// The daemon with N emulated boards on pseudo-terminals (the production serial path).
    Demo {
        #[arg(long, default_value_t = 2)]
        boards: usize,
        /// Dashboard address (default 127.0.0.1:1983).
        #[arg(long)]
        listen: Option<String>,
        /// Seed of the first board's first game; each board and game takes the next.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[arg(long)]
        capture: Option<PathBuf>,
        #[arg(long)]
        print_events: bool,
    },
    /// One emulated board on a pseudo-terminal, until Ctrl-C. Prints the pty path.
    Emulate {
        /// Attach the board to a pseudo-terminal (the only transport so far).
        #[arg(long)]
        pty: bool,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Play this game's main line instead of random moves.
        #[arg(long)]
        pgn: Option<PathBuf>,
        /// The serial number the board reports.
        #[arg(long, default_value = "10001")]
        serial: String,
        /// Time control of the emulated clock (PGN style, e.g. 180+2).
        #[arg(long)]
        time_control: Option<String>,
    },
    /// Lists serial ports with their USB ids, and whether a DGT board answers on each.
    Ports {
        /// Only list; do not send the version request.
        #[arg(long)]
        no_probe: bool,
    },
    /// Play a corpus of emulated games through the core and compare the rebuilt moves with
    /// what was really played (exact, invented, missed, corrections, latency).
    Verify {
        /// How many games.
        #[arg(long, default_value_t = 1000)]
        games: usize,
        /// The first seed; games use consecutive seeds.
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// Feed a capture file through the core on virtual time and print every event as JSON.
    Replay {
        capture: PathBuf,
        #[arg(long)]
        config: Option<PathBuf>,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Replay { capture, config } => replay(&capture, config.as_deref()),
        Command::Run {
            config,
            capture,
            print_events,
        } => with_runtime(run(config, capture, print_events)),
        Command::Demo {
            boards,
            listen,
            seed,
            capture,
            print_events,
        } => with_runtime(demo(boards, listen, seed, capture, print_events)),
        Command::Emulate {
            pty,
            seed,
            pgn,
            serial,
            time_control,
        } => with_runtime(emulate(pty, seed, pgn, serial, time_control)),
        Command::Ports { no_probe } => ports(!no_probe),
        Command::Verify { games, seed } => {
            let report =
                dgt_arbiter::verify::check_corpus(seed, games, &dgt_core::CoreConfig::default());
            print!("{report}");
            if report.invented == 0 && report.missed == 0 {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            }
        }
    }
}

fn replay(capture: &Path, config: Option<&Path>) -> ExitCode {
    // Without --config the built-in defaults apply, so a replay does not depend on the
    // machine it runs on.
    let core = match config {
        None => dgt_core::CoreConfig::default(),
        Some(path) => match dgt_arbiter::settings::load(Some(path)) {
            Ok(s) => s.core,
            Err(e) => {
                eprintln!("dgt-arbiter replay: configuration {}: {e}", path.display());
                return ExitCode::from(2);
            }
        },
    };
    let text = match std::fs::read_to_string(capture) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("dgt-arbiter replay: cannot read {}: {e}", capture.display());
            return ExitCode::from(2);
        }
    };
    match dgt_arbiter::replay::replay_text(&text, core) {
        Ok(events) => {
            let stdout = std::io::stdout().lock();
            if let Err(e) = dgt_arbiter::replay::write_events(&events, stdout) {
                eprintln!("dgt-arbiter replay: cannot write output: {e}");
                return ExitCode::from(1);
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("dgt-arbiter replay: {}: {e}", capture.display());
            ExitCode::from(2)
        }
    }
}

/// Logs go to stderr (stdout carries events); `RUST_LOG` filters, `info` by default.
fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .try_init();
}

fn with_runtime(job: impl Future<Output = Result<(), String>>) -> ExitCode {
    init_logging();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
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

fn recorders(capture: Option<&Path>) -> Result<Vec<Box<dyn InputRecorder>>, String> {
    match capture {
        Some(path) => {
            let writer = CaptureWriter::create(path)
                .map_err(|e| format!("cannot create the capture {}: {e}", path.display()))?;
            Ok(vec![Box::new(writer)])
        }
        None => Ok(Vec::new()),
    }
}

fn check_listen(listen: &str) -> Result<SocketAddr, String> {
    listen.parse().map_err(|e| {
        format!("listen address {listen:?}: {e} (expected host:port, e.g. 127.0.0.1:1983)")
    })
}

/// Runs until SIGINT/SIGTERM, then stops cleanly.
async fn serve(daemon: Daemon) -> Result<(), String> {
    dgt_arbiter::edge::daemon::shutdown_signal().await;
    tracing::info!("stopping");
    let summary = daemon.shutdown().await;
    tracing::info!(inputs = summary.inputs, events = summary.events, "stopped");
    Ok(())
}

async fn run(
    config: Option<PathBuf>,
    capture: Option<PathBuf>,
    print_events: bool,
) -> Result<(), String> {
    let settings: Settings = settings::load(config.as_deref()).map_err(|e| match &config {
        Some(p) => format!("{}: {e}", p.display()),
        None => e.to_string(),
    })?;
    let listen = check_listen(&settings.listen)?;
    let capture = capture.or(settings.capture.clone());
    let daemon = Daemon::start(
        CoreOptions {
            core: settings.core,
            recorders: recorders(capture.as_deref())?,
            print_events,
            ..Default::default()
        },
        SerialOptions {
            scan: Box::new(SystemPorts::new(
                settings.serial.scan,
                settings.serial.ports,
            )),
            labels: settings.serial.labels,
            timing: SerialTiming::default(),
        },
    );
    eprintln!("dgt-arbiter: dashboard at http://{listen}/ (the HTTP server is not built yet)");
    serve(daemon).await
}

async fn demo(
    boards: usize,
    listen: Option<String>,
    seed: u64,
    capture: Option<PathBuf>,
    print_events: bool,
) -> Result<(), String> {
    let listen = check_listen(listen.as_deref().unwrap_or(settings::DEFAULT_LISTEN))?;
    let mut ptys = Vec::new();
    for i in 0..boards {
        let mut spec = ScriptedBoardSpec::new(&format!("{:05}", 10001 + i));
        spec.seed = seed.wrapping_add(i as u64 * 1000);
        // Boards do not all move in step.
        spec.first_move_ms = 1500 + 400 * i as u64;
        let board = pty_board::share(ScriptedBoard::new(spec));
        let pty = PtyBoard::plug_in(board, BoardClock::start(), None)
            .map_err(|e| format!("cannot open a pseudo-terminal: {e}"))?;
        eprintln!(
            "dgt-arbiter demo: board {:05} on {}",
            10001 + i,
            pty.path().display()
        );
        ptys.push(pty);
    }
    let explicit = ptys
        .iter()
        .map(|p| ExplicitPort {
            path: p.path().to_path_buf(),
            label: None,
        })
        .collect();
    let daemon = Daemon::start(
        CoreOptions {
            recorders: recorders(capture.as_deref())?,
            print_events,
            ..Default::default()
        },
        SerialOptions {
            // Only the demo's own ptys: a demo never touches real devices.
            scan: Box::new(SystemPorts::new(ScanMode::Off, explicit)),
            labels: Default::default(),
            timing: SerialTiming::default(),
        },
    );
    eprintln!(
        "dgt-arbiter demo: dashboard at http://{listen}/ (the HTTP server is not built yet; \
         --print-events shows the events)"
    );
    let result = serve(daemon).await;
    for pty in ptys {
        pty.unplug().await;
    }
    result
}

async fn emulate(
    _pty: bool,
    seed: u64,
    pgn: Option<PathBuf>,
    serial: String,
    time_control: Option<String>,
) -> Result<(), String> {
    if serial.len() != 5 || !serial.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!(
            "--serial {serial:?}: a DGT serial number is 5 digits"
        ));
    }
    let mut spec = ScriptedBoardSpec::new(&serial);
    spec.seed = seed;
    if let Some(path) = &pgn {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let moves = pgn_moves(&text);
        if moves.is_empty() {
            return Err(format!("{}: no moves found", path.display()));
        }
        spec.moves = Some(moves);
    }
    if let Some(tc) = time_control {
        tracing::warn!(
            time_control = tc,
            "this board has no clock yet (the clock comes with dgt-emulator); ignored"
        );
    }
    let board = pty_board::share(ScriptedBoard::new(spec));
    let pty = PtyBoard::plug_in(board, BoardClock::start(), None)
        .map_err(|e| format!("cannot open a pseudo-terminal: {e}"))?;
    println!("{}", pty.path().display());
    eprintln!("dgt-arbiter emulate: board {serial} on the pty above; Ctrl-C stops it");
    dgt_arbiter::edge::daemon::shutdown_signal().await;
    pty.unplug().await;
    Ok(())
}

fn ports(probe: bool) -> ExitCode {
    let ports = list_system_ports();
    if ports.is_empty() {
        println!("no serial ports found");
        return ExitCode::SUCCESS;
    }
    for p in ports {
        let mut line = p.path.display().to_string();
        match &p.usb {
            Some(u) => {
                line += &format!("  usb {:04x}:{:04x}", u.vid, u.pid);
                if u.is_dgt() {
                    line += " (DGT id)";
                }
                for (key, value) in [
                    ("serial", &u.serial_number),
                    ("manufacturer", &u.manufacturer),
                    ("product", &u.product),
                ] {
                    if let Some(v) = value {
                        line += &format!("  {key}={v:?}");
                    }
                }
            }
            None => line += "  (not USB)",
        }
        // Only USB ports are asked: built-in UARTs rarely hold a board and each probe
        // takes half a second.
        if probe && p.usb.is_some() {
            line += match probe_port(&p.path) {
                ProbeAnswer::Board { major, minor } => {
                    format!("  DGT board, version {major}.{minor}")
                }
                ProbeAnswer::Silent => "  no DGT answer".to_string(),
                ProbeAnswer::Unavailable(e) => format!("  cannot open: {e}"),
            }
            .as_str();
        }
        println!("{line}");
    }
    ExitCode::SUCCESS
}
