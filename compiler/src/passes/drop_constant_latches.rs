//! Replaces latches that never change by constants and records them in
//! [`Netlist::fixed_fluents`], so the full game state stays observable. A set of latches is
//! proven constant by induction with three-valued simulation (inputs and other latches
//! unknown): if every latch of the set holds its `init` value, each one's `next` evaluates to
//! that same value. The largest such set is found by shrinking from all latches. This covers
//! `next = Const(init)`, `next = self` and mutually sustaining latches; latches that do
//! change, even once, are kept.

use crate::netlist::{Gate, LatchId, Netlist};

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
pub fn constant_latches(net: &Netlist) -> Vec<bool> {
    let mut candidate = vec![true; net.latches.len()];
    let mut v = vec![Tri::X; net.gates.len()];
    loop {
        for (i, g) in net.gates.iter().enumerate() {
            v[i] = match g {
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
            };
        }
        let mut shrunk = false;
        for (l, c) in net.latches.iter().zip(candidate.iter_mut()) {
            if *c && v[l.next.index()] != tri(l.init) {
                *c = false;
                shrunk = true;
            }
        }
        if !shrunk {
            return candidate;
        }
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
