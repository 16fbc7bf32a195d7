//! Text of `propnet check --factors`: what [`propnet_netlist::factors`] found in a game.

use super::plural;
use propnet_netlist::factors::{outcome_free_moves, Factors, MAX_LISTED};
use propnet_netlist::{InputId, LatchId, Netlist};
use std::fmt::Write;

/// Names listed per kind before "… and N more".
const SHOWN: usize = 4;
/// Factors described line by line before the rest are counted.
const FACTOR_LINES: usize = 8;

/// Describes `factors` of `net`: a summary line, then a line per factor (fluents, moves,
/// whether it can change the outcome; the first [`FACTOR_LINES`]), the shared latches,
/// crossing and inert moves, and the outcome-free moves.
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
        "factors: {verdict}; {}, {}, {}",
        plural(factors.shared.len() as u64, "shared fluent"),
        plural(factors.crossing.len() as u64, "crossing move"),
        plural(factors.inert.len() as u64, "inert move"),
    );
    if factors.gave_up {
        let _ = writeln!(
            out,
            "  (the analysis gave up: a gate reads more than {MAX_LISTED} components, so the \
             game is taken as one factor)"
        );
    }
    if n >= 2 {
        factor_lines(&mut out, net, factors);
        let _ = writeln!(
            out,
            "  searched apart (one tree per factor that matters) by `propnet player` (unless \
             `--no-factoring`) and by the `factored` MCTS player: \
             `propnet match GAME --players mcts:cpu:1s:factored,…`"
        );
    }
    let kinds = [
        (
            "shared (their next value depends on no move)",
            list(factors.shared.iter().map(|&l| latch(net, l))),
        ),
        (
            "crossing (touch several factors)",
            list(factors.crossing.iter().map(|&i| input(net, i))),
        ),
        (
            "inert (touch no factor: change no fluent a move changes, legal whatever those hold)",
            list(factors.inert.iter().map(|&i| input(net, i))),
        ),
    ];
    for (label, names) in kinds {
        if !names.is_empty() {
            let _ = writeln!(out, "  {label}: {names}");
        }
    }
    let free = outcome_free_moves(net);
    let free = (0..free.len())
        .filter(|&i| free[i])
        .map(|i| InputId(i as u32));
    let free: Vec<String> = free.map(|i| input(net, i)).collect();
    if !free.is_empty() {
        let _ = writeln!(
            out,
            "  outcome-free (change only fluents that reach no goal, terminal or legal move; \
             a search keeps one per role): {}",
            list(free.into_iter())
        );
    }
    out
}

/// A line per factor, relevant ones first (each numbered by its place in the analysis), the
/// first [`FACTOR_LINES`]; then how many more and how many of them are irrelevant.
fn factor_lines(out: &mut String, net: &Netlist, factors: &Factors) {
    let mut order: Vec<usize> = (0..factors.factors.len()).collect();
    order.sort_by_key(|&k| !factors.factors[k].relevant);
    for &k in order.iter().take(FACTOR_LINES) {
        let f = &factors.factors[k];
        let _ = writeln!(
            out,
            "  factor {}: {}, {}{}: {}; {}",
            k + 1,
            plural(f.latches.len() as u64, "fluent"),
            plural(f.inputs.len() as u64, "move"),
            if f.relevant {
                ""
            } else {
                " (irrelevant: reaches no goal, terminal or legal move)"
            },
            list(f.latches.iter().map(|&l| latch(net, l))),
            list(f.inputs.iter().map(|&i| input(net, i)))
        );
    }
    let rest: Vec<_> = order
        .iter()
        .skip(FACTOR_LINES)
        .map(|&k| &factors.factors[k])
        .collect();
    if !rest.is_empty() {
        let irrelevant = rest.iter().filter(|f| !f.relevant).count();
        let noun = if rest.len() == 1 { "factor" } else { "factors" };
        let _ = writeln!(
            out,
            "  … and {} more {noun} ({irrelevant} of them irrelevant)",
            rest.len()
        );
    }
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
