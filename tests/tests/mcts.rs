//! MCTS (UCT) strength and determinism, and the exact solver, on hand-built tic-tac-toe and
//! connect-four netlists (fixed seeds and iteration budgets, never time).

use propnet_compiler::netlist::random::{random_netlist, RandomSpec};
use propnet_compiler::netlist::Netlist;
use propnet_host::arena::{play_game, player_scores, seats_for, Estimate, GameRecord};
use propnet_host::backend::{Backend, ReferenceBackend};
use propnet_host::fixtures::{connect_four, tictactoe};
use propnet_host::machine::NetMachine;
use propnet_host::mcts::{Budget, MctsParams, Search};
use propnet_host::player::{MctsPlayer, Player, RandomPlayer};
use propnet_host::sim::{CpuBackend, CpuOptions};
use propnet_host::solver::{solve, SolveError, SolveOptions};

/// The bit-parallel CPU backend on one thread (tests run in parallel already), 64 lanes.
fn backend(net: &Netlist) -> Box<dyn Backend> {
    Box::new(
        CpuBackend::new(
            net.clone(),
            CpuOptions {
                threads: 1,
                lane_width: 64,
            },
        )
        .unwrap(),
    )
}

/// An MCTS player with `playouts` rollouts per leaf, 8 leaves per batch, on the CPU backend.
fn mcts(net: &Netlist, iterations: u64, playouts: u32, seed: u64) -> Box<dyn Player> {
    let params = MctsParams {
        seed,
        playouts_per_leaf: playouts,
        leaves_per_batch: 8,
        ..Default::default()
    };
    Box::new(MctsPlayer::new(
        format!("mcts:{iterations}"),
        backend(net),
        params,
        Budget::Iterations(iterations),
    ))
}

fn run_match(net: &Netlist, players: &mut [Box<dyn Player>], games: u64) -> Vec<GameRecord> {
    (0..games)
        .map(|g| {
            play_game(
                net,
                players,
                &seats_for(g, net.roles.len(), players.len()),
                g,
                500,
            )
            .unwrap()
        })
        .collect()
}

#[test]
fn solver_says_tictactoe_is_a_draw() {
    let net = tictactoe();
    let sol = solve(
        &net,
        &net.initial_state(),
        &SolveOptions::default(),
        &mut |_| {},
    )
    .unwrap();
    assert_eq!(sol.values, vec![50, 50]);
    assert_eq!(sol.best.map(|(r, _)| r), Some(0), "xplayer moves first");
    // 5478 legal positions, of which 958 are final; the root is counted too.
    assert_eq!(sol.states, 5478 - 958);
}

#[test]
fn solver_finds_forced_win_after_blunder() {
    // x centre, o edge (1 2) loses for o: x to move has a forced win.
    let net = tictactoe();
    let m = NetMachine::new(&net);
    let mut s = m.initial_state();
    for mv in ["(mark 2 2)", "(mark 1 2)"] {
        let legal = m.legal_moves(&s);
        let joint: Vec<_> = legal
            .iter()
            .map(|l| *l.iter().find(|&&i| m.move_name(i) == mv).unwrap_or(&l[0]))
            .collect();
        s = m.next_state(&s, &joint);
    }
    let sol = solve(&net, &s, &SolveOptions::default(), &mut |_| {}).unwrap();
    assert_eq!(sol.values, vec![100, 0]);
}

#[test]
fn solver_refuses_simultaneous_moves_and_limits_states() {
    let net = random_netlist(3, &RandomSpec::default());
    let err = solve(
        &net,
        &net.initial_state(),
        &SolveOptions::default(),
        &mut |_| {},
    )
    .unwrap_err();
    assert!(
        matches!(
            err,
            SolveError::Simultaneous { .. } | SolveError::Cycle { .. }
        ),
        "{err}"
    );
    let t = tictactoe();
    let err = solve(
        &t,
        &t.initial_state(),
        &SolveOptions { max_states: 100 },
        &mut |_| {},
    )
    .unwrap_err();
    assert_eq!(err, SolveError::TooLarge(100));
}

