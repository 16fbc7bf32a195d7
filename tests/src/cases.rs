//! Netlists, start states and requests shared by the conformance suite
//! (`tests/tests/conformance/`) and the backend-specific tests, and the comparison every
//! one of them makes: a backend's batch equals the reference backend's, record for record.
//!
//! Netlists and reference results are computed once per test process ([`memo`]) and
//! shared by every backend's tests: a bench game is compiled once, and the reference runs
//! each (netlist, request) pair once however many backends compare against it.

use crate::{compile_file, shared_file, workspace_root};
use propnet_netlist::playout::{reference_playout, PlayoutEnd};
use propnet_netlist::random::{random_netlist, RandomSpec};
use propnet_netlist::rng::threefry2x32_20;
use propnet_netlist::{validate, Netlist};
use propnet_runtime::backend::{run_reference, BatchRequest, BatchResult, Job};
use propnet_runtime::machine::NetMachine;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// One value per key computed once per process: concurrent callers of the same key wait
/// for the first one's result instead of computing it again.
pub fn memo<V: Send + Sync + 'static>(
    table: &'static Table<V>,
    key: String,
    make: impl FnOnce() -> V,
) -> Arc<V> {
    let cell = {
        let mut map = table
            .get_or_init(Default::default)
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        Arc::clone(map.entry(key).or_default())
    };
    Arc::clone(cell.get_or_init(|| Arc::new(make())))
}

/// A netlist of a test case, the label that names it in messages (`bench/tictactoe`,
/// `random/varied 7`, …) and its hash ([`propnet_hdl::netlist_hash`]), the key of its
/// reference results.
#[derive(Clone)]
pub struct Case {
    /// What the netlist is.
    pub label: String,
    /// The netlist (shared: compiled once per process).
    pub net: Arc<Netlist>,
    /// [`propnet_hdl::netlist_hash`] of `net`.
    pub hash: u64,
}

/// The table of a [`memo`]: per key, a value computed once.
pub type Table<V> = OnceLock<Mutex<HashMap<String, Arc<OnceLock<Arc<V>>>>>>;

/// A compiled game and its hash.
fn compiled(net: Netlist) -> (Arc<Netlist>, u64) {
    let hash = propnet_hdl::netlist_hash(&net);
    (Arc::new(net), hash)
}

/// A game of `bench-games/` compiled by the full pipeline, once per process.
pub fn bench_game(name: &str) -> Case {
    static GAMES: Table<(Arc<Netlist>, u64)> = OnceLock::new();
    let game = memo(&GAMES, name.to_string(), || {
        compiled(compile_file(
            &workspace_root().join(format!("bench-games/{name}.kif")),
        ))
    });
    Case {
        label: format!("bench/{name}"),
        net: Arc::clone(&game.0),
        hash: game.1,
    }
}

/// A game of the shared corpus (`rel` under `shared/games/`) compiled by the full
/// pipeline, once per process; `None` (skip, with a message) when the shared data is
/// absent and not required ([`shared_file`]).
pub fn corpus_game(rel: &str) -> Option<Case> {
    static GAMES: Table<(Arc<Netlist>, u64)> = OnceLock::new();
    let path = shared_file(&format!("games/{rel}"))?;
    let game = memo(&GAMES, rel.to_string(), || compiled(compile_file(&path)));
    Some(Case {
        label: format!("corpus/{rel}"),
        net: Arc::clone(&game.0),
        hash: game.1,
    })
}

/// A netlist built in the test (random or hand-written) under `label`.
pub fn case(label: String, net: Netlist) -> Case {
    validate(&net).unwrap_or_else(|e| panic!("{label}: {e}"));
    let (net, hash) = compiled(net);
    Case { label, net, hash }
}

/// A pseudo-random state: bit `i` from the RNG keyed by `salt`.
pub fn random_state(latches: usize, salt: u32) -> Vec<bool> {
    (0..latches)
        .map(|i| threefry2x32_20([salt, 77], [i as u32, 1])[0] & 1 == 1)
        .collect()
}

/// Netlist shapes that vary with `seed`: 1–4 roles of 1–6 moves, 8–97 latches, up to 139
/// view and next gates of fan-in 2–6.
pub fn varied_spec(seed: u64) -> RandomSpec {
    RandomSpec {
        percepts_per_role: 0,
        roles: 1 + (seed as usize % 4),
        moves_per_role: 1 + (seed as usize % 6),
        latches: 8 + (seed as usize * 7) % 90,
        view_gates: 20 + (seed as usize * 13) % 120,
        next_gates: 20 + (seed as usize * 11) % 120,
        max_fanin: 2 + seed as usize % 5,
    }
}

/// A random netlist where each role's last move is legal by an arbitrary view gate instead
/// of "no other move is legal", so roles can be left without a legal move; never terminal.
pub fn stuck_netlist(seed: u64, roles: usize) -> Netlist {
    let mut net = random_netlist(
        seed,
        &RandomSpec {
            roles,
            moves_per_role: 2,
            ..Default::default()
        },
    );
    let views: Vec<_> = net
        .roles
        .iter()
        .flat_map(|r| r.goals.iter().map(|g| g.gate))
        .chain([net.terminal])
        .collect();
    for (i, role) in net.roles.iter_mut().enumerate() {
        let last = role.legal.len() - 1;
        role.legal[last].gate = views[(i + seed as usize) % views.len()];
        role.legal[0].gate = views[(i * 3 + 1 + seed as usize) % views.len()];
    }
    net.terminal = propnet_netlist::GateId(0); // const false: never terminal
    validate(&net).unwrap();
    net
}

