//! A compiled netlist as a [`TraceEngine`]: `propnet trace --engine netlist` and `propnet
//! verify --engine netlist` see the game through it, one position at a time.
//!
//! The oracle's trace needs an external choice rule (SplitMix64 over the sorted legal
//! list), while the CPU and GPU backends choose moves themselves (Threefry, inside the
//! playout loop). So [`TraceBackend`] names *which evaluation of the netlist* produces the
//! lines:
//! - `reference`: scalar evaluation of every gate
//!   ([`propnet_netlist::playout::eval_gates`]), twice per step (view, then transition);
//! - `cpu`: the CPU backend's own compiled program ([`crate::sim::program::Program`]: its
//!   levelized core/goal/next phases and its bit-parallel evaluator
//!   [`crate::sim::eval::run_phase`]), run on one 64-lane block;
//! - `gpu`: the lines come from the `cpu` evaluation, and in addition every traced state
//!   is run on the GPU kernel as a one-step playout (terminal check, legal-move count and
//!   Threefry choice, transition, goals of the successor); each such record must equal
//!   the reference backend's for the same request, or the trace fails naming the playout
//!   and step. States are sent in batches of [`GPU_BATCH`].

use crate::backend::{Backend, BackendError, BatchRequest, Job, ReferenceBackend};
use crate::gpu::GpuBackend;
use crate::sim::eval::{read, run_phase, Block};
use crate::sim::program::Program;
use propnet_compiler::interp::trace::{StepView, TraceEngine};
use propnet_compiler::interp::GoalValue;
use propnet_netlist::playout::{eval_gates, legal_of, PlayoutRecord};
use propnet_netlist::{validate, InputId, Netlist, ValidNetlist, ValidateError};

/// Traced states checked per GPU dispatch with `--backend gpu`.
pub const GPU_BATCH: usize = 512;

/// Which evaluation of the netlist a trace runs on (see the module docs).
#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum TraceBackend {
    /// Scalar evaluation of every gate.
    #[value(alias = "ref")]
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

/// The evaluation the lines come from.
enum Eval {
    Scalar,
    /// The CPU program and its slot values (one 64-lane block; every lane equal).
    Program(Box<Program>, Vec<Block<1>>),
}

/// Traced states waiting for the GPU check: (state, playout, step).
struct GpuCheck {
    gpu: GpuBackend,
    reference: ReferenceBackend,
    pending: Vec<(Vec<bool>, u64, u64)>,
    checked: u32,
}

/// A netlist seen one position at a time (see the module docs).
pub struct NetEngine<'n> {
    net: &'n Netlist,
    backend: TraceBackend,
    eval: Eval,
    gpu: Option<GpuCheck>,
    state: Vec<bool>,
    /// Gate values of the last view (scalar evaluation only).
    values: Vec<bool>,
    /// Legal inputs per role of the last view.
    legal: Vec<Vec<InputId>>,
    /// Playout and step of the current position (for the GPU check's messages).
    playout: u64,
    step: u64,
    started: bool,
}

impl<'n> NetEngine<'n> {
    /// Validates `net` and prepares the named evaluation; `gpu` builds a GPU backend.
    ///
    /// # Errors
    /// [`NetTraceError::Invalid`] for a broken netlist, [`NetTraceError::Backend`] when no
    /// GPU adapter exists or it rejects the shader.
    pub fn new(net: &'n Netlist, backend: TraceBackend) -> Result<Self, NetTraceError> {
        let info = validate(net)?;
        let eval = match backend {
            TraceBackend::Reference => Eval::Scalar,
            TraceBackend::Cpu | TraceBackend::Gpu => {
                let p = Program::compile(net, &info);
                let slots = vec![[0u64; 1]; p.slots];
                Eval::Program(Box::new(p), slots)
            }
        };
        let gpu = match backend {
            TraceBackend::Gpu => Some(GpuCheck {
                gpu: GpuBackend::new(ValidNetlist::new(net.clone())?, &Default::default())?,
                reference: ReferenceBackend::new(net.clone()),
                pending: Vec::new(),
                checked: 0,
            }),
            _ => None,
        };
        Ok(NetEngine {
            net,
            backend,
            eval,
            gpu,
            state: net.initial_state(),
            values: Vec::new(),
            legal: Vec::new(),
            playout: 0,
            step: 0,
            started: false,
        })
    }

