//! Hand-built netlists of two small classic games (tic-tac-toe, connect four) for tests of
//! MCTS and the solver that must not depend on the GDL compiler. Built only for this
//! crate's tests and with the `testing` feature (other crates' tests); not part of the API.
//!
//! Both follow the usual GGP rules (`ticTacToe.kif`, `connectFour.kif`): roles alternate,
//! the idle role plays `noop`, the winner scores 100 and the loser 0, a full board without a
//! line is 50/50.

use propnet_netlist::{
    Gate, GateId, Goal, Input, InputId, Latch, LatchId, Legal, Netlist, Role, RoleId,
};
use std::collections::BTreeMap;

/// Builds a netlist from named latches, inputs and gates, keeping latches sorted by name.
struct Builder {
    net: Netlist,
    latch_gate: BTreeMap<String, GateId>,
    input_gate: BTreeMap<(usize, String), GateId>,
}

impl Builder {
    /// Creates the latch and input gates: `latches` as `(name, init)`, `moves[r]` role r's moves.
    fn new(roles: &[&str], mut latches: Vec<(String, bool)>, moves: &[Vec<String>]) -> Self {
        latches.sort();
        let mut net = Netlist::default();
        let mut latch_gate = BTreeMap::new();
        for (i, (name, init)) in latches.into_iter().enumerate() {
            let g = net.push(Gate::Latch(LatchId(i as u32)));
            latch_gate.insert(name.clone(), g);
            net.latches.push(Latch {
                name,
                init,
                next: GateId(0),
            });
        }
        let mut input_gate = BTreeMap::new();
        for (r, ms) in moves.iter().enumerate() {
            let mut ms = ms.clone();
            ms.sort();
            for m in ms {
                let id = InputId(net.inputs.len() as u32);
                let g = net.push(Gate::Input(id));
                input_gate.insert((r, m.clone()), g);
                net.inputs.push(Input {
                    role: RoleId(r as u32),
                    name: m,
                });
            }
        }
        net.roles = roles
            .iter()
            .map(|n| Role {
                percepts: Vec::new(),
                name: n.to_string(),
                legal: vec![],
                goals: vec![],
            })
            .collect();
        Self {
            net,
            latch_gate,
            input_gate,
        }
    }
    fn latch(&self, name: &str) -> GateId {
        self.latch_gate[name]
    }
    fn input(&self, role: usize, name: &str) -> GateId {
        self.input_gate[&(role, name.to_string())]
    }
    fn and(&mut self, ops: Vec<GateId>) -> GateId {
        self.net.push(Gate::And(ops))
    }
    fn or(&mut self, ops: Vec<GateId>) -> GateId {
        self.net.push(Gate::Or(ops))
    }
    fn not(&mut self, a: GateId) -> GateId {
        self.net.push(Gate::Not(a))
    }
    fn set_next(&mut self, latch: &str, gate: GateId) {
        let g = self.latch(latch);
        let Gate::Latch(l) = self.net.gates[g.index()] else {
            unreachable!()
        };
        self.net.latches[l.index()].next = gate;
    }
    /// Adds role `r`'s legal move `name`, legal when `gate` holds.
    fn legal(&mut self, r: usize, name: &str, gate: GateId) {
        let g = self.input(r, name);
        let Gate::Input(input) = self.net.gates[g.index()] else {
            unreachable!()
        };
        self.net.roles[r].legal.push(Legal { input, gate });
    }
    /// Two-player win/draw/loss goals and terminal from the two "has a line" gates and "board
    /// full".
    fn finish_two_player(mut self, line: [GateId; 2], full: GateId) -> Netlist {
        let no0 = self.not(line[0]);
        let no1 = self.not(line[1]);
        let draw = self.and(vec![no0, no1]);
        for r in 0..2 {
            self.net.roles[r].legal.sort_by(|a, b| {
                self.net.inputs[a.input.index()]
                    .name
                    .cmp(&self.net.inputs[b.input.index()].name)
            });
            self.net.roles[r].goals = vec![
                Goal {
                    value: 0,
                    gate: line[1 - r],
                },
                Goal {
                    value: 50,
                    gate: draw,
                },
                Goal {
                    value: 100,
                    gate: line[r],
                },
            ];
        }
        self.net.terminal = self.or(vec![line[0], line[1], full]);
        self.net
    }
}

