//! Exact game-theoretic solver for small turn-taking games: depth-first backward induction
//! over the netlist state machine with a transposition table of packed states.
//!
//! # Semantics
//! - A state *ends the game* when `terminal` holds or some role has no legal move (as in
//!   playouts); its value is the goal vector there (goal of each role, 0..=100).
//! - In every other reachable state at most one role may have more than one legal move
//!   (the *mover*; when none has, role 0's single move is taken). The value of the state is
//!   the value of the child that maximises the mover's own goal. This is **max^n**
//!   (Luckhardt & Irani, AAAI 1986). Ties are broken against the other roles (the child
//!   with the least sum of their goals, then the least of their goals in role order; the
//!   *paranoid* tie rule), so the value does not depend on how moves are named or
//!   ordered; children with equal goal vectors go to the first in choice order.
//! - For two-player constant-sum games (e.g. win/loss/draw with goals summing to 100) max^n
//!   is exactly minimax, so the value is *the* game value for each role with the side to
//!   move playing first. For general-sum or n-player games the result is one subgame-perfect
//!   equilibrium (the one selected by the tie rule), not a security value;
//!   [`Solution::constant_sum`] says which case the game's final states showed.
//! - States where two or more roles have a real choice (simultaneous moves) are refused with
//!   [`SolveError::Simultaneous`]: their value needs mixed strategies (a matrix game per
//!   state), which this solver does not compute. A repeated state on the current path (the
//!   game does not terminate) is refused with [`SolveError::Cycle`].
//! - To fail fast, a few random playouts from the root are checked for simultaneous moves
//!   before the exhaustive search starts ([`SolveOptions::probe_playouts`]), and the search
//!   stops with [`SolveError::TooLarge`] or [`SolveError::TimeLimit`] when it exceeds its
//!   state or time budget.

use crate::machine::{NetMachine, State};
use propnet_netlist::playout::pack_state;
use propnet_netlist::rng::{choose, key, threefry2x32_20};
use propnet_netlist::{InputId, Netlist};
use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

/// Limits of [`solve`].
#[derive(Clone, Debug)]
pub struct SolveOptions {
    /// Largest number of distinct states stored before giving up. Default 20 million.
    pub max_states: usize,
    /// Wall-clock limit of the search; `None` = no limit. Default `None`.
    pub max_time: Option<Duration>,
    /// Random playouts from the root checked for simultaneous moves before the exhaustive
    /// search (so such games are refused at once, not after a long search). Default 32.
    pub probe_playouts: u32,
}

impl Default for SolveOptions {
    fn default() -> Self {
        Self {
            max_states: 20_000_000,
            max_time: None,
            probe_playouts: 32,
        }
    }
}

/// How often (in newly visited states) [`solve`] reports progress and checks the clock.
pub const PROGRESS_EVERY: usize = 4096;

/// Why a game could not be solved.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SolveError {
    /// Two or more roles have several legal moves in a reachable state.
    #[error("simultaneous moves: roles {} all have a choice in state {{{fluents}}}; the solver handles turn-taking games only", roles.join(" and "))]
    Simultaneous {
        /// Names of the roles with more than one legal move.
        roles: Vec<String>,
        /// True fluents of the state.
        fluents: String,
    },
    /// A state repeats on the current path.
    #[error("the game does not terminate: state {{{fluents}}} repeats on a path")]
    Cycle {
        /// True fluents of the state.
        fluents: String,
    },
    /// More than `max_states` distinct states.
    #[error("more than {0} distinct states; raise the limit or pick a smaller game")]
    TooLarge(usize),
    /// A [`crate::stop`] request (SIGINT/SIGTERM) ended the search.
    #[error("interrupted after visiting {states} states, without a result")]
    Interrupted {
        /// States visited when the request came.
        states: usize,
    },
    /// The time limit ran out.
    #[error("time limit of {:.1} s reached after visiting {states} states without a result; raise the limit or pick a smaller game", .limit.as_secs_f64())]
    TimeLimit {
        /// The limit.
        limit: Duration,
        /// States visited when the limit was reached.
        states: usize,
    },
}

/// The solved value of a state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Solution {
    /// Goal per role (0..=100) under optimal play from the state.
    pub values: Vec<u8>,
    /// The role to move (with a real choice) and its optimal move, `None` when the state
    /// ends the game or nobody has a choice.
    pub best: Option<(usize, InputId)>,
    /// Distinct non-final states visited.
    pub states: usize,
    /// Every final state met had the same sum of goals (then, with two roles, the values
    /// are the minimax values; otherwise they are the equilibrium the tie rule selects).
    pub constant_sum: bool,
}

/// The sums of goals seen in final states: whether they were all the same.
#[derive(Default)]
struct Sums(Option<u32>, bool);

impl Sums {
    fn see(&mut self, values: &[u8]) {
        let sum = values.iter().map(|&v| u32::from(v)).sum();
        match self.0 {
            None => self.0 = Some(sum),
            Some(s) if s != sum => self.1 = true,
            Some(_) => {}
        }
    }
    fn constant(&self) -> bool {
        !self.1
    }
}

