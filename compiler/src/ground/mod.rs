//! Grounding: GDL [`Program`] → reachable ground atoms and rule instances → propnet
//! [`Netlist`].
//!
//! 0. `drop_visited` removes a visited-list argument from a path search where it provably
//!    changes nothing (`list_idioms` recognises the list relations it needs).
//!    `diagram_filters` compiles a rule's large static filter (e.g. "each digit once in
//!    these nine cells") into a decision diagram: a chain of rules over diagram states.
//! 1. `rules` lowers rules to patterns, `persistent` reads fluents that never change
//!    from `init`, `split` cuts rule bodies into small joins with auxiliary relations,
//!    and `demand` adds demand (magic-set) relations so a dynamic relation only gets the
//!    atoms its callers ask for.
//! 2. `statics` computes the static relations (independent of `true`/`does`) exactly:
//!    in full when that is small, else per call pattern, only for the bindings the rules
//!    call them with.
//! 3. `fixpoint` computes the *reachable* atoms of dynamic relations with a relaxed
//!    semi-naive fixpoint that ignores negation: `true(F)` is reachable iff `init(F)` or
//!    `next(F)` is, `does(R, M)` iff `legal(R, M)` is. Joins (`plan`, `join`) use hash
//!    indexes on bound argument subterms (`store`), never a Cartesian product of
//!    variable domains.
//! 4. `build` turns each reachable dynamic atom into the `Or` of its rule instances
//!    (`instances`; static literals decided at compile time and dropped), unrolling
//!    positive loops, with hash-consed gates (`gates`).
//!
//! A [`Budget`] bounds the memory of the grounder's tables, wall time and term depth, so
//! a game that grounds too large (or generates ever deeper terms) fails with
//! [`GroundError::Budget`] naming the rule, instead of hanging or running out of memory.
//! When the relaxed fixpoint builds ever deeper terms but play is finite (a counter
//! written as `(s (s …))` that `terminal` stops), [`explore`] enumerates the states play
//! reaches and grounding runs again over their fluents and moves only.

mod budget;
mod build;
mod call_order;
mod demand;
mod diagram_filters;
mod domains;
mod drop_visited;
pub mod explore;
mod factor;
mod fixpoint;
mod gates;
mod instances;
mod join;
mod list_idioms;
mod persistent;
mod plan;
mod rules;
mod split;
mod statics;
mod stats;
mod store;
mod unify;
mod value_origin;

pub use budget::{default_memory, Budget, BudgetKind};
pub use diagram_filters::FilterDiagram;
pub use fixpoint::TableBytes;
pub use stats::RelationStats;

use crate::gdl::{Game, Program, Span};
use crate::kif::SourceFile;
use propnet_netlist::{Cancel, Netlist, NetlistStats};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A progress callback: called now and then during long grounding work with a short
/// text naming the relation being grounded (e.g. for a progress bar).
pub type ProgressFn = Arc<dyn Fn(&str) + Send + Sync>;

/// Options of [`compile`].
#[derive(Clone, Default)]
pub struct CompileOptions {
    /// Grounding limits.
    pub budget: Budget,
    /// Where progress is reported (nowhere when `None`).
    pub progress: Option<ProgressFn>,
    /// Raised by another thread to stop grounding early ([`GroundError::Cancelled`]).
    pub cancel: Cancel,
}

impl std::fmt::Debug for CompileOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CompileOptions")
            .field("budget", &self.budget)
            .field("progress", &self.progress.is_some())
            .finish()
    }
}

