//! [`find_factors`]: the independent subgames of a netlist, found from its dependency
//! structure (a game that is a sum of games, such as two boards played side by side).
//!
//! Günther, Schiffel & Thielscher ("Factoring General Games", GIGA 2009) factor the rules'
//! dependency graph; Sancho (Draper & Rose, 2014) factors the propnet. Here the netlist is
//! the graph, and a factor is a set of latches and inputs closed under the transition and
//! the legality of its moves:
//!
//! 1. **Shared latches** are those whose next value depends on no move, directly or through
//!    other latches (a turn marker, a step counter): every factor may read them, none owns
//!    them. The others are *move-dependent*.
//! 2. Two move-dependent latches are in one *component* when one's `next` reads the other,
//!    or both read a common move-dependent latch (union-find over the gates of the `next`
//!    cones, each gate joined with its operands that read a move-dependent latch; inputs
//!    and shared latches join nothing).
//! 3. An input *touches* the components whose `next` cones read it and those its `legal`
//!    gate reads. An input touching one component is that component's own move; one
//!    touching none is *inert* (it changes no state: a pass); one touching several is
//!    *crossing* (a `noop` that keeps the blanks of whichever board its role is on).
//! 4. A component without a move of its own is merged with the components its crossing
//!    inputs touch, until every factor has a move of its own. The goal and terminal gates
//!    join nothing: they are where the subgames meet.
//!
//! So each factor's next state and its own moves' legality are functions of its own
//! latches, the shared latches and the inputs that touch it (its own and the crossing ones);
//! `tests/factors.rs` of the conformance suite checks that on the corpus by simulating each
//! factor apart. A factor whose latches reach no goal, no terminal and no crossing move's
//! legality is *irrelevant*: its moves cannot change the outcome.
//!
//! Time O(gates + edges) plus the component sets of the gates that mix inputs or feed
//! `legal` (at most [`MAX_LISTED`] components each; a gate that reads more makes the whole
//! game one factor).

use crate::{Gate, GateId, InputId, LatchId, Netlist};

/// The most components one gate's set lists before the analysis gives up on factoring
/// (the whole game is then one factor).
pub const MAX_LISTED: usize = 64;

/// The factors of a netlist (see the module docs).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Factors {
    /// The independent subgames, ordered by their first latch. One factor means the game
    /// does not factor; none means no latch depends on a move.
    pub factors: Vec<Factor>,
    /// Latches whose next value depends on no move (turn markers, step counters), sorted.
    pub shared: Vec<LatchId>,
    /// Inputs that touch several factors, sorted.
    pub crossing: Vec<InputId>,
    /// Inputs that touch no factor: moves that change no state, sorted.
    pub inert: Vec<InputId>,
}

/// One independent subgame: its latches and its own moves.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Factor {
    /// Move-dependent latches of this factor, sorted.
    pub latches: Vec<LatchId>,
    /// Inputs that touch this factor only, sorted.
    pub inputs: Vec<InputId>,
    /// False when the factor's latches reach no goal, no terminal and no crossing input's
    /// legality: its moves cannot change the outcome of the game.
    pub relevant: bool,
}

impl Factors {
    /// True when the game splits into two or more factors.
    pub fn is_factored(&self) -> bool {
        self.factors.len() >= 2
    }

    /// The factor that input `i` belongs to (`None` for a crossing or inert input).
    pub fn factor_of_input(&self, i: InputId) -> Option<usize> {
        self.factors
            .iter()
            .position(|f| f.inputs.binary_search(&i).is_ok())
    }
}

/// A set of component ids, sorted, or "too many to list" ([`MAX_LISTED`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
enum Comps {
    #[default]
    Empty,
    Listed(Vec<u32>),
    Overflow,
}

impl Comps {
    fn one(c: u32) -> Self {
        Comps::Listed(vec![c])
    }

