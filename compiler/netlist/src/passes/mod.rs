//! Netlist optimization passes (in the style of yosys `opt`), run to a fixpoint by
//! [`optimize`], and a playout-based equivalence check ([`check_equivalent`]).
//!
//! Each pass is a module with `pub fn run(net: &mut Netlist) -> bool` (true when it changed
//! something). Every pass keeps the [`crate`] invariants: topological arena, one
//! gate per latch/input at most, outputs free of inputs, legal lists sorted by move text. A
//! pass may leave unused gates behind; [`remove_dead`] drops them. Game behaviour from the
//! initial state is preserved exactly: legal moves (by text and order), goals, terminal and
//! the full fluent state ([`Netlist::true_fluents`]), which [`check_equivalent`] tests.
//! Passes that remove latches keep their fluents observable as fixed or aliased fluents.

pub mod absorb_not;
pub mod absorb_operands;
mod check_equivalent;
pub mod collapse_single;
pub mod drop_constant_latches;
pub mod extract_pairs;
pub mod factor_shared;
pub mod fold_constants;
pub mod merge_equivalent;
pub mod merge_latches;
mod rebuild;
pub mod remove_dead;

pub use check_equivalent::{check_equivalent, EquivOptions, Mismatch};

use crate::{validate, Cancel, Netlist, NetlistStats};

/// A pass: rewrites the netlist in place, returns true when it changed something. A pass
/// that can take long on big netlists stops early once the flag is raised, leaving the
/// netlist valid and equivalent (the others finish: about a second per run at most on
/// chess).
pub type PassFn = fn(&mut Netlist, &Cancel) -> bool;

/// Every pass by name, in the order [`optimize`] runs them in one iteration.
pub const PASSES: &[(&str, PassFn)] = &[
    ("fold_constants", |net, _| fold_constants::run(net)),
    ("drop_constant_latches", |net, _| {
        drop_constant_latches::run(net)
    }),
    ("merge_equivalent", |net, _| merge_equivalent::run(net)),
    ("collapse_single", |net, _| collapse_single::run(net)),
    ("absorb_operands", |net, _| absorb_operands::run(net)),
    ("factor_shared", |net, _| factor_shared::run(net)),
    ("absorb_not", |net, _| absorb_not::run(net)),
    ("remove_dead", |net, _| remove_dead::run(net)),
    ("merge_latches", |net, _| merge_latches::run(net)),
    ("extract_pairs", extract_pairs::run_until),
];

/// Passes too slow to run every round: [`optimize`] runs them only in a round where the
/// others changed nothing (at their fixpoint).
pub const EXPENSIVE: &[&str] = &["merge_latches", "extract_pairs"];

/// The pass with this name, if any.
pub fn pass_by_name(name: &str) -> Option<PassFn> {
    PASSES.iter().find(|(n, _)| *n == name).map(|(_, f)| *f)
}

/// Settings of [`optimize`].
#[derive(Clone, Debug)]
pub struct OptimizeOptions {
    /// Stop after this many rounds over all passes even if the last one still changed something.
    pub max_iterations: usize,
    /// Whether to remove latches: replace never-changing ones by constants
    /// ([`drop_constant_latches`]) and merge equal or complementary ones ([`merge_latches`]).
    pub drop_constant_latches: bool,
    /// Run [`validate`] after every pass and panic on a broken invariant (a pass bug).
    /// Defaults to on in debug builds.
    pub validate_each_pass: bool,
    /// Checked before each pass and inside the long ones ([`PassFn`]): once raised, the
    /// rest is skipped (the netlist is valid, less optimized, and the report says it did
    /// not converge).
    pub cancel: crate::Cancel,
}

impl Default for OptimizeOptions {
    fn default() -> Self {
        Self {
            max_iterations: 32,
            drop_constant_latches: true,
            validate_each_pass: cfg!(debug_assertions),
            cancel: crate::Cancel::never(),
        }
    }
}

/// What one pass did in one iteration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PassStep {
    /// Iteration number, from 1.
    pub iteration: usize,
    /// Pass name (see [`PASSES`]).
    pub pass: &'static str,
    /// Whether the pass reported a change.
    pub changed: bool,
    /// Arena length (all gates, including sources and dead ones) before the pass.
    pub gates_before: usize,
    /// Arena length after the pass.
    pub gates_after: usize,
    /// Logic gates (`And`/`Or`/`Not`) before the pass.
    pub logic_before: usize,
    /// Logic gates after the pass.
    pub logic_after: usize,
    /// Wall time of the pass (excluding validation).
    pub time: std::time::Duration,
}

