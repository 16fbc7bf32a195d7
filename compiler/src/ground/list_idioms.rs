//! Recognises, from the shape of their rules, the two list relations of the visited-list
//! idiom that `drop_visited` removes: a *bound* `B(L)` ("`L` is a list of at most `N`
//! elements, each satisfying `D`") and an *append-if-absent* `A(E, L, L2)` ("`E`
//! satisfies `D`, is not in `L`, and `L2` is `L` with `E` appended").
//!
//! Only exact shapes are accepted (the rules below, up to names and literal order), so
//! what a recognised relation holds for is known without evaluating it:
//!
//! ```text
//! (B nil)                (<= (B (cons ?a nil)) (D ?a))   (<= (B (cons ?a (cons ?b nil))) (D ?a) (D ?b))  …
//! (<= (A ?e nil (cons ?e nil)) (D ?e))
//! (<= (A ?e (cons ?h ?t) (cons ?h ?t2)) (D ?e) (distinct ?e ?h) (A ?e ?t ?t2)   ; required
//!                                        (D ?h) (B ?t) (B ?t2))                 ; optional
//! ```

use std::collections::{BTreeSet, HashMap};

use crate::gdl::{Atom, Lit, RelKey, Rule, Sym, Term};

/// A recognised bound relation: `B(L)` holds exactly for the lists
/// `(cons e1 (cons e2 … nil))` of length `0..=max_len` whose elements all satisfy `elem`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Bound {
    /// The empty list constant.
    pub nil: Sym,
    /// The binary list constructor.
    pub cons: Sym,
    /// The longest list accepted.
    pub max_len: usize,
    /// The unary relation every element satisfies.
    pub elem: RelKey,
}

/// A recognised append-if-absent relation: for a list `L` of distinct `elem` elements,
/// `A(E, L, L2)` holds iff `elem(E)`, `E ∉ L` and `L2 = L ++ [E]`, provided
/// `len(L) + 1 <= capacity` (the longest list its bound literals accept).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Append {
    /// The empty list constant.
    pub nil: Sym,
    /// The binary list constructor.
    pub cons: Sym,
    /// The unary relation the appended element must satisfy.
    pub elem: RelKey,
    /// Longest list whose making the rules' bound literals allow (`usize::MAX` if none).
    pub capacity: usize,
}

/// The elements of a list term `(cons e1 (cons e2 … nil))`, if `t` is one.
fn list_elements(t: &Term, nil: Sym, cons: Sym) -> Option<Vec<&Term>> {
    let mut out = Vec::new();
    let mut t = t;
    loop {
        match t {
            Term::Const(c) if *c == nil => return Some(out),
            Term::Fn(f, args) if *f == cons && args.len() == 2 => {
                out.push(&args[0]);
                t = &args[1];
            }
            _ => return None,
        }
    }
}

/// `(D ?v)`: the relation and variable of a positive unary literal on a variable.
fn unary_check(l: &Lit) -> Option<(RelKey, Sym)> {
    match l {
        Lit::Pos(a) if a.args.len() == 1 => match a.args[0] {
            Term::Var(v) => Some((RelKey::of(a), v)),
            _ => None,
        },
        _ => None,
    }
}

/// The bound a unary relation's rules define, if they have exactly the bound shape.
pub(super) fn bound(rules: &[&Rule]) -> Option<Bound> {
    let nil = rules.iter().find_map(|r| match &r.head.args[..] {
        [Term::Const(c)] => Some(*c),
        _ => None,
    })?;
    let cons = rules.iter().find_map(|r| match &r.head.args[..] {
        [Term::Fn(f, args)] if args.len() == 2 => Some(*f),
        _ => None,
    })?;
    let mut elem = None;
    let mut lengths = BTreeSet::new();
    for r in rules {
        let [arg] = &r.head.args[..] else { return None };
        let items = list_elements(arg, nil, cons)?;
        let vars: BTreeSet<Sym> = items
            .iter()
            .map(|t| match t {
                Term::Var(v) => Some(*v),
                _ => None,
            })
            .collect::<Option<_>>()?;
        if vars.len() != items.len() || r.body.len() != items.len() {
            return None;
        }
        let mut checked = BTreeSet::new();
        for l in &r.body {
            let (rel, v) = unary_check(l)?;
            if *elem.get_or_insert(rel) != rel || !vars.contains(&v) {
                return None;
            }
            checked.insert(v);
        }
        if checked != vars {
            return None;
        }
        lengths.insert(items.len());
    }
    let max_len = *lengths.last()?;
    // Every length 0..=max_len, so the bound is exactly "at most max_len".
    (lengths.len() == max_len + 1).then_some(())?;
    Some(Bound {
        nil,
        cons,
        max_len,
        elem: elem?,
    })
}

