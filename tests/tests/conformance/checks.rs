//! The checks of the conformance suite, each once; `s` is the subject under test.

use super::{conforms, family, Configs, Subject};
use propnet_mcts::{Budget, MctsParams, Search};
use propnet_netlist::playout::PlayoutEnd;
use propnet_netlist::random::{random_netlist, RandomSpec};
use propnet_runtime::backend::{Backend, BackendError, BatchRequest, ReferenceBackend};
use propnet_tests::cases::{
    bench_game, case, corpus_game, job, mid_game_states, random_state, request, state_two_moves_in,
    stuck_netlist, varied_spec, Case,
};
use std::collections::HashSet;

/// Random netlists of many shapes (1–4 roles, 1–6 moves, 8–97 latches), one job from
/// the initial state of 1 to 3,000 playouts: playouts end both by terminal and by step
/// limit.
pub fn random_netlists(s: Subject) {
    let want = family(s, 24, "one job", |seed| {
        let c = case(
            format!("random/varied {seed}"),
            random_netlist(seed, &varied_spec(seed)),
        );
        let count = [1u32, 63, 65, 200, 130, 7, 3000][seed as usize % 7];
        let r = request(
            vec![job(c.net.initial_state(), seed as u32 * 1000, count)],
            seed ^ 0x5555,
            1 + (seed as u32 * 5) % 40,
        );
        (c, r)
    });
    let ends: HashSet<_> = want
        .iter()
        .flat_map(|w| &w.records)
        .map(|x| std::mem::discriminant(&x.end))
        .collect();
    assert!(
        ends.len() >= 2,
        "cases should end both by terminal and by step limit"
    );
}

/// Roles with many legal moves (17 to 99; a lane's move set spans two words above
/// 64), from a random state: choices equal the reference's, including lanes with zero
/// or one legal move.
pub fn many_legal_moves(s: Subject) {
    let want = family(s, 6, "many moves", |seed| {
        let spec = RandomSpec {
            percepts_per_role: 0,
            roles: 1 + seed as usize % 2,
            moves_per_role: [17, 40, 64, 65, 90, 99][seed as usize],
            latches: 40,
            view_gates: 200,
            next_gates: 120,
            max_fanin: 2 + seed as usize % 3,
        };
        let c = case(
            format!("random/many moves {seed}"),
            random_netlist(100 + seed, &spec),
        );
        let r = request(
            vec![job(random_state(c.net.latches.len(), seed as u32), 7, 150)],
            seed,
            12,
        );
        (c, r)
    });
    let moved = want
        .iter()
        .flat_map(|w| &w.records)
        .filter(|x| x.length > 0)
        .count();
    assert!(moved > 0, "some playouts should make moves");
}

/// Every way a backend may pick a move: 1 to 300 legal entries per role (the CPU's
/// one-entry, bit-sliced at each plane boundary and transpose paths; the HDL's
/// group-wise chooser), at every configuration in turn.
pub fn every_choice_path(s: Subject) {
    let counts = [
        1, 2, 3, 4, 7, 8, 15, 16, 31, 32, 63, 64, 127, 128, 255, 256, 300,
    ];
    let want = family(s, counts.len() as u64, "choice path", |i| {
        let i = i as usize;
        let moves = counts[i];
        let spec = RandomSpec {
            percepts_per_role: 0,
            roles: 1 + i % 3,
            moves_per_role: moves,
            latches: 30,
            view_gates: 120,
            next_gates: 80,
            max_fanin: 2 + i % 2,
        };
        let c = case(
            format!("random/{moves} moves per role"),
            random_netlist(300 + i as u64, &spec),
        );
        let r = request(
            vec![job(random_state(c.net.latches.len(), i as u32), 3, 100)],
            i as u64,
            10,
        );
        (c, r)
    });
    let moved = want
        .iter()
        .flat_map(|w| &w.records)
        .filter(|x| x.length > 0)
        .count();
    assert!(moved > 0, "some playouts should make moves");
}

