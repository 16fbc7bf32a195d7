//! A match as the player plays it: the state machine (compiled netlist, or the reference
//! interpreter as the fallback), the current state and the search tree kept across moves.

use propnet_compiler::interp::{self, GroundTermId};
use propnet_mcts::factored::{FactorChoice, FactorSearch};
use propnet_mcts::{Budget, MctsParams, Search, SearchResult, Tree};
use propnet_netlist::{InputId, Netlist};
use propnet_runtime::backend::Backend;
use propnet_runtime::machine::State;
use propnet_runtime::machine::{
    free_moves_to_merge, GameMachine, InterpMachine, MachineError, NetMachine,
};
use std::time::{Duration, Instant};

/// What thinking about one move produced.
#[derive(Clone, Debug, Default)]
pub struct Think {
    /// The chosen move, canonical text (lower case).
    pub text: String,
    /// MCTS iterations.
    pub iterations: u64,
    /// Rollouts.
    pub playouts: u64,
    /// Search time.
    pub elapsed: Duration,
    /// Nodes in the tree after the search.
    pub nodes: usize,
    /// Legal moves of our role.
    pub legal: usize,
    /// Factor trees searched for this move (0: the whole game's tree chose it).
    pub factors: usize,
}

/// The state and tree of one match over one machine.
pub struct Line<S, M> {
    search: Search<S, M>,
    state: S,
    role: usize,
}

impl<
        S: Clone + Send + 'static,
        M: Copy + Eq + std::hash::Hash + std::fmt::Debug + Send + 'static,
    > Line<S, M>
{
    /// The initial position of `machine` for our `role`, with an empty tree.
    ///
    /// # Errors
    /// The machine's error.
    pub fn start<G: GameMachine<State = S, Move = M> + ?Sized>(
        machine: &mut G,
        role: usize,
        params: MctsParams,
    ) -> Result<Self, MachineError> {
        let state = machine.initial_state()?;
        let mut search = Search::for_machine(params);
        search.set_root(machine, state.clone())?;
        Ok(Self {
            search,
            state,
            role,
        })
    }

    /// Plays the joint move given as canonical texts (role order). A move that is not
    /// legal here (or a wrong count) is replaced by the role's first legal move; each
    /// replacement is reported in the returned list.
    ///
    /// # Errors
    /// The machine's error.
    pub fn apply<G: GameMachine<State = S, Move = M> + ?Sized>(
        &mut self,
        machine: &mut G,
        moves: &[String],
    ) -> Result<Vec<String>, MachineError> {
        // The full legal moves of the state, not the root's (a search may list one
        // outcome-free move of several: `MctsParams::merge_free_moves`).
        let view = machine.view(&self.state)?;
        let legal = if view.ends() {
            vec![Vec::new(); view.legal.len()]
        } else {
            view.legal
        };
        let mut problems = Vec::new();
        if moves.len() != legal.len() {
            problems.push(format!("{} moves for {} roles", moves.len(), legal.len()));
        }
        let mut joint = Vec::with_capacity(legal.len());
        for (r, ms) in legal.iter().enumerate() {
            let given = moves.get(r).map(String::as_str).unwrap_or("");
            match ms.iter().find(|&&m| machine.move_text(m) == given) {
                Some(&m) => joint.push(m),
                None => {
                    let Some(&first) = ms.first() else {
                        problems.push("the game is already over".to_string());
                        return Ok(problems);
                    };
                    problems.push(format!(
                        "move `{given}` of role {r} is not legal here; assuming `{}`",
                        machine.move_text(first)
                    ));
                    joint.push(first);
                }
            }
        }
        self.state = machine.next_state(&self.state, &joint)?;
        self.search.advance(machine, &joint, self.state.clone())?;
        Ok(problems)
    }

    /// Canonical texts of our legal moves in the current state.
    pub fn legal_texts<G: GameMachine<State = S, Move = M> + ?Sized>(
        &self,
        machine: &G,
    ) -> Vec<String> {
        let root = self.search.tree().node(self.search.tree().root());
        root.legal
            .get(self.role)
            .map(|ms| ms.iter().map(|&m| machine.move_text(m)).collect())
            .unwrap_or_default()
    }

    /// Searches until `deadline` (or not at all when the move is forced and `quick_forced`)
    /// and returns the most-visited move; `publish` gets the index (into
    /// [`Line::legal_texts`]) of the best move so far whenever it changes.
    ///
    /// # Errors
    /// The machine's error.
    pub fn think<G: GameMachine<State = S, Move = M> + ?Sized>(
        &mut self,
        machine: &mut G,
        deadline: Instant,
        quick_forced: bool,
        publish: &mut dyn FnMut(usize),
    ) -> Result<Think, MachineError> {
        let texts = self.legal_texts(machine);
        self.think_with(texts, quick_forced, publish, |search, progress| {
            search.search(machine, Budget::Deadline(deadline), progress)
        })
    }

    /// [`Line::think`] with one search worker per machine ([`Search::search_parallel`]);
    /// `machines` must not be empty.
    ///
    /// # Errors
    /// A machine's error.
    pub fn think_parallel<G: GameMachine<State = S, Move = M> + Send>(
        &mut self,
        machines: &mut [G],
        deadline: Instant,
        quick_forced: bool,
        publish: &mut dyn FnMut(usize),
    ) -> Result<Think, MachineError> {
        let texts = match machines.first() {
            Some(m) => self.legal_texts(m),
            None => Vec::new(),
        };
        self.think_with(texts, quick_forced, publish, |search, progress| {
            search.search_parallel(machines, Budget::Deadline(deadline), progress)
        })
    }

    /// The search of a move, run by `run` (given the search and the progress callback that
    /// publishes the best move so far), unless the move is forced and `quick_forced`.
    fn think_with(
        &mut self,
        texts: Vec<String>,
        quick_forced: bool,
        publish: &mut dyn FnMut(usize),
        run: impl FnOnce(
            &mut Search<S, M>,
            &mut dyn FnMut(&Tree<S, M>),
        ) -> Result<SearchResult<M>, MachineError>,
    ) -> Result<Think, MachineError> {
        if texts.is_empty() {
            return Ok(Think::default());
        }
        let mut result = None;
        if !(quick_forced && texts.len() == 1) {
            let role = self.role;
            let mut last = None;
            let mut on_batch = |t: &Tree<S, M>| {
                let best = t.node(t.root()).best_index(role);
                if best != last {
                    last = best;
                    if let Some(i) = best {
                        publish(i);
                    }
                }
            };
            result = Some(run(&mut self.search, &mut on_batch)?);
        }
        let best = self.search.best_index_now(self.role).unwrap_or(0);
        Ok(match result {
            Some(r) => Think {
                text: texts[best].clone(),
                iterations: r.iterations,
                playouts: r.playouts,
                elapsed: r.elapsed,
                nodes: r.nodes,
                legal: texts.len(),
                factors: 0,
            },
            None => Think {
                text: texts[best].clone(),
                nodes: self.search.tree().len(),
                legal: texts.len(),
                ..Think::default()
            },
        })
    }
}

