//! Transitions checked in batches on another evaluation of the netlist: [`BatchStepper`]
//! (the GPU's step kernel gives next states and percepts of many (state, joint move)
//! pairs at once) and [`StepCheck`], which `trace --engine netlist --backend gpu` uses on
//! GDL-II games so that every traced step's percepts and successor are computed on the GPU
//! too and must equal the trace's.

use crate::backend::BackendError;
use propnet_netlist::InputId;

/// What one transition gives: the next state (one bool per latch) and, per role, the
/// indices into its `percepts` list that hold, ascending.
pub type Transition = (Vec<bool>, Vec<Vec<usize>>);

/// Many transitions at once (see the module docs).
pub trait BatchStepper {
    /// The device and kernel, in words.
    fn describe(&self) -> String;
    /// The transitions of `pairs` (state, joint move: one input per role), in order.
    ///
    /// # Errors
    /// The device's failure.
    fn step(&mut self, pairs: &[(&[bool], &[InputId])]) -> Result<Vec<Transition>, BackendError>;
}

/// One traced step waiting for the check.
struct Pending {
    state: Vec<bool>,
    joint: Vec<InputId>,
    want: Transition,
    playout: u64,
    step: u64,
}

/// A step the stepper computed otherwise: where, and both results in words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    /// Playout of the state (from 0).
    pub playout: u64,
    /// Step of the state within it.
    pub step: u64,
    /// The stepper's transition.
    pub got: String,
    /// The trace's transition.
    pub want: String,
}

/// Traced steps checked on a [`BatchStepper`] in batches of `batch`.
pub struct StepCheck {
    stepper: Box<dyn BatchStepper>,
    pending: Vec<Pending>,
    batch: usize,
    /// Steps checked so far.
    pub checked: u64,
}

impl StepCheck {
    /// A check on `stepper`, `batch` steps per call (at least 1).
    pub fn new(stepper: Box<dyn BatchStepper>, batch: usize) -> Self {
        Self {
            stepper,
            pending: Vec::new(),
            batch: batch.max(1),
            checked: 0,
        }
    }

    /// The stepper's description.
    pub fn describe(&self) -> String {
        self.stepper.describe()
    }

    /// Queues the step from `state` by `joint` that the trace computed as `want`, at
    /// `(playout, step)`; checks the queue when it is full.
    ///
    /// # Errors
    /// The stepper's failure, or the first [`Mismatch`].
    pub fn push(
        &mut self,
        (state, joint): (&[bool], &[InputId]),
        want: Transition,
        (playout, step): (u64, u64),
    ) -> Result<(), StepCheckError> {
        self.pending.push(Pending {
            state: state.to_vec(),
            joint: joint.to_vec(),
            want,
            playout,
            step,
        });
        match self.pending.len() >= self.batch {
            true => self.flush(),
            false => Ok(()),
        }
    }

    /// Checks every queued step.
    ///
    /// # Errors
    /// The stepper's failure, or the first [`Mismatch`].
    pub fn flush(&mut self) -> Result<(), StepCheckError> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let pending = std::mem::take(&mut self.pending);
        let pairs: Vec<(&[bool], &[InputId])> = (pending.iter())
            .map(|p| (p.state.as_slice(), p.joint.as_slice()))
            .collect();
        let got = self.stepper.step(&pairs)?;
        for (p, g) in pending.iter().zip(&got) {
            if *g != p.want {
                return Err(StepCheckError::Mismatch(Mismatch {
                    playout: p.playout,
                    step: p.step,
                    got: show(g),
                    want: show(&p.want),
                }));
            }
        }
        if got.len() != pending.len() {
            return Err(StepCheckError::Backend(BackendError::Failed {
                backend: "gpu".into(),
                message: format!("{} transitions for {} pairs", got.len(), pending.len()),
            }));
        }
        self.checked += pending.len() as u64;
        Ok(())
    }
}

/// Why a [`StepCheck`] failed.
#[derive(Debug, thiserror::Error)]
pub enum StepCheckError {
    /// The stepper failed.
    #[error(transparent)]
    Backend(#[from] BackendError),
    /// A step came out otherwise.
    #[error("playout {} step {}: got {}, want {}", .0.playout, .0.step, .0.got, .0.want)]
    Mismatch(Mismatch),
}

/// A transition in words: the true latches' indices and the percepts per role.
fn show((next, percepts): &Transition) -> String {
    let on: Vec<usize> = (next.iter().enumerate())
        .filter(|(_, &b)| b)
        .map(|(l, _)| l)
        .collect();
    format!("next latches {on:?}, percepts {percepts:?}")
}
