//! A compiled netlist as a [`TraceEngine`]: `propnet trace --engine netlist` and `propnet
//! verify --engine netlist` see the game through it, one position at a time.
//!
//! The oracle's trace needs an external choice rule (SplitMix64 over the sorted legal
//! list), while the CPU and GPU backends choose moves themselves (Threefry, inside the
//! playout loop). So [`TraceBackend`] names *which evaluation of the netlist* produces the
//! lines, through a [`StepEvaluator`]:
//! - `reference`: scalar evaluation of every gate
//!   ([`propnet_netlist::playout::eval_gates`]), twice per step (view, then transition);
//! - `cpu`: the CPU backend's own compiled program and bit-parallel evaluator, run on one
//!   64-lane block (the evaluator comes from the [`BackendFactory`]);
//! - `gpu`: the lines come from the `cpu` evaluation, and in addition every traced state
//!   is run on the GPU backend as a one-step playout (terminal check, legal-move count and
//!   Threefry choice, transition, goals of the successor); each such record must equal
//!   the reference backend's for the same request, or the trace fails naming the playout
//!   and step. States are sent in batches of [`GPU_BATCH`]. On a GDL-II game every traced
//!   transition (the successor and every role's percepts) is also computed by the GPU's
//!   step kernel ([`crate::step_check`]) and must equal the trace's.

use crate::backend::{run_reference, Backend, BackendError, BatchRequest, Job};
use crate::factory::{BackendFactory, BackendKind, BackendRequest};
use crate::step_check::{StepCheck, StepCheckError};
use propnet_compiler::interp::trace::{StepView, TraceEngine};
use propnet_compiler::interp::GoalValue;
use propnet_netlist::playout::{eval_gates, legal_of, PlayoutRecord};
use propnet_netlist::{InputId, Netlist, ValidNetlist, ValidateError};

/// Traced states checked per GPU dispatch with `--backend gpu`.
pub const GPU_BATCH: usize = 512;

/// Which evaluation of the netlist a trace runs on (see the module docs).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TraceBackend {
    /// Scalar evaluation of every gate.
    Reference,
    /// The CPU backend's compiled program and bit-parallel evaluator.
    Cpu,
    /// `cpu` lines, every state also checked on the GPU kernel.
    Gpu,
}

impl TraceBackend {
    /// The name used in trace headers and reports: `reference`, `cpu` or `gpu`.
    pub fn name(self) -> &'static str {
        match self {
            TraceBackend::Reference => "reference",
            TraceBackend::Cpu => "cpu",
            TraceBackend::Gpu => "gpu",
        }
    }

    /// Parses `reference` (or `ref`), `cpu` or `gpu`, case-insensitively.
    ///
    /// # Errors
    /// A message listing the accepted names.
    pub fn parse(name: &str) -> Result<Self, String> {
        match name.trim().to_ascii_lowercase().as_str() {
            "reference" | "ref" => Ok(Self::Reference),
            "cpu" => Ok(Self::Cpu),
            "gpu" => Ok(Self::Gpu),
            _ => Err(format!(
                "unknown trace backend `{name}` (expected reference, cpu or gpu)"
            )),
        }
    }
}

impl std::fmt::Display for TraceBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// What one evaluation of a state gives a trace.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StepValues {
    /// `terminal` holds.
    pub terminal: bool,
    /// Legal inputs per role (role order, netlist order).
    pub legal: Vec<Vec<InputId>>,
    /// The true goal values per role, ascending.
    pub goals: Vec<Vec<u8>>,
}

/// Evaluates single states of one netlist: the view of a state, then the transition from
/// it. The scalar gate evaluation is [`ScalarEvaluator`]; the CPU simulator provides one
/// over its compiled program.
pub trait StepEvaluator {
    /// Terminal flag, legal inputs and true goal values of `state` (one bool per latch).
    fn view(&mut self, state: &[bool]) -> StepValues;
    /// The latch values after the inputs `joint` (one per role) in the state of the last
    /// [`StepEvaluator::view`].
    fn next(&mut self, joint: &[InputId]) -> Vec<bool>;
    /// The percepts (GDL-II) of each role after the inputs `joint` in the state of the last
    /// [`StepEvaluator::view`]: per role, the indices into its `percepts` list whose gate
    /// holds, ascending. Empty lists for a GDL-I netlist.
    fn percepts(&mut self, joint: &[InputId]) -> Vec<Vec<usize>>;
}

/// [`StepEvaluator`] by scalar evaluation of every gate.
pub struct ScalarEvaluator<'n> {
    net: &'n Netlist,
    state: Vec<bool>,
}