/// What the worker asks of a match's line, whatever the state machine under it.
trait Playing {
    fn describe(&mut self) -> String;
    fn apply(&mut self, moves: &[String]) -> Result<Vec<String>, MachineError>;
    fn legal_texts(&mut self) -> Vec<String>;
    fn think(
        &mut self,
        deadline: Instant,
        quick_forced: bool,
        publish: &mut dyn FnMut(usize),
    ) -> Result<Think, MachineError>;
    /// The compiled netlist and its backends, taken out (the line is unusable after);
    /// `None` over the interpreter.
    fn take_net(&mut self) -> Option<(Netlist, Vec<Box<dyn Backend>>)>;
}

/// Gives the state machine a line is played over, borrowed for one call.
trait Machines {
    type State: Clone + Send + 'static;
    type Move: Copy + Eq + std::hash::Hash + std::fmt::Debug + Send + 'static;
    fn with<R>(
        &mut self,
        f: impl FnOnce(&mut dyn GameMachine<State = Self::State, Move = Self::Move>) -> R,
    ) -> R;
    /// [`Line::think`] over these machines (all of them, where there are several).
    fn think(
        &mut self,
        line: &mut Line<Self::State, Self::Move>,
        deadline: Instant,
        quick_forced: bool,
        publish: &mut dyn FnMut(usize),
    ) -> Result<Think, MachineError> {
        self.with(|m| line.think(m, deadline, quick_forced, publish))
    }
    /// See [`Playing::take_net`].
    fn take_net(&mut self) -> Option<(Netlist, Vec<Box<dyn Backend>>)> {
        None
    }
}

/// The compiled netlist and the backends its rollouts run on, one per search worker (at
/// least one).
struct Compiled {
    net: Netlist,
    backends: Vec<Box<dyn Backend>>,
}

