//! Golden WGSL snapshots of tiny hand-built netlists, both layouts. Regenerate with
//! `UPDATE_SNAPSHOTS=1 cargo test -p propnet-kernels --test snapshots`.

mod common;

use propnet_kernels::wgsl::{write_string, Layout, Options};
use propnet_netlist::{validate, Netlist, NetlistInfo};
use std::path::PathBuf;

fn info(net: &Netlist) -> NetlistInfo {
    validate(net).expect("valid netlist")
}

fn check(name: &str, wgsl: &str) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/snapshots")
        .join(format!("{name}.wgsl"));
    if std::env::var("UPDATE_SNAPSHOTS").as_deref() == Ok("1") {
        std::fs::write(&path, wgsl).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (run with UPDATE_SNAPSHOTS=1 to create it)",
            path.display()
        )
    });
    if want != wgsl {
        let line = want
            .lines()
            .zip(wgsl.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(want.lines().count().min(wgsl.lines().count()));
        panic!(
            "{name}: generated WGSL differs from {} at line {} (UPDATE_SNAPSHOTS=1 to accept):\n  want: {:?}\n  got:  {:?}",
            path.display(),
            line + 1,
            want.lines().nth(line),
            wgsl.lines().nth(line)
        );
    }
}

#[test]
fn counter_inline_snapshot() {
    let opts = Options {
        layout: Layout::Inline,
        ..Default::default()
    };
    check(
        "counter_inline",
        &write_string(&common::counter(), &info(&common::counter()), &opts).unwrap(),
    );
}

#[test]
fn counter_table_snapshot() {
    let opts = Options {
        layout: Layout::Table,
        ..Default::default()
    };
    check(
        "counter_table",
        &write_string(&common::counter(), &info(&common::counter()), &opts).unwrap(),
    );
}

#[test]
fn stuck_inline_single_lane_snapshot() {
    let opts = Options {
        layout: Layout::Inline,
        lanes: 1,
        workgroup_size: 32,
        ..Default::default()
    };
    check(
        "stuck_inline_1lane",
        &write_string(&common::stuck(), &info(&common::stuck()), &opts).unwrap(),
    );
}
