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
    #[arg(long, default_value_t = 1.0, conflicts_with = "iterations", value_parser = super::args::seconds)]
    pub seconds: f64,
    /// Search a fixed number of iterations instead (deterministic).
    #[arg(long, value_parser = super::args::whole::<u64>(1, super::common::MAX_ITERATIONS))]
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
    if let Some(w) = propnet_host::goals::audit_sample(&net).warning() {
        eprintln!("{w}");
    }
    let m = NetMachine::new(&net);
    let state = match &args.state {
        Some(path) => read_state(
            &net,
            &path.display().to_string(),
            &std::fs::read_to_string(path)
                .with_context(|| format!("reading {}", path.display()))?,
        )?,
        None => play_moves(&m, &args.moves)?,
    };
    if m.is_terminal(&state) {
        outln!("terminal state; goals {:?}", m.goals(&state))?;
        return Ok(());
    }
    if let Some(stuck) = m.legal_moves(&state).iter().position(Vec::is_empty) {
        outln!(
            "{} has no legal move in this non-terminal state (an ill-formed game: it ends \
             here, as in every playout); goals {:?}",
            net.roles[stuck].name,
            m.goals(&state)
        )?;
        return Ok(());
    }
    propnet_host::stop::set_graceful(true);
    let budget = match args.iterations {
        Some(n) => Budget::Iterations(n),
        None => Budget::Time(Duration::from_secs_f64(args.seconds)),
    };
    let mut backend = make_backend(args.backend, &net, args.mcts.threads)?;
    let mut search = Search::new(args.mcts.params(args.seed));
    let res = search.run(&net, backend.as_mut(), &state, budget)?;
    outln!(
        "{} iterations, {} playouts, {} nodes in {:.3}s: {:.0} iterations/s, backend {:.0}% of the time ({})",
        res.iterations,
        res.playouts,
        res.nodes,
        res.elapsed.as_secs_f64(),
        res.iterations_per_second(),
        100.0 * res.backend_fraction(),
        backend.describe()
    )?;
    for (r, moves) in res.roles.iter().enumerate() {
        if moves.len() < 2 {
            continue;
        }
        let Some(best) = res.best_move(r) else {
            outln!("{}: no move searched", net.roles[r].name)?;
            continue;
        };
        outln!(
            "{}: best move {}",
            net.roles[r].name,
            net.inputs[best.index()].name
        )?;
        let mut sorted = moves.clone();
        sorted.sort_by_key(|m| std::cmp::Reverse(m.visits));
        for mv in sorted {
            outln!(
                "  {:>8} visits  value {:5.1}  {}",
                mv.visits,
                100.0 * mv.value,
                mv.name
            )?;
        }
    }
    Ok(())
}

/// Parses a state file: fluents (optionally as `(true F)`) of this game, read with the rules'
/// KIF reader and case policy ([`propnet_compiler::gdl::read_terms`]), mapped to latches by
/// [`propnet_netlist::Netlist::state_of`] (fluents merged by optimization included).
fn read_state(net: &propnet_netlist::Netlist, name: &str, text: &str) -> anyhow::Result<State> {
    let items = propnet_compiler::gdl::read_terms(name, text)?;
    let fluents: Vec<&str> = items
        .iter()
        .map(|item| {
            item.strip_prefix("(true ")
                .and_then(|s| s.strip_suffix(')'))
                .unwrap_or(item)
        })
        .collect();
    net.state_of(&fluents)
        .map_err(|e| anyhow::anyhow!("{name}: {e}"))
}

/// One move of a joint move as typed, in canonical text; exactly one KIF term.
fn read_move(step: usize, text: &str) -> anyhow::Result<String> {
    let label = format!("--moves (move {step})");
    let mut terms = propnet_compiler::gdl::read_terms(&label, text)?;
    match terms.len() {
        1 => Ok(terms.remove(0)),
        n => bail!("{label}: `{text}` is {n} terms; separate the roles' moves with `;`"),
    }
}

/// Plays `moves` from the initial state (see [`BestArgs::moves`]); a move given after the
/// game has ended is an error naming it.
fn play_moves(m: &NetMachine<'_>, moves: &[String]) -> anyhow::Result<State> {
    let mut state = m.initial_state();
    for (step, jm) in moves.iter().enumerate() {
        let step = step + 1;
        if m.is_terminal(&state) {
            bail!(
                "move {step} `{jm}`: the game is already over (terminal state after {})",
                match step - 1 {
                    0 => "no moves: the initial state".to_string(),
                    n => format!("move {n}"),
                }
            );
        }
        let legal = m.legal_moves(&state);
        let mut given = jm.split(';').map(str::trim).filter(|s| !s.is_empty());
        let mut joint = Vec::new();
        for (r, l) in legal.iter().enumerate() {
            let role = &m.netlist().roles[r].name;
            if l.is_empty() {
                bail!("move {step}: role {role} has no legal move");
            }
            if l.len() == 1 {
                joint.push(l[0]);
                continue;
            }
            let Some(text) = given.next() else {
                bail!("move {step}: no move given for role {role}")
            };
            let want = read_move(step, text)?;
            let Some(&i) = l.iter().find(|&&i| m.move_name(i) == want) else {
                let names: Vec<&str> = l.iter().map(|&i| m.move_name(i)).collect();
                bail!(
                    "move {step}: `{text}` is not legal for {role}; legal: {}",
                    names.join(" ")
                );
            };
            joint.push(i);
        }
        if let Some(extra) = given.next() {
            let choosing = legal.iter().filter(|l| l.len() > 1).count();
            bail!(
                "move {step}: `{extra}` is extra: {} here, one move each, in role order, \
                 separated by `;` (roles with a single legal move take it and are skipped)",
                match choosing {
                    1 => "1 role has a choice".to_string(),
                    n => format!("{n} roles have a choice"),
                }
            );
        }
        state = m.next_state(&state, &joint);
    }
    Ok(state)
}
