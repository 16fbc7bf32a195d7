//! Shared helpers for the integration and conformance tests in `tests/tests/`.

use std::path::{Path, PathBuf};

/// The shared test data folder (`<workspace>/../shared`), or `None` (after printing why)
/// when it is absent. Panics instead when `PROPNET_REQUIRE_SHARED=1`.
pub fn shared_dir() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared");
    if dir.join("games").is_dir() {
        return Some(dir);
    }
    if std::env::var("PROPNET_REQUIRE_SHARED").is_ok_and(|v| v == "1") {
        panic!("shared test data missing at {} (PROPNET_REQUIRE_SHARED=1)", dir.display());
    }
    eprintln!("skipping: shared test data not found at {}", dir.display());
    None
}

/// Every file under `dir` (recursively) with extension `ext`, sorted.
pub fn files_with_ext(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else { continue };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|e| e == ext) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// A small seeded generator (SplitMix64) for choosing joint moves in tests.
pub struct TestRng(u64);

impl TestRng {
    /// A generator with this seed.
    pub fn new(seed: u64) -> Self {
        TestRng(seed)
    }
    /// A value in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        ((z ^ (z >> 31)) % n as u64) as usize
    }
}
