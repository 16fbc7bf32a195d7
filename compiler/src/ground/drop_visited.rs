//! Drops a visited-list accumulator from a path-search recursion where it provably
//! cannot change which atoms hold, so the recursion grounds to one atom per node pair
//! instead of one per simple path.
//!
//! The idiom (laikLee_hex's `connection/6`): a linear recursion over relations `S` threads
//! a list through argument `k`; every call from outside `S` passes the empty list; each
//! step appends a key of the current node with an append-if-absent relation `A` (so the
//! walk never revisits a node) and checks the list with bound relations `B` (so the walk
//! is at most `N` long). Dropping the list (replacing `A(E, L, L2)` by `A`'s element check
//! `D(E)` and deleting the `B` literals) gives the same atoms:
//!
//! * every derivation of the original is one of the relaxed program (only literals were
//!   removed, and `D(E)` is implied by `A(E, L, L2)`);
//! * a *shortest* derivation of a relaxed atom never repeats an `S` atom along its chain of
//!   recursive calls (a repeat could be cut out). The arguments that every recursive call
//!   passes unchanged are the same along the chain, so the atoms that append differ in the
//!   others; the appended key determines those (a functional dependency checked on the
//!   facts of the key relation), so the appended keys are distinct, each satisfies `D`,
//!   and there are at most `|D|` of them. With `|D| <= N` every `A` and `B` literal of the
//!   original holds along that chain, which is therefore an original derivation too.
//!
//! Anything outside that shape, or failing one of the checks, is left alone.

use std::collections::{BTreeSet, HashMap, HashSet};

use super::list_idioms::{self, Append, Bound};
use crate::gdl::{Atom, Lit, Program, RelKey, RelationInfo, Rule, Sym, Term};

/// Relations a rewrite must never rename.
const KEYWORDS: [&str; 10] = [
    "role", "init", "true", "next", "does", "legal", "goal", "terminal", "base", "input",
];

/// The program with every droppable visited-list accumulator dropped, or `None` when
/// there is none.
pub(super) fn run(program: &Program) -> Option<Program> {
    let mut out: Option<Program> = None;
    // Each rewrite removes one accumulator argument, so this ends.
    loop {
        let current = out.as_ref().unwrap_or(program);
        let Some(found) = find(current) else {
            return out;
        };
        out = Some(rewrite(current, &found));
    }
}

/// One accumulator that can be dropped.
struct Found {
    /// The recursive relations.
    scc: HashSet<RelKey>,
    /// The accumulator's argument position.
    k: usize,
    /// The append relation and the element check replacing it.
    appends: HashMap<RelKey, Append>,
    /// The bound relations whose literals on the accumulator are deleted.
    bounds: HashMap<RelKey, Bound>,
}

/// The facts of a relation defined only by ground facts.
fn facts<'p>(program: &'p Program, info: &RelationInfo, key: RelKey) -> Option<Vec<&'p [Term]>> {
    let id = info.id_of(key)?;
    info.rules_of[id.0 as usize]
        .iter()
        .map(|&ri| {
            let r = &program.rules[ri];
            (r.body.is_empty() && r.head.args.iter().all(is_ground)).then_some(&r.head.args[..])
        })
        .collect()
}

fn is_ground(t: &Term) -> bool {
    match t {
        Term::Var(_) => false,
        Term::Const(_) => true,
        Term::Fn(_, a) => a.iter().all(is_ground),
    }
}

fn mentions(t: &Term, v: Sym) -> bool {
    match t {
        Term::Var(x) => *x == v,
        Term::Const(_) => false,
        Term::Fn(_, a) => a.iter().any(|t| mentions(t, v)),
    }
}

fn lit_atom(l: &Lit) -> Option<&Atom> {
    match l {
        Lit::Pos(a) | Lit::Neg(a) => Some(a),
        _ => None,
    }
}

fn lit_terms(l: &Lit) -> Vec<&Term> {
    match l {
        Lit::Pos(a) | Lit::Neg(a) => a.args.iter().collect(),
        Lit::Distinct(a, b) | Lit::Equal(a, b) => vec![a, b],
    }
}

