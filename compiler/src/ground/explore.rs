//! Reachable states by exhaustive search with the interpreter: the fallback for games
//! whose relaxed reachability diverges although play is finite.
//!
//! The relaxed fixpoint ([`super::fixpoint`]) ignores negation and `terminal`, so a game
//! that threads a growing term through its state (twogenerals' `(ack (ack …))` messages, a
//! counter written as `(s (s …))`) has infinitely many relaxed-reachable atoms even when
//! `terminal` ends every match after a few moves, and grounding stops at the term-depth
//! limit. Then [`explore`] enumerates the states that play can reach (breadth first from
//! `init`, every joint move of every non-terminal state, with the reference interpreter),
//! and grounding runs again with `true` and `does` restricted to the fluents and moves
//! that occur there ([`guard`]). Every gate is then exact on every reachable state: a
//! fluent left out is false in all of them and a move left out is legal in none, so the
//! literals that mention them have the constant value the restricted netlist gives them.
//! Playouts, traces, players and percepts only ever evaluate reachable states; on a state
//! that play cannot reach the netlist may differ from the rules.

use crate::gdl::{Atom, Program, Rule, Span, Sym, Term};
use crate::interp::{Interp, InterpError, Limits, State};
use crate::terms::{TermId, TermRef};
use propnet_netlist::Cancel;
use std::collections::{HashMap, HashSet, VecDeque};
use std::time::Instant;

/// Most states [`explore`] visits before giving up (by default).
pub const MAX_STATES: usize = 200_000;

/// What exhaustive exploration found: the fluents true in some reachable state and the
/// moves legal in some reachable state, as terms of the program's symbols.
#[derive(Clone, Debug, Default)]
pub struct Reached {
    /// Fluents (arguments of `true`) of the reachable states.
    pub fluents: Vec<Term>,
    /// `(role, move)` pairs legal in some reachable state (terminal ones included).
    pub moves: Vec<(Sym, Term)>,
    /// Reachable states visited (all of them).
    pub states: usize,
    /// Joint moves applied.
    pub transitions: usize,
    /// Depth of the deepest fluent or move found (a constant has depth 1, as in
    /// [`super::Budget::max_term_depth`]).
    pub depth: u32,
}

/// Why exploration stopped before it had seen every reachable state.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ExploreStop {
    /// More reachable states than the limit.
    #[error("more than {0} reachable states (--ground-explore-states raises the limit)")]
    States(usize),
    /// The deadline passed after this many states.
    #[error("the grounding time limit (--ground-seconds) passed after {0} states")]
    Time(usize),
    /// The interpreter failed (the message of its error).
    #[error("the interpreter failed: {0}")]
    Interp(String),
    /// The caller cancelled.
    #[error("cancelled")]
    Cancelled,
}

impl From<InterpError> for ExploreStop {
    fn from(e: InterpError) -> Self {
        ExploreStop::Interp(e.to_string())
    }
}

/// Limits of [`explore`].
#[derive(Clone, Debug)]
pub struct ExploreLimits {
    /// Most states visited.
    pub max_states: usize,
    /// When to give up.
    pub deadline: Instant,
    /// Raised by the caller to stop.
    pub cancel: Cancel,
}

