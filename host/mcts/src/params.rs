//! Search parameters and budgets of the UCT player, with their documented defaults.

use std::time::Duration;

/// Tuning of [`super::Search`]. All fields have defaults ([`MctsParams::default`]).
#[derive(Clone, Debug, PartialEq)]
pub struct MctsParams {
    /// UCB1 exploration constant `C` in `mean + C·sqrt(ln N / n)`, with goals scaled to
    /// 0..1. Default `0.5`: a leaf's value is the mean of [`Self::playouts_per_leaf`]
    /// rollouts, less noisy than one, so the textbook √2 (or the 1.0 this search had) over-
    /// explores. At equal time 0.5 beat 1.0 on connect four (70.5 ± 8.7 % at 50 ms a move,
    /// 63.0 ± 9.2 % at 200 ms) and breakthrough (55.0 ± 9.9 %, 65.0 ± 9.5 %), 100 games each
    /// (BENCHMARKS.md, "MCTS strength with random openings" and "Exploration 0.5").
    pub exploration: f64,
    /// Where the exploration constant goes as a node's visits grow: at a node with `N`
    /// visits selection uses `C(N) = F + (C − F)·K / (K + N)`, with `C` =
    /// [`Self::exploration`], `F` this and `K` [`Self::exploration_visits`], so a young node
    /// explores with `C` and a well-visited one with about `F`. Default `0.2`: at 200 ms a
    /// move a constant 0.2 beat 0.5 on breakthrough but lost more tic-tac-toe games to a
    /// random player at 100-300 iterations a move; going from 0.5 to 0.2 keeps both
    /// (BENCHMARKS.md, "Exploration that shrinks with the visits").
    pub exploration_final: f64,
    /// `K` of [`Self::exploration_final`]: the visits at which a node's exploration
    /// constant is halfway from `C` to `F`; `0` keeps `C` at every node. Default `100`.
    pub exploration_visits: u32,
    /// Visits (real plus virtual) a node needs before selection descends through it and
    /// creates its children; until then its rollouts start at the node itself. A node is
    /// created by the first iteration that reaches it and is that iteration's leaf, so `0`
    /// and the default `1` (classic UCT: one new node per iteration) behave alike; larger
    /// values grow the tree more slowly and save memory. The root is always expanded.
    pub expand_threshold: u32,
    /// Rollouts run from each selected leaf (one [`propnet_runtime::backend::Job`] of this many
    /// playouts). The leaf's value is their mean and counts as one visit. Default `16`
    /// (a bit-parallel backend runs 64 lanes for about the cost of one).
    pub playouts_per_leaf: u32,
    /// Leaves collected per backend call (tree parallelism with virtual loss): each selected
    /// leaf adds a virtual loss along its path so the next selections spread out; the
    /// batch's rollouts go to the backend as one request with one job per leaf. Default
    /// `16`: with 16 playouts per leaf a batch fills 256 lanes of the bit-parallel CPU
    /// backend (one leaf per call is ~5× slower there). Larger shapes run more playouts
    /// per second but grow the tree more slowly; at equal time on connect four 4 × 256
    /// lost to 16 × 16 (BENCHMARKS.md, "MCTS").
    pub leaves_per_batch: u32,
    /// Virtual loss per pending leaf: `virtual_loss` visits with reward 0 added to every
    /// move statistic on the path until the leaf's result is back-propagated. Default `1`.
    pub virtual_loss: u32,
    /// Most nodes the tree may hold; beyond it selection stops creating nodes and rolls
    /// out from the node where it would have expanded (bounds memory on long clocks).
    /// Default `2_000_000` (a few hundred MB for small games).
    pub max_nodes: usize,
    /// Rollout depth cut-off in joint moves ([`propnet_runtime::backend::BatchRequest::max_steps`]);
    /// a cut playout scores the goals of the state where it stopped. Default `1000`.
    pub max_steps: u32,
    /// MCTS-Solver ([`crate::solve`]): prove won, lost and drawn nodes in the tree, stop
    /// searching proven ones, play a proven win at once. Default `false` (plain UCT): at
    /// equal time it neither won nor lost against plain UCT on connect four and
    /// breakthrough (BENCHMARKS.md, "MCTS strength with random openings").
    pub solver: bool,
    /// GRAVE ([`crate::grave`]): a node with at least this many visits keeps all-moves-as-
    /// first statistics of the moves played below it, and selection blends each move's
    /// mean with that move's AMAF mean at the nearest such node on the path (the node
    /// itself or an ancestor). `0` (the default): plain UCT. Needs a model whose rollouts
    /// report move sums ([`propnet_runtime::machine::GameMachine::amaf_keys`]: a netlist
    /// on the CPU simulator, streamed); elsewhere only the tree's own moves feed the tables.
    /// Off by default: at equal time it lost to plain UCT on connect four and did not beat
    /// it on breakthrough, where it costs 30-40 % of the iterations (BENCHMARKS.md, "GRAVE").
    pub grave_ref: u32,
    /// GRAVE's bias `b` in the weight of the AMAF mean,
    /// `β = a / (a + n + b·a·n)` (`n` the move's visits, `a` its AMAF visits, both counted
    /// in iterations): the smaller, the longer AMAF counts. Default `0.01` (at `1e-4` GRAVE
    /// did much worse on both games).
    pub grave_bias: f64,
    /// Of each role's legal moves that can never change the outcome (a netlist's
    /// [`propnet_netlist::factors::outcome_free_moves`]: moves that change only fluents from
    /// which no goal, terminal or legal move can be reached), the tree keeps only the first; the others lead to
    /// equivalent states. Default `true`: it changes only games where a role has two such
    /// moves at once. Applies to netlist searches ([`super::Search::run`] and the GGP
    /// player), not to a machine given to [`super::Search::search`].
    pub merge_free_moves: bool,
    /// Stream rollouts where the model can as fast as batches of `leaves_per_batch ×
    /// playouts_per_leaf` ([`GameMachine::streams`]: a netlist on the CPU simulator when
    /// such a batch would run on one thread): the backend's lanes take the playouts of
    /// new leaves as others finish, and each leaf is back-propagated once its playouts
    /// are done, instead of batch by batch (`leaves_per_batch` then bounds the leaves
    /// selected at once). Default `true`.
    ///
    /// [`GameMachine::streams`]: propnet_runtime::machine::GameMachine::streams
    pub stream: bool,
    /// RNG seed (key of [`propnet_netlist::rng`]) for rollouts and tie-breaking. Same seed,
    /// same budget in iterations, one thread ⇒ same tree and same move.
    pub seed: u64,
    /// Raised by another thread to end a search early, like a budget running out (a GGP
    /// match that is stopped or aborted mid-move). Never raised by default.
    pub stop: propnet_netlist::Cancel,
}

