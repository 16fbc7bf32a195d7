//! Compiles a netlist into a flat, phase-split program over lane words.
//!
//! Every value lives in one slot of a word array (one bit per playout lane). Slot layout:
//! `0..L` the latches (current state), `L` the constant-false slot, `L+1..L+1+I` the
//! inputs, then one slot per instruction in program order. An *operand* is
//! `slot << 1 | negate`: `Not` gates never become instructions, they flip the negate bit of
//! their readers; single-operand `And`/`Or` gates are aliases; constants fold away.
//!
//! Instructions are n-ary `And`/`Or` over an operand range of one flat array (no per-gate
//! allocation), split in three phases so each needed gate is evaluated once per step:
//! - **core**: everything `legal` and `terminal` need, plus gates needed both by goals and
//!   by the transition; evaluated every step before inputs are set;
//! - **goal**: gates only goals need; evaluated only on steps where some lane finishes;
//! - **next**: the rest of what latch `next` functions need (reads inputs); evaluated after
//!   the joint move is set.

use propnet_netlist::{Gate, GateId, Netlist};

/// An operand: `slot << 1 | negate`.
pub type Operand = u32;

/// The slot an operand reads.
#[inline(always)]
pub fn slot(op: Operand) -> usize {
    (op >> 1) as usize
}

/// One phase: instruction `k` writes slot `first_slot + k`.
#[derive(Clone, Debug, Default)]
pub struct Phase {
    /// Slot written by the first instruction.
    pub first_slot: usize,
    /// Per instruction: `operand_count << 1 | is_or`.
    pub codes: Vec<u32>,
    /// Operands of all instructions, concatenated in instruction order.
    pub args: Vec<Operand>,
}

impl Phase {
    /// Number of instructions.
    pub fn len(&self) -> usize {
        self.codes.len()
    }
    /// True when the phase has no instruction.
    pub fn is_empty(&self) -> bool {
        self.codes.is_empty()
    }
}

/// A compiled netlist, ready for the bit-parallel evaluator.
#[derive(Clone, Debug)]
pub struct Program {
    /// Number of latches (slots `0..latches`).
    pub latches: usize,
    /// Slot of input 0; input `i` is slot `input_base + i`.
    pub input_base: usize,
    /// Number of inputs.
    pub inputs: usize,
    /// Total slots.
    pub slots: usize,
    /// Gates needed for legal/terminal (and shared goal/next logic).
    pub core: Phase,
    /// Gates only goals need.
    pub goal: Phase,
    /// Gates only latch next values need.
    pub next: Phase,
    /// Terminal output.
    pub terminal: Operand,
    /// Per role: (operand, input index) of each legal move in choice order.
    pub legal: Vec<Vec<(Operand, u32)>>,
    /// Per role: (operand, value) of each goal, by value descending.
    pub goals: Vec<Vec<(Operand, u8)>>,
    /// Per latch: operand giving its next value.
    pub next_state: Vec<Operand>,
}

/// Where a gate's value comes from once compiled.
#[derive(Copy, Clone, Debug)]
enum Src {
    /// Operand of an existing slot (maybe negated).
    Op(Operand),
    /// An `And`/`Or` instruction not yet placed.
    Pending,
}

