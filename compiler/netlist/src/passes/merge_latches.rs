//! Merges latches that hold the same value, or complementary values, in every reachable
//! state (signal correspondence: C.A.J. van Eijk, "Sequential equivalence checking based on
//! structural similarities", IEEE TCAD 19(7), 2000). Candidate classes come from random
//! playouts; they are refined until induction proves them: if every latch of every class
//! equals its class representative (up to a fixed phase) now, their `next` functions are
//! structurally identical (up to that phase) once each latch is read as its representative,
//! for every input. A merged latch becomes an [`AliasedFluent`] of its representative, so the
//! full game state stays observable.

use super::merge_equivalent::WordHasher;
use super::rebuild::{rebuild, use_counts, Rewrite};
use crate::playout::eval_lanes;
use crate::rng::{choose, draw};
use crate::{AliasedFluent, Gate, GateId, LatchId, Netlist};
use std::collections::HashMap;
use std::hash::BuildHasherDefault;

type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<WordHasher>>;

/// Gate evaluations (of 64 states each) spent on sampling states, two per step, for between
/// 16 and 512 steps. Fewer samples only cost more refinement rounds, never a wrong merge.
const SAMPLE_GATE_BUDGET: usize = 20_000_000;

/// Legal-move checks (one per move, lane and step) spent on choosing the sampled moves; it
/// also bounds the steps (to no fewer than 16), so a small game with 10,000 moves samples
/// in a fraction of a second rather than 30 s.
const SAMPLE_LEGAL_BUDGET: usize = 64_000_000;

/// Gates hashed over all refinement rounds before the pass gives up (merging nothing): a
/// class that loses one member per round (a step counter beyond the sampled depth) would
/// otherwise cost a round per member.
const REFINE_GATE_BUDGET: usize = 40_000_000;

/// Runs the pass; returns true when a latch was merged into another.
pub fn run(net: &mut Netlist) -> bool {
    if net.latches.len() < 2 {
        return false;
    }
    let mut classes = Classes::from_samples(net);
    let mut work = 0;
    while classes.refine(net, &mut work) {
        if work > REFINE_GATE_BUDGET {
            return false; // not proven in time: merging nothing is always sound
        }
    }
    let merged = classes.worth_merging(net);
    if merged.iter().all(|m| m.is_none()) {
        return false;
    }
    apply(net, &merged);
    true
}

/// A partition of the latches: each latch's class representative. A latch's phase (true:
/// it is assumed to be the complement of its representative) is not stored: it is the
/// difference of their `init`s ([`Classes::phase`]).
struct Classes {
    rep: Vec<u32>,
}

impl Classes {
    /// Latches grouped by their values over sampled reachable states, each normalized so the
    /// initial state reads 0 (complementary latches land in one class).
    fn from_samples(net: &Netlist) -> Self {
        let signatures = sample(net);
        let mut first: HashMap<&[u64], u32> = HashMap::new();
        let mut rep = Vec::with_capacity(net.latches.len());
        for (l, sig) in signatures.iter().enumerate() {
            rep.push(*first.entry(sig.as_slice()).or_insert(l as u32));
        }
        Classes { rep }
    }

    /// Latch `l`'s phase relative to its representative: the difference of their `init`s
    /// (the initial state is a reachable state, so a latch equal to its representative
    /// in every reachable state has the same `init`, a complementary one the other).
    fn phase(&self, net: &Netlist, l: usize) -> bool {
        net.latches[l].init != net.latches[self.rep[l] as usize].init
    }

    /// One round of refinement: splits every class by its members' `next` functions under
    /// the current hypothesis. Returns true when some class split; adds the gates hashed to
    /// `work`.
    fn refine(&mut self, net: &Netlist, work: &mut usize) -> bool {
        let mut size = vec![0u32; net.latches.len()];
        self.rep.iter().for_each(|&r| size[r as usize] += 1);
        let wanted: Vec<usize> = (0..net.latches.len())
            .filter(|&l| size[self.rep[l] as usize] > 1)
            .collect();
        if wanted.is_empty() {
            return false;
        }
        let lits = Canon::new(net, self).literals(net, &wanted, work);
        let mut split: HashMap<(u32, u32), u32> = HashMap::new();
        let mut changed = false;
        for (&l, lit) in wanted.iter().zip(lits) {
            let key = (self.rep[l], lit ^ u32::from(self.phase(net, l)));
            let new = *split.entry(key).or_insert(l as u32);
            changed |= new != self.rep[l];
            self.rep[l] = new;
        }
        changed
    }

