//! Builds the decision diagram of a conjunction of unfolded static literals over filter
//! variables assigned in a fixed order, a group of variables per level.
//!
//! A diagram state is what is left to check after a prefix of the variables has values:
//! per literal, the set of its clauses still possible, each reduced to the primitives
//! not yet decided (the values substituted into them). Two prefixes with the same residual
//! formula have the same completions, so they share a state: for "each of the digits 1-9
//! occurs exactly once among nine cells" a state is the set of digits used, at most
//! C(9, k) of them after k cells, against 9!/(9-k)! prefixes. This is a multi-valued
//! decision diagram (Bryant, IEEE Trans. Computers 1986; Srinivasan et al., ICCAD 1990)
//! built top-down with residuals as the merge key, then pruned bottom-up of the states
//! from which no assignment satisfies every literal.

use std::collections::HashMap;
use std::hash::Hash;

use super::unfold::{bit, Clause, FactTable, Prim, Truth, Vars, T};

/// Limits of one diagram; past them the rule is left as it was.
#[derive(Clone, Copy, Debug)]
pub(super) struct Limits {
    /// Most states over all levels.
    pub(super) max_states: usize,
    /// Most edges over all levels (each a fact the grounder will hold).
    pub(super) max_edges: usize,
    /// Most values tried over all states (the work of building).
    pub(super) max_tries: usize,
}

/// One edge: from a state of a level, the values of the level's group, to a state of
/// the next level. States are numbered per level from 0; level 0 has only the root.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Edge {
    pub(super) from: u32,
    pub(super) values: Vec<T>,
    pub(super) to: u32,
}

/// A pruned diagram: every edge lies on a path from the root to the accepting state
/// (the only state of the last level).
#[derive(Debug)]
pub(super) struct Diagram {
    /// The edges leaving each level.
    pub(super) levels: Vec<Vec<Edge>>,
    /// Paths from the root to the accepting state: the assignments that satisfy the
    /// literals (as a float: it may be astronomically large).
    pub(super) paths: f64,
}

impl Diagram {
    /// All edges.
    pub(super) fn edges(&self) -> usize {
        self.levels.iter().map(Vec::len).sum()
    }
}

/// Hash-consing of values of one kind to dense ids.
struct Interner<K> {
    ids: HashMap<K, u32>,
    items: Vec<K>,
}

impl<K: Clone + Eq + Hash> Interner<K> {
    fn new() -> Self {
        Interner {
            ids: HashMap::new(),
            items: Vec::new(),
        }
    }

    fn id(&mut self, k: K) -> (u32, bool) {
        if let Some(&i) = self.ids.get(&k) {
            return (i, false);
        }
        let i = self.items.len() as u32;
        self.items.push(k.clone());
        self.ids.insert(k, i);
        (i, true)
    }
}

/// A literal's residual after one more value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LitStep {
    Dead,
    Satisfied,
    Open(u32),
}

/// Residual formulas, hash-consed, with their transitions cached.
struct Residuals<'t> {
    tables: &'t [FactTable],
    values: Interner<T>,
    prims: Interner<Prim>,
    prim_mask: Vec<Vars>,
    clauses: Interner<Vec<u32>>,
    clause_mask: Vec<Vars>,
    lits: Interner<Vec<u32>>,
    lit_mask: Vec<Vars>,
    clause_steps: HashMap<(u32, u16, u32), Option<u32>>,
    lit_steps: HashMap<(u32, u16, u32), LitStep>,
}

impl<'t> Residuals<'t> {
    fn new(tables: &'t [FactTable]) -> Self {
        Residuals {
            tables,
            values: Interner::new(),
            prims: Interner::new(),
            prim_mask: Vec::new(),
            clauses: Interner::new(),
            clause_mask: Vec::new(),
            lits: Interner::new(),
            lit_mask: Vec::new(),
            clause_steps: HashMap::new(),
            lit_steps: HashMap::new(),
        }
    }

    fn prim(&mut self, p: Prim) -> u32 {
        let mask = p.mask();
        let (id, new) = self.prims.id(p);
        if new {
            self.prim_mask.push(mask);
        }
        id
    }

