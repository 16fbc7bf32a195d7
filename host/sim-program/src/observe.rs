//! Skip guards of the core phase: latch sets whose being 0 in every lane of a block lets
//! the block skip a gate, because the gate is 0 then (its zero set, [`crate::guard`]) or
//! because no output depends on its value then (its *unobserved set*).
//!
//! A gate is unobserved while every consumer ignores it: an `And` ignores an operand while
//! another operand's zero set is all 0 (the `And` is 0 whatever the operand holds), and any
//! consumer ignores it while that consumer is itself unobserved. Outputs (legal, goal,
//! terminal and next-state gates) are always observed. Each gate keeps up to [`ALTS`]
//! alternative sets, any one of which, all 0, lets it be skipped: in chess the per-move test
//! "is the king attacked on square k after this move" is skipped while no lane has its
//! king on k *or* while the other side is to move.
//!
//! A skipped gate's slot is set to 0. That keeps every promise the analysis relies on: a
//! computed value is 0 wherever its zero set is (skipped gates are 0, and `And`/`Or` of
//! such values are), and an observed gate reads exact values or an operand its `And`
//! ignores because another operand is (exactly) 0, so every output is exact.

use crate::guard::{zero_sets, CAP, LINK, MAX_ENTRIES, NONE};
use propnet_netlist::{Gate, Netlist};
use std::collections::HashMap;

/// Most alternative sets kept per gate (and guards per instruction).
pub const ALTS: usize = 2;

/// Alternative latch sets, each sorted, at most [`ALTS`], smallest first.
type Alts = Vec<Vec<u32>>;

/// The skip guards of some gates.
#[derive(Clone, Debug, Default)]
pub struct SkipGuards {
    /// Latch indices of each guard (at most [`LINK`] latches).
    pub groups: Vec<Vec<u32>>,
    /// Per gate: up to [`ALTS`] guards ([`NONE`] where absent); while every latch of one of
    /// them is 0 in every lane, the gate may be skipped.
    pub guards_of: Vec<[u32; ALTS]>,
}

/// The skip guards of the gates `skippable` picks (the core phase's instructions); none
/// when the analysis would hold more than [`MAX_ENTRIES`] latch entries.
pub fn skip_guards(net: &Netlist, skippable: impl Fn(usize) -> bool) -> SkipGuards {
    let none = || SkipGuards {
        groups: Vec::new(),
        guards_of: vec![[NONE; ALTS]; net.gates.len()],
    };
    let rank = |set: &[u32]| {
        let held = set
            .iter()
            .filter(|&&l| net.latches[l as usize].init)
            .count();
        (held, set.len())
    };
    let Some(zero) = zero_alts(net, &rank) else {
        return none();
    };
    let Some(unobserved) = unobserved_alts(net, &zero, &rank) else {
        return none();
    };
    let mut index: HashMap<Vec<u32>, u32> = HashMap::new();
    let mut groups: Vec<Vec<u32>> = Vec::new();
    let mut guards_of = vec![[NONE; ALTS]; net.gates.len()];
    for (i, out) in guards_of.iter_mut().enumerate() {
        if !skippable(i) {
            continue;
        }
        let candidates = zero[i].iter().chain(&unobserved[i]);
        let small = best(
            candidates.filter(|s| !s.is_empty() && s.len() <= LINK),
            &rank,
        );
        for (slot, set) in out.iter_mut().zip(small) {
            *slot = *index.entry(set).or_insert_with_key(|set| {
                groups.push(set.clone());
                groups.len() as u32 - 1
            });
        }
    }
    SkipGuards { groups, guards_of }
}

/// How likely a set is to be all 0 in a block, best first: sets with fewer latches that
/// hold in the initial state (a king's square other than its first, a piece away from its
/// start), then smaller sets. Which sets are kept changes the speed, never the results.
type Rank<'r> = &'r dyn Fn(&[u32]) -> (usize, usize);

/// The first [`ALTS`] distinct sets of `sets` by `rank` (stable: earlier first on a tie).
fn best<'a>(sets: impl Iterator<Item = &'a Vec<u32>>, rank: Rank<'_>) -> Alts {
    let mut all: Vec<&Vec<u32>> = sets.collect();
    all.sort_by_key(|s| rank(s));
    let mut out: Alts = Vec::with_capacity(ALTS);
    for s in all {
        if out.len() == ALTS {
            break;
        }
        if !out.contains(s) {
            out.push(s.clone());
        }
    }
    out
}