    /// The proven merges that pay: per latch, `Some((representative, phase))` when it is
    /// dropped. A complementary latch that is read costs a `Not`, so it is merged only when
    /// its `next` gate, a logic gate used by nothing else, dies with it.
    fn worth_merging(&self, net: &Netlist) -> Vec<Option<(u32, bool)>> {
        let uses = use_counts(net);
        let mut read = vec![false; net.latches.len()];
        for g in &net.gates {
            if let Gate::Latch(l) = g {
                read[l.index()] = true;
            }
        }
        (0..net.latches.len())
            .map(|l| {
                let (r, p) = (self.rep[l], self.phase(net, l));
                let next = net.latches[l].next;
                let own_logic = uses[next.index()] == 1
                    && matches!(net.gate(next), Gate::And(_) | Gate::Or(_) | Gate::Not(_));
                (r as usize != l && (!p || !read[l] || own_logic)).then_some((r, p))
            })
            .collect()
    }
}

/// Per latch, its values over states sampled by 64 random playouts from the initial state
/// run side by side (word `k` of a signature holds step `k` of every playout, one per bit),
/// each XORed with the latch's `init`. A playout that ends, or reaches 256 moves, restarts.
fn sample(net: &Netlist) -> Vec<Vec<u64>> {
    let moves: usize = net.roles.iter().map(|r| r.legal.len()).sum();
    let steps = (SAMPLE_GATE_BUDGET / (2 * net.gates.len() + 1))
        .min(SAMPLE_LEGAL_BUDGET / (64 * moves + 1))
        .clamp(16, 512);
    let init: Vec<u64> = net
        .latches
        .iter()
        .map(|l| 0u64.wrapping_sub(l.init.into()))
        .collect();
    let mut sig = vec![vec![0u64; steps]; net.latches.len()];
    let mut state = init.clone();
    let mut playout: Vec<u32> = (0..64).collect();
    let mut depth = [0u32; 64];
    let mut next_playout = 64;
    let mut inputs = vec![0u64; net.inputs.len()];
    let (mut picks, mut legal) = (Vec::with_capacity(net.roles.len()), Vec::new());
    for k in 0..steps {
        for (l, s) in sig.iter_mut().enumerate() {
            s[k] = state[l] ^ init[l];
        }
        inputs.fill(0);
        let values = eval_lanes(net, &state, &inputs);
        let mut restart = 0u64;
        for lane in 0..64 {
            let bit = 1u64 << lane;
            picks.clear();
            for (r, role) in net.roles.iter().enumerate() {
                legal.clear();
                legal.extend(
                    role.legal
                        .iter()
                        .filter(|m| values[m.gate.index()] & bit != 0)
                        .map(|m| m.input.index()),
                );
                if legal.is_empty() {
                    break;
                }
                let x = draw(SAMPLE_SEED, playout[lane], depth[lane], r as u32);
                picks.push(legal[choose(x, legal.len() as u32) as usize]);
            }
            let ended = values[net.terminal.index()] & bit != 0 || depth[lane] >= 256;
            if ended || picks.len() < net.roles.len() {
                restart |= bit;
                (playout[lane], depth[lane]) = (next_playout, 0);
                next_playout += 1;
            } else {
                picks.iter().for_each(|&i| inputs[i] |= bit);
                depth[lane] += 1;
            }
        }
        let values = eval_lanes(net, &state, &inputs);
        for (l, x) in net.latches.iter().enumerate() {
            state[l] = (values[x.next.index()] & !restart) | (init[l] & restart);
        }
    }
    sig
}

/// Seed of the sampling playouts' moves.
const SAMPLE_SEED: u64 = 0x6d65_7267;

/// Structural hashing of gates as and-inverter graph literals (`2 * node + complemented`;
/// node 0 is false) with each latch read as its class representative in its phase.
struct Canon {
    /// Literal of each source: per latch, its representative's node in its phase.
    latch: Vec<u32>,
    /// Literal of each input.
    input: Vec<u32>,
    /// `And` nodes by their sorted operand literals.
    table: FastMap<Vec<u32>, u32>,
    nodes: u32,
}

impl Canon {
    fn new(net: &Netlist, c: &Classes) -> Self {
        let mut nodes = 1;
        let mut fresh = || {
            nodes += 1;
            2 * (nodes - 1)
        };
        let mut rep_lit = vec![u32::MAX; net.latches.len()];
        let latch = (0..net.latches.len())
            .map(|l| {
                let r = c.rep[l] as usize;
                if rep_lit[r] == u32::MAX {
                    rep_lit[r] = fresh();
                }
                rep_lit[r] ^ u32::from(c.phase(net, l))
            })
            .collect();
        let input = (0..net.inputs.len()).map(|_| fresh()).collect();
        Canon {
            latch,
            input,
            table: FastMap::default(),
            nodes,
        }
    }