/// Why a program could not be compiled to a netlist. Variants with a [`Span`] point at the
/// offending rule; render it with the source file (see [`GroundError::span`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GroundError {
    /// Grounding exceeded a [`Budget`] limit.
    #[error("grounding budget exceeded: more than {limit} while grounding {relation}{detail} (reached {atoms} atoms, {instances} rule instances, {mib} MiB); {}", advice(*kind, *growing))]
    Budget {
        /// Which limit.
        kind: BudgetKind,
        /// The limit, as text (`3072 MiB of grounding tables`).
        limit: String,
        /// The relation being grounded, as `name/arity`.
        relation: String,
        /// The rule being grounded, when it is one of the game's.
        span: Option<Span>,
        /// Atoms derived so far (all relations).
        atoms: usize,
        /// Rule instances (join solutions) met so far.
        instances: usize,
        /// Memory of the grounder's tables, MiB.
        mib: usize,
        /// More detail (e.g. the offending term), starting with `; `, or empty.
        detail: String,
        /// The rule is recursive and builds a larger term in its head each round (a list
        /// grown by one element): its instances multiply with every round, so a higher
        /// limit rarely helps.
        growing: bool,
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
        /// The sentence the value comes from: the goal rule, or the fact (rule) that bound
        /// the goal rule's value variable.
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
    /// [`CompileOptions::cancel`] was raised.
    #[error("grounding cancelled")]
    Cancelled,
}

/// The end of a budget error: the flag that raises the limit, or why it will not help.
fn advice(kind: BudgetKind, growing: bool) -> String {
    if growing {
        format!(
            "this rule is recursive and builds a larger term (e.g. a longer list) each round, \
             so its ground instances multiply without a useful bound and raising the limit \
             ({}) is unlikely to help: a propnet needs every instance; a growing term threaded \
             through a recursion can be grounded only where it is a visited list the grounder \
             can prove redundant (a list that only stops a path search from revisiting a node; \
             see the README's Reading errors), otherwise rewrite the rules without it",
            kind.flag()
        )
    } else {
        format!(
            "raise the limit with {} (without grounding, the reference interpreter plays the \
             game: `trace` and `verify` with `--engine interp`)",
            kind.flag()
        )
    }
}

impl GroundError {
    /// The source span of the offending rule, when the error has one.
    pub fn span(&self) -> Option<Span> {
        match self {
            GroundError::Unsafe { span, .. }
            | GroundError::Unstratified { span, .. }
            | GroundError::BadGoal { span, .. }
            | GroundError::BadRule { span, .. } => Some(*span),
            GroundError::Budget { span, .. } => *span,
            GroundError::Internal(_) | GroundError::Cancelled => None,
        }
    }

    /// The message prefixed with `file:line:column` of the offending rule, and the rule's
    /// text (cut to one line), when the error has a span.
    pub fn located(&self, source: &SourceFile) -> String {
        source.locate(self.span(), self)
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
    /// Relations the outputs depend on (demand and auxiliary ones included).
    pub relations: usize,
    /// Of those, static ones (evaluated at compile time).
    pub static_relations: usize,
    /// Of the static ones, those computed per call pattern (too large to compute in full).
    pub on_demand_relations: usize,
    /// Demand relations (atoms the rules ask for; never gates).
    pub demand_relations: usize,
    /// Ground atoms derived (static and reachable dynamic).
    pub atoms: usize,
    /// Calls of on-demand relations and their answers.
    pub calls: usize,
    /// Answers of those calls.
    pub answers: usize,
    /// Ground terms interned.
    pub terms: usize,
    /// Rule instances turned into gates.
    pub instances: usize,
    /// Cyclic components of the ground atom graph (positive loops).
    pub cyclic_sccs: usize,
    /// Atoms in the largest of them.
    pub largest_cyclic_scc: usize,
    /// Unrolled rounds emitted for them, in total.
    pub unrolled_rounds: usize,
    /// Time to compute the static relations and the reachable atoms.
    pub ground_time: Duration,
    /// Time to enumerate rule instances and build the netlist.
    pub build_time: Duration,
    /// Most memory the grounder's tables held (bytes, from their capacities).
    pub table_bytes: usize,
    /// Most memory the grounding budget counted at any check (bytes): the tables plus the
    /// transient buffers checked with them (a rule's join results, the netlist's gates
    /// while building). This is the figure [`Budget::max_memory`] bounds.
    pub peak_bytes: usize,
    /// Entries of the tables at the end: ground terms, atoms, answers of on-demand calls
    /// and index postings.
    pub table_entries: usize,
    /// The tables' bytes at the end of building, by table.
    pub tables: TableBytes,
    /// Gates of every kind made while building, before those no output reads were
    /// removed.
    pub gates_made: usize,
    /// Of those, the ones no output reads (removed).
    pub gates_unread: usize,
    /// Size of the netlist built.
    pub stats: NetlistStats,
    /// Per relation that makes gates or latches or holds atoms: what it contributed, most
    /// gates first.
    pub by_relation: Vec<RelationStats>,
    /// Rules whose static filter was compiled to a decision diagram (see the grounder's
    /// `diagram_filters`), in rule order.
    pub filter_diagrams: Vec<FilterDiagram>,
    /// When relaxed reachability diverged and the netlist was grounded over the states play
    /// reaches ([`explore`]): what was explored. The netlist is then exact on every
    /// reachable state only.
    pub explored: Option<Explored>,
}

/// What [`explore`] visited for a [`CompileReport`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Explored {
    /// Reachable states (all of them).
    pub states: usize,
    /// Joint moves applied.
    pub transitions: usize,
    /// Fluents true in some reachable state (the latches).
    pub fluents: usize,
    /// `(role, move)` pairs legal in some reachable state (the inputs).
    pub moves: usize,
    /// Why relaxed grounding failed (`more than term depth 40 while grounding legal/2`).
    pub because: String,
}

