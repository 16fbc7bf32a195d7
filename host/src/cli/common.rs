//! Helpers shared by subcommands: loading a game, building backends, parsing player specs.

use super::args::{real, threads, whole};
use anyhow::{anyhow, bail};
use propnet_host::select::{self, BackendKind, BackendOptions, BackendRequest};
use propnet_mcts::factored::FactoredPlayer;
use propnet_mcts::player::{MctsPlayer, Player, RandomPlayer};
use propnet_mcts::{Budget, MctsParams};
use propnet_netlist::{Netlist, ValidNetlist};
use propnet_runtime::backend::Backend;
use std::time::Duration;

/// Most joint moves of one playout or game accepted by any `--max-steps`/`--max-moves`.
pub const MAX_STEPS: u64 = 1_000_000;

/// Parses a batch shape `LEAVESxPLAYOUTS` (each 1..=65536, as the flags): leaves per batch
/// and playouts per leaf.
fn batch_shape(text: &str) -> Result<(u32, u32), String> {
    let (l, p) = text
        .split_once('x')
        .ok_or_else(|| format!("bad batch shape `{text}`: expected LEAVESxPLAYOUTS, e.g. 4x256"))?;
    Ok((whole::<u32>(1, 65536)(l)?, whole::<u32>(1, 65536)(p)?))
}

/// Parses a budget: `N` iterations (1..=[`MAX_ITERATIONS`]), or a time `1.5s` / `200ms`
/// (more than 0, at most [`super::args::MAX_SECONDS`]).
pub fn parse_budget(text: &str) -> anyhow::Result<Budget> {
    let bad =
        || anyhow!("bad budget `{text}`: expected iterations (`1000`) or time (`1s`, `250ms`)");
    let (number, scale) = if let Some(ms) = text.strip_suffix("ms") {
        (ms, 1e-3)
    } else if let Some(s) = text.strip_suffix('s') {
        (s, 1.0)
    } else {
        return super::args::whole::<u64>(1, MAX_ITERATIONS)(text)
            .map(Budget::Iterations)
            .map_err(|e| anyhow!("bad budget `{text}`: {e}"));
    };
    let secs = number.trim().parse::<f64>().map_err(|_| bad())? * scale;
    let max = super::args::MAX_SECONDS;
    if !(secs > 0.0 && secs <= max) {
        bail!("bad budget `{text}`: a time budget must be more than 0 and at most {max} s");
    }
    Ok(Budget::Time(Duration::from_secs_f64(secs)))
}

/// Most iterations of one MCTS search (`--iterations`, `mcts:cpu:N`).
pub const MAX_ITERATIONS: u64 = 1 << 40;

