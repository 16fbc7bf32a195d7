//! The game state machine over the bottom-up evaluator: initial state, legal moves,
//! transition, terminal, goals.

use super::eval::{eval_stratum, Ctx};
use super::plan::{plan_all, Registry, RulePlans};
use super::rules::{lower, Class, RelId, Rules};
use super::store::Store;
use super::terms::{GroundTerm, GroundTermId, TermTable};
use super::{GoalValue, InterpError, Limits};
use crate::gdl::{Program, Symbols};

/// A game state: the fluents (base propositions) that hold, as ids sorted by id, without
/// duplicates.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct State {
    fluents: Vec<GroundTermId>,
}

impl State {
    /// A state from fluent ids in any order (sorted and de-duplicated here).
    pub fn new(mut fluents: Vec<GroundTermId>) -> Self {
        fluents.sort_unstable();
        fluents.dedup();
        State { fluents }
    }
    /// The fluents, sorted by id.
    pub fn fluents(&self) -> &[GroundTermId] {
        &self.fluents
    }
}

/// A state with its state-dependent relations evaluated (`legal`, `goal`, `terminal` and
/// everything they use). Made by [`Interp::evaluate`].
#[derive(Clone, Debug)]
pub struct Position {
    state: State,
    store: Store,
    moves: Store,
}

impl Position {
    /// The evaluated state.
    pub fn state(&self) -> &State {
        &self.state
    }
}

/// The reference GDL interpreter ("prover"): stratified, semi-naive, bottom-up evaluation
/// of a [`Program`] over interned ground terms. Static relations are computed once by
/// [`Interp::new`]; relations depending on `true` once per [`Position`]; relations
/// depending on `does` once per transition.
#[derive(Clone, Debug)]
pub struct Interp {
    syms: Symbols,
    terms: TermTable,
    rules: Rules,
    plans: Vec<RulePlans>,
    reg: Registry,
    limits: Limits,
    static_store: Store,
    empty: Store,
    roles: Vec<GroundTermId>,
    role_names: Vec<String>,
    query_move_strata: Vec<usize>,
    legal: Option<RelId>,
    goal: Option<RelId>,
    terminal: Option<RelId>,
    next: Option<RelId>,
    init: Option<RelId>,
}

impl Interp {
    /// Prepares `program` with the default [`Limits`].
    ///
    /// Errors: unsafe rules, rules defining `true`/`does`, no roles, and any evaluation
    /// error of a static relation (see [`InterpError`]).
    pub fn new(program: &Program) -> Result<Self, InterpError> {
        Self::with_limits(program, Limits::default())
    }

    /// Prepares `program` with explicit evaluation budgets.
    pub fn with_limits(program: &Program, limits: Limits) -> Result<Self, InterpError> {
        if program.roles.is_empty() {
            return Err(InterpError::NoRoles);
        }
        let mut terms = TermTable::new();
        let rules = lower(program, &mut terms)?;
        let (plans, reg) = plan_all(&rules);
        let syms = program.symbols.clone();
        let mut roles = Vec::new();
        for &r in &program.roles {
            let id = terms.constant(r);
            if !roles.contains(&id) {
                roles.push(id);
            }
        }
        let role_names = roles.iter().map(|&r| terms.text(&syms, r)).collect();
        let rel = |n: &str, a: usize| syms.get(n).and_then(|s| rules.rel(s, a));
        let (legal, goal, terminal) = (rel("legal", 2), rel("goal", 2), rel("terminal", 0));
        let (next, init) = (rel("next", 1), rel("init", 1));
        let query_move_strata = move_strata_used_by(&rules, &[legal, goal, terminal]);
        let class = |r: RelId| rules.rels[r.0 as usize].class;
        let mut static_store = Store::new(&reg, |r| class(r) == Class::Static);
        let empty = Store::new(&reg, |_| false);
        {
            let ctx = Ctx { rules: &rules, plans: &plans, syms: &syms, limits: &limits };
            for (si, st) in rules.strata.iter().enumerate() {
                if st.class == Class::Static {
                    eval_stratum(&ctx, &mut terms, si, [&empty, &empty, &empty], &mut static_store)?;
                }
            }
        }
        Ok(Interp {
            syms,
            terms,
            rules,
            plans,
            reg,
            limits,
            static_store,
            empty,
            roles,
            role_names,
            query_move_strata,
            legal,
            goal,
            terminal,
            next,
            init,
        })
    }

