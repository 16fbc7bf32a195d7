//! Extracts operand pairs that many `And`/`Or` gates share into gates of their own, so each
//! big gate reads a few shared partial results instead of all its operands.
//!
//! This is Re-Pair (N. J. Larsson and A. Moffat, "Off-line dictionary-based compression",
//! Proc. IEEE 88(11), 2000) run over the operand lists of all `And` gates and, separately, of
//! all `Or` gates: the adjacent operand pair occurring in most lists becomes a new two-operand
//! gate and replaces the pair in every list holding it; then the next most frequent pair
//! (possibly made of new gates), until no pair occurs in [`MIN_USES`] lists. Operand lists are
//! in canonical (sorted) order, so a family of gates over nearly the same operands (chess's
//! "attacked from any square but the captured one", one gate per captured square) shares a
//! tree of partial results instead of repeating them: O(n log n) operands instead of O(n²).
//!
//! Each extraction adds one gate with two operands and removes at least [`MIN_USES`] operand
//! reads, so the netlist's gates plus edges shrink strictly; a pair whose every use went into
//! a later pair (of the same round) is inlined there instead of getting a gate. New gates
//! reorder the (sorted) operand lists, so the pass repeats until the canonical order shows no
//! pair to extract.
//! An [`super::EXPENSIVE`] pass: the other passes reach their fixpoint first (they flatten a
//! gate left with a single user, after which this pass may find more).

use super::rebuild::{rebuild, Rebuilder, Rewrite};
use crate::{Cancel, Gate, GateId, Netlist};
use rustc_hash::FxHashMap;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Fewest operand lists a pair must occur in to get a gate of its own.
pub const MIN_USES: u32 = 4;

const NONE: u32 = u32::MAX;

/// An adjacent pair of symbols in the operand lists of one gate kind.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct Pair {
    and: bool,
    a: u32,
    b: u32,
}

/// All operand lists as linked lists over one flat array of symbols. A symbol below the
/// gate count is an old gate id; above, it names an extracted pair (`pairs[s - n]`).
struct Lists {
    sym: Vec<u32>,
    next: Vec<u32>,
    prev: Vec<u32>,
    and: Vec<bool>,
}

impl Lists {
    fn pair_at(&self, p: u32) -> Option<Pair> {
        let q = self.next[p as usize];
        (q != NONE).then(|| Pair {
            and: self.and[p as usize],
            a: self.sym[p as usize],
            b: self.sym[q as usize],
        })
    }

    /// Replaces the pair starting at `p` by symbol `x`, unlinking its second position.
    fn replace(&mut self, p: u32, x: u32) {
        let q = self.next[p as usize];
        let r = self.next[q as usize];
        self.sym[p as usize] = x;
        self.next[p as usize] = r;
        if r != NONE {
            self.prev[r as usize] = p;
        }
        self.next[q as usize] = NONE;
        self.prev[q as usize] = NONE;
        self.sym[q as usize] = NONE;
    }
}

/// Runs the pass; returns true when the netlist changed.
pub fn run(net: &mut Netlist) -> bool {
    run_until(net, &Cancel::never())
}

/// [`run`], stopping early once `cancel` is raised (checked every [`CANCEL_EVERY`]
/// candidates and between rounds): the pairs extracted so far are kept, so the netlist
/// stays valid and equivalent. On chess one run takes seconds.
pub fn run_until(net: &mut Netlist, cancel: &Cancel) -> bool {
    let mut changed = false;
    // New gates reorder operand lists and may bring new pairs next to each other: repeat
    // until the canonical order shows none (each round shrinks gates plus edges, so it ends).
    loop {
        let n = net.gates.len() as u32;
        let (mut lists, heads) = collect(net);
        let pairs = compress(&mut lists, n, cancel);
        if pairs.is_empty() {
            return changed;
        }
        materialize(net, &lists, &heads, &pairs);
        changed = true;
        if cancel.is_cancelled() {
            return changed;
        }
    }
}

