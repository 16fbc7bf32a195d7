//! Shared helpers for the integration and conformance tests in `tests/tests/`: locating the
//! workspace and shared corpus, reading oracle traces (`shared/oracle/README.md`), and
//! replaying them through the reference interpreter and through a compiled netlist.

pub mod cases;
pub mod fixtures;

use propnet_compiler::gdl::Program;
use propnet_compiler::interp::{GoalValue, Interp};
use propnet_netlist::playout::eval_gates;
use propnet_netlist::{Gate, InputId, Netlist};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The workspace root (the folder holding `bench-games/`, `compiler/`, ...): env
/// `PROPNET_WORKSPACE` when set (prebuilt test binaries run from another checkout, see
/// `scripts/device-check.sh`), else the folder this crate was built in.
pub fn workspace_root() -> PathBuf {
    match std::env::var_os("PROPNET_WORKSPACE") {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join(".."),
    }
}

/// True when the environment variable `var` asks for a backend or data set to be present
/// (`PROPNET_REQUIRE_GPU=1`, …): set to anything but empty or `0`.
pub fn required(var: &str) -> bool {
    std::env::var(var).is_ok_and(|v| !v.is_empty() && v != "0")
}

/// The one skip rule of every test in this crate: `presence` is `Ok` when `what` (a
/// backend, a tool, the shared data) can be used here. When it cannot, the test prints why
/// and skips (returns false), unless `require_var` is set ([`required`]; CI sets them),
/// in which case the absence is a failure (panic).
pub fn present_or_skip(what: &str, require_var: &str, presence: Result<(), String>) -> bool {
    match presence {
        Ok(()) => true,
        Err(why) => {
            assert!(
                !required(require_var),
                "{what} is required ({require_var} is set) but absent: {why}"
            );
            eprintln!("skipping {what}: {why} (set {require_var}=1 to make this a failure)");
            false
        }
    }
}

/// The shared test data folder, or `None` (skip, with a message) when it is absent and
/// `PROPNET_REQUIRE_SHARED=1` is not set; with it set, absence panics ([`present_or_skip`]).
pub fn shared_dir() -> Option<PathBuf> {
    let dir = workspace_root().join("../shared");
    let presence = if dir.is_dir() {
        Ok(())
    } else {
        Err(format!("not found at {}", dir.display()))
    };
    present_or_skip("the shared test data", "PROPNET_REQUIRE_SHARED", presence).then_some(dir)
}

/// Whether a GPU adapter (a real GPU or lavapipe) exists, asked once per process.
fn gpu_presence() -> Result<(), String> {
    static PRESENCE: std::sync::OnceLock<Result<(), String>> = std::sync::OnceLock::new();
    PRESENCE
        .get_or_init(|| {
            propnet_kernels::runner::request_adapter()
                .map(|_| ())
                .map_err(|e| e.to_string())
        })
        .clone()
}

/// True when an adapter (a real GPU or lavapipe) exists. Without one it prints why and
/// returns false (the test skips), unless `PROPNET_REQUIRE_GPU=1` (CI), in which case the
/// absence is a failure ([`present_or_skip`]).
pub fn gpu_available() -> bool {
    present_or_skip("the GPU backend", "PROPNET_REQUIRE_GPU", gpu_presence())
}

/// True when the external `tool` (iverilog, verilator, …) can be started. Without it prints
/// why and returns false (the test skips), unless `PROPNET_REQUIRE_TOOLS=1` (CI), in which
/// case the absence is a failure ([`present_or_skip`]).
pub fn tool_available(tool: &str) -> bool {
    let presence = if propnet_hdl::tools::available(tool) {
        Ok(())
    } else {
        Err("not installed (bash scripts/setup.sh installs it)".to_string())
    };
    present_or_skip(tool, "PROPNET_REQUIRE_TOOLS", presence)
}

