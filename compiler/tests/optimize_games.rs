//! The optimization passes on real games: grounded, optimized, and checked to play exactly
//! like the unoptimized netlist (`passes::check_equivalent`).

use propnet_compiler::{gdl, ground};
use propnet_netlist::passes::{
    check_equivalent, optimize, EquivOptions, OptimizeOptions, PassReport,
};
use propnet_netlist::NetlistStats;

/// Grounds a real game, optimizes it and checks it still plays the same.
fn optimize_game(path: &std::path::Path) -> PassReport {
    let game = gdl::load(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let net = ground::compile(&game.program, &Default::default())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut out = net.clone();
    let report = optimize(&mut out, &OptimizeOptions::default());
    assert!(report.converged, "{}: {report}", path.display());
    let opts = EquivOptions {
        seed: 3,
        playouts: 8,
        max_steps: 200,
    };
    check_equivalent(&net, &out, &opts)
        .unwrap_or_else(|e| panic!("{}: {e}\n{report}", path.display()));
    // `extract_pairs` may add gates (one per shared operand pair) but removes more edges:
    // the netlist's size, gates plus edges, never grows, nor do its edges.
    let size = |s: &NetlistStats| s.and + s.or + s.not + s.edges;
    let (before, after) = (net.stats(), out.stats());
    assert!(after.edges <= before.edges, "{}: {report}", path.display());
    assert!(
        size(&after) <= size(&before),
        "{}: {report}",
        path.display()
    );
    report
}

#[test]
fn optimized_bench_games_play_like_the_originals() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../bench-games");
    for game in ["tictactoe", "connectfour", "breakthrough", "niujiaoqi"] {
        optimize_game(&dir.join(format!("{game}.kif")));
    }
}

#[test]
fn optimized_corpus_games_play_like_the_originals() {
    let dir =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/games/ggp-repository");
    if !dir.is_dir() {
        assert!(
            std::env::var_os("PROPNET_REQUIRE_SHARED").is_none(),
            "{} missing",
            dir.display()
        );
        eprintln!("skipping: {} not found", dir.display());
        return;
    }
    // connectFour's rules leave duplicate and constant logic behind: expect a reduction.
    let r = optimize_game(&dir.join("connectFour.kif"));
    let logic = |s: &NetlistStats| s.and + s.or + s.not;
    assert!(logic(&r.after) < logic(&r.before), "{r}");
    for game in ["ticTacToe", "buttons", "nim1", "eightPuzzle"] {
        optimize_game(&dir.join(format!("{game}.kif")));
    }
}
