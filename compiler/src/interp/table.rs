//! Tables the calls of a recursive on-demand stratum: answers per call pattern, computed
//! to a common fixpoint so that a recursive relation is only ever built for the calls the
//! queries make (a sliding-move path from one square, not all paths of the board).
//!
//! This is the usual tabled evaluation of positive recursion (subgoal tables iterated to a
//! fixpoint, as in SLG resolution / QSQ; Tamaki & Sato, "OLD resolution with tabulation",
//! ICLP 1986): the first call into a stratum opens a table; every call of a relation of
//! that stratum made while it is open is a *goal* of the table and reads the goal's
//! answers so far. Goals are re-solved until a whole pass adds no answer and no goal;
//! a goal is re-solved only when a goal it read gained answers since it was last solved.
//! Then every goal is complete and moves to the memo. Only strata without negation
//! inside their cycle are tabled (see [`super::plan`]), so answers only grow and the
//! fixpoint is the least model restricted to the goals.
//!
//! When a table opens [`MAX_GOALS`] goals or holds [`MAX_ANSWERS`] answers, it is dropped and the stratum is
//! computed bottom-up instead (as a materialized stratum would be), once per state (once
//! for a static stratum).

use super::eval::{class_ix, eval_stratum, remember, solve, CallKey, Engine};
use super::rules::RelId;
use super::store::Store;
use super::store::Tuple;
use super::InterpError;
use rustc_hash::{FxHashMap, FxHashSet};
use std::rc::Rc;

/// One goal of a table.
#[derive(Debug, Default)]
struct Goal {
    key: Option<CallKey>,
    answers: Vec<Tuple>,
    seen: FxHashSet<Tuple>,
    /// Snapshot of `answers` handed to readers (rebuilt after a change).
    shared: Option<Rc<[Tuple]>>,
    /// Clock value when it last gained an answer.
    changed: u64,
    /// Clock value when its last solving began (`None`: never solved).
    solved: Option<u64>,
    /// Goals its last solving read.
    deps: Vec<usize>,
}

/// The open table of one recursive stratum.
#[derive(Debug)]
pub struct Table {
    stratum: usize,
    index: FxHashMap<CallKey, usize>,
    goals: Vec<Goal>,
    /// The goal being solved now.
    current: Option<usize>,
    clock: u64,
    /// Answers held by all goals.
    total: usize,
    /// Grew past the limits: to be dropped for bottom-up evaluation.
    abandoned: bool,
}

impl Table {
    fn goal(&mut self, key: CallKey) -> usize {
        if let Some(&g) = self.index.get(&key) {
            return g;
        }
        let g = self.goals.len();
        self.index.insert(key.clone(), g);
        self.goals.push(Goal {
            key: Some(key),
            ..Goal::default()
        });
        g
    }
}

/// Answers of `key` (a relation of recursive stratum `stratum`): read from the open
/// table of the stratum when there is one, else computed by a new table and memoized.
///
/// Errors: [`InterpError::TermDepth`] when a call argument gets deeper than the limit,
/// [`InterpError::FactBudget`] when the table holds more goals plus answers than the
/// budget; and the errors of the rules' evaluation.
pub fn call_tabled(
    eng: &mut Engine<'_>,
    stratum: usize,
    key: CallKey,
) -> Result<Rc<[Tuple]>, InterpError> {
    if let Some(t) = eng.tables.iter_mut().rev().find(|t| t.stratum == stratum) {
        if t.abandoned || t.goals.len() >= MAX_GOALS || t.total >= MAX_ANSWERS {
            // the table is dropped: stop growing it (its answers are never used)
            t.abandoned = true;
            return Ok(Rc::from(Vec::new()));
        }
        let g = t.goal(key);
        if let Some(cur) = t.current {
            if !t.goals[cur].deps.contains(&g) {
                t.goals[cur].deps.push(g);
            }
        }
        let goal = &mut t.goals[g];
        let shared = goal
            .shared
            .get_or_insert_with(|| goal.answers.as_slice().into())
            .clone();
        return Ok(shared);
    }
    if let Some(answers) = general_answers(eng, &key) {
        return remember(eng, key, answers);
    }
    check_key(eng, &key)?;
    let mut table = Table {
        stratum,
        index: FxHashMap::default(),
        goals: Vec::new(),
        current: None,
        clock: 0,
        total: 0,
        abandoned: false,
    };
    let root = table.goal(key);
    eng.tables.push(table);
    let result = fixpoint(eng);
    let table = eng.tables.pop().expect("the table pushed above");
    if !result? {
        let key = table.goals[root]
            .key
            .clone()
            .expect("every goal has its key");
        return materialize(eng, stratum, key);
    }
    let mut root_answers = None;
    for (i, g) in table.goals.into_iter().enumerate() {
        let key = g.key.expect("every goal has its key");
        let rc = remember(eng, key, g.answers)?;
        if i == root {
            root_answers = Some(rc);
        }
    }
    Ok(root_answers.expect("the root goal is in the table"))
}

/// Most goals one table may open before the stratum is computed bottom-up instead (calls
/// whose bound arguments keep changing, such as paths carrying the list of visited cells,
/// make tabling enumerate far more goals than the relation has facts).
pub const MAX_GOALS: usize = 20_000;

