//! Measuring playout throughput: flat Monte Carlo from the initial state, the one
//! measurement `propnet run`, `propnet bench` and `propnet compare` share.
//!
//! A [`Sample`] is one timed run: playouts finished, joint moves made (state changes) and
//! the wall time of the playouts alone (compilation and set-up are timed apart). Rates are
//! per wall second; on a shared machine the per-CPU-second rate is kept too. [`Spread`]
//! summarises the samples of several rounds as median, min and max.

use crate::backend::{Backend, BackendError, BatchRequest, Job, JobResult};
use indicatif::ProgressBar;
use propnet_compiler::interp::{Interp, InterpError};
use propnet_netlist::rng::{choose, draw};
use std::time::{Duration, Instant};

/// Totals of a measured backend run.
#[derive(Clone, Debug, Default)]
pub struct Totals {
    /// Aggregates over all playouts.
    pub agg: JobResult,
    /// Wall time of the playouts only.
    pub elapsed: Duration,
    /// CPU time of all threads of the process during the playouts.
    pub cpu: Option<Duration>,
    /// True when a stop request (SIGINT/SIGTERM, [`crate::stop`]) ended the run early.
    pub interrupted: bool,
}

impl Totals {
    /// The run as a [`Sample`].
    pub fn sample(&self) -> Sample {
        Sample {
            playouts: self.agg.playouts,
            states: self.agg.total_length,
            seconds: self.elapsed.as_secs_f64(),
            cpu_seconds: self.cpu.map(|c| c.as_secs_f64()),
        }
    }
}

