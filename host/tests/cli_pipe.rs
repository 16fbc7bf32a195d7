//! Writing into a closed pipe (`propnet … | head`) ends the CLI quietly instead of panicking.

use std::process::{Command, Stdio};

#[test]
fn closed_stdout_is_not_a_panic() {
    let game = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../bench-games/connectfour.kif"
    );
    let mut child = Command::new(env!("CARGO_BIN_EXE_propnet"))
        .args(["compile", game, "--emit", "json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Close the reading end before the child writes its (far larger than a pipe buffer)
    // netlist, as `head` does after its first lines.
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "stderr: {err}");
    assert!(!err.contains("Broken pipe"), "stderr: {err}");
    assert!(
        out.status.success(),
        "status {:?}, stderr: {err}",
        out.status
    );
}
