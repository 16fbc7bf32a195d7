//! [`factor_game`]: one factor of a sum played alone, for a search that looks at the
//! factors apart (Sancho's per-factor trees, Draper & Rose 2014).
//!
//! The factor game of factor `f` is the game where nobody plays in the other factors: their
//! own moves are never legal, so their latches change only as the crossing moves and the
//! shared latches make them (in a sum, not at all). A role that had a legal move in another
//! factor gets a *pseudo-noop* instead, [`ELSEWHERE`], legal exactly when one of those
//! moves was: "I play elsewhere". It drives nothing, so it is a pass within the factor. A
//! role that has an inert move legal in every state (a `noop` whose `legal` is constant
//! true) plays elsewhere by that move instead: a second pass would only double the passes
//! of the factor game's random rollouts.
//! Latches, their order, the inputs and their ids are those of the whole game (the pseudo-
//! noops come after them), so a state of the game is a state of every factor game and a
//! move of a factor game other than a pseudo-noop is a move of the game.

use super::Factors;
use crate::{Gate, Input, InputId, Legal, Netlist, RoleId};

/// Move text of the pseudo-noop a factor game adds (a prime is appended while a role
/// already has a move of that text).
pub const ELSEWHERE: &str = "(elsewhere)";

/// A factor game ([`factor_game`]).
#[derive(Clone, Debug)]
pub struct FactorGame {
    /// The factor (index into [`Factors::factors`]).
    pub factor: usize,
    /// The game with only the factor's own, crossing and inert moves legal, plus the
    /// pseudo-noops. Valid when the game is.
    pub net: Netlist,
    /// Per role that has moves in other factors, the input that stands for them: its
    /// pseudo-noop, or its always-legal inert move.
    pub elsewhere: Vec<Option<InputId>>,
    /// Per input of `net`: true for the factor's own moves.
    pub own: Vec<bool>,
}

/// The factor game of factor `f` of `net` (see the module docs); `factors` must be
/// [`super::find_factors`]`(net)` and `f < factors.factors.len()`. O(inputs + legal
/// entries); the gates are copied once.
pub fn factor_game(net: &Netlist, factors: &Factors, f: usize) -> FactorGame {
    let mut owner: Vec<Option<usize>> = vec![None; net.inputs.len()];
    for (k, factor) in factors.factors.iter().enumerate() {
        for i in &factor.inputs {
            owner[i.index()] = Some(k);
        }
    }
    let mut game = net.clone();
    let mut elsewhere = vec![None; net.roles.len()];
    for (r, slot) in elsewhere.iter_mut().enumerate() {
        let (kept, other): (Vec<Legal>, Vec<Legal>) = net.roles[r]
            .legal
            .iter()
            .cloned()
            .partition(|l| owner[l.input.index()].is_none_or(|k| k == f));
        let always = kept.iter().find(|l| {
            factors.inert.binary_search(&l.input).is_ok()
                && matches!(net.gate(l.gate), Gate::Const(true))
        });
        let always = always.map(|l| l.input);
        game.roles[r].legal = kept;
        if other.is_empty() || always.is_some() {
            *slot = always.filter(|_| !other.is_empty());
            continue;
        }
        let gate = game.push(Gate::Or(other.iter().map(|l| l.gate).collect()));
        let role = RoleId(r as u32);
        let name = unused_name(net, role);
        let input = InputId(game.inputs.len() as u32);
        let at = game.roles[r]
            .legal
            .partition_point(|l| net.inputs[l.input.index()].name.as_bytes() < name.as_bytes());
        game.inputs.push(Input { role, name });
        game.roles[r].legal.insert(at, Legal { input, gate });
        game.push(Gate::Input(input));
        *slot = Some(input);
    }
    let own = (0..game.inputs.len())
        .map(|i| owner.get(i).copied().flatten() == Some(f))
        .collect();
    FactorGame {
        factor: f,
        net: game,
        elsewhere,
        own,
    }
}

/// [`ELSEWHERE`], with primes appended while one of `role`'s moves has that text.
fn unused_name(net: &Netlist, role: RoleId) -> String {
    let mut name = ELSEWHERE.to_string();
    while net.inputs.iter().any(|i| i.role == role && i.name == name) {
        name.push('\'');
    }
    name
}
