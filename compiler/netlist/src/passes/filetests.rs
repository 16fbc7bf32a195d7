//! Filetest harness (the cranelift filetests idea): each `compiler/tests/filetests/*.pnet`
//! holds `pass <name>` (a pass from [`super::PASSES`] or `optimize`), an input netlist in the
//! text form, a line `expect`, and the expected output netlist. The harness runs the pass,
//! checks the output is valid and plays like the input, and compares it with the expectation
//! (both printed by [`to_text`], so comments and blank lines do not matter). With
//! `PROPNET_BLESS=1` a differing expectation is rewritten instead (review the diff!).

use super::{check_equivalent, optimize, pass_by_name, EquivOptions, OptimizeOptions};
use crate::{from_text, to_text, validate, Netlist};
use std::path::Path;

struct FileTest {
    pass: String,
    input: String,
    /// Line number (from 1) where the input starts, for error messages.
    input_line: usize,
    expect: String,
    expect_line: usize,
    /// Everything up to and including the `expect` line, kept when blessing.
    head: String,
}

fn split(src: &str) -> Result<FileTest, String> {
    let lines: Vec<&str> = src.lines().collect();
    let pass_at = lines
        .iter()
        .position(|l| l.trim().starts_with("pass "))
        .ok_or("no `pass <name>` line")?;
    let expect_at = lines
        .iter()
        .position(|l| l.trim() == "expect")
        .ok_or("no `expect` line")?;
    if expect_at < pass_at {
        return Err("`expect` before `pass`".into());
    }
    Ok(FileTest {
        pass: lines[pass_at].trim()["pass ".len()..].trim().to_string(),
        input: lines[pass_at + 1..expect_at].join("\n"),
        input_line: pass_at + 2,
        expect: lines[expect_at + 1..].join("\n"),
        expect_line: expect_at + 2,
        head: lines[..=expect_at].join("\n"),
    })
}

fn run_pass(name: &str, net: &mut Netlist) -> Result<(), String> {
    if name == "optimize" {
        let report = optimize(net, &OptimizeOptions::default());
        if !report.converged {
            return Err(format!("optimize did not converge:\n{report}"));
        }
        return Ok(());
    }
    let pass = pass_by_name(name).ok_or_else(|| format!("unknown pass `{name}`"))?;
    pass(net, &crate::Cancel::never());
    Ok(())
}

fn run_file(path: &Path) -> Result<(), String> {
    let src = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let t = split(&src)?;
    let shift = |line: usize, e: String| format!("input near line {line}: {e}");
    let input = from_text(&t.input).map_err(|e| shift(t.input_line, e.to_string()))?;
    let mut output = input.clone();
    run_pass(&t.pass, &mut output)?;
    validate(&output).map_err(|e| format!("pass {} produced an invalid netlist: {e}", t.pass))?;
    let opts = EquivOptions {
        seed: 7,
        playouts: 32,
        max_steps: 32,
    };
    check_equivalent(&input, &output, &opts)
        .map_err(|e| format!("pass {} changed behaviour: {e}", t.pass))?;
    let got = to_text(&output);
    let want = match from_text(&t.expect) {
        Ok(n) => to_text(&n),
        Err(e) if std::env::var_os("PROPNET_BLESS").is_none() => {
            return Err(format!("expectation near line {}: {e}", t.expect_line))
        }
        Err(_) => String::new(),
    };
    if got != want {
        if std::env::var_os("PROPNET_BLESS").is_some() {
            std::fs::write(path, format!("{}\n{got}", t.head)).map_err(|e| e.to_string())?;
            return Ok(());
        }
        return Err(format!(
            "output differs from expectation.\n--- expected\n{want}--- got\n{got}"
        ));
    }
    Ok(())
}

#[test]
fn filetests() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/filetests");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "pnet"))
        .collect();
    files.sort();
    assert!(files.len() >= 6, "expected filetests in {}", dir.display());
    let failures: Vec<String> = files
        .iter()
        .filter_map(|p| run_file(p).err().map(|e| format!("{}: {e}", p.display())))
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} filetests failed:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n\n")
    );
}
