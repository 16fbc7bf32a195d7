//! One pass of the tree policy over the shared tree: select a leaf by decoupled UCB1 under
//! virtual loss, creating at most one node, and later back-propagate its rewards.
//!
//! Algorithm: UCT (Kocsis & Szepesvári, "Bandit based Monte-Carlo planning", ECML 2006) with
//! *decoupled* selection for simultaneous moves (each role picks its move by UCB1 over its own
//! statistics; the joint move names the child), as in CadiaPlayer (Finnsson & Björnsson 2008)
//! and Lanctot et al., "Monte Carlo tree search in simultaneous move games" (2013). In
//! turn-taking games every idle role has one legal move, so this is plain UCT. Virtual loss
//! (Chaslot, Winands & van den Herik, "Parallel Monte-Carlo tree search", CG 2008) spreads
//! the leaves that are pending at once, in one batch or in other workers' batches.

use super::grave::{self, Keys};
use super::params::MctsParams;
use super::tree::{Node, NodeId, Tree};
use propnet_netlist::rng::{choose, key, threefry2x32_20};
use propnet_runtime::machine::{Expand, MachineError};
use rustc_hash::FxHashMap;
use smallvec::SmallVec;

/// Per-role move indices of one joint move (inline up to four roles).
pub(crate) type MoveIndices = SmallVec<[u32; 4]>;

/// Key offset separating tree-policy draws from rollout draws of the same seed.
const TREE_KEY: u64 = 0x7265_655f_7563_7421;

/// A leaf selected for evaluation and the path that led to it.
#[derive(Debug, Default)]
pub(crate) struct Leaf {
    /// The nodes from the root down to the leaf's parent (inline up to 32: no allocation
    /// per descent in most games).
    path: SmallVec<[NodeId; 32]>,
    /// The chosen move index of every role at each node of `path`, `roles` per node.
    moves: SmallVec<[u32; 64]>,
    /// The selected node (once created, when `new_child` was set).
    pub node: NodeId,
    /// While the leaf is a child not created yet: its number in the batch's
    /// [`NewChildren`].
    pub new_child: Option<u32>,
}

/// The children a batch of descents asked for, not created yet: their parent and joint
/// move, numbered in order.
#[derive(Debug)]
pub(crate) struct NewChildren<M> {
    /// Parent, per-role move indices and joint move (one move per role) of each new child.
    parents: Vec<(NodeId, MoveIndices, Vec<M>)>,
    /// Number of each `(parent, per-role move indices)` asked for.
    index: FxHashMap<(NodeId, MoveIndices), u32>,
}

impl<M> Default for NewChildren<M> {
    fn default() -> Self {
        Self {
            parents: Vec::new(),
            index: FxHashMap::default(),
        }
    }
}

impl Leaf {
    /// `(node, per-role move indices)` from the root down to the leaf's parent.
    pub(crate) fn steps(&self) -> impl DoubleEndedIterator<Item = (NodeId, &[u32])> {
        let roles = self.moves.len() / self.path.len().max(1);
        self.path
            .iter()
            .copied()
            .zip(self.moves.chunks(roles.max(1)))
    }
}

/// The tree and the counters that number its random draws and rollouts: what the workers of
/// one search share (behind one lock when there are several).
pub(crate) struct Core<S, M> {
    pub tree: Tree<S, M>,
    /// Tree-policy draws made so far (the counter of [`Core::draw`]).
    pub draws: u64,
    /// Global index of the next rollout (the RNG counter of the backend's playouts).
    pub next_playout: u32,
    /// How moves are numbered in AMAF tables, when GRAVE is on and the model numbers them
    /// ([`crate::grave`]).
    pub keys: Option<Keys<M>>,
}

impl<S: Clone, M: Copy + Eq + std::hash::Hash + std::fmt::Debug> Core<S, M> {
    /// The next tree-policy random draw (deterministic in seed and call count), without
    /// counting it: the caller then adds one to [`Core::draws`].
    fn next_draw(&self, seed: u64) -> u32 {
        let n = self.draws + 1;
        threefry2x32_20(key(seed ^ TREE_KEY), [n as u32, (n >> 32) as u32])[0]
    }

    /// UCB1 choice of `role` at `node`; untried moves first, exact ties broken at random
    /// (the tied moves in model order, one draw picks among them).
    /// With GRAVE, `reference` is the nearest node above `node` on the descent that has
    /// an AMAF table.
    fn ucb_choice(
        &mut self,
        params: &MctsParams,
        node: NodeId,
        role: usize,
        reference: Option<NodeId>,
    ) -> u32 {
        let n = self.tree.node(node);
        let stats = n.role_stats(role);
        if stats.len() == 1 {
            return 0;
        }
        let ln_n = f64::from(n.visits + n.virtual_visits).max(1.0).ln();
        let c = params.exploration_at(n.visits);
        let amaf = self.grave_table(node, reference);
        let legal = &n.legal[role];
        let score = |i: usize, s: &super::tree::MoveStats| {
            let v = s.visits + s.virtual_visits;
            if let Some(x) = s.exact {
                x // proven: nothing left to explore (see crate::solve)
            } else if let Some((table, key)) = amaf {
                let a = table[key(legal[i]) as usize];
                grave::score(
                    params,
                    c,
                    ln_n,
                    (s.visits, s.virtual_visits),
                    s.reward_sum,
                    a,
                )
                .unwrap_or(f64::INFINITY)
            } else if v == 0 {
                f64::INFINITY
            } else {
                let nv = f64::from(v);
                s.reward_sum / nv + c * (ln_n / nv).sqrt()
            }
        };
        let mut best = f64::NEG_INFINITY;
        let mut first = 0;
        let mut ties = 0u32;
        for (i, s) in stats.iter().enumerate() {
            let x = score(i, s);
            if x > best {
                (best, first, ties) = (x, i, 1);
            } else if x == best {
                ties += 1;
            }
        }
        if ties == 1 {
            return first as u32;
        }
        // the draw is taken from the counter after the scores' borrow of the tree ends
        let pick = choose(self.next_draw(params.seed), ties);
        let mut seen = 0;
        let mut chosen = first;
        for (i, s) in stats.iter().enumerate().skip(first) {
            if score(i, s) == best {
                if seen == pick {
                    chosen = i;
                    break;
                }
                seen += 1;
            }
        }
        self.draws += 1;
        chosen as u32
    }

