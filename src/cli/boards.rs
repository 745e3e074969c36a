//! `emulate` (a board on a pseudo-terminal) and `ports` (the real ports, probed).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use dgt_arbiter::edge::serial::discovery::list_system_ports;
use dgt_arbiter::edge::serial::probe::{ProbeAnswer, probe_port};
use dgt_lab::simulated::emulated::{GameSeries, SeriesBoard};
use dgt_lab::simulated::pty_board::{self, BoardClock, PtyBoard};

use super::{CliError, with_runtime};

// `emulate`'s arguments.
#[derive(Args)]
pub struct EmulateArgs {
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
}

// `ports`'s arguments.
#[derive(Args)]
pub struct PortsArgs {
    /// Only list; do not send the version request.
    #[arg(long)]
    no_probe: bool,
}

pub fn emulate(a: EmulateArgs) -> ExitCode {
    with_runtime(run_emulator(a))
}

async fn run_emulator(o: EmulateArgs) -> Result<(), CliError> {
    // A pty is the only transport: `--pty` is accepted and changes nothing.
    let _ = o.pty;
    let serial: u32 = match o.serial.parse() {
        Ok(n) if o.serial.len() == 5 && n <= 16383 => n,
        _ => return Err(CliError::BadSerial(o.serial)),
    };
    let time_control = dgt_emulator::TimeControl::parse(&o.time_control).map_err(|e| {
        CliError::BadTimeControl {
            text: o.time_control.clone(),
            detail: e.to_string(),
        }
    })?;
    let script = match (&o.pgn, &o.moves) {
        (Some(path), _) => {
            let text = std::fs::read_to_string(path).map_err(|source| CliError::Read {
                path: path.clone(),
                source,
            })?;
            dgt_emulator::GameScript::from_pgn(&text).map_err(|e| CliError::BadPgn {
                path: path.clone(),
                detail: e.to_string(),
            })?
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
    dgt_emulator::EmulatedBoard::try_new(spec.clone())
        .map_err(|e| CliError::Unplayable(e.to_string()))?;
    let board = pty_board::share(SeriesBoard::new(GameSeries {
        serial,
        first_seed: o.seed,
        seed_step: 1,
        template: Some(spec),
    }));
    let pty = PtyBoard::plug_in(board, BoardClock::start(), None).map_err(CliError::Pty)?;
    println!("{}", pty.path().display());
    eprintln!(
        "dgt-arbiter emulate: board {:05} on the pty above; Ctrl-C stops it",
        serial
    );
    dgt_arbiter::edge::daemon::shutdown_signal().await;
    pty.unplug().await;
    Ok(())
}

pub fn ports(a: PortsArgs) -> ExitCode {
    let probe = !a.no_probe;
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