    /// The literal of the conjunction of `ops`, folding constants, duplicates and `x ∧ ¬x`.
    fn and(&mut self, mut ops: Vec<u32>) -> u32 {
        ops.sort_unstable();
        ops.dedup();
        if ops.first() == Some(&0) || ops.windows(2).any(|w| w[0] ^ 1 == w[1]) {
            return 0;
        }
        ops.retain(|&o| o != 1);
        match ops.len() {
            0 => 1,
            1 => ops[0],
            _ => {
                let next = self.nodes;
                let node = *self.table.entry(ops).or_insert(next);
                if node == next {
                    self.nodes += 1;
                }
                2 * node
            }
        }
    }

    /// The literals of the `next` gates of latches `wanted`, hashing only their cones (their
    /// size is added to `work`).
    fn literals(mut self, net: &Netlist, wanted: &[usize], work: &mut usize) -> Vec<u32> {
        let mut needed = vec![false; net.gates.len()];
        wanted
            .iter()
            .for_each(|&l| needed[net.latches[l].next.index()] = true);
        for i in (0..net.gates.len()).rev() {
            if needed[i] {
                net.gates[i]
                    .operands()
                    .iter()
                    .for_each(|o| needed[o.index()] = true);
            }
        }
        let mut lit = vec![0u32; net.gates.len()];
        for (i, g) in net.gates.iter().enumerate() {
            if !needed[i] {
                continue;
            }
            *work += 1;
            let of = |ops: &[GateId], flip: u32| -> Vec<u32> {
                ops.iter().map(|o| lit[o.index()] ^ flip).collect()
            };
            lit[i] = match g {
                Gate::Const(v) => u32::from(*v),
                Gate::Input(x) => self.input[x.index()],
                Gate::Latch(l) => self.latch[l.index()],
                Gate::Not(a) => lit[a.index()] ^ 1,
                Gate::And(ops) => {
                    let v = of(ops, 0);
                    self.and(v)
                }
                Gate::Or(ops) => {
                    let v = of(ops, 1);
                    self.and(v) ^ 1
                }
            };
        }
        wanted
            .iter()
            .map(|&l| lit[net.latches[l].next.index()])
            .collect()
    }
}

/// Drops every latch with `merged[l] = Some((rep, phase))`: reads of it become reads of
/// `rep` (through a `Not` when `phase`), its fluent an alias of `rep`.
fn apply(net: &mut Netlist, merged: &[Option<(u32, bool)>]) {
    let mut renumber = vec![LatchId(u32::MAX); net.latches.len()];
    let mut kept = 0;
    for (l, m) in merged.iter().enumerate() {
        if m.is_none() {
            renumber[l] = LatchId(kept);
            kept += 1;
        }
    }
    // The rebuilt gate reading each kept latch, created where its first reader is met.
    let mut reader: Vec<Option<GateId>> = vec![None; net.latches.len()];
    rebuild(net, |rb, _, gate| {
        let Gate::Latch(l) = gate else {
            return Rewrite::Keep;
        };
        let (r, phase) = merged[l.index()].unwrap_or((l.0, false));
        let r = r as usize;
        let read = match reader[r] {
            Some(g) => g,
            None if !phase && r == l.index() => {
                reader[r] = Some(rb.next_id());
                return Rewrite::Gate(Gate::Latch(renumber[r]));
            }
            None => *reader[r].insert(rb.push(Gate::Latch(renumber[r]))),
        };
        if phase {
            Rewrite::Gate(Gate::Not(read))
        } else {
            Rewrite::To(read)
        }
    });
    let resolve = |l: LatchId, negated: bool| match merged[l.index()] {
        Some((r, p)) => (renumber[r as usize], negated != p),
        None => (renumber[l.index()], negated),
    };
    let mut aliases: Vec<AliasedFluent> = std::mem::take(&mut net.aliased_fluents)
        .into_iter()
        .map(|a| {
            let (latch, negated) = resolve(a.latch, a.negated);
            AliasedFluent {
                latch,
                negated,
                ..a
            }
        })
        .collect();
    let latches = std::mem::take(&mut net.latches);
    for (l, x) in latches.into_iter().enumerate() {
        match merged[l] {
            Some((r, p)) => aliases.push(AliasedFluent {
                name: x.name,
                latch: renumber[r as usize],
                negated: p,
            }),
            None => net.latches.push(x),
        }
    }
    aliases.sort_unstable_by(|a, b| a.name.as_bytes().cmp(b.name.as_bytes()));
    net.aliased_fluents = aliases;
}