/// The operand lists of every `And`/`Or` with at least two distinct operands, in sorted order,
/// and each list's first position per gate (`NONE` for other gates).
fn collect(net: &Netlist) -> (Lists, Vec<u32>) {
    let mut lists = Lists {
        sym: Vec::new(),
        next: Vec::new(),
        prev: Vec::new(),
        and: Vec::new(),
    };
    let mut heads = vec![NONE; net.gates.len()];
    for (g, gate) in net.gates.iter().enumerate() {
        let (is_and, ops) = match gate {
            Gate::And(v) => (true, v),
            Gate::Or(v) => (false, v),
            _ => continue,
        };
        let mut ops: Vec<u32> = ops.iter().map(|o| o.0).collect();
        ops.sort_unstable();
        ops.dedup();
        if ops.len() < 2 {
            continue;
        }
        let start = lists.sym.len() as u32;
        heads[g] = start;
        for (i, &o) in ops.iter().enumerate() {
            let p = start + i as u32;
            lists.sym.push(o);
            lists.and.push(is_and);
            lists.prev.push(if i == 0 { NONE } else { p - 1 });
            lists
                .next
                .push(if i + 1 == ops.len() { NONE } else { p + 1 });
        }
    }
    (lists, heads)
}

/// Candidate pairs taken from the queue between two checks of the cancel flag in [`run_until`].
const CANCEL_EVERY: usize = 1024;

/// Re-Pair over `lists`; returns the extracted pairs in creation order (symbol `n + i` is
/// pair `i`), fewer once `cancel` is raised.
fn compress(lists: &mut Lists, n: u32, cancel: &Cancel) -> Vec<Pair> {
    let mut count: FxHashMap<Pair, u32> = FxHashMap::default();
    for p in 0..lists.sym.len() as u32 {
        if let Some(pair) = lists.pair_at(p) {
            *count.entry(pair).or_default() += 1;
        }
    }
    let mut occ: FxHashMap<Pair, Vec<u32>> = FxHashMap::default();
    for p in 0..lists.sym.len() as u32 {
        if let Some(pair) = lists.pair_at(p) {
            if count[&pair] >= MIN_USES {
                occ.entry(pair).or_default().push(p);
            }
        }
    }
    drop(count);
    // Most frequent first; ties go to the smallest pair so the result is deterministic.
    let mut heap: BinaryHeap<(u32, Reverse<Pair>)> = occ
        .iter()
        .map(|(&pair, v)| (v.len() as u32, Reverse(pair)))
        .collect();
    let mut pairs = Vec::new();
    let mut pops = 0usize;
    while let Some((c, Reverse(pair))) = heap.pop() {
        pops += 1;
        if pops.is_multiple_of(CANCEL_EVERY) && cancel.is_cancelled() {
            break;
        }
        let Some(mut at) = occ.remove(&pair) else {
            continue;
        };
        at.retain(|&p| lists.pair_at(p) == Some(pair));
        let live = at.len() as u32;
        if live < MIN_USES {
            continue;
        }
        if live < c {
            // Stale count: queue again with the true one.
            heap.push((live, Reverse(pair)));
            occ.insert(pair, at);
            continue;
        }
        let x = n + pairs.len() as u32;
        pairs.push(pair);
        let mut fresh: FxHashMap<Pair, Vec<u32>> = FxHashMap::default();
        for &p in &at {
            lists.replace(p, x);
            let l = lists.prev[p as usize];
            if l != NONE {
                fresh
                    .entry(lists.pair_at(l).expect("linked"))
                    .or_default()
                    .push(l);
            }
            if let Some(right) = lists.pair_at(p) {
                fresh.entry(right).or_default().push(p);
            }
        }
        for (pair, v) in fresh {
            if v.len() as u32 >= MIN_USES {
                heap.push((v.len() as u32, Reverse(pair)));
                occ.insert(pair, v);
            }
        }
    }
    pairs
}

