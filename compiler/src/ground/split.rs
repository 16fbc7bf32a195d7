//! Splits rule bodies at their head variables: groups of body literals that share no
//! non-head variable with the rest of the body become auxiliary relations, so a rule like
//! `next(c x y) :- true(c x y), does(a, m ?p), distinct(x ?p), does(b, m ?q), distinct(x ?q)`
//! grounds as a sum of small joins instead of the Cartesian product of both roles' moves.
//!
//! With the head variables `H` taken as given, body literals are connected when they share
//! a variable outside `H`. A connected group `C` with variables outside `H` becomes
//! `aux(H ∩ vars(C)) :- C` and is replaced in the rule by that one positive literal. This
//! is the classic projection of existential variables used by propnet builders (and
//! Datalog engines) to avoid Cartesian products. A group is kept in place when the split
//! would be unsafe (a head variable of `C` not bound by a positive atom of `C`) or useless
//! (`C` is the whole body).

use super::rules::{CRule, PAtom, PLit, PTerm, Relations};
use super::terms::RelId;
use crate::gdl::Symbols;

fn lit_vars(l: &PLit) -> Vec<u16> {
    let mut v = Vec::new();
    match l {
        PLit::Pos(a) | PLit::Neg(a) => a.args.iter().for_each(|t| t.vars(&mut v)),
        PLit::Distinct(a, b) | PLit::Equal(a, b) => {
            a.vars(&mut v);
            b.vars(&mut v);
        }
    }
    v.sort_unstable();
    v.dedup();
    v
}

fn find(parent: &mut [usize], mut i: usize) -> usize {
    while parent[i] != i {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    i
}

/// Splits every rule of `rules` as described in the module docs; new auxiliary relations
/// are named `split#N/arity` (a name KIF cannot spell) and interned in `rels` and `syms`.
/// Rules that need no split are returned unchanged, in order; auxiliary rules follow the
/// rule they come from.
pub fn split_rules(
    rules: Vec<CRule>,
    does: RelId,
    rels: &mut Relations,
    syms: &mut Symbols,
) -> Vec<CRule> {
    let mut out = Vec::with_capacity(rules.len());
    let mut next_aux = 0usize;
    for rule in rules {
        let mut head_vars = Vec::new();
        rule.head.args.iter().for_each(|t| t.vars(&mut head_vars));
        let in_head = |v: u16| head_vars.contains(&v);
        let vars: Vec<Vec<u16>> = rule.body.iter().map(lit_vars).collect();
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
        let mut keep: Vec<PLit> = Vec::new();
        let mut aux_rules = Vec::new();
        for (_, members) in &groups {
            let local = members
                .iter()
                .any(|&i| vars[i].iter().any(|&v| !in_head(v)));
            let mut iface: Vec<u16> = members
                .iter()
                .flat_map(|&i| vars[i].iter().copied())
                .filter(|&v| in_head(v))
                .collect();
            iface.sort_unstable();
            iface.dedup();
            let mut all_vars: Vec<u16> = members
                .iter()
                .flat_map(|&i| vars[i].iter().copied())
                .collect();
            all_vars.sort_unstable();
            all_vars.dedup();
            let bound = all_vars.iter().all(|&v| {
                members.iter().any(|&i| {
                    matches!(&rule.body[i], PLit::Pos(a) if {
                        let mut av = Vec::new();
                        a.args.iter().for_each(|t| t.vars(&mut av));
                        av.contains(&v)
                    })
                })
            });
            let moves = members
                .iter()
                .any(|&i| matches!(&rule.body[i], PLit::Pos(a) if a.rel == does));
            if !local || !bound || !moves || members.len() == n {
                keep.extend(members.iter().map(|&i| rule.body[i].clone()));
                continue;
            }
            let name = syms.intern(&format!("split#{next_aux}"));
            next_aux += 1;
            let rel = rels.intern(name, iface.len() as u32);
            let args: Vec<PTerm> = iface.iter().map(|&v| PTerm::Var(v)).collect();
            keep.push(PLit::Pos(PAtom {
                rel,
                args: args.clone(),
            }));
            aux_rules.push(CRule {
                head: PAtom { rel, args },
                body: members.iter().map(|&i| rule.body[i].clone()).collect(),
                var_names: rule.var_names.clone(),
                span: rule.span,
                synthetic: false,
            });
        }
        if aux_rules.is_empty() {
            out.push(rule);
        } else {
            out.push(CRule { body: keep, ..rule });
            out.extend(aux_rules);
        }
    }
    out
}
