//! `propnet best GAME [--state FILE | --moves …] --seconds T`: MCTS on one state.

use super::common::{make_backend, MctsFlags};
use anyhow::{bail, Context};
use propnet_host::machine::{NetMachine, State};
use propnet_host::mcts::{Budget, Search};
use propnet_host::select::BackendKind;
use std::path::PathBuf;
use std::time::Duration;

/// Arguments of `propnet best`.
#[derive(clap::Args, Debug)]
pub struct BestArgs {
    /// The game (GDL `.kif`, or a `.json` netlist).
    pub game: PathBuf,
    /// A file listing the state's true fluents, e.g. `(cell 1 1 x) (control oplayer)`.
    #[arg(long, conflicts_with = "moves")]
    pub state: Option<PathBuf>,
    /// Joint moves from the initial state, comma-separated; in each, the moves of the roles
    /// that have a choice, in role order, separated by `;` (roles with one legal move play it).
    #[arg(long, value_delimiter = ',')]
    pub moves: Vec<String>,
    /// Search time in seconds.
    #[arg(long, default_value_t = 1.0, conflicts_with = "iterations", value_parser = super::common::parse_seconds)]
    pub seconds: f64,
    /// Search a fixed number of iterations instead (deterministic).
    #[arg(long)]
    pub iterations: Option<u64>,
    /// Backend.
    #[arg(long, default_value = "cpu", value_parser = BackendKind::parse)]
    pub backend: BackendKind,
    /// Seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Use the grounded netlist without the optimization passes.
    #[arg(long)]
    pub no_optimize: bool,
    #[command(flatten)]
    pub mcts: MctsFlags,
}

/// Searches the state and prints per role the root moves' visits and values.
pub fn run(args: BestArgs) -> anyhow::Result<()> {
    let (net, _) = super::load(&args.game, args.no_optimize)?;
    let m = NetMachine::new(&net);
    let state = match &args.state {
        Some(path) => read_state(
            &net,
            &std::fs::read_to_string(path)
                .with_context(|| format!("reading {}", path.display()))?,
        )?,
        None => play_moves(&m, &args.moves)?,
    };
    if m.is_terminal(&state) {
        println!("terminal state; goals {:?}", m.goals(&state));
        return Ok(());
    }
    let budget = match args.iterations {
        Some(n) => Budget::Iterations(n),
        None => Budget::Time(Duration::from_secs_f64(args.seconds.max(0.0))),
    };
    let mut backend = make_backend(args.backend, &net, args.mcts.threads)?;
    let mut search = Search::new(args.mcts.params(args.seed));
    let res = search.run(&net, backend.as_mut(), &state, budget)?;
    println!(
        "{} iterations, {} playouts, {} nodes in {:.3}s: {:.0} iterations/s, backend {:.0}% of the time ({})",
        res.iterations,
        res.playouts,
        res.nodes,
        res.elapsed.as_secs_f64(),
        res.iterations_per_second(),
        100.0 * res.backend_fraction(),
        backend.describe()
    );
    for (r, moves) in res.roles.iter().enumerate() {
        if moves.len() < 2 {
            continue;
        }
        let best = res.best_move(r).expect("role has moves");
        println!(
            "{}: best move {}",
            net.roles[r].name,
            net.inputs[best.index()].name
        );
        let mut sorted = moves.clone();
        sorted.sort_by_key(|m| std::cmp::Reverse(m.visits));
        for mv in sorted {
            println!(
                "  {:>8} visits  value {:5.1}  {}",
                mv.visits,
                100.0 * mv.value,
                mv.name
            );
        }
    }
    Ok(())
}

/// Parses a state file: parenthesised fluents (or bare symbols) that must all be latches.
fn read_state(net: &propnet_netlist::Netlist, text: &str) -> anyhow::Result<State> {
    let mut state = vec![false; net.latches.len()];
    let mut depth = 0usize;
    let mut cur = String::new();
    let mut items = Vec::new();
    for c in text.chars() {
        match c {
            '(' => {
                depth += 1;
                cur.push(c);
            }
            ')' => {
                depth = depth.checked_sub(1).context("unbalanced `)` in state")?;
                cur.push(c);
                if depth == 0 {
                    items.push(std::mem::take(&mut cur));
                }
            }
            c if c.is_whitespace() && depth == 0 => {
                if !cur.is_empty() {
                    items.push(std::mem::take(&mut cur));
                }
            }
            c => cur.push(if c.is_whitespace() {
                ' '
            } else {
                c.to_ascii_lowercase()
            }),
        }
    }
    if !cur.is_empty() {
        items.push(cur);
    }
    for item in items {
        let norm = item
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .replace("( ", "(")
            .replace(" )", ")");
        let norm = norm
            .strip_prefix("(true ")
            .and_then(|s| s.strip_suffix(')'))
            .unwrap_or(&norm)
            .to_string();
        let Some(i) = net.latches.iter().position(|l| l.name == norm) else {
            bail!("`{item}` is not a base proposition of this game");
        };
        state[i] = true;
    }
    Ok(state)
}

/// Plays `moves` from the initial state (see [`BestArgs::moves`]).
fn play_moves(m: &NetMachine<'_>, moves: &[String]) -> anyhow::Result<State> {
    let mut state = m.initial_state();
    for (step, jm) in moves.iter().enumerate() {
        let legal = m.legal_moves(&state);
        let mut given = jm.split(';').map(str::trim).filter(|s| !s.is_empty());
        let mut joint = Vec::new();
        for (r, l) in legal.iter().enumerate() {
            if l.is_empty() {
                bail!(
                    "move {}: role {} has no legal move",
                    step + 1,
                    m.netlist().roles[r].name
                );
            }
            if l.len() == 1 {
                joint.push(l[0]);
                continue;
            }
            let Some(text) = given.next() else {
                bail!(
                    "move {}: no move given for role {}",
                    step + 1,
                    m.netlist().roles[r].name
                )
            };
            let Some(&i) = l.iter().find(|&&i| m.move_name(i) == text) else {
                let names: Vec<&str> = l.iter().map(|&i| m.move_name(i)).collect();
                bail!(
                    "move {}: `{text}` is not legal for {}; legal: {}",
                    step + 1,
                    m.netlist().roles[r].name,
                    names.join(" ")
                );
            };
            joint.push(i);
        }
        if let Some(extra) = given.next() {
            bail!(
                "move {}: `{extra}` is extra (no other role has a choice)",
                step + 1
            );
        }
        state = m.next_state(&state, &joint);
    }
    Ok(state)
}