impl Explored {
    /// One sentence for the user: what was grounded instead, and why.
    pub fn note(&self) -> String {
        let n = |k: usize, one: &str, many: &str| match k {
            1 => format!("1 {one}"),
            k => format!("{k} {many}"),
        };
        format!(
            "relaxed reachability builds ever deeper terms ({}), so the netlist was grounded \
             over the {} play reaches ({} explored with the interpreter; {}, {}): it is exact \
             on every reachable state",
            self.because,
            n(self.states, "state", "states"),
            n(self.transitions, "joint move", "joint moves"),
            n(self.fluents, "fluent", "fluents"),
            n(self.moves, "move", "moves"),
        )
    }
}

impl CompileReport {
    /// Peak grounding memory ([`Self::peak_bytes`]) per ground atom (atoms of the store
    /// and answers of on-demand calls), in bytes; 0 when nothing was derived.
    pub fn bytes_per_atom(&self) -> f64 {
        per(self.peak_bytes, self.atoms + self.answers)
    }

    /// Peak grounding memory per rule instance turned into gates, in bytes; 0 when there
    /// are none.
    pub fn bytes_per_instance(&self) -> f64 {
        per(self.peak_bytes, self.instances)
    }

    /// Peak grounding memory per table entry ([`Self::table_entries`]), in bytes.
    pub fn bytes_per_entry(&self) -> f64 {
        per(self.peak_bytes, self.table_entries)
    }
}

/// `bytes / n`, 0 for `n == 0`.
fn per(bytes: usize, n: usize) -> f64 {
    match n {
        0 => 0.0,
        n => bytes as f64 / n as f64,
    }
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
    match ground(program, None, opts) {
        Err(
            e @ GroundError::Budget {
                kind: BudgetKind::TermDepth,
                growing: true,
                ..
            },
        ) if opts.budget.max_explored_states > 0 => {
            let limits = explore::ExploreLimits {
                max_states: opts.budget.max_explored_states,
                deadline: Instant::now() + opts.budget.max_time,
                cancel: opts.cancel.clone(),
            };
            let reached = match explore::explore(program, &limits, progress_of(opts)) {
                Ok(r) => r,
                Err(explore::ExploreStop::Cancelled) => return Err(GroundError::Cancelled),
                Err(stop) => return Err(with_exploration(e, &stop)),
            };
            let (guarded, guards) = explore::guard(program, &reached);
            // Terms now come from the states play reaches, however deep: the limit counts
            // from the deepest of them (`next` of a terminal state, a view, may go deeper).
            let mut opts = opts.clone();
            opts.budget.max_term_depth = (opts.budget.max_term_depth).saturating_add(reached.depth);
            let (net, mut report) = ground(&guarded, Some(guards), &opts)?;
            report.explored = Some(Explored {
                states: reached.states,
                transitions: reached.transitions,
                fluents: reached.fluents.len(),
                moves: reached.moves.len(),
                because: match &e {
                    GroundError::Budget {
                        limit, relation, ..
                    } => format!("more than {limit} while grounding {relation}"),
                    other => other.to_string(),
                },
            });
            report.ground_time = t0.elapsed() - report.build_time;
            Ok((net, report))
        }
        other => other,
    }
}

