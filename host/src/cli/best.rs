//! `propnet best GAME [--state FILE | --moves …] --seconds T`: MCTS on one state.

use super::common::MctsFlags;
use anyhow::{bail, Context};
use propnet_host::select::BackendKind;
use propnet_mcts::{Budget, Search};
use propnet_netlist::InputId;
use propnet_runtime::machine::{NetMachine, State};
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
    /// that have a choice, in role order, separated by `;` (roles with one legal move play
    /// it), or the moves of every role.
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
    let (net, report) = super::load(&args.game, args.no_optimize)?;
    super::refuse_gdl2(&net, &args.game, "best")?;
    if report.explored().is_some() && args.state.is_some() {
        eprintln!(
            "{}: warning: the netlist was grounded over the states play reaches, and a --state \
             that play cannot reach may be evaluated unlike the rules; --moves from the initial \
             state is always exact",
            args.game.display()
        );
    }
    if let Some(w) = propnet_runtime::goals::audit_sample(&net).warning() {
        eprintln!("{w}");
    }
    let m = NetMachine::new(&net);
    let state = match &args.state {
        Some(path) => read_state(
            &net,
            &path.display().to_string(),
            &String::from_utf8(propnet_compiler::gdl::read_file(path)?)
                .with_context(|| format!("reading {}: not UTF-8 text", path.display()))?,
        )?,
        None => play_moves(&m, &args.moves)?,
    };
    if m.is_terminal(&state) {
        outln!("terminal state; goals {:?}", m.goals(&state))?;
        return Ok(());
    }
    let legal = m.legal_moves(&state);
    if let Some(stuck) = legal.iter().position(Vec::is_empty) {
        outln!(
            "{} has no legal move in this non-terminal state (an ill-formed game: it ends \
             here, as in every playout); goals {:?}",
            net.roles[stuck].name,
            m.goals(&state)
        )?;
        return Ok(());
    }
    propnet_runtime::stop::set_graceful(true);
    let budget = match args.iterations {
        Some(n) => Budget::Iterations(n),
        None => Budget::Time(Duration::from_secs_f64(args.seconds)),
    };
    let mut backends = args.mcts.backends(args.backend, &net)?;
    let params = args.mcts.params(args.seed);
    let free = params
        .merge_free_moves
        .then(|| propnet_runtime::machine::free_moves_to_merge(&net))
        .flatten();
    let mut search = Search::new(params);
    let res = search.run_parallel(&net, &mut backends, &state, budget)?;
    let workers = match res.workers {
        1 => "1 worker".to_string(),
        w => format!("{w} workers, each"),
    };
    outln!(
        "{} iterations, {} playouts, {} nodes in {:.3}s: {:.0} iterations/s, {:.0} playouts/s, {:.0} states/s, backend {:.0}% of the time ({workers} on {})",
        res.iterations,
        res.playouts,
        res.nodes,
        res.elapsed.as_secs_f64(),
        res.iterations_per_second(),
        res.playouts_per_second(),
        res.states_per_second(),
        100.0 * res.backend_fraction(),
        backends[0].describe()
    )?;
    for (r, moves) in res.roles.iter().enumerate() {
        if let [only] = legal[r][..] {
            let role = &net.roles[r].name;
            outln!("{role}: only legal move {}", m.move_name(only))?;
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
        let merged: Vec<InputId> = match &free {
            Some(free) => legal[r]
                .iter()
                .copied()
                .filter(|m| free[m.index()])
                .collect(),
            None => Vec::new(),
        };
        if let [kept, rest @ ..] = &merged[..] {
            if !rest.is_empty() {
                outln!(
                    "  ({} outcome-free moves searched as {}: they cannot change the outcome; \
                     --keep-free-moves lists each)",
                    merged.len(),
                    m.move_name(*kept)
                )?;
            }
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
        let joint = joint_move(m, &state, step, jm)?;
        state = m.next_state(&state, &joint);
    }
    Ok(state)
}

/// The joint move `text` names in `state` (input indices in role order): the moves of the
/// roles with a choice, separated by `;`, in role order. A role with one legal move plays
/// it; its move may be written too (the whole joint move, or any forced move the count of
/// given moves leaves room for).
fn joint_move(
    m: &NetMachine<'_>,
    state: &State,
    step: usize,
    text: &str,
) -> anyhow::Result<Vec<InputId>> {
    let legal = m.legal_moves(state);
    let role = |r: usize| &m.netlist().roles[r].name;
    if let Some(r) = legal.iter().position(Vec::is_empty) {
        bail!("move {step}: role {} has no legal move", role(r));
    }
    let mut given = text
        .split(';')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|t| read_move(step, t).map(|canon| (t, canon)))
        .collect::<anyhow::Result<Vec<_>>>()?
        .into_iter()
        .peekable();
    let choosing: Vec<usize> = (0..legal.len()).filter(|&r| legal[r].len() > 1).collect();
    let mut joint = Vec::with_capacity(legal.len());
    for (r, l) in legal.iter().enumerate() {
        let name_of = |i: &InputId| m.move_name(*i);
        if let [only] = l[..] {
            let choices_left = choosing.iter().filter(|&&c| c > r).count();
            let room = given.len() > choices_left;
            if room && given.peek().is_some_and(|(_, c)| c == name_of(&only)) {
                given.next();
            }
            joint.push(only);
            continue;
        }
        let Some((text, want)) = given.next() else {
            bail!("move {step}: no move given for role {}", role(r))
        };
        let Some(&i) = l.iter().find(|i| name_of(i) == want) else {
            let names: Vec<&str> = l.iter().map(name_of).collect();
            bail!(
                "move {step}: `{text}` is not legal for {}; legal: {}",
                role(r),
                names.join(" ")
            );
        };
        joint.push(i);
    }
    if let Some((extra, _)) = given.next() {
        let names: Vec<&str> = choosing.iter().map(|&r| role(r).as_str()).collect();
        bail!(
            "move {step}: `{extra}` is extra: the roles with a choice here are {}; give their \
             moves in role order, separated by `;` (a role with a single legal move plays it)",
            if names.is_empty() {
                "none".to_string()
            } else {
                names.join(", ")
            }
        );
    }
    Ok(joint)
}
