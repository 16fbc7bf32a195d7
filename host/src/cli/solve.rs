//! `propnet solve GAME`: exact value of a small turn-taking game.

use indicatif::{ProgressBar, ProgressStyle};
use propnet_host::solver::{solve, SolveOptions};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Time between progress lines when stderr is not a terminal.
const LINE_INTERVAL: Duration = Duration::from_secs(5);

/// Arguments of `propnet solve`.
#[derive(clap::Args, Debug)]
pub struct SolveArgs {
    /// The game (GDL `.kif`, or a `.json` netlist).
    pub game: PathBuf,
    /// Give up after this many distinct states.
    #[arg(long, default_value_t = SolveOptions::default().max_states)]
    pub max_states: usize,
    /// Skip the optimization passes.
    #[arg(long)]
    pub no_optimize: bool,
}

/// Solves the game from its initial state and prints each role's value.
pub fn run(args: SolveArgs) -> anyhow::Result<()> {
    let (net, _) = super::load(&args.game, args.no_optimize)?;
    eprintln!(
        "solving {} exhaustively (up to {} distinct states; --max-states to change)",
        args.game.display(),
        args.max_states
    );
    let t0 = Instant::now();
    let tty = std::io::stderr().is_terminal();
    let bar = if tty {
        let bar = ProgressBar::new_spinner();
        bar.set_style(
            ProgressStyle::with_template("{spinner} {msg} [{elapsed}]")
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        );
        bar.enable_steady_tick(Duration::from_millis(200));
        bar
    } else {
        ProgressBar::hidden()
    };
    let mut last_line = Instant::now();
    let opts = SolveOptions {
        max_states: args.max_states,
    };
    let sol = solve(&net, &net.initial_state(), &opts, &mut |n| {
        bar.set_message(format!("{n} states"));
        if !tty && last_line.elapsed() >= LINE_INTERVAL {
            eprintln!("  {n} states after {:.0} s", t0.elapsed().as_secs_f64());
            last_line = Instant::now();
        }
    })?;
    bar.finish_and_clear();
    println!("states: {}", sol.states);
    for (r, v) in sol.values.iter().enumerate() {
        println!("value {}: {v}", net.roles[r].name);
    }
    match sol.best {
        Some((r, m)) => println!(
            "to move: {}, best move: {}",
            net.roles[r].name,
            net.inputs[m.index()].name
        ),
        None => println!("no choice at the root"),
    }
    Ok(())
}