    /// A one-line description of the evaluation (for `gpu`, the adapter).
    pub fn describe(&self) -> String {
        match &self.gpu {
            Some(g) => format!(
                "netlist (cpu program), every state checked on {}",
                g.gpu.describe()
            ),
            None => format!("netlist ({})", self.backend.name()),
        }
    }

    /// Evaluates the current state: terminal flag, legal inputs and true goal values per role.
    fn evaluate(&mut self) -> (bool, Vec<Vec<InputId>>, Vec<Vec<u8>>) {
        let net = self.net;
        let (terminal, legal, goals) = match &mut self.eval {
            Eval::Scalar => {
                self.values = eval_gates(net, &self.state, &vec![false; net.inputs.len()]);
                let v = &self.values;
                let legal = legal_of(net, v);
                let goals = net
                    .roles
                    .iter()
                    .map(|r| {
                        r.goals
                            .iter()
                            .filter(|g| v[g.gate.index()])
                            .map(|g| g.value)
                    })
                    .map(Iterator::collect)
                    .collect();
                (v[net.terminal.index()], legal, goals)
            }
            Eval::Program(p, vals) => {
                for (slot, &b) in vals.iter_mut().zip(&self.state) {
                    *slot = [if b { !0 } else { 0 }];
                }
                vals[p.latches..p.core.first_slot].fill([0]);
                run_phase(vals, &p.core);
                run_phase(vals, &p.goal);
                let on = |op| read(vals, op)[0] & 1 == 1;
                let legal = p
                    .legal
                    .iter()
                    .map(|r| r.iter().filter(|(op, _)| on(*op)).map(|&(_, i)| InputId(i)))
                    .map(Iterator::collect)
                    .collect();
                let goals = p
                    .goals
                    .iter()
                    .map(|r| {
                        let mut g: Vec<u8> = r
                            .iter()
                            .filter(|(op, _)| on(*op))
                            .map(|&(_, v)| v)
                            .collect();
                        g.sort_unstable();
                        g
                    })
                    .collect();
                (on(p.terminal), legal, goals)
            }
        };
        (terminal, legal, goals)
    }

    /// The latch values after the inputs `joint` in the state of the last view.
    fn successor(&mut self, joint: &[InputId]) -> Vec<bool> {
        let net = self.net;
        match &mut self.eval {
            Eval::Scalar => {
                let mut inputs = vec![false; net.inputs.len()];
                for m in joint {
                    inputs[m.index()] = true;
                }
                let v = eval_gates(net, &self.state, &inputs);
                net.latches.iter().map(|l| v[l.next.index()]).collect()
            }
            Eval::Program(p, vals) => {
                for m in joint {
                    vals[p.input_base + m.index()] = [!0];
                }
                run_phase(vals, &p.next);
                let next = p
                    .next_state
                    .iter()
                    .map(|&op| read(vals, op)[0] & 1 == 1)
                    .collect();
                for m in joint {
                    vals[p.input_base + m.index()] = [0];
                }
                next
            }
        }
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
        let want = g.reference.run_batch(&req)?.records;
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

impl TraceEngine for NetEngine<'_> {
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
        let (terminal, legal, goals) = self.evaluate();
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
        self.state = self.successor(&moves);
        self.step += 1;
        Ok(())
    }

    fn finish(&mut self) -> Result<(), NetTraceError> {
        self.check_gpu()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use propnet_compiler::interp::trace::{trace, TraceOptions};

    fn lines(net: &Netlist, backend: TraceBackend) -> Vec<String> {
        let mut e = NetEngine::new(net, backend).unwrap();
        let opts = TraceOptions {
            game: "t".into(),
            playouts: 4,
            seed: 7,
            max_steps: 30,
            stop_after: None,
        };
        let mut out = Vec::new();
        trace(&mut e, &opts, |l| out.push(l.to_string())).unwrap();
        out
    }

    /// The CPU program and the scalar evaluation write the same step lines, and the
    /// playouts really move (tic-tac-toe: the state changes and ends terminal).
    #[test]
    fn cpu_program_and_reference_agree() {
        let net = crate::fixtures::tictactoe();
        let (r, c) = (
            lines(&net, TraceBackend::Reference),
            lines(&net, TraceBackend::Cpu),
        );
        assert_eq!(r[1..], c[1..]);
        assert!(r[0].contains("propnet-netlist-reference"), "{}", r[0]);
        assert!(r.len() > 4 * 5, "{} lines", r.len());
        assert!(r.iter().filter(|l| l.contains("\"terminal\":true")).count() == 4);
    }
}
