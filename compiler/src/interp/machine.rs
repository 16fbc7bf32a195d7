//! The game state machine over the bottom-up evaluator: initial state, legal moves,
//! transition, terminal, goals.

use super::eval::{eval_stratum, query, Ctx, Engine, Memo};
use super::plan::{plan_all, Plans};
use super::rules::{lower, Class, RelId, Rules};
use super::store::Store;
use super::value_origin;
use super::{GoalValue, InterpError, Limits};
use crate::gdl::{Program, Symbols};
use crate::terms::{TermArena, TermId, TermRef};

/// Per role (role order), its percepts as (canonical text, term), sorted by text without
/// duplicate texts ([`Interp::next_with_percepts`]).
pub type Percepts = Vec<Vec<(String, TermId)>>;

/// A game state: the fluents (base propositions) that hold, as ids sorted by id, without
/// duplicates.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct State {
    fluents: Vec<TermId>,
}

impl State {
    /// A state from fluent ids in any order (sorted and de-duplicated here).
    pub fn new(mut fluents: Vec<TermId>) -> Self {
        fluents.sort_unstable();
        fluents.dedup();
        State { fluents }
    }
    /// The fluents, sorted by id.
    pub fn fluents(&self) -> &[TermId] {
        &self.fluents
    }
}

/// A state with its state-dependent relations evaluated: `legal`, `goal`, `terminal`,
/// the recursive relations, and memoized answers of the on-demand relations used so far.
/// Made by [`Interp::evaluate`].
#[derive(Clone, Debug)]
pub struct Position {
    state: State,
    store: Store,
    memo: Memo,
    legal: Vec<Vec<(String, TermId)>>,
    terminal: bool,
    goals: Vec<Vec<GoalValue>>,
}

impl Position {
    /// The evaluated state.
    pub fn state(&self) -> &State {
        &self.state
    }
}

/// The reference GDL interpreter ("prover"): stratified evaluation of a [`Program`] over
/// interned ground terms. Derived relations are computed per call pattern and memoized:
/// static ones for the interpreter's lifetime, those depending on `true` per [`Position`],
/// those depending on `does` per transition. Strata with negation inside a cycle are
/// computed bottom-up at the same points ([`Interp::new`] for static ones).
#[derive(Clone, Debug)]
pub struct Interp {
    syms: Symbols,
    terms: TermArena,
    rules: Rules,
    plans: Plans,
    limits: Limits,
    static_store: Store,
    static_memo: Memo,
    empty: Store,
    roles: Vec<TermId>,
    role_names: Vec<String>,
    query_move_strata: Vec<usize>,
    legal: Option<RelId>,
    goal: Option<RelId>,
    terminal: Option<RelId>,
    next: Option<RelId>,
    init: Option<RelId>,
    /// `sees/2` in a GDL-II game ([`Program::gdl2`]); `None` otherwise.
    sees: Option<RelId>,
    gdl2: bool,
}

impl Interp {
    /// Prepares `program` with the default [`Limits`].
    ///
    /// Errors: unsafe rules, rules defining `true`/`does`, rules with more than
    /// [`crate::gdl::MAX_RULE_VARIABLES`] variables (all located at the rule), no roles,
    /// and any evaluation
    /// error of a static stratum with negation inside a cycle (see [`InterpError`]); the
    /// other derived relations are only evaluated when a query needs them, so their
    /// errors come from [`Interp::evaluate`] and the transitions.
    pub fn new(program: &Program) -> Result<Self, InterpError> {
        Self::with_limits(program, Limits::default())
    }

