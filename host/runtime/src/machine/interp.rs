//! [`InterpMachine`]: the reference interpreter as a [`GameMachine`], for games that cannot be
//! compiled (grounding over budget or over the start clock). Slow but correct; rollouts
//! follow the playout rule of [`propnet_netlist::playout`] (terminal first, then the step
//! limit, then a role without legal moves) with the same counter-based draws, and stop at
//! the batch's deadline.

use super::{GameMachine, MachineError, RolloutBatch, View};
use crate::backend::JobResult;
use propnet_compiler::gdl::Program;
use propnet_compiler::interp::{GoalValue, GroundTermId, Interp, InterpError, Position, State};
use propnet_netlist::playout::{PlayoutEnd, PlayoutRecord};
use propnet_netlist::rng::{choose, draw};
use std::time::Instant;

/// The reference interpreter over one game.
pub struct InterpMachine {
    interp: Interp,
}

impl InterpMachine {
    /// Prepares `program` (see [`Interp::new`]).
    ///
    /// # Errors
    /// The interpreter's preparation error.
    pub fn new(program: &Program) -> Result<Self, InterpError> {
        Ok(Self {
            interp: Interp::new(program)?,
        })
    }

    /// [`InterpMachine::new`] with goal values outside 0..=100 read as they are rather than
    /// as an error ([`propnet_compiler::interp::Limits::lenient_goals`]): for a player, which
    /// plays whatever rules a game manager sends.
    ///
    /// # Errors
    /// The interpreter's preparation error.
    pub fn lenient(program: &Program) -> Result<Self, InterpError> {
        let limits = propnet_compiler::interp::Limits {
            lenient_goals: true,
            ..Default::default()
        };
        Ok(Self {
            interp: Interp::with_limits(program, limits)?,
        })
    }

    /// The interpreter.
    pub fn interp(&self) -> &Interp {
        &self.interp
    }

    fn view_of(&self, pos: &Position) -> View<GroundTermId> {
        let roles = self.interp.roles().len();
        View {
            terminal: self.interp.terminal_in(pos),
            legal: (0..roles)
                .map(|r| {
                    self.interp
                        .legal_in(pos, r)
                        .into_iter()
                        .map(|(_, m)| m)
                        .collect()
                })
                .collect(),
            goals: self
                .interp
                .goals_in(pos)
                .iter()
                .map(|g| goal_u8(g))
                .collect(),
        }
    }

    /// One playout from `start`, or `None` when the deadline passed first.
    fn playout(
        &mut self,
        start: &State,
        seed: u64,
        index: u32,
        max_steps: u32,
        deadline: Option<Instant>,
    ) -> Result<Option<PlayoutRecord>, MachineError> {
        let mut state = start.clone();
        let mut step = 0u32;
        loop {
            if deadline.is_some_and(|d| Instant::now() >= d) {
                return Ok(None);
            }
            let mut pos = self.interp.evaluate(&state)?;
            let view = self.view_of(&pos);
            let end = if view.terminal {
                Some(PlayoutEnd::Terminal)
            } else if step == max_steps {
                Some(PlayoutEnd::StepLimit)
            } else {
                view.legal
                    .iter()
                    .position(Vec::is_empty)
                    .map(|r| PlayoutEnd::NoLegalMove(r as u32))
            };
            if let Some(end) = end {
                return Ok(Some(PlayoutRecord {
                    index,
                    length: step,
                    end,
                    goals: view.goals,
                    final_state: Vec::new(),
                }));
            }
            let joint: Vec<GroundTermId> = view
                .legal
                .iter()
                .enumerate()
                .map(|(r, ms)| {
                    ms[choose(draw(seed, index, step, r as u32), ms.len() as u32) as usize]
                })
                .collect();
            state = self.interp.next_from(&mut pos, &joint)?;
            step += 1;
        }
    }
}

/// The largest goal value in 0..=100 among those derived (0 when none), as the netlist
/// scores goals.
fn goal_u8(values: &[GoalValue]) -> u8 {
    values
        .iter()
        .filter_map(|v| match v {
            GoalValue::Int(n) if (0..=100).contains(n) => Some(*n as u8),
            _ => None,
        })
        .max()
        .unwrap_or(0)
}

impl GameMachine for InterpMachine {
    type State = State;
    type Move = GroundTermId;
    fn role_count(&self) -> usize {
        self.interp.roles().len()
    }
    fn initial_state(&mut self) -> Result<State, MachineError> {
        Ok(self.interp.initial_state()?)
    }
    fn view(&mut self, state: &State) -> Result<View<GroundTermId>, MachineError> {
        let pos = self.interp.evaluate(state)?;
        Ok(self.view_of(&pos))
    }
    fn next_state(&mut self, state: &State, joint: &[GroundTermId]) -> Result<State, MachineError> {
        Ok(self.interp.next_state(state, joint)?)
    }
    fn rollouts(&mut self, batch: &RolloutBatch<State>) -> Result<Vec<JobResult>, MachineError> {
        let mut out = Vec::with_capacity(batch.jobs.len());
        for (start, first, count) in &batch.jobs {
            let mut jr = JobResult {
                goal_sums: vec![0; self.role_count()],
                ..Default::default()
            };
            for i in 0..*count {
                let index = first.wrapping_add(i);
                match self.playout(start, batch.seed, index, batch.max_steps, batch.deadline)? {
                    Some(rec) => jr.add(&rec),
                    None => {
                        if jr.playouts > 0 {
                            out.push(jr);
                        }
                        return Ok(out);
                    }
                }
            }
            out.push(jr);
        }
        Ok(out)
    }
    fn move_text(&self, m: GroundTermId) -> String {
        self.interp.term_text(m)
    }
    fn state_fluents(&self, state: &State) -> Vec<String> {
        self.interp.state_text(state)
    }
    fn describe(&self) -> String {
        "reference interpreter (rollouts by the interpreter, 1 thread)".to_string()
    }
}
