//! The search tree: an arena of nodes addressed by [`NodeId`], each with decoupled per-role
//! move statistics and its children keyed by joint move. Generic over the model's state
//! `S` and move `M` (netlist states and inputs by default).

use crate::grave::AmafStat;
use propnet_netlist::{InputId, Netlist};
use propnet_runtime::machine::State;
use propnet_runtime::machine::{NetMachine, View};
use rustc_hash::FxHashMap;
use smallvec::SmallVec;

/// Index of a node in a [`Tree`]'s arena.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct NodeId(pub u32);

impl NodeId {
    /// The arena index as `usize`.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// Statistics of one move of one role at one node (decoupled UCT).
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct MoveStats {
    /// Back-propagated visits through this move.
    pub visits: u32,
    /// Pending virtual-loss visits (reward 0) of leaves not yet back-propagated.
    pub virtual_visits: u32,
    /// Sum of this role's rewards (goal / 100, so 0..1 each) over `visits`.
    pub reward_sum: f64,
    /// This role's proven reward (0..1) through this move, when the solver has proven the
    /// move's child ([`crate::MctsParams::solver`]; nodes where this role alone moves).
    pub exact: Option<f64>,
}

impl MoveStats {
    /// Mean reward in 0..1 over real visits (0 when unvisited).
    pub fn mean(&self) -> f64 {
        if self.visits == 0 {
            0.0
        } else {
            self.reward_sum / f64::from(self.visits)
        }
    }
}

/// One game state in the tree.
#[derive(Clone, Debug)]
pub struct Node<S = State, M = InputId> {
    /// The state (for a netlist, one bool per latch).
    pub state: S,
    /// Exact per-role rewards (goal / 100) when the state ends the game (terminal, or a role
    /// has no legal move: the playout rule ends the game there too) or when the solver has
    /// proven the node's value. `None` otherwise. Selection stops at an exact node.
    pub exact: Option<Vec<f64>>,
    /// Legal moves per role (role order, model order); empty lists when the state ends the
    /// game (a proven node keeps its moves).
    pub legal: Vec<Vec<M>>,
    /// Start of each role's block in `stats`, and the end of the last: role `r`'s moves are
    /// `offsets[r]..offsets[r + 1]`. Kept in the node (up to three roles) so that a
    /// descent reads no other block to find a role's statistics or a child.
    offsets: SmallVec<[u32; 4]>,
    /// Move statistics, role by role, one per legal move.
    pub stats: Vec<MoveStats>,
    /// Back-propagated visits of this node.
    pub visits: u32,
    /// Pending virtual-loss visits.
    pub virtual_visits: u32,
    /// Children by joint move (per-role move index into `legal`).
    pub children: Children,
    /// GRAVE's all-moves-as-first statistics of the moves played from this node on, by move
    /// key ([`crate::grave`]); kept once the node has [`crate::MctsParams::grave_ref`]
    /// visits, `None` before (and in plain UCT).
    pub amaf: Option<Box<[AmafStat]>>,
    /// The node this one was created under (the root's is itself).
    parent: NodeId,
    /// Nodes in this node's subtree, itself included.
    size: u32,
}

/// The children of a node by joint move, given as per-role move indices. A joint move is
/// numbered in mixed radix (role `r`'s index times the product of the earlier roles' move
/// counts; in a turn-taking game, the mover's index): a node of at most [`DENSE`] joint
/// moves keeps its children in an array by that number (one read per lookup, no hashing),
/// a larger one in a hash map by number; where the joint moves outnumber `u64` (a dozen
/// roles of hundreds of moves) the indices themselves are the key.
#[derive(Clone, Debug, Default)]
pub struct Children {
    /// By number, [`NONE`] where no child was created; allocated with the first child.
    dense: Vec<u32>,
    by_number: FxHashMap<u64, NodeId>,
    wide: FxHashMap<Box<[u32]>, NodeId>,
}

/// Most joint moves of a node whose children are kept in an array.
pub const DENSE: u64 = 256;

/// An empty slot of [`Children`]'s array.
const NONE: u32 = u32::MAX;

impl Children {
    /// The child of joint move `moves` (one index per role, role `r`'s below `counts[r]`).
    pub fn get(&self, counts: impl Iterator<Item = usize>, moves: &[u32]) -> Option<NodeId> {
        match number(counts, moves) {
            Some((k, n)) if n <= DENSE => match self.dense.get(k as usize) {
                Some(&c) if c != NONE => Some(NodeId(c)),
                _ => None,
            },
            Some((k, _)) => self.by_number.get(&k).copied(),
            None => self.wide.get(moves).copied(),
        }
    }

