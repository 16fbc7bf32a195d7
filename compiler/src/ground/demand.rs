//! Demand-driven grounding of dynamic relations (magic sets): a dynamic relation that the
//! rules only ever ask for with some arguments bound gets atoms only for the bindings
//! that occur.
//!
//! For each rule body a *sideways information passing* order (SIPS) is fixed: literals
//! with bound arguments first, static relations and `true`/`does` before the relations
//! that can be restricted, tests as soon as their variables are bound. A call site of a
//! dynamic relation `q` binds some of `q`'s argument positions; `q` is *guarded* on the
//! positions bound at every call site (the intersection, found by a fixpoint from the
//! outputs, which ask for everything). A guarded `q` gets a demand relation `demand#q`
//! over those positions:
//!
//! - every rule `q(X) :- B` becomes `q(X) :- demand#q(X|G), B`;
//! - every call site `p(Y) :- L1, …, Li-1, q(Z), …` adds
//!   `demand#q(Z|G) :- demand#p(Y|G'), L1, …, Li-1` (the guard of `p` only if `p` is
//!   guarded; negative literals over dynamic relations are left out, as the relaxed
//!   fixpoint ignores them anyway).
//!
//! Demand relations are computed by the same relaxed fixpoint as the reachable atoms
//! (they over-approximate the calls that can happen in some reachable state), and are
//! never gates: in instance enumeration their literals only filter. Every atom that an
//! instance of a rule needs (positive or negated) is demanded by construction, so the
//! netlist is the same as without demand, minus the atoms nothing reads.
//!
//! Source: F. Bancilhon, D. Maier, Y. Sagiv, J. Ullman, "Magic sets and other strange
//! ways to implement logic programs", PODS 1986; C. Beeri, R. Ramakrishnan, "On the
//! power of magic", PODS 1987 (SIPS).

use super::rules::{CRule, PAtom, PLit, PTerm, Relations, Special};
use crate::gdl::{RelId, Symbols};
use std::collections::HashSet;

/// A call site: literal index, the literal's atom, bound argument positions, SIPS position.
type CallSite<'r> = (usize, &'r PAtom, Vec<bool>, usize);

/// Per relation: which argument positions every call binds (`None`: never called).
type Guards = Vec<Option<Vec<bool>>>;

/// The SIPS order of `rule`'s body when the variables in `bound0` are bound: each body
/// literal index with the variables bound before it. Tests come as soon as their
/// variables are bound; then a literal over an `early(rel)` relation (static, `true`,
/// `does`: one that cannot be restricted) that shares a bound variable; then the literal
/// with most bound arguments. So a restricted call waits for the static literals that
/// bind its arguments (`count(x, w) :- step(x, y), count(y, w)` asks for `count(y, _)`).
pub fn sips(
    rule: &CRule,
    bound0: &[bool],
    early: &dyn Fn(RelId) -> bool,
) -> Vec<(usize, Vec<bool>)> {
    let n = rule.body.len();
    let mut bound = bound0.to_vec();
    let mut done = vec![false; n];
    let mut order = Vec::with_capacity(n);
    let ground = |t: &PTerm, b: &[bool]| t.ground_under(b);
    loop {
        // Tests first, those over relations that cannot be restricted before the others
        // (so a restricted relation's demand sees every test its arguments pass).
        for restricted in [false, true] {
            let mut progressed = true;
            while progressed {
                progressed = false;
                for (i, lit) in rule.body.iter().enumerate() {
                    let ready = !done[i]
                        && lit.atom().is_none_or(|a| early(a.rel) != restricted)
                        && match lit {
                            PLit::Pos(a) | PLit::Neg(a) => a.args.iter().all(|t| ground(t, &bound)),
                            PLit::Distinct(x, y) | PLit::Equal(x, y) => {
                                ground(x, &bound) && ground(y, &bound)
                            }
                        };
                    if ready {
                        order.push((i, bound.clone()));
                        done[i] = true;
                        progressed = true;
                    }
                }
            }
        }
        let shared_bound = |i: usize, a: &PAtom| {
            a.vars().iter().all(|&v| {
                bound[v as usize]
                    || !rule.body.iter().enumerate().any(|(j, l)| {
                        j != i && !done[j] && matches!(l, PLit::Pos(_)) && l.vars().contains(&v)
                    })
            })
        };
        let best = rule
            .body
            .iter()
            .enumerate()
            .filter(|(i, l)| !done[*i] && matches!(l, PLit::Pos(_)))
            .max_by_key(|(i, l)| {
                let a = l.atom().expect("positive literal");
                let b = a.args.iter().filter(|t| ground(t, &bound)).count();
                let touched = a.vars().iter().any(|&v| bound[v as usize]);
                let e = early(a.rel);
                let ready = e && touched && shared_bound(*i, a);
                (ready, e && touched, b, e, std::cmp::Reverse(*i))
            })
            .map(|(i, _)| i);
        let Some(i) = best else { break };
        order.push((i, bound.clone()));
        done[i] = true;
        for v in rule.body[i].vars() {
            bound[v as usize] = true;
        }
    }
    // Unsafe leftovers (variables no positive literal binds) come last, in source order.
    for (i, d) in done.iter().enumerate() {
        if !d {
            order.push((i, bound.clone()));
        }
    }
    order
}