    /// Prepares `program` with explicit evaluation budgets.
    pub fn with_limits(program: &Program, mut limits: Limits) -> Result<Self, InterpError> {
        limits.max_facts = limits.max_facts.min(super::MAX_FACTS);
        if program.roles.is_empty() {
            return Err(InterpError::NoRoles);
        }
        let mut terms = TermArena::new();
        let rules = lower(program, &mut terms)?;
        let syms = program.symbols.clone();
        let rel = |n: &str, a: usize| syms.get(n).and_then(|s| rules.rel(s, a));
        let (legal, goal, terminal) = (rel("legal", 2), rel("goal", 2), rel("terminal", 0));
        let (next, init) = (rel("next", 1), rel("init", 1));
        let sees = rel("sees", 2).filter(|_| program.gdl2);
        let queries: Vec<(RelId, u64)> = [
            (legal, 1),
            (goal, 1),
            (terminal, 0),
            (next, 0),
            (init, 0),
            (sees, 1),
        ]
        .iter()
        .filter_map(|&(r, m)| r.map(|r| (r, m)))
        .collect();
        let mut roles = Vec::new();
        for &r in &program.roles {
            let id = terms.constant(r);
            if !roles.contains(&id) {
                roles.push(id);
            }
        }
        let role_names = roles.iter().map(|&r| terms.text(&syms, r)).collect();
        let query_move_strata = move_strata_used_by(&rules, &[legal, goal, terminal]);
        // static strata are materialized at load, except those that turn out too big
        // (beyond MAX_STATIC_FACTS or the term depth): these are evaluated on demand
        let mut lazy = vec![false; rules.strata.len()];
        let trial = Limits {
            max_facts: limits.max_facts.min(MAX_STATIC_FACTS),
            ..limits.clone()
        };
        let fresh_terms = terms.clone();
        let (plans, static_store, static_memo, empty) = loop {
            let plans = plan_all(&rules, &queries, &lazy);
            match materialize_static(&rules, &plans, &syms, &trial, &mut terms) {
                Ok((store, memo, empty)) => break (plans, store, memo, empty),
                Err((si, e @ (InterpError::FactBudget { .. } | InterpError::TermDepth { .. })))
                    if !rules.strata[si].negative_cycle && !lazy[si] =>
                {
                    let _ = e;
                    lazy[si] = true;
                    terms = fresh_terms.clone();
                }
                Err((_, e)) => return Err(e),
            }
        };
        Ok(Interp {
            syms,
            terms,
            rules,
            plans,
            limits,
            static_store,
            static_memo,
            empty,
            roles,
            role_names,
            query_move_strata,
            legal,
            goal,
            terminal,
            next,
            init,
            sees,
            gdl2: program.gdl2,
        })
    }

    /// Whether the game is GDL-II ([`Program::gdl2`]): its roles receive percepts
    /// ([`Interp::next_with_percepts`]).
    pub fn is_gdl2(&self) -> bool {
        self.gdl2
    }

    /// Role terms in the order of the `role` facts.
    pub fn roles(&self) -> &[TermId] {
        &self.roles
    }

    /// Canonical texts of the roles.
    pub fn role_names(&self) -> &[String] {
        &self.role_names
    }

    /// The symbol table.
    pub fn symbols(&self) -> &Symbols {
        &self.syms
    }

    /// The term table (grows as evaluation builds new terms).
    pub fn terms(&self) -> &TermArena {
        &self.terms
    }

    /// Canonical text of a ground term.
    pub fn term_text(&self, t: TermId) -> String {
        self.terms.text(&self.syms, t)
    }

    /// Canonical texts of a state's fluents, sorted by byte order.
    pub fn state_text(&self, s: &State) -> Vec<String> {
        let mut v: Vec<String> = s.fluents.iter().map(|&f| self.term_text(f)).collect();
        v.sort_unstable();
        v.dedup();
        v
    }

