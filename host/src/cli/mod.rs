//! One module per subcommand of the `propnet` binary; each has `XArgs` (clap) and
//! `run(XArgs) -> anyhow::Result<()>`.

pub mod bench;
pub mod best;
pub mod check;
pub mod common;
pub mod compile;
pub mod hdl;
pub mod r#match;
pub mod perft;
pub mod run;
pub mod solve;
pub mod trace;

use propnet_compiler::netlist::Netlist;
use propnet_host::pipeline::{load_netlist, CompileReport, PipelineOptions};
use std::path::Path;

/// Loads a game through the shared pipeline, with the error as the user should see it.
pub fn load(path: &Path, no_optimize: bool) -> anyhow::Result<(Netlist, CompileReport)> {
    let opts = PipelineOptions {
        no_optimize,
        ..Default::default()
    };
    Ok(load_netlist(path, &opts)?)
}
