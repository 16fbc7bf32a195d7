//! Every corpus game the front end accepts compiles to a valid netlist, or fails with the
//! grounding-budget error and is listed in `tests/too-big.txt` (goal: empty). Prints per-game
//! sizes (`cargo test -p propnet-compiler --test corpus_compile -- --nocapture`).

use propnet_compiler::gdl;
use propnet_compiler::ground::{compile_with_report, CompileOptions, GroundError};
use propnet_netlist::validate;

/// Games (relative to `shared/games/`) that exceed the default grounding budget, one per
/// line with `#` comments naming the relation that explodes (`tests/too-big.txt`, the one
/// list the netlist tests skip too). The goal is an empty list. A listed game that compiles
/// is a failure (keep the list minimal). Here they are compiled with a small budget (so the
/// suite stays fast) and must fail with the budget error, never another error, a panic or a
/// hang.
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
use common::{kif_files, shared};

#[test]
fn every_accepted_corpus_game_compiles() {
    let Some(shared) = shared() else { return };
    let games_dir = shared.join("games");
    let mut files = Vec::new();
    kif_files(&games_dir, &mut files);
    let too_big = too_big();
    let mut failures = Vec::new();
    let mut compiled = 0;
    for f in &files {
        let rel = f.strip_prefix(&games_dir).unwrap().display().to_string();
        let Ok(game) = gdl::load(f) else { continue };
        let big = too_big.contains(&rel.as_str());
        let opts = if big {
            small_budget()
        } else {
            CompileOptions::default()
        };
        match compile_with_report(&game.program, &opts) {
            Ok((net, rep)) => {
                validate(&net).unwrap_or_else(|e| panic!("{rel}: invalid netlist: {e}"));
                if big {
                    failures.push(format!(
                        "{rel}: listed in tests/too-big.txt but compiles now"
                    ));
                }
                compiled += 1;
                let s = &rep.stats;
                println!(
                    "{rel}: atoms {} instances {} latches {} inputs {} and {} or {} not {} depth {} loops {} (max {}) ground {:.0?} build {:.0?}",
                    rep.atoms, rep.instances, s.latches, s.inputs, s.and, s.or, s.not, s.depth,
                    rep.cyclic_sccs, rep.largest_cyclic_scc, rep.ground_time, rep.build_time
                );
            }
            Err(e @ GroundError::Budget { .. }) if big => {
                println!("{rel}: too big: {e}");
            }
            Err(e) => failures.push(format!("{rel}: {}", e.located(&game.source))),
        }
    }
    println!("compiled {compiled} games");
    assert!(compiled > 0, "no game compiled");
    assert!(
        failures.is_empty(),
        "games that failed to compile:\n{}",
        failures.join("\n")
    );
}