/// How each symbol becomes gate operands: old gates and extracted pairs with two or more
/// users stand for themselves; a pair with a single user (all its uses went into one later
/// pair) is inlined into that user, so no gate extracted in one round has a single user.
struct Symbols<'a> {
    n: u32,
    pairs: &'a [Pair],
    uses: Vec<u32>,
}

impl Symbols<'_> {
    fn new<'a>(lists: &Lists, pairs: &'a [Pair], n: u32) -> Symbols<'a> {
        let mut uses = vec![0u32; pairs.len()];
        let parts = pairs.iter().flat_map(|p| [p.a, p.b]);
        for s in lists.sym.iter().copied().chain(parts) {
            if s != NONE && s >= n {
                uses[(s - n) as usize] += 1;
            }
        }
        Symbols { n, pairs, uses }
    }

    /// True when `s` is an old gate or a pair with a gate of its own.
    fn stands_alone(&self, s: u32) -> bool {
        s < self.n || self.uses[(s - self.n) as usize] >= 2
    }

    /// Appends the operands symbol `s` contributes to a list: itself when it stands alone,
    /// else its parts' contributions.
    fn expand(&self, s: u32, out: &mut Vec<u32>) {
        if self.stands_alone(s) {
            out.push(s); // the common case, without a stack
            return;
        }
        let mut stack = vec![s];
        while let Some(t) = stack.pop() {
            if self.stands_alone(t) {
                out.push(t);
            } else {
                let p = self.pairs[(t - self.n) as usize];
                stack.extend([p.b, p.a]);
            }
        }
    }

    /// The operands of pair `i`'s own gate.
    fn parts(&self, i: usize) -> Vec<u32> {
        let mut out = Vec::new();
        self.expand(self.pairs[i].a, &mut out);
        self.expand(self.pairs[i].b, &mut out);
        out
    }
}

/// Rebuilds the netlist with one gate per extracted pair that stands alone (made just before
/// its first user) and every listed gate reading its compressed operand list.
fn materialize(net: &mut Netlist, lists: &Lists, heads: &[u32], pairs: &[Pair]) {
    let n = net.gates.len();
    let symbols = Symbols::new(lists, pairs, n as u32);
    let old_ops: Vec<Vec<GateId>> = net.gates.iter().map(|g| g.operands().to_vec()).collect();
    // Old gate id -> new id, learnt from each listed gate's renamed operands.
    let mut renamed = vec![NONE; n];
    let mut made = vec![NONE; pairs.len()];
    rebuild(net, |rb, old, gate| {
        let head = heads[old.index()];
        if head == NONE {
            return Rewrite::Keep;
        }
        for (o, r) in old_ops[old.index()].iter().zip(gate.operands()) {
            renamed[o.index()] = r.0;
        }
        let mut syms = Vec::new();
        let mut p = head;
        while p != NONE {
            symbols.expand(lists.sym[p as usize], &mut syms);
            p = lists.next[p as usize];
        }
        let mut ops: Vec<GateId> = syms
            .into_iter()
            .map(|s| resolve(rb, s, &symbols, &renamed, &mut made))
            .collect();
        ops.sort_unstable();
        ops.dedup();
        if ops.len() == 1 {
            return Rewrite::To(ops[0]);
        }
        Rewrite::Gate(Gate::and_or(matches!(gate, Gate::And(_)), ops))
    });
}

