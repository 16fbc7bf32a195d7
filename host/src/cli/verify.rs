//! `propnet verify GAME TRACE`: replays another reasoner's trace (the oracle's JSON lines
//! or gdl-perf's `!R!…` lines) through ours and reports the first divergence.

use super::trace::{with_engine, EngineArgs};
use anyhow::Context;
use propnet_compare::verify::{verify, VerifyError};
use propnet_compiler::gdl;
use std::path::{Path, PathBuf};

/// Arguments of `propnet verify`.
#[derive(clap::Args, Debug)]
pub struct VerifyArgs {
    /// The game: GDL rules (.kif), or with `--engine netlist` also a netlist (.json) from
    /// `propnet compile`.
    pub game: PathBuf,
    /// The trace to check: oracle JSON lines or a gdl-perf correctness trace (`-` = stdin).
    pub trace: PathBuf,
    /// Reasoner options.
    #[command(flatten)]
    pub engine: EngineArgs,
    /// Print one JSON object (the verdict) instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Runs `propnet verify`; a divergence is an error (exit status 1) after the report.
pub fn run(args: VerifyArgs) -> anyhow::Result<()> {
    let (json, trace, game) = (args.json, args.trace.clone(), args.game.clone());
    match replay(args) {
        Ok(true) => Ok(()),
        Ok(false) => anyhow::bail!("{} does not agree with {}", trace.display(), game.display()),
        Err(e) => {
            if json {
                // a program reading the verdict gets an object whatever happened
                let error = serde_json::json!({ "agrees": false, "error": super::one_line(&e) });
                println!("{error}");
            }
            Err(e)
        }
    }
}

/// `propnet verify` up to its printed verdict: whether the trace agrees.
fn replay(args: VerifyArgs) -> anyhow::Result<bool> {
    let text = read_trace(&args.trace)?;
    let trace_name = args.trace.display().to_string();
    let verdict = with_engine(&args.game, &args.engine, &mut |mut e| {
        verify(&mut e, &text).map_err(|err| match err {
            VerifyError::Malformed(m) => anyhow::anyhow!("{trace_name}:{m}"),
            other => anyhow::anyhow!("{trace_name}: {other}"),
        })
    })?;
    let mut verdict = verdict;
    if let Some(note) = other_game(verdict.trace_game.as_deref(), &args.game) {
        verdict.notes.insert(0, note);
    }
    if args.json {
        println!("{}", serde_json::to_string(&verdict)?);
    } else {
        println!("{trace_name}: {}", verdict.summary());
        for n in &verdict.notes {
            println!("note: {n}");
        }
    }
    Ok(verdict.agrees())
}

/// A note when the trace's header names a game other than `game` (compared by file stem,
/// so `g.kif` and its compiled `g.json` are the same game).
fn other_game(named: Option<&str>, game: &Path) -> Option<String> {
    let named = named?;
    let stem = |p: &Path| p.file_stem().map(|s| s.to_string_lossy().into_owned());
    let ours = stem(game)?;
    (stem(Path::new(named))? != ours && game.as_os_str() != "-").then(|| {
        format!(
            "the trace's header names the game `{named}`; it was checked against {}",
            game.display()
        )
    })
}

/// The trace at `path` (`-`: stdin) as text, at most [`gdl::MAX_INPUT_BYTES`] of it: an
/// endless stream (`verify - < /dev/zero`) fails at the bound instead of filling memory.
fn read_trace(path: &Path) -> anyhow::Result<String> {
    let bytes = match path.as_os_str() == "-" {
        true => gdl::read_limited(std::io::stdin().lock(), gdl::MAX_INPUT_BYTES)
            .context("reading the trace from stdin")?,
        false => gdl::read_file(path)?,
    };
    String::from_utf8(bytes).map_err(|e| {
        anyhow::anyhow!(
            "{}: the trace is not UTF-8 text (invalid byte at offset {}): give the JSON lines \
             or gdl-perf trace file",
            path.display(),
            e.utf8_error().valid_up_to()
        )
    })
}
