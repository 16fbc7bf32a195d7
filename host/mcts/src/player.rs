//! Game players for the match runner: uniform random and MCTS over any backend.

use crate::{Budget, MctsParams, Search, SearchResult};
use propnet_netlist::rng::{choose, key, threefry2x32_20};
use propnet_netlist::{InputId, Netlist};
use propnet_runtime::backend::{Backend, BackendError};
use propnet_runtime::machine::State;

/// Something that picks a move for one role in a state.
pub trait Player {
    /// Short label, e.g. `random` or `mcts:cpu:1000`.
    fn label(&self) -> String;
    /// Search totals so far (iterations, wall time, backend time), for players that search.
    fn totals(&self) -> Option<SearchTotals> {
        None
    }
    /// Called before each game with the seat's role and the game's index (for seeding).
    fn new_game(&mut self, role: usize, game: u64);
    /// Picks one of `legal[role]` (non-empty) in `state`; `legal` holds every role's legal
    /// moves in netlist order.
    ///
    /// # Errors
    /// A [`BackendError`] when the player's backend fails.
    fn choose(
        &mut self,
        net: &Netlist,
        state: &State,
        role: usize,
        legal: &[Vec<InputId>],
    ) -> Result<InputId, BackendError>;
}

/// Accumulated search work of a player over a match.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct SearchTotals {
    /// Searches run (forced moves are not searched).
    pub searches: u64,
    /// Iterations over all searches.
    pub iterations: u64,
    /// Rollouts over all searches.
    pub playouts: u64,
    /// Wall-clock time searching.
    pub elapsed: std::time::Duration,
    /// Time inside the backends, summed over the search workers.
    pub backend_time: std::time::Duration,
    /// Wall-clock time searching times the search's workers.
    pub worker_time: std::time::Duration,
}

impl SearchTotals {
    /// Adds one search's work.
    pub fn add(&mut self, res: &SearchResult) {
        self.searches += 1;
        self.iterations += res.iterations;
        self.playouts += res.playouts;
        self.elapsed += res.elapsed;
        self.backend_time += res.backend_time;
        self.worker_time += res.elapsed * res.workers as u32;
    }
    /// The sum of two players' totals.
    pub fn plus(self, o: SearchTotals) -> SearchTotals {
        SearchTotals {
            searches: self.searches + o.searches,
            iterations: self.iterations + o.iterations,
            playouts: self.playouts + o.playouts,
            elapsed: self.elapsed + o.elapsed,
            backend_time: self.backend_time + o.backend_time,
            worker_time: self.worker_time + o.worker_time,
        }
    }
    /// Iterations per second of search time.
    pub fn iterations_per_second(&self) -> f64 {
        self.iterations as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }
    /// Fraction of the workers' search time spent in their backends.
    pub fn backend_fraction(&self) -> f64 {
        self.backend_time.as_secs_f64() / self.worker_time.as_secs_f64().max(1e-9)
    }
}

/// Plays a uniformly random legal move (project RNG keyed by seed and game, counter = move).
pub struct RandomPlayer {
    seed: u64,
    game: u64,
    step: u32,
}

impl RandomPlayer {
    /// A random player with this seed.
    pub fn new(seed: u64) -> Self {
        Self {
            seed,
            game: 0,
            step: 0,
        }
    }
}

impl Player for RandomPlayer {
    fn label(&self) -> String {
        "random".into()
    }
    fn new_game(&mut self, _role: usize, game: u64) {
        self.game = game;
        self.step = 0;
    }
    fn choose(
        &mut self,
        _net: &Netlist,
        _state: &State,
        role: usize,
        legal: &[Vec<InputId>],
    ) -> Result<InputId, BackendError> {
        let x = threefry2x32_20(
            key(self.seed ^ self.game.rotate_left(32)),
            [self.step, role as u32],
        )[0];
        self.step += 1;
        let ms = &legal[role];
        Ok(ms[choose(x, ms.len() as u32) as usize])
    }
}

/// Plays the most-visited root move of a UCT search with backends of its own (one per
/// search worker, [`Search::run_parallel`]), keeping its tree from move to move
/// ([`Search::run_on`]) unless told otherwise.
pub struct MctsPlayer {
    label: String,
    backends: Vec<Box<dyn Backend>>,
    params: MctsParams,
    budget: Budget,
    search: Search,
    reuse: bool,
    /// Searches that started from a subtree of the previous move's tree.
    pub reused: u64,
    totals: SearchTotals,
    /// The result of the last search (None when the move was forced).
    pub last: Option<SearchResult>,
}

impl MctsPlayer {
    /// A player that searches with `params` for `budget` per move, one search worker per
    /// backend (at least one), rollouts on its backend.
    pub fn new(
        label: String,
        backends: Vec<Box<dyn Backend>>,
        params: MctsParams,
        budget: Budget,
    ) -> Self {
        let search = Search::new(params.clone());
        Self {
            label,
            backends,
            params,
            budget,
            search,
            reuse: true,
            reused: 0,
            totals: SearchTotals::default(),
            last: None,
        }
    }

    /// With `false`, every search starts from a fresh tree (the player before tree reuse).
    pub fn reuse_tree(mut self, on: bool) -> Self {
        self.reuse = on;
        self
    }
}

impl Player for MctsPlayer {
    fn label(&self) -> String {
        self.label.clone()
    }
    fn totals(&self) -> Option<SearchTotals> {
        Some(self.totals)
    }
    fn new_game(&mut self, role: usize, game: u64) {
        self.search = Search::new(game_params(&self.params, role, game, 0));
    }
    fn choose(
        &mut self,
        net: &Netlist,
        state: &State,
        role: usize,
        legal: &[Vec<InputId>],
    ) -> Result<InputId, BackendError> {
        if legal[role].len() == 1 {
            self.last = None;
            return Ok(legal[role][0]);
        }
        let res = if self.reuse {
            // our turns are at most one joint move per role apart
            let depth = net.roles.len();
            let (res, reused) =
                self.search
                    .run_on(net, &mut self.backends, state, depth, self.budget)?;
            self.reused += u64::from(reused);
            res
        } else {
            self.search
                .run_parallel(net, &mut self.backends, state, self.budget)?
        };
        let m = res.best_move(role).unwrap_or(legal[role][0]);
        self.totals.add(&res);
        self.last = Some(res);
        Ok(m)
    }
}

/// `params` with the seed of one game's search: the player's seed mixed with the game's
/// index, the seat's role and `tree` (0 for a player's one tree, `k + 1` for its k-th
/// other tree), so that every search of a match draws its own numbers.
pub(crate) fn game_params(params: &MctsParams, role: usize, game: u64, tree: u64) -> MctsParams {
    let seed = params.seed
        ^ game.wrapping_mul(0x9e37_79b9_7f4a_7c15)
        ^ ((role as u64) << 56)
        ^ tree.wrapping_mul(0xd1b5_4a32_d192_ed03);
    MctsParams {
        seed,
        ..params.clone()
    }
}
