//! The dependency graph of a netlist as [`super::find_factors`] reads it: move-dependent
//! latches, cones, the components of the `next` cones and the components each input touches.

use super::MAX_LISTED;
use crate::{Gate, GateId, Netlist};

/// A set of component ids, sorted, or "too many to list" ([`MAX_LISTED`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) enum Comps {
    #[default]
    Empty,
    Listed(Vec<u32>),
    Overflow,
}

impl Comps {
    pub(super) fn one(c: u32) -> Self {
        Comps::Listed(vec![c])
    }

    pub(super) fn add(&mut self, other: &Comps) {
        match (&mut *self, other) {
            (_, Comps::Empty) | (Comps::Overflow, _) => {}
            (_, Comps::Overflow) => *self = Comps::Overflow,
            (Comps::Empty, o) => *self = o.clone(),
            (Comps::Listed(a), Comps::Listed(b)) => {
                for &c in b {
                    if let Err(at) = a.binary_search(&c) {
                        a.insert(at, c);
                    }
                }
                if a.len() > MAX_LISTED {
                    *self = Comps::Overflow;
                }
            }
        }
    }
}

/// Union-find with path halving.
pub(super) struct Dsu(Vec<u32>);

impl Dsu {
    pub(super) fn new(n: usize) -> Self {
        Dsu((0..n as u32).collect())
    }
    pub(super) fn find(&mut self, mut x: u32) -> u32 {
        while self.0[x as usize] != x {
            let up = self.0[self.0[x as usize] as usize];
            self.0[x as usize] = up;
            x = up;
        }
        x
    }
    pub(super) fn union(&mut self, a: u32, b: u32) {
        let (a, b) = (self.find(a), self.find(b));
        if a != b {
            self.0[a.max(b) as usize] = a.min(b);
        }
    }
}

/// Per input, the components it touches (step 3 of the module docs): those of the nearest
/// consumers in a `next` cone that read a move-dependent latch (found top-down over the
/// cones, through gates that read only inputs) and those its `legal` gate reads.
pub(super) fn touched_components(
    net: &Netlist,
    moving: &[bool],
    reads_moving: &[bool],
    in_next: &[bool],
    comp: &[u32],
) -> Vec<Comps> {
    let n = net.gates.len();
    let mut above: Vec<Comps> = vec![Comps::Empty; n];
    for (l, latch) in net.latches.iter().enumerate() {
        if moving[l] && !reads_moving[latch.next.index()] {
            above[latch.next.index()].add(&Comps::one(comp[n + l]));
        }
    }
    for g in (0..n).rev().filter(|&g| in_next[g]) {
        let from = if reads_moving[g] {
            debug_assert!(comp[g] != u32::MAX, "a next-cone gate that reads a latch");
            Comps::one(comp[g])
        } else {
            std::mem::take(&mut above[g])
        };
        for o in net.gates[g].operands() {
            if !reads_moving[o.index()] {
                above[o.index()].add(&from);
            }
        }
        if !reads_moving[g] {
            above[g] = from;
        }
    }
    let legal_gates = net
        .roles
        .iter()
        .flat_map(|r| r.legal.iter().map(|l| l.gate));
    let legal_sets = cone_components(net, moving, comp, legal_gates);
    let mut touched: Vec<Comps> = vec![Comps::Empty; net.inputs.len()];
    for (g, gate) in net.gates.iter().enumerate() {
        if let Gate::Input(i) = gate {
            touched[i.index()].add(&above[g]);
        }
    }
    for role in &net.roles {
        for l in &role.legal {
            touched[l.input.index()].add(&legal_sets[l.gate.index()]);
        }
    }
    touched
}

