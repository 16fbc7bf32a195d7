//! The factored player on dual tic-tac-toe (`bench-games/dual_tictactoe.kif`: a plain and a
//! misère board, the first to end decides), with the CPU simulator.

use super::*;
use crate::matches::play_game;
use crate::player::RandomPlayer;
use propnet_compiler::gdl;
use propnet_netlist::ValidNetlist;
use propnet_runtime::machine::NetMachine;

const DUAL: &str = include_str!("../../../bench-games/dual_tictactoe.kif");

fn dual() -> Netlist {
    let game = gdl::parse_source("dual_tictactoe.kif", DUAL.as_bytes()).unwrap();
    let (net, _) = propnet_runtime::pipeline::compile_game(
        &game,
        std::time::Duration::ZERO,
        &Default::default(),
    )
    .unwrap();
    net.into_netlist()
}

/// One single-threaded CPU simulator for `net`.
fn backends(net: &Netlist) -> Result<Vec<Box<dyn Backend>>, String> {
    let opts = propnet_sim::CpuOptions {
        threads: 1,
        ..Default::default()
    };
    let valid = ValidNetlist::new(net.clone()).map_err(|e| e.to_string())?;
    let cpu = propnet_sim::CpuBackend::new(valid, opts).map_err(|e| e.to_string())?;
    Ok(vec![Box::new(cpu)])
}

fn player(net: &Netlist, iterations: u64) -> FactoredPlayer {
    let params = MctsParams {
        seed: 7,
        ..MctsParams::default()
    };
    let budget = Budget::Iterations(iterations);
    FactoredPlayer::new("factored".into(), net, &mut backends, params, budget).unwrap()
}

fn input(net: &Netlist, role: usize, name: &str) -> InputId {
    let at = net
        .inputs
        .iter()
        .position(|i| i.role.index() == role && i.name == name)
        .unwrap_or_else(|| panic!("no move {name}"));
    InputId(at as u32)
}

/// The state after `moves` (x's and o's moves alternating, the other role passing).
fn after(net: &Netlist, moves: &[&str]) -> State {
    let m = NetMachine::new(net);
    let mut state = m.initial_state();
    for (k, name) in moves.iter().enumerate() {
        let (r, o) = (k % 2, 1 - k % 2);
        let mut joint = vec![InputId(0); 2];
        joint[r] = input(net, r, name);
        joint[o] = input(net, o, "pass");
        state = m.next_state(&state, &joint);
    }
    state
}

/// x can win on the plain board at once, and would lose by completing its misère line:
/// each board's tree sees its own threat, and the player takes the win.
#[test]
fn the_factored_player_takes_the_plain_win_and_avoids_the_misere_line() {
    let net = dual();
    let mut p = player(&net, 2_000);
    assert_eq!(p.factors_searched(), 2);
    let state = after(
        &net,
        &[
            "(play misere 3 1)",
            "pass",
            "(play misere 3 2)",
            "pass",
            "(play plain 1 1)",
            "(play plain 2 1)",
            "(play plain 1 2)",
            "(play plain 2 2)",
        ],
    );
    let m = NetMachine::new(&net);
    let legal = m.legal_moves(&state);
    p.new_game(0, 0);
    let chosen = p.choose(&net, &state, 0, &legal).unwrap();
    assert_eq!(net.inputs[chosen.index()].name, "(play plain 1 3)");
    assert_eq!(p.factored_moves, 1);
    // o to move after x's misère threat: o blocks nothing there (a line there loses for
    // x), and takes its own plain win
    let state = after(
        &net,
        &[
            "(play plain 1 1)",
            "(play plain 2 1)",
            "(play plain 1 2)",
            "(play plain 2 2)",
            "(play misere 1 1)",
        ],
    );
    let legal = m.legal_moves(&state);
    p.new_game(1, 1);
    let chosen = p.choose(&net, &state, 1, &legal).unwrap();
    assert_eq!(net.inputs[chosen.index()].name, "(play plain 2 3)");
}

/// Over a few games against a random player, with seats swapped, the factored player never
/// loses, and its moves come from the factors' trees.
#[test]
fn the_factored_player_does_not_lose_to_random() {
    let net = dual();
    let mut players: Vec<Box<dyn Player>> = vec![
        Box::new(player(&net, 1_000)),
        Box::new(RandomPlayer::new(3)),
    ];
    for game in 0..4u64 {
        let seats = if game % 2 == 0 { [0, 1] } else { [1, 0] };
        let rec = play_game(&net, &mut players, &seats, game, 40).unwrap();
        let ours = seats.iter().position(|&p| p == 0).unwrap();
        assert!(rec.goals[ours] >= 50, "game {game}: {rec:?}");
    }
    let totals = players[0].totals().unwrap();
    assert!(totals.searches > 0);
}
