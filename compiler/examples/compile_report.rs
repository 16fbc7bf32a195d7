//! One tab-separated line per game with what compiling it costs and produces, for the
//! per-game compile report in BENCHMARKS.md:
//! `cargo run --release -p propnet-compiler --example compile_report -- GAME.kif...`
//!
//! Columns: game, parse s, ground s (static relations and reachable atoms), build s
//! (instances and gates), optimize s, grounding tables MiB, atoms, rule instances,
//! grounded logic gates, optimized logic gates, optimized edges, latches (grounded,
//! optimized), inputs. Peak memory of the process is measured from outside (e.g.
//! `/usr/bin/time -f %M`), one game per process.

use propnet_compiler::gdl::load;
use propnet_compiler::ground::{compile_with_report, CompileOptions};
use propnet_netlist::passes::{optimize, OptimizeOptions};
use std::time::Instant;

fn main() {
    for path in std::env::args().skip(1) {
        let t0 = Instant::now();
        let game = match load(std::path::Path::new(&path)) {
            Ok(g) => g,
            Err(e) => {
                println!("{path}\trejected\t{e}");
                continue;
            }
        };
        let parse = t0.elapsed().as_secs_f64();
        let (mut net, r) = match compile_with_report(&game.program, &CompileOptions::default()) {
            Ok(x) => x,
            Err(e) => {
                println!(
                    "{path}\terror\t{}",
                    e.located(&game.source).replace('\n', " ")
                );
                continue;
            }
        };
        let grounded = net.stats();
        let t1 = Instant::now();
        let opts = OptimizeOptions {
            validate_each_pass: false,
            ..OptimizeOptions::default()
        };
        optimize(&mut net, &opts);
        let opt = t1.elapsed().as_secs_f64();
        let s = net.stats();
        println!(
            "{path}\t{parse:.3}\t{:.3}\t{:.3}\t{opt:.3}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}",
            r.ground_time.as_secs_f64(),
            r.build_time.as_secs_f64(),
            r.table_bytes >> 20,
            r.atoms,
            r.instances,
            grounded.and + grounded.or + grounded.not,
            s.and + s.or + s.not,
            s.edges,
            grounded.latches,
            s.latches,
            s.inputs
        );
    }
}
