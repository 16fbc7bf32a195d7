//! `propnet solve GAME`: exact value of a small turn-taking game.

use super::args::{seconds_or_zero, whole};
use indicatif::{ProgressBar, ProgressStyle};
use propnet_runtime::solver::{solve, SolveOptions};
use std::path::PathBuf;
use std::time::Duration;

/// Arguments of `propnet solve`.
#[derive(clap::Args, Debug)]
pub struct SolveArgs {
    /// The game (GDL `.kif`, or a `.json` netlist).
    pub game: PathBuf,
    /// Give up after this many distinct states.
    #[arg(long, default_value_t = SolveOptions::default().max_states, value_parser = whole::<usize>(1, 1 << 36))]
    pub max_states: usize,
    /// Give up after this many seconds of search (0 = no limit).
    #[arg(long, default_value = "120", value_parser = seconds_or_zero)]
    pub max_seconds: f64,
    /// Use the grounded netlist without the optimization passes.
    #[arg(long)]
    pub no_optimize: bool,
}

/// Solves the game from its initial state and prints each role's value.
pub fn run(args: SolveArgs) -> anyhow::Result<()> {
    let (net, _) = super::load(&args.game, args.no_optimize)?;
    super::refuse_gdl2(&net, &args.game, "solve")?;
    if let Some(w) = propnet_runtime::goals::audit_sample(&net).warning() {
        eprintln!("{w}");
    }
    let max_time = (args.max_seconds > 0.0).then(|| Duration::from_secs_f64(args.max_seconds));
    eprintln!(
        "solving {} (budget: {} states, {})",
        args.game.display(),
        args.max_states,
        max_time.map_or("no time limit".to_string(), |t| format!(
            "{:.1} s",
            t.as_secs_f64()
        ))
    );
    let bar = ProgressBar::new_spinner();
    bar.set_style(
        ProgressStyle::with_template("{spinner} {msg} {elapsed}").expect("valid template"),
    );
    bar.set_message("checking for simultaneous moves");
    bar.enable_steady_tick(Duration::from_millis(200));
    let budget = args.max_states;
    propnet_runtime::stop::set_graceful(true);
    let sol = solve(
        &net,
        &net.initial_state(),
        &SolveOptions {
            max_states: args.max_states,
            max_time,
            ..SolveOptions::default()
        },
        &mut |n| bar.set_message(format!("{n} states visited (budget {budget})")),
    );
    bar.finish_and_clear();
    let sol = sol?;
    outln!("states: {}", sol.states)?;
    for (r, v) in sol.values.iter().enumerate() {
        outln!("value {}: {v}", net.roles[r].name)?;
    }
    match sol.best {
        Some((r, m)) => outln!(
            "to move: {}, best move: {}",
            net.roles[r].name,
            net.inputs[m.index()].name
        )?,
        None => outln!("no choice at the root")?,
    }
    if !sol.constant_sum {
        outln!(
            "note: the goals of the final states do not sum to a constant (a general-sum \
             game): the values are a max^n equilibrium, each role maximising its own goal \
             and breaking ties against the other roles"
        )?;
    }
    let root = net.initial_state();
    let m = propnet_runtime::machine::NetMachine::new(&net);
    if !m.is_terminal(&root) {
        if let Some(stuck) = m.legal_moves(&root).iter().position(Vec::is_empty) {
            eprintln!(
                "warning: {} has no legal move in the initial state, which is not terminal \
                 (an ill-formed game): it ends there with its goal values, as in every playout",
                net.roles[stuck].name
            );
        }
    }
    Ok(())
}
