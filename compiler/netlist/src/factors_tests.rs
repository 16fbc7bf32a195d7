//! Unit tests of [`crate::factors`] on small hand-built games: board A (latch `a`, move
//! `fa`), board B (latch `b`, move `fb`), a turn latch `t` that toggles by itself, and a
//! `noop`; each test changes one thing and checks the factors found.

use crate::factors::{find_factors, Factors};
use crate::{
    validate, Gate, GateId, Goal, Input, InputId, Latch, LatchId, Legal, Netlist, Role, RoleId,
};

/// Gates of the base game that a variant combines.
struct Parts {
    a: GateId,
    b: GateId,
    t: GateId,
    fa: GateId,
    fb: GateId,
    noop: GateId,
}

/// The next gates of `a` and `b`, the goal-100 gate and the terminal gate of a variant.
type Outputs = (GateId, GateId, GateId, GateId);

/// Builds the game: latches a, b, t; role r0 with moves fa, fb, noop (legal: fa when not a,
/// fb when not b, noop always); `t` toggles; `wire` gives a's and b's next, goal and terminal.
fn game(wire: impl FnOnce(&mut Netlist, &Parts) -> Outputs) -> Netlist {
    let mut n = Netlist::default();
    for (name, init) in [("a", false), ("b", false), ("t", true)] {
        n.latches.push(Latch {
            name: name.into(),
            init,
            next: GateId(0),
        });
    }
    for name in ["fa", "fb", "noop"] {
        n.inputs.push(Input {
            role: RoleId(0),
            name: name.into(),
        });
    }
    let p = Parts {
        a: n.push(Gate::Latch(LatchId(0))),
        b: n.push(Gate::Latch(LatchId(1))),
        t: n.push(Gate::Latch(LatchId(2))),
        fa: n.push(Gate::Input(InputId(0))),
        fb: n.push(Gate::Input(InputId(1))),
        noop: n.push(Gate::Input(InputId(2))),
    };
    let (na, nb, goal, terminal) = wire(&mut n, &p);
    let nt = n.push(Gate::Not(p.t));
    let not_a = n.push(Gate::Not(p.a));
    let not_b = n.push(Gate::Not(p.b));
    let yes = n.push(Gate::Const(true));
    let lose = n.push(Gate::Not(goal));
    n.latches[0].next = na;
    n.latches[1].next = nb;
    n.latches[2].next = nt;
    n.terminal = terminal;
    n.roles.push(Role {
        percepts: Vec::new(),
        name: "r0".into(),
        legal: vec![
            Legal {
                input: InputId(0),
                gate: not_a,
            },
            Legal {
                input: InputId(1),
                gate: not_b,
            },
            Legal {
                input: InputId(2),
                gate: yes,
            },
        ],
        goals: vec![
            Goal {
                value: 0,
                gate: lose,
            },
            Goal {
                value: 100,
                gate: goal,
            },
        ],
    });
    validate(&n).expect("a valid test game");
    n
}

/// a' = a ∨ fa, b' = b ∨ fb; goal and terminal: a ∨ b.
fn base(n: &mut Netlist, p: &Parts) -> Outputs {
    let na = n.push(Gate::Or(vec![p.a, p.fa]));
    let nb = n.push(Gate::Or(vec![p.b, p.fb]));
    let either = n.push(Gate::Or(vec![p.a, p.b]));
    (na, nb, either, either)
}

fn latches(ids: &[u32]) -> Vec<LatchId> {
    ids.iter().map(|&i| LatchId(i)).collect()
}

fn inputs(ids: &[u32]) -> Vec<InputId> {
    ids.iter().map(|&i| InputId(i)).collect()
}

fn shape(f: &Factors) -> Vec<(Vec<LatchId>, Vec<InputId>, bool)> {
    f.factors
        .iter()
        .map(|x| (x.latches.clone(), x.inputs.clone(), x.relevant))
        .collect()
}

#[test]
fn two_boards_joined_only_by_a_disjunction_are_two_factors() {
    let f = find_factors(&game(base));
    assert_eq!(
        shape(&f),
        vec![
            (latches(&[0]), inputs(&[0]), true),
            (latches(&[1]), inputs(&[1]), true)
        ]
    );
    assert_eq!(f.shared, latches(&[2]), "the turn latch depends on no move");
    assert_eq!(f.inert, inputs(&[2]), "noop changes nothing");
    assert!(f.crossing.is_empty());
    assert_eq!(f.factor_of_input(InputId(1)), Some(1));
    assert_eq!(f.factor_of_input(InputId(2)), None);
}

