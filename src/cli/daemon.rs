//! `run`, `hub` and `demo`: the long-running services, until SIGINT/SIGTERM.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;
use dgt_arbiter::edge::daemon::{CaptureWriter, InputRecorder, SerialOptions};
use dgt_arbiter::edge::serial::{ExplicitPort, ScanMode, SerialTiming, SystemPorts};
use dgt_arbiter::edge::systemd;
use dgt_arbiter::services::{ServiceOptions, Services};
use dgt_arbiter::settings::{self, Role, Settings};
use dgt_lab::simulated::emulated::{GameSeries, SeriesBoard};
use dgt_lab::simulated::pty_board::{self, BoardClock, PtyBoard};

use super::{CliError, EXIT_CONFIG, with_runtime, with_runtime_workers};

// `run`'s arguments.
#[derive(Args)]
pub struct RunArgs {
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
}

// `hub`'s arguments.
#[derive(Args)]
pub struct HubArgs {
    /// Settings with a [cluster] table (nats, event, credentials), listen, tokens.
    #[arg(long)]
    config: Option<PathBuf>,
}

// `demo`'s arguments.
#[derive(Args)]
pub struct DemoArgs {
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
}

pub fn run(a: RunArgs) -> ExitCode {
    // The daemon refuses an invalid configuration with check-config's message.
    let settings = match settings::load_checked(a.config.as_deref()) {
        Ok(s) => s,
        Err(problems) => {
            eprintln!("dgt-arbiter run: invalid configuration, not starting:\n{problems}");
            return ExitCode::from(EXIT_CONFIG);
        }
    };
    with_runtime_workers(
        settings.workers(Role::Daemon),
        run_daemon(settings, a.capture, a.print_events, a.journal),
    )
}

pub fn hub(a: HubArgs) -> ExitCode {
    let settings = match settings::load_checked_hub(a.config.as_deref()) {
        Ok(s) => s,
        Err(problems) => {
            eprintln!("dgt-arbiter hub: invalid configuration, not starting:\n{problems}");
            return ExitCode::from(EXIT_CONFIG);
        }
    };
    with_runtime_workers(settings.workers(Role::Hub), run_hub(settings))
}

pub fn demo(a: DemoArgs) -> ExitCode {
    with_runtime(run_demo(a))
}

fn recorders(capture: Option<&Path>) -> Result<Vec<Box<dyn InputRecorder>>, CliError> {
    match capture {
        Some(path) => {
            let writer = CaptureWriter::create(path).map_err(|source| CliError::Capture {
                path: path.to_path_buf(),
                source,
            })?;
            Ok(vec![Box::new(writer)])
        }
        None => Ok(Vec::new()),
    }
}

/// Runs until SIGINT/SIGTERM, then stops cleanly. Under systemd: ready once the ports are
/// being scanned and the HTTP port is bound, watchdog pings while the core task lives.
async fn serve(services: Services) -> Result<(), CliError> {
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
    tracing::info!(
        inputs = summary.inputs,
        events = summary.events,
        snapshots = summary.snapshots,
        snapshots_skipped = summary.snapshots_skipped,
        "stopped"
    );
    Ok(())
}

async fn run_daemon(
    settings: Settings,
    capture: Option<PathBuf>,
    print_events: bool,
    journal: Option<PathBuf>,
) -> Result<(), CliError> {
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
    .await?;
    eprintln!("dgt-arbiter: dashboard at http://{}/", services.addr());
    serve(services).await
}

/// The hub until SIGINT/SIGTERM.
async fn run_hub(settings: Settings) -> Result<(), CliError> {
    let hub = dgt_arbiter::cluster::hub::Hub::start(&settings).await?;
    eprintln!("dgt-arbiter hub: dashboard at http://{}/", hub.addr());
    systemd::notify_status(&format!("hub dashboard at http://{}/", hub.addr()));
    systemd::notify_ready();
    dgt_arbiter::edge::daemon::shutdown_signal().await;
    systemd::notify_stopping();
    hub.shutdown().await;
    Ok(())
}

async fn run_demo(o: DemoArgs) -> Result<(), CliError> {
    let mut settings = match &o.config {
        Some(path) => {
            settings::load_checked(Some(path)).map_err(|e| CliError::Settings(e.to_string()))?
        }
        None => Settings::default(),
    };
    if let Some(listen) = o.listen {
        settings.listen = listen;
    }
    // Without a journal given, a fresh temporary one: the demo's games are its own.
    let temp = match &o.journal {
        Some(_) => None,
        None => Some(tempfile::tempdir().map_err(CliError::TempDir)?),
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
        let pty = PtyBoard::plug_in(board, BoardClock::start(), None).map_err(CliError::Pty)?;
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
    .await?;
    // Scripts wait for this line (the port is known only now when 0 was asked).
    eprintln!("dgt-arbiter demo: dashboard at http://{}/", services.addr());
    let result = serve(services).await;
    for pty in ptys {
        pty.unplug().await;
    }
    drop(temp);
    result
}
