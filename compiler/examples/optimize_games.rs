//! Measures what `passes::optimize` does to real games: for each KIF file given, grounds it,
//! optimizes, prints gate/latch/input counts before and after with timings, and checks the
//! result plays like the unoptimized netlist.
//!
//! `cargo run --release -p propnet-compiler --example optimize_games -- game.kif ...`

use propnet_compiler::gdl::load;
use propnet_compiler::ground::{compile, CompileOptions};
use propnet_netlist::passes::{check_equivalent, optimize, EquivOptions, OptimizeOptions};
use std::time::Instant;

fn main() {
    println!(
        "{:<28} {:>9} {:>9} {:>7} {:>7} {:>6} {:>6} {:>9} {:>9} {:>5} {:>5} {:>4} {:>8} {:>6}",
        "game",
        "logic0",
        "logic1",
        "latch0",
        "latch1",
        "in0",
        "in1",
        "edges0",
        "edges1",
        "dep0",
        "dep1",
        "it",
        "opt_ms",
        "equiv"
    );
    for path in std::env::args().skip(1) {
        let name = std::path::Path::new(&path)
            .file_stem()
            .map_or(path.clone(), |s| s.to_string_lossy().into_owned());
        let game = match load(std::path::Path::new(&path)) {
            Ok(g) => g,
            Err(e) => {
                println!("{name:<28} load failed: {e}");
                continue;
            }
        };
        let net = match compile(&game.program, &CompileOptions::default()) {
            Ok(n) => n,
            Err(e) => {
                println!("{name:<28} ground failed: {e}");
                continue;
            }
        };
        let mut out = net.clone();
        let t = Instant::now();
        let opts = OptimizeOptions {
            validate_each_pass: false,
            ..Default::default()
        };
        let r = optimize(&mut out, &opts);
        let ms = t.elapsed().as_secs_f64() * 1e3;
        let equiv = check_equivalent(
            &net,
            &out,
            &EquivOptions {
                seed: 5,
                playouts: 20,
                max_steps: 300,
            },
        );
        let (b, a) = (&r.before, &r.after);
        println!(
            "{name:<28} {:>9} {:>9} {:>7} {:>7} {:>6} {:>6} {:>9} {:>9} {:>5} {:>5} {:>4} {:>8.1} {:>6}",
            b.and + b.or + b.not,
            a.and + a.or + a.not,
            b.latches,
            a.latches,
            b.inputs,
            a.inputs,
            b.edges,
            a.edges,
            b.depth,
            a.depth,
            r.iterations,
            ms,
            if equiv.is_ok() { "ok" } else { "FAIL" }
        );
        if let Err(e) = equiv {
            println!("  {e}");
        }
        if std::env::var_os("VERBOSE").is_some() {
            print!("{r}");
        }
    }
}
