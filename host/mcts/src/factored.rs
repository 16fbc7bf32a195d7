//! A player that searches the factors of a sum of games apart (Sancho: Draper & Rose,
//! "Sancho GGP player", 2014; factors as in Günther, Schiffel & Thielscher, "Factoring
//! General Games", GIGA 2009).
//!
//! [`propnet_netlist::factors::find_factors`] splits a game such as dual connect four (a
//! normal and a suicide board, the game over when either is) into factors; each relevant
//! factor becomes a game of its own ([`propnet_netlist::factors::factor_game`]: the other
//! factors' moves replaced by a pseudo-noop, "play elsewhere") with a UCT tree of its own,
//! whose rollouts play in that factor only. At a move, the trees of the factors where the
//! role has a move of its own share the budget; each proposes its most-visited move, and
//! the move played is the proposal with the largest *gain*: its mean minus the mean of
//! passing in that factor (the pseudo-noop, or a move that changes nothing that counts);
//! when no gain is positive and the role has a move that is a pass in every factor (an
//! inert `noop`), it passes.
//! A role with no move of its own in any factor, and a game that does not factor, is
//! searched as one game, as [`MctsPlayer`] does.
//!
//! The gain rule fits sums where a move is made in one factor at a time and the factors
//! are scored apart (the first board to end decides, or each board adds its goal); it is
//! a heuristic, measured against the whole-game search in BENCHMARKS.md ("Factoring used
//! in search").

use crate::player::{game_params, MctsPlayer, Player, SearchTotals};
use crate::{Budget, MctsParams, Node, Search, Tree};
use propnet_netlist::factors::{factor_game, find_factors, outcome_free_moves, FactorGame};
use propnet_netlist::{InputId, Netlist};
use propnet_runtime::backend::{Backend, BackendError};
use propnet_runtime::machine::State;
use std::time::Instant;

/// Builds the search backends of one netlist (the whole game or a factor game).
pub type MakeBackends<'a, E> = dyn FnMut(&Netlist) -> Result<Vec<Box<dyn Backend>>, E> + 'a;

/// The fewest nodes a factor's tree may hold, however many factors share the limit of one
/// search ([`MctsParams::max_nodes`]).
const MIN_PART_NODES: usize = 50_000;

/// One factor's game, tree and backends.
struct Part {
    game: FactorGame,
    /// Per input of the factor game: a pass within it (its pseudo-noop, or a move that
    /// can never change the outcome there).
    pass: Vec<bool>,
    backends: Vec<Box<dyn Backend>>,
    search: Search,
}

/// What one factor's tree proposes for a role.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Proposal {
    input: InputId,
    /// The move's mean minus passing's (infinite when the role cannot pass there).
    gain: f64,
    visits: u32,
}

/// A move chosen by the factors' trees, and the work it took.
#[derive(Clone, Debug, PartialEq)]
pub struct FactorChoice {
    /// The move (one of the legal moves given).
    pub input: InputId,
    /// The factors' searches, one per factor searched.
    pub totals: SearchTotals,
    /// Nodes in the searched factors' trees afterwards.
    pub nodes: usize,
}

/// The factor games of a sum and their UCT trees: how [`FactoredPlayer`] and the GGP
/// player (`propnet_ggp`) choose a move by the factors (see the module docs).
pub struct FactorSearch {
    parts: Vec<Part>,
    params: MctsParams,
}

impl FactorSearch {
    /// The relevant factors of `net` (valid), each a factor game with backends from
    /// `make`; none when the game does not factor. The trees share `params.max_nodes`
    /// (each holds at most its share, or 50,000 nodes).
    ///
    /// # Errors
    /// `make`'s error.
    pub fn new<E>(
        net: &Netlist,
        make: &mut MakeBackends<'_, E>,
        params: MctsParams,
    ) -> Result<Self, E> {
        let factors = find_factors(net);
        let mut parts = Vec::new();
        if !factors.is_factored() {
            return Ok(Self { parts, params });
        }
        let relevant = factors.factors.iter().filter(|f| f.relevant).count();
        // the trees share the node limit of one search
        let params = MctsParams {
            max_nodes: (params.max_nodes / relevant.max(1)).max(MIN_PART_NODES),
            ..params
        };
        for (f, factor) in factors.factors.iter().enumerate() {
            if !factor.relevant {
                continue;
            }
            let game = factor_game(net, &factors, f);
            let mut pass = outcome_free_moves(&game.net);
            for p in game.elsewhere.iter().flatten() {
                pass[p.index()] = true;
            }
            parts.push(Part {
                backends: make(&game.net)?,
                search: Search::new(params.clone()),
                game,
                pass,
            });
        }
        Ok(Self { parts, params })
    }