/// True when this processor runs the CPU simulator's AVX2 path
/// ([`propnet_sim::avx2_available`]: AVX2, POPCNT, BMI1, BMI2). Without it prints why and
/// returns false (the test skips), unless `PROPNET_REQUIRE_AVX2=1` (CI, whose machines
/// have it), in which case the absence is a failure ([`present_or_skip`]).
pub fn avx2_available() -> bool {
    let presence = if propnet_sim::avx2_available() {
        Ok(())
    } else {
        Err("this processor lacks AVX2, POPCNT, BMI1 or BMI2".to_string())
    };
    present_or_skip(
        "the CPU simulator's AVX2 path",
        "PROPNET_REQUIRE_AVX2",
        presence,
    )
}

/// The instruction-set paths of the CPU simulator that run here, for the CPU-only tests:
/// [`propnet_sim::Simd::Auto`] (the AVX2 path) when [`avx2_available`], and always
/// [`propnet_sim::Simd::Portable`] (forced, so that it runs on AVX2 machines too).
pub fn cpu_paths() -> Vec<propnet_sim::Simd> {
    let mut paths = Vec::new();
    if avx2_available() {
        paths.push(propnet_sim::Simd::Auto);
    }
    paths.push(propnet_sim::Simd::Portable);
    paths
}

/// The file `rel` (e.g. `games/ggp-repository/ticTacToe.kif`) of the shared test data, or
/// `None` (skip, with a message) when it is absent, like [`shared_dir`]: with
/// `PROPNET_REQUIRE_SHARED=1` set, absence panics.
pub fn shared_file(rel: &str) -> Option<PathBuf> {
    let path = shared_dir()?.join(rel);
    let presence = if path.is_file() {
        Ok(())
    } else {
        Err(format!("{} not found", path.display()))
    };
    present_or_skip(rel, "PROPNET_REQUIRE_SHARED", presence).then_some(path)
}

/// The game at `path` compiled by the pipeline every `propnet` subcommand uses
/// ([`propnet_runtime::pipeline::load_netlist`]: check, ground, optimize, validate).
///
/// # Panics
/// With the located error when the game does not load.
pub fn compile_file(path: &Path) -> Netlist {
    let opts = propnet_runtime::pipeline::PipelineOptions::default();
    match propnet_runtime::pipeline::load_netlist(path, &opts) {
        Ok((net, _)) => net.into_netlist(),
        Err(e) => panic!("{e}"),
    }
}

/// One step line of an oracle trace.
#[derive(Clone, Debug)]
pub struct TraceStep {
    /// Playout number (from 0).
    pub playout: u64,
    /// Step number within the playout (0 = initial state).
    pub step: u64,
    /// Sorted canonical fluent texts.
    pub state: Vec<String>,
    /// Terminal flag.
    pub terminal: bool,
    /// Sorted legal move texts per role (role order).
    pub legal: Vec<Vec<String>>,
    /// Goal values per role: empty = `null`, else the sorted values (integers only).
    pub goals: Vec<Vec<i128>>,
    /// The joint move texts (role order) taken from here, `None` on a playout's last line.
    pub joint: Option<Vec<String>>,
}

/// A whole oracle trace: roles from the header and the step lines in file order.
#[derive(Clone, Debug)]
pub struct Trace {
    /// Role names in order.
    pub roles: Vec<String>,
    /// Step lines.
    pub steps: Vec<TraceStep>,
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .expect("list")
        .iter()
        .map(|s| s.as_str().expect("string").to_string())
        .collect()
}

