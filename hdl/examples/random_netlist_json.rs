//! Prints a seeded random netlist as JSON (for trying `propnet hdl` without a GDL game):
//! `cargo run -p propnet-hdl --example random_netlist_json -- SEED > net.json`.

use propnet_netlist::random::{random_netlist, RandomSpec};

fn main() {
    let seed = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(1);
    let net = random_netlist(seed, &RandomSpec::default());
    println!(
        "{}",
        serde_json::to_string(&net).expect("netlists serialize")
    );
}