#[test]
fn a_latch_read_across_boards_joins_them() {
    let f = find_factors(&game(|n, p| {
        let (_, nb, goal, term) = base(n, p);
        let na = n.push(Gate::Or(vec![p.a, p.fa, p.b]));
        (na, nb, goal, term)
    }));
    assert_eq!(shape(&f), vec![(latches(&[0, 1]), inputs(&[0, 1]), true)]);
    assert!(!f.is_factored());
}

#[test]
fn a_pattern_of_fluents_across_boards_in_the_goal_joins_them() {
    let f = find_factors(&game(|n, p| {
        let (na, nb, _, term) = base(n, p);
        let both = n.push(Gate::And(vec![p.a, p.b]));
        (na, nb, both, term)
    }));
    assert_eq!(f.factors.len(), 1, "{f:?}");
}

#[test]
fn a_conjunction_of_views_keeps_the_boards_apart() {
    let f = find_factors(&game(|n, p| {
        let (na, nb, _, term) = base(n, p);
        let va = n.push(Gate::Or(vec![p.a, p.t]));
        let vb = n.push(Gate::Or(vec![p.b, p.t]));
        let both = n.push(Gate::And(vec![va, vb]));
        (na, nb, both, term)
    }));
    assert_eq!(f.factors.len(), 2, "{f:?}");
}

#[test]
fn a_noop_that_keeps_both_boards_is_crossing() {
    let f = find_factors(&game(|n, p| {
        let (_, _, goal, term) = base(n, p);
        let keep_a = n.push(Gate::And(vec![p.a, p.noop]));
        let keep_b = n.push(Gate::And(vec![p.b, p.noop]));
        let na = n.push(Gate::Or(vec![keep_a, p.fa]));
        let nb = n.push(Gate::Or(vec![keep_b, p.fb]));
        (na, nb, goal, term)
    }));
    assert_eq!(f.factors.len(), 2, "{f:?}");
    assert_eq!(f.crossing, inputs(&[2]));
    assert!(f.inert.is_empty());
}

#[test]
fn a_board_without_a_move_of_its_own_is_merged() {
    // b' = b ∨ fa: fa touches both boards, fb only b (its legality), so b keeps fb and a
    // has no own move: merged with b through fa.
    let f = find_factors(&game(|n, p| {
        let (na, _, goal, term) = base(n, p);
        let nb = n.push(Gate::Or(vec![p.b, p.fa]));
        (na, nb, goal, term)
    }));
    assert_eq!(shape(&f), vec![(latches(&[0, 1]), inputs(&[0, 1]), true)]);
}

#[test]
fn a_board_that_reaches_no_goal_terminal_or_legal_move_is_irrelevant() {
    let mut net = game(|n, p| {
        let (na, nb, _, _) = base(n, p);
        (na, nb, p.a, p.a)
    });
    // b still decides whether fb is legal: a move that rules out a later one can matter.
    let f = find_factors(&net);
    assert!(f.factors.iter().all(|x| x.relevant), "{f:?}");
    let always = net.push(Gate::Const(true));
    net.roles[0].legal[1].gate = always;
    assert_eq!(
        shape(&find_factors(&net)),
        vec![
            (latches(&[0]), inputs(&[0]), true),
            (latches(&[1]), inputs(&[1]), false)
        ]
    );
}

#[test]
fn a_game_whose_latches_depend_on_no_move_has_no_factor() {
    let f = find_factors(&game(|n, p| {
        let (_, _, goal, term) = base(n, p);
        (p.a, p.b, goal, term)
    }));
    assert!(f.factors.is_empty());
    assert_eq!(f.shared, latches(&[0, 1, 2]));
    assert_eq!(f.inert, inputs(&[0, 1, 2]), "no move changes a fluent");
}

#[test]
fn no_board_won_written_as_a_conjunction_of_negations_keeps_them_apart() {
    let f = find_factors(&game(|n, p| {
        let (na, nb, _, term) = base(n, p);
        let not_a = n.push(Gate::Not(p.a));
        let not_b = n.push(Gate::Not(p.b));
        let neither = n.push(Gate::And(vec![not_a, not_b]));
        (na, nb, neither, term)
    }));
    assert_eq!(f.factors.len(), 2, "{f:?}");
}

#[test]
fn moves_of_a_board_that_reaches_no_outcome_are_outcome_free() {
    let net = game(|n, p| {
        let (na, nb, _, _) = base(n, p);
        (na, nb, p.a, p.a)
    });
    // fb changes only b, which reaches no goal or terminal but does reach fb's own
    // legality: b is read by a legal gate, so fb is not free; noop changes nothing.
    assert_eq!(
        crate::factors::outcome_free_moves(&net),
        vec![false, false, true]
    );
    let mut free_b = net.clone();
    let always = free_b.push(Gate::Const(true));
    free_b.roles[0].legal[1].gate = always;
    assert_eq!(
        crate::factors::outcome_free_moves(&free_b),
        vec![false, true, true],
        "with fb always legal, b reaches nothing the game asks"
    );
}

