//! Step 1 of compiling a program: every gate of the netlist resolved to an operand where no
//! instruction is needed (leaves, `Not`, constant-folded and one-operand `And`/`Or`), the
//! rest pending as instructions, and products fused into their `Or` where it pays.

use crate::operand::Operand;
use propnet_netlist::{Gate, GateId, Netlist, NetlistInfo, Output};

/// The phase (0 core, 1 goal, 2 next, 3 percept) of an instruction gate `g`, from the
/// cones of [`NetlistInfo`]; `None` for a gate no output needs. A gate that percepts share
/// with another output is in that output's phase.
pub(crate) fn phase_of(info: &NetlistInfo, g: GateId) -> Option<usize> {
    let (lt, go, nx) = (
        info.needed_by(g, Output::LegalTerminal),
        info.needed_by(g, Output::Goal),
        info.needed_by(g, Output::Next),
    );
    if lt || (go && nx) {
        Some(0)
    } else if go {
        Some(1)
    } else if nx {
        Some(2)
    } else if info.needed_by(g, Output::Percept) {
        Some(3)
    } else {
        None
    }
}

/// Where a gate's value comes from once compiled.
#[derive(Copy, Clone, Debug)]
pub(super) enum Src {
    /// Operand of an existing slot (maybe negated).
    Op(Operand),
    /// An `And`/`Or` instruction not yet placed.
    Pending,
}

/// Step 1 of [`Program::compile`]: every gate resolved to an operand where no instruction is
/// needed (leaves, `Not`, constant-folded and one-operand `And`/`Or`), the rest pending.
pub(super) struct Folded {
    /// Per gate: its operand, or pending.
    src: Vec<Src>,
    /// Per pending gate: its operands with constants folded and duplicates removed.
    pub(super) ops: Vec<Vec<GateId>>,
    /// Per gate: (instruction gate, negate). A `Not` or one-operand `And`/`Or` of a pending
    /// gate refers through to the underlying instruction gate; other gates are their own.
    base: Vec<(u32, bool)>,
    /// The operands of the constants.
    false_op: Operand,
    true_op: Operand,
    /// Number of latches (slots `0..latches`).
    pub(super) latches: usize,
    /// Per gate: a two-operand `And` instruction fused into the one `Or` instruction that
    /// reads it ([`RunKind::OrAnd`]), so not an instruction of its own.
    fused: Vec<bool>,
}

impl Folded {
    /// Folds `net`, whose constant-false slot is `zero` and first input slot `input_base`.
    pub(super) fn new(net: &Netlist, zero: u32, input_base: usize) -> Self {
        let n = net.gates.len();
        let false_op: Operand = zero << 1;
        let mut f = Folded {
            src: vec![Src::Pending; n],
            ops: vec![Vec::new(); n],
            base: (0..n as u32).map(|i| (i, false)).collect(),
            false_op,
            true_op: false_op | 1,
            latches: zero as usize,
            fused: vec![false; n],
        };
        for (i, g) in net.gates.iter().enumerate() {
            f.src[i] = match g {
                Gate::Const(b) => Src::Op(if *b { f.true_op } else { f.false_op }),
                Gate::Latch(x) => Src::Op((x.0) << 1),
                Gate::Input(x) => Src::Op(((input_base as u32) + x.0) << 1),
                Gate::Not(a) => match f.src[a.index()] {
                    Src::Op(o) => Src::Op(o ^ 1),
                    Src::Pending => Src::Pending,
                },
                Gate::And(v) => f.fold_and_or(i, v, false),
                Gate::Or(v) => f.fold_and_or(i, v, true),
            };
        }
        for (i, g) in net.gates.iter().enumerate() {
            if !matches!(f.src[i], Src::Pending) {
                continue;
            }
            match g {
                Gate::Not(a) => {
                    let (b, neg) = f.base[a.index()];
                    f.base[i] = (b, !neg);
                }
                Gate::And(_) | Gate::Or(_) if f.ops[i].len() == 1 => {
                    f.base[i] = f.base[f.ops[i][0].index()]
                }
                _ => {}
            }
        }
        f
    }

    /// Gate `i` = `And(v)` (or `Or(v)`): drops neutral constants, folds to the absorbing one,
    /// and aliases a single remaining operand; otherwise keeps the operands for an
    /// instruction.
    fn fold_and_or(&mut self, i: usize, v: &[GateId], is_or: bool) -> Src {
        let (absorb, neutral) = if is_or {
            (self.true_op, self.false_op)
        } else {
            (self.false_op, self.true_op)
        };
        let mut kept = Vec::with_capacity(v.len());
        for &o in v {
            match resolved(&self.src, o) {
                Some(x) if x == absorb => return Src::Op(absorb),
                Some(x) if x == neutral => {}
                _ => kept.push(o),
            }
        }
        kept.sort_unstable();
        kept.dedup();
        if kept.is_empty() {
            return Src::Op(neutral);
        }
        if kept.len() == 1 {
            if let Some(x) = resolved(&self.src, kept[0]) {
                return Src::Op(x);
            }
        }
        self.ops[i] = kept;
        Src::Pending
    }