    fn add(&mut self, other: &Comps) {
        match (&mut *self, other) {
            (_, Comps::Empty) | (Comps::Overflow, _) => {}
            (_, Comps::Overflow) => *self = Comps::Overflow,
            (Comps::Empty, o) => *self = o.clone(),
            (Comps::Listed(a), Comps::Listed(b)) => {
                for &c in b {
                    if let Err(at) = a.binary_search(&c) {
                        a.insert(at, c);
                    }
                }
                if a.len() > MAX_LISTED {
                    *self = Comps::Overflow;
                }
            }
        }
    }
}

/// Union-find with path halving.
struct Dsu(Vec<u32>);

impl Dsu {
    fn new(n: usize) -> Self {
        Dsu((0..n as u32).collect())
    }
    fn find(&mut self, mut x: u32) -> u32 {
        while self.0[x as usize] != x {
            let up = self.0[self.0[x as usize] as usize];
            self.0[x as usize] = up;
            x = up;
        }
        x
    }
    fn union(&mut self, a: u32, b: u32) {
        let (a, b) = (self.find(a), self.find(b));
        if a != b {
            self.0[a.max(b) as usize] = a.min(b);
        }
    }
}

/// Finds the factors of `net`, which must be valid ([`crate::validate`]). See the module
/// docs for the definition; O(gates + edges) time and memory besides the component sets.
pub fn find_factors(net: &Netlist) -> Factors {
    let moving = move_dependent(net);
    let n = net.gates.len();
    let reads_moving = reads_moving_latch(net, &moving);
    let in_next = cone(
        net,
        net.latches
            .iter()
            .zip(&moving)
            .filter(|p| *p.1)
            .map(|p| p.0.next),
    );
    let (comp, count) = components(net, &moving, &reads_moving, &in_next);
    let gate_comp = |g: usize| {
        debug_assert!(
            comp[g] != u32::MAX,
            "a next-cone gate that reads a latch has a component"
        );
        comp[g]
    };
    // Inputs reached by a `next` cone: the components of their nearest consumers that read a
    // move-dependent latch (top-down over the cones, through gates that read only inputs).
    let mut above: Vec<Comps> = vec![Comps::Empty; n];
    for (l, latch) in net.latches.iter().enumerate() {
        if moving[l] && !reads_moving[latch.next.index()] {
            above[latch.next.index()].add(&Comps::one(comp[n + l]));
        }
    }
    for g in (0..n).rev().filter(|&g| in_next[g]) {
        let from = if reads_moving[g] {
            Comps::one(gate_comp(g))
        } else {
            std::mem::take(&mut above[g])
        };
        for o in net.gates[g].operands() {
            if !reads_moving[o.index()] {
                above[o.index()].add(&from);
            }
        }
        if !reads_moving[g] {
            above[g] = from;
        }
    }
    let legal_sets = legal_components(net, &moving, &comp);
    let mut touched: Vec<Comps> = vec![Comps::Empty; net.inputs.len()];
    for (g, gate) in net.gates.iter().enumerate() {
        if let Gate::Input(i) = gate {
            touched[i.index()].add(&above[g]);
        }
    }
    for role in &net.roles {
        for l in &role.legal {
            touched[l.input.index()].add(&legal_sets[l.gate.index()]);
        }
    }
    let shared = (0..net.latches.len())
        .filter(|&l| !moving[l])
        .map(|l| LatchId(l as u32))
        .collect();
    let joined = joined_by_outcome(net, &moving, &comp, count);
    let mut out = group(net, &moving, &comp, count, &touched, &joined);
    out.shared = shared;
    mark_relevant(net, &mut out);
    out
}

