//! The search tree of [`super::BeliefPlayer`]: single-observer information-set MCTS
//! (SO-ISMCTS; Cowling, Powley & Whitehouse, "Information Set Monte Carlo Tree Search",
//! IEEE TCIAIG 4(2), 2012), for simultaneous moves and a chance role.
//!
//! Multiple-observer ISMCTS (MO-ISMCTS, same paper): one tree per role, each over that
//! role's information sets. Each iteration draws a state of the belief (a determinization)
//! and walks every role's tree from its root at once: at each step every role picks a
//! move legal in *that* state by UCB1 over the statistics of its own current node,
//! counting for each legal move that it was available (ISMCTS's availability, so a move
//! legal in few determinizations is not starved); the `random` role draws uniformly. Then
//! each role goes down its own tree by what *it* observes of the joint move, its own move
//! and its percepts ([`ObsKey`]), never by what is hidden from it: the searching player's
//! later choices cannot depend on what it could not know (no strategy fusion), and each
//! opponent chooses knowing what it knows (its own hidden pieces, say) and no more. An
//! observation not seen at a node makes a new child, where the walk stops and the
//! rollouts start. Rewards are goals scaled to 0..1, each role's own.

use propnet_netlist::InputId;
use rustc_hash::FxHashMap;

/// One move's statistics at a node.
#[derive(Clone, Debug, Default)]
pub(super) struct Edge {
    pub visits: f64,
    pub reward: f64,
    /// Iterations at this node in which the move was legal.
    pub available: f64,
}

/// What a role observes of one joint move: its own move's index, then the indices of its
/// percepts (ascending).
pub(super) type ObsKey = Vec<u32>;

/// One node of one role's tree: the role's moves' statistics; children by observation.
#[derive(Default)]
pub(super) struct HNode {
    pub edges: FxHashMap<InputId, Edge>,
    pub children: FxHashMap<ObsKey, usize>,
}

/// Nodes past which a tree kept across moves is dropped instead (memory bound).
pub(super) const MAX_KEPT_NODES: usize = 1 << 20;

/// Every role's tree in one arena, with each role's root (its information set now; the
/// searching player's tree is kept across moves, see [`HTree::advance`]).
pub(super) struct HTree {
    pub nodes: Vec<HNode>,
    /// Each role's root node.
    pub roots: Vec<usize>,
}

impl HTree {
    /// Trees of `roles` roles, each only its root.
    pub fn new(roles: usize) -> Self {
        let mut t = HTree {
            nodes: Vec::new(),
            roots: Vec::new(),
        };
        t.roots = (0..roles).map(|_| t.add()).collect();
        t
    }

    fn add(&mut self) -> usize {
        self.nodes.push(HNode::default());
        self.nodes.len() - 1
    }

    /// The owner's move at node `n` among `legal` (non-empty) by UCB1 with availability
    /// counts; the counts of every legal move are raised. Untried moves first, in order.
    pub fn select(&mut self, n: usize, legal: &[InputId], c: f64) -> InputId {
        let edges = &mut self.nodes[n].edges;
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

    /// Adds a visit to move `m` at `n`, with no reward yet (a virtual loss until
    /// [`HTree::reward`] adds it: the leaves of one batch spread out).
    pub fn visit(&mut self, n: usize, m: InputId) {
        self.nodes[n].edges.entry(m).or_default().visits += 1.0;
    }

    /// Adds `reward` (0..1, the owner's) to move `m` at `n`.
    pub fn reward(&mut self, n: usize, m: InputId, reward: f64) {
        self.nodes[n].edges.entry(m).or_default().reward += reward;
    }

    /// Visits of move `m` at role `r`'s root.
    pub fn root_visits(&self, r: usize, m: InputId) -> f64 {
        let n = self.roots[r];
        self.nodes[n].edges.get(&m).map_or(0.0, |e| e.visits)
    }

    /// Moves role `r`'s root to its child by the observation `key` (what `r` saw of the
    /// joint move just played), keeping that subtree's statistics; the other roles' trees
    /// start again (their observations are not known). Returns false, leaving fresh trees,
    /// when the search never reached that observation or the arena holds more than
    /// [`MAX_KEPT_NODES`] (the nodes above the roots are not freed until then).
    pub fn advance(&mut self, r: usize, key: &[u32]) -> bool {
        let roles = self.roots.len();
        match self.nodes[self.roots[r]].children.get(key) {
            Some(&c) if self.nodes.len() <= MAX_KEPT_NODES => {
                for q in 0..roles {
                    self.roots[q] = match q == r {
                        true => c,
                        false => self.add(),
                    };
                }
                true
            }
            _ => {
                *self = HTree::new(roles);
                false
            }
        }
    }
}
