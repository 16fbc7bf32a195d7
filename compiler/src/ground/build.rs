//! Builds the propnet [`Netlist`] from the reachable atoms and ground rule instances.
//!
//! One latch per reachable `true` fluent (sorted by fluent text), one input per reachable
//! `does` (grouped by role, sorted by move text), and for every other dynamic atom the `Or`
//! of its instances, each the `And` of its body literals (`Not` for negated ones). Static
//! atoms are constants. Gates are hash-consed and trivially constant-folded as they are made.
//!
//! # Positive loops
//! GDL allows a view to support itself through a cycle of positive dependencies (legal
//! under stratified negation; e.g. ggp-base issue #9, cubicup). The GDL meaning is the least
//! fixpoint: an atom on a cycle is true only if it has a derivation that starts outside the
//! cycle *in this state*. The netlist is acyclic, so for each cyclic strongly connected
//! component of the ground atom dependency graph, of `k` atoms, the builder emits unrolled
//! rounds: round 0 is all false, round `i` computes every atom of the component from the
//! round `i-1` values (and the final values of atoms outside it). The operator is monotone,
//! so each round either adds at least one true atom or is the fixpoint; after `k` rounds the
//! fixpoint is reached. `k` is tight in the worst case (a chain around the cycle fed from
//! outside at one end needs all `k` rounds), so the cost is up to `k` copies of the
//! component's instance gates. The builder stops early, exactly, when a round produces the
//! very same gates as the previous one (hash-consing makes that a cheap id comparison),
//! which happens whenever the rounds fold to constants or stabilise structurally.
//! Stratified negation never lies on a cycle; a negative edge inside a component is an error.

use super::fixpoint::Grounder;
use super::instances::Instances;
use crate::graph::{sccs_from, Graph};
use super::terms::{AtomId, GTerm};
use super::GroundError;
use propnet_netlist::{
    Gate, GateId, Goal, Input, InputId, Latch, LatchId, Legal, Netlist, Role, RoleId,
};
use rustc_hash::FxHashMap;
use std::collections::HashMap;

/// Counts describing the build, for [`super::CompileReport`].
#[derive(Clone, Debug, Default)]
pub struct BuildCounts {
    /// Cyclic components of the atom graph.
    pub cyclic_sccs: usize,
    /// Atoms in the largest cyclic component.
    pub largest_cyclic_scc: usize,
    /// Unrolled rounds emitted over all cyclic components.
    pub rounds: usize,
}

/// Makes gates, sharing identical ones and folding constants.
struct Gates {
    net: Netlist,
    memo: FxHashMap<Gate, GateId>,
}

impl Gates {
    fn push(&mut self, g: Gate) -> GateId {
        if let Some(&id) = self.memo.get(&g) {
            return id;
        }
        let id = self.net.push(g.clone());
        self.memo.insert(g, id);
        id
    }
    fn constant(&mut self, b: bool) -> GateId {
        self.push(Gate::Const(b))
    }
    fn as_const(&self, id: GateId) -> Option<bool> {
        match self.net.gate(id) {
            Gate::Const(b) => Some(*b),
            _ => None,
        }
    }
    fn not(&mut self, a: GateId) -> GateId {
        match self.net.gate(a) {
            Gate::Const(b) => {
                let b = !*b;
                self.constant(b)
            }
            Gate::Not(x) => *x,
            _ => self.push(Gate::Not(a)),
        }
    }
    /// `And` (`is_and`) or `Or` of `ops`.
    fn nary(&mut self, is_and: bool, mut ops: Vec<GateId>) -> GateId {
        // The absorbing constant is false for And, true for Or.
        let absorbing = !is_and;
        let mut kept = Vec::with_capacity(ops.len());
        for o in ops.drain(..) {
            match self.as_const(o) {
                Some(b) if b == absorbing => return self.constant(absorbing),
                Some(_) => {}
                None => kept.push(o),
            }
        }
        kept.sort_unstable();
        kept.dedup();
        match kept.len() {
            0 => self.constant(is_and),
            1 => kept[0],
            _ => self.push(if is_and {
                Gate::And(kept)
            } else {
                Gate::Or(kept)
            }),
        }
    }
}

const NONE: u32 = u32::MAX;