/// Per latch: whether its next value depends on a move, directly or through latches that
/// do (a forward search from the inputs over the gates' consumers).
fn move_dependent(net: &Netlist) -> Vec<bool> {
    let n = net.gates.len();
    let mut start = vec![0u32; n + 1];
    for g in &net.gates {
        for o in g.operands() {
            start[o.index() + 1] += 1;
        }
    }
    for i in 0..n {
        start[i + 1] += start[i];
    }
    let mut fill = start.clone();
    let mut users = vec![0u32; start[n] as usize];
    for (g, gate) in net.gates.iter().enumerate() {
        for o in gate.operands() {
            users[fill[o.index()] as usize] = g as u32;
            fill[o.index()] += 1;
        }
    }
    let mut latch_gate = vec![None; net.latches.len()];
    let mut queue = Vec::new();
    let mut reached = vec![false; n];
    for (g, gate) in net.gates.iter().enumerate() {
        match gate {
            Gate::Latch(l) => latch_gate[l.index()] = Some(g),
            Gate::Input(_) => {
                reached[g] = true;
                queue.push(g);
            }
            _ => {}
        }
    }
    let mut by_next: Vec<(u32, u32)> = net
        .latches
        .iter()
        .enumerate()
        .map(|(l, latch)| (latch.next.0, l as u32))
        .collect();
    by_next.sort_unstable();
    let mut moving = vec![false; net.latches.len()];
    while let Some(g) = queue.pop() {
        let first = by_next.partition_point(|&(x, _)| (x as usize) < g);
        for &(_, l) in by_next[first..].iter().take_while(|p| p.0 as usize == g) {
            moving[l as usize] = true;
            if let Some(lg) = latch_gate[l as usize] {
                if !std::mem::replace(&mut reached[lg], true) {
                    queue.push(lg);
                }
            }
        }
        for &u in &users[start[g] as usize..start[g + 1] as usize] {
            if !std::mem::replace(&mut reached[u as usize], true) {
                queue.push(u as usize);
            }
        }
    }
    moving
}

/// Per gate: whether its cone holds a move-dependent latch.
fn reads_moving_latch(net: &Netlist, moving: &[bool]) -> Vec<bool> {
    let mut r = vec![false; net.gates.len()];
    for (g, gate) in net.gates.iter().enumerate() {
        r[g] = match gate {
            Gate::Latch(l) => moving[l.index()],
            _ => gate.operands().iter().any(|o| r[o.index()]),
        };
    }
    r
}

/// Per gate: whether it is in the cone of one of `roots`.
fn cone(net: &Netlist, roots: impl Iterator<Item = GateId>) -> Vec<bool> {
    let mut inside = vec![false; net.gates.len()];
    roots.for_each(|g| inside[g.index()] = true);
    for g in (0..net.gates.len()).rev() {
        if inside[g] {
            for o in net.gates[g].operands() {
                inside[o.index()] = true;
            }
        }
    }
    inside
}

/// Components of the move-dependent latches (step 2 of the module docs). Returns a compact
/// component id per node (gates, then latches; meaningful for move-dependent latches and
/// the `next`-cone gates that read one) and the number of components.
fn components(
    net: &Netlist,
    moving: &[bool],
    reads_moving: &[bool],
    in_next: &[bool],
) -> (Vec<u32>, usize) {
    let n = net.gates.len();
    let mut dsu = Dsu::new(n + net.latches.len());
    for (g, gate) in net.gates.iter().enumerate() {
        if !(in_next[g] && reads_moving[g]) {
            continue;
        }
        if let Gate::Latch(l) = gate {
            dsu.union(g as u32, (n + l.index()) as u32);
        }
        for o in gate.operands().iter().filter(|o| reads_moving[o.index()]) {
            dsu.union(g as u32, o.0);
        }
    }
    for (l, latch) in net.latches.iter().enumerate() {
        if moving[l] && reads_moving[latch.next.index()] {
            dsu.union((n + l) as u32, latch.next.0);
        }
    }
    let mut id_of_root = std::collections::HashMap::new();
    for l in (0..net.latches.len()).filter(|&l| moving[l]) {
        let root = dsu.find((n + l) as u32);
        let next = id_of_root.len() as u32;
        id_of_root.entry(root).or_insert(next);
    }
    let count = id_of_root.len();
    let comp = (0..(n + net.latches.len()) as u32)
        .map(|x| {
            let root = dsu.find(x);
            id_of_root.get(&root).copied().unwrap_or(u32::MAX)
        })
        .collect();
    (comp, count)
}