/// Errors of a measurement.
#[derive(Debug, thiserror::Error)]
pub enum MeasureError {
    /// The backend failed.
    #[error(transparent)]
    Backend(#[from] BackendError),
    /// The interpreter failed.
    #[error(transparent)]
    Interp(#[from] InterpError),
    /// More playouts than the RNG's playout counter can number.
    #[error("more than 2^32 playouts in one run: the playout index (RNG counter) would repeat")]
    CounterOverflow,
}

/// Hardware threads the OS lets this process use (1 when it cannot tell): what a thread
/// count of 0 ("all") means everywhere.
pub fn hardware_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// CPU time below which a per-CPU-second rate is not given: the clock's granularity and
/// the cost of starting a batch make shorter figures meaningless.
pub const MIN_CPU_TIME: Duration = Duration::from_millis(1);

/// CPU time consumed so far by every thread of this process, live or ended
/// (`CLOCK_PROCESS_CPUTIME_ID`, nanoseconds, up to date for the running thread too);
/// `None` where the clock is missing. On a shared, overloaded machine wall time says
/// little; per-CPU-second rates stay meaningful.
pub fn process_cpu_time() -> Option<Duration> {
    cpu_time::ProcessTime::try_now()
        .ok()
        .map(|t| t.as_duration())
}

/// Playouts that fit in `left` seconds at the rate of `done` playouts in `elapsed` seconds
/// (at least one; unbounded before the first batch has given a rate).
fn affordable(done: u64, elapsed: f64, left: f64) -> u64 {
    if done == 0 || elapsed <= 0.0 {
        return u64::MAX;
    }
    ((done as f64 / elapsed * left).ceil() as u64).max(1)
}

/// Runs playouts from the initial state through `backend` until `playouts` are done or
/// `seconds` passed (with both, the count wins; with neither, nothing runs; with only
/// `seconds`, one batch at least, however short the time), in batches
/// that start at `first_batch` (see [`Backend::natural_batch`]) or the backend's preferred batch
/// ([`Backend::preferred_batch`]) and double while a batch takes under 0.1 s; a count is
/// split into equal batches (no small last one). With a time limit the first batch is a
/// quarter of the preferred batch (or `first_batch` when that is larger: a run that is
/// over in seconds does not wait for a full pool of chess playouts), later ones at least
/// the preferred batch, and none holds
/// more playouts than the remaining time allows at the rate so far (but at least the
/// first batch), so that a slow backend stops close to `seconds` too. Updates `bar`
/// (position: playouts, or milliseconds with only `seconds`).
///
/// # Errors
/// The backend's error, or [`MeasureError::CounterOverflow`] past 2^32 playouts.
pub fn measure(
    backend: &mut dyn Backend,
    playouts: Option<u64>,
    seconds: Option<f64>,
    seed: u64,
    max_steps: u32,
    first_batch: u64,
    bar: &ProgressBar,
) -> Result<Totals, MeasureError> {
    let start = backend.netlist().initial_state();
    let roles = backend.netlist().roles.len();
    let mut t = Totals {
        agg: JobResult {
            goal_sums: vec![0; roles],
            ..Default::default()
        },
        ..Default::default()
    };
    let cpu0 = process_cpu_time();
    let t0 = Instant::now();
    let preferred = backend.preferred_batch().unwrap_or(1);
    let first_batch = match (playouts, seconds) {
        (None, Some(_)) => first_batch.max(preferred / 4),
        _ => first_batch.max(preferred),
    };
    let mut batch = first_batch;
    let mut next_index = 0u64;
    loop {
        if crate::stop::requested() {
            t.interrupted = true;
            break;
        }
        let count = match (playouts, seconds) {
            (Some(n), _) => {
                let left = n - t.agg.playouts;
                left.div_ceil(left.div_ceil(batch).max(1))
            }
            (None, Some(s)) => {
                let elapsed = t0.elapsed().as_secs_f64();
                // At least one block, however short the time: `run --seconds` promises it.
                if elapsed >= s && next_index > 0 {
                    break;
                }
                let fits = affordable(t.agg.playouts, elapsed, s - elapsed);
                let want = if t.agg.playouts == 0 {
                    batch
                } else {
                    batch.max(preferred)
                };
                want.min(fits.max(first_batch))
            }
            (None, None) => break,
        };
        if count == 0 {
            break;
        }
        if next_index + count > u64::from(u32::MAX) + 1 {
            return Err(MeasureError::CounterOverflow);
        }
        let bt = Instant::now();
        let req = BatchRequest {
            jobs: vec![Job {
                start: start.clone(),
                first_playout: next_index as u32,
                count: count as u32,
            }],
            seed,
            max_steps,
            want_records: false,
        };
        let res = backend.run_batch(&req)?;
        next_index += count;
        let r = &res.jobs[0];
        t.agg.playouts += r.playouts;
        for (a, b) in t.agg.goal_sums.iter_mut().zip(&r.goal_sums) {
            *a += b;
        }
        t.agg.total_length += r.total_length;
        t.agg.step_limit += r.step_limit;
        t.agg.no_legal_move += r.no_legal_move;
        bar.set_position(match seconds {
            Some(_) if playouts.is_none() => t0.elapsed().as_millis() as u64,
            _ => t.agg.playouts,
        });
        // Aim for batches of about 0.1–0.2 s so progress and the time limit stay responsive.
        if bt.elapsed() < Duration::from_millis(100) {
            batch = (batch * 2).min(1 << 24);
        }
    }
    t.elapsed = t0.elapsed();
    t.cpu = process_cpu_time()
        .zip(cpu0)
        .map(|(a, b)| a.saturating_sub(b));
    Ok(t)
}

/// Random playouts of the reference interpreter from its initial state: `playouts` of them
/// when given, else for `seconds` (at least one); one evaluation per position, moves chosen by the project's RNG
/// ([`propnet_netlist::rng`], playout `i`, step, role), cut after `max_steps` joint moves.
///
/// # Errors
/// The interpreter's evaluation errors.
pub fn interp_sample(
    interp: &mut Interp,
    seconds: f64,
    playouts: Option<u64>,
    max_steps: u32,
    seed: u64,
) -> Result<Sample, MeasureError> {
    let roles = interp.roles().len();
    let init = interp.initial_state()?;
    let cpu0 = process_cpu_time();
    let t0 = Instant::now();
    let (mut done, mut states) = (0u32, 0u64);
    let more = |done: u32| match playouts {
        Some(n) => u64::from(done) < n,
        None => done == 0 || t0.elapsed().as_secs_f64() < seconds,
    };
    while more(done) {
        if done == u32::MAX {
            return Err(MeasureError::CounterOverflow);
        }
        let mut s = init.clone();
        for step in 0..max_steps {
            let mut pos = interp.evaluate(&s)?;
            if interp.terminal_in(&pos) {
                break;
            }
            let mut joint = Vec::with_capacity(roles);
            for r in 0..roles {
                let legal = interp.legal_in(&pos, r);
                if legal.is_empty() {
                    break;
                }
                let k = choose(draw(seed, done, step, r as u32), legal.len() as u32);
                joint.push(legal[k as usize].1);
            }
            if joint.len() < roles {
                break;
            }
            s = interp.next_from(&mut pos, &joint)?;
            states += 1;
        }
        done += 1;
    }
    Ok(Sample {
        playouts: u64::from(done),
        states,
        seconds: t0.elapsed().as_secs_f64(),
        cpu_seconds: process_cpu_time()
            .zip(cpu0)
            .map(|(a, b)| a.saturating_sub(b).as_secs_f64()),
    })
}

/// One timed run of a reasoner.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Sample {
    /// Playouts finished.
    pub playouts: u64,
    /// Joint moves made (state changes).
    pub states: u64,
    /// Wall seconds of the playouts.
    pub seconds: f64,
    /// CPU seconds used meanwhile, when known.
    pub cpu_seconds: Option<f64>,
}

impl Sample {
    /// Playouts per wall second (0 for an empty run).
    pub fn playouts_per_second(&self) -> f64 {
        rate(self.playouts, self.seconds)
    }

