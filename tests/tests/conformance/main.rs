//! The conformance suite: every playout backend, run through the `Backend` trait, equals
//! the scalar reference backend record for record and aggregate for aggregate, on the same
//! netlists and requests, with the same checks and the same skip rule.
//!
//! # Structure
//!
//! * [`Subject`] lists the backends under test: `reference` (the yardstick itself, whose
//!   instance checks the semantics every result must have), `cpu_avx2` (the CPU simulator
//!   on its AVX2 path, `Simd::Auto` on a processor with AVX2), `cpu_portable` (the CPU
//!   simulator forced onto its portable path, `Simd::Portable`, which an AVX2 machine
//!   would otherwise never run), `gpu` (the WGSL shader through wgpu; lavapipe in CI) and
//!   `fpga_sim` (the generated Verilog behind the board shell, as a Verilator model).
//! * `checks.rs` holds each check once, as a function of the subject: random netlist
//!   families (shapes, many legal moves, every move-choice path, roles left without a
//!   legal move), long batches and multi-job batches (different start states, an empty
//!   job, a playout index that wraps past `u32::MAX`), step limits 0, 1 and 2, batches
//!   without records, a start state of the wrong length (rejected as
//!   `BackendError::BadRequest`, the backend still usable after), an MCTS search, and the
//!   games (bench games, corpus games, a positive-loop game) from their initial and
//!   mid-game states. Every result is also checked for well-formedness
//!   (`propnet_tests::cases::assert_well_formed`: record order and indices, step limits,
//!   aggregates that sum the records).
//! * `conformance_suite!` expands the list of checks into one `#[test]` per check in a
//!   module per subject: `cargo test --test conformance gpu::` runs the GPU's,
//!   `cargo test --test conformance game_hex` one check on every backend.
//!
//! # Skip rules
//!
//! One rule for all ([`propnet_tests::present_or_skip`]): a subject absent here (no AVX2,
//! no GPU adapter, no Verilator) prints why and skips, unless its variable is set:
//! `PROPNET_REQUIRE_AVX2=1`, `PROPNET_REQUIRE_GPU=1`, `PROPNET_REQUIRE_TOOLS=1`
//! (`.ci/run` sets them); corpus games skip the same way without the shared data unless
//! `PROPNET_REQUIRE_SHARED=1`. The reference and the portable CPU path run everywhere.
//!
//! # Sizes
//!
//! Each subject has [`Sizes`]: how many netlists of each random family it runs (the
//! family's first ones; all for the reference and the CPU), a divisor of the games'
//! playout counts, the largest game it runs (in logic gates; larger ones are skipped
//! with a message), how many seeds each game check runs and which games it leaves out
//! (the corpus's twins of the bench games, on the slow subjects). The GPU on lavapipe and Verilator are slow: their checks are kept small
//! so that CI (2 cores) stays within its time. Reference results are computed once per
//! process and shared by every subject (`propnet_tests::cases::reference_result`). GPU
//! checks run one at a time (a process-wide lock): several GPU runners at once are unsafe
//! on some drivers.
//!
//! # Adding a backend
//!
//! 1. Add a [`Subject`] variant and fill in its `match` arms: `name`, `present` (its skip
//!    rule through `present_or_skip`, with a `PROPNET_REQUIRE_*` variable set in
//!    `.ci/run` when CI has the device), `sizes`, `error_name` (the `backend` field of its
//!    errors, or `None` when it does not validate requests), `exclusive` (a lock when its
//!    checks must not overlap) and `configs` (how to build it for a netlist: one
//!    configuration per case, rotating with the case number, or all of them).
//! 2. Add a line `mod my_backend { conformance_suite!(Subject::MyBackend); }` below.
//!
//! Every check then runs on it. A new check is a function in `checks.rs` and one line in
//! `conformance_suite!`. Checks that only make sense for one backend (CPU lane widths and
//! tuning, key guards, FPGA links, HDL design parameters) live in their own files:
//! `cpu_tuning.rs`, `cpu_key_guards.rs`, `fpga_link.rs`, `hdl_vs_cpu.rs`.

use propnet_host::select::{make_backend, BackendKind, BackendOptions, FpgaTarget};
use propnet_netlist::ValidNetlist;
use propnet_runtime::backend::{Backend, BatchRequest, BatchResult};
use propnet_sim::{CpuOptions, Simd, SUPPORTED_LANES};
use propnet_tests::cases::{assert_same, reference_result, Case};
use std::sync::{Arc, Mutex};

