//! Playout semantics shared by every backend, and a scalar reference implementation.
//!
//! A **playout** (rollout) starts from a state (latch values) and repeats, with `step`
//! counting joint moves from 0:
//! 1. If `terminal` holds, stop: [`PlayoutEnd::Terminal`].
//! 2. If `step == max_steps`, stop: [`PlayoutEnd::StepLimit`].
//! 3. For each role `r` in role order: let `L` be its legal moves (in netlist order, i.e.
//!    sorted by move text) that hold now. If `L` is empty, stop:
//!    [`PlayoutEnd::NoLegalMove`]. Else pick `L[choose(draw(seed, playout, step, r), |L|)]`
//!    (see [`crate::rng`]).
//! 4. Drive exactly the chosen inputs true, compute every latch's `next`, latch it,
//!    `step += 1`.
//!
//! On stopping, each role's **goal** is the largest value whose goal gate holds in the final
//! state, or 0 when none holds. The record keeps the number of joint moves made (`length`),
//! how it ended, the goals and the final state.
//!
//! Every backend (bit-parallel CPU, WGSL, Verilog) must produce identical
//! [`PlayoutRecord`]s for the same `(netlist, start, seed, playout index, max_steps)`;
//! [`reference_playout`] is the executable definition they are tested against.

use crate::rng::{choose, draw};
use crate::{Gate, GateId, Netlist};
use serde::{Deserialize, Serialize};

/// Why a playout stopped.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum PlayoutEnd {
    /// A terminal state was reached.
    Terminal,
    /// `max_steps` joint moves were made without reaching a terminal state.
    StepLimit,
    /// The role with this index had no legal move in a non-terminal state.
    NoLegalMove(u32),
}

/// The result of one playout.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct PlayoutRecord {
    /// Playout index (the RNG counter).
    pub index: u32,
    /// Number of joint moves made.
    pub length: u32,
    /// How it stopped.
    pub end: PlayoutEnd,
    /// Goal value per role (0..=100) in the final state.
    pub goals: Vec<u8>,
    /// Final state: bit `l % 64` of word `l / 64` is latch `l`.
    pub final_state: Vec<u64>,
}

/// Packs one bool per latch into 64-bit words (bit `l % 64` of word `l / 64`).
pub fn pack_state(state: &[bool]) -> Vec<u64> {
    let mut words = vec![0u64; state.len().div_ceil(64)];
    for (i, &b) in state.iter().enumerate() {
        if b {
            words[i / 64] |= 1 << (i % 64);
        }
    }
    words
}

/// Evaluates every gate of `net` for the given latch and input values (scalar, one bool per
/// gate). `latches.len()` must equal `net.latches.len()`, `inputs.len()` `net.inputs.len()`.
pub fn eval_gates(net: &Netlist, latches: &[bool], inputs: &[bool]) -> Vec<bool> {
    eval_lanes(net, latches, inputs)
}

/// A gate value over one state (`bool`) or over 64 states side by side (`u64`, state `k` in
/// bit `k`): the operations [`eval_lanes`] needs, lane by lane.
pub trait Lanes: Copy {
    /// `b` in every lane.
    fn splat(b: bool) -> Self;
    /// The complement in every lane.
    fn not(self) -> Self;
    /// The conjunction of the values `values[o]` of the gates `o` in `ops`, in every lane
    /// (true when `ops` is empty).
    fn all(ops: &[GateId], values: &[Self]) -> Self;
    /// Their disjunction in every lane (false when `ops` is empty).
    fn any(ops: &[GateId], values: &[Self]) -> Self;
}

impl Lanes for bool {
    fn splat(b: bool) -> Self {
        b
    }
    fn not(self) -> Self {
        !self
    }
    fn all(ops: &[GateId], values: &[Self]) -> Self {
        ops.iter().all(|o| values[o.index()])
    }
    fn any(ops: &[GateId], values: &[Self]) -> Self {
        ops.iter().any(|o| values[o.index()])
    }
}

impl Lanes for u64 {
    fn splat(b: bool) -> Self {
        0u64.wrapping_sub(b.into())
    }
    fn not(self) -> Self {
        !self
    }
    fn all(ops: &[GateId], values: &[Self]) -> Self {
        ops.iter().fold(!0, |acc, o| acc & values[o.index()])
    }
    fn any(ops: &[GateId], values: &[Self]) -> Self {
        ops.iter().fold(0, |acc, o| acc | values[o.index()])
    }
}

/// Evaluates every gate of `net`, in gate order, for the given latch and input values (one
/// [`Lanes`] value per gate: a state, or 64 states at once). `latches.len()` must equal
/// `net.latches.len()`, `inputs.len()` `net.inputs.len()`.
pub fn eval_lanes<T: Lanes>(net: &Netlist, latches: &[T], inputs: &[T]) -> Vec<T> {
    let mut v = vec![T::splat(false); net.gates.len()];
    for (i, g) in net.gates.iter().enumerate() {
        v[i] = match g {
            Gate::Const(c) => T::splat(*c),
            Gate::Input(x) => inputs[x.index()],
            Gate::Latch(l) => latches[l.index()],
            Gate::Not(a) => v[a.index()].not(),
            Gate::And(ops) => T::all(ops, &v),
            Gate::Or(ops) => T::any(ops, &v),
        };
    }
    v
}

