//! The `propnet` command line: compile GDL games into propnets and run them.

mod cli;

use clap::{Parser, Subcommand};

/// propnet: GDL → propositional network compiler and fast playout engine.
#[derive(Parser)]
#[command(name = "propnet", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run random playouts of a game and report throughput (the main job).
    Run(cli::run::RunArgs),
    /// Compile a game to a netlist file.
    Compile(cli::compile::CompileArgs),
    /// Count joint-move paths by depth from the initial state.
    Perft(cli::perft::PerftArgs),
    /// Compare playout throughput across games, thread counts and the reference interpreter.
    Bench(cli::bench::BenchArgs),
}

fn main() -> std::process::ExitCode {
    let result = match Cli::parse().command {
        Command::Run(a) => cli::run::run(a),
        Command::Compile(a) => cli::compile::run(a),
        Command::Perft(a) => cli::perft::run(a),
        Command::Bench(a) => cli::bench::run(a),
    };
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
