//! Key guards: skip guards of the core phase from specializing the netlist on a *key*, a
//! group of latches of which every lane holds exactly one (where a king stands).
//!
//! For each member `k` of a key group the netlist is specialized on "`k` is 1, every other
//! member is 0": constants propagate from those latches, and a gate is *needed* for `k`
//! when an output reaches it through gates that did not become constant, or when it became
//! constant 1. A block whose every active lane holds exactly one member, and none of the
//! members a gate is needed for, may skip the gate (set its slot to 0): in each lane's
//! specialization the gate is dead or constant 0. Every output stays exact: a needed gate
//! that is not constant reads only needed gates and constants; a constant gate is fixed by
//! its constant operands alone (an `And` by one 0, an `Or` by one 1, or by all of them),
//! down to the key latches; a skipped constant is 0 as it should be, and constant-1 gates
//! are never skipped. This composes with the other skip guards ([`crate::observe`]), whose
//! argument only needs skipped gates to read 0.
//!
//! A gate's key guards are the member sets it is needed for, one per group, at most two
//! (the groups where it is needed for the smallest share of the members first): dead,
//! like any skip guard, while all of a set's latches are 0 in every lane. That every active
//! lane holds exactly one member is not proved but checked every block step
//! ([`KeyCheck::holds`]); a block where it fails keeps the group's key guards live.
//!
//! In chess the legal-move cone of the side to move is mostly the king-safety test of
//! every move for every square the king could stand on: specialized on the white king's
//! square, white's legal moves need 73 k of the 870 k operands they need otherwise, and
//! the guards of observe (at most two small latch sets per gate) find only part of that.
//!
//! Key groups come from latch names: fluents of one relation that differ only in some
//! argument positions (`(cell ?x ?y wk)`, `(control ?r)`), of which exactly one holds in
//! the initial state, 2 to 64 members. The largest [`SCORED`] of more than [`SMALL`]
//! members and the first [`SCORED`] smaller ones are scored by specializing on their
//! initial member (operands no longer needed), and the best disjoint ones are analysed in
//! full within [`BUDGET`] specializations (chess: the side to move and each king's square).
//!
//! A block of random playouts holds many keys (kings on many squares in mid-game;
//! BENCHMARKS.md, "CPU simulator figures moved from module docs (#39)"), so the guards pay only where lanes are sorted by key across
//! blocks (`pool`).

use crate::guard::NONE;
use propnet_netlist::{Gate, Netlist};
use std::cmp::Reverse;
use std::collections::HashMap;

/// Most members of a key group (one bit each in a `u64` mask).
const MAX_MEMBERS: usize = 64;

/// Candidate groups scored (one specialization each), of more than [`SMALL`] members and
/// of at most as many.
const SCORED: usize = 24;

/// Members of a small group (the side to move).
const SMALL: usize = 4;

/// Most specializations of the full analysis, over all chosen groups.
const BUDGET: usize = 160;

/// The key guards of a netlist's gates.
#[derive(Clone, Debug, Default)]
pub struct KeyGuards {
    /// Member latches of each chosen key group.
    pub groups: Vec<Vec<u32>>,
    /// Each guard: its key group and its latches (members of that group).
    pub sets: Vec<(u32, Vec<u32>)>,
    /// Per gate: its two best guards in `sets` (from different groups, the one holding
    /// the smaller share of its group's members first), [`NONE`] where absent.
    pub guard_of: Vec<[u32; 2]>,
}

/// The runtime side of a key group: its members and the guards (program numbering) that
/// are live whenever some active lane does not hold exactly one member.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyCheck {
    /// Member latches.
    pub members: Vec<u32>,
    /// Guards of the group, as indices of [`crate::program::Program::guards`].
    pub guards: Vec<u32>,
}

impl KeyCheck {
    /// Whether every lane of `active` holds exactly one member (`vals`: the slots, latches
    /// first).
    pub fn holds<const W: usize>(&self, vals: &[[u64; W]], active: &[u64; W]) -> bool {
        let (mut ones, mut twos) = ([0u64; W], [0u64; W]);
        for &l in &self.members {
            let v = &vals[l as usize];
            for j in 0..W {
                twos[j] |= ones[j] & v[j];
                ones[j] |= v[j];
            }
        }
        (0..W).all(|j| active[j] & (twos[j] | !ones[j]) == 0)
    }
}

