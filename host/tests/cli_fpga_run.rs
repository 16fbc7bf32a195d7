//! `propnet run --backend fpga:sim` end to end: the rate is reported as wall-clock
//! simulation speed, with no per-CPU-second rate (text and `--json`), and the mean goals and
//! length equal the CPU backend's for the same seed.
//!
//! The simulated design (tic-tac-toe, 2 engines, 16 records) is the one of
//! `tests/tests/fpga_vs_cpu.rs`, so the Verilator model is built once for both and cached.
//! Skips without Verilator unless `PROPNET_REQUIRE_TOOLS` is set.

use std::process::Command;

fn run(extra: &[&str]) -> serde_json::Value {
    let game = concat!(env!("CARGO_MANIFEST_DIR"), "/../bench-games/tictactoe.kif");
    let out = Command::new(env!("CARGO_BIN_EXE_propnet"))
        .args(["run", game, "--playouts", "3000", "--seed", "7"])
        .args(extra)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    if extra.contains(&"--json") {
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"))
    } else {
        serde_json::Value::String(text)
    }
}

const SIM: [&str; 6] = [
    "--backend",
    "fpga:sim",
    "--fpga-engines",
    "2",
    "--fpga-records",
    "16",
];

#[test]
fn fpga_sim_reports_wall_clock_simulation_speed() {
    if !propnet_hdl::tools::available_for_tests("verilator") {
        return;
    }
    let sim = run(&[&SIM[..], &["--json"]].concat());
    assert!(sim["playouts_per_cpu_second"].is_null(), "{sim}");
    assert!(
        sim["rate_basis"]
            .as_str()
            .is_some_and(|b| b.contains("simulation")),
        "{sim}"
    );
    assert!(sim["playouts_per_second"].as_f64().is_some_and(|p| p > 0.0));
    let cpu = run(&["--threads", "1", "--json"]);
    assert_eq!(cpu["rate_basis"], "wall clock and cpu time");
    assert_eq!(sim["playouts"], cpu["playouts"]);
    assert_eq!(sim["mean_goals"], cpu["mean_goals"], "same playouts");
    assert_eq!(sim["mean_length"], cpu["mean_length"]);
    let text = run(&SIM);
    let text = text.as_str().unwrap_or_default();
    assert!(
        text.contains("simulation speed of the Verilator model, not a board's"),
        "{text}"
    );
    assert!(!text.contains("per CPU-second"), "{text}");
}

#[test]
fn fpga_shape_flags_need_fpga_sim() {
    let game = concat!(env!("CARGO_MANIFEST_DIR"), "/../bench-games/tictactoe.kif");
    let out = Command::new(env!("CARGO_BIN_EXE_propnet"))
        .args(["run", game, "--playouts", "10", "--fpga-engines", "2"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--backend fpga:sim"), "{err}");
}
