//! Embeds the git commit the binary is built from (`PROPNET_GIT_COMMIT`, read by
//! `propnet_compare::machine`), failing soft: outside a git checkout, or without
//! `git`, the variable is not set and the stamp says `unknown`. Reruns when HEAD or the
//! branch it points to moves.

use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    if !out.status.success() {
        return None;
    }
    let s = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (!s.is_empty()).then_some(s)
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let Some(commit) = git(&["rev-parse", "HEAD"]) else {
        return;
    };
    println!("cargo:rustc-env=PROPNET_GIT_COMMIT={commit}");
    let mut watch = vec![git(&["rev-parse", "--git-path", "HEAD"])];
    if let Some(branch) = git(&["symbolic-ref", "-q", "HEAD"]) {
        watch.push(git(&["rev-parse", "--git-path", &branch]));
    }
    watch.push(git(&["rev-parse", "--git-path", "packed-refs"]));
    for path in watch.into_iter().flatten() {
        println!("cargo:rerun-if-changed={path}");
    }
}