    /// True when gate `i` becomes an instruction of its own.
    pub(super) fn is_instruction(&self, i: usize) -> bool {
        matches!(self.src[i], Src::Pending)
            && self.base[i].0 as usize == i
            && !self.ops[i].is_empty()
            && !self.fused[i]
    }

    /// The fused product that operand `o` of an instruction reads, if it reads one.
    fn product(&self, o: GateId) -> Option<[GateId; 2]> {
        let b = self.instruction_of(o)?;
        self.fused[b].then(|| [self.ops[b][0], self.ops[b][1]])
    }

    /// The number of operands instruction `i` reads once its fused products are expanded
    /// ([`Self::expanded`] without building them).
    pub(super) fn width(&self, i: usize) -> usize {
        let products = self.ops[i].iter().filter(|&&o| self.product(o).is_some());
        self.ops[i].len() + products.count()
    }

    /// Instruction `i`'s operands with its fused products ([`RunKind::OrAnd`]) expanded:
    /// the single operands, then the pairs; and the number of pairs.
    pub(super) fn expanded(&self, i: usize) -> (Vec<GateId>, usize) {
        let mut out: Vec<GateId> = Vec::with_capacity(self.ops[i].len() + 2);
        let mut pairs = Vec::new();
        for &o in &self.ops[i] {
            match self.product(o) {
                Some(p) => pairs.extend(p),
                None => out.push(o),
            }
        }
        let n = pairs.len() / 2;
        out.extend(pairs);
        (out, n)
    }

    /// Marks for fusion ([`RunKind::OrAnd`]) every two-operand `And` instruction that
    /// exactly one `Or` instruction of the same phase reads, plainly, and no output reads.
    pub(super) fn fuse_products(&mut self, net: &Netlist, info: &NetlistInfo) {
        const NO_READER: u32 = u32::MAX;
        const MANY: u32 = u32::MAX - 1;
        let mut reader = vec![NO_READER; net.gates.len()];
        let mut note = |b: usize, r: u32| {
            reader[b] = if reader[b] == NO_READER { r } else { MANY };
        };
        for g in info.ids() {
            let i = g.index();
            if !self.is_instruction(i) || phase_of(info, g).is_none() {
                continue;
            }
            let plain_or = matches!(net.gates[i], Gate::Or(_));
            for &o in &self.ops[i] {
                if let Some(b) = self.instruction_of(o) {
                    let by = if plain_or && !self.negated(o) {
                        i as u32
                    } else {
                        MANY
                    };
                    note(b, by);
                }
            }
        }
        let outputs = net.roles.iter().flat_map(|r| {
            let legal = r.legal.iter().map(|x| x.gate);
            legal.chain(r.goals.iter().map(|x| x.gate))
        });
        let latches = net.latches.iter().map(|x| x.next);
        for g in outputs.chain(latches).chain([net.terminal]) {
            if let Some(b) = self.instruction_of(g) {
                note(b, MANY);
            }
        }
        for (b, &r) in reader.iter().enumerate() {
            self.fused[b] = r < MANY
                && matches!(net.gates[b], Gate::And(_))
                && self.is_instruction(b)
                && self.ops[b].len() == 2
                && phase_of(info, GateId(b as u32)) == phase_of(info, GateId(r));
        }
    }

    /// True when gate `g`'s operand reads its slot negated.
    pub(super) fn negated(&self, g: GateId) -> bool {
        match self.src[g.index()] {
            Src::Op(o) => o & 1 == 1,
            Src::Pending => self.base[g.index()].1,
        }
    }

    /// The instruction gate whose slot gate `g` reads, if it reads one.
    pub(super) fn instruction_of(&self, g: GateId) -> Option<usize> {
        match self.src[g.index()] {
            Src::Op(_) => None,
            Src::Pending => Some(self.base[g.index()].0 as usize),
        }
    }

    /// The operand of gate `g` after its instruction has been placed.
    pub(super) fn operand(&self, slot_of: &[u32], g: GateId) -> Operand {
        match self.src[g.index()] {
            Src::Op(o) => o,
            Src::Pending => {
                let (b, neg) = self.base[g.index()];
                let s = slot_of[b as usize];
                debug_assert!(s != u32::MAX, "gate g{b} used before placement");
                (s << 1) | u32::from(neg)
            }
        }
    }
}

/// The operand of gate `g` if it is already known without placing instructions.
fn resolved(src: &[Src], g: GateId) -> Option<Operand> {
    match src[g.index()] {
        Src::Op(o) => Some(o),
        Src::Pending => None,
    }
}