/// The outcome of [`optimize`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PassReport {
    /// Size before optimization.
    pub before: NetlistStats,
    /// Size after optimization.
    pub after: NetlistStats,
    /// Rounds over all passes that were run (the last one changed nothing unless the limit hit).
    pub iterations: usize,
    /// True when a round changed nothing (false: `max_iterations` was reached first).
    pub converged: bool,
    /// Every pass run, in order.
    pub steps: Vec<PassStep>,
}

impl PassReport {
    /// Per pass: its total wall time over every round and how many times it ran, slowest
    /// first.
    pub fn time_by_pass(&self) -> Vec<(&'static str, std::time::Duration, usize)> {
        let mut by: Vec<(&'static str, std::time::Duration, usize)> = Vec::new();
        for s in &self.steps {
            match by.iter_mut().find(|(name, ..)| *name == s.pass) {
                Some((_, time, runs)) => {
                    *time += s.time;
                    *runs += 1;
                }
                None => by.push((s.pass, s.time, 1)),
            }
        }
        by.sort_by_key(|b| std::cmp::Reverse(b.1));
        by
    }
}

impl std::fmt::Display for PassReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (b, a) = (&self.before, &self.after);
        writeln!(
            f,
            "optimize: {} iterations{}; logic gates {} -> {}, latches {} -> {}, inputs {} -> {}, edges {} -> {}, depth {} -> {}",
            self.iterations,
            if self.converged { "" } else { " (limit reached)" },
            b.and + b.or + b.not,
            a.and + a.or + a.not,
            b.latches,
            a.latches,
            b.inputs,
            a.inputs,
            b.edges,
            a.edges,
            b.depth,
            a.depth
        )?;
        for s in self
            .steps
            .iter()
            .filter(|s| s.changed || s.time.as_millis() >= 10)
        {
            writeln!(
                f,
                "  #{:<2} {:<22} gates {:>8} -> {:>8}  logic {:>8} -> {:>8}  {:>8.1} ms",
                s.iteration,
                s.pass,
                s.gates_before,
                s.gates_after,
                s.logic_before,
                s.logic_after,
                s.time.as_secs_f64() * 1e3
            )?;
        }
        Ok(())
    }
}

/// Runs all passes in [`PASSES`] order, round after round, until a round changes nothing or
/// `opts.max_iterations` rounds ran; the [`EXPENSIVE`] ones only close a round in which the
/// others changed nothing. The result plays exactly like the input from the
/// initial state (same legal moves, goals, terminal and full fluent state). Sets
/// [`Netlist::optimized`] when the rounds converged with every pass enabled.
///
/// # Panics
/// With `opts.validate_each_pass` and a valid input, if a pass breaks a netlist invariant (a
/// bug in the pass).
pub fn optimize(net: &mut Netlist, opts: &OptimizeOptions) -> PassReport {
    let before = net.stats();
    // A pass is to blame only for invariants that held before it ran.
    let verify = opts.validate_each_pass && validate(net).is_ok();
    let mut steps = Vec::new();
    let mut iterations = 0;
    let mut converged = false;
    while iterations < opts.max_iterations {
        iterations += 1;
        let mut any = false;
        for &(name, pass) in PASSES {
            if opts.cancel.is_cancelled() {
                break;
            }
            let drops_latches = matches!(name, "drop_constant_latches" | "merge_latches");
            if (drops_latches && !opts.drop_constant_latches) || (any && EXPENSIVE.contains(&name))
            {
                continue;
            }
            let (gates_before, logic_before) = (net.gates.len(), net.logic_gate_count());
            let t0 = std::time::Instant::now();
            let changed = pass(net, &opts.cancel);
            let time = t0.elapsed();
            if verify {
                if let Err(e) = validate(net) {
                    panic!("pass {name} broke the netlist invariants: {e}");
                }
            }
            any |= changed;
            steps.push(PassStep {
                iteration: iterations,
                pass: name,
                changed,
                gates_before,
                gates_after: net.gates.len(),
                logic_before,
                logic_after: net.logic_gate_count(),
                time,
            });
        }
        if opts.cancel.is_cancelled() {
            break;
        }
        if !any {
            converged = true;
            break;
        }
    }
    net.optimized = converged && opts.drop_constant_latches;
    PassReport {
        before,
        after: net.stats(),
        iterations,
        converged,
        steps,
    }
}

#[cfg(test)]
mod chain_tests;
#[cfg(test)]
mod filetests;
#[cfg(test)]
mod latch_tests;
#[cfg(test)]
mod tests;
