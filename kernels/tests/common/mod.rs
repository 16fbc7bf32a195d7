//! Helpers shared by the kernels' integration tests: tiny hand-built netlists and the GPU
//! availability gate.
#![allow(dead_code)]

use propnet_netlist::{
    Gate, GateId, Goal, Input, InputId, Latch, LatchId, Legal, Netlist, Role, RoleId,
};

/// True when an adapter (a real GPU or lavapipe) exists. Without one it prints why and
/// returns false (the test skips), unless the environment sets `PROPNET_REQUIRE_GPU=1` (CI
/// does), in which case the absence is a failure (panic).
pub fn gpu_available() -> bool {
    propnet_kernels::runner::adapter_for_tests()
}

/// A two-bit counter game for one role: moves `inc` (always legal) and `wait` (legal while
/// bit 0 is clear); terminal when both bits are set; goal 100 then, else 0.
pub fn counter() -> Netlist {
    let mut n = Netlist::default();
    let b0 = n.push(Gate::Latch(LatchId(0)));
    let b1 = n.push(Gate::Latch(LatchId(1)));
    let t = n.push(Gate::And(vec![b0, b1]));
    let nb0 = n.push(Gate::Not(b0));
    let yes = n.push(Gate::Const(true));
    let inc = n.push(Gate::Input(InputId(0)));
    let x1 = n_and(&mut n, b0, inc, true);
    let x2 = n_and(&mut n, b0, inc, false);
    let nb0_next = n.push(Gate::Or(vec![x1, x2]));
    let carry = n.push(Gate::And(vec![b0, inc]));
    let b1_next = n.push(Gate::Or(vec![b1, carry]));
    n.latches = vec![
        Latch {
            name: "(bit 0)".into(),
            init: false,
            next: nb0_next,
        },
        Latch {
            name: "(bit 1)".into(),
            init: false,
            next: b1_next,
        },
    ];
    n.inputs = vec![
        Input {
            role: RoleId(0),
            name: "inc".into(),
        },
        Input {
            role: RoleId(0),
            name: "wait".into(),
        },
    ];
    let _ = n.push(Gate::Input(InputId(1)));
    n.roles = vec![Role {
        percepts: Vec::new(),
        name: "player".into(),
        legal: vec![
            Legal {
                input: InputId(0),
                gate: yes,
            },
            Legal {
                input: InputId(1),
                gate: nb0,
            },
        ],
        goals: vec![
            Goal {
                value: 0,
                gate: nb0,
            },
            Goal {
                value: 100,
                gate: t,
            },
        ],
    }];
    n.terminal = t;
    n
}

/// `a XOR b` built from And/Or/Not: `(a & !b) | (!a & b)`; `first` selects which term.
fn n_and(n: &mut Netlist, a: GateId, b: GateId, first: bool) -> GateId {
    if first {
        let nb = n.push(Gate::Not(b));
        n.push(Gate::And(vec![a, nb]))
    } else {
        let na = n.push(Gate::Not(a));
        n.push(Gate::And(vec![na, b]))
    }
}

/// Two roles; role 1 (`blue`) has a single move, legal only while latch `lock` is clear, and
/// `red` sets `lock` with move `close`: playouts can end with `NoLegalMove(1)`. Terminal when
/// the `(done)` latch is set by red's `stop`; goals 50/100 for red, none for blue.
pub fn stuck() -> Netlist {
    let mut n = Netlist::default();
    let lock = n.push(Gate::Latch(LatchId(0)));
    let done = n.push(Gate::Latch(LatchId(1)));
    let free = n.push(Gate::Not(lock));
    let yes = n.push(Gate::Const(true));
    let none = n.push(Gate::Or(vec![]));
    let close = n.push(Gate::Input(InputId(0)));
    let stop = n.push(Gate::Input(InputId(2)));
    let lock_next = n.push(Gate::Or(vec![lock, close]));
    let done_next = n.push(Gate::Or(vec![done, stop]));
    let _ = n.push(Gate::Input(InputId(1)));
    let _ = n.push(Gate::Input(InputId(3)));
    n.latches = vec![
        Latch {
            name: "lock".into(),
            init: false,
            next: lock_next,
        },
        Latch {
            name: "done".into(),
            init: false,
            next: done_next,
        },
    ];
    n.inputs = vec![
        Input {
            role: RoleId(0),
            name: "close".into(),
        },
        Input {
            role: RoleId(0),
            name: "pass".into(),
        },
        Input {
            role: RoleId(0),
            name: "stop".into(),
        },
        Input {
            role: RoleId(1),
            name: "move".into(),
        },
    ];
    n.roles = vec![
        Role {
            percepts: Vec::new(),
            name: "red".into(),
            legal: vec![
                Legal {
                    input: InputId(0),
                    gate: yes,
                },
                Legal {
                    input: InputId(1),
                    gate: yes,
                },
                Legal {
                    input: InputId(2),
                    gate: yes,
                },
            ],
            goals: vec![
                Goal {
                    value: 50,
                    gate: yes,
                },
                Goal {
                    value: 100,
                    gate: done,
                },
            ],
        },
        Role {
            percepts: Vec::new(),
            name: "blue".into(),
            legal: vec![Legal {
                input: InputId(3),
                gate: free,
            }],
            goals: vec![Goal {
                value: 0,
                gate: none,
            }],
        },
    ];
    n.terminal = done;
    n
}