impl<'n> ScalarEvaluator<'n> {
    /// The evaluator of `net`.
    pub fn new(net: &'n Netlist) -> Self {
        Self {
            net,
            state: Vec::new(),
        }
    }
}

impl StepEvaluator for ScalarEvaluator<'_> {
    fn view(&mut self, state: &[bool]) -> StepValues {
        let net = self.net;
        self.state = state.to_vec();
        let v = eval_gates(net, state, &vec![false; net.inputs.len()]);
        let goals = net
            .roles
            .iter()
            .map(|r| {
                let mut g: Vec<u8> = r
                    .goals
                    .iter()
                    .filter(|g| v[g.gate.index()])
                    .map(|g| g.value)
                    .collect();
                g.sort_unstable();
                g
            })
            .collect();
        StepValues {
            terminal: v[net.terminal.index()],
            legal: legal_of(net, &v),
            goals,
        }
    }

    fn next(&mut self, joint: &[InputId]) -> Vec<bool> {
        let net = self.net;
        let mut inputs = vec![false; net.inputs.len()];
        for m in joint {
            inputs[m.index()] = true;
        }
        let v = eval_gates(net, &self.state, &inputs);
        net.latches.iter().map(|l| v[l.next.index()]).collect()
    }

    fn percepts(&mut self, joint: &[InputId]) -> Vec<Vec<usize>> {
        let net = self.net;
        let mut inputs = vec![false; net.inputs.len()];
        for m in joint {
            inputs[m.index()] = true;
        }
        let v = eval_gates(net, &self.state, &inputs);
        propnet_netlist::playout::percepts_of(net, &v)
    }
}

/// Errors of a netlist trace engine.
#[derive(Debug, thiserror::Error)]
pub enum NetTraceError {
    /// The netlist breaks an IR invariant.
    #[error("invalid netlist: {0}")]
    Invalid(#[from] ValidateError),
    /// A backend could not be built or failed.
    #[error(transparent)]
    Backend(#[from] BackendError),
    /// The GPU's one-step playout from a traced state differs from the reference's.
    #[error(
        "the GPU disagrees with the netlist from the state of playout {playout} step {step}: \
         gpu {gpu}, reference {reference}"
    )]
    GpuDisagrees {
        /// Playout of the state (from 0).
        playout: u64,
        /// Step of the state within it.
        step: u64,
        /// The GPU's record.
        gpu: String,
        /// The reference backend's record.
        reference: String,
    },
}

impl From<StepCheckError> for NetTraceError {
    fn from(e: StepCheckError) -> Self {
        match e {
            StepCheckError::Backend(e) => NetTraceError::Backend(e),
            StepCheckError::Mismatch(m) => NetTraceError::GpuDisagrees {
                playout: m.playout,
                step: m.step,
                gpu: format!("step kernel: {}", m.got),
                reference: m.want,
            },
        }
    }
}

/// Traced states waiting for the GPU check: (state, playout, step).
struct GpuCheck {
    gpu: Box<dyn Backend>,
    pending: Vec<(Vec<bool>, u64, u64)>,
    checked: u32,
}

/// A netlist seen one position at a time (see the module docs).
pub struct NetTrace<'n> {
    net: &'n Netlist,
    backend: TraceBackend,
    eval: Box<dyn StepEvaluator + 'n>,
    gpu: Option<GpuCheck>,
    /// GDL-II games with `gpu`: every traced transition (successor and percepts) also on
    /// the GPU's step kernel.
    steps: Option<StepCheck>,
    /// Why a GDL-II game's transitions are not checked on the step kernel (its gate values
    /// do not fit the device's buffers).
    steps_skipped: Option<String>,
    state: Vec<bool>,
    /// Legal inputs per role of the last view.
    legal: Vec<Vec<InputId>>,
    /// Playout and step of the current position (for the GPU check's messages).
    playout: u64,
    step: u64,
    started: bool,
}