    /// Records `child` as the child of joint move `moves`.
    pub fn insert(&mut self, counts: impl Iterator<Item = usize>, moves: &[u32], child: NodeId) {
        match number(counts, moves) {
            Some((k, n)) if n <= DENSE => {
                if self.dense.is_empty() {
                    self.dense = vec![NONE; n as usize];
                }
                self.dense[k as usize] = child.0;
            }
            Some((k, _)) => {
                self.by_number.insert(k, child);
            }
            None => {
                self.wide.insert(moves.into(), child);
            }
        }
    }

    /// The children, in no particular order.
    pub fn values(&self) -> impl Iterator<Item = NodeId> + '_ {
        let dense = self
            .dense
            .iter()
            .filter(|&&c| c != NONE)
            .map(|&c| NodeId(c));
        dense
            .chain(self.by_number.values().copied())
            .chain(self.wide.values().copied())
    }

    /// Number of children.
    pub fn len(&self) -> usize {
        self.values().count()
    }

    /// True when the node has no child yet.
    pub fn is_empty(&self) -> bool {
        self.values().next().is_none()
    }
}

/// The mixed-radix number of joint move `moves` over move counts `counts`, and the number
/// of joint moves; `None` when these outnumber `u64` (or an index is out of its range:
/// such a key is kept as it is).
fn number(counts: impl Iterator<Item = usize>, moves: &[u32]) -> Option<(u64, u64)> {
    let mut key = 0u64;
    let mut stride = 1u64;
    for (n, &m) in counts.zip(moves) {
        if m as usize >= n {
            return None;
        }
        key = key.checked_add(stride.checked_mul(u64::from(m))?)?;
        stride = stride.checked_mul(n as u64)?;
    }
    Some((key, stride))
}

impl Node {
    /// Evaluates `state` of `net` once and builds an unvisited node for it.
    pub fn new(net: &Netlist, state: State) -> Self {
        let view = NetMachine::new(net).view_of(&state);
        Self::from_view(state, view)
    }
}

impl<S, M> Node<S, M> {
    /// An unvisited node for `state`, whose [`View`] is `view`.
    pub fn from_view(state: S, view: View<M>) -> Self {
        let ended = view.ends();
        let exact = ended.then(|| view.goals.iter().map(|&g| f64::from(g) / 100.0).collect());
        let legal = if ended {
            view.legal.iter().map(|_| Vec::new()).collect()
        } else {
            view.legal
        };
        let mut offsets = SmallVec::with_capacity(legal.len() + 1);
        let mut total = 0;
        offsets.push(0);
        for l in &legal {
            total += l.len();
            offsets.push(total as u32);
        }
        Self {
            state,
            exact,
            legal,
            offsets,
            stats: vec![MoveStats::default(); total],
            visits: 0,
            virtual_visits: 0,
            children: Children::default(),
            amaf: None,
            parent: NodeId(0),
            size: 1,
        }
    }

    /// Nodes in this node's subtree, itself included.
    pub fn subtree_size(&self) -> usize {
        self.size as usize
    }

    /// Role `role`'s move statistics, one per legal move.
    pub fn role_stats(&self, role: usize) -> &[MoveStats] {
        &self.stats[self.offsets[role] as usize..self.offsets[role + 1] as usize]
    }

    /// Index (into `legal[role]`) of the move to play for `role` ([`crate::solve::final_choice`]:
    /// the most-visited move unless a proven one is worth more); `None` when the role has
    /// no move here (the state ends the game).
    pub fn best_index(&self, role: usize) -> Option<usize> {
        crate::solve::final_choice(
            self.role_stats(role)
                .iter()
                .map(|s| (s.visits, s.mean(), s.exact)),
        )
    }

    /// The one role with a choice here (more than one legal move), role 0 when nobody has
    /// one, `None` when several roles choose at once (simultaneous moves).
    pub fn single_mover(&self) -> Option<usize> {
        let mut movers = (0..self.legal.len()).filter(|&r| self.legal[r].len() > 1);
        match (movers.next(), movers.next()) {
            (None, _) => Some(0),
            (Some(r), None) => Some(r),
            (Some(_), Some(_)) => None,
        }
    }

    /// The child reached by joint move `moves` (per-role indices into `legal`), if created.
    pub fn child(&self, moves: &[u32]) -> Option<NodeId> {
        self.children.get(move_counts(&self.offsets), moves)
    }

    /// Records `child` as the node reached by joint move `moves` (see [`Tree::add_child`]).
    fn link_child(&mut self, moves: &[u32], child: NodeId) {
        self.children
            .insert(move_counts(&self.offsets), moves, child);
    }

    pub(crate) fn stat_mut(&mut self, role: usize, m: u32) -> &mut MoveStats {
        &mut self.stats[(self.offsets[role] + m) as usize]
    }