/// Reads an oracle trace file. Panics with the line number on malformed input (test data).
pub fn read_trace(path: &Path) -> Trace {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty());
    let (_, header) = lines
        .next()
        .unwrap_or_else(|| panic!("{}: empty trace", path.display()));
    let header: Value = serde_json::from_str(header).expect("header JSON");
    let roles = strings(&header["roles"]);
    let steps = lines
        .map(|(n, l)| {
            let v: Value = serde_json::from_str(l)
                .unwrap_or_else(|e| panic!("{}:{}: {e}", path.display(), n + 1));
            let per_role =
                |key: &str| -> Vec<&Value> { roles.iter().map(|r| &v[key][r.as_str()]).collect() };
            TraceStep {
                playout: v["playout"].as_u64().expect("playout"),
                step: v["step"].as_u64().expect("step"),
                state: strings(&v["state"]),
                terminal: v["terminal"].as_bool().expect("terminal"),
                legal: per_role("legal").into_iter().map(strings).collect(),
                goals: per_role("goals")
                    .into_iter()
                    .map(|g| match g {
                        Value::Null => vec![],
                        Value::Array(xs) => xs
                            .iter()
                            .map(|x| x.as_i64().expect("int goal") as i128)
                            .collect(),
                        x => vec![x.as_i64().expect("int goal") as i128],
                    })
                    .collect(),
                joint: v.get("joint").map(|_| {
                    per_role("joint")
                        .into_iter()
                        .map(|m| m.as_str().expect("move").to_string())
                        .collect()
                }),
            }
        })
        .collect();
    Trace { roles, steps }
}

fn mismatch(
    s: &TraceStep,
    what: &str,
    got: impl std::fmt::Debug,
    want: impl std::fmt::Debug,
) -> String {
    format!(
        "playout {} step {}: {what}: got {got:?}, oracle {want:?}",
        s.playout, s.step
    )
}

/// Replays `trace` through the reference interpreter: at every line the state, terminal
/// flag, legal moves and goals must equal the oracle's; the oracle's joint move is played.
///
/// # Errors
/// The first difference, as `playout P step S: what: got .., oracle ..`.
pub fn replay_interp(program: &Program, trace: &Trace) -> Result<usize, String> {
    let mut it = Interp::new(program).map_err(|e| e.to_string())?;
    if it.role_names() != trace.roles.as_slice() {
        return Err(format!("roles {:?} != {:?}", it.role_names(), trace.roles));
    }
    let mut state = None;
    for s in &trace.steps {
        if s.step == 0 {
            state = Some(it.initial_state().map_err(|e| e.to_string())?);
        }
        let st = state.take().ok_or("trace does not start at step 0")?;
        let mut pos = it.evaluate(&st).map_err(|e| e.to_string())?;
        let got_state = it.state_text(pos.state());
        if got_state != s.state {
            return Err(mismatch(s, "state", got_state, &s.state));
        }
        if it.terminal_in(&pos) != s.terminal {
            return Err(mismatch(s, "terminal", !s.terminal, s.terminal));
        }
        let legal: Vec<_> = (0..trace.roles.len())
            .map(|r| it.legal_in(&pos, r))
            .collect();
        for (r, l) in legal.iter().enumerate() {
            let texts: Vec<&str> = l.iter().map(|(t, _)| t.as_str()).collect();
            if texts != s.legal[r] {
                return Err(mismatch(
                    s,
                    &format!("legal of {}", trace.roles[r]),
                    texts,
                    &s.legal[r],
                ));
            }
        }
        let goals: Vec<Vec<i128>> = it
            .goals_in(&pos)
            .into_iter()
            .map(|g| {
                g.into_iter()
                    .map(|v| if let GoalValue::Int(n) = v { n } else { -1 })
                    .collect()
            })
            .collect();
        if goals != s.goals {
            return Err(mismatch(s, "goals", goals, &s.goals));
        }
        if let Some(joint) = &s.joint {
            let ids: Vec<_> = joint
                .iter()
                .zip(&legal)
                .map(|(m, l)| {
                    l.iter()
                        .find(|(t, _)| t == m)
                        .map(|(_, id)| *id)
                        .ok_or_else(|| format!("{m} not legal"))
                })
                .collect::<Result<_, _>>()?;
            state = Some(it.next_from(&mut pos, &ids).map_err(|e| e.to_string())?);
        }
    }
    Ok(trace.steps.len())
}

/// Scalar evaluation of a netlist one state at a time, done once per step rather than once
/// per query: [`NetStepper::view`] evaluates every gate with no input true (legal, goal and
/// terminal gates never depend on inputs in GDL), and [`NetStepper::next`] re-evaluates only
/// the gates that depend on an input (precomputed, in topological order) for a joint move.
pub struct NetStepper<'a> {
    net: &'a Netlist,
    /// Gates with an input in their transitive fan-in, ascending (= topological order).
    input_cone: Vec<usize>,
}