    /// Joint moves (states) per wall second.
    pub fn states_per_second(&self) -> f64 {
        rate(self.states, self.seconds)
    }

    /// Playouts per CPU second, when the CPU time is known and at least
    /// [`MIN_CPU_TIME`] (shorter CPU times are too short to measure a rate).
    pub fn playouts_per_cpu_second(&self) -> Option<f64> {
        self.cpu_seconds
            .filter(|&c| c >= MIN_CPU_TIME.as_secs_f64())
            .map(|c| rate(self.playouts, c))
    }
}

fn rate(n: u64, seconds: f64) -> f64 {
    if seconds > 0.0 {
        n as f64 / seconds
    } else {
        0.0
    }
}

/// Median, smallest and largest of some values.
#[derive(Copy, Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Spread {
    /// Median (mean of the middle two for an even count).
    pub median: f64,
    /// Smallest value.
    pub min: f64,
    /// Largest value.
    pub max: f64,
}

impl Spread {
    /// The spread of `values`, `None` when empty. NaNs are ignored.
    pub fn of(values: &[f64]) -> Option<Spread> {
        let mut v: Vec<f64> = values.iter().copied().filter(|x| !x.is_nan()).collect();
        if v.is_empty() {
            return None;
        }
        v.sort_by(f64::total_cmp);
        let n = v.len();
        let median = if n % 2 == 1 {
            v[n / 2]
        } else {
            (v[n / 2 - 1] + v[n / 2]) / 2.0
        };
        Some(Spread {
            median,
            min: v[0],
            max: v[n - 1],
        })
    }
}