/// Visits every state reachable from the initial state of `program` (breadth first; the
/// successors of terminal states are not taken) and collects their fluents and legal moves.
/// `progress` hears the number of states now and then.
///
/// # Errors
/// [`ExploreStop`] when the limits are reached first or the interpreter fails.
pub fn explore(
    program: &Program,
    limits: &ExploreLimits,
    progress: &dyn Fn(&str),
) -> Result<Reached, ExploreStop> {
    let mut interp = Interp::with_limits(program, Limits::default())?;
    let roles = interp.roles().len();
    let start = interp.initial_state()?;
    let mut seen: HashSet<State> = HashSet::from([start.clone()]);
    let mut queue = VecDeque::from([start]);
    let mut fluents: HashSet<TermId> = HashSet::new();
    let mut moves: HashSet<(usize, TermId)> = HashSet::new();
    let mut transitions = 0usize;
    let mut visited = 0usize;
    while let Some(state) = queue.pop_front() {
        visited += 1;
        if limits.cancel.is_cancelled() {
            return Err(ExploreStop::Cancelled);
        }
        if visited.is_multiple_of(64) && Instant::now() > limits.deadline {
            return Err(ExploreStop::Time(visited));
        }
        if visited.is_multiple_of(4096) {
            progress(&format!("exploring the states play reaches: {visited}"));
        }
        fluents.extend(state.fluents().iter().copied());
        let mut pos = interp.evaluate(&state)?;
        let legal: Vec<Vec<TermId>> = (0..roles)
            .map(|r| {
                interp
                    .legal_in(&pos, r)
                    .into_iter()
                    .map(|(_, m)| m)
                    .collect()
            })
            .collect();
        for (r, ms) in legal.iter().enumerate() {
            moves.extend(ms.iter().map(|&m| (r, m)));
        }
        if interp.terminal_in(&pos) || legal.iter().any(Vec::is_empty) {
            continue;
        }
        for joint in JointMoves::new(&legal) {
            transitions += 1;
            // a state may have millions of joint moves: the limits are checked within it too
            if transitions.is_multiple_of(1024) {
                if limits.cancel.is_cancelled() {
                    return Err(ExploreStop::Cancelled);
                }
                if Instant::now() > limits.deadline {
                    return Err(ExploreStop::Time(visited));
                }
            }
            let next = interp.next_from(&mut pos, &joint)?;
            if !seen.contains(&next) {
                if seen.len() >= limits.max_states {
                    return Err(ExploreStop::States(limits.max_states));
                }
                seen.insert(next.clone());
                queue.push_back(next);
            }
        }
    }
    // the arena counts a constant as depth 0, the grounder's budget as 1
    let depth = (fluents.iter().chain(moves.iter().map(|(_, m)| m)))
        .map(|&t| interp.terms().depth(t) + 1)
        .max()
        .unwrap_or(1);
    let mut terms = TermConverter::default();
    let mut fluents: Vec<Term> = fluents
        .into_iter()
        .map(|f| terms.term(&interp, f))
        .collect();
    fluents.sort();
    let role_syms: Vec<Sym> = program.roles.clone();
    let mut moves: Vec<(Sym, Term)> = moves
        .into_iter()
        .map(|(r, m)| (role_syms[r], terms.term(&interp, m)))
        .collect();
    moves.sort();
    Ok(Reached {
        fluents,
        moves,
        states: seen.len(),
        transitions,
        depth,
    })
}

/// Every joint move of per-role legal lists (none empty), in odometer order.
struct JointMoves<'a> {
    legal: &'a [Vec<TermId>],
    at: Vec<usize>,
    done: bool,
}

impl<'a> JointMoves<'a> {
    fn new(legal: &'a [Vec<TermId>]) -> Self {
        JointMoves {
            legal,
            at: vec![0; legal.len()],
            done: false,
        }
    }
}

impl Iterator for JointMoves<'_> {
    type Item = Vec<TermId>;

    fn next(&mut self) -> Option<Vec<TermId>> {
        if self.done {
            return None;
        }
        let joint = self
            .at
            .iter()
            .zip(self.legal)
            .map(|(&i, ms)| ms[i])
            .collect();
        self.done = true;
        for (i, ms) in self.at.iter_mut().zip(self.legal).rev() {
            *i += 1;
            if *i < ms.len() {
                self.done = false;
                break;
            }
            *i = 0;
        }
        Some(joint)
    }
}

/// Interpreter terms to program terms, memoized.
#[derive(Default)]
struct TermConverter {
    memo: HashMap<TermId, Term>,
}

impl TermConverter {
    fn term(&mut self, interp: &Interp, t: TermId) -> Term {
        if let Some(done) = self.memo.get(&t) {
            return done.clone();
        }
        let term = match interp.terms().get(t) {
            TermRef::Const(s) => Term::Const(s),
            TermRef::Fn(f, args) => {
                Term::Fn(f, args.iter().map(|&a| self.term(interp, a)).collect())
            }
        };
        self.memo.insert(t, term.clone());
        term
    }
}

/// The relations that hold what [`explore`] found, named so no game's relation can clash
/// (a KIF symbol cannot hold a parenthesis).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Guards {
    /// `reached(true)/1`: the reachable fluents.
    pub fluent: Sym,
    /// `reached(does)/2`: the reachable `(role, move)` pairs.
    pub moves: Sym,
}

