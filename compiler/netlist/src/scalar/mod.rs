//! [`ScalarNet`]: a netlist flattened for evaluating one state at a time, as a search tree
//! does for every node it creates (the legal moves, terminal flag and goals of a state, and
//! the state after a joint move).
//!
//! [`crate::playout::eval_gates`] walks the whole gate arena, each `And`/`Or` behind a
//! pointer to its own operand vector, and allocates its results. Here the gates are an
//! opcode array with operand ranges into one flat array, and each question evaluates only
//! its cone: the *view cone* (terminal, legal and goal gates) or the *transition cone*
//! (every latch's `next`), into scratch space kept between calls. `And`/`Or` stop at the
//! first deciding operand. The values equal `eval_gates`'s on every gate of the cone.

use crate::{Gate, InputId, Netlist};

mod lanes;
pub use lanes::{Outputs, LANES};

/// Opcodes of [`ScalarNet`]; the operand range of `And`/`Or`, the operand of `Not`, the
/// latch or input index of `Latch`/`Input`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Op {
    False,
    True,
    Input,
    Latch,
    Not,
    And,
    Or,
}

/// A netlist flattened for scalar evaluation of one state (see the module docs). Shapes:
/// one opcode and one operand-range start per gate, the operands of all gates in one array.
#[derive(Clone, Debug)]
pub struct ScalarNet {
    op: Vec<Op>,
    /// `operands[start[g]..start[g + 1]]` are gate `g`'s operands (gate, latch or input
    /// indices by opcode).
    start: Vec<u32>,
    operands: Vec<u32>,
    /// Gates of the view cone, in topological (arena) order.
    view_cone: Vec<u32>,
    /// Gates of the transition cone, in topological order.
    next_cone: Vec<u32>,
    /// Gates of the percept cone (GDL-II; empty otherwise), in topological order.
    percept_cone: Vec<u32>,
    /// Gate values of the last evaluation (only its cone is meaningful).
    values: Vec<bool>,
    /// Input values: the joint move being evaluated, false otherwise.
    inputs: Vec<bool>,
    /// Gate values of the last lane-parallel evaluation ([`lanes`]): bit `l` is lane `l`.
    lane_values: Vec<u64>,
    /// Input words of the lane-parallel evaluation: bit `l` set where lane `l` plays it.
    lane_inputs: Vec<u64>,
}

impl ScalarNet {
    /// Flattens `net`: O(gates + edges) time and memory.
    pub fn new(net: &Netlist) -> Self {
        let mut op = Vec::with_capacity(net.gates.len());
        let mut start = Vec::with_capacity(net.gates.len() + 1);
        let mut operands = Vec::new();
        for g in &net.gates {
            start.push(operands.len() as u32);
            let (code, ops): (Op, &[crate::GateId]) = match g {
                Gate::Const(false) => (Op::False, &[]),
                Gate::Const(true) => (Op::True, &[]),
                Gate::Input(x) => {
                    operands.push(x.0);
                    (Op::Input, &[])
                }
                Gate::Latch(l) => {
                    operands.push(l.0);
                    (Op::Latch, &[])
                }
                Gate::Not(a) => (Op::Not, std::slice::from_ref(a)),
                Gate::And(v) => (Op::And, v),
                Gate::Or(v) => (Op::Or, v),
            };
            op.push(code);
            operands.extend(ops.iter().map(|o| o.0));
        }
        start.push(operands.len() as u32);
        let mut s = ScalarNet {
            op,
            start,
            operands,
            view_cone: Vec::new(),
            next_cone: Vec::new(),
            percept_cone: Vec::new(),
            values: vec![false; net.gates.len()],
            inputs: vec![false; net.inputs.len()],
            lane_values: Vec::new(),
            lane_inputs: Vec::new(),
        };
        let view_roots = std::iter::once(net.terminal.0).chain(net.roles.iter().flat_map(|r| {
            r.legal
                .iter()
                .map(|l| l.gate.0)
                .chain(r.goals.iter().map(|g| g.gate.0))
        }));
        s.view_cone = s.cone(view_roots);
        s.next_cone = s.cone(net.latches.iter().map(|l| l.next.0));
        s.percept_cone = s.cone(
            net.roles
                .iter()
                .flat_map(|r| r.percepts.iter().map(|p| p.gate.0)),
        );
        s
    }

    /// The gates `roots` depend on (themselves included), in arena order.
    fn cone(&self, roots: impl Iterator<Item = u32>) -> Vec<u32> {
        let mut needed = vec![false; self.op.len()];
        for r in roots {
            needed[r as usize] = true;
        }
        for g in (0..self.op.len()).rev() {
            if needed[g] && matches!(self.op[g], Op::Not | Op::And | Op::Or) {
                for &o in self.ops(g) {
                    needed[o as usize] = true;
                }
            }
        }
        (0..self.op.len() as u32)
            .filter(|&g| needed[g as usize])
            .collect()
    }

    fn ops(&self, g: usize) -> &[u32] {
        &self.operands[self.start[g] as usize..self.start[g + 1] as usize]
    }

    /// Evaluates the gates of `cone` for latch values `state`.
    fn run(&mut self, cone: Cone, state: &[bool]) {
        let list = match cone {
            Cone::View => &self.view_cone,
            Cone::Next => &self.next_cone,
            Cone::Percept => &self.percept_cone,
        };
        let v = &mut self.values;
        for &g in list {
            let g = g as usize;
            let ops = &self.operands[self.start[g] as usize..self.start[g + 1] as usize];
            v[g] = match self.op[g] {
                Op::False => false,
                Op::True => true,
                Op::Input => self.inputs[ops[0] as usize],
                Op::Latch => state[ops[0] as usize],
                Op::Not => !v[ops[0] as usize],
                Op::And => ops.iter().all(|&o| v[o as usize]),
                Op::Or => ops.iter().any(|&o| v[o as usize]),
            };
        }
    }

