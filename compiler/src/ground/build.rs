//! Builds the propnet [`Netlist`] from the reachable atoms.
//!
//! One latch per reachable `true` fluent (sorted by fluent text), one input per reachable
//! `does` (grouped by role, sorted by move text), and for every other dynamic atom the `Or`
//! of its rule instances ([`super::instances`]), each the `And` of its body literals
//! (`Not` for negated ones). Static atoms are constants. Gates are hash-consed and
//! trivially constant-folded as they are made ([`super::gates`]). Only the atoms that an
//! output (a latch's next state, a legal move, a goal, terminal, a percept) needs are
//! built, depth first from the outputs ([`needed`]): reachability over-approximates
//! what is used (alexChess's `between/4` has 453 k reachable atoms and 16.0 M rule
//! instances, of which the pin rules need 94 k instances), and an atom's instances are
//! enumerated only when it is needed, then turned into gates and dropped.
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

use super::factor::Seen;
use super::fixpoint::Grounder;
use super::gates::Gates;
use super::instances::HeadPlans;
use super::rules::RelKind;
use super::store::AtomId;
use super::GroundError;
use crate::gdl::RelId;
use crate::graph::{sccs, sccs_from, Graph};
use crate::terms::TermRef;
use propnet_netlist::{
    Gate, GateId, Goal, Input, InputId, Latch, LatchId, Legal, Netlist, Percept, Role, RoleId,
};
use std::collections::HashMap;

mod needed;

/// Counts describing the build, for [`super::CompileReport`].
#[derive(Clone, Debug, Default)]
pub struct BuildCounts {
    /// Cyclic components of the atom graph.
    pub cyclic_sccs: usize,
    /// Atoms in the largest cyclic component.
    pub largest_cyclic_scc: usize,
    /// Unrolled rounds emitted over all cyclic components.
    pub rounds: usize,
    /// Rule instances turned into gates.
    pub instances: usize,
    /// Per relation: instances enumerated.
    pub rel_instances: Vec<usize>,
    /// Per gate of the built netlist: the relation that made it (`u32::MAX`: outputs).
    pub owner: Vec<u32>,
}

const NONE: u32 = u32::MAX;

struct Builder<'g, 'l> {
    g: &'g mut Grounder<'l>,
    gates: Gates,
    /// Per atom: its gate, `NONE` until built.
    gate_of: Vec<u32>,
    counts: BuildCounts,
    plans: HeadPlans,
    /// Per relation: its component in `comps`, `NONE` for relations that are not views.
    comp_of: Vec<u32>,
    /// The view relations' components (see [`Builder::view_components`]), with whether
    /// each is cyclic.
    comps: Vec<(Vec<u32>, bool)>,
    /// Per relation: the varying parts factoring has seen in its atoms.
    seen: Vec<Seen>,
    /// Per relation: whether progress has named it.
    reported: Vec<bool>,
    /// Atoms built so far (the budget is checked every 1024).
    built: usize,
}

/// The gate of literal `l` (`atom << 1 | negated`).
fn lit_gate(gates: &mut Gates, gate_of: &[u32], l: u32) -> GateId {
    let gid = GateId(gate_of[(l >> 1) as usize]);
    if l & 1 == 1 {
        gates.not(gid)
    } else {
        gid
    }
}

