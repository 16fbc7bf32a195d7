//! Issue #44: `compare --shard K/N` and `compare merge`. The merge of N shards equals the
//! unsharded run in every column that does not depend on time (cells, playout and state
//! counts at a fixed `--playouts`, verification verdicts), for N = 1, 2, 3; bad inputs to
//! `merge` (another sweep, a truncated report, a missing shard, a shard given twice, an
//! edited report) each get an error or warning naming the file.

use crate::support::{dir, run_with, tictactoe, Outcome};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The bench games of the sweeps: three, so that three shards each get some.
pub fn games() -> Vec<PathBuf> {
    let bench = Path::new(env!("CARGO_MANIFEST_DIR")).join("../bench-games");
    vec![
        tictactoe(),
        bench.join("connectfour.kif"),
        bench.join("breakthrough.kif"),
    ]
}

/// The sweep's arguments after the games: fixed playouts, the gate on.
pub const SWEEP: &[&str] = &[
    "--reasoners",
    "interp,reference,cpu:1",
    "--playouts",
    "12",
    "--rounds",
    "2",
    "--seed",
    "11",
    "--max-steps",
    "200",
    "--verify",
    "--verify-steps",
    "30",
];

/// `propnet ARGS` within 300 s.
fn propnet(args: &[String]) -> Outcome {
    let a: Vec<&str> = args.iter().map(String::as_str).collect();
    run_with(&a, None, Duration::from_secs(300))
}

/// The sweep's command line with `extra` (e.g. `--shard 1/3`) and `--out out`.
pub fn sweep_command(out: &Path, extra: &[&str]) -> Vec<String> {
    let mut a = vec!["compare".to_string()];
    a.extend(games().iter().map(|g| g.display().to_string()));
    a.extend(SWEEP.iter().map(|s| s.to_string()));
    a.extend(extra.iter().map(|s| s.to_string()));
    a.extend(["--out".into(), out.display().to_string()]);
    a
}

/// Runs the sweep (or one shard of it) into `out`.
fn sweep(out: &Path, extra: &[&str]) -> Outcome {
    let o = propnet(&sweep_command(out, extra));
    o.expect_code(0, &format!("compare {extra:?}"));
    o
}

/// `compare merge INPUTS… --out OUT EXTRA…`.
fn merge(inputs: &[PathBuf], out: &Path, extra: &[&str]) -> Outcome {
    let mut a = vec!["compare".to_string(), "merge".into()];
    a.extend(inputs.iter().map(|i| i.display().to_string()));
    a.extend(["--out".into(), out.display().to_string()]);
    a.extend(extra.iter().map(|s| s.to_string()));
    propnet(&a)
}

/// The report in `out`.
pub fn report(out: &Path) -> Value {
    let text = std::fs::read_to_string(out.join("compare.json")).expect("compare.json");
    serde_json::from_str(&text).expect("a JSON report")
}

/// What of a report does not depend on time: per row (in order) its game, reasoner,
/// status, verdict and each sample's playouts and states.
pub fn timeless(report: &Value) -> Vec<Value> {
    (report["rows"].as_array().expect("rows").iter())
        .map(|r| {
            let samples: Vec<Value> = (r["samples"].as_array().expect("samples").iter())
                .map(|s| serde_json::json!([s["playouts"], s["states"]]))
                .collect();
            serde_json::json!({
                "game": r["game"], "reasoner": r["reasoner"], "status": r["status"],
                "verify": r["verify"], "samples": samples,
            })
        })
        .collect()
}