impl MctsParams {
    /// The exploration constant at a node with `visits` visits (see
    /// [`Self::exploration_final`]).
    pub fn exploration_at(&self, visits: u32) -> f64 {
        if self.exploration_visits == 0 {
            return self.exploration;
        }
        let k = f64::from(self.exploration_visits);
        self.exploration_final
            + (self.exploration - self.exploration_final) * k / (k + f64::from(visits))
    }
}

impl Default for MctsParams {
    fn default() -> Self {
        Self {
            exploration: 0.5,
            exploration_final: 0.2,
            exploration_visits: 100,
            expand_threshold: 1,
            playouts_per_leaf: 16,
            leaves_per_batch: 16,
            virtual_loss: 1,
            max_nodes: 2_000_000,
            max_steps: 1000,
            solver: false,
            grave_ref: 0,
            grave_bias: 0.01,
            merge_free_moves: true,
            stream: true,
            seed: 0x5eed,
            stop: propnet_netlist::Cancel::never(),
        }
    }
}

/// How long one search runs.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Budget {
    /// A fixed number of iterations (selected leaves); deterministic.
    Iterations(u64),
    /// Wall-clock time; checked after each batch, so it may overrun by one batch (a model
    /// with slow playouts, the interpreter, also stops inside the batch).
    Time(Duration),
    /// Until this instant; checked like [`Budget::Time`].
    Deadline(std::time::Instant),
}

#[cfg(test)]
mod tests {
    use super::MctsParams;

    #[test]
    fn exploration_goes_from_c_to_the_final_value_with_visits() {
        let constant = MctsParams {
            exploration_visits: 0,
            ..MctsParams::default()
        };
        assert_eq!(constant.exploration_at(0), constant.exploration);
        assert_eq!(constant.exploration_at(1 << 30), constant.exploration);
        let p = MctsParams {
            exploration: 0.5,
            exploration_final: 0.2,
            exploration_visits: 1000,
            ..MctsParams::default()
        };
        assert_eq!(p.exploration_at(0), 0.5);
        assert!((p.exploration_at(1000) - 0.35).abs() < 1e-12);
        assert!((p.exploration_at(u32::MAX) - 0.2).abs() < 1e-6);
        assert!(p.exploration_at(10) > p.exploration_at(100));
    }
}
