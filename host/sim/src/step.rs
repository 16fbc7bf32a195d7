//! [`ProgramEvaluator`]: single states through the CPU backend's own compiled program
//! (its levelized core, goal and next phases and the bit-parallel evaluator), on one
//! 64-lane block whose lanes are all equal: `trace --backend cpu` checks the program the
//! playouts run, one state at a time.

use crate::eval::{fill_sums, read, run_phase, Block};
use crate::program::Program;
use propnet_netlist::{InputId, ValidNetlist};
use propnet_runtime::net_trace::{StepEvaluator, StepValues};

/// The CPU program of a netlist as a [`StepEvaluator`].
pub struct ProgramEvaluator {
    prog: Program,
    slots: Vec<Block<1>>,
}

impl ProgramEvaluator {
    /// Compiles `net`'s program.
    pub fn new(net: &ValidNetlist) -> Self {
        let prog = Program::compile(net, net.info());
        let slots = vec![[0u64; 1]; prog.slots];
        Self { prog, slots }
    }
}

impl StepEvaluator for ProgramEvaluator {
    fn view(&mut self, state: &[bool]) -> StepValues {
        let (p, vals) = (&self.prog, &mut self.slots);
        for (slot, &b) in vals.iter_mut().zip(state) {
            *slot = [if b { !0 } else { 0 }];
        }
        vals[p.latches..p.core.first_slot].fill([0]);
        run_phase(vals, &p.core);
        run_phase(vals, &p.goal);
        let on = |op| read(vals, op)[0] & 1 == 1;
        let legal = p
            .legal
            .iter()
            .map(|r| r.iter().filter(|(op, _)| on(*op)).map(|&(_, i)| InputId(i)))
            .map(Iterator::collect)
            .collect();
        let goals = p
            .goals
            .iter()
            .map(|r| {
                let mut g: Vec<u8> = r
                    .iter()
                    .filter(|(op, _)| on(*op))
                    .map(|&(_, v)| v)
                    .collect();
                g.sort_unstable();
                g
            })
            .collect();
        StepValues {
            terminal: on(p.terminal),
            legal,
            goals,
        }
    }

    fn next(&mut self, joint: &[InputId]) -> Vec<bool> {
        self.run_move(joint, false);
        let (p, vals) = (&self.prog, &self.slots);
        let next = p
            .next_state
            .iter()
            .map(|&op| read(vals, op)[0] & 1 == 1)
            .collect();
        self.clear_move(joint);
        next
    }

    fn percepts(&mut self, joint: &[InputId]) -> Vec<Vec<usize>> {
        self.run_move(joint, true);
        let (p, vals) = (&self.prog, &self.slots);
        let seen = p
            .percepts
            .iter()
            .map(|r| {
                r.iter()
                    .filter(|&&(op, _)| read(vals, op)[0] & 1 == 1)
                    .map(|&(_, k)| k as usize)
                    .collect()
            })
            .collect();
        self.clear_move(joint);
        seen
    }
}

impl ProgramEvaluator {
    /// Sets the inputs of `joint` (and the input sums) and runs the next phase, and the
    /// percept phase when `percepts`, in the state of the last view.
    fn run_move(&mut self, joint: &[InputId], percepts: bool) {
        let (p, vals) = (&self.prog, &mut self.slots);
        for m in joint {
            vals[p.input_base + m.index()] = [!0];
        }
        if !p.sums.is_empty() {
            let set: Vec<u32> = joint.iter().map(|m| m.0).collect();
            fill_sums(vals, p, &set, &[]);
        }
        run_phase(vals, &p.next);
        if percepts {
            run_phase(vals, &p.percept);
        }
    }

    /// Clears the inputs [`Self::run_move`] set.
    fn clear_move(&mut self, joint: &[InputId]) {
        for m in joint {
            self.slots[self.prog.input_base + m.index()] = [0];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use propnet_netlist::playout::{eval_gates, legal_of};
    use propnet_runtime::machine::NetMachine;
    use propnet_runtime::net_trace::ScalarEvaluator;

    /// The program and the scalar evaluation agree on every state of random tic-tac-toe
    /// playouts (view and transition), and the playouts really move and end.
    #[test]
    fn program_and_scalar_evaluation_agree() {
        let net = ValidNetlist::new(propnet_runtime::fixtures::tictactoe()).unwrap();
        let m = NetMachine::new(&net);
        let (mut prog, mut scalar) = (ProgramEvaluator::new(&net), ScalarEvaluator::new(&net));
        let mut ended = 0;
        for p in 0..8u32 {
            let mut s = m.initial_state();
            for step in 0..20u32 {
                let (a, b) = (prog.view(&s), scalar.view(&s));
                assert_eq!(a, b, "playout {p} step {step}");
                if a.terminal {
                    ended += 1;
                    break;
                }
                let joint: Vec<InputId> = a
                    .legal
                    .iter()
                    .enumerate()
                    .map(|(r, l)| l[(p as usize * 7 + step as usize * 3 + r) % l.len()])
                    .collect();
                let next = prog.next(&joint);
                assert_eq!(next, scalar.next(&joint));
                assert_ne!(next, s, "the state moves");
                s = next;
            }
        }
        assert_eq!(ended, 8);
        let v = eval_gates(&net, &m.initial_state(), &vec![false; net.inputs.len()]);
        assert_eq!(prog.view(&m.initial_state()).legal, legal_of(&net, &v));
    }
}