/// Builds the netlist.
///
/// # Errors
/// [`GroundError::BadGoal`] for a goal value that is not an integer in 0..=100,
/// [`GroundError::Unstratified`] for a negative dependency inside a cycle of atoms, and
/// budget errors.
pub fn build(g: &mut Grounder<'_>) -> Result<(Netlist, BuildCounts), GroundError> {
    let natoms = g.store.atoms.len();
    let nrels = g.low.rels.len();
    let mut b = Builder {
        g,
        gates: Gates::default(),
        gate_of: vec![NONE; natoms],
        counts: BuildCounts {
            rel_instances: vec![0; nrels],
            ..BuildCounts::default()
        },
        plans: HeadPlans::default(),
        comp_of: vec![NONE; nrels],
        comps: Vec::new(),
        seen: (0..nrels).map(|_| Seen::default()).collect(),
        reported: vec![false; nrels],
        built: 0,
    };
    b.comps = b.view_components();
    for (i, (comp, _)) in b.comps.iter().enumerate() {
        comp.iter().for_each(|&r| b.comp_of[r as usize] = i as u32);
    }
    let fluents = b.latches();
    let moves = b.inputs();
    b.gates.tag = NONE;
    b.outputs(&fluents, &moves)?;
    let Builder {
        mut gates,
        mut counts,
        ..
    } = b;
    counts.owner = std::mem::take(&mut gates.owner);
    Ok((gates.net, counts))
}

impl Builder<'_, '_> {
    fn text(&self, t: crate::terms::TermId) -> String {
        self.g.store.terms.text(&self.g.low.syms, t)
    }

    /// Latches: reachable `true` fluents sorted by text.
    fn latches(&mut self) -> Vec<(String, AtomId)> {
        let sp = self.g.low.special;
        self.gates.tag = sp.true_.0;
        let mut fluents: Vec<(String, AtomId)> = self
            .g
            .atoms_of(sp.true_)
            .iter()
            .map(|&a| (self.text(self.g.store.atoms.args(a)[0]), a))
            .collect();
        fluents.sort();
        for (i, (_, a)) in fluents.iter().enumerate() {
            self.gate_of[a.index()] = self.gates.push(Gate::Latch(LatchId(i as u32))).0;
        }
        fluents
    }

    /// Inputs: reachable `does` of a role, by role then move text (a `does` of a non-role
    /// is the constant false).
    fn inputs(&mut self) -> Vec<(usize, String, AtomId)> {
        let low = self.g.low;
        self.gates.tag = low.special.does.0;
        let role_index: HashMap<Option<crate::terms::TermId>, usize> = low
            .roles
            .iter()
            .enumerate()
            .map(|(i, &s)| (self.g.store.terms.find_constant(s), i))
            .collect();
        let mut moves: Vec<(usize, String, AtomId)> = Vec::new();
        for &a in self.g.atoms_of(low.special.does) {
            let args = self.g.store.atoms.args(a);
            if let Some(&r) = role_index.get(&Some(args[0])) {
                moves.push((r, self.text(args[1]), a));
            } else {
                // `does` of a constant that is no role (reachable through a `legal` rule
                // for it): never holds.
                self.gate_of[a.index()] = self.gates.constant(false).0;
            }
        }
        moves.sort();
        for (i, (r, name, a)) in moves.iter().enumerate() {
            self.gate_of[a.index()] = self.gates.push(Gate::Input(InputId(i as u32))).0;
            self.gates.net.inputs.push(Input {
                role: RoleId(*r as u32),
                name: name.clone(),
            });
        }
        moves
    }

    /// The relations whose atoms are gates, grouped in components of the graph of their
    /// recorded (dynamic) body literals, dependencies first, each with whether it is
    /// cyclic.
    fn view_components(&self) -> Vec<(Vec<u32>, bool)> {
        let low = self.g.low;
        let sp = low.special;
        let view = |r: RelId| {
            self.g.kind[r.0 as usize] == RelKind::Dynamic && r != sp.true_ && r != sp.does
        };
        let mut edges = Vec::new();
        for r in &low.rules {
            if r.synthetic || !view(r.head.rel) {
                continue;
            }
            for a in r.body.iter().filter_map(|l| l.atom()) {
                if view(a.rel) {
                    edges.push((r.head.rel.0, a.rel.0));
                }
            }
        }
        edges.sort_unstable();
        edges.dedup();
        let graph = Graph::from_edges(low.rels.len(), &edges);
        let needed: Vec<bool> = {
            let mut n = vec![false; low.rels.len()];
            low.rel_sccs
                .iter()
                .flatten()
                .for_each(|r| n[r.0 as usize] = true);
            n
        };
        sccs(&graph)
            .into_iter()
            .filter(|c| c.iter().all(|&r| needed[r as usize] && view(RelId(r))))
            .map(|c| {
                let cyclic = graph.is_cyclic(&c);
                (c, cyclic)
            })
            .collect()
    }

