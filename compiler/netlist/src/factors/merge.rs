//! Steps 3-4 of [`super::find_factors`]: components joined by the goal and terminal logic,
//! components merged until each has a move of its own, and which factors matter.

use super::graph::{cone, cone_components, Comps, Dsu};
use super::{Factor, Factors};
use crate::{Gate, GateId, InputId, LatchId, Netlist};

/// Pairs of components that the goal or terminal logic joins by an `And` with a fluent of
/// one as a direct operand and something that reads the other (a line
/// of four cells across connect four's columns, a path across blocker's cells, two queens
/// that attack each other): a pattern of fluents across components, so they are one game,
/// not a sum. Disjunctions ("some board is won"), conjunctions of negated fluents ("no
/// board is won") and conjunctions of views of each component ("both boards have a line")
/// keep them apart.
pub(super) fn joined_by_outcome(
    net: &Netlist,
    moving: &[bool],
    comp: &[u32],
    count: usize,
) -> (Vec<(u32, u32)>, bool) {
    let n = net.gates.len();
    let goals = net
        .roles
        .iter()
        .flat_map(|r| r.goals.iter().map(|g| g.gate));
    let sets = cone_components(net, moving, comp, goals.chain([net.terminal]));
    let fluent = |g: GateId| -> Option<u32> {
        match net.gate(g) {
            Gate::Latch(l) if moving[l.index()] => Some(comp[n + l.index()]),
            _ => None,
        }
    };
    let mut pairs = Vec::new();
    let overflow = sets.contains(&Comps::Overflow);
    for (gate, s) in net.gates.iter().zip(&sets) {
        if matches!(gate, Gate::And(_)) {
            let read: Vec<u32> = match s {
                Comps::Listed(v) => v.clone(),
                Comps::Overflow => (0..count as u32).collect(),
                Comps::Empty => Vec::new(),
            };
            for d in gate.operands().iter().filter_map(|&o| fluent(o)) {
                pairs.extend(read.iter().filter(|&&c| c != d).map(|&c| (d, c)));
            }
        }
    }
    (pairs, overflow)
}

/// Steps 3 and 4 of the module docs: classifies the inputs by the components they touch
/// and merges components without a move of their own.
pub(super) fn group(
    net: &Netlist,
    moving: &[bool],
    comp: &[u32],
    count: usize,
    touched: &[Comps],
    joined: &[(u32, u32)],
) -> Factors {
    let mut dsu = Dsu::new(count);
    if touched.contains(&Comps::Overflow) {
        (1..count as u32).for_each(|c| dsu.union(0, c));
    }
    let groups_of = |dsu: &mut Dsu, t: &Comps| -> Vec<u32> {
        let mut v: Vec<u32> = match t {
            Comps::Listed(cs) => cs.iter().map(|&c| dsu.find(c)).collect(),
            Comps::Overflow => (0..count as u32).map(|c| dsu.find(c)).collect(),
            Comps::Empty => Vec::new(),
        };
        v.sort_unstable();
        v.dedup();
        v
    };
    for &(a, b) in joined {
        dsu.union(a, b);
    }
    // Smallest crossing sets first: the marks of one board own it before a `noop` that
    // touches both boards is considered.
    loop {
        let mut owned = vec![false; count];
        let sets: Vec<Vec<u32>> = touched.iter().map(|t| groups_of(&mut dsu, t)).collect();
        for s in sets.iter().filter(|s| s.len() == 1) {
            owned[s[0] as usize] = true;
        }
        let orphan = |s: &&Vec<u32>| s.len() >= 2 && s.iter().any(|&g| !owned[g as usize]);
        let Some(smallest) = sets.iter().filter(orphan).map(Vec::len).min() else {
            break;
        };
        for s in sets.iter().filter(orphan).filter(|s| s.len() == smallest) {
            s.windows(2).for_each(|w| dsu.union(w[0], w[1]));
        }
    }
    let n = net.gates.len();
    let mut index_of_group = vec![usize::MAX; count];
    let mut factors: Vec<Factor> = Vec::new();
    for l in (0..net.latches.len()).filter(|&l| moving[l]) {
        let g = dsu.find(comp[n + l]) as usize;
        if index_of_group[g] == usize::MAX {
            index_of_group[g] = factors.len();
            factors.push(Factor::default());
        }
        factors[index_of_group[g]].latches.push(LatchId(l as u32));
    }
    let (mut crossing, mut inert) = (Vec::new(), Vec::new());
    for (i, t) in touched.iter().enumerate() {
        let id = InputId(i as u32);
        match groups_of(&mut dsu, t).as_slice() {
            [] => inert.push(id),
            [g] => factors[index_of_group[*g as usize]].inputs.push(id),
            _ => crossing.push(id),
        }
    }
    Factors {
        factors,
        shared: Vec::new(),
        crossing,
        inert,
        gave_up: touched.contains(&Comps::Overflow),
    }
}

/// Sets [`Factor::relevant`]: whether a factor's latches reach a goal, the terminal or any
/// legal gate (even of its own moves: a move that rules out a later one can decide the game).
pub(super) fn mark_relevant(net: &Netlist, out: &mut Factors) {
    let roots = net.roles.iter().flat_map(|r| {
        let legal = r.legal.iter().map(|l| l.gate);
        legal.chain(r.goals.iter().map(|g| g.gate))
    });
    let inside = cone(net, roots.chain([net.terminal]));
    let mut read = vec![false; net.latches.len()];
    for (g, gate) in net.gates.iter().enumerate() {
        if let Gate::Latch(l) = gate {
            read[l.index()] = inside[g];
        }
    }
    for f in &mut out.factors {
        f.relevant = f.latches.iter().any(|l| read[l.index()]);
    }
}