/// The new gate for a symbol that stands alone: a renamed old gate, or an extracted pair's
/// gate, made now (with the pair gates it reads) if it does not exist yet. Iterative, as
/// pairs may nest deeply.
fn resolve(
    rb: &mut Rebuilder,
    s: u32,
    symbols: &Symbols<'_>,
    renamed: &[u32],
    made: &mut [u32],
) -> GateId {
    let n = symbols.n;
    let id = |made: &[u32], s: u32| {
        if s < n {
            assert_ne!(renamed[s as usize], NONE, "operand seen in its user");
            renamed[s as usize]
        } else {
            made[(s - n) as usize]
        }
    };
    let mut stack = vec![s];
    while let Some(&top) = stack.last() {
        if id(made, top) != NONE {
            stack.pop();
            continue;
        }
        let i = (top - n) as usize;
        let parts = symbols.parts(i);
        let missing: Vec<u32> = parts
            .iter()
            .copied()
            .filter(|&x| id(made, x) == NONE)
            .collect();
        if !missing.is_empty() {
            stack.extend(missing);
            continue;
        }
        let mut ops: Vec<GateId> = parts.iter().map(|&x| GateId(id(made, x))).collect();
        ops.sort_unstable();
        ops.dedup();
        made[i] = rb.push(Gate::and_or(symbols.pairs[i].and, ops)).0;
        stack.pop();
    }
    GateId(id(made, s))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::passes::{check_equivalent, collapse_single, remove_dead, EquivOptions};
    use crate::{from_text, validate};

    /// `n` latches, each latch's next state the `Or` of all the others.
    fn all_but_one(n: usize) -> Netlist {
        let mut t = String::from("role r0 \"p\"\ninput i0 r0 \"(go)\"\n");
        for i in 0..n {
            t += &format!(
                "latch l{i} \"(f {i:03})\" init {}\ng{i} = latch l{i}\n",
                i % 2
            );
        }
        for k in 0..n {
            let ops: Vec<String> = (0..n)
                .filter(|&i| i != k)
                .map(|i| format!("g{i}"))
                .collect();
            t += &format!("g{} = or {}\nnext l{k} g{}\n", n + k, ops.join(" "), n + k);
        }
        t += &format!("g{} = input i0\nlegal r0 i0 g0\nterminal g1\n", 2 * n);
        from_text(&t).expect("valid text")
    }

    #[test]
    fn a_family_of_near_equal_gates_shares_a_tree_of_partial_results() {
        let net = all_but_one(64);
        let mut out = net.clone();
        assert!(run(&mut out));
        remove_dead::run(&mut out);
        validate(&out).expect("valid");
        let opts = EquivOptions {
            seed: 3,
            playouts: 8,
            max_steps: 30,
        };
        check_equivalent(&net, &out, &opts).expect("same game");
        let (before, after) = (net.stats().edges, out.stats().edges);
        // 64 × 63 operands before; a balanced sharing needs about 2·64·log2(64).
        assert_eq!(before, 64 * 63);
        assert!(after * 4 < before, "edges {before} -> {after}");
        assert!(
            out.stats().edges + out.logic_gate_count() < net.stats().edges + net.logic_gate_count()
        );
        // After the flattening of gates whose uses all went into one later pair (as
        // `optimize` runs it), the canonical order shows no pair left to extract.
        collapse_single::run(&mut out);
        remove_dead::run(&mut out);
        check_equivalent(&net, &out, &opts).expect("same game");
        let mut again = out.clone();
        assert!(!run(&mut again), "second run changed the netlist");
        assert_eq!(again, out);
    }

    /// A raised cancel flag stops the pass within one check: what it extracted is kept, the
    /// netlist is valid and plays the same, and a full run still finds pairs to extract.
    #[test]
    fn a_cancelled_run_stops_early_and_stays_equivalent() {
        let net = all_but_one(256);
        let cancel = Cancel::new();
        cancel.cancel();
        let mut cut = net.clone();
        assert!(
            run_until(&mut cut, &cancel),
            "extracts up to the first check"
        );
        validate(&cut).expect("valid");
        let opts = EquivOptions {
            seed: 5,
            playouts: 4,
            max_steps: 20,
        };
        check_equivalent(&net, &cut, &opts).expect("same game");
        let mut full = net.clone();
        assert!(run(&mut full));
        assert!(cut.stats().edges > full.stats().edges, "stopped early");
        assert!(run(&mut cut), "pairs left after the cancelled run");
    }

    #[test]
    fn pairs_in_fewer_than_min_uses_gates_stay() {
        let net = all_but_one(4);
        let mut out = net.clone();
        assert!(!run(&mut out));
        assert_eq!(out, net);
    }
}
