//! Grounding: GDL [`Program`] → reachable ground atoms and rule instances → propnet
//! [`Netlist`].
//!
//! 1. [`rules`] lowers rules to patterns and splits relations into *static* (independent
//!    of `true`/`does`) and *dynamic* ones, in dependency components.
//! 2. [`fixpoint`] computes static relations exactly (stratified, bottom-up, semi-naive)
//!    and the *reachable* atoms of dynamic relations with a relaxed fixpoint that ignores
//!    negation: `true(F)` is reachable iff `init(F)` or `next(F)` is, `does(R, M)` iff
//!    `legal(R, M)` is. Joins ([`plan`], [`join`]) use hash indexes on bound argument
//!    subterms ([`index`]), never a Cartesian product of variable domains; [`split`] has
//!    already cut rule bodies into small joins with auxiliary relations.
//! 3. [`instances`] enumerates the ground instances of dynamic rules; literals over static
//!    relations are decided at compile time and dropped.
//! 4. [`build`] turns atoms and instances into gates, unrolling positive loops.
//!
//! A [`Budget`] bounds atoms, instances, term depth and wall time, so a game that grounds
//! too large (or generates ever deeper terms) fails with [`GroundError::Budget`] naming
//! the relation, instead of hanging or running out of memory.

pub mod build;
pub mod fixpoint;
pub mod index;
pub mod instances;
pub mod join;
pub mod plan;
pub mod rules;

pub mod split;
pub mod terms;
pub mod unify;

use crate::gdl::{Game, Program, Span};
use crate::kif::SourceFile;
use propnet_netlist::{Netlist, NetlistStats};
use std::time::{Duration, Instant};

/// Limits on grounding work. The defaults allow chess-sized games.
#[derive(Clone, Debug)]
pub struct Budget {
    /// Most ground atoms (static and reachable dynamic, all relations together).
    pub max_atoms: usize,
    /// Most ground instances of dynamic rules.
    pub max_instances: usize,
    /// Deepest ground term (a constant has depth 1).
    pub max_term_depth: u32,
    /// Wall-clock limit for grounding.
    pub max_time: Duration,
}

impl Default for Budget {
    fn default() -> Self {
        Budget {
            max_atoms: 2_000_000,
            max_instances: 4_000_000,
            max_term_depth: 40,
            max_time: Duration::from_secs(120),
        }
    }
}

/// Options of [`compile`].
#[derive(Clone, Debug, Default)]
pub struct CompileOptions {
    /// Grounding limits.
    pub budget: Budget,
}

/// Which budget limit was hit.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum BudgetKind {
    /// Too many ground atoms.
    Atoms,
    /// Too many rule instances.
    Instances,
    /// A ground term nested too deeply.
    TermDepth,
    /// Grounding took too long.
    Seconds,
}

impl std::fmt::Display for BudgetKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            BudgetKind::Atoms => "ground atoms",
            BudgetKind::Instances => "rule instances",
            BudgetKind::TermDepth => "term depth",
            BudgetKind::Seconds => "seconds",
        })
    }
}

/// Why a program could not be compiled to a netlist. Variants with a [`Span`] point at the
/// offending rule; render it with the source file (see [`GroundError::span`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GroundError {
    /// Grounding exceeded a [`Budget`] limit.
    #[error("grounding budget exceeded: more than {limit} {kind} (relation {relation}, {count} atoms so far){}", if detail.is_empty() { String::new() } else { format!("; {detail}") })]
    Budget {
        /// Which limit.
        kind: BudgetKind,
        /// Its value.
        limit: u64,
        /// The relation being grounded (or the largest one), as `name/arity`.
        relation: String,
        /// Atoms of that relation derived so far.
        count: usize,
        /// More detail (e.g. the offending term).
        detail: String,
    },
    /// A rule has a variable that no positive literal binds where it is needed.
    #[error("unsafe rule: {message}")]
    Unsafe {
        /// The rule.
        span: Span,
        /// What is unbound.
        message: String,
    },
    /// Negation through recursion.
    #[error("unstratified negation: {message}")]
    Unstratified {
        /// A rule on the cycle.
        span: Span,
        /// The cycle.
        message: String,
    },
    /// A goal value that is not an integer 0..=100.
    #[error("goal value must be an integer 0..=100: {goal}")]
    BadGoal {
        /// The rule deriving it.
        span: Span,
        /// The goal atom text.
        goal: String,
    },
    /// A rule GDL does not allow.
    #[error("{message}")]
    BadRule {
        /// The rule.
        span: Span,
        /// What is wrong.
        message: String,
    },
    /// The built netlist broke an IR invariant (a grounder bug).
    #[error("internal error: built netlist is invalid: {0}")]
    Internal(String),
}

