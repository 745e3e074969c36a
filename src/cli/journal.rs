//! `export` and `replay`: what was recorded, out again.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use dgt_arbiter::settings;

// `export`'s arguments.
#[derive(Args)]
pub struct ExportArgs {
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
}

// `replay`'s arguments.
#[derive(Args)]
pub struct ReplayArgs {
    capture: PathBuf,
    #[arg(long)]
    config: Option<PathBuf>,
}

pub fn export(a: ExportArgs) -> ExitCode {
    let filter = dgt_arbiter::output::ExportFilter {
        board: a.board,
        game: a.game,
        from_ms: a.from_ms,
        to_ms: a.to_ms,
    };
    let settings = match settings::load(a.config.as_deref()) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("dgt-arbiter export: {e}");
            return ExitCode::from(2);
        }
    };
    let path = dgt_arbiter::output::journal_path(a.journal, &settings);
    let mut stdout = std::io::stdout().lock();
    match dgt_arbiter::output::export(&path, &settings, a.what, &filter, &mut stdout) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("dgt-arbiter export: {e}");
            ExitCode::from(2)
        }
    }
}

pub fn replay(a: ReplayArgs) -> ExitCode {
    let capture = a.capture.as_path();
    let config = a.config.as_deref();
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
