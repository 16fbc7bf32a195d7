//! [`DeterminizedPlayer`]: the perfect-information sampling baseline (PIMC): each move it
//! draws states from its belief and runs a plain UCT search ([`crate::Search`]) on each as
//! if that state were the truth, then plays the move with the most root visits summed over
//! the samples. The same belief as [`super::BeliefPlayer`], so the two differ only in how
//! they search; known to suffer from strategy fusion (Frank & Basin 1998) where the
//! information-set search does not.

use super::seat::{most_visited, Seat};
use super::HiddenPlayer;
use crate::player::SearchTotals;
use crate::{Budget, MctsParams, Search};
use propnet_netlist::{InputId, Netlist};
use propnet_runtime::backend::{Backend, BackendError};
use std::time::{Duration, Instant};

/// UCT searches per move, each on one state drawn from the belief.
pub const SAMPLES_PER_MOVE: u32 = 8;

/// Determinized UCT over a particle belief (see the module docs).
pub struct DeterminizedPlayer {
    label: String,
    backends: Vec<Box<dyn Backend>>,
    params: MctsParams,
    budget: Budget,
    particles: usize,
    seat: Option<Seat>,
    totals: SearchTotals,
}

impl DeterminizedPlayer {
    /// A player that spends `budget` per move over [`SAMPLES_PER_MOVE`] UCT searches with
    /// `params` (rollouts on `backends`, one search worker each), with a belief of
    /// `particles` states.
    pub fn new(
        label: String,
        backends: Vec<Box<dyn Backend>>,
        params: MctsParams,
        budget: Budget,
        particles: usize,
    ) -> Self {
        Self {
            label,
            backends,
            params,
            budget,
            particles,
            seat: None,
            totals: SearchTotals::default(),
        }
    }

    /// The budget of one of the move's searches, `k` of them done.
    fn slice(&self, start: Instant, k: u32) -> Budget {
        let left = SAMPLES_PER_MOVE - k;
        match self.budget {
            Budget::Iterations(n) => Budget::Iterations((n / u64::from(SAMPLES_PER_MOVE)).max(1)),
            Budget::Time(t) => Budget::Time(t.saturating_sub(start.elapsed()) / left),
            Budget::Deadline(d) => {
                let rest = d.saturating_duration_since(Instant::now());
                Budget::Time(rest / left)
            }
        }
    }
}

impl HiddenPlayer for DeterminizedPlayer {
    fn label(&self) -> String {
        self.label.clone()
    }

    fn totals(&self) -> Option<SearchTotals> {
        Some(self.totals)
    }

    fn new_game(&mut self, net: &Netlist, role: usize, game: u64) {
        let seed = self.params.seed;
        self.seat = Some(Seat::new(net, role, game, seed, self.particles));
    }

    fn choose(&mut self, net: &Netlist, legal: &[InputId]) -> Result<InputId, BackendError> {
        if legal.len() == 1 {
            return Ok(legal[0]);
        }
        let start = Instant::now();
        let mut visits = vec![0u64; legal.len()];
        for k in 0..SAMPLES_PER_MOVE {
            let budget = self.slice(start, k);
            if matches!(budget, Budget::Time(t) if t == Duration::ZERO) {
                break;
            }
            let seat = self.seat.as_mut().expect("new_game first");
            let state = seat.sample();
            let params = MctsParams {
                seed: seat.rng.next_u64(),
                ..self.params.clone()
            };
            let role = seat.role;
            let res = Search::new(params).run_parallel(net, &mut self.backends, &state, budget)?;
            for m in &res.roles[role] {
                if let Some(i) = legal.iter().position(|&l| l == m.input) {
                    visits[i] += u64::from(m.visits);
                }
            }
            let t = &mut self.totals;
            t.iterations += res.iterations;
            t.playouts += res.playouts;
            t.backend_time += res.backend_time;
        }
        self.totals.searches += 1;
        self.totals.elapsed += start.elapsed();
        self.totals.worker_time += start.elapsed();
        Ok(most_visited(legal, |i| visits[i] as f64))
    }

    fn observe(&mut self, net: &Netlist, own: InputId, percepts: &[usize]) {
        if let Some(seat) = self.seat.as_mut() {
            seat.observe(net, own, percepts, self.budget);
        }
    }
}