impl GroundError {
    /// The source span of the offending rule, when the error has one.
    pub fn span(&self) -> Option<Span> {
        match self {
            GroundError::Unsafe { span, .. }
            | GroundError::Unstratified { span, .. }
            | GroundError::BadGoal { span, .. }
            | GroundError::BadRule { span, .. } => Some(*span),
            GroundError::Budget { .. } | GroundError::Internal(_) => None,
        }
    }

    /// The message prefixed with `file:line:column` of the offending rule, and the rule's
    /// text (cut to one line), when the error has a span.
    pub fn located(&self, source: &SourceFile) -> String {
        match self.span() {
            Some(span) if span.end > span.start => {
                let rule: String = source
                    .slice(span)
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" ");
                let rule = if rule.chars().count() > 160 {
                    rule.chars().take(160).collect::<String>() + "…"
                } else {
                    rule
                };
                format!("{}: {self}\n  in rule: {rule}", source.loc(span.start))
            }
            _ => format!("{}: {self}", source.name()),
        }
    }
}

/// Compiles a loaded game; errors are rendered with [`GroundError::located`].
///
/// # Errors
/// The located message of the [`GroundError`].
pub fn compile_game(
    game: &Game,
    opts: &CompileOptions,
) -> Result<(Netlist, CompileReport), String> {
    compile_with_report(&game.program, opts).map_err(|e| e.located(&game.source))
}

/// Sizes and timings of one compilation.
#[derive(Clone, Debug, Default)]
pub struct CompileReport {
    /// Relations the outputs depend on.
    pub relations: usize,
    /// Of those, static ones (evaluated at compile time).
    pub static_relations: usize,
    /// Ground atoms derived (static and reachable dynamic).
    pub atoms: usize,
    /// Ground terms interned.
    pub terms: usize,
    /// Ground instances of dynamic rules.
    pub instances: usize,
    /// Cyclic components of the ground atom graph (positive loops).
    pub cyclic_sccs: usize,
    /// Atoms in the largest of them.
    pub largest_cyclic_scc: usize,
    /// Unrolled rounds emitted for them, in total.
    pub unrolled_rounds: usize,
    /// Time for the fixpoint and instance enumeration.
    pub ground_time: Duration,
    /// Time to build the netlist.
    pub build_time: Duration,
    /// Size of the netlist built.
    pub stats: NetlistStats,
}

/// Compiles a GDL program to an (unoptimized) propnet netlist.
///
/// # Errors
/// See [`GroundError`].
pub fn compile(program: &Program, opts: &CompileOptions) -> Result<Netlist, GroundError> {
    compile_with_report(program, opts).map(|(n, _)| n)
}

/// [`compile`], also returning sizes and timings.
///
/// # Errors
/// See [`GroundError`].
pub fn compile_with_report(
    program: &Program,
    opts: &CompileOptions,
) -> Result<(Netlist, CompileReport), GroundError> {
    let t0 = Instant::now();
    let low = rules::lower(program)?;
    let mut g = fixpoint::Grounder::new(&low, opts.budget.clone());
    g.saturate()?;
    let inst = instances::enumerate(&mut g)?;
    let ground_time = t0.elapsed();
    let t1 = Instant::now();
    let (net, counts) = build::build(&g, &inst)?;
    if cfg!(debug_assertions) {
        propnet_netlist::validate(&net).map_err(|e| GroundError::Internal(e.to_string()))?;
    }
    let needed: Vec<_> = low.rel_sccs.iter().flatten().collect();
    let report = CompileReport {
        relations: needed.len(),
        static_relations: needed
            .iter()
            .filter(|r| low.is_static[r.0 as usize])
            .count(),
        atoms: g.atoms.len(),
        terms: g.terms.len(),
        instances: inst.len(),
        cyclic_sccs: counts.cyclic_sccs,
        largest_cyclic_scc: counts.largest_cyclic_scc,
        unrolled_rounds: counts.rounds,
        ground_time,
        build_time: t1.elapsed(),
        stats: net.stats(),
    };
    Ok((net, report))
}
#[cfg(test)]
mod tests;