impl<'a> NetStepper<'a> {
    /// Precomputes the input cone of `net` (one pass over the gates).
    pub fn new(net: &'a Netlist) -> Self {
        let mut dep = vec![false; net.gates.len()];
        let mut input_cone = Vec::new();
        for (i, g) in net.gates.iter().enumerate() {
            dep[i] = matches!(g, Gate::Input(_)) || g.operands().iter().any(|o| dep[o.index()]);
            if dep[i] {
                input_cone.push(i);
            }
        }
        NetStepper { net, input_cone }
    }

    /// Every gate's value in `state` (one bool per latch) with no input true.
    pub fn view(&self, state: &[bool]) -> Vec<bool> {
        eval_gates(self.net, state, &vec![false; self.net.inputs.len()])
    }

    /// The latch values after the joint move `joint` (one input per role) in the state whose
    /// [`NetStepper::view`] is `view`. `view` is used as scratch and restored.
    pub fn next(&self, view: &mut [bool], joint: &[InputId]) -> Vec<bool> {
        let mut inputs = vec![false; self.net.inputs.len()];
        for m in joint {
            inputs[m.index()] = true;
        }
        let saved: Vec<bool> = self.input_cone.iter().map(|&i| view[i]).collect();
        for &i in &self.input_cone {
            view[i] = match &self.net.gates[i] {
                Gate::Const(c) => *c,
                Gate::Input(x) => inputs[x.index()],
                Gate::Latch(_) => unreachable!("latches do not depend on inputs"),
                Gate::Not(a) => !view[a.index()],
                Gate::And(ops) => ops.iter().all(|o| view[o.index()]),
                Gate::Or(ops) => ops.iter().any(|o| view[o.index()]),
            };
        }
        let next = self
            .net
            .latches
            .iter()
            .map(|l| view[l.next.index()])
            .collect();
        for (&i, b) in self.input_cone.iter().zip(saved) {
            view[i] = b;
        }
        next
    }
}

/// Replays `trace` through a compiled netlist, as [`replay_interp`] does: full state
/// (latches plus fixed fluents), terminal, legal moves (by text), and the set of true goal
/// values per role must equal the oracle's at every line. Costs about one full netlist
/// evaluation per line (see [`NetStepper`]).
///
/// # Errors
/// The first difference, as [`replay_interp`].
pub fn replay_netlist(net: &Netlist, trace: &Trace) -> Result<usize, String> {
    let roles: Vec<&str> = net.roles.iter().map(|r| r.name.as_str()).collect();
    if roles != trace.roles {
        return Err(format!("roles {roles:?} != {:?}", trace.roles));
    }
    let stepper = NetStepper::new(net);
    let mut state = None;
    for s in &trace.steps {
        if s.step == 0 {
            state = Some(net.initial_state());
        }
        let st = state.take().ok_or("trace does not start at step 0")?;
        let mut view = stepper.view(&st);
        let got_state = net.true_fluents(&st);
        if got_state != s.state {
            return Err(mismatch(s, "state", got_state, &s.state));
        }
        if view[net.terminal.index()] != s.terminal {
            return Err(mismatch(s, "terminal", !s.terminal, s.terminal));
        }
        let mut legal: Vec<Vec<(&str, InputId)>> = Vec::new();
        for (r, role) in net.roles.iter().enumerate() {
            let l: Vec<_> = role
                .legal
                .iter()
                .filter(|l| view[l.gate.index()])
                .map(|l| (net.inputs[l.input.index()].name.as_str(), l.input))
                .collect();
            let texts: Vec<&str> = l.iter().map(|(t, _)| *t).collect();
            if texts != s.legal[r] {
                return Err(mismatch(
                    s,
                    &format!("legal of {}", trace.roles[r]),
                    texts,
                    &s.legal[r],
                ));
            }
            legal.push(l);
        }
        let goals: Vec<Vec<i128>> = net
            .roles
            .iter()
            .map(|r| {
                r.goals
                    .iter()
                    .filter(|g| view[g.gate.index()])
                    .map(|g| g.value as i128)
                    .collect()
            })
            .collect();
        if goals != s.goals {
            return Err(mismatch(s, "goals", goals, &s.goals));
        }
        if let Some(joint) = &s.joint {
            let ids = joint
                .iter()
                .zip(&legal)
                .map(|(m, l)| {
                    l.iter()
                        .find(|(t, _)| t == m)
                        .map(|(_, id)| *id)
                        .ok_or_else(|| mismatch(s, "oracle move not legal", m, l))
                })
                .collect::<Result<Vec<_>, _>>()?;
            state = Some(stepper.next(&mut view, &ids));
        }
    }
    Ok(trace.steps.len())
}

