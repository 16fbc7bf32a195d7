//! The corpus games listed in `tests/too-big.txt` (goal: none) fail with the grounding-budget
//! error, never another error, a panic or a hang. Every other corpus game the front end
//! accepts is compiled with the default budgets, validated and checked against its oracle
//! trace and the interpreter by `tests/tests/corpus/main.rs`, which compiles each game once
//! for all its checks and prints per-game sizes.

use propnet_compiler::gdl;
use propnet_compiler::ground::{compile_with_report, CompileOptions, GroundError};

/// Games (relative to `shared/games/`) that exceed the default grounding budget, one per
/// line with `#` comments naming the relation that explodes (`tests/too-big.txt`, the one
/// list the netlist tests skip too). The goal is an empty list. Here they are compiled with
/// a small budget (so the suite stays fast) and must fail with the budget error, never
/// another error, a panic or a hang; one that compiles within it, or no longer loads, is a
/// failure. That the list is minimal, i.e. that each listed game still fails under the
/// default budgets, takes minutes per game: the ignored test
/// `listed_corpus_games_fail_under_the_default_budgets` checks it (`-- --ignored`).
fn too_big() -> Vec<&'static str> {
    include_str!("../../tests/too-big.txt")
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect()
}

/// The budget the [`too_big`] games are tried with.
fn small_budget() -> CompileOptions {
    let mut o = CompileOptions::default();
    o.budget.max_time = std::time::Duration::from_secs(3);
    o.budget.max_memory = 256 << 20;
    o
}

mod common;
use common::shared;

#[test]
fn listed_corpus_games_fail_with_the_budget_error() {
    let Some(shared) = shared() else { return };
    let games_dir = shared.join("games");
    let mut failures = Vec::new();
    let mut tried = 0;
    for rel in too_big() {
        let path = games_dir.join(rel);
        let game = match gdl::load(&path) {
            Ok(game) => game,
            Err(e) => {
                failures.push(format!("{rel}: listed but does not load: {e}"));
                continue;
            }
        };
        tried += 1;
        match compile_with_report(&game.program, &small_budget()) {
            Ok(_) => failures.push(format!(
                "{rel}: listed in tests/too-big.txt but compiles within the small budget"
            )),
            Err(e @ GroundError::Budget { .. }) => println!("{rel}: too big: {e}"),
            Err(e) => failures.push(format!("{rel}: {}", e.located(&game.source))),
        }
    }
    println!("{tried} listed games tried");
    assert!(
        failures.is_empty(),
        "listed games that did not fail with the budget error:\n{}",
        failures.join("\n")
    );
}

#[test]
#[ignore = "minutes per listed game; run with `-- --ignored`"]
fn listed_corpus_games_fail_under_the_default_budgets() {
    let Some(shared) = shared() else { return };
    let games_dir = shared.join("games");
    let mut compiled = Vec::new();
    for rel in too_big() {
        let game = gdl::load(&games_dir.join(rel)).expect("a listed game loads");
        match compile_with_report(&game.program, &CompileOptions::default()) {
            Ok(_) => compiled.push(rel),
            Err(e @ GroundError::Budget { .. }) => println!("{rel}: {e}"),
            Err(e) => panic!("{rel}: {}", e.located(&game.source)),
        }
    }
    assert!(
        compiled.is_empty(),
        "listed in tests/too-big.txt but compile under the default budgets: {compiled:?}"
    );
}
