//! The `propnet` command line: compile GDL games into propnets and run them fast.
//! Each subcommand lives in `cli/<name>.rs`; this file only dispatches.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod cli;

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
    /// Parse and check a GDL game; print its roles, relations and warnings.
    Check(cli::check::CheckArgs),
    /// Compile a game to a netlist file.
    Compile(cli::compile::CompileArgs),
    /// Count joint-move paths by depth from the initial state.
    Perft(cli::perft::PerftArgs),
    /// Compare playout throughput across games, thread counts and the reference interpreter.
    Bench(cli::bench::BenchArgs),
    /// Generate the Verilog playout engine and testbench; optionally synthesize and report.
    Hdl(cli::hdl::HdlArgs),
    /// Solve a small turn-taking game exactly and print its value.
    Solve(cli::solve::SolveArgs),
    /// Play a match between players (random, MCTS) and print each player's mean score.
    Match(cli::r#match::MatchArgs),
    /// Search one state with MCTS and print the chosen move and the root's statistics.
    Best(cli::best::BestArgs),
    /// Print random playouts through the reference interpreter in the oracle's JSON-lines format.
    Trace(cli::trace::TraceArgs),
}

fn main() -> ExitCode {
    let result = match Cli::parse().command {
        Command::Run(a) => cli::run::run(a),
        Command::Check(a) => cli::check::run(a),
        Command::Compile(a) => cli::compile::run(a),
        Command::Perft(a) => cli::perft::run(a),
        Command::Bench(a) => cli::bench::run(a),
        Command::Hdl(a) => cli::hdl::run(a),
        Command::Solve(a) => cli::solve::run(a),
        Command::Match(a) => cli::r#match::run(a),
        Command::Best(a) => cli::best::run(a),
        Command::Trace(a) => cli::trace::run(a),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