/// Per gate, alternative zero sets: a latch is its own; an `And` takes the best of its
/// operands'; an `Or` has the one zero set of [`crate::guard`] (the union of its
/// operands'). `None` past [`MAX_ENTRIES`].
fn zero_alts(net: &Netlist, rank: Rank<'_>) -> Option<Vec<Alts>> {
    let single = zero_sets(net)?;
    let mut alts: Vec<Alts> = Vec::with_capacity(net.gates.len());
    let mut entries = 0usize;
    for (g, one) in net.gates.iter().zip(single) {
        let a = match g {
            Gate::And(v) => best(v.iter().flat_map(|o| &alts[o.index()]), rank),
            _ => one.into_iter().collect(),
        };
        entries += a.iter().map(Vec::len).sum::<usize>();
        if entries > MAX_ENTRIES {
            return None;
        }
        alts.push(a);
    }
    Some(alts)
}

/// How the analysis of [`unobserved_alts`] has met a gate's consumers so far.
#[derive(Clone)]
enum Seen {
    /// No consumer met yet.
    Unused,
    /// Unobserved while one of these sets is all 0.
    Unless(Alts),
    /// Some output may depend on it in any state.
    Always,
}

/// The gates whose values leave the netlist: legal, goal, next-state and terminal.
pub(super) fn outputs(net: &Netlist) -> impl Iterator<Item = propnet_netlist::GateId> + '_ {
    let views = net.roles.iter().flat_map(|r| {
        let legal = r.legal.iter().map(|x| x.gate);
        legal.chain(r.goals.iter().map(|x| x.gate))
    });
    views
        .chain(net.latches.iter().map(|x| x.next))
        .chain([net.terminal])
}

/// Per gate, its alternative unobserved sets (empty: observed in every state); `None`
/// past [`MAX_ENTRIES`]. Consumers come after their operands in the arena, so one pass from
/// the last gate down meets every consumer of a gate before the gate.
fn unobserved_alts(net: &Netlist, zero: &[Alts], rank: Rank<'_>) -> Option<Vec<Alts>> {
    let mut seen = vec![Seen::Unused; net.gates.len()];
    for g in outputs(net) {
        seen[g.index()] = Seen::Always;
    }
    let mut entries = 0usize;
    for c in (0..net.gates.len()).rev() {
        let own: &[Vec<u32>] = match &seen[c] {
            Seen::Unless(a) => a,
            Seen::Always => &[],
            Seen::Unused => continue,
        };
        let (ops, is_and) = match &net.gates[c] {
            Gate::And(v) => (v.as_slice(), true),
            Gate::Or(v) => (v.as_slice(), false),
            Gate::Not(x) => (std::slice::from_ref(x), false),
            _ => continue,
        };
        let ignoring = if is_and {
            and_ignoring(ops, zero, rank)
        } else {
            Vec::new()
        };
        let own = own.to_vec();
        for (j, o) in ops.iter().enumerate() {
            let others = ignoring.iter().filter(|(k, _)| *k != j).map(|(_, s)| *s);
            let via = best(others.chain(&own), rank);
            let slot = &mut seen[o.index()];
            let before = size(slot);
            *slot = meet(std::mem::replace(slot, Seen::Always), via, rank);
            entries = entries + size(slot) - before;
            if entries > MAX_ENTRIES {
                return None;
            }
        }
    }
    Some(
        seen.into_iter()
            .map(|s| match s {
                Seen::Unless(a) => a,
                _ => Vec::new(),
            })
            .collect(),
    )
}

/// The best [`ALTS`] zero sets of an `And`'s operands with their positions, enough for
/// every position to find [`ALTS`] sets of other operands.
fn and_ignoring<'a>(
    ops: &[propnet_netlist::GateId],
    zero: &'a [Alts],
    rank: Rank<'_>,
) -> Vec<(usize, &'a Vec<u32>)> {
    let mut all: Vec<(usize, &Vec<u32>)> = ops
        .iter()
        .enumerate()
        .flat_map(|(j, o)| zero[o.index()].iter().map(move |s| (j, s)))
        .collect();
    all.sort_by_key(|(_, s)| rank(s));
    // Any position excludes at most ALTS of its own sets.
    all.truncate(2 * ALTS);
    all
}

