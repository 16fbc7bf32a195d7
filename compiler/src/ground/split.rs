//! Splits rule bodies into smaller joins with auxiliary relations (join decomposition), so
//! no rule grounds over a product of independent variables:
//!
//! 1. *Groups.* With the head variables `H` taken as given, body literals are connected
//!    when they share a variable outside `H`. A connected group `C` with variables outside
//!    `H` becomes `aux(H ∩ vars(C)) :- C` and is replaced in the rule by that one positive
//!    literal. A rule like
//!    `next(c x y) :- true(c x y), does(a, m ?p), distinct(x ?p), does(b, m ?q), distinct(x ?q)`
//!    then grounds as a sum of small joins instead of the product of both roles' moves.
//! 2. *Projections.* A positive literal with variables that occur nowhere else in the rule
//!    (neither in the head nor in another literal) is replaced by `aux(shared vars) :- L`:
//!    `does(?p, (play ?x1 ?y1 ?x2 ?y2 ?x3 ?y3))` used only for `?x1 ?y1` becomes a
//!    relation over the cells instead of joining every move with the rest of the body.
//!
//! 3. *Variable elimination.* Otherwise a body-only variable `v` is eliminated: the
//!    literals containing it (its *bucket*) become `aux(I) :- bucket`, where `I` are the
//!    bucket's variables used outside it (at most [`MAX_ELIMINATION_INTERFACE`]), and the
//!    bucket must hold a literal over a dynamic relation; the variable with the smallest `I` is chosen
//!    (min-degree order, as in bucket elimination, Dechter 1999, "Bucket elimination: a
//!    unifying framework for reasoning"), ties broken by the fewest estimated atoms of
//!    `aux(I)` (the product of its variables' value counts, [`super::domains`]): in hex's
//!    `transfer(k) :- does(r, place x y), owner(k r), connected(k m n), adjacent(x y m n)`
//!    eliminating `x` gives `aux(r m n)` (2 · 81 atoms), eliminating `r` `aux(x y k)`
//!    (81 · 82). A chain `p(a x), q(x y), r(y z)` then grounds as
//!    joins of two literals at a time instead of one join over all of them.
//!
//! All are the projection of existential variables used by propnet builders (and by
//! Datalog engines) to avoid Cartesian products; the rules are logically equivalent. A
//! group with a variable no positive atom of `C` binds (a head variable used only under
//! negation, like the square a chess piece leaves in
//! `not (threatened ?player ?kx ?ky ?u ?v)`) takes copies of positive literals of the rest
//! of the body that bind it (*guards*, fewest new variables first; the rule keeps them),
//! when the guarded interface leaves out at least two of the head's variables. A group is kept
//! in place when no guard binds it or the split is useless (`C` is the whole body). Auxiliary rules are split in
//! turn, and equal auxiliary rules (up to variable renaming) share one relation.

use super::domains::Domains;
use super::rules::{CRule, PAtom, PLit, PTerm, Relations};
use crate::gdl::RelId;
use crate::gdl::Symbols;
use std::collections::HashMap;

fn find(parent: &mut [usize], mut i: usize) -> usize {
    while parent[i] != i {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    i
}

/// Names and deduplicates the auxiliary relations.
struct Aux<'a> {
    rels: &'a mut Relations,
    syms: &'a mut Symbols,
    next: usize,
    /// Canonical text of (interface, body) → the relation defined by it.
    memo: HashMap<String, RelId>,
    /// Per relation: depends on `true` or `does`.
    dynamic: Vec<bool>,
    /// Value-count estimates of argument positions (step 3's tie-break).
    domains: &'a mut Domains,
}

fn lit_dynamic(l: &PLit, dynamic: &[bool]) -> bool {
    matches!(l, PLit::Pos(a) | PLit::Neg(a) if dynamic.get(a.rel.0 as usize) == Some(&true))
}

/// Renames variables by first occurrence (interface first) so equal rules compare equal.
fn canon_term(t: &PTerm, map: &mut Vec<u16>) -> PTerm {
    match t {
        PTerm::Var(v) => {
            let i = map.iter().position(|x| x == v).unwrap_or_else(|| {
                map.push(*v);
                map.len() - 1
            });
            PTerm::Var(i as u16)
        }
        PTerm::Const(c) => PTerm::Const(*c),
        PTerm::Fn(f, args) => PTerm::Fn(*f, args.iter().map(|a| canon_term(a, map)).collect()),
    }
}

