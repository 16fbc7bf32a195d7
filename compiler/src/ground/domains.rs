//! Estimates how many values each argument position of each relation can take, before
//! grounding, so rule splitting ([`super::split`]) can tell a small auxiliary relation from
//! a large one when both have the same number of variables.
//!
//! A position is a relation and a path into nested function terms: `true (connected ?k ?m
//! ?n)` puts `?k` at `(true, [arg 0, connected/0])`. The analysis is the domain model of
//! GDL propnet builders (values flow from rule heads' constants and from body positions to
//! head positions), relaxed: a variable's values are the intersection of its positive body
//! positions' constants, a variable bound to function terms copies the sub-positions of its
//! first positive occurrence, negation, `distinct` and `=` are ignored, paths stop at
//! [`MAX_PATH`] steps and a set past [`MAX_VALUES`] constants is "large". The result is an
//! estimate, used only to order choices; it never decides what an atom is.

use super::rules::{CRule, PAtom, PLit, PTerm};
use crate::gdl::{RelId, Sym};
use std::collections::{HashMap, HashSet};

/// Constants a position may hold before it counts as large.
pub const MAX_VALUES: usize = 4096;
/// Deepest path tracked (steps into function terms, plus the argument index).
pub const MAX_PATH: usize = 6;
/// Most passes over the rules (the estimate stops improving long before on real games).
const MAX_PASSES: usize = 64;

/// One step of a path: the enclosing functor (`u32::MAX` at the atom's argument list) and
/// the argument index.
type Step = (u32, u16);

/// The values seen at one position.
#[derive(Clone, Debug, Default)]
struct Dom {
    consts: HashSet<Sym>,
    /// Function terms occur here (their parts are the longer paths).
    compound: bool,
    /// More than [`MAX_VALUES`] constants.
    large: bool,
    /// A known count instead of the constants (auxiliary relations, [`Domains::set_sizes`]).
    count: Option<usize>,
}

impl Dom {
    fn add(&mut self, c: Sym) -> bool {
        if self.large || self.consts.contains(&c) {
            return false;
        }
        if self.consts.len() >= MAX_VALUES {
            self.large = true;
            self.consts.clear();
            return true;
        }
        self.consts.insert(c)
    }

    fn merge(&mut self, other: &Dom) -> bool {
        let mut changed = false;
        if other.compound && !self.compound {
            self.compound = true;
            changed = true;
        }
        if other.large && !self.large {
            self.large = true;
            self.consts.clear();
            return true;
        }
        for &c in &other.consts {
            changed |= self.add(c);
        }
        changed
    }
}

/// Estimated value counts of every argument position (see the module docs).
#[derive(Debug, Default)]
pub struct Domains {
    doms: HashMap<RelId, HashMap<Vec<Step>, Dom>>,
}

/// A variable's occurrence in a positive body literal: the variable, the literal's relation
/// and the variable's path in the literal's arguments.
type Occurrence = (u16, RelId, Vec<Step>);

/// Every occurrence of a variable in the positive literals of `body`, in body order.
fn occurrences(body: &[PLit]) -> Vec<Occurrence> {
    let mut out = Vec::new();
    for lit in body {
        if let PLit::Pos(a) = lit {
            let mut vp = Vec::new();
            var_paths(a, &mut vp);
            out.extend(vp.into_iter().map(|(v, p)| (v, a.rel, p)));
        }
    }
    out
}

/// Every (variable, path) of an atom's arguments.
fn var_paths(a: &PAtom, out: &mut Vec<(u16, Vec<Step>)>) {
    fn walk(t: &PTerm, path: &mut Vec<Step>, out: &mut Vec<(u16, Vec<Step>)>) {
        match t {
            PTerm::Var(v) => out.push((*v, path.clone())),
            PTerm::Const(_) => {}
            PTerm::Fn(f, args) if path.len() < MAX_PATH => {
                for (i, arg) in args.iter().enumerate() {
                    path.push((f.0, i as u16));
                    walk(arg, path, out);
                    path.pop();
                }
            }
            PTerm::Fn(..) => {}
        }
    }
    for (i, t) in a.args.iter().enumerate() {
        walk(t, &mut vec![(u32::MAX, i as u16)], out);
    }
}