/// A budget error with what exploring the reachable states instead ran into appended to
/// its detail.
fn with_exploration(mut e: GroundError, stop: &explore::ExploreStop) -> GroundError {
    if let GroundError::Budget { detail, .. } = &mut e {
        detail.push_str(&format!(
            "; enumerating the states play reaches instead stopped: {stop}"
        ));
    }
    e
}

/// Where `opts` reports progress (nowhere when it has no callback).
fn progress_of(opts: &CompileOptions) -> &dyn Fn(&str) {
    match &opts.progress {
        Some(p) => p.as_ref(),
        None => &|_: &str| {},
    }
}

/// Grounds `program` (with `true`/`does` restricted to what `guards` name, when given).
fn ground(
    program: &Program,
    guards: Option<explore::Guards>,
    opts: &CompileOptions,
) -> Result<(Netlist, CompileReport), GroundError> {
    let t0 = Instant::now();
    let relaxed = drop_visited::run(program);
    let relaxed = relaxed.as_ref().unwrap_or(program);
    let diagrams = diagram_filters::run(relaxed, diagram_filters::PAYS);
    let (source, filter_diagrams) = match diagrams {
        Some((p, d)) => (std::borrow::Cow::Owned(p), d),
        None => (std::borrow::Cow::Borrowed(relaxed), Vec::new()),
    };
    let low = rules::lower(&source, guards)?;
    let progress = progress_of(opts);
    let cancelled = |e: GroundError| match opts.cancel.is_cancelled() {
        true => GroundError::Cancelled,
        false => e,
    };
    let mut g = fixpoint::Grounder::new(&low, opts.budget.clone(), opts.cancel.clone(), progress);
    g.saturate().map_err(cancelled)?;
    g.drop_dynamic_indexes();
    let ground_time = t0.elapsed();
    let t1 = Instant::now();
    let table_bytes = g.used_bytes();
    let (mut net, counts) = build::build(&mut g).map_err(cancelled)?;
    let by_relation = stats::by_relation(&g, &net, &counts);
    let gates_made = net.gates.len();
    propnet_netlist::passes::remove_dead::run(&mut net);
    let gates_unread = gates_made - net.gates.len();
    // Validated once, by the caller's pipeline (and by the grounder's tests).
    let needed: Vec<_> = low.rel_sccs.iter().flatten().collect();
    let kind_count = |f: &dyn Fn(rules::RelKind) -> bool| {
        needed.iter().filter(|r| f(g.kind[r.0 as usize])).count()
    };
    let report = CompileReport {
        relations: needed.len(),
        static_relations: kind_count(&|k| k.is_static()),
        on_demand_relations: kind_count(&|k| k == rules::RelKind::OnDemand),
        demand_relations: kind_count(&|k| k == rules::RelKind::Demand),
        atoms: g.store.atoms.len(),
        calls: g.statics.calls(),
        answers: g.statics.answer_count(),
        terms: g.store.terms.len(),
        instances: counts.instances,
        cyclic_sccs: counts.cyclic_sccs,
        largest_cyclic_scc: counts.largest_cyclic_scc,
        unrolled_rounds: counts.rounds,
        ground_time,
        build_time: t1.elapsed(),
        table_bytes: table_bytes.max(g.used_bytes()),
        peak_bytes: g.peak_bytes(),
        table_entries: g.table_entries(),
        tables: g.table_bytes(),
        gates_made,
        gates_unread,
        stats: net.stats(),
        by_relation,
        filter_diagrams,
        explored: None,
    };
    Ok((net, report))
}
#[cfg(test)]
mod tests;
