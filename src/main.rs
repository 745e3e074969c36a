//! The `dgt-arbiter` command line (contract §1).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use dgt_arbiter::edge::daemon::{CaptureWriter, InputRecorder, SerialOptions};
use dgt_arbiter::edge::emulated::{GameSeries, SeriesBoard};
use dgt_arbiter::edge::pty_board::{self, BoardClock, PtyBoard};
use dgt_arbiter::edge::serial::discovery::list_system_ports;
use dgt_arbiter::edge::serial::probe::{ProbeAnswer, probe_port};
use dgt_arbiter::edge::serial::{ExplicitPort, ScanMode, SerialTiming, SystemPorts};
use dgt_arbiter::edge::systemd;
use dgt_arbiter::services::{ServiceOptions, Services};
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
        /// The journal file (overrides the settings' `journal.path`).
        #[arg(long)]
        journal: Option<PathBuf>,
    },
    /// The event's hub: no boards of its own; reads every node's events from the event's
    /// NATS JetStream stream and serves the dashboard, REST and feeds for all of them.
    Hub {
        /// Settings with a [cluster] table (nats, event, credentials), listen, tokens.
        #[arg(long)]
        config: Option<PathBuf>,
    },
    /// The daemon with N emulated boards on pseudo-terminals (the production serial path).
    Demo {
        #[arg(long, default_value_t = 4)]
        boards: usize,
        /// Dashboard address (default 127.0.0.1:1983; port 0 picks a free one).
        #[arg(long)]
        listen: Option<String>,
        /// Seed of the first board's first game; each board and game takes the next.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[arg(long)]
        capture: Option<PathBuf>,
        #[arg(long)]
        print_events: bool,
        /// Journal the demo here (a restarted demo continues its games); by default the
        /// demo journals into a temporary file removed at the end.
        #[arg(long)]
        journal: Option<PathBuf>,
        /// Settings (time control, edition, tokens, broadcast folders …) for the demo.
        #[arg(long)]
        config: Option<PathBuf>,
    },
    /// One emulated board with a DGT 3000 clock on a pseudo-terminal, until Ctrl-C. Prints
    /// the pty path on stdout. It plays one game after another (the first from --pgn if
    /// given), with human-like handling.
    Emulate {
        /// Attach the board to a pseudo-terminal (the only transport so far).
        #[arg(long)]
        pty: bool,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Play this game's main line first.
        #[arg(long)]
        pgn: Option<PathBuf>,
        /// Or play these moves first (UCI, space-separated: "e2e4 e7e5 g1f3").
        #[arg(long, conflicts_with = "pgn")]
        moves: Option<String>,
        /// The serial number the board reports (5 digits).
        #[arg(long, default_value = "10001")]
        serial: String,
        /// Time control of the emulated clock (PGN style, e.g. 180+2).
        #[arg(long, default_value = "180+2")]
        time_control: String,
        /// Plies of each random game.
        #[arg(long, default_value_t = 80)]
        plies: usize,
        /// Careful players: no slides, knocked pieces or other irregularities.
        #[arg(long)]
        clean: bool,
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
    },
    /// Captures, PGN (with `[%clk]`), alerts or events out of the journal, on stdout.
    Export {
        #[arg(value_enum)]
        what: dgt_arbiter::output::ExportKind,
        /// The journal (default: the configuration's `journal.path`).
        #[arg(long)]
        journal: Option<PathBuf>,
        /// Settings for the PGN tags (event, site, round, time controls).
        #[arg(long)]
        config: Option<PathBuf>,
        /// Only this board (its label).
        #[arg(long)]
        board: Option<String>,
        /// Only this game (PGN, alerts, events).
        #[arg(long)]
        game: Option<String>,
        /// From this core time (ms, inclusive).
        #[arg(long)]
        from_ms: Option<u64>,
        /// Until this core time (ms, inclusive).
        #[arg(long)]
        to_ms: Option<u64>,
    },
    /// Validates the configuration (defaults, /etc/dgt-arbiter/config.toml, FILE, the
    /// DGT_ARBITER_* environment): every problem with its key, value and fix.
    CheckConfig {
        /// The file `run --config` would be given.
        file: Option<PathBuf>,
    },
    /// A round's pairings in (FIDE TRF or a CSV/TSV pairing list), its results out.
    Pairings {
        #[command(subcommand)]
        action: PairingsCommand,
    },
    /// Measures daemons under load: N emulated blitz boards (in this process) on
    /// pseudo-terminals read by separate daemon processes, C WebSocket clients timing every
    /// event from the pty write to its arrival. Prints one JSON object on its last line.
    Bench {
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
        /// Seed of the first board's first game.
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

#[derive(Subcommand)]
enum PairingsCommand {
    /// Checks the file whole (every problem with its line and a fix; nothing imported from
    /// a file with a problem), prints the tables, then hands it to the running daemon (REST,
    /// arbiter token) or, with --journal, to a stopped daemon's journal.
    Import {
        file: PathBuf,
        /// The round the pairings are for.
        #[arg(long)]
        round: u32,
        /// How a TRF's pairs are numbered: by the White player's line (white-line) or by
        /// the first line of either player (first-line). A CSV list has its own table column.
        #[arg(long, default_value = "white-line")]
        order: String,
        /// Settings (the daemon's address, token and table map).
        #[arg(long)]
        config: Option<PathBuf>,
        /// The daemon's dashboard address (default: the settings' `listen`).
        #[arg(long)]
        url: Option<String>,
        /// The arbiter token (default: the settings' `server.arbiter_token`).
        #[arg(long, env = "DGT_ARBITER_TOKEN")]
        token: Option<String>,
        /// Write into this journal of a stopped daemon instead.
        #[arg(long)]
        journal: Option<PathBuf>,
        /// Only check the file and show the tables.
        #[arg(long)]
        check: bool,
    },
    /// The round's results out of the journal (CSV, or the imported TRF with the round's
    /// results filled in) on stdout; the tables without a result on stderr.
    Results {
        #[arg(long)]
        round: u32,
        #[arg(long, value_enum, default_value = "csv")]
        format: dgt_arbiter::pairings::ResultsFormat,
        #[arg(long)]
        journal: Option<PathBuf>,
        #[arg(long)]
        config: Option<PathBuf>,
    },
}

/// Exit status for a configuration error (sysexits EX_CONFIG); the systemd unit does not
/// restart on it (`RestartPreventExitStatus=78`).
const EXIT_CONFIG: u8 = 78;

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Replay { capture, config } => replay(&capture, config.as_deref()),
        Command::Bench {
            boards,
            seconds,
            nodes,
            clients,
            seed,
        } => with_runtime(bench(dgt_arbiter::bench::BenchOptions {
            boards,
            seconds,
            nodes,
            clients,
            seed,
        })),
        Command::Run {
            config,
            capture,
            print_events,
            journal,
        } => {
            // The daemon refuses an invalid configuration with check-config's message.
            let settings = match settings::load_checked(config.as_deref()) {
                Ok(s) => s,
                Err(problems) => {
                    eprintln!("dgt-arbiter run: invalid configuration, not starting:\n{problems}");
                    return ExitCode::from(EXIT_CONFIG);
                }
            };
            with_runtime(run(settings, capture, print_events, journal))
        }
        Command::Hub { config } => {
            let settings = match settings::load_checked_hub(config.as_deref()) {
                Ok(s) => s,
                Err(problems) => {
                    eprintln!("dgt-arbiter hub: invalid configuration, not starting:\n{problems}");
                    return ExitCode::from(EXIT_CONFIG);
                }
            };
            with_runtime(hub(settings))
        }
        Command::Demo {
            boards,
            listen,
            seed,
            capture,
            print_events,
            journal,
            config,
        } => with_runtime(demo(DemoOptions {
            boards,
            listen,
            seed,
            capture,
            print_events,
            journal,
            config,
        })),
        Command::Export {
            what,
            journal,
            config,
            board,
            game,
            from_ms,
            to_ms,
        } => export(
            what,
            journal,
            config,
            dgt_arbiter::output::ExportFilter {
                board,
                game,
                from_ms,
                to_ms,
            },
        ),
        Command::Emulate {
            pty,
            seed,
            pgn,
            moves,
            serial,
            time_control,
            plies,
            clean,
        } => with_runtime(emulate(EmulateOptions {
            _pty: pty,
            seed,
            pgn,
            moves,
            serial,
            time_control,
            plies,
            clean,
        })),
        Command::Ports { no_probe } => ports(!no_probe),
        Command::Pairings { action } => pairings(action),
        Command::CheckConfig { file } => match settings::check_report(file.as_deref()) {
            Ok(report) => {
                print!("{report}");
                ExitCode::SUCCESS
            }
            Err(problems) => {
                eprint!("{problems}");
                if !problems.ends_with('\n') {
                    eprintln!();
                }
                ExitCode::from(EXIT_CONFIG)
            }
        },
        Command::Verify {
            dead_positions: Some(path),
            ..
        } => verify_dead_positions(&path),
        Command::Verify {
            games,
            seed,
            alerts: true,
            ..
        } => {
            let report = dgt_arbiter::verify_alerts::check_alerts(
                seed,
                games,
                &dgt_core::CoreConfig::default(),
            );
            print!("{report}");
            ExitCode::SUCCESS
        }
        Command::Verify { games, seed, .. } => {
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

fn pairings(action: PairingsCommand) -> ExitCode {
    use dgt_arbiter::pairings as p;
    match action {
        PairingsCommand::Import {
            file,
            round,
            order,
            config,
            url,
            token,
            journal,
            check,
        } => {
            let fail = |e: String| {
                eprintln!("dgt-arbiter pairings import: {e}");
                ExitCode::from(2)
            };
            let settings = match load_settings(config.as_deref()) {
                Ok(s) => s,
                Err(e) => return fail(e),
            };
            let raw = match std::fs::read(&file) {
                Ok(r) => r,
                Err(e) => return fail(format!("cannot read {}: {e}", file.display())),
            };
            let board_order = match order.parse::<dgt_pairings::BoardOrder>() {
                Ok(o) => o,
                Err(e) => return fail(format!("--order: {e}")),
            };
            let text = dgt_pairings::decode_text(&raw);
            let pairings = match dgt_pairings::read(&text, round, board_order) {
                Ok(pairings) => pairings,
                Err(problems) => {
                    eprint!(
                        "dgt-arbiter pairings import: {} has {} problem(s); nothing was imported:\n{problems}",
                        file.display(),
                        problems.0.len()
                    );
                    return ExitCode::from(1);
                }
            };
            print!(
                "{}",
                p::summary(&pairings, &dgt_arbiter::output::table_map(&settings))
            );
            if check {
                return ExitCode::SUCCESS;
            }
            let done = match journal {
                Some(path) => p::import_into_journal(&path, &settings, pairings)
                    .map(|seq| format!("journaled as event {seq} in {}", path.display())),
                None => {
                    let addr = match url {
                        Some(u) => Ok(u
                            .trim_start_matches("http://")
                            .trim_end_matches('/')
                            .to_string()),
                        None => p::daemon_addr(&settings).map(|a| a.to_string()),
                    };
                    let token = token.or(settings.server.arbiter_token.clone());
                    addr.and_then(|a| {
                        p::import_via_daemon(&a, token.as_deref(), round, &order, &raw)
                            .map(|()| format!("handed to the daemon at {a}"))
                    })
                }
            };
            match done {
                Ok(how) => {
                    println!("round {round}: {how}");
                    ExitCode::SUCCESS
                }
                Err(e) => fail(e.to_string()),
            }
        }
        PairingsCommand::Results {
            round,
            format,
            journal,
            config,
        } => {
            let settings = match load_settings(config.as_deref()) {
                Ok(s) => s,
                Err(e) => {
                    eprintln!("dgt-arbiter pairings results: {e}");
                    return ExitCode::from(2);
                }
            };
            let path = dgt_arbiter::output::journal_path(journal, &settings);
            match p::results(&path, &settings, round, format) {
                Ok((text, unfinished)) => {
                    print!("{text}");
                    if !unfinished.is_empty() {
                        let list: Vec<String> = unfinished.iter().map(u32::to_string).collect();
                        eprintln!(
                            "round {round}: no result yet at table(s) {}",
                            list.join(", ")
                        );
                    }
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("dgt-arbiter pairings results: {e}");
                    ExitCode::from(2)
                }
            }
        }
    }
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

fn replay(capture: &Path, config: Option<&Path>) -> ExitCode {
    // Without --config the built-in defaults apply, so a replay does not depend on the
    // machine it runs on.
    let core = match config {
        None => dgt_core::CoreConfig::default(),
        // Only the file: neither /etc nor the environment may change a replay's events.
        Some(path) => match dgt_arbiter::settings::load_sources(None, Some(path), Vec::new()) {
            Ok(loaded) => loaded.settings.core,
            Err(e) => {
                eprintln!("dgt-arbiter replay: {e}");
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

fn with_runtime(job: impl Future<Output = Result<(), String>>) -> ExitCode {
    // journald under systemd, readable lines on a terminal; stdout carries events.
    dgt_arbiter::logging::init();
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

/// Runs until SIGINT/SIGTERM, then stops cleanly. Under systemd: ready once the ports are
/// being scanned and the HTTP port is bound, watchdog pings while the core task lives.
async fn serve(services: Services) -> Result<(), String> {
    let inputs = services.daemon().handle().inputs();
    let watchdog = systemd::spawn_watchdog_checked(move || !inputs.is_closed());
    systemd::notify_status(&format!("dashboard at http://{}/", services.addr()));
    systemd::notify_ready();
    dgt_arbiter::edge::daemon::shutdown_signal().await;
    systemd::notify_stopping();
    if let Some(w) = watchdog {
        w.abort();
    }
    tracing::info!("stopping");
    let summary = services.shutdown().await;
    tracing::info!(inputs = summary.inputs, events = summary.events, "stopped");
    Ok(())
}

fn load_settings(config: Option<&Path>) -> Result<Settings, String> {
    settings::load(config).map_err(|e| e.to_string())
}

async fn run(
    settings: Settings,
    capture: Option<PathBuf>,
    print_events: bool,
    journal: Option<PathBuf>,
) -> Result<(), String> {
    let capture = capture.or(settings.capture.clone());
    let journal = if settings.journal.disabled && journal.is_none() {
        tracing::warn!("running without a journal: nothing survives a restart");
        None
    } else {
        Some(dgt_arbiter::output::journal_path(journal, &settings))
    };
    let services = Services::start(
        &settings,
        ServiceOptions {
            serial: SerialOptions {
                scan: Box::new(SystemPorts::new(
                    settings.serial.scan,
                    settings.serial.ports.clone(),
                )),
                labels: settings.board_labels(),
                timing: SerialTiming {
                    read_board_log: settings.serial.read_board_log,
                    ..SerialTiming::default()
                },
            },
            journal,
            recorders: recorders(capture.as_deref())?,
            print_events,
        },
    )
    .await
    .map_err(|e| e.to_string())?;
    eprintln!("dgt-arbiter: dashboard at http://{}/", services.addr());
    serve(services).await
}

/// The hub until SIGINT/SIGTERM.
async fn hub(settings: Settings) -> Result<(), String> {
    let hub = dgt_arbiter::cluster::hub::Hub::start(&settings)
        .await
        .map_err(|e| e.to_string())?;
    eprintln!("dgt-arbiter hub: dashboard at http://{}/", hub.addr());
    systemd::notify_status(&format!("hub dashboard at http://{}/", hub.addr()));
    systemd::notify_ready();
    dgt_arbiter::edge::daemon::shutdown_signal().await;
    systemd::notify_stopping();
    hub.shutdown().await;
    Ok(())
}

struct DemoOptions {
    boards: usize,
    listen: Option<String>,
    seed: u64,
    capture: Option<PathBuf>,
    print_events: bool,
    journal: Option<PathBuf>,
    config: Option<PathBuf>,
}

async fn demo(o: DemoOptions) -> Result<(), String> {
    let mut settings = match &o.config {
        Some(path) => settings::load_checked(Some(path))?,
        None => Settings::default(),
    };
    if let Some(listen) = o.listen {
        settings.listen = listen;
    }
    // Without a journal given, a fresh temporary one: the demo's games are its own.
    let temp = match &o.journal {
        Some(_) => None,
        None => Some(
            tempfile::tempdir().map_err(|e| format!("cannot make a temporary directory: {e}"))?,
        ),
    };
    let journal = o
        .journal
        .clone()
        .or_else(|| temp.as_ref().map(|d| d.path().join("demo-journal.sqlite")));
    let mut ptys = Vec::new();
    for i in 0..o.boards {
        let serial = 10001 + i as u32;
        let board = pty_board::share(SeriesBoard::new(GameSeries {
            serial,
            first_seed: o.seed.wrapping_add(i as u64),
            seed_step: o.boards.max(1) as u64,
            template: None,
        }));
        let pty = PtyBoard::plug_in(board, BoardClock::start(), None)
            .map_err(|e| format!("cannot open a pseudo-terminal: {e}"))?;
        eprintln!(
            "dgt-arbiter demo: board {serial:05} on {}",
            pty.path().display()
        );
        ptys.push(pty);
    }
    let explicit = ptys.iter().map(|p| ExplicitPort::at(p.path())).collect();
    let services = Services::start(
        &settings,
        ServiceOptions {
            serial: SerialOptions {
                // Only the demo's own ptys: a demo never touches real devices.
                scan: Box::new(SystemPorts::new(ScanMode::Off, explicit)),
                labels: settings.board_labels(),
                timing: SerialTiming {
                    read_board_log: settings.serial.read_board_log,
                    ..SerialTiming::default()
                },
            },
            journal,
            recorders: recorders(o.capture.as_deref())?,
            print_events: o.print_events,
        },
    )
    .await
    .map_err(|e| e.to_string())?;
    // Scripts wait for this line (the port is known only now when 0 was asked).
    eprintln!("dgt-arbiter demo: dashboard at http://{}/", services.addr());
    let result = serve(services).await;
    for pty in ptys {
        pty.unplug().await;
    }
    drop(temp);
    result
}

async fn bench(options: dgt_arbiter::bench::BenchOptions) -> Result<(), String> {
    let report = dgt_arbiter::bench::run(options).await?;
    let json = serde_json::to_string(&report).map_err(|e| e.to_string())?;
    println!("{json}");
    Ok(())
}

fn export(
    what: dgt_arbiter::output::ExportKind,
    journal: Option<PathBuf>,
    config: Option<PathBuf>,
    filter: dgt_arbiter::output::ExportFilter,
) -> ExitCode {
    let settings = match load_settings(config.as_deref()) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("dgt-arbiter export: {e}");
            return ExitCode::from(2);
        }
    };
    let path = dgt_arbiter::output::journal_path(journal, &settings);
    let mut stdout = std::io::stdout().lock();
    match dgt_arbiter::output::export(&path, &settings, what, &filter, &mut stdout) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("dgt-arbiter export: {e}");
            ExitCode::from(2)
        }
    }
}

struct EmulateOptions {
    _pty: bool,
    seed: u64,
    pgn: Option<PathBuf>,
    moves: Option<String>,
    serial: String,
    time_control: String,
    plies: usize,
    clean: bool,
}

async fn emulate(o: EmulateOptions) -> Result<(), String> {
    let serial: u32 = match o.serial.parse() {
        Ok(n) if o.serial.len() == 5 && n <= 16383 => n,
        _ => {
            return Err(format!(
                "--serial {:?}: a DGT serial number is 5 digits, at most 16383 (the bus \
                 address holds 14 bits)",
                o.serial
            ));
        }
    };
    let time_control = dgt_emulator::TimeControl::parse(&o.time_control)
        .map_err(|e| format!("--time-control {:?}: {e}", o.time_control))?;
    let script = match (&o.pgn, &o.moves) {
        (Some(path), _) => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            dgt_emulator::GameScript::from_pgn(&text)
                .map_err(|e| format!("{}: {e}", path.display()))?
        }
        (None, Some(moves)) => {
            let list: Vec<&str> = moves.split_whitespace().collect();
            dgt_emulator::GameScript::from_uci(&list)
        }
        (None, None) => dgt_emulator::GameScript::random(o.seed, o.plies.max(1)),
    };
    let mut spec = dgt_emulator::BoardSpec::new(o.seed, script).with_time_control(time_control);
    if o.clean {
        spec = spec.with_rates(dgt_emulator::HandlingRates::clean());
    }
    // A game that cannot be played (an illegal PGN move) is refused before the pty opens.
    dgt_emulator::EmulatedBoard::try_new(spec.clone()).map_err(|e| format!("game: {e}"))?;
    let board = pty_board::share(SeriesBoard::new(GameSeries {
        serial,
        first_seed: o.seed,
        seed_step: 1,
        template: Some(spec),
    }));
    let pty = PtyBoard::plug_in(board, BoardClock::start(), None)
        .map_err(|e| format!("cannot open a pseudo-terminal: {e}"))?;
    println!("{}", pty.path().display());
    eprintln!(
        "dgt-arbiter emulate: board {:05} on the pty above; Ctrl-C stops it",
        serial
    );
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