    /// The atoms of relations that depend on each other, all of them (not only the
    /// needed ones): instances stored, then the atom graph's components, unrolled where
    /// cyclic (module docs).
    fn view_cycle(&mut self, rels: &[u32]) -> Result<(), GroundError> {
        let atoms: Vec<AtomId> = rels
            .iter()
            .flat_map(|&r| self.g.atoms_of(RelId(r)).to_vec())
            .collect();
        self.gates.tag = rels[0];
        self.g.report(RelId(rels[0]));
        let mut local = vec![NONE; self.gate_of.len()];
        for (i, a) in atoms.iter().enumerate() {
            local[a.index()] = i as u32;
        }
        // Instances per atom: bodies flat, `starts[i]..starts[i+1]` per instance.
        let (mut heads, mut starts, mut lits) = (Vec::new(), vec![0usize], Vec::new());
        for (i, &a) in atoms.iter().enumerate() {
            let rel = self.g.store.atoms.rel(a);
            let held = self.gates.heap_bytes() + lits.capacity() * 4 + starts.capacity() * 8;
            let made = self
                .g
                .instances_of(a, &mut self.plans, held, &mut |_, body| {
                    heads.push(i as u32);
                    lits.extend_from_slice(body);
                    starts.push(lits.len());
                })?;
            self.counts.instances += made;
            self.counts.rel_instances[rel.0 as usize] += made;
        }
        // The atoms outside the component that its instances read, built first.
        for &l in &lits {
            if local[(l >> 1) as usize] == NONE {
                self.ensure(AtomId(l >> 1))?;
            }
        }
        self.gates.tag = rels[0];
        let mut edges = Vec::new();
        let mut insts_of: Vec<Vec<usize>> = vec![Vec::new(); atoms.len()];
        for (n, &h) in heads.iter().enumerate() {
            insts_of[h as usize].push(n);
            for &l in &lits[starts[n]..starts[n + 1]] {
                let b = local[(l >> 1) as usize];
                if b != NONE {
                    edges.push((h, b));
                }
            }
        }
        edges.sort_unstable();
        edges.dedup();
        let graph = Graph::from_edges(atoms.len(), &edges);
        let body = |n: usize| &lits[starts[n]..starts[n + 1]];
        for comp in sccs_from(&graph, 0..atoms.len() as u32) {
            if !graph.is_cyclic(&comp) {
                let i = comp[0] as usize;
                let mut ors = Vec::new();
                for &n in &insts_of[i] {
                    let ops: Vec<GateId> = body(n)
                        .iter()
                        .map(|&l| lit_gate(&mut self.gates, &self.gate_of, l))
                        .collect();
                    ors.push(self.gates.nary(true, ops));
                }
                self.gate_of[atoms[i].index()] = self.gates.nary(false, ors).0;
                continue;
            }
            let comp_atoms: Vec<AtomId> = comp.iter().map(|&i| atoms[i as usize]).collect();
            let insts: Vec<Vec<&[u32]>> = comp
                .iter()
                .map(|&i| insts_of[i as usize].iter().map(|&n| body(n)).collect())
                .collect();
            self.unroll(&comp_atoms, &insts)?;
        }
        Ok(())
    }

