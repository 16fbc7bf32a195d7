//! One module per subcommand of the `propnet` binary; each has `XArgs` (clap) and
//! `run(XArgs) -> anyhow::Result<()>`.

/// `println!` that returns a write error (see [`out`]): `outln!("x {}", 1)?`.
macro_rules! outln {
    () => { $crate::cli::out::write(format_args!(""), true) };
    ($($t:tt)*) => { $crate::cli::out::write(format_args!($($t)*), true) };
}

/// `print!` that returns a write error (see [`out`]): `out!("{text}")?`.
macro_rules! out {
    ($($t:tt)*) => { $crate::cli::out::write(format_args!($($t)*), false) };
}

pub mod args;
pub mod bench;
pub mod best;
pub mod check;
pub mod common;
pub mod compare;
pub mod compare_merge;
pub mod compile;
mod factors;
pub mod ground;
pub mod hdl;
mod hdl_fit;
mod hdl_percept;
pub mod headless;
pub mod manage;
pub mod manage_gdl2;
pub mod r#match;
pub mod match_hidden;
pub mod out;
pub mod perft;
pub mod player;
pub mod profile;
pub mod run;
mod run_report;
pub mod solve;
pub mod trace;
pub mod verify;

use propnet_netlist::ValidNetlist;
use propnet_runtime::pipeline::{load_netlist, CompileReport, PipelineOptions};
use std::path::Path;

/// Loads a game (GDL, or a `.json` netlist) through the shared pipeline, with the error as
/// the user should see it; prints the front end's warnings (`file:line:column: warning: …`)
/// to stderr. Grounding uses the budget of the global `--ground-*` flags and shows a
/// progress bar when it takes long.
pub fn load(path: &Path, no_optimize: bool) -> anyhow::Result<(ValidNetlist, CompileReport)> {
    let (ground, bar) = ground::options();
    let opts = PipelineOptions {
        no_optimize,
        ground,
        ..Default::default()
    };
    let loaded = load_netlist(path, &opts);
    bar.finish_and_clear();
    let (net, report) = loaded?;
    for w in &report.warnings {
        eprintln!("{w}");
    }
    if let Some(e) = report.explored() {
        eprintln!("{}: note: {}", report.path, e.note());
    }
    Ok((net, report))
}

/// Refuses a GDL-II game (hidden information: `sees`, a `random` role) for a command that
/// searches with perfect information: it would read state a player cannot know and treat
/// `random` as a player with goals of its own.
///
/// # Errors
/// The refusal, naming the game, the command and the commands that do play GDL-II games.
pub fn refuse_gdl2(net: &ValidNetlist, game: &Path, command: &str) -> anyhow::Result<()> {
    if !net.netlist().gdl2 {
        return Ok(());
    }
    anyhow::bail!(
        "{}: a GDL-II game (hidden information: `sees` percepts, a `random` role); `propnet \
         {command}` searches with perfect information, which would see what a player cannot \
         and play `random` as an opponent, so it refuses the game. `propnet match` plays \
         it with players that see only their own moves and percepts (`--players \
         belief:cpu:1s,…`); `run`, `trace`, `verify`, `perft`, `compare` and `compile` \
         play it too (`random` draws like every role)",
        game.display()
    )
}

/// `count` and the noun, plural unless `count` is 1: `plural(1, "thread")` = `1 thread`.
pub fn plural(count: impl Into<u64>, noun: &str) -> String {
    let count = count.into();
    if count == 1 {
        format!("1 {noun}")
    } else {
        format!("{count} {noun}s")
    }
}

/// The error and its causes on one line, each cause once: a cause whose text its parent
/// already shows (a `{source}` in the message) is not repeated.
pub fn one_line(e: &anyhow::Error) -> String {
    let mut line = String::new();
    for cause in e.chain() {
        let text = cause.to_string();
        if !line.contains(&text) {
            if !line.is_empty() {
                line.push_str(": ");
            }
            line.push_str(&text);
        }
    }
    line
}
