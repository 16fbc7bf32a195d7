//! [`find_factors`]: the independent subgames of a netlist, found from its dependency
//! structure (a game that is a sum of games, such as two boards played side by side).
//!
//! Günther, Schiffel & Thielscher ("Factoring General Games", GIGA 2009) factor the rules'
//! dependency graph; Sancho (Draper & Rose, 2014) factors the propnet. Here the netlist is
//! the graph, and a factor is a set of latches and inputs closed under the transition and
//! the legality of its moves:
//!
//! 1. **Shared latches** are those whose next value depends on no move, directly or through
//!    other latches (a turn marker, a step counter): every factor may read them, none owns
//!    them. The others are *move-dependent*.
//! 2. Two move-dependent latches are in one *component* when one's `next` reads the other,
//!    or both read a common move-dependent latch (union-find over the gates of the `next`
//!    cones, each gate joined with its operands that read a move-dependent latch; inputs
//!    and shared latches join nothing).
//! 3. An input *touches* the components whose `next` cones read it and those its `legal`
//!    gate reads. An input touching one component is that component's own move; one
//!    touching none is *inert* (it changes no state: a pass); one touching several is
//!    *crossing* (a `noop` that keeps the blanks of whichever board its role is on).
//! 4. A component without a move of its own is merged with the components its crossing
//!    inputs touch, until every factor has a move of its own. The goal and terminal gates
//!    join nothing: they are where the subgames meet.
//!
//! So each factor's next state and its own moves' legality are functions of its own
//! latches, the shared latches and the inputs that touch it (its own and the crossing ones);
//! `tests/tests/corpus/factors.rs` checks that on every corpus game by simulating each
//! factor apart. A factor whose latches reach no goal, no terminal and no legal gate is
//! *irrelevant*: its moves cannot change the outcome ([`outcome_free_moves`] finds such
//! moves, and inert ones, directly).
//!
//! Time O(gates + edges) plus the component sets of the gates that mix inputs or feed
//! `legal` (at most [`MAX_LISTED`] components each; a gate that reads more makes the whole
//! game one factor).

mod graph;
mod merge;
mod restrict;

use crate::{Gate, GateId, InputId, LatchId, Netlist};
use graph::{components, cone, move_dependent, reads_moving_latch, touched_components};
use merge::{group, joined_by_outcome, mark_relevant};
pub use restrict::{factor_game, FactorGame, ELSEWHERE};

/// The most components one gate's set lists before the analysis gives up on factoring
/// (the whole game is then one factor).
pub const MAX_LISTED: usize = 64;

/// The factors of a netlist (see the module docs).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Factors {
    /// The independent subgames, ordered by their first latch. One factor means the game
    /// does not factor; none means no latch depends on a move.
    pub factors: Vec<Factor>,
    /// Latches whose next value depends on no move (turn markers, step counters), sorted.
    pub shared: Vec<LatchId>,
    /// Inputs that touch several factors, sorted.
    pub crossing: Vec<InputId>,
    /// Inputs that touch no factor: moves that change no move-dependent fluent and whose
    /// legality reads none, sorted.
    pub inert: Vec<InputId>,
    /// True when a gate read more than [`MAX_LISTED`] components, so the analysis stopped
    /// and made the game one factor.
    pub gave_up: bool,
}

/// One independent subgame: its latches and its own moves.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Factor {
    /// Move-dependent latches of this factor, sorted.
    pub latches: Vec<LatchId>,
    /// Inputs that touch this factor only, sorted.
    pub inputs: Vec<InputId>,
    /// False when the factor's latches reach no goal, no terminal and no legal gate: its
    /// moves cannot change the outcome of the game.
    pub relevant: bool,
}

impl Factors {
    /// True when the game splits into two or more factors.
    pub fn is_factored(&self) -> bool {
        self.factors.len() >= 2
    }

    /// The factor that input `i` belongs to (`None` for a crossing or inert input).
    pub fn factor_of_input(&self, i: InputId) -> Option<usize> {
        self.factors
            .iter()
            .position(|f| f.inputs.binary_search(&i).is_ok())
    }
}

/// Finds the factors of `net`, which must be valid ([`crate::validate`]). See the module
/// docs for the definition; O(gates + edges) time and memory besides the component sets.
pub fn find_factors(net: &Netlist) -> Factors {
    let moving = move_dependent(net);
    let reads_moving = reads_moving_latch(net, &moving);
    let in_next = cone(
        net,
        net.latches
            .iter()
            .zip(&moving)
            .filter(|p| *p.1)
            .map(|p| p.0.next),
    );
    let (comp, count) = components(net, &moving, &reads_moving, &in_next);
    let touched = touched_components(net, &moving, &reads_moving, &in_next, &comp);
    let shared = (0..net.latches.len())
        .filter(|&l| !moving[l])
        .map(|l| LatchId(l as u32))
        .collect();
    let (joined, overflow) = joined_by_outcome(net, &moving, &comp, count);
    let mut out = group(net, &moving, &comp, count, &touched, &joined);
    out.shared = shared;
    out.gave_up |= overflow;
    mark_relevant(net, &mut out);
    out
}

/// Per input of `net` (valid): true when the move can never change the outcome of the
/// game. Such a move changes only latches that reach no goal, no terminal and no legal
/// gate, not even through other latches' `next` (a move of an irrelevant factor, an inert
/// `noop`), so any two of one role's such moves lead to states that agree on everything
/// the game will ever ask: a search may keep one of them. O(gates + edges): a search from
/// the goal, terminal and legal gates back through the gates and the latches' `next`.
pub fn outcome_free_moves(net: &Netlist) -> Vec<bool> {
    let mut seen = vec![false; net.gates.len()];
    let mut stack: Vec<GateId> = net
        .roles
        .iter()
        .flat_map(|r| {
            let legal = r.legal.iter().map(|l| l.gate);
            legal.chain(r.goals.iter().map(|g| g.gate))
        })
        .chain([net.terminal])
        .collect();
    let mut free = vec![true; net.inputs.len()];
    while let Some(g) = stack.pop() {
        if std::mem::replace(&mut seen[g.index()], true) {
            continue;
        }
        match net.gate(g) {
            Gate::Latch(l) => stack.push(net.latches[l.index()].next),
            Gate::Input(i) => free[i.index()] = false,
            gate => stack.extend(gate.operands().iter().filter(|o| !seen[o.index()])),
        }
    }
    free
}
