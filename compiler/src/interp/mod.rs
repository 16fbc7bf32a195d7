//! Reference GDL interpreter (a "prover"): the trustworthy, netlist-independent definition
//! of a game's state machine that every compiled form is tested against.
//!
//! Evaluation is stratified Datalog over interned ground terms ([`terms`]): the program is
//! lowered and split into strata ([`rules`]), each rule body gets a join order ([`plan`]);
//! derived relations are computed per call pattern with the call's bound arguments pushed
//! into the rules, memoized, recursive ones by tabling ([`eval`], [`table`]); only strata
//! with negation inside a cycle are computed bottom-up, semi-naively (facts in [`store`]).
//! [`Interp`] ([`machine`]) is the state-machine API; [`trace`] writes the oracle's JSON
//! Lines playout format.
//!
//! Semantics follow the SWI-Prolog oracle in `shared/oracle` (see its README): negation as
//! failure, `distinct` as non-identity, `(p)` is `p`, undefined relations are empty. A
//! stratum with a negative cycle is accepted when it has a unique two-valued model
//! (locally stratified programs). Evaluation never hangs: it stops with an error naming
//! the relation when a term gets deeper than [`Limits::max_term_depth`] or a store holds
//! more than [`Limits::max_facts`] facts. No representation wraps: a rule with more
//! variables than its slots number ([`crate::gdl::MAX_RULE_VARIABLES`]) or a game with more
//! relations than a relation id numbers is rejected by [`Interp::new`], located at the
//! rule, and the fact budget stays below what a store's row numbers hold ([`MAX_FACTS`]).

pub mod eval;
pub mod machine;
pub mod plan;
pub mod rules;
pub mod store;
pub mod table;
pub mod trace;
mod value_origin;

pub use crate::terms::{TermArena, TermId, TermRef};
pub use machine::{Interp, Position, State};

/// A ground term of the interpreter (a move, a fluent): the shared arena's [`TermId`].
pub type GroundTermId = TermId;

use crate::gdl::Span;

/// The largest [`Limits::max_facts`]: a store numbers its rows in 32 bits, and one rule's
/// join may add up to the budget again before the budget is checked.
pub const MAX_FACTS: usize = (u32::MAX / 4) as usize;

/// Evaluation budgets.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Deepest term a rule may build (a constant has depth 0).
    pub max_term_depth: u32,
    /// Most facts one store (static, per state, or per transition) may hold; at most
    /// [`MAX_FACTS`] (a larger value is lowered to it).
    pub max_facts: usize,
    /// Most alternating-fixpoint rounds for a stratum with a negative cycle.
    pub max_rounds: usize,
    /// Most calls of on-demand relations in progress one inside the other: a chain of
    /// rules each reading the next (`(<= p0 p1) (<= p1 p2) …`) nests one call per rule
    /// (and a few stack frames each): the command thread's 256 MiB stack held 200,000 in a
    /// release build, so the default is half that.
    pub max_call_depth: u32,
    /// Report goal values outside 0..=100 as they are ([`GoalValue`]) instead of failing
    /// with [`InterpError::BadGoal`]: for a GGP player, which plays whatever rules it is
    /// sent. Off by default, so that every command gives an invalid game one verdict.
    pub lenient_goals: bool,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_term_depth: 256,
            max_facts: 4_000_000,
            max_rounds: 1000,
            max_call_depth: 100_000,
            lenient_goals: false,
        }
    }
}

/// A goal value as the oracle reports it: an integer when the constant reads as one in
/// SWI-Prolog (`100`, `07` → 7, `+5`, `0x1f`, `1_000`), else the term's canonical text.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum GoalValue {
    /// Numeric value.
    Int(i128),
    /// Non-numeric value (canonical text).
    Text(String),
}