#[test]
fn same_seed_and_budget_give_same_search() {
    for (i, net) in [tictactoe(), random_netlist(11, &RandomSpec::default())]
        .into_iter()
        .enumerate()
    {
        let root = net.initial_state();
        let run = |seed: u64, k: u32| {
            let params = MctsParams {
                seed,
                leaves_per_batch: k,
                max_steps: 50,
                ..Default::default()
            };
            let mut s = Search::new(params);
            let mut b = ReferenceBackend::new(net.clone());
            let r = s.run(&net, &mut b, &root, Budget::Iterations(300)).unwrap();
            let mut s2 = Search::new(s.params().clone());
            let r2 = s2
                .run(&net, backend(&net).as_mut(), &root, Budget::Iterations(300))
                .unwrap();
            assert_eq!(
                r.roles, r2.roles,
                "CPU and reference backends give the same search"
            );
            (r.roles.clone(), r.best_move(0), r.iterations)
        };
        for k in [1, 8] {
            let a = run(7, k);
            assert_eq!(a, run(7, k));
            assert_eq!(a.2, 300);
            let visits: u32 = a.0[0].iter().map(|m| m.visits).sum();
            assert!(visits <= 300 && visits > 0);
        }
        if i == 0 {
            assert_ne!(
                run(7, 1).0,
                run(8, 1).0,
                "another seed explores differently"
            );
        }
    }
}

#[test]
fn batches_hold_k_leaves_and_simultaneous_roles_keep_own_stats() {
    let net = random_netlist(
        5,
        &RandomSpec {
            roles: 3,
            ..Default::default()
        },
    );
    let mut s = Search::new(MctsParams {
        leaves_per_batch: 16,
        playouts_per_leaf: 2,
        max_steps: 20,
        ..Default::default()
    });
    let mut b = ReferenceBackend::new(net.clone());
    let r = s
        .run(&net, &mut b, &net.initial_state(), Budget::Iterations(160))
        .unwrap();
    assert_eq!(r.iterations, 160);
    assert!(r.batches >= 10 && r.batches <= 160, "{} batches", r.batches);
    assert!(r.playouts <= 320);
    for role in &r.roles {
        if role.len() > 1 {
            let visits: u32 = role.iter().map(|m| m.visits).sum();
            assert_eq!(
                visits as u64, 160,
                "every iteration passes through the root"
            );
            assert!(role.iter().all(|m| (0.0..=1.0).contains(&m.value)));
        }
    }
    let root = s.tree().node(s.tree().root());
    assert_eq!(
        (root.visits, root.virtual_visits),
        (160, 0),
        "virtual loss fully removed"
    );
}

fn score(e: &Estimate) -> String {
    format!("{:.1} ± {:.1} (n={})", e.mean, e.ci95, e.n)
}

#[test]
fn mcts_never_loses_tictactoe_against_random() {
    let net = tictactoe();
    let mut players = vec![
        mcts(&net, 300, 4, 1),
        Box::new(RandomPlayer::new(2)) as Box<dyn Player>,
    ];
    let games = run_match(&net, &mut players, 100);
    for g in &games {
        assert_ne!(
            g.score_of(0),
            Some(0),
            "MCTS lost game {}: {:?}",
            g.index,
            g.moves
        );
    }
    let s = player_scores(&games, 2);
    eprintln!(
        "tictactoe mcts:300 vs random: {} / {}",
        score(&s[0]),
        score(&s[1])
    );
    assert!(
        games.iter().filter(|g| g.seats[0] == 0).count() == 50,
        "MCTS plays each role 50 times"
    );
}

#[test]
fn mcts_scores_95_percent_against_random_on_connect_four() {
    let net = connect_four();
    let mut players = vec![
        mcts(&net, 100, 8, 3),
        Box::new(RandomPlayer::new(4)) as Box<dyn Player>,
    ];
    let games = run_match(&net, &mut players, 50);
    let s = player_scores(&games, 2);
    eprintln!(
        "connect four mcts:100 vs random: {} / {}",
        score(&s[0]),
        score(&s[1])
    );
    assert!(s[0].mean >= 95.0, "{}", score(&s[0]));
}

#[test]
fn more_iterations_beat_fewer_on_connect_four() {
    let net = connect_four();
    // The claim is the lower end of the 95% interval above 50.
    let mut players = vec![mcts(&net, 300, 8, 5), mcts(&net, 30, 8, 6)];
    let games = run_match(&net, &mut players, 40);
    let s = player_scores(&games, 2);
    eprintln!(
        "connect four mcts:300 vs mcts:30: {} / {}",
        score(&s[0]),
        score(&s[1])
    );
    assert!(s[0].low() > 50.0, "10x iterations: {}", score(&s[0]));
}