/// A rate with three significant digits and an SI suffix: `0.512`, `12.3`, `4.56k`,
/// `7.89M`, `1.23G`. The table, the CSV's `*_text` columns and the plot labels all use it.
pub fn format_rate(v: f64) -> String {
    if !v.is_finite() {
        return "-".into();
    }
    let (x, suffix) = match v.abs() {
        a if a >= 1e9 => (v / 1e9, "G"),
        a if a >= 1e6 => (v / 1e6, "M"),
        a if a >= 1e3 => (v / 1e3, "k"),
        _ => (v, ""),
    };
    let digits = match x.abs() {
        a if a >= 100.0 => 0,
        a if a >= 10.0 => 1,
        a if a >= 1.0 => 2,
        _ => 3,
    };
    format!("{x:.digits$}{suffix}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spreads_and_rates() {
        let s = Spread::of(&[3.0, 1.0, 2.0]).unwrap();
        assert_eq!((s.median, s.min, s.max), (2.0, 1.0, 3.0));
        assert_eq!(Spread::of(&[4.0, 1.0]).unwrap().median, 2.5);
        assert!(Spread::of(&[]).is_none());
        assert_eq!(format_rate(0.5123), "0.512");
        assert_eq!(format_rate(12.34), "12.3");
        assert_eq!(format_rate(4561.0), "4.56k");
        assert_eq!(format_rate(7_890_000.0), "7.89M");
        assert_eq!(format_rate(123_456.0), "123k");
        assert_eq!(format_rate(f64::NAN), "-");
        let s = Sample {
            playouts: 10,
            states: 50,
            seconds: 2.0,
            cpu_seconds: Some(4.0),
        };
        assert_eq!(s.playouts_per_second(), 5.0);
        assert_eq!(s.states_per_second(), 25.0);
        assert_eq!(s.playouts_per_cpu_second(), Some(2.5));
    }

    /// A backend whose playouts take at least 1 ms each, recording its batch sizes, with a
    /// preferred batch.
    struct Slow(propnet_netlist::Netlist, Vec<u32>, Option<u64>);

    impl Backend for Slow {
        fn preferred_batch(&self) -> Option<u64> {
            self.2
        }
        fn describe(&self) -> String {
            "slow".into()
        }
        fn netlist(&self) -> &propnet_netlist::Netlist {
            &self.0
        }
        fn run_batch(
            &mut self,
            req: &BatchRequest,
        ) -> Result<crate::backend::BatchResult, BackendError> {
            let n = req.jobs[0].count;
            self.1.push(n);
            std::thread::sleep(Duration::from_millis(n.into()));
            let job = JobResult {
                playouts: n.into(),
                goal_sums: vec![0; 2],
                ..Default::default()
            };
            Ok(crate::backend::BatchResult {
                jobs: vec![job],
                records: Vec::new(),
            })
        }
    }

    /// With a time limit a slow backend gets small batches: the first is `first_batch`, and
    /// none holds more than the time left allows (sleeping only ever makes it slower).
    #[test]
    fn time_limited_batches_fit_a_slow_backend() {
        let mut b = Slow(crate::fixtures::tictactoe(), Vec::new(), None);
        let t = measure(&mut b, None, Some(0.05), 1, 20, 16, &ProgressBar::hidden()).unwrap();
        assert_eq!(b.1[0], 16);
        assert!(t.agg.playouts <= 16 + 32 + 50, "{:?}", b.1);
        assert_eq!(
            t.agg.playouts,
            b.1.iter().map(|&n| u64::from(n)).sum::<u64>()
        );
    }

    /// A count is split into equal batches: 300 playouts from batches of 128 (each takes
    /// over 0.1 s, so none doubles) are three of 100, not 128 + 128 + 44.
    #[test]
    fn counts_are_split_into_equal_batches() {
        let mut b = Slow(crate::fixtures::tictactoe(), Vec::new(), None);
        let t = measure(&mut b, Some(300), None, 1, 20, 128, &ProgressBar::hidden()).unwrap();
        assert_eq!(t.agg.playouts, 300);
        assert_eq!(b.1, vec![100, 100, 100]);
    }

    /// With a time limit the first batch is a quarter of the backend's preferred batch,
    /// later ones the preferred batch when the time allows; a count starts at the
    /// preferred batch.
    #[test]
    fn time_limited_runs_start_below_the_preferred_batch() {
        // The second batch is 64 unless the first (16 ms of sleep) took over 0.3 s.
        let mut b = Slow(crate::fixtures::tictactoe(), Vec::new(), Some(64));
        measure(&mut b, None, Some(1.5), 1, 20, 4, &ProgressBar::hidden()).unwrap();
        assert_eq!(b.1.first(), Some(&16), "{:?}", b.1);
        assert_eq!(b.1.get(1), Some(&64), "{:?}", b.1);
        let mut b = Slow(crate::fixtures::tictactoe(), Vec::new(), Some(64));
        measure(&mut b, Some(64), None, 1, 20, 4, &ProgressBar::hidden()).unwrap();
        assert_eq!(b.1, vec![64]);
    }

    #[test]
    fn measures_a_backend_and_the_interpreter() {
        let net = crate::fixtures::tictactoe();
        let mut b = crate::backend::ReferenceBackend::new(net);
        let t = measure(&mut b, Some(300), None, 1, 20, 16, &ProgressBar::hidden()).unwrap();
        assert_eq!(t.agg.playouts, 300);
        assert_eq!(affordable(0, 0.0, 1.0), u64::MAX);
        assert_eq!(affordable(10, 2.0, 1.0), 5);
        assert_eq!(affordable(1, 100.0, 0.5), 1);
        // A tic-tac-toe playout is 5 to 9 joint moves.
        let s = t.sample();
        assert!((5 * 300..=9 * 300).contains(&s.states), "{s:?}");
        let kif = include_str!("../../../bench-games/tictactoe.kif");
        let g = propnet_compiler::gdl::parse_source("t.kif", kif.as_bytes()).unwrap();
        let mut it = Interp::new(&g.program).unwrap();
        let s = interp_sample(&mut it, 0.0, None, 20, 1).unwrap();
        assert_eq!(s.playouts, 1);
        assert!((5..=9).contains(&s.states), "{s:?}");
        // A count wins over the seconds, and the same seed repeats the same playouts.
        let a = interp_sample(&mut it, 1e9, Some(7), 20, 3).unwrap();
        let b = interp_sample(&mut it, 0.0, Some(7), 20, 3).unwrap();
        assert_eq!((a.playouts, a.states), (7, b.states));
    }
}