impl Program {
    /// Compiles a validated netlist (`propnet_netlist::validate` passed).
    pub fn compile(net: &Netlist) -> Program {
        let n = net.gates.len();
        let l = net.latches.len();
        let zero = l as u32;
        let input_base = l + 1;
        let false_op: Operand = zero << 1;
        let true_op: Operand = false_op | 1;

        // 1. Resolve leaves, Not and trivial And/Or to operands; the rest are pending.
        let mut src = vec![Src::Pending; n];
        // Simplified operand list per pending gate (constants folded, duplicates removed).
        let mut ops: Vec<Vec<GateId>> = vec![Vec::new(); n];
        for (i, g) in net.gates.iter().enumerate() {
            src[i] = match g {
                Gate::Const(b) => Src::Op(if *b { true_op } else { false_op }),
                Gate::Latch(x) => Src::Op((x.0) << 1),
                Gate::Input(x) => Src::Op(((input_base as u32) + x.0) << 1),
                Gate::Not(a) => match src[a.index()] {
                    Src::Op(o) => Src::Op(o ^ 1),
                    Src::Pending => Src::Pending,
                },
                Gate::And(v) | Gate::Or(v) => {
                    let is_or = matches!(g, Gate::Or(_));
                    // Absorbing / neutral constants.
                    let (absorb, neutral) = if is_or {
                        (true_op, false_op)
                    } else {
                        (false_op, true_op)
                    };
                    let mut kept = Vec::with_capacity(v.len());
                    let mut absorbed = false;
                    for &o in v {
                        match resolved(&src, o) {
                            Some(x) if x == absorb => absorbed = true,
                            Some(x) if x == neutral => {}
                            _ => kept.push(o),
                        }
                    }
                    kept.sort_unstable();
                    kept.dedup();
                    if absorbed {
                        Src::Op(absorb)
                    } else if kept.is_empty() {
                        Src::Op(neutral)
                    } else if kept.len() == 1 {
                        match resolved(&src, kept[0]) {
                            Some(x) => Src::Op(x),
                            None => {
                                ops[i] = kept;
                                Src::Pending
                            }
                        }
                    } else {
                        ops[i] = kept;
                        Src::Pending
                    }
                }
            };
        }
        // A Not of a pending gate, or a 1-operand And/Or of a pending gate, refers through
        // to the underlying instruction gate. `base[i]` = (instruction gate, negate).
        let mut base: Vec<(u32, bool)> = (0..n as u32).map(|i| (i, false)).collect();
        for (i, g) in net.gates.iter().enumerate() {
            if !matches!(src[i], Src::Pending) {
                continue;
            }
            match g {
                Gate::Not(a) => {
                    let (b, neg) = base[a.index()];
                    base[i] = (b, !neg);
                }
                Gate::And(_) | Gate::Or(_) if ops[i].len() == 1 => {
                    base[i] = base[ops[i][0].index()]
                }
                _ => {}
            }
        }

        // 2. Needed sets: closures over instruction gates from the roots.
        let closure = |roots: &mut dyn Iterator<Item = GateId>| -> Vec<bool> {
            let mut mark = vec![false; n];
            let mut stack: Vec<u32> = Vec::new();
            for r in roots {
                if matches!(src[r.index()], Src::Pending) {
                    stack.push(base[r.index()].0);
                }
            }
            while let Some(g) = stack.pop() {
                if std::mem::replace(&mut mark[g as usize], true) {
                    continue;
                }
                for &o in &ops[g as usize] {
                    if matches!(src[o.index()], Src::Pending) {
                        let b = base[o.index()].0;
                        if !mark[b as usize] {
                            stack.push(b);
                        }
                    }
                }
            }
            mark
        };
        let lt = closure(
            &mut net
                .roles
                .iter()
                .flat_map(|r| r.legal.iter().map(|x| x.gate))
                .chain([net.terminal]),
        );
        let go = closure(
            &mut net
                .roles
                .iter()
                .flat_map(|r| r.goals.iter().map(|x| x.gate)),
        );
        let nx = closure(&mut net.latches.iter().map(|x| x.next));

        // 3. Place instructions phase by phase in arena (topological) order.
        let mut slot_of = vec![u32::MAX; n];
        let mut next_slot = input_base + net.inputs.len();
        let mut phases: [Phase; 3] = Default::default();
        for (p, phase) in phases.iter_mut().enumerate() {
            phase.first_slot = next_slot;
            for i in 0..n {
                if !matches!(src[i], Src::Pending) || base[i].0 as usize != i || ops[i].is_empty() {
                    continue;
                }
                let core = lt[i] || (go[i] && nx[i]);
                let member = match p {
                    0 => core,
                    1 => !core && go[i],
                    _ => !core && !go[i] && nx[i],
                };
                if !member {
                    continue;
                }
                let is_or = matches!(net.gates[i], Gate::Or(_));
                phase
                    .codes
                    .push(((ops[i].len() as u32) << 1) | u32::from(is_or));
                for &o in &ops[i] {
                    let op = operand(&src, &base, &slot_of, o);
                    phase.args.push(op);
                }
                slot_of[i] = next_slot as u32;
                next_slot += 1;
            }
        }
        let op_of = |g: GateId| operand(&src, &base, &slot_of, g);
        let [core, goal, next] = phases;
        Program {
            latches: l,
            input_base,
            inputs: net.inputs.len(),
            slots: next_slot,
            core,
            goal,
            next,
            terminal: op_of(net.terminal),
            legal: net
                .roles
                .iter()
                .map(|r| r.legal.iter().map(|x| (op_of(x.gate), x.input.0)).collect())
                .collect(),
            goals: net
                .roles
                .iter()
                .map(|r| {
                    r.goals
                        .iter()
                        .rev()
                        .map(|x| (op_of(x.gate), x.value))
                        .collect()
                })
                .collect(),
            next_state: net.latches.iter().map(|x| op_of(x.next)).collect(),
        }
    }

