//! Perft through the netlist state machine: tic-tac-toe and Connect Four (7x6) joint-move
//! path counts by depth, against the known values (also produced by the oracle).

use propnet_compiler::gdl;
use propnet_compiler::ground::{compile, CompileOptions};
use propnet_runtime::perft::perft;
use propnet_tests::shared_dir;

fn nodes(game: &str, depth: u32) -> Option<Vec<u64>> {
    let shared = shared_dir()?;
    let g = gdl::load(&shared.join("games").join(game)).unwrap_or_else(|e| panic!("{e}"));
    let net = compile(&g.program, &CompileOptions::default())
        .unwrap_or_else(|e| panic!("{}", e.located(&g.source)));
    Some(perft(&net, depth).iter().map(|l| l.nodes).collect())
}

#[test]
fn tictactoe_perft() {
    let Some(n) = nodes("ggp-repository/ticTacToe.kif", 6) else {
        return;
    };
    assert_eq!(n, [9, 72, 504, 3024, 15120, 54720]);
}

#[test]
fn connect_four_perft() {
    let Some(n) = nodes("ggp-repository/connect4.kif", 6) else {
        return;
    };
    assert_eq!(n, [7, 49, 343, 2401, 16807, 117649]);
}