/// Netlists where roles can be left without a legal move (never terminal): those
/// playouts end as the reference's do, and several roles get stuck.
pub fn no_legal_move_ends(s: Subject) {
    let want = family(s, 16, "stuck", |seed| {
        let c = case(
            format!("random/stuck {seed}"),
            stuck_netlist(seed, 1 + seed as usize % 3),
        );
        let r = request(
            vec![job(random_state(c.net.latches.len(), seed as u32), 0, 150)],
            seed,
            20,
        );
        (c, r)
    });
    let stuck_roles: HashSet<_> = want
        .iter()
        .flat_map(|w| &w.records)
        .filter_map(|x| match x.end {
            PlayoutEnd::NoLegalMove(role) => Some(role),
            _ => None,
        })
        .collect();
    assert!(
        stuck_roles.len() >= 2,
        "several roles should get stuck: {stuck_roles:?}"
    );
}

/// The netlist of the batch checks: 3 roles of 4 moves, 40 latches.
fn batch_netlist() -> Case {
    let spec = RandomSpec {
        percepts_per_role: 0,
        roles: 3,
        moves_per_role: 4,
        latches: 40,
        view_gates: 80,
        next_gates: 80,
        max_fanin: 4,
    };
    case("random/batches 99".into(), random_netlist(99, &spec))
}

/// Over 1,000 playouts in one job (many refills per lane or engine); several jobs with
/// different start states, one empty, one whose playout indices wrap past `u32::MAX`.
pub fn long_batches_and_many_jobs(s: Subject) {
    let c = batch_netlist();
    let long = request(vec![job(c.net.initial_state(), 0, s.scaled(1500))], 3, 30);
    let jobs = vec![
        job(random_state(40, 1), 5, s.scaled(70)),
        job(random_state(40, 2), 0, 0),
        job(c.net.initial_state(), u32::MAX - 3, 9),
        job(random_state(40, 3), 5, s.scaled(300)),
    ];
    let multi = request(jobs, 11, 25);
    let reqs = [("long job".into(), long), ("multi-job".into(), multi)];
    let want = conforms(s, &c, Configs::All, &reqs);
    let multi = &want[1];
    assert_eq!(multi.jobs[1].playouts, 0, "the empty job");
    assert!(
        multi.records.iter().any(|x| x.index == u32::MAX)
            && multi.records.iter().any(|x| x.index == 0),
        "the third job's indices wrap"
    );
}

/// Step limits 0, 1 and 2 from a random state: no playout is longer.
pub fn step_limits_zero_one_two(s: Subject) {
    let c = case(
        "random/default 5".into(),
        random_netlist(5, &RandomSpec::default()),
    );
    let limits = [0u32, 1, 2];
    let reqs: Vec<_> = limits
        .iter()
        .map(|&max_steps| {
            let start = random_state(c.net.latches.len(), 9);
            let r = request(vec![job(start, 0, 100)], 1, max_steps);
            (format!("max_steps {max_steps}"), r)
        })
        .collect();
    let want = conforms(s, &c, Configs::All, &reqs);
    for (w, max_steps) in want.iter().zip(limits) {
        assert!(w.records.iter().all(|x| x.length <= max_steps));
    }
}

/// Aggregates without records (`want_records: false`) equal the reference's, and no
/// record comes back.
pub fn without_records(s: Subject) {
    let c = case(
        "random/aggregates 42".into(),
        random_netlist(
            42,
            &RandomSpec {
                percepts_per_role: 0,
                roles: 2,
                moves_per_role: 6,
                latches: 60,
                view_gates: 150,
                next_gates: 150,
                max_fanin: 5,
            },
        ),
    );
    let jobs = vec![
        job(c.net.initial_state(), 0, s.scaled(3000)),
        job(random_state(60, 4), 100, s.scaled(777)),
    ];
    let r = BatchRequest {
        want_records: false,
        ..request(jobs, 2024, 60)
    };
    let want = conforms(s, &c, Configs::All, &[("without records".into(), r)]);
    assert!(want[0].jobs.iter().all(|j| j.total_length > 0));
}