    /// Role terms in the order of the `role` facts.
    pub fn roles(&self) -> &[GroundTermId] {
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
    pub fn terms(&self) -> &TermTable {
        &self.terms
    }

    /// Canonical text of a ground term.
    pub fn term_text(&self, t: GroundTermId) -> String {
        self.terms.text(&self.syms, t)
    }

    /// Canonical texts of a state's fluents, sorted by byte order.
    pub fn state_text(&self, s: &State) -> Vec<String> {
        let mut v: Vec<String> = s.fluents.iter().map(|&f| self.term_text(f)).collect();
        v.sort_unstable();
        v.dedup();
        v
    }

    fn store_of<'a>(&'a self, r: RelId, store: &'a Store, moves: &'a Store) -> &'a Store {
        match self.rules.rels[r.0 as usize].class {
            Class::Static => &self.static_store,
            Class::State => store,
            Class::Move => moves,
        }
    }

    /// Evaluates the state-dependent relations of `state`.
    ///
    /// Errors: [`InterpError::TermDepth`], [`InterpError::FactBudget`],
    /// [`InterpError::NotStratified`].
    pub fn evaluate(&mut self, state: &State) -> Result<Position, InterpError> {
        let class = |r: RelId| self.rules.rels[r.0 as usize].class;
        let mut store = Store::new(&self.reg, |r| class(r) == Class::State);
        for &f in &state.fluents {
            store.insert(&self.terms, self.rules.true_rel, Box::new([f]));
        }
        let ctx = Ctx { rules: &self.rules, plans: &self.plans, syms: &self.syms, limits: &self.limits };
        for (si, st) in self.rules.strata.iter().enumerate() {
            if st.class == Class::State {
                let others = [&self.static_store, &self.empty, &self.empty];
                eval_stratum(&ctx, &mut self.terms, si, others, &mut store)?;
            }
        }
        let mut moves = Store::new(&self.reg, |r| class(r) == Class::Move);
        for &si in &self.query_move_strata {
            let others = [&self.static_store, &store, &self.empty];
            eval_stratum(&ctx, &mut self.terms, si, others, &mut moves)?;
        }
        Ok(Position { state: state.clone(), store, moves })
    }

    /// Evaluates the `does`-dependent relations for `joint` (one move per role, in role
    /// order; `None` = no `does` fact for that role).
    fn move_store(&mut self, pos: &Position, joint: &[Option<GroundTermId>]) -> Result<Store, InterpError> {
        let class = |r: RelId| self.rules.rels[r.0 as usize].class;
        let mut moves = Store::new(&self.reg, |r| class(r) == Class::Move);
        for (&role, m) in self.roles.iter().zip(joint) {
            if let Some(m) = *m {
                moves.insert(&self.terms, self.rules.does_rel, Box::new([role, m]));
            }
        }
        let ctx = Ctx { rules: &self.rules, plans: &self.plans, syms: &self.syms, limits: &self.limits };
        for (si, st) in self.rules.strata.iter().enumerate() {
            if st.class == Class::Move {
                let others = [&self.static_store, &pos.store, &self.empty];
                eval_stratum(&ctx, &mut self.terms, si, others, &mut moves)?;
            }
        }
        Ok(moves)
    }

    fn unary_facts(&self, rel: Option<RelId>, store: &Store, moves: &Store) -> Vec<GroundTermId> {
        let Some(r) = rel else { return Vec::new() };
        self.store_of(r, store, moves).rel(r).rows.iter().map(|t| t[0]).collect()
    }

    /// The initial state: every `(init F)` (evaluated in the empty state).
    pub fn initial_state(&mut self) -> Result<State, InterpError> {
        let pos = self.evaluate(&State::default())?;
        let moves = match self.init.map(|r| self.rules.rels[r.0 as usize].class) {
            Some(Class::Move) => self.move_store(&pos, &[])?,
            _ => pos.moves.clone(),
        };
        Ok(State::new(self.unary_facts(self.init, &pos.store, &moves)))
    }

    /// Legal moves of role number `role` in `pos`, as (canonical text, term) sorted by text
    /// without duplicate texts — the order moves are chosen from.
    pub fn legal_in(&self, pos: &Position, role: usize) -> Vec<(String, GroundTermId)> {
        let Some(r) = self.legal else { return Vec::new() };
        let rid = self.roles[role];
        let mut v: Vec<(String, GroundTermId)> = self
            .store_of(r, &pos.store, &pos.moves)
            .rel(r)
            .rows
            .iter()
            .filter(|t| t[0] == rid)
            .map(|t| (self.term_text(t[1]), t[1]))
            .collect();
        v.sort();
        v.dedup_by(|a, b| a.0 == b.0);
        v
    }

    /// Whether `terminal` holds in `pos`.
    pub fn terminal_in(&self, pos: &Position) -> bool {
        self.terminal.is_some_and(|r| !self.store_of(r, &pos.store, &pos.moves).rel(r).rows.is_empty())
    }

    /// Goal values per role in `pos`: empty when none is derivable, several when the rules
    /// derive several (numbers first by value, then non-numeric texts by byte order).
    pub fn goals_in(&self, pos: &Position) -> Vec<Vec<GoalValue>> {
        let facts = self.goal.map(|r| self.store_of(r, &pos.store, &pos.moves).rel(r));
        self.roles
            .iter()
            .map(|&rid| {
                let mut vals: Vec<GoalValue> = facts
                    .iter()
                    .flat_map(|f| f.rows.iter())
                    .filter(|t| t[0] == rid)
                    .map(|t| self.goal_value(t[1]))
                    .collect();
                vals.sort();
                vals
            })
            .collect()
    }

    fn goal_value(&self, t: GroundTermId) -> GoalValue {
        if let GroundTerm::Const(c) = self.terms.get(t) {
            if let Some(n) = super::parse_integer(self.syms.name(*c)) {
                return GoalValue::Int(n);
            }
        }
        GoalValue::Text(self.term_text(t))
    }

    /// The successor of `pos` under `joint` (one move term per role, role order): every
    /// `(next F)` that holds.
    pub fn next_from(&mut self, pos: &Position, joint: &[GroundTermId]) -> Result<State, InterpError> {
        let j: Vec<Option<GroundTermId>> = joint.iter().map(|&m| Some(m)).collect();
        let moves = self.move_store(pos, &j)?;
        Ok(State::new(self.unary_facts(self.next, &pos.store, &moves)))
    }

    /// Legal moves of role number `role` in `state` (see [`Interp::legal_in`]).
    pub fn legal_moves(&mut self, state: &State, role: usize) -> Result<Vec<GroundTermId>, InterpError> {
        let pos = self.evaluate(state)?;
        Ok(self.legal_in(&pos, role).into_iter().map(|(_, m)| m).collect())
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
    pub fn next_state(&mut self, state: &State, joint: &[GroundTermId]) -> Result<State, InterpError> {
        let pos = self.evaluate(state)?;
        self.next_from(&pos, joint)
    }
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