    /// Descends from the root by decoupled UCB1 to a leaf: a node of the tree, or the
    /// child of a joint move not created yet. Such a child is numbered in `batch` (the
    /// same joint move reached twice in one batch is one child) and created by
    /// [`Core::create`] once the batch's descents are done, so that the children of a batch
    /// are evaluated together ([`propnet_runtime::machine::GameMachine::expand`]).
    pub fn descend(&mut self, params: &MctsParams, batch: &mut NewChildren<M>) -> Leaf {
        let mut leaf = Leaf::default();
        let mut id = self.tree.root();
        let mut chosen = MoveIndices::new();
        let mut reference = None;
        loop {
            let n = self.tree.node(id);
            if n.exact.is_some()
                || (id != self.tree.root() && n.visits + n.virtual_visits < params.expand_threshold)
            {
                leaf.node = id;
                return leaf;
            }
            let roles = n.legal.len();
            chosen.clear();
            for r in 0..roles {
                let m = self.ucb_choice(params, id, r, reference);
                chosen.push(m);
            }
            if self.tree.node(id).amaf.is_some() {
                reference = Some(id);
            }
            let n = self.tree.node(id);
            if let Some(child) = n.child(&chosen) {
                leaf.path.push(id);
                leaf.moves.extend_from_slice(&chosen);
                id = child;
                continue;
            }
            let key = (id, chosen.clone());
            let k = match batch.index.get(&key) {
                Some(&k) => k,
                None if self.tree.len() + batch.parents.len() >= params.max_nodes => {
                    leaf.node = id;
                    return leaf;
                }
                None => {
                    let joint = chosen.iter().enumerate();
                    let joint = joint.map(|(r, &m)| n.legal[r][m as usize]).collect();
                    let k = batch.parents.len() as u32;
                    batch.parents.push((id, key.1.clone(), joint));
                    batch.index.insert(key, k);
                    k
                }
            };
            leaf.path.push(id);
            leaf.moves.extend_from_slice(&chosen);
            leaf.new_child = Some(k);
            return leaf;
        }
    }

    /// Creates the children numbered in `batch`, evaluated in one call of `model`; returns
    /// their ids by number. `batch` is left empty.
    ///
    /// # Errors
    /// The model's error (no child is created then).
    pub fn create(
        &mut self,
        model: &mut dyn Expand<S, M>,
        batch: &mut NewChildren<M>,
    ) -> Result<Vec<NodeId>, MachineError> {
        batch.index.clear();
        if batch.parents.is_empty() {
            return Ok(Vec::new());
        }
        let pairs: Vec<(&S, &[M])> = (batch.parents.iter())
            .map(|(p, _, joint)| (&self.tree.node(*p).state, joint.as_slice()))
            .collect();
        let evaluated = model.expand(&pairs);
        let parents = std::mem::take(&mut batch.parents);
        let mut ids = Vec::with_capacity(parents.len());
        for ((parent, moves, _), (state, view)) in parents.into_iter().zip(evaluated?) {
            let child = (self.tree).add_child(parent, &moves, Node::from_view(state, view));
            ids.push(child);
        }
        Ok(ids)
    }

    /// Adds (`add`) or removes the virtual loss of `leaf` along its path.
    /// A leaf whose node is not created yet has it on its path only.
    pub fn virtual_loss(&mut self, params: &MctsParams, leaf: &Leaf, add: bool) {
        let vl = params.virtual_loss;
        for (id, moves) in leaf.steps() {
            self.tree.node_mut(id).virtual_loss(moves, vl, add);
        }
        if leaf.new_child.is_none() {
            self.tree.node_mut(leaf.node).virtual_loss(&[], vl, add);
        }
    }

    /// Adds (`add`) or removes the virtual loss of node `id` itself (not its path).
    pub fn node_virtual_loss(&mut self, params: &MctsParams, id: NodeId, add: bool) {
        self.tree
            .node_mut(id)
            .virtual_loss(&[], params.virtual_loss, add);
    }

    /// Records one visit with per-role `rewards` (0..1) along `leaf`'s path, first removing
    /// its virtual loss when it had one; then, with [`MctsParams::solver`], proves what the
    /// leaf's exact value proves above it.
    /// With GRAVE, `amaf` is the rollouts' move sums and their number of playouts.
    pub fn backpropagate(
        &mut self,
        params: &MctsParams,
        leaf: &Leaf,
        rewards: &[f64],
        had_virtual_loss: bool,
        amaf: (&[propnet_runtime::backend::AmafSum], u64),
    ) {
        if had_virtual_loss {
            self.virtual_loss(params, leaf, false);
        }
        for (id, moves) in leaf.steps() {
            self.tree.node_mut(id).update(moves, rewards);
        }
        self.tree.node_mut(leaf.node).update(&[], rewards);
        self.grave_update(params, leaf, rewards, amaf);
        if params.solver {
            self.prove_upward(leaf);
        }
    }
}
