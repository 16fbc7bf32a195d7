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
    #[command(flatten)]
    ground: cli::ground::GroundArgs,
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
    /// Serve the GGP protocol over HTTP: play matches sent by a game manager.
    Player(cli::player::PlayerArgs),
    /// Search one state with MCTS and print the chosen move and the root's statistics.
    Best(cli::best::BestArgs),
    /// Print random playouts through the reference interpreter in the oracle's JSON-lines format.
    Trace(cli::trace::TraceArgs),
}

/// True when `e` (or an error it wraps) is a write to a closed pipe.
fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// Makes a write to a closed standard output (e.g. `propnet … | head`) end the process
/// quietly with success instead of panicking: Rust ignores SIGPIPE, so `println!` panics
/// with "failed printing to stdout: Broken pipe". Other panics keep the default report.
fn exit_quietly_on_broken_pipe() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let msg = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        if msg.contains("Broken pipe") || msg.contains("os error 32") {
            std::process::exit(0);
        }
        default(info);
    }));
}

fn main() -> ExitCode {
    exit_quietly_on_broken_pipe();
    let args = Cli::parse();
    cli::ground::set(args.ground);
    let result = match args.command {
        Command::Run(a) => cli::run::run(a),
        Command::Check(a) => cli::check::run(a),
        Command::Compile(a) => cli::compile::run(a),
        Command::Perft(a) => cli::perft::run(a),
        Command::Bench(a) => cli::bench::run(a),
        Command::Hdl(a) => cli::hdl::run(a),
        Command::Solve(a) => cli::solve::run(a),
        Command::Match(a) => cli::r#match::run(a),
        Command::Best(a) => cli::best::run(a),
        Command::Player(a) => cli::player::run(a),
        Command::Trace(a) => cli::trace::run(a),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
