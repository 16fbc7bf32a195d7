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

/// `compile --emit text` output is a netlist every command reads back: `run` on it gives
/// the same playouts as on the JSON form (same seed, same mean goals and length), and the
/// JSON on standard output ends its last line.
#[test]
fn text_netlist_runs_like_json() {
    let game = concat!(env!("CARGO_MANIFEST_DIR"), "/../bench-games/tictactoe.kif");
    let dir = std::env::temp_dir().join(format!("propnet-cli-pipe-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let propnet = || Command::new(env!("CARGO_BIN_EXE_propnet"));
    let mut results = Vec::new();
    for emit in ["json", "text"] {
        let net = dir.join(format!("ttt.{emit}.pnet"));
        let out = propnet()
            .args(["compile", game, "--emit", emit, "-o"])
            .arg(&net)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let out = propnet()
            .arg("run")
            .arg(&net)
            .args(["--playouts", "500", "--threads", "1", "--seed", "9"])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(
            out.status.success(),
            "{emit}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let keep: Vec<String> = text
            .lines()
            .filter(|l| l.starts_with("mean goal") || l.starts_with("mean length"))
            .map(str::to_string)
            .collect();
        assert_eq!(keep.len(), 2, "{text}");
        results.push(keep);
    }
    assert_eq!(results[0], results[1]);
    let out = propnet().args(["compile", game]).output().unwrap();
    assert!(out.status.success());
    assert_eq!(out.stdout.last(), Some(&b'\n'));
    let _ = std::fs::remove_dir_all(&dir);
}
