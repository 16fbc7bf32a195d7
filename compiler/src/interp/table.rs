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

use super::eval::{remember, solve, CallKey, Engine};
use super::hash::{IdMap, IdSet};
use super::rules::RelId;
use super::store::Tuple;
use super::InterpError;
use std::rc::Rc;

/// One goal of a table.
#[derive(Debug, Default)]
struct Goal {
    key: Option<CallKey>,
    answers: Vec<Tuple>,
    seen: IdSet<Tuple>,
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
    index: IdMap<CallKey, usize>,
    goals: Vec<Goal>,
    /// The goal being solved now.
    current: Option<usize>,
    clock: u64,
    /// Answers held by all goals.
    total: usize,
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
    check_key(eng, &key)?;
    let mut table = Table {
        stratum,
        index: IdMap::default(),
        goals: Vec::new(),
        current: None,
        clock: 0,
        total: 0,
    };
    let root = table.goal(key);
    eng.tables.push(table);
    let result = fixpoint(eng);
    let table = eng.tables.pop().expect("the table pushed above");
    result?;
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

/// Solves the goals of the innermost table until nothing changes.
fn fixpoint(eng: &mut Engine<'_>) -> Result<(), InterpError> {
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
            if t.total + t.goals.len() > eng.ctx.limits.max_facts {
                return Err(InterpError::FactBudget {
                    relation: rel_name(eng, key.0),
                    limit: eng.ctx.limits.max_facts,
                });
            }
            g += 1;
        }
        if !progress {
            return Ok(());
        }
    }
}

fn top<'t>(eng: &'t mut Engine<'_>) -> &'t mut Table {
    eng.tables.last_mut().expect("a table is open")
}

fn rel_name(eng: &Engine<'_>, rel: RelId) -> String {
    eng.ctx.rules.rel_name(eng.ctx.syms, rel)
}

/// A call argument deeper than the term-depth limit means unbounded recursion through
/// function terms in bound arguments (each goal would open another).
fn check_key(eng: &Engine<'_>, key: &CallKey) -> Result<(), InterpError> {
    let limit = eng.ctx.limits.max_term_depth;
    if key.1.iter().flatten().any(|&t| eng.terms.depth(t) > limit) {
        return Err(InterpError::TermDepth {
            relation: rel_name(eng, key.0),
            limit,
        });
    }
    Ok(())
}