    /// The unrolled rounds of one cyclic component of atoms (module docs); `insts[p]` are
    /// the instance bodies of `atoms[p]`.
    fn unroll(&mut self, atoms: &[AtomId], insts: &[Vec<&[u32]>]) -> Result<(), GroundError> {
        self.counts.cyclic_sccs += 1;
        self.counts.largest_cyclic_scc = self.counts.largest_cyclic_scc.max(atoms.len());
        let mut pos_in: HashMap<u32, usize> = HashMap::new();
        for (p, a) in atoms.iter().enumerate() {
            pos_in.insert(a.0, p);
        }
        for (p, bodies) in insts.iter().enumerate() {
            for l in bodies.iter().flat_map(|b| b.iter()) {
                if l & 1 == 1 && pos_in.contains_key(&(l >> 1)) {
                    let g = &*self.g;
                    let rule = &g.low.rules[g.store.origin[atoms[p].index()] as usize];
                    return Err(GroundError::Unstratified {
                        span: rule.span,
                        message: format!(
                            "{} depends negatively on {} through a cycle",
                            atom_text(g, atoms[p]),
                            atom_text(g, AtomId(l >> 1))
                        ),
                    });
                }
            }
        }
        // Rounds are semi-naive: an atom is rebuilt only when an atom its bodies read
        // changed in the round before. The others would get the same gate again (gates
        // are hash-consed), so the netlist is the same as rebuilding every atom each
        // round, without the rounds × atoms work (a ring of n rules took n² steps).
        let mut readers: Vec<Vec<usize>> = vec![Vec::new(); atoms.len()];
        for (q, bodies) in insts.iter().enumerate() {
            for l in bodies.iter().flat_map(|b| b.iter()) {
                if let Some(&p) = pos_in.get(&(l >> 1)) {
                    readers[p].push(q);
                }
            }
        }
        let f = self.gates.constant(false);
        let mut prev = vec![f; atoms.len()];
        let mut due: Vec<usize> = (0..atoms.len()).collect();
        for _round in 0..atoms.len() {
            self.counts.rounds += 1;
            let mut changed: Vec<(usize, GateId)> = Vec::new();
            for &q in &due {
                let mut ors = Vec::new();
                for body in &insts[q] {
                    let ops: Vec<GateId> = body
                        .iter()
                        .map(|&l| match pos_in.get(&(l >> 1)) {
                            Some(&p) => prev[p],
                            None => lit_gate(&mut self.gates, &self.gate_of, l),
                        })
                        .collect();
                    ors.push(self.gates.nary(true, ops));
                }
                let g = self.gates.nary(false, ors);
                if g != prev[q] {
                    changed.push((q, g));
                }
            }
            if changed.is_empty() {
                break;
            }
            for &(q, g) in &changed {
                prev[q] = g;
            }
            due = changed
                .iter()
                .flat_map(|&(p, _)| readers[p].iter().copied())
                .collect();
            due.sort_unstable();
            due.dedup();
        }
        for (p, a) in atoms.iter().enumerate() {
            self.gate_of[a.index()] = prev[p].0;
        }
        Ok(())
    }

    /// The gate of an output atom: constants for static relations and unreachable atoms.
    /// Builds the atom's gate first when it is a view atom not built yet.
    ///
    /// # Errors
    /// Those of [`Self::ensure`].
    fn out_gate(&mut self, a: Option<AtomId>) -> Result<GateId, GroundError> {
        if let Some(a) = a {
            self.ensure(a)?;
        }
        Ok(match a {
            None => self.gates.constant(false),
            Some(a) if self.g.kind[self.g.store.atoms.rel(a).0 as usize] != RelKind::Dynamic => {
                self.gates.constant(true)
            }
            Some(a) if self.gate_of[a.index()] == NONE => self.gates.constant(false),
            Some(a) => GateId(self.gate_of[a.index()]),
        })
    }

