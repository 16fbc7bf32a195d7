//! GPU playout throughput over netlist sizes, layouts, lane counts and batch sizes, and on
//! real games.
//!
//! `cargo run --release -p propnet-kernels --example gpu_bench -- [OUT.json] [GAME.json ...]`
//!
//! `GAME.json` files are netlists written by `propnet compile GAME.kif -o GAME.json` (the
//! pipeline every `propnet` subcommand uses: check, ground, optimize); each is measured with
//! the default options (the layout the GPU backend picks, 32 lanes) over the batch sizes, from
//! its initial state.
//!
//! Env knobs: `BENCH_BATCHES` (comma list of playouts per batch, default
//! `4096,65536,1048576`), `BENCH_MAX_STEPS` (default 200), `BENCH_REPS` (default 3),
//! `BENCH_SIZES` (comma list of random-netlist view-gate counts, default `200,2000,20000`;
//! empty: none), `BENCH_LAYOUTS=0` (skip the layout comparison on random netlists).
//! Prints one JSON object per measurement and writes the array to OUT.json when given.
//! Each row: playouts/s, state updates/s (= joint moves made, i.e. playouts x mean length)
//! and gate evaluations/s (= state updates x gates). Numbers from lavapipe (a CPU
//! rasterizer) are only meaningful relative to each other.

use propnet_kernels::runner::{GpuJob, GpuRunner, RunParams};
use propnet_kernels::wgsl::{Layout, Options};
use propnet_netlist::random::{random_netlist, RandomSpec};
use propnet_netlist::{self as json, Netlist};
use std::time::Instant;

fn env_list(name: &str, default: &str) -> Vec<u64> {
    std::env::var(name)
        .unwrap_or_else(|_| default.to_string())
        .split(',')
        .filter_map(|s| s.trim().parse().ok())
        .collect()
}

struct Settings {
    batches: Vec<u64>,
    max_steps: u32,
    reps: u64,
}

/// Measures one netlist with one set of options over every batch size; returns JSON rows.
fn measure(name: &str, net: &Netlist, opts: &Options, s: &Settings) -> Vec<String> {
    let start = net.initial_state();
    let t0 = Instant::now();
    let info = match propnet_netlist::validate(net) {
        Ok(i) => i,
        Err(e) => {
            eprintln!("{name}: invalid netlist: {e}");
            return Vec::new();
        }
    };
    let mut runner = match GpuRunner::new(net, &info, opts) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("{name} {:?} lanes {}: {e}", opts.layout, opts.lanes);
            return Vec::new();
        }
    };
    let build_s = t0.elapsed().as_secs_f64();
    // Drivers may compile the shader at its first dispatch (llvmpipe does; Mesa caches it on
    // disk): one untimed playout, reported as `first_dispatch_s`.
    let t1 = Instant::now();
    let warm = [GpuJob {
        start: &start,
        first_playout: u32::MAX,
        count: 1,
    }];
    let warm_params = RunParams {
        seed: 1,
        max_steps: 1,
        want_state: false,
    };
    if let Err(e) = runner.run(&warm, &warm_params, &mut |_| {}) {
        eprintln!("{name}: {e}");
        return Vec::new();
    }
    let first_s = t1.elapsed().as_secs_f64();
    let layout = runner.kernel().layout;
    let mut rows = Vec::new();
    for &batch in &s.batches {
        let mut best = f64::INFINITY;
        let mut steps = 0u64;
        for rep in 0..s.reps {
            let jobs = [GpuJob {
                start: &start,
                first_playout: (rep * batch) as u32,
                count: batch as u32,
            }];
            let mut n = 0u64;
            let t = Instant::now();
            if let Err(e) = runner.run(
                &jobs,
                &RunParams {
                    seed: 1,
                    max_steps: s.max_steps,
                    want_state: false,
                },
                &mut |r| n += u64::from(r.length),
            ) {
                eprintln!("{name}: {e}");
                return rows;
            }
            best = best.min(t.elapsed().as_secs_f64());
            steps = n;
        }
        let row = format!(
            "{{\"netlist\":\"{name}\",\"gates\":{},\"latches\":{},\"layout\":\"{layout:?}\",\"lanes\":{},\"batch\":{batch},\"max_steps\":{},\"mean_length\":{:.2},\"seconds\":{best:.6},\"playouts_per_s\":{:.1},\"state_updates_per_s\":{:.1},\"gate_evals_per_s\":{:.1},\"steps_per_dispatch\":{},\"redone_dispatches\":{},\"pipeline_build_s\":{build_s:.3},\"first_dispatch_s\":{first_s:.3},\"adapter\":\"{}\"}}",
            net.gates.len(),
            net.latches.len(),
            opts.lanes,
            s.max_steps,
            steps as f64 / batch as f64,
            batch as f64 / best,
            steps as f64 / best,
            steps as f64 * net.gates.len() as f64 / best,
            runner.step_budget(),
            runner.retries(),
            runner.adapter_info().name.replace('"', "'"),
        );
        println!("{row}");
        rows.push(row);
    }
    rows
}

/// Writes the rows so far as a JSON array (after every netlist, so a time limit keeps them).
fn save(path: Option<&String>, rows: &[String]) {
    if let Some(path) = path {
        let text = format!("[\n{}\n]\n", rows.join(",\n"));
        if let Err(e) = propnet_output::write(std::path::Path::new(path), text) {
            eprintln!("{e}");
            std::process::exit(1);
        }
    }
}

fn main() {
    let s = Settings {
        batches: env_list("BENCH_BATCHES", "4096,65536,1048576"),
        max_steps: env_list("BENCH_MAX_STEPS", "200")
            .first()
            .copied()
            .unwrap_or(200) as u32,
        reps: env_list("BENCH_REPS", "3")
            .first()
            .copied()
            .unwrap_or(3)
            .max(1),
    };
    let sizes = env_list("BENCH_SIZES", "200,2000,20000");
    let compare_layouts = std::env::var("BENCH_LAYOUTS").as_deref() != Ok("0");
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut rows = Vec::new();
    for game in args.iter().skip(1) {
        let net = match std::fs::read_to_string(game)
            .map_err(|e| e.to_string())
            .and_then(|t| json::from_json(&t).map_err(|e| e.to_string()))
        {
            Ok(n) => n,
            Err(e) => {
                eprintln!("{game}: {e}");
                std::process::exit(2);
            }
        };
        let name = std::path::Path::new(game)
            .file_stem()
            .map_or(game.clone(), |s| s.to_string_lossy().into_owned());
        rows.extend(measure(&name, &net, &Options::default(), &s));
        save(args.first(), &rows);
    }
    for &size in &sizes {
        let spec = RandomSpec {
            percepts_per_role: 0,
            roles: 2,
            moves_per_role: 9,
            latches: (size as usize / 8).max(16),
            view_gates: size as usize,
            next_gates: size as usize / 2,
            max_fanin: 4,
        };
        let net = random_netlist(size, &spec);
        let mut variants = vec![(Layout::Inline, 32u32)];
        if compare_layouts {
            variants.extend([(Layout::Inline, 1), (Layout::Table, 32)]);
        }
        if size > 20_000 {
            variants = vec![(Layout::Table, 32)];
        }
        for (layout, lanes) in variants {
            let opts = Options {
                layout,
                lanes,
                ..Default::default()
            };
            rows.extend(measure(&format!("random-{size}"), &net, &opts, &s));
            save(args.first(), &rows);
        }
    }
    save(args.first(), &rows);
}