    /// Adds (`sign = true`) or removes `amount` virtual visits on this node and on the chosen
    /// move of every role.
    pub fn virtual_loss(&mut self, moves: &[u32], amount: u32, add: bool) {
        let f = |v: &mut u32| {
            *v = if add {
                *v + amount
            } else {
                v.saturating_sub(amount)
            }
        };
        f(&mut self.virtual_visits);
        for (r, &m) in moves.iter().enumerate() {
            f(&mut self.stat_mut(r, m).virtual_visits);
        }
    }

    /// Records one visit with per-role `rewards` (0..1) through joint move `moves`.
    pub fn update(&mut self, moves: &[u32], rewards: &[f64]) {
        self.visits += 1;
        for (r, &m) in moves.iter().enumerate() {
            let s = self.stat_mut(r, m);
            s.visits += 1;
            s.reward_sum += rewards[r];
        }
    }
}

/// Each role's number of legal moves, from a node's `offsets` (role `r`'s block is
/// `offsets[r]..offsets[r + 1]`).
fn move_counts(offsets: &[u32]) -> impl Iterator<Item = usize> + '_ {
    offsets.windows(2).map(|w| (w[1] - w[0]) as usize)
}

/// The node arena. The root moves with the game ([`Tree::reroot`]) without renumbering
/// anything: the subtrees it leaves behind are *dropped*, their slots reused one by one by
/// the nodes created next ([`Tree::add_child`]), so moving the root costs the length of the
/// path to the new root, however big the tree, and nothing is freed at that moment.
///
/// Memory: the arena holds the live tree ([`Tree::len`] nodes) and dropped nodes not reused
/// yet; it grows only when no dropped node is left, so it never holds more slots than the
/// most live nodes it had plus one batch.
#[derive(Clone, Debug)]
pub struct Tree<S = State, M = InputId> {
    nodes: Vec<Node<S, M>>,
    root: NodeId,
    /// Roots of dropped subtrees; a slot taken from here hands its children to this list.
    dropped: Vec<NodeId>,
    /// Nodes holding an AMAF table (dropped ones not reused yet included).
    amaf_tables: usize,
}

impl<S, M> Default for Tree<S, M> {
    fn default() -> Self {
        Self {
            nodes: Vec::new(),
            root: NodeId(0),
            dropped: Vec::new(),
            amaf_tables: 0,
        }
    }
}

impl Tree {
    /// A tree holding only the root node for `state` of `net`.
    pub fn new(net: &Netlist, state: State) -> Self {
        Self::with_root(Node::new(net, state))
    }
}

impl<S: Send + 'static, M: PartialEq + Send + 'static> Tree<S, M> {
    /// A tree holding only `root`.
    pub fn with_root(mut root: Node<S, M>) -> Self {
        root.parent = NodeId(0);
        root.size = 1;
        Self {
            nodes: vec![root],
            root: NodeId(0),
            dropped: Vec::new(),
            amaf_tables: 0,
        }
    }

    /// Makes the subtree under `child` (a node of the tree) the whole tree, keeping its
    /// statistics: tree reuse after the actual joint move. Every node on the way from the
    /// old root to `child`, and their other subtrees, are dropped (their slots are reused
    /// by later nodes). O(depth of `child` × branching), nothing freed or moved: after a long
    /// start clock the tree may hold a million nodes and the next reply is due soon.
    ///
    /// `child` must be a node of the tree now: an id taken before an earlier re-root may
    /// name a dropped node, or a slot reused since.
    ///
    /// # Panics
    /// When the walk up from `child` ends at an old root instead of the root (a dropped
    /// node), or `child` is out of range.
    pub fn reroot(&mut self, child: NodeId) {
        let mut c = child;
        while c != self.root {
            let p = self.nodes[c.index()].parent;
            assert_ne!(p, c, "Tree::reroot: {child:?} is not a node of the tree");
            c = p;
        }
        let mut c = child;
        while c != self.root {
            let p = self.nodes[c.index()].parent;
            let kids = std::mem::take(&mut self.nodes[p.index()].children);
            self.dropped.extend(kids.values().filter(|&k| k != c));
            self.dropped.push(p);
            c = p;
        }
        self.nodes[child.index()].parent = child;
        self.root = child;
    }

    /// Replaces the whole tree by `root` alone; the old nodes are freed by [`discard`].
    pub fn reset(&mut self, root: Node<S, M>) {
        let old = std::mem::replace(self, Self::with_root(root));
        discard(old.nodes);
    }

    /// The first node, breadth-first within `depth` joint moves of the root (the root
    /// included), whose state is `state`; `None` when the tree is empty or has none.
    pub fn find_state(&self, state: &S, depth: usize) -> Option<NodeId>
    where
        S: PartialEq,
    {
        let mut level = vec![self.root_node().map(|_| self.root)?];
        for d in 0..=depth {
            if let Some(&id) = level.iter().find(|&&id| self.node(id).state == *state) {
                return Some(id);
            }
            if d == depth {
                break;
            }
            level = level
                .iter()
                .flat_map(|&id| self.node(id).children.values())
                .collect();
        }
        None
    }

