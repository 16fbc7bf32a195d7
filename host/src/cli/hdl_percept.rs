//! `propnet hdl` on a GDL-II game: the percept module beside the engine
//! ([`propnet_hdl::percept`]), and with `--check` its simulation against the reference on
//! the transitions of random playouts.

use super::hdl::HdlArgs;
use anyhow::{bail, Context};
use propnet_hdl::percept::{simulate_percepts, write_percept_module};
use propnet_netlist::scalar::{random_transitions, ScalarNet};
use propnet_netlist::ValidNetlist;

/// Most transitions simulated by `--check`.
const MAX_CHECKED: usize = 4096;

/// Writes `<prefix>_percept.v` into the output folder and, with `--check N`, simulates
/// it on the transitions of N random playouts from the initial state (moves drawn with
/// the project RNG and `--seed`; at most [`MAX_CHECKED`]).
///
/// # Errors
/// Writing the file, the simulator's failure, a percept that differs from the reference.
pub fn run(net: &ValidNetlist, design: &propnet_hdl::Design, args: &HdlArgs) -> anyhow::Result<()> {
    let core = &design.names.core;
    let module = format!("{}_percept", core.strip_suffix("_core").unwrap_or(core));
    let Some(text) = write_percept_module(net, net.info(), &module) else {
        return Ok(());
    };
    let path = args.out.join(format!("{module}.v"));
    propnet_output::write(&path, &text)?;
    println!(
        "wrote {} (GDL-II: every role's percepts of a state and joint move)",
        path.display()
    );
    if args.check == 0 {
        return Ok(());
    }
    let pairs = random_transitions(net, args.seed, (args.check, args.max_steps), MAX_CHECKED);
    let simulator = super::hdl::SimulatorArg::resolve(args.simulator, text.len());
    let got = simulate_percepts(
        net,
        net.info(),
        &pairs,
        &args.out.join("sim-percept"),
        simulator,
    )
    .context("simulating the percept module")?;
    let mut scalar = ScalarNet::new(net);
    for (k, ((s, j), g)) in pairs.iter().zip(&got).enumerate() {
        let (_, want) = scalar.next_with_percepts(net, s, j);
        if *g != want {
            bail!("percept simulation differs from the reference at transition {k}: got {g:?}, want {want:?}");
        }
    }
    println!(
        "percept simulation ({}): {} transitions equal to the reference",
        simulator.name(),
        pairs.len()
    );
    Ok(())
}