/// Per latch: whether its next value depends on a move, directly or through latches that
/// do (a forward search from the inputs over the gates' consumers).
pub(super) fn move_dependent(net: &Netlist) -> Vec<bool> {
    let n = net.gates.len();
    let mut start = vec![0u32; n + 1];
    for g in &net.gates {
        for o in g.operands() {
            start[o.index() + 1] += 1;
        }
    }
    for i in 0..n {
        start[i + 1] += start[i];
    }
    let mut fill = start.clone();
    let mut users = vec![0u32; start[n] as usize];
    for (g, gate) in net.gates.iter().enumerate() {
        for o in gate.operands() {
            users[fill[o.index()] as usize] = g as u32;
            fill[o.index()] += 1;
        }
    }
    let mut latch_gate = vec![None; net.latches.len()];
    let mut queue = Vec::new();
    let mut reached = vec![false; n];
    for (g, gate) in net.gates.iter().enumerate() {
        match gate {
            Gate::Latch(l) => latch_gate[l.index()] = Some(g),
            Gate::Input(_) => {
                reached[g] = true;
                queue.push(g);
            }
            _ => {}
        }
    }
    let mut by_next: Vec<(u32, u32)> = net
        .latches
        .iter()
        .enumerate()
        .map(|(l, latch)| (latch.next.0, l as u32))
        .collect();
    by_next.sort_unstable();
    let mut moving = vec![false; net.latches.len()];
    while let Some(g) = queue.pop() {
        let first = by_next.partition_point(|&(x, _)| (x as usize) < g);
        for &(_, l) in by_next[first..].iter().take_while(|p| p.0 as usize == g) {
            moving[l as usize] = true;
            if let Some(lg) = latch_gate[l as usize] {
                if !std::mem::replace(&mut reached[lg], true) {
                    queue.push(lg);
                }
            }
        }
        for &u in &users[start[g] as usize..start[g + 1] as usize] {
            if !std::mem::replace(&mut reached[u as usize], true) {
                queue.push(u as usize);
            }
        }
    }
    moving
}

/// Per gate: whether its cone holds a move-dependent latch.
pub(super) fn reads_moving_latch(net: &Netlist, moving: &[bool]) -> Vec<bool> {
    let mut r = vec![false; net.gates.len()];
    for (g, gate) in net.gates.iter().enumerate() {
        r[g] = match gate {
            Gate::Latch(l) => moving[l.index()],
            _ => gate.operands().iter().any(|o| r[o.index()]),
        };
    }
    r
}

/// Per gate: whether it is in the cone of one of `roots`.
pub(super) fn cone(net: &Netlist, roots: impl Iterator<Item = GateId>) -> Vec<bool> {
    let mut inside = vec![false; net.gates.len()];
    roots.for_each(|g| inside[g.index()] = true);
    for g in (0..net.gates.len()).rev() {
        if inside[g] {
            for o in net.gates[g].operands() {
                inside[o.index()] = true;
            }
        }
    }
    inside
}

/// Components of the move-dependent latches (step 2 of the module docs). Returns a compact
/// component id per node (gates, then latches; meaningful for move-dependent latches and
/// the `next`-cone gates that read one) and the number of components.
pub(super) fn components(
    net: &Netlist,
    moving: &[bool],
    reads_moving: &[bool],
    in_next: &[bool],
) -> (Vec<u32>, usize) {
    let n = net.gates.len();
    let mut dsu = Dsu::new(n + net.latches.len());
    for (g, gate) in net.gates.iter().enumerate() {
        if !(in_next[g] && reads_moving[g]) {
            continue;
        }
        if let Gate::Latch(l) = gate {
            dsu.union(g as u32, (n + l.index()) as u32);
        }
        for o in gate.operands().iter().filter(|o| reads_moving[o.index()]) {
            dsu.union(g as u32, o.0);
        }
    }
    for (l, latch) in net.latches.iter().enumerate() {
        if moving[l] && reads_moving[latch.next.index()] {
            dsu.union((n + l) as u32, latch.next.0);
        }
    }
    let mut id_of_root = std::collections::HashMap::new();
    for l in (0..net.latches.len()).filter(|&l| moving[l]) {
        let root = dsu.find((n + l) as u32);
        let next = id_of_root.len() as u32;
        id_of_root.entry(root).or_insert(next);
    }
    let count = id_of_root.len();
    let comp = (0..(n + net.latches.len()) as u32)
        .map(|x| {
            let root = dsu.find(x);
            id_of_root.get(&root).copied().unwrap_or(u32::MAX)
        })
        .collect();
    (comp, count)
}

/// Per gate of the cones of `roots`: the components of the move-dependent latches it reads
/// (empty outside the cones).
pub(super) fn cone_components(
    net: &Netlist,
    moving: &[bool],
    comp: &[u32],
    roots: impl Iterator<Item = GateId>,
) -> Vec<Comps> {
    let n = net.gates.len();
    let inside = cone(net, roots);
    let mut sets: Vec<Comps> = vec![Comps::Empty; n];
    for (g, gate) in net.gates.iter().enumerate().filter(|p| inside[p.0]) {
        let mut s = match gate {
            Gate::Latch(l) if moving[l.index()] => Comps::one(comp[n + l.index()]),
            _ => Comps::Empty,
        };
        for o in gate.operands() {
            s.add(&sets[o.index()]);
        }
        sets[g] = s;
    }
    sets
}