/// MCTS tuning flags shared by `match` and `best`.
#[derive(clap::Args, Clone, Debug)]
pub struct MctsFlags {
    /// UCB1 exploration constant (goals scaled to 0..1) of a node's first visits.
    #[arg(long, default_value_t = MctsParams::default().exploration, value_parser = real(0.0, 1000.0))]
    pub exploration: f64,
    /// The exploration constant of a node with many visits (see `--exploration-visits`).
    #[arg(long, default_value_t = MctsParams::default().exploration_final, value_parser = real(0.0, 1000.0))]
    pub exploration_final: f64,
    /// Visits K at which a node's exploration constant is halfway from `--exploration` C
    /// to `--exploration-final` F (`F + (C − F)·K / (K + N)` at N visits); 0: C at every
    /// node.
    #[arg(long, default_value_t = MctsParams::default().exploration_visits, value_parser = whole::<u32>(0, 1_000_000_000))]
    pub exploration_visits: u32,
    /// Rollouts per selected leaf.
    #[arg(long, default_value_t = MctsParams::default().playouts_per_leaf, value_parser = whole::<u32>(1, 65536))]
    pub playouts_per_leaf: u32,
    /// Leaves collected (with virtual loss) per backend batch.
    #[arg(long, default_value_t = MctsParams::default().leaves_per_batch, value_parser = whole::<u32>(1, 65536))]
    pub leaves_per_batch: u32,
    /// Visits before a node is expanded.
    #[arg(long, default_value_t = MctsParams::default().expand_threshold, value_parser = whole::<u32>(0, 1_000_000))]
    pub expand_threshold: u32,
    /// Rollout depth cut-off in joint moves.
    #[arg(long, default_value_t = MctsParams::default().max_steps, value_parser = whole::<u32>(1, MAX_STEPS))]
    pub max_steps: u32,
    /// Threads the search uses in all (0 = one per core).
    #[arg(long, default_value_t = 0, value_parser = threads)]
    pub threads: usize,
    /// Search workers, each selecting leaves in the one tree and running their rollouts on
    /// a backend of its own with `threads / workers` threads (0 = one per thread on the
    /// `cpu` and `reference` backends, one on a GPU or an FPGA). Default 1: at equal time
    /// two workers of one thread did not beat one worker of two on connect four and
    /// breakthrough (BENCHMARKS.md, "MCTS strength with random openings").
    #[arg(long, default_value_t = 1, value_parser = threads)]
    pub workers: usize,
    /// MCTS-Solver: prove wins, losses and draws in the tree (turn-taking nodes), stop
    /// searching proven subtrees and the whole search once the root is proven, play a
    /// proven win at once. Off by default: at equal time it has not beaten plain UCT yet
    /// (BENCHMARKS.md, "MCTS strength with random openings").
    #[arg(long)]
    pub solver: bool,
    /// GRAVE: nodes with at least this many visits keep all-moves-as-first statistics, and
    /// selection blends them into each move's mean (0 = plain UCT; CPU backend).
    #[arg(long, default_value_t = MctsParams::default().grave_ref, value_parser = whole::<u32>(0, 1_000_000))]
    pub grave_ref: u32,
    /// GRAVE's bias b in the AMAF weight a / (a + n + b·a·n).
    #[arg(long, default_value_t = MctsParams::default().grave_bias, value_parser = real(0.0, 1.0))]
    pub grave_bias: f64,
    /// Keep every outcome-free legal move in the tree. By default the search keeps only the
    /// first of a role's moves that can never change the outcome (moves that change only
    /// fluents from which no goal, terminal or legal move can be reached: `propnet check
    /// --factors` lists them), as the others lead to equivalent states.
    #[arg(long)]
    pub keep_free_moves: bool,
}

impl MctsFlags {
    /// The backends of the search's workers (see [`MctsFlags::workers`] and
    /// [`propnet_runtime::factory::make_search_backends`]); an `auto` fallback prints its
    /// one-line reason on stderr.
    ///
    /// # Errors
    /// The factory's error building a backend.
    pub fn backends(
        &self,
        kind: BackendKind,
        net: &ValidNetlist,
    ) -> anyhow::Result<Vec<Box<dyn Backend>>> {
        let factory = select::Backends {
            options: BackendOptions::default(),
        };
        let (backends, note) = propnet_runtime::factory::make_search_backends(
            &factory,
            &BackendRequest::of(kind),
            net,
            self.threads,
            self.workers,
        )?;
        if let Some(note) = note {
            eprintln!("{note}");
        }
        Ok(backends)
    }

    /// The parameters with this seed.
    pub fn params(&self, seed: u64) -> MctsParams {
        MctsParams {
            exploration: self.exploration,
            exploration_final: self.exploration_final,
            exploration_visits: self.exploration_visits,
            expand_threshold: self.expand_threshold,
            playouts_per_leaf: self.playouts_per_leaf,
            leaves_per_batch: self.leaves_per_batch,
            max_steps: self.max_steps,
            solver: self.solver,
            grave_ref: self.grave_ref,
            grave_bias: self.grave_bias,
            merge_free_moves: !self.keep_free_moves,
            seed,
            ..MctsParams::default()
        }
    }
}

