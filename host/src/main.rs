//! The `propnet` command line: one subcommand per file in `cli/`.

use clap::{Parser, Subcommand};

mod cli;

/// Compile GDL games into propnets and run them fast.
#[derive(Parser)]
#[command(name = "propnet", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Solve a small turn-taking game exactly and print its value.
    Solve(cli::solve::SolveArgs),
    /// Play a match between players (random, MCTS) and print each player's mean score.
    Match(cli::r#match::MatchArgs),
    /// Search one state with MCTS and print the chosen move and the root's statistics.
    Best(cli::best::BestArgs),
}

fn main() -> anyhow::Result<()> {
    match Cli::parse().command {
        Command::Solve(a) => cli::solve::run(a),
        Command::Match(a) => cli::r#match::run(a),
        Command::Best(a) => cli::best::run(a),
    }
}