/// The append-if-absent relation `key`'s rules define, if they have exactly that shape;
/// `bounds` are the recognised bound relations its step rule may use.
pub(super) fn append(
    key: RelKey,
    rules: &[&Rule],
    bounds: &HashMap<RelKey, Bound>,
) -> Option<Append> {
    if key.arity != 3 || rules.len() != 2 {
        return None;
    }
    let (base, step) = match &rules[0].head.args[1] {
        Term::Const(_) => (rules[0], rules[1]),
        _ => (rules[1], rules[0]),
    };
    let (nil, elem) = base_rule(base)?;
    let (cons, capacity) = step_rule(key, step, nil, elem, bounds)?;
    let base_cons = match &base.head.args[2] {
        Term::Fn(f, _) => *f,
        _ => return None,
    };
    (base_cons == cons).then_some(Append {
        nil,
        cons,
        elem,
        capacity,
    })
}

/// `(<= (A ?e nil (cons ?e nil)) (D ?e))`: the empty list and `D`.
fn base_rule(r: &Rule) -> Option<(Sym, RelKey)> {
    let [Term::Var(e), Term::Const(nil), Term::Fn(_, out)] = &r.head.args[..] else {
        return None;
    };
    if out[..] != [Term::Var(*e), Term::Const(*nil)] {
        return None;
    }
    let [l] = &r.body[..] else { return None };
    let (elem, v) = unary_check(l)?;
    (v == *e).then_some((*nil, elem))
}

/// The step rule's list constructor and the capacity its bound literals allow.
fn step_rule(
    key: RelKey,
    r: &Rule,
    nil: Sym,
    elem: RelKey,
    bounds: &HashMap<RelKey, Bound>,
) -> Option<(Sym, usize)> {
    let [Term::Var(e), Term::Fn(cons, l), Term::Fn(cons2, l2)] = &r.head.args[..] else {
        return None;
    };
    let ([Term::Var(h), Term::Var(t)], [Term::Var(h2), Term::Var(t2)]) = (&l[..], &l2[..]) else {
        return None;
    };
    let distinct_vars: BTreeSet<Sym> = [*e, *h, *t, *t2].into();
    if cons != cons2 || h != h2 || distinct_vars.len() != 4 {
        return None;
    }
    let recursive = Atom {
        rel: key.name,
        args: vec![Term::Var(*e), Term::Var(*t), Term::Var(*t2)],
    };
    let (mut has_distinct, mut has_call, mut checks_e) = (false, false, false);
    let mut capacity = usize::MAX;
    for lit in &r.body {
        match lit {
            Lit::Distinct(Term::Var(a), Term::Var(b)) if (a, b) == (e, h) || (a, b) == (h, e) => {
                has_distinct = true
            }
            Lit::Pos(a) if *a == recursive => has_call = true,
            _ => {
                let (rel, v) = unary_check(lit)?;
                if rel == elem && (v == *e || v == *h) {
                    checks_e |= v == *e;
                } else {
                    let b = bounds.get(&rel)?;
                    let fits = b.nil == nil && b.cons == *cons && b.elem == elem;
                    if !fits || (v != *t && v != *t2) {
                        return None;
                    }
                    capacity = capacity.min(b.max_len);
                }
            }
        }
    }
    (has_distinct && has_call && checks_e).then_some((*cons, capacity))
}
