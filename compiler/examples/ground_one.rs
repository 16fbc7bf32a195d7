//! Compiles games and prints one line of grounding counts per game:
//! `cargo run --release --example ground_one -- [--seconds S] GAME.kif...`.
fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut opts = propnet_compiler::ground::CompileOptions::default();
    if args.first().is_some_and(|a| a == "--seconds") {
        opts.budget.max_time = std::time::Duration::from_secs(args[1].parse().expect("seconds"));
        args.drain(..2);
    }
    for path in args {
        let t = std::time::Instant::now();
        let game = match propnet_compiler::gdl::load(std::path::Path::new(&path)) {
            Ok(g) => g,
            Err(e) => {
                println!("{path}: rejected by the front end: {e}");
                continue;
            }
        };
        match propnet_compiler::ground::compile_game(&game, &opts) {
            Ok((_, r)) => println!(
                "{path}: atoms {} instances {} latches {} inputs {} gates {} depth {} loops {} (max {}) {:.0?}",
                r.atoms,
                r.instances,
                r.stats.latches,
                r.stats.inputs,
                r.stats.and + r.stats.or + r.stats.not,
                r.stats.depth,
                r.cyclic_sccs,
                r.largest_cyclic_scc,
                t.elapsed()
            ),
            Err(e) => println!("{path}: error after {:.2?}: {e}", t.elapsed()),
        }
    }
}