/// Per gate of the legal cones: the components of the move-dependent latches it reads.
fn legal_components(net: &Netlist, moving: &[bool], comp: &[u32]) -> Vec<Comps> {
    let n = net.gates.len();
    let roots = net
        .roles
        .iter()
        .flat_map(|r| r.legal.iter().map(|l| l.gate));
    let inside = cone(net, roots);
    let mut sets: Vec<Comps> = vec![Comps::Empty; n];
    for (g, gate) in net.gates.iter().enumerate().filter(|p| inside[p.0]) {
        let mut s = match gate {
            Gate::Latch(l) if moving[l.index()] => Comps::one(comp[n + l.index()]),
            _ => Comps::Empty,
        };
        for o in gate.operands() {
            s.add(&sets[o.index()]);
        }
        sets[g] = s;
    }
    sets
}

/// Pairs of components that the goal or terminal logic joins by an `And` with a fluent of
/// one as a direct operand and something that reads the other (a line
/// of four cells across connect four's columns, a path across blocker's cells, two queens
/// that attack each other): a pattern of fluents across components, so they are one game,
/// not a sum. Disjunctions ("some board is won"), conjunctions of negated fluents ("no
/// board is won") and conjunctions of views of each component ("both boards have a line")
/// keep them apart.
fn joined_by_outcome(
    net: &Netlist,
    moving: &[bool],
    comp: &[u32],
    count: usize,
) -> Vec<(u32, u32)> {
    let n = net.gates.len();
    let goals = net
        .roles
        .iter()
        .flat_map(|r| r.goals.iter().map(|g| g.gate));
    let inside = cone(net, goals.chain([net.terminal]));
    let fluent = |g: GateId| -> Option<u32> {
        match net.gate(g) {
            Gate::Latch(l) if moving[l.index()] => Some(comp[n + l.index()]),
            _ => None,
        }
    };
    let mut sets: Vec<Comps> = vec![Comps::Empty; n];
    let mut pairs = Vec::new();
    for (g, gate) in net.gates.iter().enumerate().filter(|p| inside[p.0]) {
        let mut s = match gate {
            Gate::Latch(l) if moving[l.index()] => Comps::one(comp[n + l.index()]),
            _ => Comps::Empty,
        };
        for o in gate.operands() {
            s.add(&sets[o.index()]);
        }
        if matches!(gate, Gate::And(_)) {
            let read: Vec<u32> = match &s {
                Comps::Listed(v) => v.clone(),
                Comps::Overflow => (0..count as u32).collect(),
                Comps::Empty => Vec::new(),
            };
            for d in gate.operands().iter().filter_map(|&o| fluent(o)) {
                pairs.extend(read.iter().filter(|&&c| c != d).map(|&c| (d, c)));
            }
        }
        sets[g] = s;
    }
    pairs
}

