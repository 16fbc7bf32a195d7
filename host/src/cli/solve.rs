//! `propnet solve GAME`: exact value of a small turn-taking game.

use super::common::load_game;
use indicatif::ProgressBar;
use propnet_host::solver::{solve, SolveOptions};
use std::path::PathBuf;

/// Arguments of `propnet solve`.
#[derive(clap::Args, Debug)]
pub struct SolveArgs {
    /// The game (GDL `.kif`, or a `.json` netlist).
    pub game: PathBuf,
    /// Give up after this many distinct states.
    #[arg(long, default_value_t = SolveOptions::default().max_states)]
    pub max_states: usize,
}

/// Solves the game from its initial state and prints each role's value.
pub fn run(args: SolveArgs) -> anyhow::Result<()> {
    let net = load_game(&args.game)?;
    let bar = ProgressBar::new_spinner();
    let sol = solve(
        &net,
        &net.initial_state(),
        &SolveOptions {
            max_states: args.max_states,
        },
        &mut |n| {
            bar.set_message(format!("{n} states"));
            bar.tick();
        },
    )?;
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
