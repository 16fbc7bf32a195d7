//! The solver and MCTS on games compiled from GDL: the project's bench games and the shared
//! corpus (skipped with a message when `../shared` is absent, unless
//! `PROPNET_REQUIRE_SHARED=1`).

use propnet_mcts::matches::{play_game, seats_for};
use propnet_mcts::player::{MctsPlayer, Player, RandomPlayer};
use propnet_mcts::{Budget, MctsParams};
use propnet_netlist::Netlist;
use propnet_runtime::machine::NetMachine;
use propnet_runtime::solver::{solve, SolveOptions};
use propnet_sim::{CpuBackend, CpuOptions};
use propnet_tests::{compile_file, shared_file, workspace_root};

/// A bench game compiled by the full pipeline.
fn bench_game(name: &str) -> Netlist {
    compile_file(&workspace_root().join(format!("bench-games/{name}.kif")))
}

/// The shared corpus game, or None (skip) when the corpus is absent and not required.
fn shared_game(rel: &str) -> Option<Netlist> {
    shared_file(&format!("games/{rel}")).map(|p| compile_file(&p))
}

fn solve_root(net: &Netlist, state: &[bool]) -> Vec<u8> {
    solve(net, &state.to_vec(), &SolveOptions::default(), &mut |_| {})
        .unwrap()
        .values
}

#[test]
fn solver_says_tictactoe_kif_is_a_draw() {
    let mut nets = vec![bench_game("tictactoe")];
    nets.extend(shared_game("ggp-repository/ticTacToe.kif"));
    for net in nets {
        let sol = solve(
            &net,
            &net.initial_state(),
            &SolveOptions::default(),
            &mut |_| {},
        )
        .unwrap();
        assert_eq!(sol.values, vec![50, 50]);
        assert_eq!(sol.states, 5478 - 958, "non-final positions of tic-tac-toe");
    }
}

#[test]
fn solver_gives_niu_jiao_qi_value_for_side_to_move() {
    let net = bench_game("niujiaoqi");
    let m = NetMachine::new(&net);
    let s0 = m.initial_state();
    let sol = solve(&net, &s0, &SolveOptions::default(), &mut |_| {}).unwrap();
    let (mover, best) = sol.best.expect("red has a choice at the start");
    assert_eq!(net.roles[mover].name, "red");
    // Optimal play by both sides reaches the 60-ply cut-off: a draw.
    assert_eq!(sol.values, vec![50, 50]);
    // Backward induction holds at the root: no first move of red does better than the value,
    // and the chosen one achieves it.
    let legal = m.legal_moves(&s0);
    let mut values = Vec::new();
    for &mv in &legal[mover] {
        let joint: Vec<_> = legal
            .iter()
            .enumerate()
            .map(|(r, l)| if r == mover { mv } else { l[0] })
            .collect();
        let v = solve_root(&net, &m.next_state(&s0, &joint));
        assert!(
            v[mover] <= sol.values[mover],
            "{} gives red {}",
            m.move_name(mv),
            v[mover]
        );
        values.push((mv, v));
    }
    assert!(values.iter().any(|(mv, v)| *mv == best && v == &sol.values));
}

#[test]
fn mcts_never_loses_tictactoe_kif_against_random() {
    let net = bench_game("tictactoe");
    let params = MctsParams {
        seed: 9,
        playouts_per_leaf: 4,
        leaves_per_batch: 8,
        ..Default::default()
    };
    let cpu = CpuBackend::new(
        propnet_netlist::ValidNetlist::new(net.clone()).expect("valid netlist"),
        CpuOptions {
            threads: 1,
            lane_width: 64,
            ..Default::default()
        },
    )
    .unwrap();
    let mcts = MctsPlayer::new(
        "mcts".into(),
        vec![Box::new(cpu)],
        params,
        Budget::Iterations(300),
    );
    let mut players: Vec<Box<dyn Player>> = vec![Box::new(mcts), Box::new(RandomPlayer::new(10))];
    for g in 0..100 {
        let rec = play_game(&net, &mut players, &seats_for(g, 2, 2), g, 100).unwrap();
        assert_ne!(rec.score_of(0), Some(0), "MCTS lost: {:?}", rec.moves);
    }
}

#[test]
fn more_iterations_beat_fewer_on_connectfour_kif() {
    let net = bench_game("connectfour");
    let player = |iters: u64, seed: u64| -> Box<dyn Player> {
        let params = MctsParams {
            seed,
            playouts_per_leaf: 8,
            leaves_per_batch: 8,
            ..Default::default()
        };
        let cpu = CpuBackend::new(
            propnet_netlist::ValidNetlist::new(net.clone()).expect("valid netlist"),
            CpuOptions {
                threads: 1,
                lane_width: 64,
                ..Default::default()
            },
        )
        .unwrap();
        Box::new(MctsPlayer::new(
            format!("mcts:{iters}"),
            vec![Box::new(cpu)],
            params,
            Budget::Iterations(iters),
        ))
    };
    let mut players = vec![player(300, 5), player(30, 6)];
    let games: Vec<_> = (0..40)
        .map(|g| play_game(&net, &mut players, &seats_for(g, 2, 2), g, 100).unwrap())
        .collect();
    let s = propnet_mcts::matches::player_scores(&games, 2);
    let first_wins = games.iter().filter(|g| g.goals[0] == 100).count();
    eprintln!(
        "connectfour.kif mcts:300 vs mcts:30: {:.1} ± {:.1}; first mover won {first_wins}/40",
        s[0].mean, s[0].ci95
    );
    assert!(s[0].low() > 50.0, "{:.1} ± {:.1}", s[0].mean, s[0].ci95);
}