/// Tic-tac-toe on a 3×3 board: roles `xplayer` (moves first) and `oplayer`, moves
/// `(mark X Y)` with X, Y in 1..=3 and `noop`; fluents `(cell X Y b|x|o)`, `(control R)`.
pub fn tictactoe() -> Netlist {
    let roles = ["xplayer", "oplayer"];
    let marks = ["x", "o"];
    let mut latches = vec![
        ("(control xplayer)".to_string(), true),
        ("(control oplayer)".to_string(), false),
    ];
    let cells: Vec<(u32, u32)> = (1..=3).flat_map(|x| (1..=3).map(move |y| (x, y))).collect();
    for &(x, y) in &cells {
        for c in ["b", "x", "o"] {
            latches.push((format!("(cell {x} {y} {c})"), c == "b"));
        }
    }
    let moves: Vec<Vec<String>> = (0..2)
        .map(|_| {
            cells
                .iter()
                .map(|(x, y)| format!("(mark {x} {y})"))
                .chain(["noop".to_string()])
                .collect()
        })
        .collect();
    let mut b = Builder::new(&roles, latches, &moves);
    for r in 0..2 {
        let ctl = b.latch(&format!("(control {})", roles[r]));
        for &(x, y) in &cells {
            let blank = b.latch(&format!("(cell {x} {y} b)"));
            let g = b.and(vec![ctl, blank]);
            b.legal(r, &format!("(mark {x} {y})"), g);
        }
        let other = b.latch(&format!("(control {})", roles[1 - r]));
        b.legal(r, "noop", other);
    }
    for &(x, y) in &cells {
        let m = format!("(mark {x} {y})");
        let by = [b.input(0, &m), b.input(1, &m)];
        let any = b.or(by.to_vec());
        let blank = b.latch(&format!("(cell {x} {y} b)"));
        let not_any = b.not(any);
        let stays_blank = b.and(vec![blank, not_any]);
        b.set_next(&format!("(cell {x} {y} b)"), stays_blank);
        for r in 0..2 {
            let name = format!("(cell {x} {y} {})", marks[r]);
            let had = b.latch(&name);
            let put = b.and(vec![blank, by[r]]);
            let g = b.or(vec![had, put]);
            b.set_next(&name, g);
        }
    }
    for r in 0..2 {
        let other = b.latch(&format!("(control {})", roles[1 - r]));
        b.set_next(&format!("(control {})", roles[r]), other);
    }
    let lines: Vec<[(u32, u32); 3]> = {
        let mut v = vec![];
        for i in 1..=3 {
            v.push([(i, 1), (i, 2), (i, 3)]);
            v.push([(1, i), (2, i), (3, i)]);
        }
        v.push([(1, 1), (2, 2), (3, 3)]);
        v.push([(1, 3), (2, 2), (3, 1)]);
        v
    };
    let mut line = [GateId(0); 2];
    for r in 0..2 {
        let ands: Vec<GateId> = lines
            .iter()
            .map(|l| {
                let ops = l
                    .iter()
                    .map(|(x, y)| b.latch(&format!("(cell {x} {y} {})", marks[r])))
                    .collect();
                b.and(ops)
            })
            .collect();
        line[r] = b.or(ands);
    }
    let blanks: Vec<GateId> = cells
        .iter()
        .map(|(x, y)| b.latch(&format!("(cell {x} {y} b)")))
        .collect();
    let open = b.or(blanks);
    let full = b.not(open);
    b.finish_two_player(line, full)
}

