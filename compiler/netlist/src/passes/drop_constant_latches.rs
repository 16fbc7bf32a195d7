//! Replaces latches that never change by constants and records them (and the fluents
//! aliased to them) in [`Netlist::fixed_fluents`], so the full game state stays observable. A set of latches is
//! proven constant by induction with three-valued simulation (inputs and other latches
//! unknown): if every latch of the set holds its `init` value, each one's `next` evaluates to
//! that same value. The largest such set is found by shrinking from all latches. This covers
//! `next = Const(init)`, `next = self` and mutually sustaining latches; latches that do
//! change, even once, are kept.

use crate::{Gate, LatchId, Netlist};

/// Runs the pass; returns true when a latch was removed.
pub fn run(net: &mut Netlist) -> bool {
    let constant = constant_latches(net);
    if !constant.iter().any(|&c| c) {
        return false;
    }
    let mut renumber = vec![None; net.latches.len()];
    let mut next = 0u32;
    for (i, &c) in constant.iter().enumerate() {
        if !c {
            renumber[i] = Some(LatchId(next));
            next += 1;
        }
    }
    for g in &mut net.gates {
        if let Gate::Latch(l) = *g {
            *g = match renumber[l.index()] {
                Some(m) => Gate::Latch(m),
                None => Gate::Const(net.latches[l.index()].init),
            };
        }
    }
    let aliases = std::mem::take(&mut net.aliased_fluents);
    for mut a in aliases {
        match renumber[a.latch.index()] {
            Some(m) => {
                a.latch = m;
                net.aliased_fluents.push(a);
            }
            None => {
                let init = net.latches[a.latch.index()].init;
                net.fixed_fluents.push((a.name, init != a.negated));
            }
        }
    }
    let latches = std::mem::take(&mut net.latches);
    for (l, c) in latches.into_iter().zip(constant) {
        if c {
            net.fixed_fluents.push((l.name, l.init));
        } else {
            net.latches.push(l);
        }
    }
    net.fixed_fluents
        .sort_unstable_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    true
}

/// Three-valued value: known false, known true, or unknown.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Tri {
    F,
    T,
    X,
}

/// One flag per latch: true when the latch provably keeps its `init` value in every state
/// reachable from the initial state.
///
/// Starts from "every latch is constant" and withdraws latches whose `next` is not provably
/// their `init`. Values only ever move from known to unknown, so each gate turns unknown at
/// most once and is re-evaluated only when an operand does: about linear time overall.
pub fn constant_latches(net: &Netlist) -> Vec<bool> {
    let n = net.gates.len();
    let mut candidate = vec![true; net.latches.len()];
    let mut latch_gate = vec![None; net.latches.len()];
    let mut v = vec![Tri::X; n];
    for i in 0..n {
        if let Gate::Latch(l) = net.gates[i] {
            latch_gate[l.index()] = Some(i);
        }
        v[i] = eval(net, &v, &candidate, i);
    }
    // Users of every gate, and latches by their next gate (compressed adjacency lists).
    let users = Adjacency::new(
        n,
        net.gates
            .iter()
            .enumerate()
            .flat_map(|(u, g)| g.operands().iter().map(move |o| (o.index(), u))),
    );
    let fed = Adjacency::new(
        n,
        net.latches
            .iter()
            .enumerate()
            .map(|(l, x)| (x.next.index(), l)),
    );
    let mut unknown: Vec<usize> = Vec::new();
    let withdraw = |l: usize, candidate: &mut [bool], v: &mut [Tri], unknown: &mut Vec<usize>| {
        candidate[l] = false;
        if let Some(g) = latch_gate[l] {
            if v[g] != Tri::X {
                v[g] = Tri::X;
                unknown.push(g);
            }
        }
    };
    for (l, x) in net.latches.iter().enumerate() {
        if v[x.next.index()] != tri(x.init) {
            withdraw(l, &mut candidate, &mut v, &mut unknown);
        }
    }
    while let Some(g) = unknown.pop() {
        for l in fed.of(g) {
            if candidate[l] {
                withdraw(l, &mut candidate, &mut v, &mut unknown);
            }
        }
        for u in users.of(g) {
            if v[u] != Tri::X && eval(net, &v, &candidate, u) == Tri::X {
                v[u] = Tri::X;
                unknown.push(u);
            }
        }
    }
    candidate
}

/// Three-valued value of gate `i` from its operands' values.
fn eval(net: &Netlist, v: &[Tri], candidate: &[bool], i: usize) -> Tri {
    match &net.gates[i] {
        Gate::Const(c) => tri(*c),
        Gate::Input(_) => Tri::X,
        Gate::Latch(l) if candidate[l.index()] => tri(net.latches[l.index()].init),
        Gate::Latch(_) => Tri::X,
        Gate::Not(a) => match v[a.index()] {
            Tri::F => Tri::T,
            Tri::T => Tri::F,
            Tri::X => Tri::X,
        },
        Gate::And(ops) => combine(ops.iter().map(|o| v[o.index()]), Tri::F),
        Gate::Or(ops) => combine(ops.iter().map(|o| v[o.index()]), Tri::T),
    }
}

/// Compressed adjacency lists: for each key `0..n`, the values paired with it.
struct Adjacency {
    start: Vec<u32>,
    items: Vec<u32>,
}

impl Adjacency {
    fn new(n: usize, pairs: impl Iterator<Item = (usize, usize)> + Clone) -> Self {
        let mut start = vec![0u32; n + 1];
        for (k, _) in pairs.clone() {
            start[k + 1] += 1;
        }
        for k in 0..n {
            start[k + 1] += start[k];
        }
        let mut fill = start.clone();
        let mut items = vec![0u32; start[n] as usize];
        for (k, x) in pairs {
            items[fill[k] as usize] = x as u32;
            fill[k] += 1;
        }
        Adjacency { start, items }
    }
    fn of(&self, k: usize) -> impl Iterator<Item = usize> + '_ {
        self.items[self.start[k] as usize..self.start[k + 1] as usize]
            .iter()
            .map(|&x| x as usize)
    }
}

fn tri(b: bool) -> Tri {
    if b {
        Tri::T
    } else {
        Tri::F
    }
}

/// Value of an `And` (`absorbing` = F) or `Or` (`absorbing` = T) of three-valued operands.
fn combine(ops: impl Iterator<Item = Tri>, absorbing: Tri) -> Tri {
    let mut unknown = false;
    for x in ops {
        if x == absorbing {
            return absorbing;
        }
        unknown |= x == Tri::X;
    }
    match (unknown, absorbing) {
        (true, _) => Tri::X,
        (false, Tri::F) => Tri::T,
        (false, _) => Tri::F,
    }
}