/// A state where the game goes on: its mover, a joint move of every role's first legal
/// move (the mover's entry replaced per choice) and the mover's legal moves.
struct Expanded {
    mover: usize,
    joint: Vec<InputId>,
    choices: Vec<InputId>,
}

/// A state evaluated: the goal vector of a final state, or the choices of an open one.
enum Eval {
    Final(Vec<u8>),
    Open(Expanded),
}

/// The true fluents of `s` ([`Netlist::true_fluents`]: latches, and the fixed and aliased
/// fluents the optimizer took out of them), sorted, separated by spaces (for error messages).
fn fluents(net: &Netlist, s: &[bool]) -> String {
    net.true_fluents(s).join(" ")
}

/// Evaluates state `s`: final when it ends the game (terminal, or a role without a legal
/// move), else its mover and choices.
///
/// # Errors
/// [`SolveError::Simultaneous`] when two or more roles have a choice.
fn evaluate(m: &NetMachine<'_>, s: &[bool]) -> Result<Eval, SolveError> {
    let view = m.view_of(s);
    if view.ends() {
        return Ok(Eval::Final(view.goals));
    }
    let legal = view.legal;
    let movers: Vec<usize> = (0..legal.len()).filter(|&r| legal[r].len() > 1).collect();
    if movers.len() > 1 {
        let net = m.netlist();
        let roles = movers.iter().map(|&r| net.roles[r].name.clone()).collect();
        return Err(SolveError::Simultaneous {
            roles,
            fluents: fluents(net, s),
        });
    }
    let mover = movers.first().copied().unwrap_or(0);
    let joint = legal.iter().map(|l| l[0]).collect();
    Ok(Eval::Open(Expanded {
        mover,
        joint,
        choices: legal[mover].clone(),
    }))
}

/// An open state on the search path: its packed key, the state, its choices, the index
/// of the next choice to try and the best child value so far with its move.
struct Frame {
    key: Vec<u64>,
    state: State,
    e: Expanded,
    next: usize,
    best: Option<(Vec<u8>, InputId)>,
}

/// Plays `opts.probe_playouts` uniformly random playouts (at most 1 000 joint moves each)
/// from `root` and fails on the first state where two roles have a choice.
fn probe(m: &NetMachine<'_>, root: &State, opts: &SolveOptions) -> Result<(), SolveError> {
    let k = key(0x736f_6c76_6572);
    for p in 0..opts.probe_playouts {
        let mut s = root.clone();
        for step in 0..1_000u32 {
            let Eval::Open(e) = evaluate(m, &s)? else {
                break;
            };
            let mut joint = e.joint;
            let x = threefry2x32_20(k, [p, step])[0];
            joint[e.mover] = e.choices[choose(x, e.choices.len() as u32) as usize];
            s = m.next_state(&s, &joint);
        }
    }
    Ok(())
}

/// Solves the game from `root` (see the module docs for the semantics). `progress` is
/// called with the number of states visited so far every [`PROGRESS_EVERY`] new states.
///
/// # Errors
/// [`SolveError`] for simultaneous moves, non-terminating games, too many states or an
/// exceeded time limit.
pub fn solve(
    net: &Netlist,
    root: &State,
    opts: &SolveOptions,
    progress: &mut dyn FnMut(usize),
) -> Result<Solution, SolveError> {
    let start = Instant::now();
    let m = NetMachine::new(net);
    probe(&m, root, opts)?;
    let e = match evaluate(&m, root)? {
        Eval::Final(values) => {
            return Ok(Solution {
                values,
                best: None,
                states: 0,
                constant_sum: true,
            })
        }
        Eval::Open(e) => e,
    };
    let root_key = pack_state(root);
    let mut search = Search {
        m,
        opts,
        progress,
        start,
        visited: 0,
        sums: Sums::default(),
        table: HashMap::new(),
        on_path: HashSet::from([root_key.clone()]),
        stack: vec![Frame {
            key: root_key,
            state: root.clone(),
            e,
            next: 0,
            best: None,
        }],
    };
    search.run()
}

/// The depth-first search of [`solve`] below an open root.
struct Search<'a> {
    m: NetMachine<'a>,
    opts: &'a SolveOptions,
    progress: &'a mut dyn FnMut(usize),
    /// When [`solve`] started (for the time limit).
    start: Instant,
    /// Open states visited (not counting the root).
    visited: usize,
    sums: Sums,
    /// Solved open states by packed key.
    table: HashMap<Vec<u64>, Vec<u8>>,
    /// Keys of the states on the current path (cycle check).
    on_path: HashSet<Vec<u64>>,
    /// The current path, root first.
    stack: Vec<Frame>,
}