/// The variables bound by a guard on positions `g` of the head.
fn head_bound(rule: &CRule, g: Option<&Vec<bool>>) -> Vec<bool> {
    let mut bound = vec![false; rule.var_names.len()];
    if let Some(g) = g {
        for (t, &on) in rule.head.args.iter().zip(g) {
            if on {
                let mut vs = Vec::new();
                t.vars(&mut vs);
                vs.into_iter().for_each(|v| bound[v as usize] = true);
            }
        }
    }
    bound
}

struct Analysis<'a> {
    rules: &'a [CRule],
    rules_of: Vec<Vec<usize>>,
    dynamic: &'a [bool],
    roots: [RelId; 8],
    /// Per relation: a level of a diagram filter's chain, computed forward in full (its
    /// state argument would make a demand relation multiply what it should restrict).
    chain: Vec<bool>,
}

impl Analysis<'_> {
    fn restrictable(&self, r: RelId) -> bool {
        self.dynamic[r.0 as usize] && !self.roots.contains(&r) && !self.chain[r.0 as usize]
    }

    /// Each call site of a restrictable relation in `rule` (under guard `g` of its head):
    /// (literal index, the literal's atom, bound positions, SIPS position).
    fn call_sites<'r>(
        &self,
        rule: &'r CRule,
        g: Option<&Vec<bool>>,
    ) -> (Vec<(usize, Vec<bool>)>, Vec<CallSite<'r>>) {
        let bound0 = head_bound(rule, g);
        let early = |r: RelId| !self.restrictable(r);
        let order = sips(rule, &bound0, &early);
        let mut sites = Vec::new();
        for (pos, (i, bound)) in order.iter().enumerate() {
            if let Some(a) = rule.body[*i].atom().filter(|a| self.restrictable(a.rel)) {
                let b = a.args.iter().map(|t| t.ground_under(bound)).collect();
                sites.push((*i, a, b, pos));
            }
        }
        (order, sites)
    }

    /// The guards: a fixpoint from the roots (called with nothing bound).
    fn guards(&self, rels: &Relations) -> Guards {
        let mut g: Guards = vec![None; rels.len()];
        let mut work: Vec<RelId> = self.roots.to_vec();
        for r in self.roots {
            g[r.0 as usize] = Some(vec![false; rels.arity(r)]);
        }
        while let Some(p) = work.pop() {
            for &k in &self.rules_of[p.0 as usize] {
                let rule = &self.rules[k];
                let (_, sites) = self.call_sites(rule, g[p.0 as usize].as_ref());
                for (_, a, b, _) in sites {
                    let slot = &mut g[a.rel.0 as usize];
                    let new = match slot {
                        None => b,
                        Some(old) => old.iter().zip(&b).map(|(x, y)| *x && *y).collect(),
                    };
                    if slot.as_ref() != Some(&new) {
                        *slot = Some(new);
                        work.push(a.rel);
                    }
                }
            }
        }
        g
    }
}

/// The demand atom `rel(args at the positions of g)`.
fn demand_atom(rel: RelId, args: &[PTerm], g: &[bool]) -> PAtom {
    PAtom {
        rel,
        args: args
            .iter()
            .zip(g)
            .filter(|(_, &on)| on)
            .map(|(t, _)| t.clone())
            .collect(),
    }
}

/// Adds demand relations and rules (see the module docs) to `rules`; `dynamic[r]` says
/// whether relation `r` depends on `true`/`does`. Returns (guarded relation, its demand
/// relation) pairs; the demand relations are new relations `demand#name/arity` (with a
/// suffix `'2`, … when the game itself uses that name).
pub fn add_demand(
    rules: &mut Vec<CRule>,
    dynamic: &[bool],
    special: Special,
    rels: &mut Relations,
    syms: &mut Symbols,
) -> Vec<(RelId, RelId)> {
    let mut rules_of = vec![Vec::new(); rels.len()];
    for (k, r) in rules.iter().enumerate() {
        rules_of[r.head.rel.0 as usize].push(k);
    }
    let chain = (0..rels.len())
        .map(|r| super::diagram_filters::is_chain(syms.name(rels.key(RelId(r as u32)).0)))
        .collect();
    let an = Analysis {
        rules,
        rules_of,
        dynamic,
        roots: special.roots(),
        chain,
    };
    let demand = DemandRels::new(&an, rels, syms);
    let new_rules = demand.call_site_rules(&an);
    for rule in rules.iter_mut() {
        if let Some((m, g)) = demand.guard_of(rule.head.rel) {
            let lit = PLit::Pos(demand_atom(m, &rule.head.args, g));
            rule.body.insert(0, lit);
        }
    }
    split_demand_rules(rules, new_rules, dynamic, &demand.pairs, rels, syms);
    demand.pairs
}

