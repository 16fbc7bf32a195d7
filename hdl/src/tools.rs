//! Runs the external EDA tools (iverilog, vvp, verilator, yosys, nextpnr) and keeps the end
//! of their output for error messages.

use crate::Error;
use std::path::Path;
use std::process::Command;

/// Last `n` lines of `text`.
pub(crate) fn tail(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

/// Runs `tool args` in `dir`; returns stdout + stderr on success.
pub(crate) fn run(tool: &str, args: &[String], dir: &Path) -> Result<String, Error> {
    let out = Command::new(tool)
        .args(args)
        .current_dir(dir)
        .output()
        .map_err(|source| Error::ToolMissing {
            tool: tool.into(),
            source,
        })?;
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    if !out.status.success() {
        return Err(Error::ToolFailed {
            tool: tool.into(),
            status: out.status.to_string(),
            log: tail(&text, 40),
        });
    }
    Ok(text)
}

/// The first of `names` that can be started: on PATH, else in pip's user folder
/// (`$HOME/.local/bin`, where `pip install --user yowasp-…` puts its tools). Returns the
/// name or the full path.
pub fn find(names: &[&str]) -> Option<String> {
    let home = std::env::var_os("HOME").map(std::path::PathBuf::from);
    names.iter().find_map(|n| {
        if available(n) {
            return Some(n.to_string());
        }
        let p = home.as_ref()?.join(".local/bin").join(n);
        let p = p.to_str()?.to_string();
        available(&p).then_some(p)
    })
}

/// True when `tool` can be started (used by tests to skip when a tool is not installed).
pub fn available(tool: &str) -> bool {
    Command::new(tool).arg("-V").output().is_ok()
        || Command::new(tool).arg("--version").output().is_ok()
}

/// For test suites: [`available`], and when `tool` is missing, prints why and returns
/// false (the test skips) — unless `PROPNET_REQUIRE_TOOLS` is set (CI does), in which case
/// the absence is a failure (panic).
pub fn available_for_tests(tool: &str) -> bool {
    if available(tool) {
        return true;
    }
    assert!(
        std::env::var("PROPNET_REQUIRE_TOOLS").is_err(),
        "{tool} is required but not installed"
    );
    eprintln!("skipping: {tool} not installed");
    false
}

/// Runs `verilator --lint-only -Wall` on the design's synthesizable sources (written into
/// `dir`). Returns the warnings text, empty when clean; a lint error is [`Error::ToolFailed`].
pub fn lint(design: &crate::Design, dir: &Path) -> Result<String, Error> {
    design.write_to(dir)?;
    let mut args: Vec<String> = vec![
        "--lint-only".into(),
        "-Wall".into(),
        "--top-module".into(),
        design.names.top.clone(),
    ];
    args.extend(design.source_names());
    let text = run("verilator", &args, dir)?;
    Ok(text
        .lines()
        .filter(|l| l.starts_with("%Warning") || l.starts_with("%Error"))
        .collect::<Vec<_>>()
        .join("\n"))
}
