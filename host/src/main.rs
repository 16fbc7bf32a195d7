//! The `propnet` command line.

use clap::{Parser, Subcommand};

mod cli;

/// propnet: compile GDL games into propositional networks and run them fast.
#[derive(Parser, Debug)]
#[command(name = "propnet", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Random playouts through the reference interpreter, in the oracle's trace format.
    Trace(cli::trace::TraceArgs),
}

fn main() -> anyhow::Result<()> {
    match Cli::parse().command {
        Command::Trace(a) => cli::trace::run(a),
    }
}