    /// The factors searched apart (none when the game does not factor).
    pub fn len(&self) -> usize {
        self.parts.len()
    }

    /// Whether no factor is searched apart (the game does not factor).
    pub fn is_empty(&self) -> bool {
        self.parts.is_empty()
    }

    /// Fresh trees, seeded for `role` in game number `game` (as [`MctsPlayer`]'s, one
    /// stream per factor).
    pub fn new_game(&mut self, role: usize, game: u64) {
        for (k, part) in self.parts.iter_mut().enumerate() {
            part.search = Search::new(game_params(&self.params, role, game, k as u64 + 1));
        }
    }

    /// Chooses `role`'s move among `legal` (its legal moves in `state`, more than one)
    /// by the trees of the factors where it has a move of its own, which share `budget`
    /// one after the other; each tree is kept and found again when the game reaches a
    /// state within `depth` joint moves of its root. `publish` gets the move that would be
    /// chosen now whenever that changes during the searches (a GGP player's best move so
    /// far). `None` when no factor covers the choice (no factor where the role has a move
    /// of its own, or no proposal that is legal): search the whole game then.
    ///
    /// # Errors
    /// A backend's error.
    pub fn choose(
        &mut self,
        state: &State,
        role: usize,
        legal: &[InputId],
        depth: usize,
        budget: Budget,
        publish: &mut dyn FnMut(InputId),
    ) -> Result<Option<FactorChoice>, BackendError> {
        let mine: Vec<usize> = (0..self.parts.len())
            .filter(|&k| legal.iter().any(|m| self.parts[k].game.own[m.index()]))
            .collect();
        if mine.is_empty() {
            return Ok(None);
        }
        let pass = legal
            .iter()
            .copied()
            .find(|m| self.parts.iter().all(|p| p.pass[m.index()]));
        let (mut best, mut published) = (None, None);
        let (mut totals, mut nodes) = (SearchTotals::default(), 0);
        for (n, &k) in mine.iter().enumerate() {
            let share = split(budget, mine.len(), mine.len() - n);
            let Part {
                game,
                pass: part_pass,
                backends,
                search,
            } = &mut self.parts[k];
            let mut progress = |t: &Tree<State, InputId>| {
                let now = t
                    .root_node()
                    .and_then(|node| propose(node, role, part_pass));
                if let Some(m) = decide(better(best, now), pass, legal) {
                    if published != Some(m) {
                        published = Some(m);
                        publish(m);
                    }
                }
            };
            let (res, _) =
                search.run_on_progress(&game.net, backends, state, depth, share, &mut progress)?;
            totals.add(&res);
            nodes += res.nodes;
            let now = search
                .tree()
                .root_node()
                .and_then(|node| propose(node, role, part_pass));
            best = better(best, now);
        }
        Ok(decide(best, pass, legal).map(|input| FactorChoice {
            input,
            totals,
            nodes,
        }))
    }
}

/// Plays a sum of games by one UCT tree per factor (see the module docs).
pub struct FactoredPlayer {
    whole: MctsPlayer,
    factors: FactorSearch,
    budget: Budget,
    totals: SearchTotals,
    /// Moves chosen by a factor's tree (the others were forced or chosen by the whole
    /// game's search).
    pub factored_moves: u64,
}