/// Interpreter errors. Spans are byte ranges of the rule in the source file.
#[derive(Debug, thiserror::Error)]
pub enum InterpError {
    /// A head variable does not occur in any positive body literal.
    #[error(
        "unsafe rule for {rule}: head variable {var} does not occur in a positive body literal"
    )]
    UnsafeRule {
        /// The rule head's text.
        rule: String,
        /// The variable.
        var: String,
        /// Where the rule is.
        span: Span,
    },
    /// A rule defines `true/1` or `does/2`.
    #[error("rule {rule} defines a reserved relation (true/1 or does/2)")]
    ReservedHead {
        /// The rule head's text.
        rule: String,
        /// Where the rule is.
        span: Span,
    },
    /// A rule has more variables than a rule's variable slots can number
    /// ([`crate::gdl::MAX_RULE_VARIABLES`], as the grounder).
    #[error(
        "rule for {rule} has {count} variables, more than the {limit} a rule may have; split the rule (move part of its body into a helper relation)"
    )]
    TooManyVariables {
        /// The rule head's text.
        rule: String,
        /// Its number of distinct variables.
        count: usize,
        /// The limit.
        limit: usize,
        /// Where the rule is.
        span: Span,
    },
    /// The program has more relations (name and arity) than a relation id can number.
    #[error(
        "the game has more than {limit} relations (name and arity), more than the reference interpreter numbers"
    )]
    TooManyRelations {
        /// The limit.
        limit: usize,
        /// The rule where the count passed it.
        span: Span,
    },
    /// The program has no `role` facts.
    #[error("the game defines no role")]
    NoRoles,
    /// Evaluation built a term deeper than the limit.
    #[error("evaluating {relation} builds terms deeper than {limit} (unbounded recursion through function terms?)")]
    TermDepth {
        /// `name/arity`.
        relation: String,
        /// The limit.
        limit: u32,
        /// A rule of the relation (the one whose head built the term, when known).
        span: Span,
    },
    /// Calls nested deeper than [`Limits::max_call_depth`].
    #[error(
        "evaluating {relation} nests more than {limit} calls of relations one inside the \
         other (a chain of rules each reading the next); the netlist evaluates it without \
         nesting: `--engine netlist`, or `propnet compile`"
    )]
    CallDepth {
        /// `name/arity` of the relation called at the limit.
        relation: String,
        /// The limit.
        limit: u32,
        /// Its first rule.
        span: Span,
    },
    /// Evaluation derived more facts than the budget.
    #[error("evaluating {relation} exceeds the reference interpreter's budget of {limit} facts per store (a game this big needs the netlist: `--engine netlist`, or `propnet compile`)")]
    FactBudget {
        /// `name/arity`.
        relation: String,
        /// The limit.
        limit: usize,
    },
    /// A goal value that is not an integer in 0..=100 ([`crate::gdl::goal_value`]) holds
    /// in an evaluated state: the game is not valid GDL (the grounder rejects it too).
    #[error("goal value must be an integer 0..=100: {goal}")]
    BadGoal {
        /// The goal atom's text, e.g. `(goal white 200)`.
        goal: String,
        /// A `goal` rule that can derive it.
        span: Span,
    },
    /// A stratum with a negative cycle has no unique two-valued model.
    #[error("relation {relation} depends negatively on itself and has no two-valued model (not locally stratified)")]
    NotStratified {
        /// `name/arity` of a relation of the cycle.
        relation: String,
    },
}

impl InterpError {
    /// The source span of the offending rule, when the error has one.
    pub fn span(&self) -> Option<Span> {
        match self {
            InterpError::UnsafeRule { span, .. }
            | InterpError::ReservedHead { span, .. }
            | InterpError::BadGoal { span, .. }
            | InterpError::TooManyVariables { span, .. }
            | InterpError::TooManyRelations { span, .. }
            | InterpError::TermDepth { span, .. }
            | InterpError::CallDepth { span, .. } => Some(*span),
            _ => None,
        }
    }
}

/// Reads `s` as an integer the way SWI-Prolog's `atom_number/2` does for the forms seen
/// in games: optional sign, decimal digits with `_` groups, `0x`/`0o`/`0b` radix forms and
/// `0'c` character codes. `None` for anything else (or beyond `i128`).
pub fn parse_integer(s: &str) -> Option<i128> {
    let (neg, body) = match s.as_bytes().first()? {
        b'-' => (true, &s[1..]),
        b'+' => (false, &s[1..]),
        _ => (false, s),
    };
    let radix = |digits: &str, r: u32| -> Option<i128> {
        if digits.is_empty() {
            return None;
        }
        i128::from_str_radix(digits, r)
            .ok()
            .filter(|_| digits.bytes().all(|b| b.is_ascii_alphanumeric()))
    };
    let v = if let Some(h) = body.strip_prefix("0x") {
        radix(h, 16)?
    } else if let Some(o) = body.strip_prefix("0o") {
        radix(o, 8)?
    } else if let Some(b) = body.strip_prefix("0b") {
        radix(b, 2)?
    } else if let Some(c) = body.strip_prefix("0'") {
        let mut it = c.chars();
        let ch = it.next()?;
        if it.next().is_some() {
            return None;
        }
        ch as i128
    } else {
        let groups: Vec<&str> = body.split('_').collect();
        if groups
            .iter()
            .any(|g| g.is_empty() || !g.bytes().all(|b| b.is_ascii_digit()))
        {
            return None;
        }
        groups.concat().parse::<i128>().ok()?
    };
    Some(if neg { -v } else { v })
}

#[cfg(test)]
mod tests {
    use super::parse_integer;

    #[test]
    fn integers_like_swi_prolog() {
        assert_eq!(parse_integer("100"), Some(100));
        assert_eq!(parse_integer("07"), Some(7));
        assert_eq!(parse_integer("-7"), Some(-7));
        assert_eq!(parse_integer("+7"), Some(7));
        assert_eq!(parse_integer("1_000"), Some(1000));
        assert_eq!(parse_integer("0x1f"), Some(31));
        assert_eq!(parse_integer("0'a"), Some(97));
        assert_eq!(parse_integer("7.0"), None);
        assert_eq!(parse_integer("win"), None);
        assert_eq!(parse_integer(""), None);
        assert_eq!(parse_integer("-"), None);
        assert_eq!(parse_integer("1__0"), None);
    }
}