/// `program` with the facts of `reached` added, and the relations that hold them: with
/// them [`super::rules::lower`] derives `true(F)` only for a reached `F` and `does(R, M)`
/// only for a reached pair.
pub(super) fn guard(program: &Program, reached: &Reached) -> (Program, Guards) {
    let mut p = program.clone();
    let guards = Guards {
        fluent: p.symbols.intern("reached(true)"),
        moves: p.symbols.intern("reached(does)"),
    };
    let fact = |rel: Sym, args: Vec<Term>| Rule {
        head: Atom { rel, args },
        body: Vec::new(),
        span: Span::default(),
    };
    p.rules
        .extend((reached.fluents.iter()).map(|f| fact(guards.fluent, vec![f.clone()])));
    p.rules.extend(
        (reached.moves.iter()).map(|(r, m)| fact(guards.moves, vec![Term::Const(*r), m.clone()])),
    );
    (p, guards)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(max_states: usize) -> ExploreLimits {
        ExploreLimits {
            max_states,
            deadline: Instant::now() + std::time::Duration::from_secs(60),
            cancel: Cancel::never(),
        }
    }

    /// A race to 4 on a counter written in Peano form: relaxed reachability is infinite,
    /// play reaches counts 0..=5 (a move adds 1 or 2).
    const RACE: &str = "(role a) (role b) (init (count 0)) (init (control a))
        (legal a (add 1)) (legal a (add 2)) (legal b (add 1)) (legal b (add 2))
        (<= (next (count (s ?n))) (true (count ?n)) (does ?p (add 1)) (true (control ?p)))
        (<= (next (count (s (s ?n)))) (true (count ?n)) (does ?p (add 2)) (true (control ?p)))
        (<= (next (control b)) (true (control a))) (<= (next (control a)) (true (control b)))
        (<= (done ?n) (true (count ?n)) (end ?n))
        (end (s (s (s (s 0))))) (end (s (s (s (s (s 0))))))
        (<= terminal (done ?n)) (goal a 50) (goal b 50)";

    #[test]
    fn a_finite_race_on_an_unbounded_counter_is_explored_in_full() {
        let p = crate::gdl::parse_source("race.kif", RACE.as_bytes())
            .unwrap()
            .program;
        let r = explore(&p, &limits(1000), &|_| {}).unwrap();
        // counts 0..=3 with either side to move where reachable, and the terminal 4 and 5
        let counts = r
            .fluents
            .iter()
            .filter(|f| p.symbols.term_text(f).starts_with("(count"))
            .count();
        assert_eq!(
            counts,
            6,
            "{:?}",
            r.fluents
                .iter()
                .map(|f| p.symbols.term_text(f))
                .collect::<Vec<_>>()
        );
        assert_eq!(r.moves.len(), 4);
        assert!(r.states >= 6 && r.transitions >= 8);
    }

    /// Four roles of eight moves: 4,096 joint moves in the initial state. A deadline
    /// already passed stops the enumeration inside that state, not after it.
    #[test]
    fn the_deadline_is_checked_between_the_joint_moves_of_one_state() {
        let mut src = String::from("(init s) (<= terminal (true t)) (<= (next t) (true s))");
        for r in ["a", "b", "c", "d"] {
            src += &format!(" (role {r}) (goal {r} 0)");
            for m in 0..8 {
                src += &format!(" (legal {r} m{m})");
            }
        }
        let p = crate::gdl::parse_source("wide.kif", src.as_bytes())
            .unwrap()
            .program;
        let mut l = limits(1000);
        l.deadline = Instant::now();
        assert_eq!(explore(&p, &l, &|_| {}).unwrap_err(), ExploreStop::Time(1));
        let r = explore(&p, &limits(1000), &|_| {}).unwrap();
        assert_eq!((r.states, r.transitions), (2, 4096));
    }

    #[test]
    fn exploration_stops_at_its_state_limit() {
        let endless = RACE.replace(
            "(<= terminal (done ?n))",
            "(<= terminal (true (count never)))",
        );
        let p = crate::gdl::parse_source("endless.kif", endless.as_bytes())
            .unwrap()
            .program;
        let e = explore(&p, &limits(50), &|_| {}).unwrap_err();
        assert_eq!(e, ExploreStop::States(50));
    }
}
