//! Per-phase cost accounting of the block simulator (`propnet run --profile`).
//!
//! The block stepper is generic over a [`Probe`]: [`NoProbe`] compiles to nothing (the default
//! build of every hot loop), [`PhaseClock`] reads the monotonic clock between the phases of
//! one step in every [`PhaseClock::EVERY`]-th step of a block and adds the intervals up per
//! [`SimPhase`]. Sampling keeps the clock's own cost (tens of nanoseconds per read) below a
//! percent of the run; the shares it gives are shares of the sampled steps, which are
//! ordinary steps of the same run.

use std::time::Instant;

/// The phases of one simulator step, in the order a step runs them.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SimPhase {
    /// Gates that `legal` and `terminal` need (and logic shared with goals or next).
    CoreGates,
    /// Terminal and step-limit checks, clearing the input slots.
    Terminal,
    /// Counting each lane's legal moves (bit-sliced counters, or the bit transpose).
    LegalCount,
    /// Threefry draws and the multiply-shift pick of the move index.
    Rng,
    /// Selecting the chosen move and writing its input bit.
    Choice,
    /// Recording finished playouts, including the goal gates run for them.
    Goals,
    /// Gates of the latches' next values, and latching them.
    NextGates,
    /// Refilling finished lanes with new playouts (start states, counters).
    Refill,
}

impl SimPhase {
    /// Every phase, in step order.
    pub const ALL: [SimPhase; 8] = [
        SimPhase::CoreGates,
        SimPhase::Terminal,
        SimPhase::LegalCount,
        SimPhase::Rng,
        SimPhase::Choice,
        SimPhase::Goals,
        SimPhase::NextGates,
        SimPhase::Refill,
    ];

    /// Short name for reports, e.g. `core gates`.
    pub fn name(self) -> &'static str {
        match self {
            SimPhase::CoreGates => "core gates",
            SimPhase::Terminal => "terminal/limit",
            SimPhase::LegalCount => "legal counting",
            SimPhase::Rng => "rng draws",
            SimPhase::Choice => "choice + inputs",
            SimPhase::Goals => "goals + records",
            SimPhase::NextGates => "next gates",
            SimPhase::Refill => "refill",
        }
    }
}

/// Time per phase over the sampled steps, and how many lane-steps those steps covered.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PhaseTimes {
    /// Nanoseconds per phase, indexed like [`SimPhase::ALL`].
    pub nanos: [u64; 8],
    /// Steps sampled (block steps, each covering every lane of its block).
    pub sampled_steps: u64,
    /// Core-phase operands of the runs the sampled steps evaluated, summed over those steps:
    /// runs skipped by their guards ([`crate::program::Run::guard`]) do not count, products
    /// skipped inside a run do.
    pub core_operands: u64,
    /// Lanes holding a playout in progress at the start of the sampled steps, summed over
    /// those steps (a pool's block may step fewer lanes than it has).
    pub active_lanes: u64,
}

impl PhaseTimes {
    /// Adds `other` into `self`.
    pub fn add(&mut self, other: &PhaseTimes) {
        for (a, b) in self.nanos.iter_mut().zip(&other.nanos) {
            *a += b;
        }
        self.sampled_steps += other.sampled_steps;
        self.core_operands += other.core_operands;
        self.active_lanes += other.active_lanes;
    }

    /// Share of the sampled time spent in `phase` (0..1; 0 when nothing was sampled).
    pub fn share(&self, phase: SimPhase) -> f64 {
        let total: u64 = self.nanos.iter().sum();
        let i = SimPhase::ALL.iter().position(|&p| p == phase).unwrap_or(0);
        if total == 0 {
            0.0
        } else {
            self.nanos[i] as f64 / total as f64
        }
    }
}