/// Builds a player from a spec: `random`, or `mcts:BACKEND:BUDGET[:OPTION…]` with BACKEND
/// one of `cpu`, `gpu`, `auto`, `reference` and options that override the flags for this
/// player: `LEAVESxPLAYOUTS` (leaves per batch, playouts per leaf), `wN` (search
/// workers), `cX` (UCB1 exploration constant), `dX` and `vN` (the constant goes from `cX`
/// down to `dX` as a node's visits grow, halfway at N visits:
/// [`MctsParams::exploration_final`]), `eN` (visits before a node is expanded, as
/// `--expand-threshold`), `gN` (GRAVE with reference visits N, as `--grave-ref`), `bX`
/// (GRAVE's bias, as `--grave-bias`), `solver` (MCTS-Solver on), `keepfree` (every
/// outcome-free move kept, as `--keep-free-moves`), `factored` (one tree per factor of a
/// sum of games, [`propnet_mcts::factored`]), `fresh` (a fresh tree every move
/// instead of the subtree of the position reached), `batched` (rollouts batch by batch
/// instead of streamed on the CPU simulator). E.g. `mcts:cpu:1s`, `mcts:gpu:2000`, `mcts:cpu:500ms:4x256:w1`.
pub fn make_player(
    spec: &str,
    net: &ValidNetlist,
    flags: &MctsFlags,
    seed: u64,
) -> anyhow::Result<Box<dyn Player>> {
    let parts: Vec<&str> = spec.split(':').collect();
    match parts.as_slice() {
        ["random"] => Ok(Box::new(RandomPlayer::new(seed))),
        ["mcts", backend, budget, options @ ..] => {
            let kind = BackendKind::parse(backend).map_err(|e| anyhow!("player `{spec}`: {e}"))?;
            let mut params = flags.params(seed);
            let mut flags = flags.clone();
            let mut reuse = true;
            let mut factored = false;
            let mut seen: Vec<&str> = Vec::new();
            for option in options {
                let kind = option_kind(option)
                    .ok_or_else(|| anyhow!("player `{spec}`: unknown option `{option}`: expected LEAVESxPLAYOUTS, wN, cX, dX, vN, eN, gN, bX, solver, keepfree, factored, fresh or batched"))?;
                if seen.contains(&kind) {
                    bail!("player `{spec}`: option `{option}` sets the {kind} a second time");
                }
                seen.push(kind);
                match kind {
                    "tree reuse" => reuse = false,
                    "factoring" => factored = true,
                    "exploration" => {
                        params.exploration = real(0.0, 1000.0)(&option[1..])
                            .map_err(|e| anyhow!("player `{spec}`: exploration: {e}"))?;
                    }
                    "final exploration" => {
                        params.exploration_final = real(0.0, 1000.0)(&option[1..])
                            .map_err(|e| anyhow!("player `{spec}`: final exploration: {e}"))?;
                    }
                    "exploration decay visits" => {
                        params.exploration_visits = whole::<u32>(1, 1_000_000_000)(&option[1..])
                            .map_err(|e| anyhow!("player `{spec}`: exploration decay visits: {e}"))?;
                    }
                    "expand threshold" => {
                        params.expand_threshold = whole::<u32>(0, 1_000_000)(&option[1..])
                            .map_err(|e| anyhow!("player `{spec}`: expand threshold: {e}"))?;
                    }
                    "GRAVE reference visits" => {
                        params.grave_ref = whole::<u32>(0, 1_000_000)(&option[1..])
                            .map_err(|e| anyhow!("player `{spec}`: GRAVE reference visits: {e}"))?;
                    }
                    "GRAVE bias" => {
                        params.grave_bias = real(0.0, 1.0)(&option[1..])
                            .map_err(|e| anyhow!("player `{spec}`: GRAVE bias: {e}"))?;
                    }
                    "solver" => params.solver = true,
                    "outcome-free moves" => params.merge_free_moves = false,
                    "rollout stream" => params.stream = false,
                    "workers" => {
                        flags.workers = threads(&option[1..])
                            .map_err(|e| anyhow!("player `{spec}`: workers: {e}"))?;
                    }
                    _ => {
                        let (leaves, playouts) =
                            batch_shape(option).map_err(|e| anyhow!("player `{spec}`: {e}"))?;
                        params.leaves_per_batch = leaves;
                        params.playouts_per_leaf = playouts;
                    }
                }
            }
            let budget = parse_budget(budget)?;
            if factored {
                if !reuse {
                    bail!("player `{spec}`: `factored` keeps each factor's tree; drop `fresh`");
                }
                let mut make = |n: &Netlist| -> anyhow::Result<Vec<Box<dyn Backend>>> {
                    flags.backends(kind.clone(), &ValidNetlist::new(n.clone())?)
                };
                let label = spec.to_string();
                let p = FactoredPlayer::new(label, net.netlist(), &mut make, params, budget)?;
                return Ok(Box::new(p));
            }
            Ok(Box::new(
                MctsPlayer::new(spec.to_string(), flags.backends(kind, net)?, params, budget)
                    .reuse_tree(reuse),
            ))
        }
        _ => bail!(
            "bad player `{spec}`: expected `random` or `mcts:BACKEND:BUDGET[:LEAVESxPLAYOUTS][:wWORKERS][:cEXPLORATION][:dFINAL_EXPLORATION][:vDECAY_VISITS][:eEXPAND][:gGRAVE_REF][:bGRAVE_BIAS][:solver][:keepfree][:factored][:fresh][:batched]` (e.g. mcts:cpu:1s, mcts:cpu:500ms:4x256:w1, mcts:cpu:1s:solver)"
        ),
    }
}

