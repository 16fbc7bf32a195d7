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
use crate::{Budget, MctsParams, Search, SearchResult};
use propnet_netlist::factors::{factor_game, find_factors, outcome_free_moves, FactorGame};
use propnet_netlist::{InputId, Netlist};
use propnet_runtime::backend::{Backend, BackendError};
use propnet_runtime::machine::State;
use std::time::Instant;

/// Builds the search backends of one netlist (the whole game or a factor game).
pub type MakeBackends<'a, E> = dyn FnMut(&Netlist) -> Result<Vec<Box<dyn Backend>>, E> + 'a;

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

/// Plays a sum of games by one UCT tree per factor (see the module docs).
pub struct FactoredPlayer {
    whole: MctsPlayer,
    parts: Vec<Part>,
    params: MctsParams,
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
        let factors = find_factors(net);
        let mut parts = Vec::new();
        if factors.is_factored() {
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
        }
        Ok(Self {
            whole,
            parts,
            params,
            budget,
            totals: SearchTotals::default(),
            factored_moves: 0,
        })
    }

    /// The factors searched apart (none when the game does not factor).
    pub fn factors_searched(&self) -> usize {
        self.parts.len()
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
        for (k, part) in self.parts.iter_mut().enumerate() {
            part.search = Search::new(game_params(&self.params, role, game, k as u64 + 1));
        }
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
        let mine: Vec<usize> = (0..self.parts.len())
            .filter(|&k| {
                legal[role]
                    .iter()
                    .any(|m| self.parts[k].game.own[m.index()])
            })
            .collect();
        if mine.is_empty() {
            return self.whole.choose(net, state, role, legal);
        }
        let share = split(self.budget, mine.len());
        let mut best: Option<Proposal> = None;
        for k in mine {
            let part = &mut self.parts[k];
            let depth = net.roles.len();
            let (res, _) =
                part.search
                    .run_on(&part.game.net, &mut part.backends, state, depth, share)?;
            self.totals.add(&res);
            let Some(p) = propose(&res, role, &part.pass) else {
                continue;
            };
            if best.is_none_or(|b| (p.gain, p.visits) > (b.gain, b.visits)) {
                best = Some(p);
            }
        }
        let pass = legal[role]
            .iter()
            .copied()
            .find(|m| self.parts.iter().all(|p| p.pass[m.index()]));
        match (best, pass) {
            (Some(p), Some(pass)) if p.gain <= 0.0 => {
                self.factored_moves += 1;
                Ok(pass)
            }
            (Some(p), _) if legal[role].contains(&p.input) => {
                self.factored_moves += 1;
                Ok(p.input)
            }
            _ => self.whole.choose(net, state, role, legal),
        }
    }
}

/// `budget` shared by `k` searches run one after the other.
fn split(budget: Budget, k: usize) -> Budget {
    let k = k.max(1) as u32;
    match budget {
        Budget::Iterations(n) => Budget::Iterations((n / u64::from(k)).max(1)),
        Budget::Time(d) => Budget::Time(d / k),
        Budget::Deadline(t) => Budget::Time(t.saturating_duration_since(Instant::now()) / k),
    }
}

/// The most-visited move of `role` at the root of `res` that is not a pass, and its gain
/// over the most-visited pass; `None` when every move is a pass (or the root is terminal).
fn propose(res: &SearchResult, role: usize, pass: &[bool]) -> Option<Proposal> {
    let moves = res.roles.get(role)?;
    let top = |want_pass: bool| {
        moves
            .iter()
            .filter(|m| pass[m.input.index()] == want_pass)
            .max_by(|a, b| {
                (a.visits, a.value)
                    .partial_cmp(&(b.visits, b.value))
                    .unwrap_or(std::cmp::Ordering::Equal)
            })
    };
    let play = top(false)?;
    let gain = top(true).map_or(f64::INFINITY, |p| play.value - p.value);
    Some(Proposal {
        input: play.input,
        gain,
        visits: play.visits,
    })
}

#[cfg(test)]
#[path = "factored_tests.rs"]
mod tests;
