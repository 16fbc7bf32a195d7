//! Zero guards: groups of latches whose being zero in every lane of a block forces whole
//! runs of the next phase to zero, so the block skips those runs.
//!
//! Each gate gets a *zero set*: latches such that the gate is 0 wherever all of them are 0
//! (a latch: itself; `And`: the smallest zero set of an operand; `Or`: the union of its
//! operands'; inputs, negations and `true`: none). Latches named together in a small zero
//! set (at most [`LINK`]) are joined into one group, and a gate whose zero set lies within
//! one group belongs to it: while the group's latches are all 0 the gate is 0. In hex,
//! group `k` is `step(k)`, `owner(k, ·)` and `connected(k, ·, ·)`, and its gates are the
//! next values of `connected(k, ·, ·)` and `transfer(k)` with its adjacency terms: the work
//! of a group no lane has reached yet.

use propnet_netlist::{Gate, Netlist};

/// No group.
pub const NONE: u32 = u32::MAX;

/// Largest zero set kept (a gate with a larger one has none).
pub(super) const CAP: usize = 256;

/// Largest zero set whose latches are joined into one group.
pub(super) const LINK: usize = 4;

/// The groups of a netlist and the group of each gate.
#[derive(Clone, Debug, Default)]
pub struct Guards {
    /// Latch indices of each group.
    pub groups: Vec<Vec<u32>>,
    /// Per gate: its group, or [`NONE`].
    pub group_of: Vec<u32>,
}

/// Most latch entries all zero sets together may hold (64 Mi, 256 MiB); a netlist that
/// needs more gets no guards.
pub(super) const MAX_ENTRIES: usize = 1 << 26;

/// The zero guards of `net` (none, every gate [`NONE`], when its zero sets would hold more
/// than [`MAX_ENTRIES`] latch entries).
pub fn guards(net: &Netlist) -> Guards {
    match zero_sets(net) {
        Some(zero) => group(net, &zero),
        None => no_guards(net),
    }
}

/// Every gate [`NONE`].
fn no_guards(net: &Netlist) -> Guards {
    Guards {
        groups: Vec::new(),
        group_of: vec![NONE; net.gates.len()],
    }
}

/// Latches named together in a set of `sets` of at most [`LINK`] are joined into one group;
/// a gate whose set lies within one group belongs to it.
fn group(net: &Netlist, sets: &[Option<Vec<u32>>]) -> Guards {
    let mut parent: Vec<u32> = (0..net.latches.len() as u32).collect();
    for set in sets.iter().flatten().filter(|s| s.len() <= LINK) {
        for w in set.windows(2) {
            let (a, b) = (find(&mut parent, w[0]), find(&mut parent, w[1]));
            parent[a.max(b) as usize] = a.min(b);
        }
    }
    let mut index = vec![NONE; net.latches.len()];
    let mut groups: Vec<Vec<u32>> = Vec::new();
    for l in 0..net.latches.len() as u32 {
        let root = find(&mut parent, l) as usize;
        if index[root] == NONE {
            index[root] = groups.len() as u32;
            groups.push(Vec::new());
        }
        groups[index[root] as usize].push(l);
    }
    let group_of = sets
        .iter()
        .map(|set| match set.as_deref() {
            Some([first, rest @ ..]) => {
                let g = index[find(&mut parent, *first) as usize];
                let same = rest
                    .iter()
                    .all(|&l| index[find(&mut parent, l) as usize] == g);
                if same {
                    g
                } else {
                    NONE
                }
            }
            _ => NONE,
        })
        .collect();
    Guards { groups, group_of }
}

/// Per gate, its zero set (sorted latch indices), or `None`; `None` for all when they
/// would hold more than [`MAX_ENTRIES`] entries.
pub(super) fn zero_sets(net: &Netlist) -> Option<Vec<Option<Vec<u32>>>> {
    let mut zero: Vec<Option<Vec<u32>>> = Vec::with_capacity(net.gates.len());
    let mut entries = 0usize;
    for g in &net.gates {
        let set = match g {
            Gate::Latch(x) => Some(vec![x.0]),
            Gate::Const(false) => Some(Vec::new()),
            Gate::Const(true) | Gate::Input(_) | Gate::Not(_) => None,
            Gate::And(v) => v
                .iter()
                .filter_map(|o| zero[o.index()].as_ref())
                .min_by_key(|s| s.len())
                .cloned(),
            Gate::Or(v) => {
                let mut union = Vec::new();
                let all = v.iter().all(|o| match &zero[o.index()] {
                    Some(s) if union.len() + s.len() <= 2 * CAP => {
                        union.extend_from_slice(s);
                        true
                    }
                    _ => false,
                });
                union.sort_unstable();
                union.dedup();
                (all && union.len() <= CAP).then_some(union)
            }
        };
        entries += set.as_ref().map_or(0, Vec::len);
        if entries > MAX_ENTRIES {
            return None;
        }
        zero.push(set);
    }
    Some(zero)
}

/// The root of `x` in the union-find forest `parent`, halving paths on the way.
fn find(parent: &mut [u32], mut x: u32) -> u32 {
    while parent[x as usize] != x {
        let up = parent[parent[x as usize] as usize];
        parent[x as usize] = up;
        x = up;
    }
    x
}

#[cfg(test)]
mod tests {
    use super::*;
    use propnet_netlist::playout::eval_gates;
    use propnet_netlist::random::{random_netlist, RandomSpec};

    /// A gate of a group is 0 in every state where the group's latches are all 0.
    #[test]
    fn a_gate_is_zero_when_its_group_is() {
        let mut checked = 0;
        for seed in 0..40 {
            let net = random_netlist(seed, &RandomSpec::default());
            let g = guards(&net);
            checked += g.group_of.iter().filter(|&&x| x != NONE).count();
            let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
            for group in 0..g.groups.len() {
                for _ in 0..8 {
                    let mut state: Vec<bool> = (0..net.latches.len())
                        .map(|_| {
                            x ^= x << 13;
                            x ^= x >> 7;
                            x ^= x << 17;
                            x & 1 == 1
                        })
                        .collect();
                    for &l in &g.groups[group] {
                        state[l as usize] = false;
                    }
                    let inputs: Vec<bool> = (0..net.inputs.len())
                        .map(|i| (x >> (i % 64)) & 1 == 1)
                        .collect();
                    let v = eval_gates(&net, &state, &inputs);
                    for (gate, &of) in g.group_of.iter().enumerate() {
                        assert!(of != group as u32 || !v[gate], "seed {seed}: gate {gate}");
                    }
                }
            }
        }
        assert!(checked > 1000, "only {checked} gates have a group");
    }
}
