//! Criterion bench: CPU-backend playouts on bundled games (random netlists when absent),
//! per lane width, one thread.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use propnet_netlist::random::{random_netlist, RandomSpec};
use propnet_netlist::Netlist;
use propnet_runtime::backend::{Backend, BatchRequest, Job};
use propnet_runtime::pipeline::{load_netlist, PipelineOptions};
use propnet_sim::{CpuBackend, CpuOptions};
use std::path::Path;

fn games() -> Vec<(String, Netlist)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bench-games");
    let mut out: Vec<(String, Netlist)> = ["tictactoe", "connectfour", "breakthrough"]
        .iter()
        .filter_map(|g| {
            let (net, _) =
                load_netlist(&root.join(format!("{g}.kif")), &PipelineOptions::default()).ok()?;
            Some((g.to_string(), net.into_netlist()))
        })
        .collect();
    if out.is_empty() {
        let spec = RandomSpec {
            percepts_per_role: 0,
            roles: 2,
            moves_per_role: 8,
            latches: 100,
            view_gates: 400,
            next_gates: 400,
            max_fanin: 4,
        };
        out.push(("random-800".into(), random_netlist(1, &spec)));
    }
    out
}

fn bench(c: &mut Criterion) {
    const PLAYOUTS: u32 = 4096;
    for (name, net) in games() {
        let mut g = c.benchmark_group(format!("cpu_playouts/{name}"));
        g.throughput(Throughput::Elements(u64::from(PLAYOUTS)));
        g.sample_size(10);
        for lanes in [64, 128, 256, 512] {
            let mut b = CpuBackend::new(
                propnet_netlist::ValidNetlist::new(net.clone()).expect("valid netlist"),
                CpuOptions {
                    threads: 1,
                    lane_width: lanes,
                    ..Default::default()
                },
            )
            .expect("backend");
            let req = BatchRequest {
                jobs: vec![Job {
                    start: net.initial_state(),
                    first_playout: 0,
                    count: PLAYOUTS,
                }],
                seed: 1,
                max_steps: 1000,
                want_records: false,
            };
            g.bench_function(format!("lanes{lanes}"), |bch| {
                bch.iter(|| b.run_batch(&req).expect("batch"))
            });
        }
        g.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
