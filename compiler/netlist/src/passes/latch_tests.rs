//! Tests of the passes that remove latches ([`merge_latches`], [`drop_constant_latches`]) and
//! of the aliased fluents they leave behind.

use super::*;
use crate::{from_text, to_text, Gate, GateId, Latch, LatchId, StateError};

const EQUIV: EquivOptions = EquivOptions {
    seed: 3,
    playouts: 8,
    max_steps: 30,
};

/// `(x)` and `(o)` alternate (complements), `(y)` is a copy of `(x)` built from its own
/// gates, `(m)` flips only when the move `(go)` is made. `(x)` is read and its `next` is a
/// plain latch read: merging it would cost a `Not` for no gate saved, so it stays.
const TURNS: &str = "role r0 \"p\"\n\
    latch l0 \"(m)\" init 0\nlatch l1 \"(o)\" init 0\nlatch l2 \"(x)\" init 1\nlatch l3 \"(y)\" init 1\n\
    input i0 r0 \"(go)\"\ninput i1 r0 \"(wait)\"\n\
    g0 = latch l0\ng1 = latch l1\ng2 = latch l2\ng3 = latch l3\ng4 = input i0\n\
    g5 = not g0\ng6 = and g4 g5\ng7 = not g4\ng8 = and g7 g0\ng9 = or g6 g8\n\
    g10 = and g1 g3\ng11 = or g10 g1\ng12 = and g2 g0\ng13 = or g2 g12\n\
    next l0 g9\nnext l1 g2\nnext l2 g1\nnext l3 g11\n\
    legal r0 i0 g3\nlegal r0 i1 g1\ngoal r0 100 g0\nterminal g12\n";

#[test]
fn merge_latches_aliases_equal_and_complementary_latches() {
    let net = from_text(TURNS).unwrap();
    let mut out = net.clone();
    assert!(merge_latches::run(&mut out));
    validate(&out).unwrap();
    let names: Vec<&str> = out.latches.iter().map(|l| l.name.as_str()).collect();
    assert_eq!(names, ["(m)", "(o)", "(x)"]);
    let aliases: Vec<(&str, u32, bool)> = out
        .aliased_fluents
        .iter()
        .map(|a| (a.name.as_str(), a.latch.0, a.negated))
        .collect();
    assert_eq!(aliases, [("(y)", 1, true)]);
    assert_eq!(out.true_fluents(&[false, false, true]), ["(x)", "(y)"]);
    assert_eq!(out.true_fluents(&[true, true, false]), ["(m)", "(o)"]);
    check_equivalent(&net, &out, &EQUIV).unwrap();
    assert!(!merge_latches::run(&mut out.clone()), "a fixpoint");
    // The text form keeps the aliases.
    assert_eq!(from_text(&to_text(&out)).unwrap(), out);
}

#[test]
fn merge_latches_proves_by_induction_not_by_samples() {
    // (a) never changes; (b) turns on once a token has gone down a 300-latch shift register:
    // every sampled state (playouts restart after 200 moves) has a = b = 0, yet they differ.
    let mut net = from_text(
        "role r0 \"p\"\nlatch l0 \"(a)\" init 0\nlatch l1 \"(b)\" init 0\ninput i0 r0 \"(go)\"\n\
         g0 = const 1\ng1 = latch l0\ng2 = latch l1\nnext l0 g1\nnext l1 g2\nlegal r0 i0 g0\nterminal g1\n",
    )
    .unwrap();
    let mut prev = None;
    for k in 0..300 {
        let read = net.push(Gate::Latch(LatchId(2 + k)));
        let next = prev.unwrap_or_else(|| net.push(Gate::Const(false)));
        net.latches.push(Latch {
            name: format!("(s {k:03})"),
            init: k == 0,
            next,
        });
        prev = Some(read);
    }
    let b = net.push(Gate::Or(vec![prev.unwrap(), GateId(2)]));
    net.latches[1].next = b;
    validate(&net).unwrap();
    let mut out = net.clone();
    merge_latches::run(&mut out);
    assert!(
        out.latches.iter().any(|l| l.name == "(a)") && out.latches.iter().any(|l| l.name == "(b)"),
        "(a) and (b) must stay apart: {:?}",
        out.aliased_fluents
    );
    check_equivalent(
        &net,
        &out,
        &EquivOptions {
            seed: 1,
            playouts: 1,
            max_steps: 310,
        },
    )
    .unwrap();
}

#[test]
fn dropping_a_constant_latch_fixes_its_aliases() {
    let mut net = from_text(TURNS).unwrap();
    merge_latches::run(&mut net);
    // Make (o) constant: its alias (y) becomes a fixed fluent.
    let o = net
        .gates
        .iter()
        .position(|g| *g == Gate::Latch(LatchId(1)))
        .unwrap();
    net.latches[1].next = GateId(o as u32);
    assert!(drop_constant_latches::run(&mut net));
    assert!(net.aliased_fluents.is_empty());
    assert_eq!(
        net.fixed_fluents,
        [("(o)".to_string(), false), ("(y)".to_string(), true)]
    );
    validate(&net).unwrap();
}

#[test]
fn state_of_inverts_true_fluents() {
    let mut net = from_text(TURNS).unwrap();
    merge_latches::run(&mut net);
    assert_eq!(net.latches.len(), 3);
    for k in 0..8 {
        let state = [k & 1 != 0, k & 2 != 0, k & 4 != 0];
        let fluents = net.true_fluents(&state);
        assert_eq!(net.state_of(&fluents).unwrap(), state, "{fluents:?}");
    }
    assert_eq!(net.state_of(&["(y)"]).unwrap(), [false, false, false]);
    assert!(matches!(
        net.state_of(&["(o)", "(y)"]),
        Err(StateError::Unrepresentable(why)) if why.contains("complement of (o)")
    ));
    assert!(matches!(net.state_of(&["(z)"]), Err(StateError::Unknown(f)) if f == "(z)"));
}