    /// Number of instructions over all phases.
    pub fn instructions(&self) -> usize {
        self.core.len() + self.goal.len() + self.next.len()
    }
}

/// The operand of gate `g` if it is already known without placing instructions.
fn resolved(src: &[Src], g: GateId) -> Option<Operand> {
    match src[g.index()] {
        Src::Op(o) => Some(o),
        Src::Pending => None,
    }
}

/// The operand of gate `g` after its instruction has been placed.
fn operand(src: &[Src], base: &[(u32, bool)], slot_of: &[u32], g: GateId) -> Operand {
    match src[g.index()] {
        Src::Op(o) => o,
        Src::Pending => {
            let (b, neg) = base[g.index()];
            let s = slot_of[b as usize];
            debug_assert!(s != u32::MAX, "gate g{b} used before placement");
            (s << 1) | u32::from(neg)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use propnet_netlist::random::{random_netlist, RandomSpec};

    /// Each logic gate becomes at most one instruction (Not gates none), every operand
    /// reads an earlier slot, and phases are laid out back to back.
    #[test]
    fn instructions_are_few_and_ordered() {
        for seed in 0..20 {
            let net = random_netlist(
                seed,
                &RandomSpec {
                    roles: 1 + seed as usize % 3,
                    ..Default::default()
                },
            );
            let p = Program::compile(&net);
            let and_or = net
                .gates
                .iter()
                .filter(|g| matches!(g, Gate::And(_) | Gate::Or(_)))
                .count();
            assert!(
                p.instructions() <= and_or,
                "seed {seed}: {} > {and_or}",
                p.instructions()
            );
            assert_eq!(p.goal.first_slot, p.core.first_slot + p.core.len());
            assert_eq!(p.next.first_slot, p.goal.first_slot + p.goal.len());
            assert_eq!(p.slots, p.next.first_slot + p.next.len());
            for ph in [&p.core, &p.goal, &p.next] {
                let mut args = ph.args.as_slice();
                for (k, &code) in ph.codes.iter().enumerate() {
                    let (ops, rest) = args.split_at((code >> 1) as usize);
                    args = rest;
                    assert!(ops.len() >= 2, "seed {seed}: trivial gates are aliases");
                    assert!(
                        ops.iter().all(|&o| slot(o) < ph.first_slot + k),
                        "seed {seed}: operand not earlier"
                    );
                }
                // Goal-only instructions are never read by the core or next phases.
                if !std::ptr::eq(ph, &p.goal) {
                    let goal = p.goal.first_slot..p.next.first_slot;
                    assert!(
                        ph.args.iter().all(|&o| !goal.contains(&slot(o))),
                        "seed {seed}"
                    );
                }
            }
        }
    }
}
