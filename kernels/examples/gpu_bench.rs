//! GPU playout throughput over netlist sizes, layouts, lane counts and batch sizes.
//!
//! `cargo run --release -p propnet-kernels --example gpu_bench -- [OUT.json]`
//!
//! Env knobs: `BENCH_BATCHES` (comma list of playouts per batch, default
//! `4096,65536,1048576`), `BENCH_MAX_STEPS` (default 200), `BENCH_REPS` (default 3),
//! `BENCH_SIZES` (comma list of random-netlist view-gate counts, default `200,2000,20000`).
//! Prints one JSON object per measurement and writes the array to OUT.json when given.
//! Numbers from lavapipe (a CPU rasterizer) are only meaningful relative to each other.

use propnet_compiler::netlist::random::{random_netlist, RandomSpec};
use propnet_kernels::runner::{GpuJob, GpuRunner, RunParams};
use propnet_kernels::wgsl::{Layout, Options};
use std::time::Instant;

fn env_list(name: &str, default: &str) -> Vec<u64> {
    std::env::var(name)
        .unwrap_or_else(|_| default.to_string())
        .split(',')
        .filter_map(|s| s.trim().parse().ok())
        .collect()
}

fn main() {
    let batches = env_list("BENCH_BATCHES", "4096,65536,1048576");
    let sizes = env_list("BENCH_SIZES", "200,2000,20000");
    let max_steps = env_list("BENCH_MAX_STEPS", "200")
        .first()
        .copied()
        .unwrap_or(200) as u32;
    let reps = env_list("BENCH_REPS", "3")
        .first()
        .copied()
        .unwrap_or(3)
        .max(1);
    let mut rows = Vec::new();
    for &size in &sizes {
        let spec = RandomSpec {
            roles: 2,
            moves_per_role: 9,
            latches: (size as usize / 8).max(16),
            view_gates: size as usize,
            next_gates: size as usize / 2,
            max_fanin: 4,
        };
        let net = random_netlist(size, &spec);
        let start = net.initial_state();
        let mut variants = vec![
            (Layout::Inline, 32u32),
            (Layout::Inline, 1),
            (Layout::Table, 32),
        ];
        if size > 20_000 {
            variants.retain(|v| v.0 == Layout::Table);
        }
        for (layout, lanes) in variants {
            let t0 = Instant::now();
            let mut runner = match GpuRunner::new(
                &net,
                &Options {
                    layout,
                    lanes,
                    ..Default::default()
                },
            ) {
                Ok(r) => r,
                Err(e) => {
                    eprintln!("size {size} {layout:?} lanes {lanes}: {e}");
                    continue;
                }
            };
            let build_s = t0.elapsed().as_secs_f64();
            for &batch in &batches {
                let mut best = f64::INFINITY;
                let mut steps = 0u64;
                for rep in 0..reps {
                    let jobs = [GpuJob {
                        start: &start,
                        first_playout: (rep * batch) as u32,
                        count: batch as u32,
                    }];
                    let mut s = 0u64;
                    let t = Instant::now();
                    if let Err(e) = runner.run(
                        &jobs,
                        &RunParams {
                            seed: 1,
                            max_steps,
                            want_state: false,
                        },
                        &mut |r| s += u64::from(r.length),
                    ) {
                        eprintln!("size {size}: {e}");
                        break;
                    }
                    best = best.min(t.elapsed().as_secs_f64());
                    steps = s;
                }
                let row = format!(
                    "{{\"netlist\":\"random-{size}\",\"gates\":{},\"latches\":{},\"layout\":\"{layout:?}\",\"lanes\":{lanes},\"batch\":{batch},\"seconds\":{best:.6},\"playouts_per_s\":{:.1},\"state_updates_per_s\":{:.1},\"gate_evals_per_s\":{:.1},\"pipeline_build_s\":{build_s:.3},\"adapter\":\"{}\"}}",
                    net.gates.len(),
                    net.latches.len(),
                    batch as f64 / best,
                    steps as f64 / best,
                    steps as f64 * net.gates.len() as f64 / best,
                    runner.adapter_info().name.replace('"', "'"),
                );
                println!("{row}");
                rows.push(row);
            }
        }
    }
    if let Some(path) = std::env::args().nth(1) {
        std::fs::write(&path, format!("[\n{}\n]\n", rows.join(",\n"))).expect("write bench JSON");
    }
}