    /// Evaluates `state`: its recursive state-dependent relations, then `terminal`, `legal`
    /// and `goal` (on-demand relations are computed as these need them).
    ///
    /// Errors: [`InterpError::TermDepth`], [`InterpError::FactBudget`],
    /// [`InterpError::NotStratified`].
    pub fn evaluate(&mut self, state: &State) -> Result<Position, InterpError> {
        let class = |r: RelId| self.rules.rels[r.0 as usize].class;
        let reg = &self.plans.registry;
        let mut store = Store::new(reg, |r| class(r) == Class::State);
        for &f in &state.fluents {
            store.insert(&self.terms, self.rules.true_rel, Box::new([f]));
        }
        let mut moves = Store::new(reg, |r| class(r) == Class::Move);
        let (mut memo, mut move_memo) = (Memo::default(), Memo::default());
        let ctx = Ctx {
            rules: &self.rules,
            plans: &self.plans,
            syms: &self.syms,
            limits: &self.limits,
        };
        for (si, st) in self.rules.strata.iter().enumerate() {
            if st.class == Class::State && st.recursive && !self.plans.demand[st.rels[0].0 as usize]
            {
                let others = [&self.static_store, &self.empty, &self.empty];
                let memos = [&mut self.static_memo, &mut memo, &mut move_memo];
                eval_stratum(&ctx, &mut self.terms, memos, si, others, &mut store)?;
            }
        }
        for &si in &self.query_move_strata {
            let st = &self.rules.strata[si];
            if st.recursive && !self.plans.demand[st.rels[0].0 as usize] {
                let others = [&self.static_store, &store, &self.empty];
                let memos = [&mut self.static_memo, &mut memo, &mut move_memo];
                eval_stratum(&ctx, &mut self.terms, memos, si, others, &mut moves)?;
            }
        }
        let mut eng = Engine {
            ctx: &ctx,
            stores: [&self.static_store, &store, &moves],
            memos: [&mut self.static_memo, &mut memo, &mut move_memo],
            terms: &mut self.terms,
            neg: None,
            tables: Vec::new(),
            depth: 0,
        };
        let terminal = match self.terminal {
            Some(r) => !query(&mut eng, r, &[])?.is_empty(),
            None => false,
        };
        let mut legal_terms = Vec::with_capacity(self.roles.len());
        let mut goal_terms = Vec::with_capacity(self.roles.len());
        for &role in &self.roles {
            let ask =
                |eng: &mut Engine<'_>, r: Option<RelId>| -> Result<Vec<TermId>, InterpError> {
                    Ok(match r {
                        Some(r) => query(eng, r, &[Some(role), None])?
                            .iter()
                            .map(|t| t[1])
                            .collect(),
                        None => Vec::new(),
                    })
                };
            legal_terms.push(ask(&mut eng, self.legal)?);
            goal_terms.push(ask(&mut eng, self.goal)?);
        }
        let legal = legal_terms
            .into_iter()
            .map(|ms| {
                let mut v: Vec<(String, TermId)> =
                    ms.into_iter().map(|m| (self.term_text(m), m)).collect();
                v.sort();
                v.dedup_by(|a, b| a.0 == b.0);
                v
            })
            .collect();
        self.check_goals(&goal_terms)?;
        let goals = goal_terms
            .into_iter()
            .map(|gs| {
                let mut gs = gs;
                gs.sort_unstable();
                gs.dedup();
                let mut vals: Vec<GoalValue> = gs.into_iter().map(|g| self.goal_value(g)).collect();
                vals.sort();
                vals
            })
            .collect();
        Ok(Position {
            state: state.clone(),
            store,
            memo,
            legal,
            terminal,
            goals,
        })
    }

    /// Evaluates the `does`-dependent relations for `joint` (one move per role, in role
    /// order; empty = no `does` facts) and returns the first arguments of `rel`'s facts,
    /// and, when `percepts` is set in a GDL-II game, per role the `P` of every
    /// `(sees role P)` (else nothing).
    fn transition(
        &mut self,
        pos: &mut Position,
        joint: &[TermId],
        rel: Option<RelId>,
        percepts: bool,
    ) -> Result<(Vec<TermId>, Vec<Vec<TermId>>), InterpError> {
        let class = |r: RelId| self.rules.rels[r.0 as usize].class;
        let mut moves = Store::new(&self.plans.registry, |r| class(r) == Class::Move);
        for (&role, &m) in self.roles.iter().zip(joint) {
            moves.insert(&self.terms, self.rules.does_rel, Box::new([role, m]));
        }
        let mut move_memo = Memo::default();
        let ctx = Ctx {
            rules: &self.rules,
            plans: &self.plans,
            syms: &self.syms,
            limits: &self.limits,
        };
        for (si, st) in self.rules.strata.iter().enumerate() {
            if st.class == Class::Move && st.recursive && !self.plans.demand[st.rels[0].0 as usize]
            {
                let others = [&self.static_store, &pos.store, &self.empty];
                let memos = [&mut self.static_memo, &mut pos.memo, &mut move_memo];
                eval_stratum(&ctx, &mut self.terms, memos, si, others, &mut moves)?;
            }
        }
        let mut eng = Engine {
            ctx: &ctx,
            stores: [&self.static_store, &pos.store, &moves],
            memos: [&mut self.static_memo, &mut pos.memo, &mut move_memo],
            terms: &mut self.terms,
            neg: None,
            tables: Vec::new(),
            depth: 0,
        };
        let facts = match rel {
            Some(r) => query(&mut eng, r, &[None])?.iter().map(|t| t[0]).collect(),
            None => Vec::new(),
        };
        let mut seen = Vec::new();
        if let (Some(s), true) = (self.sees, percepts) {
            for &role in &self.roles {
                let ps = query(&mut eng, s, &[Some(role), None])?;
                seen.push(ps.iter().map(|t| t[1]).collect());
            }
        }
        Ok((facts, seen))
    }

    /// The initial state: every `(init F)` (evaluated in the empty state).
    pub fn initial_state(&mut self) -> Result<State, InterpError> {
        let mut pos = self.evaluate(&State::default())?;
        Ok(State::new(
            self.transition(&mut pos, &[], self.init, false)?.0,
        ))
    }

    /// Legal moves of role number `role` in `pos`, as (canonical text, term) sorted by text
    /// without duplicate texts — the order moves are chosen from.
    pub fn legal_in(&self, pos: &Position, role: usize) -> Vec<(String, TermId)> {
        pos.legal.get(role).cloned().unwrap_or_default()
    }

    /// Whether `terminal` holds in `pos`.
    pub fn terminal_in(&self, pos: &Position) -> bool {
        pos.terminal
    }

    /// Goal values per role in `pos`: empty when none is derivable, several when the rules
    /// derive several (numbers first by value, then non-numeric texts by byte order).
    pub fn goals_in(&self, pos: &Position) -> Vec<Vec<GoalValue>> {
        pos.goals.clone()
    }

    /// Unless [`Limits::lenient_goals`], [`InterpError::BadGoal`] for the first goal value (per role, in role order) that is
    /// not an integer in 0..=100, located at the sentence that writes it
    /// ([`value_origin::goal_value_origin`]).
    fn check_goals(&self, goal_terms: &[Vec<TermId>]) -> Result<(), InterpError> {
        if self.limits.lenient_goals {
            return Ok(());
        }
        for (r, gs) in goal_terms.iter().enumerate() {
            let bad = gs.iter().find(|&&g| match self.terms.get(g) {
                TermRef::Const(c) => crate::gdl::goal_value(self.syms.name(c)).is_none(),
                TermRef::Fn(..) => true,
            });
            if let Some(&g) = bad {
                let goals = (self.rules.rules.iter().enumerate())
                    .filter(|(_, rule)| Some(rule.head.rel) == self.goal)
                    .map(|(k, _)| k);
                let span =
                    value_origin::goal_value_origin(&self.rules.rules, goals, self.roles[r], g)
                        .unwrap_or_default();
                return Err(InterpError::BadGoal {
                    goal: format!("(goal {} {})", self.role_names[r], self.term_text(g)),
                    span,
                });
            }
        }
        Ok(())
    }

    fn goal_value(&self, t: TermId) -> GoalValue {
        if let TermRef::Const(c) = self.terms.get(t) {
            if let Some(n) = super::parse_integer(self.syms.name(c)) {
                return GoalValue::Int(n);
            }
        }
        GoalValue::Text(self.term_text(t))
    }

    /// The successor of `pos` under `joint` (one move term per role, role order): every
    /// `(next F)` that holds. Fills `pos`'s memo with what the transition needed.
    pub fn next_from(
        &mut self,
        pos: &mut Position,
        joint: &[TermId],
    ) -> Result<State, InterpError> {
        Ok(State::new(self.transition(pos, joint, self.next, false)?.0))
    }

    /// The successor of `pos` under `joint` (see [`Interp::next_from`]) and, in one
    /// evaluation, the percepts of every role (role order, `random` included): each `P`
    /// with rules + true(state of `pos`) + does(`joint`) ⊨ `(sees role P)`, computed on the
    /// state *before* the transition, as (canonical text, term) sorted by text without
    /// duplicate texts. No percepts (every list empty) in a GDL-I game.
    pub fn next_with_percepts(
        &mut self,
        pos: &mut Position,
        joint: &[TermId],
    ) -> Result<(State, Percepts), InterpError> {
        let (next, seen) = self.transition(pos, joint, self.next, true)?;
        let mut percepts: Percepts = seen
            .into_iter()
            .map(|ps| {
                let mut v: Vec<(String, TermId)> =
                    ps.into_iter().map(|p| (self.term_text(p), p)).collect();
                v.sort();
                v.dedup_by(|a, b| a.0 == b.0);
                v
            })
            .collect();
        percepts.resize(self.roles.len(), Vec::new());
        Ok((State::new(next), percepts))
    }

    /// Legal moves of role number `role` in `state` (see [`Interp::legal_in`]).
    pub fn legal_moves(&mut self, state: &State, role: usize) -> Result<Vec<TermId>, InterpError> {
        let pos = self.evaluate(state)?;
        Ok(self
            .legal_in(&pos, role)
            .into_iter()
            .map(|(_, m)| m)
            .collect())
    }

    /// Whether `state` is terminal.
    pub fn is_terminal(&mut self, state: &State) -> Result<bool, InterpError> {
        let pos = self.evaluate(state)?;
        Ok(self.terminal_in(&pos))
    }

    /// Goal values per role in `state` (see [`Interp::goals_in`]).
    pub fn goals(&mut self, state: &State) -> Result<Vec<Vec<GoalValue>>, InterpError> {
        let pos = self.evaluate(state)?;
        Ok(self.goals_in(&pos))
    }

    /// The successor of `state` under `joint` (see [`Interp::next_from`]).
    pub fn next_state(&mut self, state: &State, joint: &[TermId]) -> Result<State, InterpError> {
        let mut pos = self.evaluate(state)?;
        self.next_from(&mut pos, joint)
    }
}