impl<'n> NetTrace<'n> {
    /// Validates `net` and prepares the named evaluation: `cpu` and `gpu` take the CPU
    /// program's evaluator from `factory`, and `gpu` a GPU backend.
    ///
    /// # Errors
    /// [`NetTraceError::Invalid`] for a broken netlist, [`NetTraceError::Backend`] when no
    /// GPU adapter exists or it rejects the shader, or the factory has no CPU evaluator.
    pub fn new(
        net: &'n Netlist,
        backend: TraceBackend,
        factory: &dyn BackendFactory,
    ) -> Result<Self, NetTraceError> {
        let mut trace = Self::reference(net)?;
        if backend == TraceBackend::Reference {
            return Ok(trace);
        }
        let valid = ValidNetlist::new(net.clone())?;
        trace.backend = backend;
        trace.eval = factory
            .step_evaluator(&valid)
            .ok_or_else(|| BackendError::NoDevice {
                backend: "cpu".to_string(),
                message: "this build has no CPU program evaluator".to_string(),
            })?;
        if backend == TraceBackend::Gpu {
            if net.gdl2 {
                match factory.gpu_stepper(&valid) {
                    Ok(s) => trace.steps = s.map(|s| StepCheck::new(s, GPU_BATCH)),
                    Err(BackendError::UnsupportedNetlist { message, .. }) => {
                        trace.steps_skipped = Some(message);
                    }
                    Err(e) => return Err(e.into()),
                }
            }
            let gpu = factory.make(&BackendRequest::of(BackendKind::Gpu), valid)?;
            trace.gpu = Some(GpuCheck {
                gpu: gpu.backend,
                pending: Vec::new(),
                checked: 0,
            });
        }
        Ok(trace)
    }

    /// The `reference` trace: scalar evaluation of every gate, no backend needed.
    ///
    /// # Errors
    /// [`NetTraceError::Invalid`] for a broken netlist.
    pub fn reference(net: &'n Netlist) -> Result<Self, NetTraceError> {
        propnet_netlist::validate(net)?;
        Ok(NetTrace {
            net,
            backend: TraceBackend::Reference,
            eval: Box::new(ScalarEvaluator::new(net)),
            gpu: None,
            steps: None,
            steps_skipped: None,
            state: net.initial_state(),
            legal: Vec::new(),
            playout: 0,
            step: 0,
            started: false,
        })
    }

    /// A one-line description of the evaluation (for `gpu`, the adapter and both kernels).
    pub fn describe(&self) -> String {
        let steps = match (&self.steps, &self.steps_skipped) {
            (Some(c), _) => format!(
                ", every transition and its percepts also on its {}",
                c.describe()
            ),
            (None, Some(why)) => format!(", percepts not checked on the GPU ({why})"),
            (None, None) => String::new(),
        };
        match &self.gpu {
            Some(g) => format!(
                "netlist (cpu program), every state also run on {}{steps}",
                g.gpu.describe()
            ),
            None => format!("netlist ({})", self.backend.name()),
        }
    }

    /// With `gpu`, after [`TraceEngine::finish`]: the states checked on the playout
    /// kernel and, for a GDL-II game, the transitions (and their percepts) checked on the
    /// step kernel, all equal to the CPU program or a check would have failed. `None` for
    /// the other evaluations.
    pub fn gpu_checked(&self) -> Option<(u64, Option<u64>)> {
        let g = self.gpu.as_ref()?;
        Some((u64::from(g.checked), self.steps.as_ref().map(|c| c.checked)))
    }

    /// Runs the pending GPU checks (see the module docs).
    fn check_gpu(&mut self) -> Result<(), NetTraceError> {
        let Some(g) = &mut self.gpu else {
            return Ok(());
        };
        if g.pending.is_empty() {
            return Ok(());
        }
        let pending = std::mem::take(&mut g.pending);
        let req = BatchRequest {
            jobs: pending
                .iter()
                .enumerate()
                .map(|(k, (s, _, _))| Job {
                    start: s.clone(),
                    first_playout: g.checked.wrapping_add(k as u32),
                    count: 1,
                })
                .collect(),
            seed: 1,
            max_steps: 1,
            want_records: true,
        };
        g.checked = g.checked.wrapping_add(pending.len() as u32);
        let got = g.gpu.run_batch(&req)?.records;
        let want = run_reference(self.net, &req).records;
        let show = |r: Option<&PlayoutRecord>| r.map_or("nothing".into(), |r| format!("{r:?}"));
        for (k, (_, playout, step)) in pending.iter().enumerate() {
            if got.get(k) != want.get(k) {
                return Err(NetTraceError::GpuDisagrees {
                    playout: *playout,
                    step: *step,
                    gpu: show(got.get(k)),
                    reference: show(want.get(k)),
                });
            }
        }
        Ok(())
    }
}