/// The key guards of the gates `skippable` picks (the core phase's instructions).
pub fn key_guards(net: &Netlist, skippable: impl Fn(usize) -> bool) -> KeyGuards {
    let outputs = outputs(net);
    let mut spec = Specializer::new(net);
    let all = candidates(net);
    let small = all.iter().filter(|m| m.len() <= SMALL).cloned();
    let large = all.iter().filter(|m| m.len() > SMALL).take(SCORED).cloned();
    let mut scored: Vec<(usize, Vec<u32>)> = large
        .chain(small.take(SCORED))
        .map(|members| {
            let first = *members
                .iter()
                .find(|&&l| net.latches[l as usize].init)
                .expect("a candidate holds one member initially");
            spec.run(&members, first, &outputs);
            (spec.freed_operands(), members)
        })
        .collect();
    scored.sort_by_key(|(freed, m)| (Reverse(*freed), m.clone()));
    let mut taken = vec![false; net.latches.len()];
    let mut budget = BUDGET;
    let mut out = KeyGuards {
        guard_of: vec![[NONE; 2]; net.gates.len()],
        ..KeyGuards::default()
    };
    // Per gate: the share of its group's members its guards hold (smaller skips more).
    let mut share = vec![[f64::INFINITY; 2]; net.gates.len()];
    let mut index: HashMap<Vec<u32>, u32> = HashMap::new();
    for (freed, members) in scored {
        let clash = members.iter().any(|&l| taken[l as usize]);
        if freed == 0 || clash || members.len() > budget {
            continue;
        }
        budget -= members.len();
        let masks = spec.masks(&members, &outputs);
        let q = out.groups.len() as u32;
        for (i, &mask) in masks.iter().enumerate() {
            let n = mask.count_ones() as usize;
            let f = n as f64 / members.len() as f64;
            if !skippable(i) || n == 0 || n >= members.len() || f >= share[i][1] {
                continue;
            }
            let set: Vec<u32> = (0..members.len())
                .filter(|b| mask >> b & 1 == 1)
                .map(|b| members[b])
                .collect();
            let g = *index.entry(set).or_insert_with_key(|set| {
                out.sets.push((q, set.clone()));
                out.sets.len() as u32 - 1
            });
            let (s, o) = (&mut share[i], &mut out.guard_of[i]);
            if f < s[0] {
                *s = [f, s[0]];
                *o = [g, o[0]];
            } else {
                s[1] = f;
                o[1] = g;
            }
        }
        for &l in &members {
            taken[l as usize] = true;
        }
        out.groups.push(members);
    }
    out
}

/// The gates whose values leave the netlist ([`crate::observe::outputs`]), by index.
fn outputs(net: &Netlist) -> Vec<usize> {
    crate::observe::outputs(net).map(|g| g.index()).collect()
}

/// Candidate key groups, largest first: latches named by one relation with the same
/// arguments but at some positions, exactly one of them initially true, 2 to
/// [`MAX_MEMBERS`] of them; each member set once.
fn candidates(net: &Netlist) -> Vec<Vec<u32>> {
    let mut by_key: HashMap<(&str, u32, Vec<&str>), Vec<u32>> = HashMap::new();
    for (l, latch) in net.latches.iter().enumerate() {
        let Some((relation, args)) = split_term(&latch.name) else {
            continue;
        };
        if args.is_empty() || args.len() > 6 {
            continue;
        }
        for varied in 1..1u32 << args.len() {
            let fixed = (0..args.len())
                .filter(|&a| varied >> a & 1 == 0)
                .map(|a| args[a])
                .collect();
            by_key
                .entry((relation, varied, fixed))
                .or_default()
                .push(l as u32);
        }
    }
    let held = |m: &Vec<u32>| m.iter().filter(|&&l| net.latches[l as usize].init).count();
    let mut out: Vec<Vec<u32>> = by_key
        .into_values()
        .filter(|m| (2..=MAX_MEMBERS).contains(&m.len()) && held(m) == 1)
        .collect();
    out.sort_by_key(|m| (Reverse(m.len()), m.clone()));
    out.dedup();
    out
}

/// `(rel a b (f c))` → `rel` and its top-level arguments; `None` for an atom or text that
/// is not one term.
fn split_term(name: &str) -> Option<(&str, Vec<&str>)> {
    let inner = name.strip_prefix('(')?.strip_suffix(')')?;
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0i32, None);
    for (i, c) in inner.char_indices() {
        match c {
            '(' => {
                start.get_or_insert(i);
                depth += 1;
            }
            ')' => depth -= 1,
            c if c.is_whitespace() && depth == 0 => {
                if let Some(s) = start.take() {
                    parts.push(&inner[s..i]);
                }
                continue;
            }
            _ => {
                start.get_or_insert(i);
            }
        }
        if depth < 0 {
            return None;
        }
    }
    if let Some(s) = start {
        parts.push(&inner[s..]);
    }
    (depth == 0 && !parts.is_empty()).then(|| (parts[0], parts[1..].to_vec()))
}