/// What the block stepper calls between phases. Every method must be cheap; [`NoProbe`]'s are
/// empty and vanish when inlined.
pub trait Probe: Default {
    /// A block step begins (`step` counts the block's steps from 0).
    fn begin_step(&mut self, step: u64);
    /// The phase that just ended.
    fn end_phase(&mut self, phase: SimPhase);
    /// Whether this step is sampled (so that [`Self::add_core_operands`] is worth a count).
    fn sampling(&self) -> bool;
    /// Adds `n` to the sampled steps' [`PhaseTimes::core_operands`] and `lanes` to their
    /// [`PhaseTimes::active_lanes`]; the time spent counting them since the last phase
    /// ended is charged to no phase.
    fn add_core_operands(&mut self, n: u64, lanes: u64);
    /// The times gathered so far.
    fn times(&self) -> PhaseTimes;
}

/// The probe of ordinary runs: measures nothing.
#[derive(Copy, Clone, Debug, Default)]
pub struct NoProbe;

impl Probe for NoProbe {
    #[inline(always)]
    fn begin_step(&mut self, _step: u64) {}
    #[inline(always)]
    fn end_phase(&mut self, _phase: SimPhase) {}
    #[inline(always)]
    fn sampling(&self) -> bool {
        false
    }
    #[inline(always)]
    fn add_core_operands(&mut self, _n: u64, _lanes: u64) {}
    fn times(&self) -> PhaseTimes {
        PhaseTimes::default()
    }
}

/// Clock reads around the phases of every [`Self::EVERY`]-th block step.
#[derive(Clone, Debug, Default)]
pub struct PhaseClock {
    times: PhaseTimes,
    last: Option<Instant>,
}

impl PhaseClock {
    /// One step in this many is timed. Prime, so that the sampled steps follow a game's
    /// turn cycle only when it is a multiple of 7 steps long: with 8, every sampled step
    /// of a two-player game where the roles alternate was the same role's turn (in chess,
    /// only white's moves were timed, and the pooled blocks sort on the king of the side
    /// to move). A pool steps its blocks in sorted order through one block stepper: while a pool
    /// step has a multiple of 7 blocks, the samples fall on the same sorted positions in
    /// every pool step (both sides' turns are still sampled).
    pub const EVERY: u64 = 7;
}

impl Probe for PhaseClock {
    #[inline(always)]
    fn begin_step(&mut self, step: u64) {
        self.last = step.is_multiple_of(Self::EVERY).then(Instant::now);
        if self.last.is_some() {
            self.times.sampled_steps += 1;
        }
    }
    #[inline(always)]
    fn end_phase(&mut self, phase: SimPhase) {
        if let Some(t) = self.last {
            let now = Instant::now();
            let i = SimPhase::ALL.iter().position(|&p| p == phase).unwrap_or(0);
            self.times.nanos[i] += (now - t).as_nanos() as u64;
            self.last = Some(now);
        }
    }
    #[inline(always)]
    fn sampling(&self) -> bool {
        self.last.is_some()
    }
    fn add_core_operands(&mut self, n: u64, lanes: u64) {
        if self.last.is_some() {
            self.times.core_operands += n;
            self.times.active_lanes += lanes;
            self.last = Some(Instant::now());
        }
    }
    fn times(&self) -> PhaseTimes {
        self.times.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sampled steps cover every turn of two-, three- and four-role cycles, in equal
    /// shares.
    #[test]
    fn sampled_steps_do_not_follow_the_turn_cycle() {
        for roles in [2u64, 3, 4] {
            let mut clock = PhaseClock::default();
            let mut turns = vec![0u64; roles as usize];
            for step in 0..roles * PhaseClock::EVERY * 10 {
                clock.begin_step(step);
                if clock.sampling() {
                    turns[(step % roles) as usize] += 1;
                }
                clock.end_phase(SimPhase::CoreGates);
            }
            assert_eq!(clock.times().sampled_steps, turns.iter().sum::<u64>());
            assert!(
                turns.iter().all(|&t| t == turns[0] && t > 0),
                "{roles} roles: sampled turns {turns:?}"
            );
        }
    }
}