/// Most answers one table may hold before the stratum is computed bottom-up instead
/// (re-solving goals naively costs more than semi-naive evaluation on big relations).
pub const MAX_ANSWERS: usize = 100_000;

/// Solves the goals of the innermost table until nothing changes (`Ok(true)`), or gives
/// up when the table holds more than [`MAX_GOALS`] goals (`Ok(false)`).
fn fixpoint(eng: &mut Engine<'_>) -> Result<bool, InterpError> {
    let max_facts = eng.ctx.limits.max_facts;
    loop {
        let mut progress = false;
        let mut g = 0;
        while g < top(eng).goals.len() {
            let t = top(eng);
            let goal = &t.goals[g];
            let stale = match goal.solved {
                None => true,
                Some(at) => goal.deps.iter().any(|&d| t.goals[d].changed > at),
            };
            if !stale {
                g += 1;
                continue;
            }
            progress = true;
            let key = goal.key.clone().expect("every goal has its key");
            check_key(eng, &key)?;
            let t = top(eng);
            t.goals[g].solved = Some(t.clock);
            t.goals[g].deps.clear();
            t.current = Some(g);
            let found = solve(eng, &key);
            let t = top(eng);
            t.current = None;
            let found = found?;
            let goal = &mut t.goals[g];
            for a in found {
                if goal.seen.insert(a.clone()) {
                    goal.answers.push(a);
                    t.clock += 1;
                    goal.changed = t.clock;
                    goal.shared = None;
                    t.total += 1;
                }
            }
            if t.total + t.goals.len() > max_facts {
                return Err(InterpError::FactBudget {
                    relation: rel_name(eng, key.0),
                    limit: eng.ctx.limits.max_facts,
                });
            }
            if t.abandoned || t.goals.len() >= MAX_GOALS || t.total >= MAX_ANSWERS {
                return Ok(false);
            }
            g += 1;
        }
        if !progress {
            return Ok(true);
        }
    }
}

/// The fallback: computes the whole stratum bottom-up (semi-naive, as a materialized
/// stratum), memoizes each relation's full extension as its call with no argument bound,
/// and answers `key` from it.
fn materialize(
    eng: &mut Engine<'_>,
    stratum: usize,
    key: CallKey,
) -> Result<Rc<[Tuple]>, InterpError> {
    let ctx = eng.ctx;
    let st = &ctx.rules.strata[stratum];
    let ci = class_ix(st.class);
    // the stratum's class store stands in for the target: copy it so its facts stay visible
    let mut target: Store = eng.stores[ci].clone();
    let mut own = Store::new(&ctx.plans.registry, |r| st.rels.contains(&r));
    for &r in &st.rels {
        target.rels[r.0 as usize] = std::mem::take(&mut own.rels[r.0 as usize]);
    }
    {
        let [m0, m1, m2] = &mut eng.memos;
        let memos = [&mut **m0, &mut **m1, &mut **m2];
        eval_stratum(ctx, eng.terms, memos, stratum, eng.stores, &mut target)?;
    }
    for &r in &st.rels {
        let rows = std::mem::take(&mut target.rels[r.0 as usize].rows);
        let general: CallKey = (r, vec![None; ctx.rules.rels[r.0 as usize].arity].into());
        if !eng.memos[ci].map.contains_key(&general) {
            remember(eng, general, rows)?;
        }
    }
    if let Some(all) = eng.memos[ci].map.get(&key) {
        return Ok(all.clone()); // `key` binds no argument
    }
    let answers = general_answers(eng, &key).expect("memoized above");
    remember(eng, key, answers)
}

/// The answers of `key` filtered from the memoized call of its relation with no argument
/// bound, if there is one.
pub fn general_answers(eng: &Engine<'_>, key: &CallKey) -> Option<Vec<Tuple>> {
    let ci = class_ix(eng.ctx.rules.rels[key.0 .0 as usize].class);
    let general: CallKey = (key.0, vec![None; key.1.len()].into());
    let all = eng.memos[ci].map.get(&general)?;
    Some(
        all.iter()
            .filter(|t| {
                t.iter()
                    .zip(key.1.iter())
                    .all(|(a, k)| k.is_none_or(|k| k == *a))
            })
            .cloned()
            .collect(),
    )
}

fn top<'t>(eng: &'t mut Engine<'_>) -> &'t mut Table {
    eng.tables.last_mut().expect("a table is open")
}

fn rel_name(eng: &Engine<'_>, rel: RelId) -> String {
    eng.ctx.rules.rel_name(eng.ctx.syms, rel)
}

/// A call argument deeper than the term-depth limit means unbounded recursion through
/// function terms in bound arguments (each goal would open another). The error points at
/// the relation's first rule.
fn check_key(eng: &Engine<'_>, key: &CallKey) -> Result<(), InterpError> {
    let limit = eng.ctx.limits.max_term_depth;
    if key.1.iter().flatten().any(|&t| eng.terms.depth(t) > limit) {
        return Err(InterpError::TermDepth {
            relation: rel_name(eng, key.0),
            limit,
            span: super::eval::first_rule_span(eng.ctx, key.0),
        });
    }
    Ok(())
}