/// A backend under test (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Subject {
    /// The scalar reference backend.
    Reference,
    /// The CPU simulator on its AVX2 path.
    CpuAvx2,
    /// The CPU simulator forced onto its portable path.
    CpuPortable,
    /// The WGSL shader through wgpu.
    Gpu,
    /// The FPGA design simulated by Verilator, through the board framing.
    FpgaSim,
}

/// How much of each check a subject runs.
#[derive(Clone, Copy, Debug)]
pub struct Sizes {
    /// Netlists of each random family: the family's first ones.
    pub random_netlists: usize,
    /// Divides the playout counts of the game and batch checks (at least 1 per job).
    pub playout_divisor: u32,
    /// Largest game (logic gates after optimization) run; larger ones are skipped.
    pub max_game_gates: usize,
    /// Seeds of each game check (each with and without records): 1 or 2.
    pub game_seeds: usize,
    /// Game checks left out (by case label), each a variant of a game the subject runs
    /// (the corpus's tic-tac-toe beside the bench one): skipped with a message.
    pub skipped_games: &'static [&'static str],
}

/// Which configurations of a subject a case runs on.
#[derive(Clone, Copy, Debug)]
pub enum Configs {
    /// One, chosen by the case number (so a family of cases covers them in turn).
    One(usize),
    /// Every configuration the subject has.
    All,
}

/// Logic gates above which the GPU uses only its Table layout: lavapipe compiles a big
/// Inline shader in minutes (Inline on > 5,000 gates: `kernels/tests/gpu_random.rs`).
const GPU_INLINE_MAX_GATES: usize = 5000;

/// The corpus's turn-taking tic-tac-toe and connect four: the same games as the bench
/// ones (same netlist shapes, other spellings), left out where a check costs a shader
/// compile or a Verilator build. Their simultaneous-move versions stay.
const CORPUS_TWINS: &[&str] = &[
    "corpus/ggp-repository/ticTacToe.kif",
    "corpus/ggp-repository/connect4.kif",
];

/// The process-wide lock of the GPU subject's checks.
static GPU_LOCK: Mutex<()> = Mutex::new(());