fn canon_key(iface: &[u16], body: &[PLit]) -> String {
    let mut map: Vec<u16> = iface.to_vec();
    let canon_atom = |a: &PAtom, map: &mut Vec<u16>| PAtom {
        rel: a.rel,
        args: a.args.iter().map(|t| canon_term(t, map)).collect(),
    };
    let lits: Vec<PLit> = body
        .iter()
        .map(|l| match l {
            PLit::Pos(a) => PLit::Pos(canon_atom(a, &mut map)),
            PLit::Neg(a) => PLit::Neg(canon_atom(a, &mut map)),
            PLit::Distinct(a, b) => {
                let a = canon_term(a, &mut map);
                PLit::Distinct(a, canon_term(b, &mut map))
            }
            PLit::Equal(a, b) => {
                let a = canon_term(a, &mut map);
                PLit::Equal(a, canon_term(b, &mut map))
            }
        })
        .collect();
    format!("{}:{lits:?}", iface.len())
}

impl Aux<'_> {
    /// The literal `aux(iface)` standing for `body`, and the rule defining it when new.
    fn define(&mut self, rule: &CRule, iface: Vec<u16>, body: Vec<PLit>) -> (PLit, Option<CRule>) {
        let args: Vec<PTerm> = iface.iter().map(|&v| PTerm::Var(v)).collect();
        let key = canon_key(&iface, &body);
        if let Some(&rel) = self.memo.get(&key) {
            return (PLit::Pos(PAtom { rel, args }), None);
        }
        let name = self
            .syms
            .intern_unused((self.next..).map(|i| format!("split#{i}")));
        self.next += 1;
        let rel = self.rels.intern(name, iface.len() as u32);
        self.memo.insert(key, rel);
        let known = self.domains.var_sizes(&body);
        let sizes: Vec<Option<usize>> = iface.iter().map(|v| known.get(v).copied()).collect();
        self.domains.set_sizes(rel, &sizes);
        let dynamic = body.iter().any(|l| lit_dynamic(l, &self.dynamic));
        self.dynamic.resize(self.rels.len(), false);
        self.dynamic[rel.0 as usize] = dynamic;
        let def = CRule {
            head: PAtom {
                rel,
                args: args.clone(),
            },
            body,
            var_names: rule.var_names.clone(),
            span: rule.span,
            synthetic: false,
        };
        (PLit::Pos(PAtom { rel, args }), Some(def))
    }
}

/// Splits every rule of `rules` as described in the module docs; new auxiliary relations
/// are named `split#N/arity` (N skipping any name the game itself uses) and interned in
/// `rels` and `syms`.
/// Rules that need no split are returned unchanged, in order; auxiliary rules follow the
/// rule they come from.
///
/// `dynamic[r]` marks relations known to depend on `true`/`does` (at least `true` and
/// `does` themselves); step 3 only eliminates variables of buckets holding a dynamic
/// literal: static relations are computed exactly anyway, and an auxiliary static
/// relation would lose the filtering of the rest of the body.
pub fn split_rules(
    rules: Vec<CRule>,
    mut dynamic: Vec<bool>,
    domains: &mut Domains,
    rels: &mut Relations,
    syms: &mut Symbols,
) -> Vec<CRule> {
    // Dynamic relations: the given ones and what depends on them.
    dynamic.resize(rels.len(), false);
    super::rules::close_dynamic(&rules, &mut dynamic);
    let mut aux = Aux {
        rels,
        syms,
        next: 0,
        memo: HashMap::new(),
        dynamic,
        domains,
    };
    let mut out = Vec::with_capacity(rules.len());
    for rule in rules {
        split_one(rule, &mut aux, &mut out);
    }
    out
}

fn split_one(rule: CRule, aux: &mut Aux<'_>, out: &mut Vec<CRule>) {
    let (rule, mut defs) = split_groups(rule, aux);
    let (rule, more) = project_literals(rule, aux);
    defs.extend(more);
    match eliminate_variable(&rule, aux) {
        Some((rest, def)) => {
            defs.extend(def);
            split_one(rest, aux, out);
        }
        None => out.push(rule),
    }
    for d in defs {
        split_one(d, aux, out);
    }
}

/// Widest interface step 3 creates: a wider auxiliary relation is a product of
/// independent variables more often than a saving (connect-four diagonals over two
/// `succ` chains would become 5-ary relations of thousands of atoms, the unsplit join has
/// dozens of solutions). Measured on the corpus: 2 leaves racer4 over budget, 4 triples
/// quarto's instances.
const MAX_ELIMINATION_INTERFACE: usize = 3;