impl TraceEngine for NetTrace<'_> {
    type Error = NetTraceError;

    fn name(&self) -> String {
        format!("propnet-netlist-{}", self.backend.name())
    }

    fn role_names(&self) -> Vec<String> {
        self.net.roles.iter().map(|r| r.name.clone()).collect()
    }

    fn restart(&mut self) -> Result<(), NetTraceError> {
        if self.started {
            self.playout += 1;
        }
        self.started = true;
        self.step = 0;
        self.state = self.net.initial_state();
        Ok(())
    }

    fn view(&mut self) -> Result<StepView, NetTraceError> {
        let StepValues {
            terminal,
            legal,
            goals,
        } = self.eval.view(&self.state);
        let net = self.net;
        let view = StepView {
            state: net
                .true_fluents(&self.state)
                .into_iter()
                .map(String::from)
                .collect(),
            terminal,
            legal: legal
                .iter()
                .map(|l| {
                    l.iter()
                        .map(|i| net.inputs[i.index()].name.clone())
                        .collect()
                })
                .collect(),
            goals: goals
                .into_iter()
                .map(|g| g.into_iter().map(|v| GoalValue::Int(v.into())).collect())
                .collect(),
        };
        self.legal = legal;
        if let Some(g) = &mut self.gpu {
            g.pending
                .push((self.state.clone(), self.playout, self.step));
            if g.pending.len() >= GPU_BATCH {
                self.check_gpu()?;
            }
        }
        Ok(view)
    }

    fn play(&mut self, joint: &[usize]) -> Result<(), NetTraceError> {
        let moves: Vec<InputId> = joint.iter().zip(&self.legal).map(|(&i, l)| l[i]).collect();
        let seen = self.steps.as_ref().map(|_| self.eval.percepts(&moves));
        let next = self.eval.next(&moves);
        if let (Some(c), Some(seen)) = (&mut self.steps, seen) {
            let at = (self.playout, self.step);
            c.push((&self.state, &moves), (next.clone(), seen), at)?;
        }
        self.state = next;
        self.step += 1;
        Ok(())
    }

    fn finish(&mut self) -> Result<(), NetTraceError> {
        if let Some(c) = &mut self.steps {
            c.flush()?;
        }
        self.check_gpu()
    }

    fn gdl2(&self) -> bool {
        self.net.gdl2
    }

    fn percepts(&mut self, joint: &[usize]) -> Result<Vec<Vec<String>>, NetTraceError> {
        let moves: Vec<InputId> = joint.iter().zip(&self.legal).map(|(&i, l)| l[i]).collect();
        let seen = self.eval.percepts(&moves);
        Ok(self
            .net
            .roles
            .iter()
            .zip(seen)
            .map(|(r, ks)| ks.into_iter().map(|k| r.percepts[k].name.clone()).collect())
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::factory::Selected;
    use propnet_compiler::interp::trace::{trace, TraceOptions};

    /// A factory without backends: only the scalar evaluation is possible.
    #[derive(Debug)]
    struct NoBackends;

    impl BackendFactory for NoBackends {
        fn make(&self, req: &BackendRequest, _: ValidNetlist) -> Result<Selected, BackendError> {
            Err(BackendError::NoDevice {
                backend: req.kind.to_string(),
                message: "none here".into(),
            })
        }
        fn step_evaluator(&self, _: &ValidNetlist) -> Option<Box<dyn StepEvaluator>> {
            None
        }
    }

    /// The scalar trace of tic-tac-toe moves and ends terminal in every playout; the CPU
    /// and GPU evaluations need a factory that has them, and say so otherwise.
    #[test]
    fn reference_trace_plays_and_missing_evaluators_are_errors() {
        let net = crate::fixtures::tictactoe();
        let mut e = NetTrace::new(&net, TraceBackend::Reference, &NoBackends).unwrap();
        assert!(NetTrace::reference(&net).is_ok());
        let opts = TraceOptions {
            game: "t".into(),
            playouts: 4,
            seed: 7,
            max_steps: 30,
            stop_after: None,
        };
        let mut out = Vec::new();
        trace(&mut e, &opts, |l| out.push(l.to_string())).unwrap();
        assert!(out[0].contains("propnet-netlist-reference"), "{}", out[0]);
        assert!(out.len() > 4 * 5, "{} lines", out.len());
        assert_eq!(
            out.iter()
                .filter(|l| l.contains("\"terminal\":true"))
                .count(),
            4
        );
        for b in [TraceBackend::Cpu, TraceBackend::Gpu] {
            let err = NetTrace::new(&net, b, &NoBackends)
                .err()
                .expect("no evaluator");
            assert!(err.to_string().contains("cpu"), "{err}");
        }
        assert_eq!(TraceBackend::parse("REF"), Ok(TraceBackend::Reference));
        assert!(TraceBackend::parse("tpu").unwrap_err().contains("tpu"));
    }
}