/// Steps 3 and 4 of the module docs: classifies the inputs by the components they touch
/// and merges components without a move of their own.
fn group(
    net: &Netlist,
    moving: &[bool],
    comp: &[u32],
    count: usize,
    touched: &[Comps],
    joined: &[(u32, u32)],
) -> Factors {
    let mut dsu = Dsu::new(count);
    if touched.contains(&Comps::Overflow) {
        (1..count as u32).for_each(|c| dsu.union(0, c));
    }
    let groups_of = |dsu: &mut Dsu, t: &Comps| -> Vec<u32> {
        let mut v: Vec<u32> = match t {
            Comps::Listed(cs) => cs.iter().map(|&c| dsu.find(c)).collect(),
            Comps::Overflow => (0..count as u32).map(|c| dsu.find(c)).collect(),
            Comps::Empty => Vec::new(),
        };
        v.sort_unstable();
        v.dedup();
        v
    };
    for &(a, b) in joined {
        dsu.union(a, b);
    }
    // Smallest crossing sets first: the marks of one board own it before a `noop` that
    // touches both boards is considered.
    loop {
        let mut owned = vec![false; count];
        let sets: Vec<Vec<u32>> = touched.iter().map(|t| groups_of(&mut dsu, t)).collect();
        for s in sets.iter().filter(|s| s.len() == 1) {
            owned[s[0] as usize] = true;
        }
        let orphan = |s: &&Vec<u32>| s.len() >= 2 && s.iter().any(|&g| !owned[g as usize]);
        let Some(smallest) = sets.iter().filter(orphan).map(Vec::len).min() else {
            break;
        };
        for s in sets.iter().filter(orphan).filter(|s| s.len() == smallest) {
            s.windows(2).for_each(|w| dsu.union(w[0], w[1]));
        }
    }
    let n = net.gates.len();
    let mut index_of_group = vec![usize::MAX; count];
    let mut factors: Vec<Factor> = Vec::new();
    for l in (0..net.latches.len()).filter(|&l| moving[l]) {
        let g = dsu.find(comp[n + l]) as usize;
        if index_of_group[g] == usize::MAX {
            index_of_group[g] = factors.len();
            factors.push(Factor::default());
        }
        factors[index_of_group[g]].latches.push(LatchId(l as u32));
    }
    let (mut crossing, mut inert) = (Vec::new(), Vec::new());
    for (i, t) in touched.iter().enumerate() {
        let id = InputId(i as u32);
        match groups_of(&mut dsu, t).as_slice() {
            [] => inert.push(id),
            [g] => factors[index_of_group[*g as usize]].inputs.push(id),
            _ => crossing.push(id),
        }
    }
    Factors {
        factors,
        shared: Vec::new(),
        crossing,
        inert,
    }
}

/// Sets [`Factor::relevant`]: whether a factor's latches reach a goal, the terminal or a
/// crossing input's legality.
fn mark_relevant(net: &Netlist, out: &mut Factors) {
    let crossing_legal = net
        .roles
        .iter()
        .flat_map(|r| r.legal.iter())
        .filter(|l| out.crossing.binary_search(&l.input).is_ok())
        .map(|l| l.gate);
    let goals = net
        .roles
        .iter()
        .flat_map(|r| r.goals.iter().map(|g| g.gate));
    let inside = cone(net, goals.chain([net.terminal]).chain(crossing_legal));
    let mut read = vec![false; net.latches.len()];
    for (g, gate) in net.gates.iter().enumerate() {
        if let Gate::Latch(l) = gate {
            read[l.index()] = inside[g];
        }
    }
    for f in &mut out.factors {
        f.relevant = f.latches.iter().any(|l| read[l.index()]);
    }
}

/// Per input of `net` (valid): true when the move can never change the outcome of the
/// game. Such a move changes only latches that reach no goal, no terminal and no legal
/// gate, not even through other latches' `next` (a move of an irrelevant factor, an inert
/// `noop`), so any two of one role's such moves lead to states that agree on everything
/// the game will ever ask: a search may keep one of them. O(gates + edges): a search from
/// the goal, terminal and legal gates back through the gates and the latches' `next`.
pub fn outcome_free_moves(net: &Netlist) -> Vec<bool> {
    let mut seen = vec![false; net.gates.len()];
    let mut stack: Vec<GateId> = net
        .roles
        .iter()
        .flat_map(|r| {
            let legal = r.legal.iter().map(|l| l.gate);
            legal.chain(r.goals.iter().map(|g| g.gate))
        })
        .chain([net.terminal])
        .collect();
    let mut free = vec![true; net.inputs.len()];
    while let Some(g) = stack.pop() {
        if std::mem::replace(&mut seen[g.index()], true) {
            continue;
        }
        match net.gate(g) {
            Gate::Latch(l) => stack.push(net.latches[l.index()].next),
            Gate::Input(i) => free[i.index()] = false,
            gate => stack.extend(gate.operands().iter().filter(|o| !seen[o.index()])),
        }
    }
    free
}