/// A start state of the wrong length (short or long) is refused as
/// `BackendError::BadRequest` naming the backend, even after a good job; the backend
/// still runs the next good batch.
pub fn bad_start_rejected(s: Subject) {
    let c = bench_game("tictactoe");
    let Some(name) = s.error_name() else {
        eprintln!(
            "{}: does not validate start states (the reference indexes them as given); \
             not checked",
            s.name()
        );
        return;
    };
    let l = c.net.latches.len();
    let good = request(vec![job(c.net.initial_state(), 0, 5)], 4, 20);
    for (label, mut b) in s.configs(&c, Configs::All) {
        for len in [3, l - 1, l + 1] {
            let bad = request(
                vec![job(c.net.initial_state(), 0, 5), job(vec![true; len], 5, 5)],
                4,
                20,
            );
            match b.run_batch(&bad) {
                Err(BackendError::BadRequest { backend, message }) => {
                    assert_eq!(backend, name, "{label}: {message}");
                    assert!(!message.is_empty(), "{label}");
                }
                Err(e) => panic!("{label}: start of {len} for {l} latches: {e:?}"),
                Ok(_) => panic!("{label}: start of {len} for {l} latches accepted"),
            }
            let got = b
                .run_batch(&good)
                .unwrap_or_else(|e| panic!("{label}: after a bad request: {e}"));
            propnet_tests::cases::assert_same(&c, &good, &got, &label);
        }
    }
}

/// The same MCTS search (seed, iteration budget) on the subject and on the reference
/// backend: the same root statistics and move. Batch by batch on both (the CPU simulator
/// would stream its rollouts, which orders the search differently; the streamed search is
/// checked in `propnet-mcts`).
pub fn mcts_search(s: Subject) {
    let c = bench_game("tictactoe");
    let params = MctsParams {
        seed: 5,
        playouts_per_leaf: 4,
        leaves_per_batch: 8,
        max_steps: 60,
        stream: false,
        ..Default::default()
    };
    let root = c.net.initial_state();
    let want = Search::new(params.clone())
        .run(
            &c.net,
            &mut ReferenceBackend::new((*c.net).clone()),
            &root,
            Budget::Iterations(120),
        )
        .unwrap();
    for (label, mut b) in s.configs(&c, Configs::One(0)) {
        let b: &mut dyn Backend = b.as_mut();
        let got = Search::new(params.clone())
            .run(&c.net, b, &root, Budget::Iterations(120))
            .unwrap_or_else(|e| panic!("{label}: {e}"));
        assert_eq!(got.roles, want.roles, "{label}: root statistics");
        assert_eq!(got.best_move(0), want.best_move(0), "{label}: best move");
        assert!(got.best_move(0).is_some(), "{label}: a move");
    }
}

/// A game from its initial state (`count` playouts), from up to three mid-game states
/// (`count / 2 + 1` each), from a state two moves into a playout (17) and with
/// playout indices that wrap (9), at two seeds (one on a slow subject:
/// [`Sizes::game_seeds`](super::Sizes)), on every configuration, with and without
/// records; the playouts make moves and score goals.
fn game(s: Subject, c: Option<Case>, count: u32, max_steps: u32) {
    let Some(c) = c else { return };
    let gates = c.net.logic_gate_count();
    if gates > s.sizes().max_game_gates {
        eprintln!(
            "skipping {} on {}: {gates} logic gates, above its {} (Sizes)",
            c.label,
            s.name(),
            s.sizes().max_game_gates
        );
        return;
    }
    if s.sizes().skipped_games.contains(&c.label.as_str()) {
        eprintln!(
            "skipping {} on {}: a variant of a game it runs (Sizes::skipped_games)",
            c.label,
            s.name()
        );
        return;
    }
    let mut reqs = Vec::new();
    let seeds = [0x00c0_ffee, 0xdead_beef_0000_0007u64];
    for seed in seeds.into_iter().take(s.sizes().game_seeds) {
        let mut jobs = vec![job(c.net.initial_state(), 0, s.scaled(count))];
        for (i, st) in mid_game_states(&c.net).into_iter().enumerate() {
            jobs.push(job(st, 1000 * (i as u32 + 1), s.scaled(count / 2 + 1)));
        }
        jobs.push(job(state_two_moves_in(&c.net, seed), 500, s.scaled(17)));
        jobs.push(job(c.net.initial_state(), u32::MAX - 5, 9));
        let r = request(jobs, seed, max_steps);
        let lean = BatchRequest {
            want_records: false,
            ..r.clone()
        };
        reqs.push((format!("seed {seed:#x}"), r));
        reqs.push((format!("seed {seed:#x}, without records"), lean));
    }
    let want = conforms(s, &c, Configs::All, &reqs);
    for ((what, _), want) in reqs.iter().zip(&want) {
        assert!(want.jobs[0].total_length > 0, "{what}: moves were made");
        assert!(
            want.jobs.iter().all(|j| j.playouts > 0)
                && want.jobs.iter().any(|j| j.goal_sums.iter().any(|&g| g > 0)),
            "{what}: a batch with goals to compare"
        );
    }
}