/// Unknown (not constant) in a specialization.
const FREE: u8 = 2;

/// Specializes a netlist on one member of a key group (scratch reused between runs).
struct Specializer<'n> {
    net: &'n Netlist,
    /// Per latch: 0/1 when a key latch of the current run, else [`FREE`].
    latch: Vec<u8>,
    /// Per gate: 0, 1 or [`FREE`].
    value: Vec<u8>,
    /// Per gate: reached from an output through gates that are not constant.
    alive: Vec<bool>,
}

impl<'n> Specializer<'n> {
    fn new(net: &'n Netlist) -> Self {
        Specializer {
            net,
            latch: vec![FREE; net.latches.len()],
            value: vec![FREE; net.gates.len()],
            alive: vec![false; net.gates.len()],
        }
    }

    /// Per gate, the members (bit `b`: `members[b]`) it is needed for.
    fn masks(&mut self, members: &[u32], outputs: &[usize]) -> Vec<u64> {
        let mut masks = vec![0u64; self.net.gates.len()];
        for (b, &k) in members.iter().enumerate() {
            self.run(members, k, outputs);
            for (i, m) in masks.iter_mut().enumerate() {
                if self.alive[i] || self.value[i] == 1 {
                    *m |= 1 << b;
                }
            }
        }
        masks
    }

    /// Operands of `And`/`Or` gates not needed in the last specialization.
    fn freed_operands(&self) -> usize {
        let gates = self.net.gates.iter().enumerate();
        gates
            .filter(|&(i, _)| !(self.alive[i] || self.value[i] == 1))
            .map(|(_, g)| match g {
                Gate::And(v) | Gate::Or(v) => v.len(),
                _ => 0,
            })
            .sum()
    }

    /// Specializes on `one` being the member of `members` that is 1: constants forward,
    /// then liveness backward (consumers come after their operands in the arena).
    fn run(&mut self, members: &[u32], one: u32, outputs: &[usize]) {
        for &l in members {
            self.latch[l as usize] = u8::from(l == one);
        }
        for (i, g) in self.net.gates.iter().enumerate() {
            self.value[i] = match g {
                Gate::Const(b) => u8::from(*b),
                Gate::Input(_) => FREE,
                Gate::Latch(l) => self.latch[l.0 as usize],
                Gate::Not(x) => match self.value[x.index()] {
                    FREE => FREE,
                    v => 1 - v,
                },
                Gate::And(v) => fold(v.iter().map(|o| self.value[o.index()]), 0),
                Gate::Or(v) => fold(v.iter().map(|o| self.value[o.index()]), 1),
            };
        }
        for &l in members {
            self.latch[l as usize] = FREE;
        }
        self.alive.fill(false);
        for &o in outputs {
            self.alive[o] = self.value[o] == FREE;
        }
        for c in (0..self.net.gates.len()).rev() {
            if !self.alive[c] {
                continue;
            }
            let ops = match &self.net.gates[c] {
                Gate::And(v) | Gate::Or(v) => v.as_slice(),
                Gate::Not(x) => std::slice::from_ref(x),
                _ => continue,
            };
            for o in ops {
                if self.value[o.index()] == FREE {
                    self.alive[o.index()] = true;
                }
            }
        }
    }
}

