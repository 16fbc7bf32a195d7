//! Helpers shared by the compiler's corpus tests: locating `../shared` and listing games.
// Each test binary that includes this module uses a part of it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The shared test data folder, or `None` (after printing why) when it is absent; panics
/// instead when `PROPNET_REQUIRE_SHARED=1`.
pub fn shared() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared");
    if dir.join("games").is_dir() {
        return Some(dir);
    }
    if std::env::var("PROPNET_REQUIRE_SHARED").is_ok_and(|v| v == "1") {
        panic!(
            "shared test data missing at {} (PROPNET_REQUIRE_SHARED=1)",
            dir.display()
        );
    }
    eprintln!("skipping: shared test data not found at {}", dir.display());
    None
}

/// Appends every `.kif` file under `dir` (recursively, sorted) to `out`.
pub fn kif_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            kif_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "kif") {
            out.push(p);
        }
    }
}
