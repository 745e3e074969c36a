//! The `dgt-arbiter` command line (contract §1).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

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
        Command::Replay { capture, config: _ } => {
            let text = match std::fs::read_to_string(&capture) {
                Ok(t) => t,
                Err(e) => {
                    eprintln!("dgt-arbiter replay: cannot read {}: {e}", capture.display());
                    return ExitCode::from(2);
                }
            };
            match dgt_arbiter::replay::replay_text(&text, dgt_core::CoreConfig::default()) {
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
    }
}