impl Compiled {
    /// # Errors
    /// [`MachineError::Backend`] when `backends` is empty.
    fn new(net: Netlist, backends: Vec<Box<dyn Backend>>) -> Result<Self, MachineError> {
        if backends.is_empty() {
            return Err(propnet_runtime::backend::BackendError::BadRequest {
                backend: "netlist".into(),
                message: "a match needs at least one backend".into(),
            }
            .into());
        }
        Ok(Self { net, backends })
    }
}

impl Machines for Compiled {
    type State = State;
    type Move = InputId;
    fn with<R>(
        &mut self,
        f: impl FnOnce(&mut dyn GameMachine<State = State, Move = InputId>) -> R,
    ) -> R {
        f(&mut NetMachine::with_backend(
            &self.net,
            self.backends[0].as_mut(),
        ))
    }
    fn think(
        &mut self,
        line: &mut Line<State, InputId>,
        deadline: Instant,
        quick_forced: bool,
        publish: &mut dyn FnMut(usize),
    ) -> Result<Think, MachineError> {
        let net = &self.net;
        let free = line
            .search
            .params()
            .merge_free_moves
            .then(|| free_moves_to_merge(net))
            .flatten();
        let mut machines: Vec<NetMachine<'_>> = self
            .backends
            .iter_mut()
            .map(|b| NetMachine::with_backend(net, b.as_mut()).merging(free.clone()))
            .collect();
        line.think_parallel(&mut machines, deadline, quick_forced, publish)
    }
    fn take_net(&mut self) -> Option<(Netlist, Vec<Box<dyn Backend>>)> {
        let net = std::mem::take(&mut self.net);
        Some((net, std::mem::take(&mut self.backends)))
    }
}

/// The compiled netlist of a sum of games and one tree per factor
/// ([`FactorSearch`]): where our role has a move in some factor, the factors' trees
/// choose it; while our move is forced they search the choice of the role that moves;
/// otherwise the whole game's tree searches.
struct Factored {
    whole: Compiled,
    factors: FactorSearch,
}

impl Factored {
    /// Our move is forced (`legal[line.role]` has one move): the time goes to the factor
    /// trees of the role that chooses now, from this state, so that they know the
    /// positions of our next move. `None` when no factor covers that choice.
    fn ponder(
        &mut self,
        line: &Line<State, InputId>,
        legal: &[Vec<InputId>],
        deadline: Instant,
    ) -> Result<Option<Think>, MachineError> {
        let Some(mover) = (0..legal.len()).find(|&r| r != line.role && legal[r].len() > 1) else {
            return Ok(None);
        };
        let depth = self.whole.net.roles.len();
        let budget = Budget::Deadline(deadline);
        let chosen = self.factors.choose(
            &line.state,
            mover,
            &legal[mover],
            depth,
            budget,
            &mut |_| {},
        )?;
        let ours = legal[line.role][0];
        Ok(chosen.map(|c| self.think_of(&c, ours, 1)))
    }

    /// The [`Think`] of the factor searches `c` when we play `played` among `legal` moves.
    fn think_of(&mut self, c: &FactorChoice, played: InputId, legal: usize) -> Think {
        Think {
            text: self.whole.with(|m| m.move_text(played)),
            iterations: c.totals.iterations,
            playouts: c.totals.playouts,
            elapsed: c.totals.elapsed,
            nodes: c.nodes,
            legal,
            factors: c.totals.searches as usize,
        }
    }
}

impl Machines for Factored {
    type State = State;
    type Move = InputId;
    fn with<R>(
        &mut self,
        f: impl FnOnce(&mut dyn GameMachine<State = State, Move = InputId>) -> R,
    ) -> R {
        self.whole.with(f)
    }
    fn think(
        &mut self,
        line: &mut Line<State, InputId>,
        deadline: Instant,
        quick_forced: bool,
        publish: &mut dyn FnMut(usize),
    ) -> Result<Think, MachineError> {
        let view = self.whole.with(|m| m.view(&line.state))?;
        let mine = match view.legal.get(line.role) {
            Some(ms) if !view.ends() => ms.clone(),
            _ => return self.whole.think(line, deadline, quick_forced, publish),
        };
        if mine.len() == 1 {
            if !quick_forced {
                if let Some(t) = self.ponder(line, &view.legal, deadline)? {
                    return Ok(t);
                }
            }
            return self.whole.think(line, deadline, quick_forced, publish);
        }
        // the root lists the moves the whole tree keeps (one outcome-free move of
        // several), in the order of `legal_texts`
        let listed = line
            .search
            .tree()
            .root_node()
            .map(|n| n.legal[line.role].clone());
        let mut on_move = |m: InputId| {
            if let Some(i) = listed.iter().flatten().position(|&x| x == m) {
                publish(i);
            }
        };
        let depth = self.whole.net.roles.len();
        let budget = Budget::Deadline(deadline);
        let chosen =
            self.factors
                .choose(&line.state, line.role, &mine, depth, budget, &mut on_move)?;
        match chosen {
            Some(c) => Ok(self.think_of(&c, c.input, listed.map_or(mine.len(), |l| l.len()))),
            None => self.whole.think(line, deadline, quick_forced, publish),
        }
    }
    fn take_net(&mut self) -> Option<(Netlist, Vec<Box<dyn Backend>>)> {
        self.whole.take_net()
    }
}