    /// Latch functions, legal moves, goals and terminal.
    fn outputs(
        &mut self,
        fluents: &[(String, AtomId)],
        moves: &[(usize, String, AtomId)],
    ) -> Result<(), GroundError> {
        let sp = self.g.low.special;
        for (name, a) in fluents {
            let f = self.g.store.atoms.args(*a)[0];
            let init = self.g.store.atoms.find(sp.init, &[f]).is_some();
            let next_atom = self.g.store.atoms.find(sp.next, &[f]);
            let next = self.out_gate(next_atom)?;
            self.gates.net.latches.push(Latch {
                name: name.clone(),
                init,
                next,
            });
        }
        for r in 0..self.g.low.roles.len() {
            let role = self.role(r, moves)?;
            self.gates.net.roles.push(role);
        }
        let term_atom = self.g.store.atoms.find(sp.terminal, &[]);
        self.gates.net.terminal = self.out_gate(term_atom)?;
        self.gates.net.gdl2 = self.g.low.gdl2;
        Ok(())
    }

    /// Role `r`: legal in input order (move text), goals by value.
    fn role(&mut self, r: usize, moves: &[(usize, String, AtomId)]) -> Result<Role, GroundError> {
        let low = self.g.low;
        let sp = low.special;
        let role = low.roles[r];
        let role_term = self.g.store.terms.find_constant(role);
        let mut legal = Vec::new();
        for (i, (mr, _, does)) in moves.iter().enumerate() {
            if *mr != r {
                continue;
            }
            let m = self.g.store.atoms.args(*does)[1];
            let atom = role_term.and_then(|rt| self.g.store.atoms.find(sp.legal, &[rt, m]));
            let gate = self.out_gate(atom)?;
            legal.push(Legal {
                input: InputId(i as u32),
                gate,
            });
        }
        let mut by_value: Vec<(u8, GateId)> = Vec::new();
        for &a in &self.g.atoms_of(sp.goal).to_vec() {
            let args = self.g.store.atoms.args(a);
            if Some(args[0]) != role_term {
                continue;
            }
            let value = match self.g.store.terms.get(args[1]) {
                TermRef::Const(s) => crate::gdl::goal_value(low.syms.name(s)),
                TermRef::Fn(..) => None,
            };
            let Some(value) = value else {
                return Err(GroundError::BadGoal {
                    span: super::value_origin::value_origin(self.g, a, 1, args[1]),
                    goal: atom_text(self.g, a),
                });
            };
            let gate = self.out_gate(Some(a))?;
            by_value.push((value, gate));
        }
        by_value.sort();
        let mut goals: Vec<Goal> = Vec::new();
        for chunk in by_value.chunk_by(|x, y| x.0 == y.0) {
            let gate = self.gates.nary(false, chunk.iter().map(|x| x.1).collect());
            goals.push(Goal {
                value: chunk[0].0,
                gate,
            });
        }
        Ok(Role {
            name: low.syms.name(role).to_string(),
            legal,
            goals,
            percepts: self.percepts(role_term)?,
        })
    }

    /// The percepts of the role whose term is `role_term` (GDL-II `(sees role p)` atoms),
    /// sorted by percept text.
    fn percepts(
        &mut self,
        role_term: Option<crate::terms::TermId>,
    ) -> Result<Vec<Percept>, GroundError> {
        let sees = self.g.low.special.sees;
        let mut named: Vec<(String, AtomId)> = self
            .g
            .atoms_of(sees)
            .iter()
            .filter(|&&a| Some(self.g.store.atoms.args(a)[0]) == role_term)
            .map(|&a| (self.text(self.g.store.atoms.args(a)[1]), a))
            .collect();
        named.sort();
        named
            .into_iter()
            .map(|(name, a)| {
                let gate = self.out_gate(Some(a))?;
                Ok(Percept { name, gate })
            })
            .collect()
    }
}

/// Canonical text of a ground atom.
pub fn atom_text(g: &Grounder<'_>, a: AtomId) -> String {
    let (name, _) = g.low.rels.key(g.store.atoms.rel(a));
    let args = g.store.atoms.args(a);
    if args.is_empty() {
        return g.low.syms.name(name).to_string();
    }
    let mut s = format!("({}", g.low.syms.name(name));
    for &t in args {
        s.push(' ');
        g.store.terms.write_text(&g.low.syms, t, &mut s);
    }
    s.push(')');
    s
}