/// Goal per role in a state whose gate values are `values`: the largest true goal value, or 0.
pub fn goals_of(net: &Netlist, values: &[bool]) -> Vec<u8> {
    goals_where(net, |g| values[g.index()])
}

/// [`goals_of`] for gate values read through `holds` (e.g. one lane of a word per gate).
pub fn goals_where(net: &Netlist, holds: impl Fn(crate::GateId) -> bool) -> Vec<u8> {
    net.roles
        .iter()
        .map(|r| {
            r.goals
                .iter()
                .rev()
                .find(|g| holds(g.gate))
                .map_or(0, |g| g.value)
        })
        .collect()
}

/// Legal moves per role (role order, each in netlist order) in a state whose gate values
/// are `values`.
pub fn legal_of(net: &Netlist, values: &[bool]) -> Vec<Vec<crate::InputId>> {
    net.roles
        .iter()
        .map(|r| {
            r.legal
                .iter()
                .filter(|l| values[l.gate.index()])
                .map(|l| l.input)
                .collect()
        })
        .collect()
}

/// Percepts per role (role order; indices into the role's `percepts`, ascending) after a
/// joint move, from gate values `values` computed with that move's inputs set (GDL-II).
pub fn percepts_of(net: &Netlist, values: &[bool]) -> Vec<Vec<usize>> {
    net.roles
        .iter()
        .map(|r| {
            (0..r.percepts.len())
                .filter(|&k| values[r.percepts[k].gate.index()])
                .collect()
        })
        .collect()
}

/// Runs playout number `index` from `start` (one bool per latch) with plain scalar gate
/// evaluation. Slow and obviously correct: the definition every backend is tested against.
pub fn reference_playout(
    net: &Netlist,
    start: &[bool],
    seed: u64,
    index: u32,
    max_steps: u32,
) -> PlayoutRecord {
    reference_playout_moves(net, start, seed, index, max_steps, |_, _| {})
}

/// [`reference_playout`], calling `moved(step, joint)` with each joint move made (one
/// input per role, role order), e.g. to check the moves a backend reports.
pub fn reference_playout_moves(
    net: &Netlist,
    start: &[bool],
    seed: u64,
    index: u32,
    max_steps: u32,
    mut moved: impl FnMut(u32, &[crate::InputId]),
) -> PlayoutRecord {
    let mut joint = Vec::with_capacity(net.roles.len());
    let mut state = start.to_vec();
    let no_inputs = vec![false; net.inputs.len()];
    let mut step = 0u32;
    loop {
        let values = eval_gates(net, &state, &no_inputs);
        let end = if values[net.terminal.index()] {
            Some(PlayoutEnd::Terminal)
        } else if step == max_steps {
            Some(PlayoutEnd::StepLimit)
        } else {
            None
        };
        let mut inputs = vec![false; net.inputs.len()];
        let mut stuck = None;
        joint.clear();
        if end.is_none() {
            for (r, role) in net.roles.iter().enumerate() {
                let legal: Vec<_> = role
                    .legal
                    .iter()
                    .filter(|l| values[l.gate.index()])
                    .collect();
                if legal.is_empty() {
                    stuck = Some(PlayoutEnd::NoLegalMove(r as u32));
                    break;
                }
                let k = choose(draw(seed, index, step, r as u32), legal.len() as u32);
                inputs[legal[k as usize].input.index()] = true;
                joint.push(legal[k as usize].input);
            }
        }
        if let Some(end) = end.or(stuck) {
            return PlayoutRecord {
                index,
                length: step,
                end,
                goals: goals_of(net, &values),
                final_state: pack_state(&state),
            };
        }
        moved(step, &joint);
        let values = eval_gates(net, &state, &inputs);
        state = net.latches.iter().map(|l| values[l.next.index()]).collect();
        step += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::random::{random_netlist, RandomSpec};
    use crate::rng::threefry2x32_20;

    #[test]
    fn word_lanes_equal_scalar_evaluation() {
        let word = |seed: u64, i: usize| {
            let [a, b] = threefry2x32_20([seed as u32, 7], [i as u32, 1]);
            u64::from(a) | (u64::from(b) << 32)
        };
        for seed in 0..8 {
            let net = random_netlist(seed, &RandomSpec::default());
            let latches: Vec<u64> = (0..net.latches.len()).map(|i| word(seed, i)).collect();
            let inputs: Vec<u64> = (0..net.inputs.len()).map(|i| word(!seed, i)).collect();
            let words = eval_lanes(&net, &latches, &inputs);
            let lane =
                |v: &[u64], k: usize| -> Vec<bool> { v.iter().map(|w| w >> k & 1 == 1).collect() };
            for k in 0..64 {
                let want = eval_gates(&net, &lane(&latches, k), &lane(&inputs, k));
                assert_eq!(lane(&words, k), want, "seed {seed} lane {k}");
            }
        }
    }
}
