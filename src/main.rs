//! The `dgt-arbiter` command line (contract §1). The arguments are clap structs in [`cli`],
//! one file per group of subcommands, each with the code that runs it.

mod cli;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    cli::Cli::parse().run()
}