/// Most facts the static strata may hold when materialized at load; a stratum that would
/// exceed it (or build terms deeper than the limit) is evaluated on demand instead.
pub const MAX_STATIC_FACTS: usize = 500_000;

/// Materializes the static strata that `plans` does not evaluate on demand: the store of
/// their facts, the memo of the on-demand static calls they made, and an empty store.
/// On error, also the stratum that failed.
fn materialize_static(
    rules: &Rules,
    plans: &Plans,
    syms: &Symbols,
    limits: &Limits,
    terms: &mut TermArena,
) -> Result<(Store, Memo, Store), (usize, InterpError)> {
    let class = |r: RelId| rules.rels[r.0 as usize].class;
    let reg = &plans.registry;
    let mut store = Store::new(reg, |r| class(r) == Class::Static);
    let empty = Store::new(reg, |_| false);
    let mut memo = Memo::default();
    let ctx = Ctx {
        rules,
        plans,
        syms,
        limits,
    };
    let (mut m1, mut m2) = (Memo::default(), Memo::default());
    for (si, st) in rules.strata.iter().enumerate() {
        if st.class == Class::Static && !plans.demand[st.rels[0].0 as usize] {
            let memos = [&mut memo, &mut m1, &mut m2];
            eval_stratum(&ctx, terms, memos, si, [&empty; 3], &mut store).map_err(|e| (si, e))?;
        }
    }
    Ok((store, memo, empty))
}

/// Move-class strata that the relations `queries` depend on (transitively), in order.
fn move_strata_used_by(rules: &Rules, queries: &[Option<RelId>]) -> Vec<usize> {
    let mut seen = vec![false; rules.rels.len()];
    let mut stack: Vec<RelId> = queries.iter().flatten().copied().collect();
    let mut heads: Vec<Vec<usize>> = vec![Vec::new(); rules.rels.len()];
    for (i, r) in rules.rules.iter().enumerate() {
        heads[r.head.rel.0 as usize].push(i);
    }
    while let Some(r) = stack.pop() {
        if std::mem::replace(&mut seen[r.0 as usize], true) {
            continue;
        }
        for &ri in &heads[r.0 as usize] {
            for l in &rules.rules[ri].body {
                if let super::rules::CLit::Pos(a) | super::rules::CLit::Neg(a) = l {
                    stack.push(a.rel);
                }
            }
        }
    }
    let mut strata: Vec<usize> = (0..rules.rels.len())
        .filter(|&r| seen[r] && rules.rels[r].class == Class::Move)
        .map(|r| rules.rels[r].stratum)
        .collect();
    strata.sort_unstable();
    strata.dedup();
    strata
}