/// The first droppable accumulator of `program`.
fn find(program: &Program) -> Option<Found> {
    let info = RelationInfo::new(program);
    let rules_of = |key: RelKey| -> Vec<&Rule> {
        info.id_of(key).map_or(Vec::new(), |id| {
            info.rules_of[id.0 as usize]
                .iter()
                .map(|&ri| &program.rules[ri])
                .collect()
        })
    };
    let bounds: HashMap<RelKey, Bound> = info
        .relations
        .iter()
        .filter(|k| k.arity == 1)
        .filter_map(|&k| Some((k, list_idioms::bound(&rules_of(k))?)))
        .collect();
    let appends: HashMap<RelKey, Append> = info
        .relations
        .iter()
        .filter_map(|&k| Some((k, list_idioms::append(k, &rules_of(k), &bounds)?)))
        .collect();
    if appends.is_empty() {
        return None;
    }
    let keywords: Vec<Sym> = KEYWORDS
        .iter()
        .filter_map(|k| program.symbols.get(k))
        .collect();
    for scc in &info.sccs {
        let keys: Vec<RelKey> = scc.iter().map(|&r| info.relations[r.0 as usize]).collect();
        let arity = keys[0].arity;
        if !info.recursive[scc[0].0 as usize]
            || keys
                .iter()
                .any(|k| k.arity != arity || keywords.contains(&k.name))
            || keys
                .iter()
                .any(|k| appends.contains_key(k) || bounds.contains_key(k))
        {
            continue;
        }
        let set: HashSet<RelKey> = keys.iter().copied().collect();
        for k in 0..arity {
            let found = Found {
                scc: set.clone(),
                k,
                appends: appends.clone(),
                bounds: bounds.clone(),
            };
            if check(program, &info, &found) {
                return Some(found);
            }
        }
    }
    None
}

/// How one rule of the recursion uses the accumulator.
struct RuleUse<'r> {
    rule: &'r Rule,
    /// The recursive call, if any.
    call: Option<&'r Atom>,
    /// The append literal, if any.
    push: Option<&'r Atom>,
}

/// Whether `found` meets every condition of the module doc.
fn check(program: &Program, info: &RelationInfo, found: &Found) -> bool {
    let Some(uses) = rule_uses(program, found) else {
        return false;
    };
    let pushes: Vec<&RuleUse<'_>> = uses.iter().filter(|u| u.push.is_some()).collect();
    let Some(first) = pushes.first() else {
        return false;
    };
    let append_key = RelKey::of(first.push.unwrap());
    let append = &found.appends[&append_key];
    let same_append = pushes
        .iter()
        .all(|u| RelKey::of(u.push.unwrap()) == append_key);
    let invariant = invariant_positions(&uses, found.k);
    let Some(elements) = facts(program, info, append.elem) else {
        return false;
    };
    let distinct_elements: BTreeSet<&[Term]> = elements.into_iter().collect();
    let capacity = uses
        .iter()
        .flat_map(|u| bound_literals(u, found))
        .map(|b| b.max_len)
        .chain([append.capacity])
        .min()
        .unwrap_or(usize::MAX);
    let uniform_bounds = uses
        .iter()
        .flat_map(|u| bound_literals(u, found))
        .all(|b| b.elem == append.elem && b.nil == append.nil && b.cons == append.cons);
    same_append
        && uniform_bounds
        && distinct_elements.len() <= capacity
        && keys_determine_nodes(program, info, &pushes, &invariant, found.k)
        && outside_calls_pass(program, found, append.nil)
        && no_name_clash(info, found)
}

/// The append literal `A(E, L, L2)` of a rule of the recursion (`L` its head's argument
/// `k`) and the accumulator variables `[L]` or `[L, L2]`, if the head's argument is a
/// variable and there is at most one such literal, of the right form.
fn accumulators<'r>(rule: &'r Rule, found: &Found) -> Option<(Option<&'r Atom>, Vec<Sym>)> {
    let Term::Var(acc) = rule.head.args[found.k] else {
        return None;
    };
    let mut pushes = rule.body.iter().filter_map(|l| match l {
        Lit::Pos(a)
            if found.appends.contains_key(&RelKey::of(a)) && a.args[1] == Term::Var(acc) =>
        {
            Some(a)
        }
        _ => None,
    });
    let push = pushes.next();
    if pushes.next().is_some() {
        return None;
    }
    let Some(a) = push else {
        return Some((None, vec![acc]));
    };
    match (&a.args[0], &a.args[2]) {
        (e, Term::Var(l2)) if *l2 != acc && !mentions(e, acc) && !mentions(e, *l2) => {
            Some((push, vec![acc, *l2]))
        }
        _ => None,
    }
}