    /// Evaluates the view cone of `state` (one bool per latch) and returns the gate values,
    /// meaningful on that cone: read them with [`crate::playout::legal_of`],
    /// [`crate::playout::goals_of`] and `values[net.terminal]`.
    pub fn view(&mut self, state: &[bool]) -> &[bool] {
        self.run(Cone::View, state);
        &self.values
    }

    /// The state after the inputs `joint` (one per role) are played in `state`: one bool
    /// per latch of `net` (the netlist this was built from).
    pub fn next_state(&mut self, net: &Netlist, state: &[bool], joint: &[InputId]) -> Vec<bool> {
        for m in joint {
            self.inputs[m.index()] = true;
        }
        self.run(Cone::Next, state);
        for m in joint {
            self.inputs[m.index()] = false;
        }
        net.latches
            .iter()
            .map(|l| self.values[l.next.index()])
            .collect()
    }
}

impl ScalarNet {
    /// [`ScalarNet::next_state`] and the percepts (GDL-II) each role gets from the joint
    /// move: per role, indices into its `percepts` list whose gate holds, ascending (see
    /// [`crate::playout::percepts_of`]).
    pub fn next_with_percepts(
        &mut self,
        net: &Netlist,
        state: &[bool],
        joint: &[InputId],
    ) -> (Vec<bool>, Vec<Vec<usize>>) {
        for m in joint {
            self.inputs[m.index()] = true;
        }
        self.run(Cone::Next, state);
        self.run(Cone::Percept, state);
        for m in joint {
            self.inputs[m.index()] = false;
        }
        let next = net
            .latches
            .iter()
            .map(|l| self.values[l.next.index()])
            .collect();
        (next, crate::playout::percepts_of(net, &self.values))
    }
}

/// Which cone [`ScalarNet::run`] evaluates.
#[derive(Copy, Clone)]
enum Cone {
    View,
    Next,
    Percept,
}

/// The (state, joint move) pairs of `walks` random walks of `net` from its initial state,
/// at most `max_steps` joint moves each and `cap` pairs in all: each role's move drawn with
/// the project RNG ([`crate::rng::draw`]`(seed, walk, step, role)` and
/// [`crate::rng::choose`]); a walk ends at a terminal state or where a role has no legal
/// move. For checks of other evaluations of single transitions (the GPU step kernel, the
/// Verilog percept module) against [`ScalarNet::next_with_percepts`].
pub fn random_transitions(
    net: &Netlist,
    seed: u64,
    (walks, max_steps): (u32, u32),
    cap: usize,
) -> Vec<(Vec<bool>, Vec<InputId>)> {
    use crate::playout::legal_of;
    use crate::rng::{choose, draw};
    let mut scalar = ScalarNet::new(net);
    let mut out = Vec::new();
    for w in 0..walks {
        let mut s = net.initial_state();
        for t in 0..max_steps {
            let values = scalar.view(&s);
            let legal = legal_of(net, values);
            if values[net.terminal.index()] || legal.iter().any(Vec::is_empty) {
                break;
            }
            if out.len() >= cap {
                return out;
            }
            let joint: Vec<InputId> = (legal.iter().enumerate())
                .map(|(r, ms)| ms[choose(draw(seed, w, t, r as u32), ms.len() as u32) as usize])
                .collect();
            out.push((s.clone(), joint.clone()));
            s = scalar.next_state(net, &s, &joint);
        }
    }
    out
}

/// Pseudo-random bits (xorshift) for the tests' states and moves.
#[cfg(test)]
fn bits(seed: u64) -> impl FnMut() -> bool {
    let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x & 1 == 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::playout::{eval_gates, goals_of, legal_of};
    use crate::random::{random_netlist, RandomSpec};

    /// On random netlists, states and joint moves, the cones' values equal `eval_gates`'s.
    #[test]
    fn equals_eval_gates_on_its_cones() {
        for seed in 0..40u64 {
            let spec = RandomSpec {
                percepts_per_role: (seed % 3) as usize * 2,
                ..RandomSpec::default()
            };
            let net = random_netlist(seed, &spec);
            let mut s = ScalarNet::new(&net);
            let mut bit = bits(seed);
            for _ in 0..8 {
                let state: Vec<bool> = net.latches.iter().map(|_| bit()).collect();
                let want = eval_gates(&net, &state, &vec![false; net.inputs.len()]);
                let got = s.view(&state).to_vec();
                assert_eq!(legal_of(&net, &got), legal_of(&net, &want), "seed {seed}");
                assert_eq!(goals_of(&net, &got), goals_of(&net, &want), "seed {seed}");
                assert_eq!(got[net.terminal.index()], want[net.terminal.index()]);
                let joint: Vec<InputId> = net
                    .roles
                    .iter()
                    .filter_map(|r| r.legal.iter().find(|_| bit()).map(|l| l.input))
                    .collect();
                let mut inputs = vec![false; net.inputs.len()];
                for m in &joint {
                    inputs[m.index()] = true;
                }
                let all = eval_gates(&net, &state, &inputs);
                let next: Vec<bool> = net.latches.iter().map(|l| all[l.next.index()]).collect();
                assert_eq!(s.next_state(&net, &state, &joint), next, "seed {seed}");
                let percepts = crate::playout::percepts_of(&net, &all);
                assert_eq!(
                    s.next_with_percepts(&net, &state, &joint),
                    (next, percepts),
                    "seed {seed}"
                );
            }
        }
    }
}