/// Step 3 of the module docs: eliminates the body-only variable whose bucket (the
/// literals containing it) has the smallest interface (then the fewest estimated atoms), if that bucket is safe and not the
/// whole body. Returns the rule with the bucket replaced, and the bucket's rule if new.
fn eliminate_variable(rule: &CRule, aux: &mut Aux<'_>) -> Option<(CRule, Option<CRule>)> {
    if rule.body.len() < 3 {
        return None;
    }
    let mut head_vars = Vec::new();
    rule.head.args.iter().for_each(|t| t.vars(&mut head_vars));
    let vars: Vec<Vec<u16>> = rule.body.iter().map(PLit::vars).collect();
    let mut locals: Vec<u16> = vars.iter().flatten().copied().collect();
    locals.sort_unstable();
    locals.dedup();
    locals.retain(|v| !head_vars.contains(v));
    // (estimated interface atoms, bucket, interface) of the best variable so far.
    let mut best: Option<(usize, Vec<usize>, Vec<u16>)> = None;
    // The body's variables' value counts, found on the first bucket that needs them.
    let mut known: Option<HashMap<u16, usize>> = None;
    for &v in &locals {
        let bucket: Vec<usize> = (0..rule.body.len())
            .filter(|&i| vars[i].contains(&v))
            .collect();
        if bucket.len() < 2
            || bucket.len() == rule.body.len()
            || !bucket
                .iter()
                .any(|&i| lit_dynamic(&rule.body[i], &aux.dynamic))
        {
            continue;
        }
        let mut bvars: Vec<u16> = bucket
            .iter()
            .flat_map(|&i| vars[i].iter().copied())
            .collect();
        bvars.sort_unstable();
        bvars.dedup();
        let safe = bvars.iter().all(|&w| {
            bucket
                .iter()
                .any(|&i| matches!(&rule.body[i], PLit::Pos(_)) && vars[i].contains(&w))
        });
        if !safe {
            continue;
        }
        // The interface: bucket variables used outside the bucket (or in the head).
        let iface: Vec<u16> = bvars
            .iter()
            .copied()
            .filter(|&w| {
                head_vars.contains(&w)
                    || (0..rule.body.len()).any(|i| !bucket.contains(&i) && vars[i].contains(&w))
            })
            .collect();
        if iface.len() > MAX_ELIMINATION_INTERFACE {
            continue;
        }
        let known = known.get_or_insert_with(|| aux.domains.var_sizes(&rule.body));
        let atoms = iface.iter().fold(1usize, |n, w| {
            let size = known.get(w).copied().unwrap_or(usize::MAX);
            n.saturating_mul(size)
        });
        let better = |b: &(usize, Vec<usize>, Vec<u16>)| (iface.len(), atoms) < (b.2.len(), b.0);
        if best.as_ref().is_none_or(better) {
            best = Some((atoms, bucket, iface));
        }
    }
    let (_, bucket, iface) = best?;
    let body: Vec<PLit> = bucket.iter().map(|&i| rule.body[i].clone()).collect();
    let (lit, def) = aux.define(rule, iface, body);
    let mut rest: Vec<PLit> = Vec::with_capacity(rule.body.len() - bucket.len() + 1);
    rest.push(lit);
    rest.extend(
        (0..rule.body.len())
            .filter(|i| !bucket.contains(i))
            .map(|i| rule.body[i].clone()),
    );
    Some((
        CRule {
            body: rest,
            ..rule.clone()
        },
        def,
    ))
}

/// Step 1 of the module docs.
fn split_groups(rule: CRule, aux: &mut Aux<'_>) -> (CRule, Vec<CRule>) {
    let mut head_vars = Vec::new();
    rule.head.args.iter().for_each(|t| t.vars(&mut head_vars));
    let in_head = |v: u16| head_vars.contains(&v);
    let vars: Vec<Vec<u16>> = rule.body.iter().map(PLit::vars).collect();
    // Union literals sharing a non-head variable.
    let n = rule.body.len();
    let mut parent: Vec<usize> = (0..n).collect();
    let mut owner = vec![usize::MAX; rule.var_names.len()];
    for (i, vs) in vars.iter().enumerate() {
        for &v in vs.iter().filter(|&&v| !in_head(v)) {
            let o = owner[v as usize];
            if o == usize::MAX {
                owner[v as usize] = i;
            } else {
                let (a, b) = (find(&mut parent, o), find(&mut parent, i));
                parent[a] = b;
            }
        }
    }
    let mut groups: Vec<(usize, Vec<usize>)> = Vec::new();
    for i in 0..n {
        let r = find(&mut parent, i);
        match groups.iter_mut().find(|g| g.0 == r) {
            Some(g) => g.1.push(i),
            None => groups.push((r, vec![i])),
        }
    }
    if groups.len() < 2 {
        return (rule, Vec::new());
    }
    let mut keep: Vec<PLit> = Vec::new();
    let mut defs = Vec::new();
    for (_, members) in &groups {
        let local = members
            .iter()
            .any(|&i| vars[i].iter().any(|&v| !in_head(v)));
        let mut all_vars: Vec<u16> = members
            .iter()
            .flat_map(|&i| vars[i].iter().copied())
            .collect();
        all_vars.sort_unstable();
        all_vars.dedup();
        let guards = if local {
            guards_for(&rule, &vars, members, &all_vars)
        } else {
            None
        };
        let Some(guards) = guards else {
            keep.extend(members.iter().map(|&i| rule.body[i].clone()));
            continue;
        };
        for &g in &guards {
            all_vars.extend(vars[g].iter().copied());
        }
        all_vars.sort_unstable();
        all_vars.dedup();
        let outside =
            |v: u16| in_head(v) || (0..n).any(|i| !members.contains(&i) && vars[i].contains(&v));
        let iface: Vec<u16> = all_vars.iter().copied().filter(|&v| outside(v)).collect();
        if !guards.is_empty() && iface.len() + 2 > head_vars_count(&rule) {
            // A guarded group must leave out at least two head variables: leaving out
            // one saves too little to pay for the auxiliary relation's gates
            // (connect four's win lines grow by 8% otherwise).
            keep.extend(members.iter().map(|&i| rule.body[i].clone()));
            continue;
        }
        let mut body: Vec<PLit> = guards.iter().map(|&i| rule.body[i].clone()).collect();
        body.extend(members.iter().map(|&i| rule.body[i].clone()));
        let (lit, def) = aux.define(&rule, iface, body);
        keep.push(lit);
        defs.extend(def);
    }
    (CRule { body: keep, ..rule }, defs)
}