    /// The child of the root reached by `joint` (one move per role), if the tree has it.
    pub fn root_child(&self, joint: &[M]) -> Option<NodeId> {
        let root = self.root_node()?;
        let key: Option<Vec<u32>> = joint
            .iter()
            .enumerate()
            .map(|(r, m)| {
                let ms = root.legal.get(r)?;
                ms.iter().position(|x| x == m).map(|i| i as u32)
            })
            .collect();
        root.child(&key?)
    }
}

/// Trees of more nodes than this are freed on a thread of their own.
pub const FREE_ELSEWHERE: usize = 10_000;

/// Frees discarded nodes: a large batch (over [`FREE_ELSEWHERE`]) on a thread of its own,
/// since freeing a million-node tree takes a good part of a second on a busy core, and
/// the search's thread has a reply to give (issue #42, round two, item 11).
pub fn discard<T: Send + 'static>(old: Vec<T>) {
    if old.len() > FREE_ELSEWHERE {
        let spawned = std::thread::Builder::new()
            .name("mcts-free".into())
            .spawn(move || drop(old));
        // without a thread (none left to the process) the nodes are freed here
        drop(spawned);
    }
}

impl<S, M> Tree<S, M> {
    /// The root's id.
    pub fn root(&self) -> NodeId {
        self.root
    }

    /// The root node; `None` for an empty tree ([`Tree::default`]).
    pub fn root_node(&self) -> Option<&Node<S, M>> {
        self.nodes.get(self.root.index())
    }

    /// Nodes in the tree (the root's subtree); 0 for an empty tree.
    pub fn len(&self) -> usize {
        self.root_node().map_or(0, Node::subtree_size)
    }

    /// True for an empty tree ([`Tree::default`]).
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// Slots of the arena: the tree's nodes and dropped ones not reused yet.
    pub fn slots(&self) -> usize {
        self.nodes.len()
    }

    /// Adds `node` as the child of `parent` (a node of the tree) by joint move `moves`
    /// (per-role indices into `parent`'s legal moves) and returns its id: the slot of a
    /// dropped node when there is one (that node is freed here, its children dropped in
    /// turn), else a new slot.
    pub fn add_child(&mut self, parent: NodeId, moves: &[u32], mut node: Node<S, M>) -> NodeId {
        node.parent = parent;
        node.size = 1;
        let id = match self.dropped.pop() {
            Some(id) => {
                let old = std::mem::replace(&mut self.nodes[id.index()], node);
                self.dropped.extend(old.children.values());
                self.amaf_tables -= usize::from(old.amaf.is_some());
                id
            }
            None => {
                self.nodes.push(node);
                NodeId(self.nodes.len() as u32 - 1)
            }
        };
        self.nodes[parent.index()].link_child(moves, id);
        let mut p = parent;
        loop {
            let n = &mut self.nodes[p.index()];
            n.size += 1;
            if p == self.root {
                break;
            }
            p = n.parent;
        }
        id
    }

    /// Gives node `id` an AMAF table of `keys` entries, unless it has one or the tree
    /// already holds `most` (counting dropped nodes not reused yet); true when it has one.
    pub(crate) fn give_amaf(&mut self, id: NodeId, keys: usize, most: usize) -> bool {
        let n = &mut self.nodes[id.index()];
        if n.amaf.is_some() {
            return true;
        }
        if self.amaf_tables >= most {
            return false;
        }
        n.amaf = Some(vec![AmafStat::default(); keys].into_boxed_slice());
        self.amaf_tables += 1;
        true
    }

    /// Nodes holding an AMAF table ([`Node::amaf`]), dropped ones not reused yet included.
    pub fn amaf_tables(&self) -> usize {
        self.amaf_tables
    }

    /// The ids of the tree's nodes, breadth-first from the root.
    pub fn ids(&self) -> Vec<NodeId> {
        let mut seen: Vec<NodeId> = self.root_node().map(|_| self.root).into_iter().collect();
        let mut i = 0;
        while i < seen.len() {
            seen.extend(self.node(seen[i]).children.values());
            i += 1;
        }
        seen
    }

    /// The tree's nodes, breadth-first from the root.
    pub fn iter(&self) -> impl Iterator<Item = &Node<S, M>> + '_ {
        self.ids().into_iter().map(|id| self.node(id))
    }

    /// The node with this id.
    pub fn node(&self, id: NodeId) -> &Node<S, M> {
        &self.nodes[id.index()]
    }

    /// The node with this id, mutably.
    pub fn node_mut(&mut self, id: NodeId) -> &mut Node<S, M> {
        &mut self.nodes[id.index()]
    }
}