/// The guards of every relation and the demand relations of the guarded ones.
struct DemandRels {
    /// Per relation: the argument positions every call binds.
    guards: Guards,
    /// Per relation: its demand relation, when guarded (some position bound) and
    /// restrictable.
    demand_rel: Vec<Option<RelId>>,
    /// (guarded relation, its demand relation) pairs.
    pairs: Vec<(RelId, RelId)>,
}

impl DemandRels {
    /// Finds the guards and interns a demand relation `demand#name/arity` (arity: the
    /// guarded positions) for every restrictable relation with a guarded position.
    fn new(an: &Analysis<'_>, rels: &mut Relations, syms: &mut Symbols) -> Self {
        let guards = an.guards(rels);
        let mut demand_rel: Vec<Option<RelId>> = vec![None; rels.len()];
        let mut pairs = Vec::new();
        for (r, g) in guards.iter().enumerate() {
            let r = RelId(r as u32);
            if let Some(g) = g
                .as_ref()
                .filter(|g| g.iter().any(|&b| b) && an.restrictable(r))
            {
                // KIF can spell `#` too: a name the game already uses gets a suffix.
                let name = syms.fresh(&format!("demand#{}", rels.text(syms, r)));
                let m = rels.intern(name, g.iter().filter(|&&b| b).count() as u32);
                demand_rel[r.0 as usize] = Some(m);
                pairs.push((r, m));
            }
        }
        DemandRels {
            guards,
            demand_rel,
            pairs,
        }
    }

    /// The demand relation of `r` and its guard, when `r` has one.
    fn guard_of(&self, r: RelId) -> Option<(RelId, &Vec<bool>)> {
        let m = self.demand_rel[r.0 as usize]?;
        Some((
            m,
            self.guards[r.0 as usize]
                .as_ref()
                .expect("guarded relations have a guard"),
        ))
    }

    /// The demand rules of the call sites: for each call of a guarded relation `q` in a
    /// rule of `p` (needed by the outputs), `demand#q(Z|G) :- demand#p(Y|G'), L1, …, Li-1`
    /// over the literals before the call in SIPS order, each distinct rule once.
    fn call_site_rules(&self, an: &Analysis<'_>) -> Vec<CRule> {
        let mut seen = HashSet::new();
        let mut new_rules = Vec::new();
        for rule in an.rules {
            let p = rule.head.rel;
            let Some(g) = self.guards[p.0 as usize].as_ref() else {
                continue; // not needed by the outputs
            };
            let (order, sites) = an.call_sites(rule, Some(g));
            let own_guard = self
                .guard_of(p)
                .map(|(m, g)| PLit::Pos(demand_atom(m, &rule.head.args, g)));
            for (_, a, _, pos) in sites {
                let Some((m, gq)) = self.guard_of(a.rel) else {
                    continue;
                };
                let body = demand_body(own_guard.as_ref(), rule, &order[..pos], an.dynamic);
                let head = demand_atom(m, &a.args, gq);
                let key = format!("{head:?} :- {body:?}");
                if seen.insert(key) {
                    new_rules.push(CRule {
                        head,
                        body,
                        var_names: rule.var_names.clone(),
                        span: rule.span,
                        synthetic: false,
                    });
                }
            }
        }
        new_rules
    }
}

/// The body of a demand rule: the guard of the calling rule's head (when guarded), then
/// the literals of `rule` at the SIPS positions `before` the call, leaving out negative
/// literals over dynamic relations (`dynamic[rel]`).
fn demand_body(
    own_guard: Option<&PLit>,
    rule: &CRule,
    before: &[(usize, Vec<bool>)],
    dynamic: &[bool],
) -> Vec<PLit> {
    let mut body: Vec<PLit> = own_guard.into_iter().cloned().collect();
    for (i, _) in before {
        let lit = &rule.body[*i];
        let dynamic_neg =
            matches!(lit, PLit::Neg(b) if dynamic.get(b.rel.0 as usize) == Some(&true));
        if !dynamic_neg {
            body.push(lit.clone());
        }
    }
    body
}

/// Appends the demand rules `new_rules` to `rules`, split like the rules. Demand rules
/// project their guard onto few variables; their auxiliary relations are demand relations
/// too, so the demand relations of `pairs` count as dynamic.
fn split_demand_rules(
    rules: &mut Vec<CRule>,
    new_rules: Vec<CRule>,
    dynamic: &[bool],
    pairs: &[(RelId, RelId)],
    rels: &mut Relations,
    syms: &mut Symbols,
) {
    let mut dynamic = dynamic.to_vec();
    dynamic.resize(rels.len(), false);
    for &(_, m) in pairs {
        dynamic[m.0 as usize] = true;
    }
    // (No value estimates for demand relations: ties keep the first variable.)
    let mut domains = super::domains::Domains::default();
    rules.extend(super::split::split_rules(
        new_rules,
        dynamic,
        &mut domains,
        rels,
        syms,
    ));
}
