//! The `propnet` command-line tool. Each subcommand lives in `cli/<name>.rs`.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod cli;

/// Compile GDL games to propositional networks and run them fast.
#[derive(Parser)]
#[command(name = "propnet", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Parse and check a GDL game; print its roles, relations and warnings.
    Check(cli::check::CheckArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Check(args) => cli::check::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
