//! Grounding memory (issue #45): the two shapes of game that used to stop at the default
//! grounding budget compile under it, and the grounder reports its peak memory per atom,
//! per rule instance and per table entry.
//!
//! - `bench-games/guess_two_thirds_6p.kif`: six players, scoring by an absolute difference
//!   written as a recursion over `succ` on 0..300;
//! - `bench-games/sudoku_9x9.kif`: a 9×9 sudoku, 729 move propositions, row, column and
//!   box constraints (the held-out public files are checked separately).
//!
//! Memory is asserted through the budget (the default one, and the counted peak bytes),
//! never through time.

use propnet_compiler::gdl;
use propnet_compiler::ground::{compile_with_report, CompileOptions, CompileReport};
use std::path::Path;

/// Compiles a bench game with the default budgets; panics with the located error.
fn compile_bench(name: &str) -> CompileReport {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../bench-games")
        .join(name);
    let game = gdl::load(&path).expect("the bench game loads");
    match compile_with_report(&game.program, &CompileOptions::default()) {
        Ok((net, report)) => {
            propnet_netlist::validate(&net).expect("a valid netlist");
            println!(
                "{name}: {} atoms ({} answers), {} instances, peak {} KiB: {:.1} B/atom, {:.1} B/instance, {:.1} B/entry",
                report.atoms,
                report.answers,
                report.instances,
                report.peak_bytes >> 10,
                report.bytes_per_atom(),
                report.bytes_per_instance(),
                report.bytes_per_entry()
            );
            report
        }
        Err(e) => panic!("{name}: {}", e.located(&game.source)),
    }
}

/// The counted peak covers the tables and bounds them: it is never below the tables'
/// own peak, the per-unit figures are consistent with it, and it is within the budget.
fn check_report(r: &CompileReport) {
    assert!(r.peak_bytes >= r.table_bytes, "peak below the tables");
    assert!(r.peak_bytes <= CompileOptions::default().budget.max_memory);
    assert!(r.table_entries >= r.atoms + r.answers + r.terms);
    let atoms = (r.atoms + r.answers) as f64;
    assert!((r.bytes_per_atom() * atoms - r.peak_bytes as f64).abs() < 1.0);
}

#[test]
fn guess_two_thirds_of_the_average_with_six_players_compiles() {
    let r = compile_bench("guess_two_thirds_6p.kif");
    check_report(&r);
    assert_eq!(r.stats.inputs, 6 * 51, "six players guess 0..=50");
    assert_eq!(
        r.stats.latches,
        6 * 51,
        "one guessed fluent per player and number"
    );
}

#[test]
fn sudoku_9x9_compiles() {
    let r = compile_bench("sudoku_9x9.kif");
    check_report(&r);
    assert!(
        r.stats.inputs > 0 && r.stats.inputs <= 729,
        "a move per cell and digit"
    );
    assert!(r.stats.latches >= 81, "a fluent per cell");
}