/// A fresh folder for one test.
fn folder(name: &str) -> PathBuf {
    let d = dir().join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn merged_shards_equal_the_unsharded_run_for_one_two_and_three_shards() {
    let d = folder("shard-equal");
    sweep(&d.join("whole"), &[]);
    let whole = report(&d.join("whole"));
    let expected = timeless(&whole);
    assert_eq!(expected.len(), 9, "3 games × 3 reasoners");
    for row in &expected {
        assert_eq!(row["status"], "ok", "{row}");
        assert_eq!(row["verify"]["verification"], "agreed", "{row}");
        for s in row["samples"].as_array().unwrap() {
            assert_eq!(s[0], 12, "12 playouts per sample: {row}");
        }
    }
    for n in 1..=3u32 {
        let (mut shards, mut ids) = (Vec::new(), Vec::new());
        for k in 0..n {
            let out = d.join(format!("n{n}-shard{k}"));
            let o = sweep(&out, &["--shard", &format!("{k}/{n}")]);
            if n > 1 {
                assert!(
                    o.err.contains(&format!("shard {k}/{n} on ")),
                    "a progress line per shard: {}",
                    o.err
                );
            }
            let r = report(&out);
            let rows = r["rows"].as_array().unwrap();
            assert!(!rows.is_empty(), "shard {k}/{n} measures some cells");
            assert!(rows.iter().all(|x| x["shard"] == k), "{r:#}");
            ids.push(r["sweep"]["id"].clone());
            shards.push(out);
        }
        // One sweep id for every task; N is an argument of the sweep, so only one shard
        // shares the unsharded run's id.
        assert!(ids.iter().all(|i| *i == ids[0]), "{ids:?}");
        assert_eq!(ids[0] == whole["sweep"]["id"], n == 1, "{ids:?}");
        let merged = d.join(format!("n{n}-merged"));
        let o = merge(&shards, &merged, &[]);
        o.expect_code(0, "merge");
        let m = report(&merged);
        assert_eq!(timeless(&m), expected, "merge of {n} shard(s)");
        let runs = m["sweep"]["runs"].as_array().unwrap();
        assert_eq!(runs.len(), n as usize);
        if n > 1 {
            for k in 0..n {
                assert!(
                    o.out.contains(&format!("shard {k}/{n} ran ")),
                    "where each cell ran: {}",
                    o.out
                );
            }
        }
        // The speedups are over the interpreter's row of the same game, whichever shard
        // measured it.
        for r in m["rows"].as_array().unwrap() {
            assert!(r["speedup"].as_f64().is_some_and(|s| s > 0.0), "{r}");
        }
        let csv = std::fs::read_to_string(merged.join("compare.csv")).unwrap();
        assert_eq!(csv.lines().count(), 10, "{csv}");
        assert!(
            csv.lines().next().unwrap().ends_with(",shard,host"),
            "{csv}"
        );
    }
}

/// A small sweep of two cells (tic-tac-toe; interp and cpu:1) in two shards.
fn small(out: &Path, shard: &str, seed: &str) {
    let t = tictactoe().display().to_string();
    let a: Vec<String> = [
        "compare",
        &t,
        "--reasoners",
        "interp,cpu:1",
        "--playouts",
        "4",
        "--rounds",
        "1",
        "--seed",
        seed,
        "--shard",
        shard,
        "--out",
    ]
    .iter()
    .map(|s| s.to_string())
    .chain([out.display().to_string()])
    .collect();
    propnet(&a).expect_code(0, "small sweep");
}

#[test]
fn bad_inputs_to_merge_are_named() {
    let d = folder("shard-bad");
    let (a0, a1, a1b, b1) = (d.join("a0"), d.join("a1"), d.join("a1b"), d.join("b1"));
    small(&a0, "0/2", "1");
    small(&a1, "1/2", "1");
    small(&b1, "1/2", "2");
    let out = d.join("merged");
    let shown = |p: &Path| p.join("compare.json").display().to_string();

    // A shard of another sweep: the file and the argument that differs.
    let o = merge(&[a0.clone(), b1.clone()], &out, &[]);
    o.expect_code(1, "another sweep");
    assert!(
        o.err.contains(&shown(&b1)) && o.err.contains("seed=2"),
        "{}",
        o.err
    );
    assert!(o.err.contains("another sweep"), "{}", o.err);

    // A truncated report: the file and where it ends.
    let cut = d.join("cut.json");
    let text = std::fs::read_to_string(a1.join("compare.json")).unwrap();
    std::fs::write(&cut, &text[..text.len() / 2]).unwrap();
    let o = merge(&[a0.clone(), cut.clone()], &out, &[]);
    o.expect_code(1, "truncated");
    assert!(
        o.err.contains(&cut.display().to_string()) && o.err.contains("truncated"),
        "{}",
        o.err
    );

    // JSON that is not a report, and a folder without one.
    let other = d.join("other.json");
    std::fs::write(&other, "{\"rows\": 3}").unwrap();
    let o = merge(std::slice::from_ref(&other), &out, &[]);
    o.expect_code(1, "not a report");
    assert!(
        o.err.contains(&other.display().to_string()) && o.err.contains("not a compare report"),
        "{}",
        o.err
    );
    let empty = folder("shard-bad/empty");
    let o = merge(std::slice::from_ref(&empty), &out, &[]);
    o.expect_code(1, "no report in the folder");
    assert!(o.err.contains(&shown(&empty)), "{}", o.err);

    // A missing shard: its cells are named; --partial merges the rest with a warning.
    let r1 = report(&a1);
    let cell = format!(
        "{} / {}",
        r1["rows"][0]["game"].as_str().unwrap(),
        r1["rows"][0]["reasoner"].as_str().unwrap()
    );
    let o = merge(std::slice::from_ref(&a0), &out, &[]);
    o.expect_code(1, "missing shard");
    assert!(
        o.err.contains("shard(s) 1 of 2 missing") && o.err.contains(&cell),
        "{}",
        o.err
    );
    let o = merge(std::slice::from_ref(&a0), &out, &["--partial"]);
    o.expect_code(0, "partial");
    assert!(
        o.err.contains("warning") && o.err.contains(&cell),
        "{}",
        o.err
    );
    assert!(o.out.contains("shard 1/2 is missing"), "{}", o.out);
    assert_eq!(
        report(&out)["rows"].as_array().unwrap().len(),
        report(&a0)["rows"].as_array().unwrap().len()
    );

    // A shard given twice (a rerun): a warning naming both files, the later run used.
    small(&a1b, "1/2", "1");
    let o = merge(&[a0.clone(), a1.clone(), a1b.clone()], &out, &[]);
    o.expect_code(0, "a rerun");
    assert!(
        o.err.contains(&shown(&a1)) && o.err.contains(&format!("using {}", shown(&a1b))),
        "{}",
        o.err
    );
    let runs = report(&out)["sweep"]["runs"].clone();
    assert!(
        runs.as_array()
            .unwrap()
            .iter()
            .any(|r| r["file"] == shown(&a1b).as_str()),
        "{runs}"
    );

    // An edited report whose row claims another shard.
    let edited = d.join("edited.json");
    let mut r = report(&a1);
    r["rows"][0]["shard"] = 0.into();
    std::fs::write(&edited, r.to_string()).unwrap();
    let o = merge(&[a0, edited.clone()], &out, &[]);
    o.expect_code(1, "edited");
    assert!(o.err.contains(&edited.display().to_string()), "{}", o.err);
}

#[test]
fn shard_flags_are_checked() {
    let t = tictactoe().display().to_string();
    for bad in ["2/2", "1/0", "-1/2", "x", "1/2/3"] {
        let flag = format!("--shard={bad}");
        let o = run_with(&["compare", &t, &flag], None, Duration::from_secs(30));
        o.expect_code(2, bad);
        assert!(o.err.contains("counted from 0"), "{bad}: {}", o.err);
    }
    for bad in ["0", "-3", "1e3", "nan"] {
        let o = run_with(
            &["compare", &t, "--playouts", bad],
            None,
            Duration::from_secs(30),
        );
        o.expect_code(2, bad);
    }
    let o = run_with(&["compare", "merge"], None, Duration::from_secs(30));
    o.expect_code(2, "merge needs its inputs");
}