impl Domains {
    /// Runs the analysis over `rules` (with the `true`/`does` reachability rules among
    /// them, so fluents and moves get the values of `init`/`next` and `legal`).
    pub fn analyse<'a>(rules: impl Iterator<Item = &'a CRule>) -> Domains {
        // Each rule's body occurrences, found once for every pass.
        let rules: Vec<(&CRule, Vec<Occurrence>)> =
            rules.map(|r| (r, occurrences(&r.body))).collect();
        let mut d = Domains::default();
        for _ in 0..MAX_PASSES {
            let mut changed = false;
            for (rule, occurrences) in &rules {
                changed |= d.apply(rule, occurrences);
            }
            if !changed {
                break;
            }
        }
        d
    }

    /// Adds what one pass of `rule` (whose body has `occurrences`) derives; true when
    /// something changed.
    fn apply(&mut self, rule: &CRule, occurrences: &[Occurrence]) -> bool {
        let mut derived: Vec<(Vec<Step>, Dom)> = Vec::new();
        self.head_terms(rule, occurrences, &mut derived);
        let table = self.doms.entry(rule.head.rel).or_default();
        let mut changed = false;
        for (path, dom) in derived {
            changed |= table.entry(path).or_default().merge(&dom);
        }
        changed
    }

    /// The domains the head of `rule` receives, by head path.
    fn head_terms(
        &self,
        rule: &CRule,
        occurrences: &[Occurrence],
        out: &mut Vec<(Vec<Step>, Dom)>,
    ) {
        fn walk(
            d: &Domains,
            t: &PTerm,
            path: &mut Vec<Step>,
            occ: &[Occurrence],
            out: &mut Vec<(Vec<Step>, Dom)>,
        ) {
            match t {
                PTerm::Const(c) => {
                    let mut dom = Dom::default();
                    dom.add(*c);
                    out.push((path.clone(), dom));
                }
                PTerm::Var(v) => d.var_into(*v, path, occ, out),
                PTerm::Fn(f, args) => {
                    out.push((
                        path.clone(),
                        Dom {
                            compound: true,
                            ..Dom::default()
                        },
                    ));
                    if path.len() < MAX_PATH {
                        for (i, arg) in args.iter().enumerate() {
                            path.push((f.0, i as u16));
                            walk(d, arg, path, occ, out);
                            path.pop();
                        }
                    }
                }
            }
        }
        for (i, t) in rule.head.args.iter().enumerate() {
            walk(self, t, &mut vec![(u32::MAX, i as u16)], occurrences, out);
        }
    }

    /// The values of variable `v` placed at head path `path`: the intersection of its
    /// positive occurrences' constants, and the sub-positions of its first occurrence when
    /// it is bound to function terms.
    fn var_into(&self, v: u16, path: &[Step], occ: &[Occurrence], out: &mut Vec<(Vec<Step>, Dom)>) {
        let mut at: Vec<&Dom> = Vec::new();
        let mut first: Option<(RelId, &[Step])> = None;
        for (w, rel, p) in occ {
            if *w == v {
                first.get_or_insert((*rel, p.as_slice()));
                match self.doms.get(rel).and_then(|t| t.get(p)) {
                    Some(dom) => at.push(dom),
                    None => return, // nothing derived there yet
                }
            }
        }
        let Some((rel, from)) = first else {
            return;
        };
        let mut dom = Dom {
            compound: at.iter().any(|d| d.compound),
            large: at.iter().all(|d| d.large),
            ..Dom::default()
        };
        if !dom.large {
            let smallest = at
                .iter()
                .filter(|d| !d.large)
                .min_by_key(|d| d.consts.len())
                .expect("a variable with an occurrence that is not large");
            dom.consts = smallest
                .consts
                .iter()
                .filter(|c| at.iter().all(|d| d.large || d.consts.contains(c)))
                .copied()
                .collect();
        }
        let compound = dom.compound;
        out.push((path.to_vec(), dom));
        if compound {
            for (p, sub) in self.doms.get(&rel).into_iter().flatten() {
                if p.len() > from.len() && p.starts_with(from) {
                    let mut to = path.to_vec();
                    to.extend_from_slice(&p[from.len()..]);
                    if to.len() <= MAX_PATH {
                        out.push((to, sub.clone()));
                    }
                }
            }
        }
    }

    /// Estimated number of values of each variable of `body`, in one walk over it: the
    /// fewest constants among the variable's positive occurrences. A variable is missing
    /// when no occurrence has a known, small set.
    pub fn var_sizes(&self, body: &[PLit]) -> HashMap<u16, usize> {
        let mut sizes = HashMap::new();
        for (v, rel, p) in occurrences(body) {
            let Some(dom) = self.doms.get(&rel).and_then(|t| t.get(&p)) else {
                continue;
            };
            let n = match dom.count {
                Some(n) => n,
                None if !dom.large && !dom.compound && !dom.consts.is_empty() => dom.consts.len(),
                None => continue,
            };
            sizes
                .entry(v)
                .and_modify(|b: &mut usize| *b = (*b).min(n))
                .or_insert(n);
        }
        sizes
    }

    /// Records that relation `rel` (an auxiliary relation over plain variables) takes
    /// `sizes[i]` values at argument `i` (`None`: unknown).
    pub fn set_sizes(&mut self, rel: RelId, sizes: &[Option<usize>]) {
        let table = self.doms.entry(rel).or_default();
        for (i, s) in sizes.iter().enumerate() {
            let dom = table.entry(vec![(u32::MAX, i as u16)]).or_default();
            match s {
                Some(n) => dom.count = Some(*n),
                None => dom.large = true,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gdl::Span;

    fn var(v: u16) -> PTerm {
        PTerm::Var(v)
    }
    fn c(n: u32) -> PTerm {
        PTerm::Const(Sym(n))
    }
    fn rule(head: PAtom, body: Vec<PLit>) -> CRule {
        CRule {
            head,
            body,
            var_names: Vec::new(),
            span: Span::default(),
            synthetic: false,
        }
    }

    #[test]
    fn values_flow_through_function_terms_and_intersect() {
        let (num, pair, twice, f) = (RelId(0), RelId(1), RelId(2), 100);
        let at = |rel, args| PAtom { rel, args };
        let mut rules: Vec<CRule> = (0..5).map(|n| rule(at(num, vec![c(n)]), vec![])).collect();
        // pair((f ?x ?y)) :- num(?x), num(?y), and ?y also in a 2-value relation.
        rules.push(rule(at(RelId(3), vec![c(1)]), vec![]));
        rules.push(rule(at(RelId(3), vec![c(3)]), vec![]));
        rules.push(rule(
            at(pair, vec![PTerm::Fn(Sym(f), vec![var(0), var(1)])]),
            vec![
                PLit::Pos(at(num, vec![var(0)])),
                PLit::Pos(at(num, vec![var(1)])),
                PLit::Pos(at(RelId(3), vec![var(1)])),
            ],
        ));
        // twice(?p) :- pair(?p): sub-positions copied.
        rules.push(rule(
            at(twice, vec![var(0)]),
            vec![PLit::Pos(at(pair, vec![var(0)]))],
        ));
        let d = Domains::analyse(rules.iter());
        let body = vec![PLit::Pos(at(
            twice,
            vec![PTerm::Fn(Sym(f), vec![var(7), var(8)])],
        ))];
        let sizes = d.var_sizes(&body);
        assert_eq!(sizes.get(&7), Some(&5));
        assert_eq!(sizes.get(&8), Some(&2));
        assert_eq!(sizes.len(), 2);
        // A variable bound to the whole function term has no constant count.
        let whole = vec![PLit::Pos(at(twice, vec![var(9)]))];
        assert_eq!(d.var_sizes(&whole).get(&9), None);
    }
}