impl FactoredPlayer {
    /// A player for `net` (valid): its factors found once, a factor game and backends
    /// (from `make`) per relevant factor, and the whole game's search for the moves no
    /// factor covers. `budget` is per move, shared by the factors searched.
    ///
    /// # Errors
    /// `make`'s error.
    pub fn new<E>(
        label: String,
        net: &Netlist,
        make: &mut MakeBackends<'_, E>,
        params: MctsParams,
        budget: Budget,
    ) -> Result<Self, E> {
        let whole = MctsPlayer::new(label, make(net)?, params.clone(), budget);
        Ok(Self {
            whole,
            factors: FactorSearch::new(net, make, params)?,
            budget,
            totals: SearchTotals::default(),
            factored_moves: 0,
        })
    }

    /// The factors searched apart (none when the game does not factor).
    pub fn factors_searched(&self) -> usize {
        self.factors.len()
    }
}

impl Player for FactoredPlayer {
    fn label(&self) -> String {
        self.whole.label()
    }
    fn totals(&self) -> Option<SearchTotals> {
        Some(self.whole.totals()?.plus(self.totals))
    }
    fn new_game(&mut self, role: usize, game: u64) {
        self.whole.new_game(role, game);
        self.factors.new_game(role, game);
    }
    fn choose(
        &mut self,
        net: &Netlist,
        state: &State,
        role: usize,
        legal: &[Vec<InputId>],
    ) -> Result<InputId, BackendError> {
        if legal[role].len() == 1 {
            return Ok(legal[role][0]);
        }
        let depth = net.roles.len();
        let chosen =
            self.factors
                .choose(state, role, &legal[role], depth, self.budget, &mut |_| {})?;
        match chosen {
            Some(c) => {
                self.totals = self.totals.plus(c.totals);
                self.factored_moves += 1;
                Ok(c.input)
            }
            None => self.whole.choose(net, state, role, legal),
        }
    }
}

/// The part of `budget` for the next of `total` searches run one after the other, `left`
/// of them still to run: iterations and time are split evenly; what is left of a deadline
/// is shared by the searches still to run.
fn split(budget: Budget, total: usize, left: usize) -> Budget {
    let (k, left) = (total.max(1) as u32, left.max(1) as u32);
    match budget {
        Budget::Iterations(n) => Budget::Iterations((n / u64::from(k)).max(1)),
        Budget::Time(d) => Budget::Time(d / k),
        Budget::Deadline(t) => Budget::Time(t.saturating_duration_since(Instant::now()) / left),
    }
}

/// The better of two proposals: the larger gain, then more visits.
fn better(a: Option<Proposal>, b: Option<Proposal>) -> Option<Proposal> {
    match (a, b) {
        (Some(x), Some(y)) if (y.gain, y.visits) > (x.gain, x.visits) => Some(y),
        (Some(x), _) => Some(x),
        (None, y) => y,
    }
}

/// The move to play for the best proposal: `pass` (a move that is a pass in every factor)
/// when no proposal gains anything, else the proposal when it is legal.
fn decide(best: Option<Proposal>, pass: Option<InputId>, legal: &[InputId]) -> Option<InputId> {
    match (best, pass) {
        (Some(p), Some(pass)) if p.gain <= 0.0 => Some(pass),
        (Some(p), _) if legal.contains(&p.input) => Some(p.input),
        _ => None,
    }
}

/// The most-visited move of `role` at `root` that is not a pass, and its gain over the
/// most-visited pass; `None` when every move is a pass (or the root is terminal).
fn propose(root: &Node<State, InputId>, role: usize, pass: &[bool]) -> Option<Proposal> {
    let moves = root.legal.get(role)?;
    let stats = root.role_stats(role);
    let top = |want_pass: bool| {
        moves
            .iter()
            .zip(stats)
            .filter(|(m, _)| pass[m.index()] == want_pass)
            .max_by(|(_, a), (_, b)| {
                (a.visits, a.mean())
                    .partial_cmp(&(b.visits, b.mean()))
                    .unwrap_or(std::cmp::Ordering::Equal)
            })
    };
    let (&input, play) = top(false)?;
    let gain = top(true).map_or(f64::INFINITY, |(_, p)| play.mean() - p.mean());
    Some(Proposal {
        input,
        gain,
        visits: play.visits,
    })
}

#[cfg(test)]
#[path = "factored_tests.rs"]
mod tests;