impl Machines for Box<InterpMachine> {
    type State = interp::State;
    type Move = GroundTermId;
    fn with<R>(
        &mut self,
        f: impl FnOnce(&mut dyn GameMachine<State = interp::State, Move = GroundTermId>) -> R,
    ) -> R {
        f(self.as_mut())
    }
}

/// A line and the machines it is played over.
struct Played<G: Machines> {
    machines: G,
    line: Line<G::State, G::Move>,
}

impl<G: Machines> Playing for Played<G> {
    fn describe(&mut self) -> String {
        self.machines.with(|m| m.describe())
    }
    fn apply(&mut self, moves: &[String]) -> Result<Vec<String>, MachineError> {
        let line = &mut self.line;
        self.machines.with(|m| line.apply(m, moves))
    }
    fn legal_texts(&mut self) -> Vec<String> {
        let line = &self.line;
        self.machines.with(|m| line.legal_texts(m))
    }
    fn think(
        &mut self,
        deadline: Instant,
        quick_forced: bool,
        publish: &mut dyn FnMut(usize),
    ) -> Result<Think, MachineError> {
        self.machines
            .think(&mut self.line, deadline, quick_forced, publish)
    }
    fn take_net(&mut self) -> Option<(Netlist, Vec<Box<dyn Backend>>)> {
        self.machines.take_net()
    }
}

/// The state machine, state and tree a match is played with: the compiled netlist, or the
/// reference interpreter when the game could not be compiled in time or at all.
pub struct MatchPlay {
    kind: &'static str,
    play: Box<dyn Playing>,
}

impl MatchPlay {
    /// The match over the compiled netlist at the initial state, one search worker per
    /// backend.
    ///
    /// # Errors
    /// The machine's error; [`MachineError::Backend`] when `backends` is empty.
    pub fn net(
        net: Netlist,
        backends: Vec<Box<dyn Backend>>,
        role: usize,
        params: MctsParams,
    ) -> Result<Self, MachineError> {
        let mut machines = Compiled::new(net, backends)?;
        let line = machines.with(|m| Line::start(m, role, params))?;
        Ok(MatchPlay {
            kind: "netlist",
            play: Box::new(Played { machines, line }),
        })
    }

    /// [`MatchPlay::net`] for a game that is a sum: the moves our role makes in a factor
    /// are chosen by `factors`' trees (seeded here for `role`), the others by the whole
    /// game's tree.
    ///
    /// # Errors
    /// As [`MatchPlay::net`].
    pub fn net_factored(
        net: Netlist,
        backends: Vec<Box<dyn Backend>>,
        mut factors: FactorSearch,
        role: usize,
        params: MctsParams,
    ) -> Result<Self, MachineError> {
        factors.new_game(role, 0);
        let whole = Compiled::new(net, backends)?;
        let mut machines = Factored { whole, factors };
        let line = machines.with(|m| Line::start(m, role, params))?;
        Ok(MatchPlay {
            kind: "netlist",
            play: Box::new(Played { machines, line }),
        })
    }

    /// The match over the reference interpreter at the initial state.
    ///
    /// # Errors
    /// The machine's error.
    pub fn interp(
        mut machines: Box<InterpMachine>,
        role: usize,
        params: MctsParams,
    ) -> Result<Self, MachineError> {
        let line = machines.with(|m| Line::start(m, role, params))?;
        Ok(MatchPlay {
            kind: "interpreter",
            play: Box::new(Played { machines, line }),
        })
    }

