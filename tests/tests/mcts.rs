//! MCTS (UCT) strength and determinism, and the exact solver, on hand-built tic-tac-toe and
//! connect-four netlists (fixed seeds and iteration budgets, never time).

use propnet_mcts::matches::{play_game, player_scores, seats_for, Estimate, GameRecord};
use propnet_mcts::player::{MctsPlayer, Player, RandomPlayer};
use propnet_mcts::{Budget, MctsParams, Search};
use propnet_netlist::random::{random_netlist, RandomSpec};
use propnet_netlist::Netlist;
use propnet_runtime::backend::{
    Backend, BackendError, BatchRequest, BatchResult, ReferenceBackend,
};
use propnet_runtime::fixtures::{connect_four, tictactoe};
use propnet_runtime::machine::NetMachine;
use propnet_runtime::solver::{solve, SolveError, SolveOptions, PROGRESS_EVERY};
use propnet_sim::{CpuBackend, CpuOptions};

/// The bit-parallel CPU backend on one thread (tests run in parallel already), 64 lanes.
fn backend(net: &Netlist) -> Box<dyn Backend> {
    Box::new(
        CpuBackend::new(
            propnet_netlist::ValidNetlist::new(net.clone()).expect("valid netlist"),
            CpuOptions {
                threads: 1,
                lane_width: 64,
                ..Default::default()
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
        vec![backend(net)],
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
        &SolveOptions {
            max_states: 100,
            ..SolveOptions::default()
        },
        &mut |_| {},
    )
    .unwrap_err();
    assert_eq!(err, SolveError::TooLarge(100));
}

#[test]
fn solver_reports_progress_and_stops_at_its_time_limit() {
    let t = tictactoe();
    let mut seen = Vec::new();
    let err = solve(
        &t,
        &t.initial_state(),
        &SolveOptions {
            max_time: Some(std::time::Duration::ZERO),
            ..SolveOptions::default()
        },
        &mut |n| seen.push(n),
    )
    .unwrap_err();
    // The clock is checked with each progress report, every PROGRESS_EVERY new states.
    assert_eq!(
        err,
        SolveError::TimeLimit {
            limit: std::time::Duration::ZERO,
            states: PROGRESS_EVERY
        }
    );
    assert_eq!(seen, vec![PROGRESS_EVERY]);
    assert!(err.to_string().contains("time limit"), "{err}");
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
                // batch by batch on both backends (the CPU simulator would stream)
                stream: false,
                ..Default::default()
            };
            let mut s = Search::new(params);
            let mut b = ReferenceBackend::new(net.clone());
            let r = s.run(&net, &mut b, &root, Budget::Iterations(300)).unwrap();
            let mut s2 = Search::new(s.params().clone());
            let r2 = s2
                .run_parallel(&net, &mut [backend(&net)], &root, Budget::Iterations(300))
                .unwrap();
            assert_eq!(
                r.roles, r2.roles,
                "CPU and reference backends give the same search (one worker of \
                 run_parallel is run)"
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

/// Wraps a backend and records every request (to check what the search sends).
struct Recording {
    inner: ReferenceBackend,
    requests: std::sync::Arc<std::sync::Mutex<Vec<BatchRequest>>>,
}

impl Backend for Recording {
    fn describe(&self) -> String {
        "recording".into()
    }
    fn netlist(&self) -> &Netlist {
        self.inner.netlist()
    }
    fn run_batch(&mut self, req: &BatchRequest) -> Result<BatchResult, BackendError> {
        self.requests.lock().unwrap().push(req.clone());
        self.inner.run_batch(req)
    }
}

/// Rollouts must be independent: within one game a player never reuses a playout index
/// (RNG counter) under the same seed, across batches and across moves; the two players of a
/// game, and the same player in two games or two seats, use different seeds.
#[test]
fn rollouts_never_reuse_random_streams() {
    let net = connect_four();
    let requests = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let params = MctsParams {
        seed: 9,
        playouts_per_leaf: 4,
        leaves_per_batch: 8,
        max_steps: 50,
        ..Default::default()
    };
    let player = |p: &MctsParams| -> Box<dyn Player> {
        Box::new(MctsPlayer::new(
            "rec".into(),
            vec![Box::new(Recording {
                inner: ReferenceBackend::new(net.clone()),
                requests: requests.clone(),
            })],
            p.clone(),
            Budget::Iterations(40),
        ))
    };
    let mut players = vec![
        player(&params),
        player(&MctsParams {
            seed: 10,
            ..params.clone()
        }),
    ];
    let mut seeds = std::collections::HashSet::new();
    let mut used = std::collections::HashSet::new();
    for g in 0..2u64 {
        play_game(&net, &mut players, &seats_for(g, 2, 2), g, 6).unwrap();
        let reqs = std::mem::take(&mut *requests.lock().unwrap());
        assert!(
            reqs.len() >= 6 * 5,
            "each move searched: {} batches",
            reqs.len()
        );
        let game_seeds: std::collections::HashSet<u64> = reqs.iter().map(|r| r.seed).collect();
        assert_eq!(game_seeds.len(), 2, "one seed per player and game");
        for s in &game_seeds {
            assert!(seeds.insert(*s), "seed {s} reused in game {g}");
        }
        for r in &reqs {
            for j in &r.jobs {
                for i in 0..j.count {
                    let p = j.first_playout.wrapping_add(i);
                    assert!(
                        used.insert((r.seed, p)),
                        "playout {p} of seed {} reused",
                        r.seed
                    );
                }
            }
        }
    }
}

/// After a batched search, on one worker or several sharing the tree, every statistic is a
/// real visit: no virtual loss is left on any node or move, each role's move visits at a
/// node add up to the node's passes, a non-final node other than the root was a leaf
/// at least once and at most once per descent of the batch that created it (descents of
/// one batch that reach the same new child all stop there), and the workers together ran
/// exactly the iteration budget.
#[test]
fn batched_search_leaves_consistent_tree_statistics() {
    for workers in [1, 2, 3] {
        batched_search_on_workers(workers);
    }
}

fn batched_search_on_workers(workers: usize) {
    for (net, k) in [
        (connect_four(), 16),
        (
            random_netlist(
                7,
                &RandomSpec {
                    roles: 3,
                    ..Default::default()
                },
            ),
            8,
        ),
    ] {
        let mut s = Search::new(MctsParams {
            leaves_per_batch: k,
            playouts_per_leaf: 2,
            max_steps: 40,
            ..Default::default()
        });
        let mut backends: Vec<Box<dyn Backend>> = (0..workers)
            .map(|_| Box::new(ReferenceBackend::new(net.clone())) as Box<dyn Backend>)
            .collect();
        let res = s
            .run_parallel(
                &net,
                &mut backends,
                &net.initial_state(),
                Budget::Iterations(300),
            )
            .unwrap();
        assert_eq!((res.iterations, res.workers), (300, workers));
        let tree = s.tree();
        assert_eq!(tree.node(tree.root()).visits, 300, "{workers} workers");
        for (i, n) in tree.iter().enumerate() {
            assert_eq!(n.virtual_visits, 0, "node {i}");
            assert!(n.stats.iter().all(|m| m.virtual_visits == 0), "node {i}");
            let own = if i == 0 || n.exact.is_some() {
                None
            } else {
                Some(1)
            };
            for r in 0..n.legal.len() {
                let through: u32 = n.role_stats(r).iter().map(|m| m.visits).sum();
                if let Some(own) = own {
                    let leaf = n.visits - through;
                    assert!(
                        leaf >= own && leaf <= k,
                        "node {i} role {r}: leaf {leaf} times"
                    );
                } else if i == 0 {
                    assert_eq!(n.visits, through, "root role {r}");
                }
            }
            let child_visits: u32 = n.children.values().map(|c| tree.node(c).visits).sum();
            let through: u32 = n
                .legal
                .first()
                .map_or(0, |_| n.role_stats(0).iter().map(|m| m.visits).sum());
            assert_eq!(
                child_visits, through,
                "node {i}: children visits = passes through it"
            );
        }
    }
}

/// The match score follows the player, not the seat, when seats rotate.
#[test]
fn scores_follow_players_across_seat_rotation() {
    let g = |index, seats: Vec<usize>, goals: Vec<u8>| GameRecord {
        index,
        seats,
        moves: vec![],
        opening: 0,
        goals,
        end: "terminal".into(),
    };
    let games = [
        g(0, seats_for(0, 2, 2), vec![100, 0]),
        g(1, seats_for(1, 2, 2), vec![0, 100]),
    ];
    let s = player_scores(&games, 2);
    assert_eq!(
        (s[0].mean, s[1].mean),
        (100.0, 0.0),
        "player 0 won in both seats"
    );
}

/// Connect four with a doodle pad (`bench-games/connectfour_doodle.kif`): the search keeps
/// one of each role's nine outcome-free doodles (`MctsParams::merge_free_moves`), all nine
/// with it off; the move played is legal either way, and a GGP line whose root came from
/// the search still takes an opponent's doodle that its tree does not list.
#[test]
fn a_search_keeps_one_of_the_outcome_free_moves() {
    let path = propnet_tests::workspace_root().join("bench-games/connectfour_doodle.kif");
    let net = propnet_tests::compile_file(&path);
    let root = net.initial_state();
    let red = net.roles.iter().position(|r| r.name == "red").unwrap();
    let black = 1 - red;
    for (merge, listed) in [(true, 7 + 1), (false, 7 + 9)] {
        let params = MctsParams {
            merge_free_moves: merge,
            ..Default::default()
        };
        let mut search = Search::new(params);
        let mut b = backend(&net);
        let r = search
            .run(&net, b.as_mut(), &root, Budget::Iterations(200))
            .unwrap();
        let tree = search.tree();
        assert_eq!(
            tree.node(tree.root()).legal[red].len(),
            listed,
            "merge {merge}"
        );
        let best = r.best_move(red).unwrap();
        assert!(NetMachine::new(&net).legal_moves(&root)[red].contains(&best));
    }
    let mut b = backend(&net);
    let mut with = NetMachine::with_backend(&net, b.as_mut());
    let mut line = propnet_ggp::play::Line::start(&mut with, red, MctsParams::default()).unwrap();
    let mut b2 = backend(&net);
    let mut merged = vec![NetMachine::with_backend(&net, b2.as_mut()).merging_free_moves()];
    let deadline = std::time::Instant::now() + std::time::Duration::from_millis(100);
    line.think_parallel(&mut merged, deadline, false, &mut |_| {})
        .unwrap();
    let mut joint = vec![String::from("noop"); 2];
    joint[red] = "(drop 4)".into();
    assert!(line.apply(&mut with, &joint).unwrap().is_empty());
    // The root is now the search's node after (drop 4): black's doodles merged into one.
    joint[red] = "noop".into();
    joint[black] = "(doodle 3 3)".into();
    let problems = line.apply(&mut with, &joint).unwrap();
    assert!(problems.is_empty(), "{problems:?}");
}

/// A game where no role ever has two outcome-free moves (connect four: only its noop) is
/// searched exactly as before: with and without merging, the same tree statistics.
#[test]
fn merging_free_moves_leaves_other_games_alone() {
    let net = connect_four();
    let root = net.initial_state();
    let stats = |merge: bool| {
        let mut search = Search::new(MctsParams {
            merge_free_moves: merge,
            ..Default::default()
        });
        let mut b = backend(&net);
        search
            .run(&net, b.as_mut(), &root, Budget::Iterations(300))
            .unwrap();
        let tree = search.tree();
        let root = tree.node(tree.root());
        let visits: Vec<u32> = root.stats.iter().map(|s| s.visits).collect();
        (root.legal.clone(), visits, tree.len())
    };
    assert_eq!(stats(true), stats(false));
}