    fn clause(&mut self, mut prims: Vec<u32>) -> u32 {
        prims.sort_unstable();
        prims.dedup();
        let mask = prims.iter().fold(0, |m, &p| m | self.prim_mask[p as usize]);
        let (id, new) = self.clauses.id(prims);
        if new {
            self.clause_mask.push(mask);
        }
        id
    }

    /// The literal of `clauses` (already reduced), or what it is when decided.
    fn lit(&mut self, mut clauses: Vec<u32>) -> LitStep {
        if clauses
            .iter()
            .any(|&c| self.clauses.items[c as usize].is_empty())
        {
            return LitStep::Satisfied;
        }
        if clauses.is_empty() {
            return LitStep::Dead;
        }
        clauses.sort_unstable();
        clauses.dedup();
        let mask = clauses
            .iter()
            .fold(0, |m, &c| m | self.clause_mask[c as usize]);
        let (id, new) = self.lits.id(clauses);
        if new {
            self.lit_mask.push(mask);
        }
        LitStep::Open(id)
    }

    /// The initial residual of an unfolded literal.
    fn initial(&mut self, clauses: &[Clause]) -> LitStep {
        let ids = clauses
            .iter()
            .map(|c| {
                let prims = c.iter().map(|p| self.prim(p.clone())).collect();
                self.clause(prims)
            })
            .collect();
        self.lit(ids)
    }

    /// Clause `c` with variable `v` set to value `x` (an id of `values`); `None` when false.
    fn clause_step(&mut self, c: u32, v: u16, x: u32) -> Option<u32> {
        if let Some(&s) = self.clause_steps.get(&(c, v, x)) {
            return s;
        }
        let value = self.values.items[x as usize].clone();
        let mut out = Vec::new();
        let mut alive = true;
        for p in self.clauses.items[c as usize].clone() {
            if self.prim_mask[p as usize] & bit(v) == 0 {
                out.push(p);
                continue;
            }
            let q = self.prims.items[p as usize].subst(v, &value);
            match q.truth(self.tables) {
                Truth::False => {
                    alive = false;
                    break;
                }
                Truth::True => {}
                Truth::Open => out.push(self.prim(q)),
            }
        }
        let s = alive.then(|| self.clause(out));
        self.clause_steps.insert((c, v, x), s);
        s
    }

    /// Literal `l` with variable `v` set to value `x`.
    fn lit_step(&mut self, l: u32, v: u16, x: u32) -> LitStep {
        if self.lit_mask[l as usize] & bit(v) == 0 {
            return LitStep::Open(l);
        }
        if let Some(&s) = self.lit_steps.get(&(l, v, x)) {
            return s;
        }
        let mut out = Vec::new();
        for c in self.lits.items[l as usize].clone() {
            if self.clause_mask[c as usize] & bit(v) == 0 {
                out.push(c);
            } else if let Some(c2) = self.clause_step(c, v, x) {
                out.push(c2);
            }
        }
        let s = self.lit(out);
        self.lit_steps.insert((l, v, x), s);
        s
    }
}

