//! The search tree of [`super::BeliefPlayer`]: single-observer information-set MCTS
//! (SO-ISMCTS; Cowling, Powley & Whitehouse, "Information Set Monte Carlo Tree Search",
//! IEEE TCIAIG 4(2), 2012), for simultaneous moves and a chance role.
//!
//! Each iteration draws a state of the belief (a determinization) and walks the one tree
//! from its root (the player's information set now): at each node every role picks a
//! move legal in *that* state by UCB1 over its own statistics of the node (decoupled, as
//! simultaneous-move UCT does), counting for each legal move that it was available
//! (ISMCTS's availability, so a move legal in few determinizations is not starved); the
//! `random` role draws uniformly. A node is one of the searching player's information
//! sets: its children are keyed by what the player observes of the joint move, its own
//! move and its percepts ([`ObsKey`]), never by the others' hidden moves, so its own
//! later choices cannot depend on what it could not know (no strategy fusion). An
//! observation not seen at the node makes a new child, where the walk stops and the
//! rollouts start. Rewards are goals scaled to 0..1, each role's own.

use propnet_netlist::InputId;
use rustc_hash::FxHashMap;

/// Per role, one move's statistics at a node.
#[derive(Clone, Debug, Default)]
pub(super) struct Edge {
    pub visits: f64,
    pub reward: f64,
    /// Iterations at this node in which the move was legal.
    pub available: f64,
}

/// What the searching player observes of one joint move: its own move's index, then the
/// indices of its percepts (ascending).
pub(super) type ObsKey = Vec<u32>;

/// One node: per role, its moves' statistics; children by observation.
#[derive(Default)]
pub(super) struct HNode {
    pub edges: Vec<FxHashMap<InputId, Edge>>,
    pub children: FxHashMap<ObsKey, usize>,
}

/// Nodes past which a tree kept across moves is dropped instead (memory bound).
pub(super) const MAX_KEPT_NODES: usize = 1 << 20;

/// The tree: an arena of nodes and its root (the player's information set now; the tree
/// is kept across moves, see [`HTree::advance`]).
pub(super) struct HTree {
    pub nodes: Vec<HNode>,
    /// The root node.
    pub root: usize,
    roles: usize,
}

impl HTree {
    /// A tree with only its root.
    pub fn new(roles: usize) -> Self {
        let mut t = HTree {
            nodes: Vec::new(),
            root: 0,
            roles,
        };
        t.add();
        t
    }

    fn add(&mut self) -> usize {
        self.nodes.push(HNode {
            edges: vec![FxHashMap::default(); self.roles],
            children: FxHashMap::default(),
        });
        self.nodes.len() - 1
    }

    /// Role `r`'s move at node `n` among `legal` (non-empty) by UCB1 with availability
    /// counts; the counts of every legal move are raised. Untried moves first, in order.
    pub fn select(&mut self, n: usize, r: usize, legal: &[InputId], c: f64) -> InputId {
        let edges = &mut self.nodes[n].edges[r];
        for m in legal {
            edges.entry(*m).or_default().available += 1.0;
        }
        let score = |e: &Edge| match e.visits {
            0.0 => f64::INFINITY,
            v => e.reward / v + c * (e.available.ln() / v).sqrt(),
        };
        let mut best = legal[0];
        let mut best_score = f64::NEG_INFINITY;
        for m in legal {
            let s = score(&edges[m]);
            if s > best_score {
                (best, best_score) = (*m, s);
            }
        }
        best
    }

    /// The child of `n` by the observation `key`, created when missing; `true` when it was
    /// created.
    pub fn child(&mut self, n: usize, key: &[u32]) -> (usize, bool) {
        if let Some(&c) = self.nodes[n].children.get(key) {
            return (c, false);
        }
        let c = self.add();
        self.nodes[n].children.insert(key.to_vec(), c);
        (c, true)
    }

    /// Adds a visit to each role's move of `joint` at `n`, with no reward yet (a virtual
    /// loss until [`HTree::reward`] adds it: the leaves of one batch spread out).
    pub fn visit(&mut self, n: usize, joint: &[InputId]) {
        for (r, m) in joint.iter().enumerate() {
            self.nodes[n].edges[r].entry(*m).or_default().visits += 1.0;
        }
    }

    /// Adds `reward` (per role, 0..1) to each role's move of `joint` at `n`.
    pub fn reward(&mut self, n: usize, joint: &[InputId], reward: &[f64]) {
        for (r, m) in joint.iter().enumerate() {
            self.nodes[n].edges[r].entry(*m).or_default().reward += reward[r];
        }
    }

    /// Visits of role `r`'s move `m` at the root.
    pub fn root_visits(&self, r: usize, m: InputId) -> f64 {
        self.nodes[self.root].edges[r]
            .get(&m)
            .map_or(0.0, |e| e.visits)
    }

    /// Moves the root to its child by the observation `key` (what the player saw of the
    /// joint move just played), keeping that subtree's statistics; returns false, leaving
    /// a fresh tree, when the search never reached that observation or the arena holds
    /// more than [`MAX_KEPT_NODES`] (the nodes above the root are not freed until then).
    pub fn advance(&mut self, key: &[u32]) -> bool {
        match self.nodes[self.root].children.get(key) {
            Some(&c) if self.nodes.len() <= MAX_KEPT_NODES => {
                self.root = c;
                true
            }
            _ => {
                *self = HTree::new(self.roles);
                false
            }
        }
    }
}