/// The distinct variables of `rule`'s head.
fn head_vars_count(rule: &CRule) -> usize {
    let mut v = Vec::new();
    rule.head.args.iter().for_each(|t| t.vars(&mut v));
    v.sort_unstable();
    v.dedup();
    v.len()
}

/// For step 1: the positive literals outside group `members` that must be copied into its
/// auxiliary rule so that every variable of the group is bound by a positive atom (a
/// head variable used only under negation or in `distinct`, such as the square a piece
/// leaves in chess's `not (threatened ?player ?kx ?ky ?u ?v)`): none when the group is
/// safe alone, `None` when no literals outside it bind the rest. Copies are chosen
/// greedily, fewest new variables per variable covered first. The rule keeps the
/// copied literals, so it stays equivalent.
fn guards_for(
    rule: &CRule,
    vars: &[Vec<u16>],
    members: &[usize],
    all_vars: &[u16],
) -> Option<Vec<usize>> {
    let positive = |i: usize| matches!(&rule.body[i], PLit::Pos(_));
    let mut unbound: Vec<u16> = all_vars
        .iter()
        .copied()
        .filter(|&v| !members.iter().any(|&i| positive(i) && vars[i].contains(&v)))
        .collect();
    let mut guards = Vec::new();
    while !unbound.is_empty() {
        let candidates = (0..rule.body.len()).filter(|&i| positive(i) && !members.contains(&i));
        let score = |i: usize| {
            let covered = vars[i].iter().filter(|v| unbound.contains(v)).count();
            let new = vars[i].iter().filter(|v| !all_vars.contains(v)).count();
            (covered, new)
        };
        let best = candidates.filter(|&i| score(i).0 > 0).min_by_key(|&i| {
            let (covered, new) = score(i);
            (new * 16 / covered, std::cmp::Reverse(covered))
        })?;
        unbound.retain(|v| !vars[best].contains(v));
        guards.push(best);
    }
    Some(guards)
}

/// Step 2 of the module docs.
fn project_literals(mut rule: CRule, aux: &mut Aux<'_>) -> (CRule, Vec<CRule>) {
    if rule.body.len() < 2 {
        return (rule, Vec::new());
    }
    // Occurrences of each variable: head counts as one, each literal as one.
    let mut uses = vec![0u32; rule.var_names.len()];
    let mut head_vars = Vec::new();
    rule.head.args.iter().for_each(|t| t.vars(&mut head_vars));
    head_vars.sort_unstable();
    head_vars.dedup();
    for &v in &head_vars {
        uses[v as usize] += 1;
    }
    let vars: Vec<Vec<u16>> = rule.body.iter().map(PLit::vars).collect();
    for vs in &vars {
        for &v in vs {
            uses[v as usize] += 1;
        }
    }
    let mut defs = Vec::new();
    for (i, vs) in vars.iter().enumerate() {
        if !matches!(rule.body[i], PLit::Pos(_)) || vs.iter().all(|&v| uses[v as usize] > 1) {
            continue;
        }
        let iface: Vec<u16> = vs
            .iter()
            .copied()
            .filter(|&v| uses[v as usize] > 1)
            .collect();
        let (lit, def) = aux.define(&rule, iface, vec![rule.body[i].clone()]);
        rule.body[i] = lit;
        defs.extend(def);
    }
    (rule, defs)
}