/// What a player option sets (`None`: no option of that form): `fresh` the tree reuse,
/// `batched` the rollout stream, `cX` the exploration, `dX` and `vN` its final value and decay visits, `eN` the expand threshold, `gN` and
/// `bX` GRAVE's reference visits and bias, `solver`,
/// `keepfree` the outcome-free moves, `wN` the workers,
/// `LxP` (starting with a digit) the batch shape.
fn option_kind(option: &str) -> Option<&'static str> {
    match option {
        "fresh" => Some("tree reuse"),
        "batched" => Some("rollout stream"),
        "solver" => Some("solver"),
        "keepfree" => Some("outcome-free moves"),
        "factored" => Some("factoring"),
        o if o.starts_with('c') => Some("exploration"),
        o if o.starts_with('e') => Some("expand threshold"),
        o if o.starts_with('d') => Some("final exploration"),
        o if o.starts_with('v') => Some("exploration decay visits"),
        o if o.starts_with('g') => Some("GRAVE reference visits"),
        o if o.starts_with('b') => Some("GRAVE bias"),
        o if o.starts_with('w') => Some("workers"),
        o if o.starts_with(|c: char| c.is_ascii_digit()) => Some("batch shape"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budgets_and_player_specs_parse() {
        assert_eq!(parse_budget("1000").unwrap(), Budget::Iterations(1000));
        assert_eq!(
            parse_budget("1s").unwrap(),
            Budget::Time(Duration::from_secs(1))
        );
        assert_eq!(
            parse_budget("250ms").unwrap(),
            Budget::Time(Duration::from_millis(250))
        );
        assert!(parse_budget("fast").is_err());
        assert!(parse_budget("-1s").is_err());
        let net = propnet_netlist::random::random_netlist(1, &Default::default());
        let net = ValidNetlist::new(net).unwrap();
        let flags = MctsFlags {
            exploration: 1.0,
            exploration_final: 0.5,
            exploration_visits: 0,
            playouts_per_leaf: 1,
            leaves_per_batch: 1,
            expand_threshold: 1,
            max_steps: 10,
            threads: 1,
            workers: 0,
            solver: false,
            grave_ref: 0,
            grave_bias: 1e-4,
            keep_free_moves: false,
        };
        assert_eq!(
            make_player("random", &net, &flags, 1).unwrap().label(),
            "random"
        );
        assert_eq!(
            make_player("mcts:cpu:1s", &net, &flags, 1).unwrap().label(),
            "mcts:cpu:1s"
        );
        assert!(make_player("mcts:cpu:1s:4x256:w2", &net, &flags, 1).is_ok());
        assert!(make_player("mcts:cpu:1s:solver:fresh:c0.7", &net, &flags, 1).is_ok());
        assert!(make_player("mcts:cpu:1s:keepfree", &net, &flags, 1).is_ok());
        assert!(make_player("mcts:cpu:1s:e4", &net, &flags, 1).is_ok());
        assert!(make_player("mcts:cpu:1s:batched:fresh", &net, &flags, 1).is_ok());
        assert!(make_player("mcts:cpu:1s:g50:b0.01", &net, &flags, 1).is_ok());
        assert!(make_player("mcts:cpu:1s:factored:c0.2", &net, &flags, 1).is_ok());
        assert!(make_player("mcts:cpu:1s:d0.2:v1000", &net, &flags, 1).is_ok());
        let err = |spec: &str| match make_player(spec, &net, &flags, 1) {
            Ok(_) => panic!("{spec} accepted"),
            Err(e) => e.to_string(),
        };
        assert!(err("mcts:cpu:1s:keep").contains("unknown option `keep`: expected"));
        assert!(err("mcts:cpu:1s:keepfree:keepfree").contains("a second time"));
        assert!(err("mcts:cpu:1s:4x16:8x8").contains("sets the batch shape a second time"));
        assert!(err("mcts:cpu:1s:c1:c2").contains("exploration a second time"));
        assert!(err("mcts:cpu:1s:e4:e2").contains("expand threshold a second time"));
        assert!(err("mcts:cpu:1s:e-1").contains("expand threshold"));
        assert!(err("mcts:cpu:1s:ex").contains("expand threshold"));
        assert!(err("mcts:cpu:1s:batched:batched").contains("rollout stream a second time"));
        assert!(err("mcts:cpu:1s:g50:g9").contains("GRAVE reference visits a second time"));
        assert!(err("mcts:cpu:1s:g-1").contains("GRAVE reference visits"));
        assert!(err("mcts:cpu:1s:bnan").contains("GRAVE bias"));
        assert!(err("mcts:cpu:1s:b2").contains("GRAVE bias"));
        assert!(err("mcts:cpu:1s:").contains("unknown option ``"));
        assert!(err("mcts:cpu:1s:factored:fresh").contains("drop `fresh`"));
        assert!(err("mcts:cpu:1s:factored:factored").contains("factoring a second time"));
        assert!(err("mcts:cpu:1s:v0").contains("exploration decay visits"));
        assert!(err("mcts:cpu:1s:dnan").contains("final exploration"));
        assert!(err("mcts:cpu:1s:d0.1:d0.2").contains("final exploration a second time"));
        assert!(make_player("mcts:tpu:1s", &net, &flags, 1).is_err());
        assert!(make_player("mcts:cpu", &net, &flags, 1).is_err());
        for bad in [
            "4x", "x4", "0x4", "4x0", "w", "wx", "4y4", "c", "cnan", "c-1", "c1e9", "g", "g1e9",
            "b", "b-0.1", "binf", "d", "d-1", "v", "v-1", "v1e12",
        ] {
            let err = make_player(&format!("mcts:cpu:1s:{bad}"), &net, &flags, 1);
            assert!(err.is_err(), "{bad}");
        }
    }

    #[test]
    fn budgets_and_seconds_reject_negative_and_non_finite_values() {
        assert!(
            matches!(parse_budget("250ms").unwrap(), Budget::Time(d) if d == Duration::from_millis(250))
        );
        assert!(
            matches!(parse_budget("2s").unwrap(), Budget::Time(d) if d == Duration::from_secs(2))
        );
        assert!(matches!(
            parse_budget("300").unwrap(),
            Budget::Iterations(300)
        ));
        for bad in ["-5ms", "nanms", "infs", "-1s", "1e400ms", "x", ""] {
            assert!(parse_budget(bad).is_err(), "{bad}");
        }
        for bad in ["0", "1e12s", "0s", "nans"] {
            assert!(parse_budget(bad).is_err(), "{bad}");
        }
    }
}
