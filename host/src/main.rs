//! The `propnet` command line: one subcommand per file in `cli/`.

mod cli;

use clap::{Parser, Subcommand};

/// propnet: GDL games compiled to propositional networks, run on CPU, GPU and FPGA.
#[derive(Parser)]
#[command(name = "propnet", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Generate the Verilog playout engine and testbench; optionally synthesize and report.
    Hdl(cli::hdl::HdlArgs),
}

fn main() -> anyhow::Result<()> {
    match Cli::parse().command {
        Command::Hdl(args) => cli::hdl::run(args),
    }
}