/// Connect four on 7 columns × 6 rows: roles `white` (moves first) and `red`, moves
/// `(drop C)` with C in 1..=7 and `noop`; fluents `(cell C R white|red)` (empty = neither),
/// `(control R)`. Four in a row (any direction) wins; a full board is a draw.
pub fn connect_four() -> Netlist {
    const COLS: i32 = 7;
    const ROWS: i32 = 6;
    let roles = ["white", "red"];
    let mut latches = vec![
        ("(control white)".to_string(), true),
        ("(control red)".to_string(), false),
    ];
    for c in 1..=COLS {
        for r in 1..=ROWS {
            for p in roles {
                latches.push((format!("(cell {c} {r} {p})"), false));
            }
        }
    }
    let moves: Vec<Vec<String>> = (0..2)
        .map(|_| {
            (1..=COLS)
                .map(|c| format!("(drop {c})"))
                .chain(["noop".to_string()])
                .collect()
        })
        .collect();
    let mut b = Builder::new(&roles, latches, &moves);
    let mut filled = BTreeMap::new();
    for c in 1..=COLS {
        for r in 1..=ROWS {
            let ops = roles
                .iter()
                .map(|p| b.latch(&format!("(cell {c} {r} {p})")))
                .collect();
            let f = b.or(ops);
            filled.insert((c, r), f);
        }
    }
    for (i, role) in roles.iter().enumerate() {
        let ctl = b.latch(&format!("(control {role})"));
        for c in 1..=COLS {
            let top_empty = b.not(filled[&(c, ROWS)]);
            let g = b.and(vec![ctl, top_empty]);
            b.legal(i, &format!("(drop {c})"), g);
        }
        let other = b.latch(&format!("(control {})", roles[1 - i]));
        b.legal(i, "noop", other);
    }
    for c in 1..=COLS {
        let m = format!("(drop {c})");
        for r in 1..=ROWS {
            // The piece lands at (c, r) when the cell is empty and the one below is filled.
            let empty = b.not(filled[&(c, r)]);
            let lands = if r == 1 {
                empty
            } else {
                b.and(vec![empty, filled[&(c, r - 1)]])
            };
            for (i, p) in roles.iter().enumerate() {
                let name = format!("(cell {c} {r} {p})");
                let had = b.latch(&name);
                let does = b.input(i, &m);
                let put = b.and(vec![lands, does]);
                let g = b.or(vec![had, put]);
                b.set_next(&name, g);
            }
        }
    }
    for i in 0..2 {
        let other = b.latch(&format!("(control {})", roles[1 - i]));
        b.set_next(&format!("(control {})", roles[i]), other);
    }
    let mut line = [GateId(0); 2];
    for (i, p) in roles.iter().enumerate() {
        let mut ands = vec![];
        for c in 1..=COLS {
            for r in 1..=ROWS {
                for (dc, dr) in [(1, 0), (0, 1), (1, 1), (1, -1)] {
                    let (ec, er) = (c + 3 * dc, r + 3 * dr);
                    if !(1..=COLS).contains(&ec) || !(1..=ROWS).contains(&er) {
                        continue;
                    }
                    let ops = (0..4)
                        .map(|k| b.latch(&format!("(cell {} {} {p})", c + k * dc, r + k * dr)))
                        .collect();
                    ands.push(b.and(ops));
                }
            }
        }
        line[i] = b.or(ands);
    }
    let tops: Vec<GateId> = (1..=COLS).map(|c| filled[&(c, ROWS)]).collect();
    let full = b.and(tops);
    b.finish_two_player(line, full)
}

#[cfg(test)]
mod tests {
    use super::*;
    use propnet_netlist::validate;

    #[test]
    fn fixtures_validate_and_have_expected_shape() {
        let t = tictactoe();
        validate(&t).unwrap();
        assert_eq!(
            (t.latches.len(), t.inputs.len(), t.roles.len()),
            (29, 20, 2)
        );
        let c = connect_four();
        validate(&c).unwrap();
        assert_eq!((c.latches.len(), c.inputs.len()), (86, 16));
    }
}
