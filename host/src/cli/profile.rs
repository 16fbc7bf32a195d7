//! The `--profile` report of `propnet run`: where the CPU simulator's time goes per phase of
//! a step, per lane-step, next to the gate-bound rate the netlist size allows.

use propnet_sim::probe::{PhaseTimes, SimPhase};
use propnet_sim::program::Program;

/// Nominal clock of this machine in MHz (`/proc/cpuinfo`), to turn nanoseconds into cycles;
/// `None` where it cannot be read.
fn nominal_mhz() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/cpuinfo").ok()?;
    text.lines()
        .find(|l| l.starts_with("cpu MHz"))?
        .split(':')
        .nth(1)?
        .trim()
        .parse()
        .ok()
}

/// One row of the report.
struct Row {
    name: &'static str,
    share: f64,
    ns_per_lane_step: f64,
}

/// Prints the per-phase table for a run that made `lane_steps` joint moves (over all
/// playouts) in `cpu_seconds` of CPU time with `times` sampled, and the gate-bound figures
/// of `prog` (one thread's view: CPU time is summed over threads).
pub fn print_profile(
    times: &PhaseTimes,
    prog: &Program,
    lane_steps: u64,
    playouts: u64,
    cpu_seconds: f64,
) {
    if times.sampled_steps == 0 || lane_steps == 0 {
        println!("profile      too short to measure (no step was sampled)");
        return;
    }
    let ns_per_lane_step = cpu_seconds * 1e9 / lane_steps as f64;
    let rows: Vec<Row> = SimPhase::ALL
        .iter()
        .map(|&p| Row {
            name: p.name(),
            share: times.share(p),
            ns_per_lane_step: times.share(p) * ns_per_lane_step,
        })
        .collect();
    let mhz = nominal_mhz();
    println!(
        "profile      {} sampled block steps; per lane-step {:.2} ns{}",
        times.sampled_steps,
        ns_per_lane_step,
        mhz.map_or(String::new(), |m| format!(
            " = {:.1} cycles at the nominal {m:.0} MHz",
            ns_per_lane_step * m / 1e3
        ))
    );
    println!("  phase              share   ns/lane-step  cycles/lane-step");
    for r in &rows {
        println!(
            "  {:<18} {:5.1}%   {:>11.2}  {:>16}",
            r.name,
            100.0 * r.share,
            r.ns_per_lane_step,
            mhz.map_or("-".to_string(), |m| format!(
                "{:.1}",
                r.ns_per_lane_step * m / 1e3
            ))
        );
    }
    let gates = times.share(SimPhase::CoreGates) + times.share(SimPhase::NextGates);
    let operands = prog.core.args.len() + prog.next.args.len();
    let pps = playouts as f64 / cpu_seconds;
    println!(
        "  gate-bound   {operands} core+next operands per step = {:.1} word-ops per lane-step; \
         with everything but the gates free: {:.0} playouts per CPU-second ({:.1}x now)",
        operands as f64 / 64.0,
        pps / gates.max(1e-9),
        1.0 / gates.max(1e-9)
    );
    if prog.core_is_guarded() {
        let total = prog.core.args.len() as f64;
        let run = times.core_operands as f64 / times.sampled_steps as f64;
        println!(
            "  skip guards  {run:.0} of {total:.0} core operands evaluated per block step \
             ({:.1}% skipped)",
            100.0 * (1.0 - run / total.max(1.0))
        );
        let lanes = times.active_lanes as f64 / times.sampled_steps as f64;
        println!(
            "  per lane     {:.0} core operands per lane-step ({lanes:.0} active lanes per \
             block step on average)",
            times.core_operands as f64 / (times.active_lanes as f64).max(1.0)
        );
    }
}
