//! The `propnet` command line: compile GDL games into propnets and run them fast.
//! Each subcommand lives in `cli/<name>.rs`; this file only dispatches.

use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

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
    /// Print random playouts in the oracle's JSON-lines format (interpreter or netlist).
    Trace(cli::trace::TraceArgs),
    /// Replay another reasoner's trace (oracle JSON lines or gdl-perf) and report the first divergence.
    Verify(cli::verify::VerifyArgs),
    /// Compare reasoners (ours and external gdl-perf commands) on games: table, CSV, JSON, plots.
    Compare(cli::compare::CompareArgs),
}

/// True when `e` (or an error it wraps) is a write to a closed pipe.
fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// Commands write standard output through [`cli::out`], which returns write errors; this
/// hook is the safety net for a `println!` left anywhere else: a closed standard output
/// (e.g. `propnet … | head`) ends the process quietly with success (Rust ignores SIGPIPE,
/// so `println!` panics with "failed printing to stdout: Broken pipe"), any other failed
/// write to stdout (a full disk) ends it with one line on stderr and status 1. Other panics
/// keep the default report.
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
        if let Some(reason) = msg.strip_prefix("failed printing to stdout: ") {
            eprintln!("error: cannot write to standard output: {reason}");
            std::process::exit(1);
        }
        default(info);
    }));
}

/// SIGINT/SIGTERM: a command that reports partial results
/// ([`propnet_runtime::stop::set_graceful`]) gets a stop request and ends at its next check;
/// any other command, or a second signal, ends the process at once with status 130.
fn install_interrupt_handler() {
    let handler = || {
        if propnet_runtime::stop::graceful() && !propnet_runtime::stop::requested() {
            propnet_runtime::stop::request();
            eprintln!(
                "interrupted: stopping and reporting what is done so far (again to quit at once)"
            );
        } else {
            std::process::exit(130);
        }
    };
    if let Err(e) = ctrlc::set_handler(handler) {
        eprintln!(
            "warning: cannot handle SIGINT/SIGTERM ({e}); an interrupted run reports nothing"
        );
    }
}

/// Every option that takes a value accepts a negative number after a space
/// (`--seconds -1`), so the option's own range check answers instead of clap's
/// "unexpected argument '-1'".
fn with_negative_numbers(cmd: clap::Command) -> clap::Command {
    cmd.mut_args(|a| {
        if a.get_action().takes_values() {
            a.allow_negative_numbers(true)
        } else {
            a
        }
    })
    .mut_subcommands(with_negative_numbers)
}

/// The command line parsed, or clap's usage error printed and the process ended (status 2).
fn parse_cli() -> Cli {
    let mut cmd = with_negative_numbers(Cli::command());
    let mut matches = cmd.clone().get_matches();
    Cli::from_arg_matches_mut(&mut matches).unwrap_or_else(|e| e.format(&mut cmd).exit())
}

/// Stack of the thread that runs the command: the joins of the grounder and of the
/// interpreter recurse once per body literal (up to
/// [`propnet_compiler::gdl::lower::MAX_BODY_LITERALS`]), deeper than a main thread's 8 MiB
/// allows in a debug build. Only the pages used are ever committed.
const COMMAND_STACK_BYTES: usize = 256 << 20;

fn main() -> ExitCode {
    exit_quietly_on_broken_pipe();
    cli::headless::quiet_wayland_probe();
    install_interrupt_handler();
    let args = parse_cli();
    cli::ground::set(args.ground);
    let command = args.command;
    match std::thread::Builder::new()
        .name("command".into())
        .stack_size(COMMAND_STACK_BYTES)
        .spawn(move || run_command(command))
    {
        Ok(handle) => handle
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
        Err(e) => {
            eprintln!("error: cannot start the command's thread: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Runs one subcommand and turns its result into the exit status (errors on one line).
fn run_command(command: Command) -> ExitCode {
    let result = match command {
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
        Command::Verify(a) => cli::verify::run(a),
        Command::Compare(a) => cli::compare::run(a),
    }
    .and_then(|()| cli::out::flush());
    match result {
        Ok(()) if propnet_runtime::stop::requested() => ExitCode::from(130),
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {}", cli::one_line(&e));
            ExitCode::FAILURE
        }
    }
}
