//! How long moving the root takes after a long search: searches a game's initial state for
//! `SECONDS` on one core (default 8), then times the search's re-root onto the position after
//! the best move and a reply (`run_on`, depth 2, one batch), and searches on from there as
//! long (new nodes take the slots of the dropped ones). Usage:
//! `cargo run --release -p propnet-mcts --example reroot_cost -- GAME.kif [SECONDS]`.

use propnet_mcts::{Budget, MctsParams, Search};
use propnet_runtime::backend::Backend;
use propnet_runtime::pipeline::{load_netlist, PipelineOptions};
use propnet_sim::{CpuBackend, CpuOptions};
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let path = args.get(1).ok_or("usage: reroot_cost GAME.kif [SECONDS]")?;
    let secs: f64 = args.get(2).map_or(Ok(8.0), |s| s.parse())?;
    let (net, _) = load_netlist(path.as_ref(), &PipelineOptions::default())?;
    let opts = CpuOptions {
        threads: 1,
        ..CpuOptions::default()
    };
    let mut backends: Vec<Box<dyn Backend>> = vec![Box::new(CpuBackend::new(net.clone(), opts)?)];
    let mut s = Search::new(MctsParams::default());
    let root = net.initial_state();
    let budget = Budget::Time(std::time::Duration::from_secs_f64(secs));
    let (res, _) = s.run_on(&net, &mut backends, &root, 2, budget)?;
    println!(
        "searched {secs} s: {} nodes, {} iterations",
        res.nodes, res.iterations
    );
    let t = s.tree();
    let best = |id| {
        t.node(id)
            .children
            .values()
            .max_by_key(|&c| t.node(c).visits)
            .expect("a child")
    };
    let mine = best(t.root());
    let reply = best(mine);
    let state = t.node(reply).state.clone();
    let clock = Instant::now();
    let (res, reused) = s.run_on(&net, &mut backends, &state, 2, Budget::Iterations(1))?;
    println!(
        "re-root (reused: {reused}) and one iteration: {:.1} ms, {} nodes kept",
        clock.elapsed().as_secs_f64() * 1e3,
        res.nodes
    );
    let clock = Instant::now();
    let (res, _) = s.run_on(&net, &mut backends, &state, 0, budget)?;
    println!(
        "searched on {secs} s: {:.0} iterations/s, {} nodes",
        res.iterations as f64 / clock.elapsed().as_secs_f64(),
        res.nodes
    );
    Ok(())
}