/// The constant value of an `And` (`controlling` 0) or `Or` (1) of operands with these
/// values: `controlling` if one has it, the other value if all are constant, else free.
fn fold(values: impl Iterator<Item = u8>, controlling: u8) -> u8 {
    let mut all_constant = true;
    for v in values {
        if v == controlling {
            return controlling;
        }
        all_constant &= v != FREE;
    }
    if all_constant {
        1 - controlling
    } else {
        FREE
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use propnet_netlist::playout::eval_gates;
    use propnet_netlist::random::{random_netlist, with_rotating_group, RandomSpec};
    use propnet_netlist::rng::threefry2x32_20;

    /// Gate values with every gate whose key guard is dead in this state set to 0, as a
    /// block whose lanes all hold this state skips it.
    fn skipping(net: &Netlist, keys: &KeyGuards, latches: &[bool], inputs: &[bool]) -> Vec<bool> {
        let dead = |g: u32| {
            g != NONE
                && keys.sets[g as usize]
                    .1
                    .iter()
                    .all(|&l| !latches[l as usize])
        };
        let mut v: Vec<bool> = Vec::with_capacity(net.gates.len());
        for (i, g) in net.gates.iter().enumerate() {
            let x = match g {
                _ if keys.guard_of[i].iter().any(|&k| dead(k)) => false,
                Gate::Const(b) => *b,
                Gate::Input(x) => inputs[x.0 as usize],
                Gate::Latch(l) => latches[l.0 as usize],
                Gate::Not(x) => !v[x.index()],
                Gate::And(o) => o.iter().all(|x| v[x.index()]),
                Gate::Or(o) => o.iter().any(|x| v[x.index()]),
            };
            v.push(x);
        }
        v
    }

    /// In states holding exactly one member of the group (any other latches and inputs),
    /// skipping the gates of dead key guards changes no output; and the guards do skip.
    #[test]
    fn skipped_gates_change_no_output() {
        let (mut skipped, mut broken) = (0usize, 0usize);
        for seed in 0..40u64 {
            let spec = RandomSpec {
                latches: 12 + seed as usize % 20,
                view_gates: 40 + seed as usize * 3,
                next_gates: 40,
                max_fanin: 2 + seed as usize % 4,
                ..RandomSpec::default()
            };
            let mut net = random_netlist(900 + seed, &spec);
            let members = 2 + seed as usize % 9;
            with_rotating_group(&mut net, members, seed as usize);
            let keys = key_guards(&net, |_| true);
            let outs = outputs(&net);
            for t in 0..64u32 {
                let bit = |i: usize, salt: u32| {
                    threefry2x32_20([t, salt], [i as u32, seed as u32])[0] & 1 == 1
                };
                let mut latches: Vec<bool> = (0..net.latches.len()).map(|i| bit(i, 1)).collect();
                let one = t as usize % members;
                for (l, held) in latches.iter_mut().enumerate().take(members) {
                    *held = l == one;
                }
                let inputs: Vec<bool> = (0..net.inputs.len()).map(|i| bit(i, 2)).collect();
                let want = eval_gates(&net, &latches, &inputs);
                let got = skipping(&net, &keys, &latches, &inputs);
                for &o in &outs {
                    assert_eq!(got[o], want[o], "seed {seed}, state {t}: output gate {o}");
                }
                skipped += (0..net.gates.len()).filter(|&i| got[i] != want[i]).count();
                // Control: skipping every key-guarded gate, live or not, does change outputs.
                let all_dead = KeyGuards {
                    sets: keys.sets.iter().map(|(q, _)| (*q, Vec::new())).collect(),
                    ..keys.clone()
                };
                let wrong = skipping(&net, &all_dead, &latches, &inputs);
                broken += usize::from(outs.iter().any(|&o| wrong[o] != want[o]));
            }
        }
        assert!(
            skipped > 0,
            "no key guard ever skipped a gate that mattered elsewhere"
        );
        assert!(broken > 0, "the comparison cannot tell skipped live gates");
    }

    /// The group found in a netlist whose first latches rotate one token, and not in one
    /// where two of them hold initially.
    #[test]
    fn finds_groups_holding_one_member() {
        let mut net = random_netlist(5, &RandomSpec::default());
        with_rotating_group(&mut net, 6, 2);
        let groups = candidates(&net);
        assert!(groups.contains(&(0..6).collect::<Vec<u32>>()), "{groups:?}");
        net.latches[3].init = true;
        assert!(!candidates(&net).contains(&(0..6).collect::<Vec<u32>>()));
    }

    #[test]
    fn terms_split_at_top_level() {
        assert_eq!(
            split_term("(cell a 1 wk)"),
            Some(("cell", vec!["a", "1", "wk"]))
        );
        assert_eq!(
            split_term("(at (pos 1 2)  x)"),
            Some(("at", vec!["(pos 1 2)", "x"]))
        );
        assert_eq!(split_term("(control)"), Some(("control", vec![])));
        assert_eq!(split_term("open"), None);
        assert_eq!(split_term("(a (b)"), None);
        assert_eq!(split_term("(a b))"), None);
    }

    #[test]
    fn fold_follows_and_or() {
        assert_eq!(fold([1, FREE, 0].into_iter(), 0), 0);
        assert_eq!(fold([1, 1].into_iter(), 0), 1);
        assert_eq!(fold([1, FREE].into_iter(), 0), FREE);
        assert_eq!(fold([0, FREE, 1].into_iter(), 1), 1);
        assert_eq!(fold([0, 0].into_iter(), 1), 0);
        assert_eq!(fold(std::iter::empty(), 0), 1);
        assert_eq!(fold(std::iter::empty(), 1), 0);
    }
}