/// The accumulator's uses in each rule of the recursion, if every rule uses it only as
/// the idiom allows: head argument `k` a variable `L`; at most one recursive call, with
/// `L` (or the appended list `L2` when the rule appends) as argument `k`; at most one
/// append `A(E, L, L2)`; bound literals on `L` or `L2`; `L` and `L2` nowhere else.
fn rule_uses<'p>(program: &'p Program, found: &Found) -> Option<Vec<RuleUse<'p>>> {
    let mut uses = Vec::new();
    for rule in program
        .rules
        .iter()
        .filter(|r| found.scc.contains(&RelKey::of(&r.head)))
    {
        let (push, accs) = accumulators(rule, found)?;
        let passed = *accs.last()?;
        let uses_acc = |t: &Term| accs.iter().any(|&v| mentions(t, v));
        let mut call = None;
        for l in &rule.body {
            let atom = lit_atom(l);
            if atom.is_some_and(|a| found.scc.contains(&RelKey::of(a))) {
                let (Lit::Pos(a), None) = (l, call) else {
                    return None; // negated, or a second call: not a linear recursion
                };
                let others = a.args.iter().enumerate().filter(|&(i, _)| i != found.k);
                if a.args[found.k] != Term::Var(passed)
                    || others.into_iter().any(|(_, t)| uses_acc(t))
                {
                    return None;
                }
                call = Some(a);
            } else if atom.is_some_and(|a| Some(a) == push) || is_accumulator_bound(l, found, &accs)
            {
                continue;
            } else if lit_terms(l).into_iter().any(uses_acc) {
                return None;
            }
        }
        let mut head_others = rule
            .head
            .args
            .iter()
            .enumerate()
            .filter(|&(i, _)| i != found.k);
        if head_others.any(|(_, t)| uses_acc(t)) {
            return None;
        }
        uses.push(RuleUse { rule, call, push });
    }
    Some(uses)
}

/// `(B ?v)` with `B` a recognised bound and `?v` one of `accs`.
fn is_accumulator_bound(l: &Lit, found: &Found, accs: &[Sym]) -> bool {
    match l {
        Lit::Pos(a) if found.bounds.contains_key(&RelKey::of(a)) => {
            matches!(a.args[0], Term::Var(v) if accs.contains(&v))
        }
        _ => false,
    }
}

/// The bounds a rule checks its accumulator with.
fn bound_literals<'f>(u: &RuleUse<'_>, found: &'f Found) -> Vec<&'f Bound> {
    let accs = accumulators(u.rule, found).map_or(Vec::new(), |(_, a)| a);
    u.rule
        .body
        .iter()
        .filter(|l| is_accumulator_bound(l, found, &accs))
        .filter_map(|l| found.bounds.get(&RelKey::of(lit_atom(l)?)))
        .collect()
}