impl Search<'_> {
    /// Runs the search to the root's solution.
    fn run(&mut self) -> Result<Solution, SolveError> {
        loop {
            let top = self
                .stack
                .last_mut()
                .expect("stack holds the root until it returns");
            if top.next == top.e.choices.len() {
                if let Some(solution) = self.pop_solved() {
                    return Ok(solution);
                }
                continue;
            }
            self.visit_next_child()?;
        }
    }

    /// Pops the top frame, whose choices are all tried: stores its value and folds it into
    /// its parent, or returns the solution when it is the root.
    fn pop_solved(&mut self) -> Option<Solution> {
        let f = self.stack.pop().expect("non-empty");
        self.on_path.remove(&f.key);
        let (values, mv) = f.best.expect("a frame has at least one move");
        let Some(parent) = self.stack.last_mut() else {
            let best = (f.e.choices.len() > 1).then_some((f.e.mover, mv));
            return Some(Solution {
                values,
                best,
                states: self.table.len() + 1,
                constant_sum: self.sums.constant(),
            });
        };
        self.table.insert(f.key, values.clone());
        combine(parent, values);
        None
    }

    /// Plays the top frame's next choice: folds in the child's value when it is known or
    /// final, else pushes the child's frame.
    ///
    /// # Errors
    /// [`SolveError::Cycle`] when the child is on the path; the errors of [`evaluate`] and
    /// [`Search::count_new_state`].
    fn visit_next_child(&mut self) -> Result<(), SolveError> {
        let top = self.stack.last_mut().expect("non-empty");
        let mv = top.e.choices[top.next];
        let mut joint = top.e.joint.clone();
        joint[top.e.mover] = mv;
        let child = self.m.next_state(&top.state, &joint);
        let key = pack_state(&child);
        if let Some(v) = self.table.get(&key) {
            let v = v.clone();
            combine(top, v);
            return Ok(());
        }
        if self.on_path.contains(&key) {
            return Err(SolveError::Cycle {
                fluents: fluents(self.m.netlist(), &child),
            });
        }
        match evaluate(&self.m, &child)? {
            Eval::Final(values) => {
                self.sums.see(&values);
                combine(top, values);
            }
            Eval::Open(e) => {
                self.count_new_state()?;
                self.on_path.insert(key.clone());
                self.stack.push(Frame {
                    key,
                    state: child,
                    e,
                    next: 0,
                    best: None,
                });
            }
        }
        Ok(())
    }

    /// Counts a newly visited open state; every [`PROGRESS_EVERY`] states reports progress
    /// and checks for a stop request and the time limit.
    ///
    /// # Errors
    /// [`SolveError::TooLarge`] when the table is full, [`SolveError::Interrupted`] and
    /// [`SolveError::TimeLimit`].
    fn count_new_state(&mut self) -> Result<(), SolveError> {
        if self.table.len() >= self.opts.max_states {
            return Err(SolveError::TooLarge(self.opts.max_states));
        }
        self.visited += 1;
        if self.visited.is_multiple_of(PROGRESS_EVERY) {
            (self.progress)(self.visited);
            if crate::stop::requested() {
                return Err(SolveError::Interrupted {
                    states: self.visited,
                });
            }
            if let Some(limit) = self.opts.max_time.filter(|&t| self.start.elapsed() >= t) {
                return Err(SolveError::TimeLimit {
                    limit,
                    states: self.visited,
                });
            }
        }
        Ok(())
    }
}

/// Folds a child's value into its parent frame and advances to the next move.
fn combine(f: &mut Frame, values: Vec<u8>) {
    let mv = f.e.choices[f.next];
    f.next += 1;
    let better = f
        .best
        .as_ref()
        .is_none_or(|(b, _)| prefer(&values, b, f.e.mover));
    if better {
        f.best = Some((values, mv));
    }
}

/// Whether the mover prefers the goal vector `a` to `b`: a higher own goal, or on a tie
/// the one worse for the others (lower sum of their goals, then lower goals in role
/// order). Equal vectors are not preferred (the first in choice order stays).
fn prefer(a: &[u8], b: &[u8], mover: usize) -> bool {
    let others = |v: &[u8]| {
        let rest: Vec<u8> = (0..v.len()).filter(|&r| r != mover).map(|r| v[r]).collect();
        (rest.iter().map(|&g| u32::from(g)).sum::<u32>(), rest)
    };
    match a[mover].cmp(&b[mover]) {
        std::cmp::Ordering::Greater => true,
        std::cmp::Ordering::Less => false,
        std::cmp::Ordering::Equal => others(a) < others(b),
    }
}

#[cfg(test)]
mod tests {
    use super::prefer;

    #[test]
    fn ties_in_the_movers_goal_go_against_the_others() {
        assert!(prefer(&[60, 0], &[50, 100], 0), "a higher own goal wins");
        assert!(!prefer(&[50, 100], &[60, 0], 0));
        assert!(
            prefer(&[0, 50], &[100, 50], 1),
            "tie for role 1: worse for role 0"
        );
        assert!(!prefer(&[100, 50], &[0, 50], 1));
        assert!(
            prefer(&[50, 10, 40], &[50, 40, 10], 0),
            "equal sums: role order"
        );
        assert!(
            !prefer(&[50, 40, 10], &[50, 40, 10], 0),
            "equal vectors keep the first"
        );
    }
}