/// Keeps the first step lines of `trace` that fit `budget` units of `cost_per_line` each,
/// but never fewer than `min_lines` nor fewer than its whole first playout (so every game
/// is checked from its initial state through at least one complete playout). Returns the
/// number of lines dropped.
pub fn truncate_trace(
    trace: &mut Trace,
    cost_per_line: usize,
    budget: usize,
    min_lines: usize,
) -> usize {
    let first_playout = trace
        .steps
        .iter()
        .skip(1)
        .position(|s| s.step == 0)
        .map_or(trace.steps.len(), |p| p + 1);
    let keep = (budget / cost_per_line.max(1))
        .max(min_lines)
        .max(first_playout);
    let before = trace.steps.len();
    trace.steps.truncate(keep);
    before - trace.steps.len()
}

/// Runs `f` on every item on `threads` worker threads (work-stealing by index) and returns
/// the results in item order. Each item's wall time is printed to stderr with its label.
pub fn par_map<T: Sync, R: Send>(
    items: &[T],
    threads: usize,
    label: impl Fn(&T) -> String + Sync,
    f: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results = std::sync::Mutex::new(Vec::with_capacity(items.len()));
    std::thread::scope(|s| {
        for _ in 0..threads.max(1) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(item) = items.get(i) else { break };
                let start = std::time::Instant::now();
                let r = f(item);
                eprintln!("  {:6.2} s  {}", start.elapsed().as_secs_f64(), label(item));
                results.lock().expect("no poisoned lock").push((i, r));
            });
        }
    });
    let mut results = results.into_inner().expect("no poisoned lock");
    results.sort_by_key(|(i, _)| *i);
    results.into_iter().map(|(_, r)| r).collect()
}

/// Worker threads for the corpus tests: 2 (CI's core count), or `PROPNET_TEST_THREADS`.
pub fn test_threads() -> usize {
    std::env::var("PROPNET_TEST_THREADS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2)
}

/// Every file under `dir` (recursively) with extension `ext`, sorted.
pub fn files_with_ext(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|e| e == ext) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// A small seeded generator (SplitMix64) for choosing joint moves in tests.
pub struct TestRng(u64);

impl TestRng {
    /// A generator with this seed.
    pub fn new(seed: u64) -> Self {
        TestRng(seed)
    }
    /// A value in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        ((z ^ (z >> 31)) % n as u64) as usize
    }
}

/// The text of `tests/too-big.txt`: corpus games (relative to `shared/games/`) that exceed
/// the default grounding budget, one per line, `#` comments. The one list, shared with
/// `compiler/tests/corpus_compile.rs`.
pub const TOO_BIG_LIST: &str = include_str!("../too-big.txt");

/// The games of [`TOO_BIG_LIST`]; tests that need a netlist skip them instead of spending
/// the budget.
pub fn too_big_games() -> impl Iterator<Item = &'static str> {
    TOO_BIG_LIST
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
}

/// True when `path` (under `shared/games/`) is one of [`too_big_games`].
pub fn too_big(path: &Path) -> bool {
    let p = path.to_string_lossy().replace('\\', "/");
    too_big_games().any(|g| p.ends_with(g))
}
