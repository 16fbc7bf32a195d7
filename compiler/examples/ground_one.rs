//! Compiles games and prints one line of grounding counts per game:
//! `cargo run --release --example ground_one -- [--seconds S] [--memory-mib M] [--progress]
//! [--stats] GAME.kif...`. With `--progress`, what the grounder is doing is printed to stderr every
//! half second.
use propnet_compiler::ground::{compile_game, CompileOptions};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut opts = CompileOptions::default();
    let mut stats = false;
    loop {
        match args.first().map(String::as_str) {
            Some("--seconds") if args.len() > 1 => {
                opts.budget.max_time = Duration::from_secs(args[1].parse().expect("seconds"));
                args.drain(..2);
            }
            Some("--memory-mib") if args.len() > 1 => {
                opts.budget.max_memory = args[1].parse::<usize>().expect("MiB") << 20;
                args.drain(..2);
            }
            Some("--progress") => {
                let start = Instant::now();
                let last = Mutex::new(Instant::now());
                opts.progress = Some(Arc::new(move |msg: &str| {
                    let mut last = last.lock().expect("progress lock");
                    if last.elapsed() > Duration::from_millis(500) {
                        *last = Instant::now();
                        eprintln!("  {:6.1} s {msg}", start.elapsed().as_secs_f64());
                    }
                }));
                args.remove(0);
            }
            Some("--stats") => {
                stats = true;
                args.remove(0);
            }
            _ => break,
        }
    }
    for path in args {
        let t = Instant::now();
        let game = match propnet_compiler::gdl::load(std::path::Path::new(&path)) {
            Ok(g) => g,
            Err(e) => {
                println!("{path}: rejected by the front end: {e}");
                continue;
            }
        };
        match compile_game(&game, &opts) {
            Ok((_, r)) => {
                if stats {
                    for x in r.by_relation.iter().take(15) {
                        println!(
                            "  {:>9} gates {:>10} edges {:>6} latches {:>9} instances {:>9} atoms  {}",
                            x.gates, x.edges, x.latches, x.instances, x.atoms, x.relation
                        );
                    }
                }
                println!(
                "{path}: atoms {} calls {} instances {} latches {} inputs {} gates {} depth {} loops {} (max {}) tables {} MiB {:.0?}",
                r.atoms,
                r.calls,
                r.instances,
                r.stats.latches,
                r.stats.inputs,
                r.stats.and + r.stats.or + r.stats.not,
                r.stats.depth,
                r.cyclic_sccs,
                r.largest_cyclic_scc,
                r.table_bytes >> 20,
                t.elapsed()
            )
            }
            Err(e) => println!("{path}: error after {:.2?}: {e}", t.elapsed()),
        }
    }
}