    /// The state machine's description (and its rollout backend).
    pub fn describe(&mut self) -> String {
        self.play.describe()
    }

    /// Short name of the state machine: `netlist` or `interpreter`.
    pub fn kind(&self) -> &'static str {
        self.kind
    }

    /// The compiled netlist and its search backends, taken out to play the match another
    /// way (under the GDL-II protocol: [`super::hidden::HiddenPlay`]); `None` over the
    /// interpreter. The match cannot be played with `self` afterwards.
    pub fn take_net(self) -> Option<(Netlist, Vec<Box<dyn Backend>>)> {
        let mut play = self.play;
        play.take_net()
    }

    /// See [`Line::apply`].
    ///
    /// # Errors
    /// The machine's error.
    pub fn apply(&mut self, moves: &[String]) -> Result<Vec<String>, MachineError> {
        self.play.apply(moves)
    }

    /// See [`Line::legal_texts`].
    pub fn legal_texts(&mut self) -> Vec<String> {
        self.play.legal_texts()
    }

    /// See [`Line::think`].
    ///
    /// # Errors
    /// The machine's error.
    pub fn think(
        &mut self,
        deadline: Instant,
        quick_forced: bool,
        publish: &mut dyn FnMut(usize),
    ) -> Result<Think, MachineError> {
        self.play.think(deadline, quick_forced, publish)
    }
}

/// A second state machine of a match, for the reply path alone: the reference interpreter
/// at the state after the joint moves it was given. When the deadline of a PLAY comes
/// before the worker has applied the PLAY's moves (busy searching, or with its tree), the
/// connection thread asks it for a legal move of the current state instead of sending
/// a move of an earlier state (issue #42, round two, item 11).
pub struct Shadow {
    machine: Box<InterpMachine>,
    state: interp::State,
    /// How many joint moves `state` is after the initial state.
    applied: usize,
    /// Set when a joint move could not be applied: the state is no longer the match's.
    broken: bool,
    role: usize,
    spelling: std::sync::Arc<super::spelling::Spelling>,
}

impl Shadow {
    /// The interpreter of `program` at the initial state, for our `role`; moves are
    /// spelled back with `spelling`.
    ///
    /// # Errors
    /// The interpreter cannot run the game.
    pub fn new(
        program: &propnet_compiler::gdl::Program,
        role: usize,
        spelling: std::sync::Arc<super::spelling::Spelling>,
    ) -> Result<Self, String> {
        let mut machine = Box::new(InterpMachine::lenient(program).map_err(|e| e.to_string())?);
        let state = machine.initial_state().map_err(|e| e.to_string())?;
        Ok(Self {
            machine,
            state,
            applied: 0,
            broken: false,
            role,
            spelling,
        })
    }

    /// Our first legal move (spelled as in the rules) in the state after the joint moves `history`
    /// (each a canonical text per role; a move that is not legal is replaced by the role's
    /// first legal move, as [`Line::apply`] does). `Ok(None)` when the game is over there.
    ///
    /// # Errors
    /// The machine's error, or a history that does not continue the one given before.
    pub fn first_legal_after(&mut self, history: &[Vec<String>]) -> Result<Option<String>, String> {
        if self.broken || history.len() < self.applied {
            return Err("the interpreter's copy of the match is out of step".into());
        }
        for moves in &history[self.applied..] {
            if let Err(e) = self.apply(moves) {
                self.broken = true;
                return Err(e);
            }
            self.applied += 1;
        }
        let view = self.machine.view(&self.state).map_err(|e| e.to_string())?;
        if view.ends() {
            return Ok(None);
        }
        Ok(view
            .legal
            .get(self.role)
            .and_then(|ms| ms.first())
            .map(|&m| self.spelling.respell(&self.machine.move_text(m))))
    }

    fn apply(&mut self, moves: &[String]) -> Result<(), String> {
        let view = self.machine.view(&self.state).map_err(|e| e.to_string())?;
        if view.ends() {
            return Err("moves after the end of the game".into());
        }
        let joint: Vec<GroundTermId> = view
            .legal
            .iter()
            .enumerate()
            .map(|(r, ms)| {
                let given = moves.get(r).map(String::as_str).unwrap_or("");
                *ms.iter()
                    .find(|&&m| self.machine.move_text(m) == given)
                    .unwrap_or(&ms[0])
            })
            .collect();
        self.state = self
            .machine
            .next_state(&self.state, &joint)
            .map_err(|e| e.to_string())?;
        Ok(())
    }
}