/// Builds the netlist.
///
/// # Errors
/// [`GroundError::BadGoal`] for a goal value that is not an integer in 0..=100, and
/// [`GroundError::Unstratified`] for a negative dependency inside a cycle of atoms.
pub fn build(g: &Grounder<'_>, inst: &Instances) -> Result<(Netlist, BuildCounts), GroundError> {
    let low = g.low;
    let sp = low.special;
    let syms = &low.syms;
    let text = |t| g.terms.text(syms, t, usize::MAX);
    let natoms = g.atoms.len();
    let mut gates = Gates {
        net: Netlist::default(),
        memo: FxHashMap::default(),
    };
    let mut gate_of = vec![NONE; natoms];
    let mut counts = BuildCounts::default();

    // Latches: reachable `true` fluents sorted by text.
    let mut fluents: Vec<(String, AtomId)> = g.rel_atoms[sp.true_.0 as usize]
        .iter()
        .map(|&a| (text(g.atoms.args(a)[0]), a))
        .collect();
    fluents.sort();
    for (i, (_, a)) in fluents.iter().enumerate() {
        gate_of[a.index()] = gates.push(Gate::Latch(LatchId(i as u32))).0;
    }

    // Inputs: reachable `does` of a role, by role then move text.
    let role_index: HashMap<GTerm, usize> = low
        .roles
        .iter()
        .enumerate()
        .map(|(i, &s)| (GTerm::Const(s), i))
        .collect();
    let mut moves: Vec<(usize, String, AtomId)> = Vec::new();
    for &a in &g.rel_atoms[sp.does.0 as usize] {
        let args = g.atoms.args(a);
        if let Some(&r) = role_index.get(g.terms.get(args[0])) {
            moves.push((r, text(args[1]), a));
        }
    }
    moves.sort();
    for (i, (r, name, a)) in moves.iter().enumerate() {
        gate_of[a.index()] = gates.push(Gate::Input(InputId(i as u32))).0;
        gates.net.inputs.push(Input {
            role: RoleId(*r as u32),
            name: name.clone(),
        });
    }

    // Instances grouped by head.
    let mut by_head_start = vec![0u32; natoms + 1];
    for h in &inst.heads {
        by_head_start[h.index() + 1] += 1;
    }
    for i in 0..natoms {
        by_head_start[i + 1] += by_head_start[i];
    }
    let mut fill = by_head_start.clone();
    let mut by_head = vec![0u32; inst.len()];
    for (i, h) in inst.heads.iter().enumerate() {
        by_head[fill[h.index()] as usize] = i as u32;
        fill[h.index()] += 1;
    }
    let insts_of = |a: usize| &by_head[by_head_start[a] as usize..by_head_start[a + 1] as usize];

    // Atom dependency graph (head -> body atoms that are views, not latches/inputs).
    let mut edges = Vec::new();
    for (i, h) in inst.heads.iter().enumerate() {
        for &l in inst.body(i) {
            let b = l >> 1;
            if gate_of[b as usize] == NONE {
                edges.push((h.0, b));
            }
        }
    }
    edges.sort_unstable();
    edges.dedup();
    let graph = Graph::from_edges(natoms, &edges);
    let is_dynamic = |a: AtomId| !low.is_static[g.atoms.rel(a).0 as usize];
    let mut roots: Vec<u32> = Vec::new();
    for rel in [sp.next, sp.legal, sp.goal, sp.terminal] {
        roots.extend(
            g.rel_atoms[rel.0 as usize]
                .iter()
                .filter(|&&a| is_dynamic(a))
                .map(|a| a.0),
        );
    }

    let lit_gate = |gates: &mut Gates, gate_of: &[u32], l: u32| {
        let gid = GateId(gate_of[(l >> 1) as usize]);
        if l & 1 == 1 {
            gates.not(gid)
        } else {
            gid
        }
    };
    let mut pos_in = vec![NONE; natoms];
    for comp in sccs_from(&graph, roots) {
        if !graph.is_cyclic(&comp) {
            let a = comp[0] as usize;
            let mut ors = Vec::new();
            for &i in insts_of(a) {
                let ands: Vec<GateId> = inst
                    .body(i as usize)
                    .iter()
                    .map(|&l| lit_gate(&mut gates, &gate_of, l))
                    .collect();
                ors.push(gates.nary(true, ands));
            }
            gate_of[a] = gates.nary(false, ors).0;
            continue;
        }
        counts.cyclic_sccs += 1;
        counts.largest_cyclic_scc = counts.largest_cyclic_scc.max(comp.len());
        for (p, &a) in comp.iter().enumerate() {
            pos_in[a as usize] = p as u32;
        }
        for &a in &comp {
            for &i in insts_of(a as usize) {
                for &l in inst.body(i as usize) {
                    if l & 1 == 1 && pos_in[(l >> 1) as usize] != NONE {
                        let rule = &low.rules[g.origin[a as usize] as usize];
                        return Err(GroundError::Unstratified {
                            span: rule.span,
                            message: format!(
                                "{} depends negatively on {} through a cycle",
                                atom_text(g, AtomId(a)),
                                atom_text(g, AtomId(l >> 1))
                            ),
                        });
                    }
                }
            }
        }
        let f = gates.constant(false);
        let mut prev = vec![f; comp.len()];
        for _round in 0..comp.len() {
            counts.rounds += 1;
            let mut cur = Vec::with_capacity(comp.len());
            for &a in &comp {
                let mut ors = Vec::new();
                for &i in insts_of(a as usize) {
                    let ands: Vec<GateId> = inst
                        .body(i as usize)
                        .iter()
                        .map(|&l| {
                            let p = pos_in[(l >> 1) as usize];
                            if p != NONE {
                                prev[p as usize]
                            } else {
                                lit_gate(&mut gates, &gate_of, l)
                            }
                        })
                        .collect();
                    ors.push(gates.nary(true, ands));
                }
                cur.push(gates.nary(false, ors));
            }
            let stable = cur == prev;
            prev = cur;
            if stable {
                break;
            }
        }
        for (p, &a) in comp.iter().enumerate() {
            gate_of[a as usize] = prev[p].0;
            pos_in[a as usize] = NONE;
        }
    }

    // The gate of an output atom: constants for static relations and unreachable atoms.
    let out_gate = |gates: &mut Gates, a: Option<AtomId>| -> GateId {
        match a {
            None => gates.constant(false),
            Some(a) if !is_dynamic(a) => gates.constant(true),
            Some(a) if gate_of[a.index()] == NONE => gates.constant(false),
            Some(a) => GateId(gate_of[a.index()]),
        }
    };

    // Latch init and next.
    for (name, a) in &fluents {
        let f = g.atoms.args(*a)[0];
        let init = g.atoms.find(sp.init, &[f]).is_some();
        let next_atom = g.atoms.find(sp.next, &[f]);
        let next = out_gate(&mut gates, next_atom);
        gates.net.latches.push(Latch {
            name: name.clone(),
            init,
            next,
        });
    }

    // Roles: legal in input order (move text), goals by value.
    let roles = &low.roles;
    for (r, &role) in roles.iter().enumerate() {
        let role_term = g.terms.find(&GTerm::Const(role));
        let mut legal = Vec::new();
        for (i, (mr, _, does)) in moves.iter().enumerate() {
            if *mr != r {
                continue;
            }
            let m = g.atoms.args(*does)[1];
            let atom = role_term.and_then(|rt| g.atoms.find(sp.legal, &[rt, m]));
            let gate = out_gate(&mut gates, atom);
            legal.push(Legal {
                input: InputId(i as u32),
                gate,
            });
        }
        let mut by_value: Vec<(u8, GateId)> = Vec::new();
        for &a in &g.rel_atoms[sp.goal.0 as usize] {
            let args = g.atoms.args(a);
            if Some(args[0]) != role_term {
                continue;
            }
            let value = match g.terms.get(args[1]) {
                GTerm::Const(s) => syms.name(*s).parse::<u8>().ok().filter(|v| *v <= 100),
                GTerm::Fn(..) => None,
            };
            let Some(value) = value else {
                let rule = &low.rules[g.origin[a.index()] as usize];
                return Err(GroundError::BadGoal {
                    span: rule.span,
                    goal: atom_text(g, a),
                });
            };
            let gate = out_gate(&mut gates, Some(a));
            by_value.push((value, gate));
        }
        by_value.sort();
        let mut goals: Vec<Goal> = Vec::new();
        let mut k = 0;
        while k < by_value.len() {
            let v = by_value[k].0;
            let same: Vec<GateId> = by_value[k..]
                .iter()
                .take_while(|x| x.0 == v)
                .map(|x| x.1)
                .collect();
            k += same.len();
            let gate = gates.nary(false, same);
            goals.push(Goal { value: v, gate });
        }
        gates.net.roles.push(Role {
            name: syms.name(role).to_string(),
            legal,
            goals,
        });
    }
    let term_atom = g.atoms.find(sp.terminal, &[]);
    gates.net.terminal = out_gate(&mut gates, term_atom);
    Ok((gates.net, counts))
}

/// Canonical text of a ground atom.
pub fn atom_text(g: &Grounder<'_>, a: AtomId) -> String {
    let (name, _) = g.low.rels.key(g.atoms.rel(a));
    let args = g.atoms.args(a);
    if args.is_empty() {
        return g.low.syms.name(name).to_string();
    }
    let mut s = format!("({}", g.low.syms.name(name));
    for &t in args {
        s.push(' ');
        g.terms.write(&g.low.syms, &mut s, t);
    }
    s.push(')');
    s
}