/// A few states reached by playing legal joint moves from the start (the `k * 7`-th legal
/// move of each role at turn `k`), every second one kept: up to three mid-game states.
pub fn mid_game_states(net: &Netlist) -> Vec<Vec<bool>> {
    let m = NetMachine::new(net);
    let mut s = m.initial_state();
    let mut out = Vec::new();
    for k in 0..6 {
        if m.is_terminal(&s) {
            break;
        }
        let legal = m.legal_moves(&s);
        if legal.iter().any(Vec::is_empty) {
            break;
        }
        let joint: Vec<_> = legal.iter().map(|l| l[(k * 7) % l.len()]).collect();
        s = m.next_state(&s, &joint);
        if k % 2 == 1 {
            out.push(s.clone());
        }
    }
    out
}

/// The state after two joint moves of the reference playout `seed ^ 1`, index 0 (the
/// start state itself when that playout ends sooner).
pub fn state_two_moves_in(net: &Netlist, seed: u64) -> Vec<bool> {
    let mid = reference_playout(net, &net.initial_state(), seed ^ 1, 0, 2);
    (0..net.latches.len())
        .map(|l| mid.final_state[l / 64] >> (l % 64) & 1 == 1)
        .collect()
}

/// A request with records.
pub fn request(jobs: Vec<Job>, seed: u64, max_steps: u32) -> BatchRequest {
    BatchRequest {
        jobs,
        seed,
        max_steps,
        want_records: true,
    }
}

/// A job.
pub fn job(start: Vec<bool>, first_playout: u32, count: u32) -> Job {
    Job {
        start,
        first_playout,
        count,
    }
}

/// The reference backend's result of `req` on `c`, computed once per process (a request
/// without records takes the aggregates of the same request with records).
pub fn reference_result(c: &Case, req: &BatchRequest) -> Arc<BatchResult> {
    static RESULTS: Table<BatchResult> = OnceLock::new();
    if !req.want_records {
        let full = BatchRequest {
            want_records: true,
            ..req.clone()
        };
        let jobs = reference_result(c, &full).jobs.clone();
        return Arc::new(BatchResult {
            jobs,
            records: Vec::new(),
        });
    }
    memo(&RESULTS, format!("{:016x}\n{req:?}", c.hash), || {
        run_reference(&c.net, req)
    })
}

/// The semantics every batch result has, whoever computed it: one aggregate per job; with
/// records, one record per playout in job order with indices `first_playout + i`
/// (wrapping), lengths within the step limit (exactly it for a step-limit end), a goal per
/// role, aggregates that sum the records; without records, none.
///
/// # Panics
/// On the first violation, naming `what`.
pub fn assert_well_formed(c: &Case, req: &BatchRequest, got: &BatchResult, what: &str) {
    assert_eq!(got.jobs.len(), req.jobs.len(), "{what}: one result per job");
    if !req.want_records {
        assert!(got.records.is_empty(), "{what}: records not asked for");
        for (j, (r, job)) in got.jobs.iter().zip(&req.jobs).enumerate() {
            assert_eq!(r.playouts, u64::from(job.count), "{what}: job {j} playouts");
        }
        return;
    }
    let total: usize = req.jobs.iter().map(|j| j.count as usize).sum();
    assert_eq!(got.records.len(), total, "{what}: record count");
    let mut recs = got.records.iter();
    for (j, (job, r)) in req.jobs.iter().zip(&got.jobs).enumerate() {
        let mut sums = propnet_runtime::backend::JobResult {
            goal_sums: vec![0; c.net.roles.len()],
            ..Default::default()
        };
        for i in 0..job.count {
            let rec = recs.next().expect("counted above");
            assert_eq!(
                rec.index,
                job.first_playout.wrapping_add(i),
                "{what}: job {j} record {i} index"
            );
            assert!(rec.length <= req.max_steps, "{what}: {rec:?} too long");
            if rec.end == PlayoutEnd::StepLimit {
                assert_eq!(rec.length, req.max_steps, "{what}: {rec:?}");
            }
            assert_eq!(rec.goals.len(), c.net.roles.len(), "{what}: {rec:?}");
            sums.add(rec);
        }
        assert_eq!(r, &sums, "{what}: job {j} aggregates are its records' sums");
    }
}

/// Asserts that `got` (a backend's result of `req` on `c`) is well formed
/// ([`assert_well_formed`]) and equals the reference backend's, record for record and
/// aggregate for aggregate. Returns the reference's result.
///
/// # Panics
/// On the first difference, naming `what` and the playout.
pub fn assert_same(
    c: &Case,
    req: &BatchRequest,
    got: &BatchResult,
    what: &str,
) -> Arc<BatchResult> {
    let what = format!("{}: {what}", c.label);
    assert_well_formed(c, req, got, &what);
    let want = reference_result(c, req);
    assert_eq!(
        got.records.len(),
        want.records.len(),
        "{what}: record count"
    );
    for (g, w) in got.records.iter().zip(&want.records) {
        assert_eq!(g, w, "{what}: playout {}", w.index);
    }
    assert_eq!(got.jobs, want.jobs, "{what}: aggregates");
    want
}