impl Subject {
    /// The module name of its tests.
    pub fn name(self) -> &'static str {
        match self {
            Subject::Reference => "reference",
            Subject::CpuAvx2 => "cpu_avx2",
            Subject::CpuPortable => "cpu_portable",
            Subject::Gpu => "gpu",
            Subject::FpgaSim => "fpga_sim",
        }
    }

    /// The skip rule: true when the subject can run here; else prints why and returns
    /// false, or panics when its `PROPNET_REQUIRE_*` variable is set.
    pub fn present(self) -> bool {
        match self {
            Subject::Reference | Subject::CpuPortable => true,
            Subject::CpuAvx2 => propnet_tests::avx2_available(),
            Subject::Gpu => propnet_tests::gpu_available(),
            Subject::FpgaSim => propnet_tests::tool_available("verilator"),
        }
    }

    /// How much of each check it runs.
    pub fn sizes(self) -> Sizes {
        match self {
            Subject::Reference | Subject::CpuAvx2 | Subject::CpuPortable => Sizes {
                random_netlists: usize::MAX,
                playout_divisor: 1,
                max_game_gates: usize::MAX,
                game_seeds: 2,
                skipped_games: &[],
            },
            // lavapipe runs a shader on the CPU: hex 9×9 (41,898 gates, Table layout)
            // alone would take minutes of CI; amazons keeps a game over 5,000 gates.
            Subject::Gpu => Sizes {
                random_netlists: 2,
                playout_divisor: 6,
                max_game_gates: 30_000,
                game_seeds: 1,
                skipped_games: CORPUS_TWINS,
            },
            // Each netlist is a Verilator model built in about a minute: the random
            // families are left to the simulation checks of `hdl_vs_cpu.rs`, and the
            // games are the small ones (tic-tac-toe, connect four and their variants).
            Subject::FpgaSim => Sizes {
                random_netlists: 0,
                playout_divisor: 8,
                max_game_gates: 600,
                game_seeds: 1,
                skipped_games: CORPUS_TWINS,
            },
        }
    }

    /// The `backend` field of its errors; `None` when it does not validate requests (the
    /// reference indexes the start state as given).
    pub fn error_name(self) -> Option<&'static str> {
        match self {
            Subject::Reference => None,
            Subject::CpuAvx2 | Subject::CpuPortable => Some("cpu"),
            Subject::Gpu => Some("gpu"),
            Subject::FpgaSim => Some("fpga"),
        }
    }

    /// A lock its checks hold while they run, when they must not overlap.
    pub fn exclusive(self) -> Option<&'static Mutex<()>> {
        (self == Subject::Gpu).then_some(&GPU_LOCK)
    }

    /// The backends of `c` to run a case on: each with a label saying its configuration.
    pub fn configs(self, c: &Case, which: Configs) -> Vec<(String, Box<dyn Backend>)> {
        let mut opts = BackendOptions::default();
        // The FPGA design of every case: 2 engines, 16 records per engine (small buffers,
        // so a job of more playouts is split into several runs). Tic-tac-toe's model is
        // the one of `host/tests/cli_fpga_run.rs` too (built once, cached).
        opts.fpga.design.engines = 2;
        opts.fpga.design.records = 16;
        let cpu = |threads, lane_width| {
            let simd = match self {
                Subject::CpuPortable => Simd::Portable,
                _ => Simd::Auto,
            };
            BackendOptions {
                cpu: CpuOptions {
                    threads,
                    lane_width,
                    simd,
                },
                ..opts.clone()
            }
        };
        let cpu_all = [(1, 64), (2, 256), (2, 512)];
        let gpu_layouts = if c.net.logic_gate_count() > GPU_INLINE_MAX_GATES {
            vec![propnet_kernels::wgsl::Layout::Table]
        } else {
            vec![
                propnet_kernels::wgsl::Layout::Inline,
                propnet_kernels::wgsl::Layout::Table,
            ]
        };
        let mut built: Vec<(String, BackendKind, BackendOptions)> = match self {
            Subject::Reference => vec![("reference".into(), BackendKind::Reference, opts)],
            Subject::CpuAvx2 | Subject::CpuPortable => {
                let shapes = match which {
                    Configs::All => cpu_all.to_vec(),
                    Configs::One(k) => vec![(
                        1 + (k / SUPPORTED_LANES.len()) % 2,
                        SUPPORTED_LANES[k % SUPPORTED_LANES.len()],
                    )],
                };
                shapes
                    .into_iter()
                    .map(|(t, l)| {
                        let label = format!("{} threads, {l} lanes", t);
                        (label, BackendKind::Cpu, cpu(t, l))
                    })
                    .collect()
            }
            Subject::Gpu => {
                let layouts = match which {
                    Configs::All => gpu_layouts,
                    Configs::One(k) => vec![gpu_layouts[k % gpu_layouts.len()]],
                };
                layouts
                    .into_iter()
                    .map(|layout| {
                        let mut o = opts.clone();
                        o.gpu.layout = layout;
                        (format!("{layout:?}"), BackendKind::Gpu, o)
                    })
                    .collect()
            }
            Subject::FpgaSim => vec![(
                "2 engines, 16 records".into(),
                BackendKind::Fpga(FpgaTarget::Sim),
                opts,
            )],
        };
        built
            .drain(..)
            .map(|(label, kind, o)| {
                let valid = ValidNetlist::new((*c.net).clone())
                    .unwrap_or_else(|e| panic!("{}: {e}", c.label));
                let b = make_backend(kind, valid, &o)
                    .unwrap_or_else(|e| panic!("{} on {} ({label}): {e}", c.label, self.name()))
                    .backend;
                self.assert_is_itself(b.as_ref());
                eprintln!(
                    "{}: {} logic gates on {}",
                    c.label,
                    c.net.logic_gate_count(),
                    b.describe()
                );
                (label, b)
            })
            .collect()
    }

    /// The backend built is the one this subject names.
    fn assert_is_itself(self, b: &dyn Backend) {
        let d = b.describe();
        let prefix = match self {
            Subject::Reference => "reference",
            Subject::CpuAvx2 | Subject::CpuPortable => "cpu",
            Subject::Gpu => "gpu: ",
            Subject::FpgaSim => "fpga:sim",
        };
        assert!(d.starts_with(prefix), "{}: {d}", self.name());
        if self == Subject::CpuAvx2 {
            assert!(
                propnet_sim::avx2_available(),
                "the AVX2 subject runs only where the AVX2 path does"
            );
        }
    }

    /// Runs `check` on this subject when it is present (else skips, see
    /// [`Subject::present`]), holding its lock when it has one.
    pub fn run(self, check: fn(Subject)) {
        if !self.present() {
            return;
        }
        let _guard = self
            .exclusive()
            .map(|m| m.lock().unwrap_or_else(|e| e.into_inner()));
        check(self);
    }

    /// `n` playouts scaled down by the subject's divisor (at least 1).
    fn scaled(self, n: u32) -> u32 {
        (n / self.sizes().playout_divisor).max(1)
    }
}