pub fn game_tictactoe(s: Subject) {
    game(s, Some(bench_game("tictactoe")), 300, 200);
}

pub fn game_connect_four(s: Subject) {
    game(s, Some(bench_game("connectfour")), 150, 200);
}

/// A step limit below typical game length: step-limit ends on a real game.
pub fn game_breakthrough_step_limit(s: Subject) {
    game(s, Some(bench_game("breakthrough")), 70, 40);
}

pub fn game_niu_jiao_qi(s: Subject) {
    game(s, Some(bench_game("niujiaoqi")), 300, 200);
}

/// A netlist of more than 5,000 logic gates.
pub fn game_amazons_over_5000_gates(s: Subject) {
    let c = bench_game("amazons");
    let gates = c.net.logic_gate_count();
    assert!(
        gates > 5000,
        "amazons.kif has {gates} logic gates; the acceptance list wants > 5000"
    );
    game(s, Some(c), 24, 300);
}

pub fn game_corpus_tictactoe(s: Subject) {
    game(s, corpus_game("ggp-repository/ticTacToe.kif"), 300, 200);
}

/// Simultaneous moves.
pub fn game_corpus_tictactoe_simultaneous(s: Subject) {
    game(
        s,
        corpus_game("ggp-repository/ticTacToeParallel.kif"),
        200,
        200,
    );
}

pub fn game_corpus_connect_four(s: Subject) {
    game(s, corpus_game("ggp-repository/connect4.kif"), 150, 200);
}

/// Both roles choose among several moves in the same step.
pub fn game_corpus_connect_four_simultaneous(s: Subject) {
    let c = corpus_game("ggp-repository/connectFourSimultaneous.kif");
    if let Some(c) = &c {
        let values = propnet_netlist::playout::eval_gates(
            &c.net,
            &c.net.initial_state(),
            &vec![false; c.net.inputs.len()],
        );
        let choices = c
            .net
            .roles
            .iter()
            .filter(|r| r.legal.iter().filter(|l| values[l.gate.index()]).count() > 1)
            .count();
        assert!(choices >= 2, "expected a simultaneous-move game");
    }
    game(s, c, 150, 200);
}

/// Recursive views (`p`/`r`).
pub fn game_corpus_recursive_test_case_5c(s: Subject) {
    game(s, corpus_game("ggp-base-tests/test_case_5c.kif"), 100, 200);
}

/// Hex 9×9: the CPU guards its transition (skipped runs, lockstep refills; asserted
/// in `cpu_tuning.rs`); 80 playouts fill a 64-lane block more than once.
pub fn game_hex(s: Subject) {
    game(s, corpus_game("ggp-repository/hex.kif"), 80, 200);
}

/// The hand-written game whose `reach` view supports itself through a symmetric
/// adjacency (a positive loop the grounder unrolls); some playouts are won through
/// the loop.
pub fn game_positive_loop(s: Subject) {
    let c = case(
        "fixture/positive loop".into(),
        propnet_tests::fixtures::positive_loop_game(),
    );
    let start = c.net.initial_state();
    let wins = (0..40)
        .filter(|&p| {
            propnet_netlist::playout::reference_playout(&c.net, &start, 3, p, 20)
                .goals
                .contains(&100)
        })
        .count();
    assert!(wins > 0, "some playouts should be won through the loop");
    game(s, Some(c), 100, 20);
}
