//! Deep chains (issue #42, item 6): a chain of thousands of gates, each the only user of the
//! one before, must optimize in memory linear in its length. Flattening used to copy each
//! link's growing operand list and keep every copy in the arena (40 k links: 3.1 GB).

use super::*;
use crate::{Gate, GateId, Input, InputId, Latch, LatchId, Legal, Netlist, Role, RoleId};

/// A chain of `n` two-operand `And`s over two latches, each link the only user of the one
/// before (`link_first`: the link is the first operand, else the last). Latch `(b)` follows
/// the move `x` of the one role, so neither latch is constant.
fn and_chain(n: usize, link_first: bool) -> Netlist {
    let mut net = Netlist::default();
    let t = net.push(Gate::Const(true));
    let a = net.push(Gate::Latch(LatchId(0)));
    let b = net.push(Gate::Latch(LatchId(1)));
    let x = net.push(Gate::Input(InputId(0)));
    let mut link = a;
    for k in 0..n {
        let other = if k % 2 == 0 { b } else { a };
        let ops = match link_first {
            true => vec![link, other],
            false => vec![other, link],
        };
        link = net.push(Gate::And(ops));
    }
    let latch = |name: &str, init, next| Latch {
        name: name.into(),
        init,
        next,
    };
    net.latches = vec![latch("(a)", true, link), latch("(b)", false, x)];
    let input = |name: &str| Input {
        role: RoleId(0),
        name: name.into(),
    };
    net.inputs = vec![input("x"), input("y")];
    let legal = |i| Legal {
        input: InputId(i),
        gate: t,
    };
    net.roles = vec![Role {
        percepts: Vec::new(),
        name: "r".into(),
        legal: vec![legal(0), legal(1)],
        goals: vec![],
    }];
    net.terminal = link;
    net
}

/// Operand references over the whole arena, dead gates included.
fn arena_edges(net: &Netlist) -> usize {
    net.gates.iter().map(|g| g.operands().len()).sum()
}

#[test]
fn flattening_a_chain_keeps_the_arena_linear() {
    let n = 20_000;
    for link_first in [true, false] {
        let mut net = and_chain(n, link_first);
        assert!(collapse_single::run(&mut net), "link_first {link_first}");
        // One flat And holds the chain's n + 1 leaves; the links are left empty (dead).
        let edges = arena_edges(&net);
        assert!(
            edges <= n + 1,
            "link_first {link_first}: {edges} operands in the arena"
        );
        let last = net.latches[0].next;
        assert_eq!(net.gate(last).operands().len(), n + 1);
        assert!(crate::validate(&net).is_ok());
    }
}

#[test]
fn optimize_reduces_a_long_chain_to_one_gate_and_plays_the_same() {
    let net = and_chain(20_000, true);
    let mut opt = net.clone();
    let report = optimize(&mut opt, &OptimizeOptions::default());
    assert!(report.converged, "{report}");
    assert_eq!(opt.logic_gate_count(), 1, "{report}");
    let fine = check_equivalent(&net, &opt, &EquivOptions::default());
    assert!(fine.is_ok(), "{fine:?}");
}

#[test]
fn a_long_not_chain_folds_away() {
    let mut net = and_chain(0, true);
    let mut x = GateId(1); // latch (a)
    for _ in 0..100_001 {
        x = net.push(Gate::Not(x));
    }
    net.latches[0].next = x;
    net.terminal = x;
    let original = net.clone();
    let report = optimize(&mut net, &OptimizeOptions::default());
    assert!(report.converged, "{report}");
    assert_eq!(net.logic_gate_count(), 1, "{report}");
    assert!(arena_edges(&net) <= 1);
    let fine = check_equivalent(&original, &net, &EquivOptions::default());
    assert!(fine.is_ok(), "{fine:?}");
}