/// Runs every request of `reqs` (each with what it tests) on every configuration `which`
/// of `s` for `c`, each configuration built once (a GPU device and pipeline or an FPGA
/// model costs seconds), each result checked against the reference ([`assert_same`]).
/// Returns the reference's results, in request order.
fn conforms(
    s: Subject,
    c: &Case,
    which: Configs,
    reqs: &[(String, BatchRequest)],
) -> Vec<Arc<BatchResult>> {
    let mut want = Vec::new();
    for (label, mut b) in s.configs(c, which) {
        want.clear();
        for (what, req) in reqs {
            let on = format!("{what} on {} ({label})", s.name());
            let got = b
                .run_batch(req)
                .unwrap_or_else(|e| panic!("{}: {on}: {e}", c.label));
            want.push(assert_same(c, req, &got, &on));
        }
    }
    want
}

/// A family of `n` random cases (`make(k)` builds case `k` and its request): the subject
/// runs the first of them ([`Sizes::random_netlists`]), on one configuration each in
/// turn; the reference's results of all of them are returned, so that the family's own
/// claims (both end kinds occur, roles get stuck) are checked whatever the subject runs.
fn family(
    s: Subject,
    n: u64,
    what: &str,
    make: impl Fn(u64) -> (Case, BatchRequest),
) -> Vec<Arc<BatchResult>> {
    (0..n)
        .map(|k| {
            let (c, req) = make(k);
            if k < s.sizes().random_netlists as u64 {
                let reqs = [(what.to_string(), req.clone())];
                conforms(s, &c, Configs::One(k as usize), &reqs);
            }
            reference_result(&c, &req)
        })
        .collect()
}

/// One `#[test]` per check for the subject `$subject` (in the module of the invocation).
macro_rules! conformance_suite {
    ($subject:expr) => {
        use super::{checks, Subject};
        const S: Subject = $subject;
        #[test]
        fn random_netlists() {
            S.run(checks::random_netlists);
        }
        #[test]
        fn many_legal_moves() {
            S.run(checks::many_legal_moves);
        }
        #[test]
        fn every_choice_path() {
            S.run(checks::every_choice_path);
        }
        #[test]
        fn no_legal_move_ends() {
            S.run(checks::no_legal_move_ends);
        }
        #[test]
        fn long_batches_and_many_jobs() {
            S.run(checks::long_batches_and_many_jobs);
        }
        #[test]
        fn step_limits_zero_one_two() {
            S.run(checks::step_limits_zero_one_two);
        }
        #[test]
        fn without_records() {
            S.run(checks::without_records);
        }
        #[test]
        fn bad_start_rejected() {
            S.run(checks::bad_start_rejected);
        }
        #[test]
        fn mcts_search() {
            S.run(checks::mcts_search);
        }
        #[test]
        fn game_tictactoe() {
            S.run(checks::game_tictactoe);
        }
        #[test]
        fn game_connect_four() {
            S.run(checks::game_connect_four);
        }
        #[test]
        fn game_breakthrough_step_limit() {
            S.run(checks::game_breakthrough_step_limit);
        }
        #[test]
        fn game_niu_jiao_qi() {
            S.run(checks::game_niu_jiao_qi);
        }
        #[test]
        fn game_amazons_over_5000_gates() {
            S.run(checks::game_amazons_over_5000_gates);
        }
        #[test]
        fn game_corpus_tictactoe() {
            S.run(checks::game_corpus_tictactoe);
        }
        #[test]
        fn game_corpus_tictactoe_simultaneous() {
            S.run(checks::game_corpus_tictactoe_simultaneous);
        }
        #[test]
        fn game_corpus_connect_four() {
            S.run(checks::game_corpus_connect_four);
        }
        #[test]
        fn game_corpus_connect_four_simultaneous() {
            S.run(checks::game_corpus_connect_four_simultaneous);
        }
        #[test]
        fn game_corpus_recursive_test_case_5c() {
            S.run(checks::game_corpus_recursive_test_case_5c);
        }
        #[test]
        fn game_hex() {
            S.run(checks::game_hex);
        }
        #[test]
        fn game_positive_loop() {
            S.run(checks::game_positive_loop);
        }
    };
}

mod reference {
    conformance_suite!(Subject::Reference);
}

mod cpu_avx2 {
    conformance_suite!(Subject::CpuAvx2);
}

mod cpu_portable {
    conformance_suite!(Subject::CpuPortable);
}

mod gpu {
    conformance_suite!(Subject::Gpu);
}

mod fpga_sim {
    conformance_suite!(Subject::FpgaSim);
}

mod checks;