/// The diagram of the conjunction of `literals` (each a disjunction of clauses) over the
/// variables of `groups` (level by level), each ranging over its `domains` entry (a
/// superset of the values that can satisfy the literals). `None` past `limits`, or when a
/// literal is false whatever the values (nothing to build).
pub(super) fn build(
    literals: &[Vec<Clause>],
    groups: &[Vec<u16>],
    domains: &[Vec<T>],
    tables: &[FactTable],
    limits: Limits,
) -> Option<Diagram> {
    let mut r = Residuals::new(tables);
    let domain_ids: Vec<Vec<u32>> = domains
        .iter()
        .map(|d| d.iter().map(|x| r.values.id(x.clone()).0).collect())
        .collect();
    let mut root = Vec::new();
    for clauses in literals {
        match r.initial(clauses) {
            LitStep::Dead => return None,
            LitStep::Satisfied => {}
            LitStep::Open(l) => root.push(l),
        }
    }
    root.sort_unstable();
    root.dedup();
    let mut level_states: Vec<Interner<Vec<u32>>> = vec![Interner::new()];
    level_states[0].id(root);
    let mut levels = Vec::with_capacity(groups.len());
    let (mut states, mut edges, mut tries) = (1usize, 0usize, 0usize);
    for group in groups {
        let mut next = Interner::new();
        let mut out = Vec::new();
        let current = level_states.last().expect("the root level").items.clone();
        for (from, state) in current.iter().enumerate() {
            let mut values = Vec::with_capacity(group.len());
            let mut walk = Walk {
                r: &mut r,
                group,
                domains: &domain_ids,
                next: &mut next,
                out: &mut out,
                from: from as u32,
                tries: &mut tries,
                max_tries: limits.max_tries,
            };
            walk.assign(0, state.clone(), &mut values);
            if out.len() + edges > limits.max_edges
                || next.items.len() + states > limits.max_states
                || tries > limits.max_tries
            {
                return None;
            }
        }
        states += next.items.len();
        edges += out.len();
        levels.push(out);
        level_states.push(next);
    }
    let values = &r.values.items;
    let levels = prune(levels, level_states.last().expect("the last level"))
        .into_iter()
        .map(|edges| {
            edges
                .into_iter()
                .map(|(from, xs, to)| Edge {
                    from,
                    values: xs.iter().map(|&x| values[x as usize].clone()).collect(),
                    to,
                })
                .collect()
        })
        .collect::<Vec<Vec<Edge>>>();
    let paths = count_paths(&levels);
    Some(Diagram { levels, paths })
}

/// Enumerates the values of one level's group from one state, depth first, stopping at a
/// dead residual.
struct Walk<'a, 't> {
    r: &'a mut Residuals<'t>,
    group: &'a [u16],
    domains: &'a [Vec<u32>],
    next: &'a mut Interner<Vec<u32>>,
    out: &'a mut Vec<(u32, Vec<u32>, u32)>,
    from: u32,
    tries: &'a mut usize,
    max_tries: usize,
}

impl Walk<'_, '_> {
    fn assign(&mut self, j: usize, state: Vec<u32>, values: &mut Vec<u32>) {
        let Some(&v) = self.group.get(j) else {
            let mut state = state;
            state.sort_unstable();
            state.dedup();
            let (to, _) = self.next.id(state);
            self.out.push((self.from, values.clone(), to));
            return;
        };
        'value: for &x in &self.domains[v as usize] {
            *self.tries += 1;
            if *self.tries > self.max_tries {
                return;
            }
            let mut after = Vec::with_capacity(state.len());
            for &l in &state {
                match self.r.lit_step(l, v, x) {
                    LitStep::Dead => continue 'value,
                    LitStep::Satisfied => {}
                    LitStep::Open(l2) => after.push(l2),
                }
            }
            values.push(x);
            self.assign(j + 1, after, values);
            values.pop();
        }
    }
}

/// Keeps the edges on a path to the accepting state (the empty residual of the last
/// level) and renumbers the states of every level densely, the root and the accepting
/// state as 0.
fn prune(
    levels: Vec<Vec<(u32, Vec<u32>, u32)>>,
    last: &Interner<Vec<u32>>,
) -> Vec<Vec<(u32, Vec<u32>, u32)>> {
    let n = levels.len();
    let accept = last.ids.get(&Vec::new()).copied();
    let mut live: HashMap<u32, u32> = accept.into_iter().map(|a| (a, 0)).collect();
    let mut kept = vec![Vec::new(); n];
    for (i, edges) in levels.into_iter().enumerate().rev() {
        let mut from_live: HashMap<u32, u32> = HashMap::new();
        let mut out = Vec::new();
        for (from, xs, to) in edges {
            if let Some(&to2) = live.get(&to) {
                let k = from_live.len() as u32;
                let from2 = *from_live.entry(from).or_insert(k);
                out.push((from2, xs, to2));
            }
        }
        kept[i] = out;
        live = from_live;
    }
    kept
}

/// Root-to-accept paths of a pruned diagram.
fn count_paths(levels: &[Vec<Edge>]) -> f64 {
    let mut ways: HashMap<u32, f64> = HashMap::from([(0, 1.0)]);
    for edges in levels {
        let mut next: HashMap<u32, f64> = HashMap::new();
        for e in edges {
            if let Some(&w) = ways.get(&e.from) {
                *next.entry(e.to).or_default() += w;
            }
        }
        ways = next;
    }
    ways.values().sum()
}
