//! Shared machinery of the rewriting passes: rebuilds the gate arena in topological order,
//! letting a pass replace each gate by a new gate or by an already rebuilt one. It keeps one
//! `Const` gate per value; it does not remove gates that lose their users (`remove_dead` does).

use crate::{Gate, GateId, Netlist};

/// What a pass makes of one gate (whose operands are already in the new arena's ids).
pub(crate) enum Rewrite {
    /// Keep the gate as it is (with renamed operands).
    Keep,
    /// Put this gate into the new arena (unchanged or rewritten).
    Gate(Gate),
    /// Replace every use of the gate by this gate of the new arena.
    To(GateId),
}

const NONE: u32 = u32::MAX;

/// The new arena under construction, with what a pass may ask about it.
pub(crate) struct Rebuilder {
    gates: Vec<Gate>,
    /// Per new gate: the old gate it was made from, or `NONE` for gates a pass synthesized.
    origin: Vec<u32>,
    /// Per new gate: whether some other old gate was redirected to it (more users than counted).
    shared: Vec<bool>,
    /// Per old gate: number of uses (operand occurrences plus outputs) in the old netlist.
    uses: Vec<u32>,
    consts: [Option<GateId>; 2],
}

impl Rebuilder {
    /// The gate with this id in the new arena.
    pub(crate) fn gate(&self, id: GateId) -> &Gate {
        &self.gates[id.index()]
    }

    /// Appends a gate a pass synthesized; its operands must already be in the new arena.
    pub(crate) fn push(&mut self, gate: Gate) -> GateId {
        self.push_from(gate, NONE)
    }

    /// The id the next pushed gate will get.
    pub(crate) fn next_id(&self) -> GateId {
        GateId(self.gates.len() as u32)
    }

    /// The gate holding constant `value`, created on first use.
    pub(crate) fn constant(&mut self, value: bool) -> GateId {
        match self.consts[value as usize] {
            Some(id) => id,
            None => self.push(Gate::Const(value)),
        }
    }

    /// The constant value of a new gate, if it is a `Const`.
    pub(crate) fn const_value(&self, id: GateId) -> Option<bool> {
        match self.gates[id.index()] {
            Gate::Const(v) => Some(v),
            _ => None,
        }
    }

    /// True when the new gate `id` has exactly one user: it was rebuilt from an old gate with a
    /// single use and nothing else was redirected to it. The user is whoever asks about it
    /// while holding it as an operand.
    pub(crate) fn single_use(&self, id: GateId) -> bool {
        let o = self.origin[id.index()];
        o != NONE && self.uses[o as usize] == 1 && !self.shared[id.index()]
    }

    /// Moves the operand list out of the `And`/`Or` gate `id`, leaving it empty (a constant,
    /// so only for a gate about to lose its one user: see [`Rebuilder::single_use`]). An
    /// inlining pass then moves lists instead of copying them: the arena never holds a
    /// chain's prefixes side by side.
    pub(crate) fn take_operands(&mut self, id: GateId) -> Vec<GateId> {
        match &mut self.gates[id.index()] {
            Gate::And(ops) | Gate::Or(ops) => std::mem::take(ops),
            _ => Vec::new(),
        }
    }

    /// Pushes the gate made from old gate `origin`; notes a change when an existing constant
    /// is reused instead.
    fn push_kept(&mut self, gate: Gate, origin: u32, changed: &mut bool) -> GateId {
        let before = self.gates.len();
        let id = self.push_from(gate, origin);
        if id.index() < before {
            *changed = true;
            self.shared[id.index()] = true;
        }
        id
    }

    fn push_from(&mut self, gate: Gate, origin: u32) -> GateId {
        if let Gate::Const(v) = gate {
            if let Some(id) = self.consts[v as usize] {
                return id;
            }
        }
        let id = GateId(self.gates.len() as u32);
        if let Gate::Const(v) = gate {
            self.consts[v as usize] = Some(id);
        }
        self.gates.push(gate);
        self.origin.push(origin);
        self.shared.push(false);
        id
    }
}

/// Use counts of every gate: operand occurrences plus references from outputs
/// (latch `next`, legal, goal, percept, terminal).
pub(crate) fn use_counts(net: &Netlist) -> Vec<u32> {
    let mut uses = vec![0u32; net.gates.len()];
    for g in &net.gates {
        for o in g.operands() {
            uses[o.index()] += 1;
        }
    }
    for_each_output(net, |id| uses[id.index()] += 1);
    uses
}

/// Calls `f` on every output gate reference: latch `next`, legal, goal, percept, terminal.
pub(crate) fn for_each_output(net: &Netlist, mut f: impl FnMut(GateId)) {
    for l in &net.latches {
        f(l.next);
    }
    for r in &net.roles {
        r.legal.iter().for_each(|l| f(l.gate));
        r.goals.iter().for_each(|g| f(g.gate));
        r.percepts.iter().for_each(|p| f(p.gate));
    }
    f(net.terminal);
}

/// Rewrites every output gate reference in place through `map`.
pub(crate) fn map_outputs(net: &mut Netlist, map: impl Fn(GateId) -> GateId) {
    for l in &mut net.latches {
        l.next = map(l.next);
    }
    for r in &mut net.roles {
        r.legal.iter_mut().for_each(|l| l.gate = map(l.gate));
        r.goals.iter_mut().for_each(|g| g.gate = map(g.gate));
        r.percepts.iter_mut().for_each(|p| p.gate = map(p.gate));
    }
    net.terminal = map(net.terminal);
}

/// Rebuilds `net`'s arena: for each old gate in order, `f` gets the builder, the old id and
/// the gate with operands renamed into the new arena, and says what replaces it. Outputs are
/// renamed at the end. Returns true when anything was rewritten.
pub(crate) fn rebuild(
    net: &mut Netlist,
    mut f: impl FnMut(&mut Rebuilder, GateId, &Gate) -> Rewrite,
) -> bool {
    let n = net.gates.len();
    let mut rb = Rebuilder {
        gates: Vec::with_capacity(n),
        origin: Vec::with_capacity(n),
        shared: Vec::with_capacity(n),
        uses: use_counts(net),
        consts: [None, None],
    };
    let mut map: Vec<GateId> = Vec::with_capacity(n);
    let mut changed = false;
    for (i, mut gate) in std::mem::take(&mut net.gates).into_iter().enumerate() {
        changed |= rename_in_place(&mut gate, &map);
        let new = match f(&mut rb, GateId(i as u32), &gate) {
            Rewrite::Keep => rb.push_kept(gate, i as u32, &mut changed),
            Rewrite::Gate(g) => {
                changed |= g != gate;
                rb.push_kept(g, i as u32, &mut changed)
            }
            Rewrite::To(id) => {
                changed = true;
                rb.shared[id.index()] = true;
                id
            }
        };
        map.push(new);
    }
    net.gates = rb.gates;
    map_outputs(net, |g| map[g.index()]);
    changed
}

/// Renames the gate's operands through `map`; true when one changed.
pub(crate) fn rename_in_place(gate: &mut Gate, map: &[GateId]) -> bool {
    let mut changed = false;
    let mut one = |o: &mut GateId| {
        let m = map[o.index()];
        changed |= m != *o;
        *o = m;
    };
    match gate {
        Gate::Not(a) => one(a),
        Gate::And(ops) | Gate::Or(ops) => ops.iter_mut().for_each(one),
        _ => {}
    }
    changed
}
