//! Lane-parallel evaluation: up to [`LANES`] states at once, bit `l` of every gate's word
//! being state `l` (the layout of the bit-parallel simulator, on one word). A search that
//! creates a batch of nodes evaluates their transitions and views in one pass of each cone
//! instead of one pass per node: the same gate loop, a word operation per operand, no
//! short-circuit.

use super::{Cone, Op, ScalarNet};
use crate::{InputId, Netlist};

/// States evaluated per pass of a cone (bits of a word).
pub const LANES: usize = 64;

/// What one state offers, read from the view cone: the terminal flag, every role's legal
/// inputs (role order, netlist order) and goal values (largest true goal, 0 if none), as
/// [`crate::playout::legal_of`] and [`crate::playout::goals_of`] read them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outputs {
    /// `terminal` holds.
    pub terminal: bool,
    /// Legal inputs per role.
    pub legal: Vec<Vec<InputId>>,
    /// Goal value per role, 0..=100.
    pub goals: Vec<u8>,
}

impl ScalarNet {
    /// Evaluates `cone` on the latch words `latches` (one word per latch) and the input
    /// words in `lane_inputs`.
    fn run_lanes(&mut self, cone: Cone, latches: &[u64]) {
        let list = match cone {
            Cone::View => &self.view_cone,
            Cone::Next => &self.next_cone,
            Cone::Percept => &self.percept_cone,
        };
        self.lane_values.resize(self.op.len(), 0);
        let v = &mut self.lane_values;
        for &g in list {
            let g = g as usize;
            let ops = &self.operands[self.start[g] as usize..self.start[g + 1] as usize];
            v[g] = match self.op[g] {
                Op::False => 0,
                Op::True => !0,
                Op::Input => self.lane_inputs[ops[0] as usize],
                Op::Latch => latches[ops[0] as usize],
                Op::Not => !v[ops[0] as usize],
                Op::And => ops.iter().fold(!0, |a, &o| a & v[o as usize]),
                Op::Or => ops.iter().fold(0, |a, &o| a | v[o as usize]),
            };
        }
    }

    /// The states after each `(state, joint)` of `pairs` (a state: one bool per latch of
    /// `net`, the netlist this was built from; a joint move: one input per role), in
    /// order; [`LANES`] pairs per pass of the transition cone. Equal to
    /// [`ScalarNet::next_state`] of each pair.
    pub fn next_states(
        &mut self,
        net: &Netlist,
        pairs: &[(&[bool], &[InputId])],
    ) -> Vec<Vec<bool>> {
        let mut out = Vec::with_capacity(pairs.len());
        self.lane_inputs.resize(net.inputs.len(), 0);
        for chunk in pairs.chunks(LANES) {
            let latches = transpose(net.latches.len(), chunk.iter().map(|p| p.0));
            for (l, (_, joint)) in chunk.iter().enumerate() {
                for m in *joint {
                    self.lane_inputs[m.index()] |= 1 << l;
                }
            }
            self.run_lanes(Cone::Next, &latches);
            for (_, joint) in chunk {
                for m in *joint {
                    self.lane_inputs[m.index()] = 0;
                }
            }
            let v = &self.lane_values;
            out.extend((0..chunk.len()).map(|l| {
                net.latches
                    .iter()
                    .map(|x| v[x.next.index()] >> l & 1 == 1)
                    .collect()
            }));
        }
        out
    }

    /// The [`Outputs`] of each of `states` (one bool per latch), in order; [`LANES`]
    /// states per pass of the view cone. Equal to reading [`ScalarNet::view`] of each.
    pub fn views(&mut self, net: &Netlist, states: &[&[bool]]) -> Vec<Outputs> {
        let mut out = Vec::with_capacity(states.len());
        for chunk in states.chunks(LANES) {
            let latches = transpose(net.latches.len(), chunk.iter().copied());
            self.run_lanes(Cone::View, &latches);
            let v = &self.lane_values;
            let bit = |g: crate::GateId, l: usize| v[g.index()] >> l & 1 == 1;
            let first = out.len();
            out.extend((0..chunk.len()).map(|l| Outputs {
                terminal: bit(net.terminal, l),
                legal: vec![Vec::new(); net.roles.len()],
                goals: crate::playout::goals_where(net, |g| bit(g, l)),
            }));
            // Legal entries word by word: O(entries + moves found), not entries × lanes.
            for (r, role) in net.roles.iter().enumerate() {
                for e in &role.legal {
                    let mut w = v[e.gate.index()] & mask(chunk.len());
                    while w != 0 {
                        let l = w.trailing_zeros() as usize;
                        w &= w - 1;
                        out[first + l].legal[r].push(e.input);
                    }
                }
            }
        }
        out
    }
}

/// Bits `0..n` set.
fn mask(n: usize) -> u64 {
    if n >= 64 {
        !0
    } else {
        (1 << n) - 1
    }
}

/// One word per latch: bit `l` is latch value of the `l`-th state (at most 64 states).
fn transpose<'a>(latches: usize, states: impl Iterator<Item = &'a [bool]>) -> Vec<u64> {
    let mut words = vec![0u64; latches];
    for (l, s) in states.enumerate() {
        for (w, &b) in words.iter_mut().zip(s) {
            *w |= u64::from(b) << l;
        }
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::playout::{goals_of, legal_of};
    use crate::random::{random_netlist, RandomSpec};

    /// On random netlists, batches of 0..=130 states (three passes and a part) give what
    /// the one-state evaluation gives, state by state and pair by pair.
    #[test]
    fn lanes_equal_one_state_at_a_time() {
        for seed in 0..24u64 {
            let net = random_netlist(seed, &RandomSpec::default());
            let mut s = ScalarNet::new(&net);
            let mut bit = super::super::bits(seed);
            let n = (seed as usize * 37) % 131;
            let states: Vec<Vec<bool>> = (0..n)
                .map(|_| net.latches.iter().map(|_| bit()).collect())
                .collect();
            let joints: Vec<Vec<InputId>> = (0..n)
                .map(|_| {
                    net.roles
                        .iter()
                        .filter_map(|r| r.legal.iter().find(|_| bit()).map(|l| l.input))
                        .collect()
                })
                .collect();
            let refs: Vec<&[bool]> = states.iter().map(Vec::as_slice).collect();
            let got = s.views(&net, &refs);
            let pairs: Vec<(&[bool], &[InputId])> = refs
                .iter()
                .zip(&joints)
                .map(|(s, j)| (*s, j.as_slice()))
                .collect();
            let next = s.next_states(&net, &pairs);
            assert_eq!((got.len(), next.len()), (n, n));
            for i in 0..n {
                let values = s.view(&states[i]).to_vec();
                let want = Outputs {
                    terminal: values[net.terminal.index()],
                    legal: legal_of(&net, &values),
                    goals: goals_of(&net, &values),
                };
                assert_eq!(got[i], want, "seed {seed} state {i}");
                let one = s.next_state(&net, &states[i], &joints[i]);
                assert_eq!(next[i], one, "seed {seed} pair {i}");
            }
        }
    }
}