/// Coins, each with its own set move, and a `pass` legal when any coin is set: with more
/// coins than a gate's set lists (`MAX_LISTED`), the analysis says it gave up and makes the
/// game one factor; with fewer, every coin is a factor.
#[test]
fn too_many_components_at_one_gate_give_up_and_say_so() {
    use crate::factors::MAX_LISTED;
    for (coins, factored) in [(MAX_LISTED - 4, true), (MAX_LISTED + 6, false)] {
        let mut n = Netlist::default();
        let mut legal = Vec::new();
        let mut latch_gates = Vec::new();
        for c in 0..coins {
            let l = n.push(Gate::Latch(LatchId(c as u32)));
            let i = n.push(Gate::Input(InputId(c as u32)));
            let next = n.push(Gate::Or(vec![l, i]));
            let unset = n.push(Gate::Not(l));
            n.latches.push(Latch {
                name: format!("(coin {c:03})"),
                init: false,
                next,
            });
            n.inputs.push(Input {
                role: RoleId(0),
                name: format!("(set {c:03})"),
            });
            legal.push(Legal {
                input: InputId(c as u32),
                gate: unset,
            });
            latch_gates.push(l);
        }
        let any = n.push(Gate::Or(latch_gates));
        n.inputs.push(Input {
            role: RoleId(0),
            name: "pass".into(),
        });
        legal.push(Legal {
            input: InputId(coins as u32),
            gate: any,
        });
        n.terminal = n.push(Gate::Const(false));
        n.roles.push(Role {
            percepts: Vec::new(),
            name: "r0".into(),
            legal,
            goals: vec![Goal {
                value: 100,
                gate: any,
            }],
        });
        validate(&n).expect("a valid test game");
        let f = find_factors(&n);
        assert_eq!(f.gave_up, !factored, "{coins} coins");
        assert_eq!(
            f.factors.len(),
            if factored { coins } else { 1 },
            "{coins} coins"
        );
    }
}

#[test]
fn a_factor_game_keeps_its_own_moves_and_plays_elsewhere_by_a_pseudo_noop() {
    use crate::factors::{factor_game, ELSEWHERE};
    use crate::playout::legal_of;
    use crate::scalar::ScalarNet;
    let always_noop = game(base);
    let f = find_factors(&always_noop);
    let g = factor_game(&always_noop, &f, 0);
    assert_eq!(
        g.elsewhere,
        [Some(InputId(2))],
        "the always-legal noop stands for board B"
    );
    assert_eq!(g.net.inputs.len(), 3);
    // a noop legal only while board A is open is no pass elsewhere: a pseudo-noop is added
    let mut net = always_noop.clone();
    let not_a = net.roles[0].legal[0].gate;
    net.roles[0].legal[2].gate = not_a;
    let f = find_factors(&net);
    assert_eq!(
        f.factor_of_input(InputId(2)),
        Some(0),
        "noop now reads board A"
    );
    let g = factor_game(&net, &f, 0);
    validate(&g.net).expect("a factor game is a valid netlist");
    let pseudo = g.elsewhere[0].expect("r0 has a move in board B");
    assert_eq!(
        pseudo,
        InputId(3),
        "pseudo-noops come after the game's inputs"
    );
    assert_eq!(g.net.inputs[3].name, ELSEWHERE);
    assert_eq!(g.own, vec![true, false, true, false]);
    assert_eq!(g.net.latches, net.latches, "the same latches, in order");
    let (mut whole, mut part) = (ScalarNet::new(&net), ScalarNet::new(&g.net));
    for state in [
        [false, false, true],
        [false, true, true],
        [true, false, false],
    ] {
        let of = |s: &mut ScalarNet, n: &Netlist| legal_of(n, s.view(&state)).remove(0);
        let (all, mine) = (of(&mut whole, &net), of(&mut part, &g.net));
        let elsewhere = all.contains(&InputId(1));
        let expect: Vec<InputId> = all
            .iter()
            .copied()
            .filter(|&m| m != InputId(1))
            .chain(elsewhere.then_some(pseudo))
            .collect();
        let mut mine_sorted = mine.clone();
        mine_sorted.sort();
        assert_eq!(mine_sorted, expect, "state {state:?}");
        for &m in &mine {
            let next = part.next_state(&g.net, &state, &[m]);
            if m == pseudo {
                assert_eq!(next[..2], state[..2], "a pseudo-noop changes no board");
            } else {
                assert_eq!(next, whole.next_state(&net, &state, &[m]), "move {m}");
            }
        }
    }
}
