//! Text of `propnet check --factors`: what [`propnet_netlist::factors`] found in a game.

use propnet_netlist::factors::{outcome_free_moves, Factors};
use propnet_netlist::{InputId, LatchId, Netlist};
use std::fmt::Write;

/// Names listed per kind before "… and N more".
const SHOWN: usize = 4;

/// Describes `factors` of `net`: a summary line, then a line per factor (fluents, moves,
/// whether it can change the outcome) and the shared latches, crossing and inert moves.
pub fn describe(net: &Netlist, factors: &Factors) -> String {
    let mut out = String::new();
    let n = factors.factors.len();
    let verdict = match n {
        0 => "no fluent depends on a move".to_string(),
        1 => "the game does not factor (1 factor)".to_string(),
        n => format!("{n} independent subgames"),
    };
    let _ = writeln!(
        out,
        "factors: {verdict}; {} shared fluents, {} crossing moves, {} inert moves",
        factors.shared.len(),
        factors.crossing.len(),
        factors.inert.len()
    );
    if n >= 2 {
        for (k, f) in factors.factors.iter().enumerate() {
            let _ = writeln!(
                out,
                "  factor {}: {} fluents, {} moves{}: {}; {}",
                k + 1,
                f.latches.len(),
                f.inputs.len(),
                if f.relevant {
                    ""
                } else {
                    " (irrelevant: reaches no goal or terminal)"
                },
                list(f.latches.iter().map(|&l| latch(net, l))),
                list(f.inputs.iter().map(|&i| input(net, i)))
            );
        }
    }
    let kinds = [
        (
            "shared (no move changes them)",
            list(factors.shared.iter().map(|&l| latch(net, l))),
        ),
        (
            "crossing (touch several factors)",
            list(factors.crossing.iter().map(|&i| input(net, i))),
        ),
        (
            "inert (change no fluent)",
            list(factors.inert.iter().map(|&i| input(net, i))),
        ),
    ];
    for (label, names) in kinds {
        if !names.is_empty() {
            let _ = writeln!(out, "  {label}: {names}");
        }
    }
    let free = outcome_free_moves(net);
    let free: Vec<InputId> = (0..free.len())
        .filter(|&i| free[i])
        .map(|i| InputId(i as u32))
        .collect();
    if !free.is_empty() {
        let _ = writeln!(
            out,
            "  outcome-free (a search keeps one per role): {}",
            list(free.iter().map(|&i| input(net, i)))
        );
    }
    out
}

fn latch(net: &Netlist, l: LatchId) -> String {
    net.latches[l.index()].name.clone()
}

fn input(net: &Netlist, i: InputId) -> String {
    let x = &net.inputs[i.index()];
    format!("{} {}", net.roles[x.role.index()].name, x.name)
}

/// The first [`SHOWN`] names, then how many more.
fn list(names: impl ExactSizeIterator<Item = String>) -> String {
    let total = names.len();
    let mut shown: Vec<String> = names.take(SHOWN).collect();
    if total > SHOWN {
        shown.push(format!("… and {} more", total - SHOWN));
    }
    shown.join(", ")
}
