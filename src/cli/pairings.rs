//! `pairings import|results`: a round's pairings in, its results out.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand};
use dgt_arbiter::settings;

// `pairings`' arguments: one action.
#[derive(Args)]
pub struct PairingsArgs {
    #[command(subcommand)]
    action: PairingsCommand,
}

#[derive(Subcommand)]
pub enum PairingsCommand {
    /// Checks the file whole (every problem with its line and a fix; nothing imported from
    /// a file with a problem), prints the tables, then hands it to the running daemon (REST,
    /// arbiter token) or, with --journal, to a stopped daemon's journal.
    Import {
        file: PathBuf,
        /// The round the pairings are for.
        #[arg(long)]
        round: u32,
        /// How a TRF's pairs are numbered: by the White player's line (white-line), by the
        /// first line of either player (first-line), or as the pairing program numbers boards
        /// (points: score, then rank, as in the file). A CSV list has its own table column.
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

pub fn pairings(a: PairingsArgs) -> ExitCode {
    use dgt_arbiter::pairings as p;
    match a.action {
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
            let settings = match settings::load(config.as_deref()) {
                Ok(s) => s,
                Err(e) => return fail(e.to_string()),
            };
            let raw = match std::fs::read(&file) {
                Ok(r) => r,
                Err(e) => return fail(format!("cannot read {}: {e}", file.display())),
            };
            let board_order = match order.parse::<dgt_pairings::BoardOrder>() {
                Ok(o) => o,
                Err(e) => return fail(format!("--order: {e}")),
            };
            let pairings = match dgt_pairings::read_bytes(&raw, round, board_order) {
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
            let settings = match settings::load(config.as_deref()) {
                Ok(s) => s,
                Err(e) => {
                    eprintln!("dgt-arbiter pairings results: {e}");
                    return ExitCode::from(2);
                }
            };
            let path = dgt_arbiter::output::journal_path(journal, &settings);
            match p::results(&path, &settings, round, format) {
                Ok(out) => {
                    // In the encoding the pairing file came in.
                    let bytes = dgt_pairings::encode(&out.text, out.encoding.as_deref());
                    if let Err(e) = std::io::Write::write_all(&mut std::io::stdout(), &bytes) {
                        eprintln!("dgt-arbiter pairings results: {e}");
                        return ExitCode::from(2);
                    }
                    let list =
                        |t: &[u32]| t.iter().map(u32::to_string).collect::<Vec<_>>().join(", ");
                    if !out.unfinished.is_empty() {
                        eprintln!(
                            "round {round}: no result yet at table(s) {}",
                            list(&out.unfinished)
                        );
                    }
                    if !out.unconfirmed.is_empty() {
                        eprintln!(
                            "round {round}: result(s) not confirmed by an arbiter yet at table(s) {}",
                            list(&out.unconfirmed)
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