/// Latch entries held by a gate's state.
fn size(s: &Seen) -> usize {
    match s {
        Seen::Unless(a) => a.iter().map(Vec::len).sum(),
        _ => 0,
    }
}

/// A gate met one more consumer, which ignores it while one of `via` is all 0 (`via`
/// empty: the consumer reads it in every state). It is unobserved only while every
/// consumer ignores it: the pairwise unions, the best [`ALTS`] of those within [`CAP`].
fn meet(seen: Seen, via: Alts, rank: Rank<'_>) -> Seen {
    match seen {
        _ if via.is_empty() => Seen::Always,
        Seen::Always => Seen::Always,
        Seen::Unused => Seen::Unless(via),
        Seen::Unless(have) => {
            let unions: Vec<Vec<u32>> = have
                .iter()
                .flat_map(|a| {
                    via.iter().map(move |b| {
                        let mut u = [a.as_slice(), b.as_slice()].concat();
                        u.sort_unstable();
                        u.dedup();
                        u
                    })
                })
                .filter(|u| u.len() <= CAP)
                .collect();
            let alts = best(unions.iter(), rank);
            if alts.is_empty() {
                Seen::Always
            } else {
                Seen::Unless(alts)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use propnet_netlist::playout::eval_gates;
    use propnet_netlist::random::{random_netlist, RandomSpec};

    /// The gates' values when every `And`/`Or` with a dead guard (all its latches 0 in
    /// `state`) is set to 0 instead of evaluated, as a guarded block does.
    fn skipping(net: &Netlist, g: &SkipGuards, state: &[bool], inputs: &[bool]) -> Vec<bool> {
        let dead: Vec<bool> = g
            .groups
            .iter()
            .map(|set| set.iter().all(|&l| !state[l as usize]))
            .collect();
        let mut v: Vec<bool> = Vec::with_capacity(net.gates.len());
        for (i, gate) in net.gates.iter().enumerate() {
            let skipped = g.guards_of[i]
                .iter()
                .any(|&x| x != NONE && dead[x as usize]);
            v.push(match gate {
                _ if skipped => false,
                Gate::Latch(l) => state[l.index()],
                Gate::Input(x) => inputs[x.index()],
                Gate::Const(c) => *c,
                Gate::Not(x) => !v[x.index()],
                Gate::And(o) => o.iter().all(|x| v[x.index()]),
                Gate::Or(o) => o.iter().any(|x| v[x.index()]),
            });
        }
        v
    }

    /// Skipping the gates of dead guards changes no output (legal, goal, terminal, next
    /// state) in any state, and skips something.
    #[test]
    fn skipped_gates_change_no_output() {
        let (mut skipped, mut guarded) = (0usize, 0usize);
        for seed in 0..60 {
            let net = random_netlist(seed, &RandomSpec::default());
            let g = skip_guards(&net, |i| matches!(net.gates[i], Gate::And(_) | Gate::Or(_)));
            guarded += g.guards_of.iter().filter(|x| x[0] != NONE).count();
            let outputs: Vec<usize> = outputs(&net).map(|x| x.index()).collect();
            let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
            let mut bit = || {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x & 3 == 0
            };
            for _ in 0..200 {
                let state: Vec<bool> = (0..net.latches.len()).map(|_| bit()).collect();
                let inputs: Vec<bool> = (0..net.inputs.len()).map(|_| bit()).collect();
                let exact = eval_gates(&net, &state, &inputs);
                let fast = skipping(&net, &g, &state, &inputs);
                for &o in &outputs {
                    assert_eq!(exact[o], fast[o], "seed {seed}: output gate {o}");
                }
                skipped += exact.iter().zip(&fast).filter(|(a, b)| a != b).count();
            }
        }
        assert!(guarded > 1000, "only {guarded} gates guarded");
        assert!(
            skipped > 1000,
            "skipping changed only {skipped} gate values"
        );
    }
}