/// Argument positions (other than `k`) that every recursive call passes unchanged.
fn invariant_positions(uses: &[RuleUse<'_>], k: usize) -> Vec<bool> {
    let arity = uses[0].rule.head.args.len();
    (0..arity)
        .map(|i| {
            i != k
                && uses
                    .iter()
                    .all(|u| u.call.is_none_or(|c| c.args[i] == u.rule.head.args[i]))
        })
        .collect()
}

/// Whether, in the rules that append, the appended key determines every argument that
/// recursive calls change: all appends are made by one relation's rules, each argument
/// that varies is the key itself or a column that the key determines in one fact-only
/// relation, and all those rules map key to arguments the same way.
fn keys_determine_nodes(
    program: &Program,
    info: &RelationInfo,
    pushes: &[&RuleUse<'_>],
    invariant: &[bool],
    k: usize,
) -> bool {
    let head = RelKey::of(&pushes[0].rule.head);
    let mut signature = None;
    for u in pushes {
        if RelKey::of(&u.rule.head) != head {
            return false;
        }
        let Some(sig) = key_signature(program, info, u, invariant, k) else {
            return false;
        };
        if *signature.get_or_insert_with(|| sig.clone()) != sig {
            return false;
        }
    }
    true
}

/// How a key column maps to a varying argument: the key itself, or column `to` of the
/// fact-only relation `rel` whose column `from` holds the key.
#[derive(Clone, Debug, PartialEq, Eq)]
enum KeyMap {
    Itself,
    Column { rel: RelKey, from: usize, to: usize },
}

/// The [`KeyMap`] of each varying argument of an appending rule, if every one is
/// determined by the appended key.
fn key_signature(
    program: &Program,
    info: &RelationInfo,
    u: &RuleUse<'_>,
    invariant: &[bool],
    k: usize,
) -> Option<Vec<KeyMap>> {
    let Term::Var(e) = u.push?.args[0] else {
        return None;
    };
    let mut sig = Vec::new();
    for (i, arg) in u.rule.head.args.iter().enumerate() {
        if i == k || invariant[i] {
            continue;
        }
        let Term::Var(v) = *arg else { return None };
        if v == e {
            sig.push(KeyMap::Itself);
            continue;
        }
        let map = u.rule.body.iter().find_map(|l| {
            let Lit::Pos(a) = l else { return None };
            let from = a.args.iter().position(|t| *t == Term::Var(e))?;
            let to = a.args.iter().position(|t| *t == Term::Var(v))?;
            let rel = RelKey::of(a);
            functional(&facts(program, info, rel)?, from, to).then_some(KeyMap::Column {
                rel,
                from,
                to,
            })
        })?;
        sig.push(map);
    }
    Some(sig)
}

/// Whether column `from` determines column `to` in `rows`.
fn functional(rows: &[&[Term]], from: usize, to: usize) -> bool {
    let mut seen: HashMap<&Term, &Term> = HashMap::new();
    rows.iter()
        .all(|r| *seen.entry(&r[from]).or_insert(&r[to]) == &r[to])
}

/// Whether every use of the recursion from outside it passes the empty list.
fn outside_calls_pass(program: &Program, found: &Found, nil: Sym) -> bool {
    program
        .rules
        .iter()
        .filter(|r| !found.scc.contains(&RelKey::of(&r.head)))
        .flat_map(|r| r.body.iter().filter_map(lit_atom))
        .filter(|a| found.scc.contains(&RelKey::of(a)))
        .all(|a| a.args[found.k] == Term::Const(nil))
}

/// Whether the relations, one argument shorter, would be new relations.
fn no_name_clash(info: &RelationInfo, found: &Found) -> bool {
    found.scc.iter().all(|key| {
        info.id_of(RelKey {
            name: key.name,
            arity: key.arity - 1,
        })
        .is_none()
    })
}

/// `program` with `found`'s accumulator dropped.
fn rewrite(program: &Program, found: &Found) -> Program {
    let drop_arg = |a: &Atom| -> Atom {
        let mut a = a.clone();
        if found.scc.contains(&RelKey::of(&a)) {
            a.args.remove(found.k);
        }
        a
    };
    let mut out = program.clone();
    for rule in &mut out.rules {
        let inside = found.scc.contains(&RelKey::of(&rule.head));
        let (push, accs) = match inside {
            true => {
                let (push, accs) = accumulators(rule, found).expect("checked by rule_uses");
                (push.cloned(), accs)
            }
            false => (None, Vec::new()),
        };
        let mut body = Vec::with_capacity(rule.body.len());
        for l in &rule.body {
            match l {
                Lit::Pos(a) if Some(a) == push.as_ref() => {
                    let elem = found.appends[&RelKey::of(a)].elem;
                    body.push(Lit::Pos(Atom {
                        rel: elem.name,
                        args: vec![a.args[0].clone()],
                    }));
                }
                _ if is_accumulator_bound(l, found, &accs) => {}
                Lit::Pos(a) => body.push(Lit::Pos(drop_arg(a))),
                Lit::Neg(a) => body.push(Lit::Neg(drop_arg(a))),
                other => body.push(other.clone()),
            }
        }
        rule.body = body;
        rule.head = drop_arg(&rule.head);
    }
    out
}
