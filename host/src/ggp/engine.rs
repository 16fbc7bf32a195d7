//! The player's game engine: the model (compiled netlist, or the reference interpreter as
//! the fallback), the current state and the search tree kept across moves.

use crate::backend::Backend;
use crate::machine::State;
use crate::mcts::{Budget, GameModel, InterpModel, MctsParams, ModelError, NetModel, Search};
use propnet_compiler::interp::{self, GroundTermId};
use propnet_netlist::{InputId, Netlist};
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
}

/// The state and tree of one match over one model.
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
    /// The initial position of `model` for our `role`, with an empty tree.
    ///
    /// # Errors
    /// The model's error.
    pub fn start<G: GameModel<State = S, Move = M>>(
        model: &mut G,
        role: usize,
        params: MctsParams,
    ) -> Result<Self, ModelError> {
        let state = model.initial_state()?;
        let mut search = Search::for_model(params);
        search.set_root(model, state.clone())?;
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
    /// The model's error.
    pub fn apply<G: GameModel<State = S, Move = M>>(
        &mut self,
        model: &mut G,
        moves: &[String],
    ) -> Result<Vec<String>, ModelError> {
        let legal = self
            .search
            .tree()
            .node(self.search.tree().root())
            .legal
            .clone();
        let mut problems = Vec::new();
        if moves.len() != legal.len() {
            problems.push(format!("{} moves for {} roles", moves.len(), legal.len()));
        }
        let mut joint = Vec::with_capacity(legal.len());
        for (r, ms) in legal.iter().enumerate() {
            let given = moves.get(r).map(String::as_str).unwrap_or("");
            match ms.iter().find(|&&m| model.move_text(m) == given) {
                Some(&m) => joint.push(m),
                None => {
                    let Some(&first) = ms.first() else {
                        problems.push("the game is already over".to_string());
                        return Ok(problems);
                    };
                    problems.push(format!(
                        "move `{given}` of role {r} is not legal here; assuming `{}`",
                        model.move_text(first)
                    ));
                    joint.push(first);
                }
            }
        }
        self.state = model.next_state(&self.state, &joint)?;
        self.search.advance(model, &joint, self.state.clone())?;
        Ok(problems)
    }

    /// Canonical texts of our legal moves in the current state.
    pub fn legal_texts<G: GameModel<State = S, Move = M>>(&self, model: &G) -> Vec<String> {
        let root = self.search.tree().node(self.search.tree().root());
        root.legal
            .get(self.role)
            .map(|ms| ms.iter().map(|&m| model.move_text(m)).collect())
            .unwrap_or_default()
    }

    /// Searches until `deadline` (or not at all when the move is forced and `quick_forced`)
    /// and returns the most-visited move; `publish` gets the index (into
    /// [`Line::legal_texts`]) of the best move so far whenever it changes.
    ///
    /// # Errors
    /// The model's error.
    pub fn think<G: GameModel<State = S, Move = M>>(
        &mut self,
        model: &mut G,
        deadline: Instant,
        quick_forced: bool,
        publish: &mut dyn FnMut(usize),
    ) -> Result<Think, ModelError> {
        let texts = self.legal_texts(model);
        if texts.is_empty() {
            return Ok(Think::default());
        }
        let mut result = None;
        if !(quick_forced && texts.len() == 1) {
            let role = self.role;
            let mut last = None;
            let mut on_batch = |s: &Search<S, M>| {
                let best = s.best_index_now(role);
                if best != last {
                    last = best;
                    if let Some(i) = best {
                        publish(i);
                    }
                }
            };
            result = Some(
                self.search
                    .search(model, Budget::Deadline(deadline), &mut on_batch)?,
            );
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
            },
            None => Think {
                text: texts[best].clone(),
                nodes: self.search.tree().nodes.len(),
                legal: texts.len(),
                ..Think::default()
            },
        })
    }
}

/// The model a match is played with.
pub enum Engine {
    /// The compiled netlist, rollouts on a backend.
    Net {
        /// The netlist.
        net: Netlist,
        /// Its backend.
        backend: Box<dyn Backend>,
        /// State and tree.
        line: Line<State, InputId>,
    },
    /// The reference interpreter (the game could not be compiled in time or at all).
    Interp {
        /// The interpreter.
        model: Box<InterpModel>,
        /// State and tree.
        line: Line<interp::State, GroundTermId>,
    },
}

/// Runs `$body` with `$m` bound to the engine's model and `$l` to its line.
macro_rules! with_model {
    ($engine:expr, $m:ident, $l:ident, $body:expr) => {
        match $engine {
            Engine::Net { net, backend, line } => {
                let mut model = NetModel::new(net, backend.as_mut());
                let $m = &mut model;
                let $l = line;
                $body
            }
            Engine::Interp { model, line } => {
                let $m = model.as_mut();
                let $l = line;
                $body
            }
        }
    };
}

impl Engine {
    /// The netlist engine at the initial state.
    ///
    /// # Errors
    /// The model's error.
    pub fn net(
        net: Netlist,
        mut backend: Box<dyn Backend>,
        role: usize,
        params: MctsParams,
    ) -> Result<Self, ModelError> {
        let line = Line::start(&mut NetModel::new(&net, backend.as_mut()), role, params)?;
        Ok(Engine::Net { net, backend, line })
    }

    /// The interpreter engine at the initial state.
    ///
    /// # Errors
    /// The model's error.
    pub fn interp(
        mut model: Box<InterpModel>,
        role: usize,
        params: MctsParams,
    ) -> Result<Self, ModelError> {
        let line = Line::start(model.as_mut(), role, params)?;
        Ok(Engine::Interp { model, line })
    }

    /// `netlist` or `interpreter`, and the model's description.
    pub fn describe(&mut self) -> String {
        with_model!(self, m, _l, m.describe())
    }

    /// Short name of the model: `netlist` or `interpreter`.
    pub fn kind(&self) -> &'static str {
        match self {
            Engine::Net { .. } => "netlist",
            Engine::Interp { .. } => "interpreter",
        }
    }

    /// See [`Line::apply`].
    ///
    /// # Errors
    /// The model's error.
    pub fn apply(&mut self, moves: &[String]) -> Result<Vec<String>, ModelError> {
        with_model!(self, m, l, l.apply(m, moves))
    }

    /// See [`Line::legal_texts`].
    pub fn legal_texts(&mut self) -> Vec<String> {
        with_model!(self, m, l, l.legal_texts(m))
    }

    /// See [`Line::think`].
    ///
    /// # Errors
    /// The model's error.
    pub fn think(
        &mut self,
        deadline: Instant,
        quick_forced: bool,
        publish: &mut dyn FnMut(usize),
    ) -> Result<Think, ModelError> {
        with_model!(self, m, l, l.think(m, deadline, quick_forced, publish))
    }
}
