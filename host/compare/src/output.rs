//! Writes a comparison's files into its output folder: `compare.csv`, `compare.json`
//! and the plots `throughput`, `speedup`, `threads` as `.svg` and `.png`.

use super::plot::{charts, write_png, write_svg};
use super::report::Report;
use std::path::{Path, PathBuf};

/// What was written, and the plots that could not be (with why).
#[derive(Clone, Debug, Default)]
pub struct Written {
    /// Files written.
    pub files: Vec<PathBuf>,
    /// Plot failures (e.g. no font): the numbers are still in the CSV and JSON.
    pub warnings: Vec<String>,
}

/// Writes every file of `report` into `dir` (created if needed).
///
/// # Errors
/// The I/O error of the CSV or JSON file (plot failures are warnings).
pub fn write_all(report: &Report, dir: &Path) -> std::io::Result<Written> {
    propnet_output::folder(dir)?;
    let mut w = Written::default();
    let csv = dir.join("compare.csv");
    propnet_output::write(&csv, report.csv())?;
    w.files.push(csv);
    let json = dir.join("compare.json");
    let text = serde_json::to_string_pretty(report).map_err(std::io::Error::other)?;
    propnet_output::write(&json, text)?;
    w.files.push(json);
    for (name, chart) in charts(&report.rows, &report.baseline) {
        for (ext, result) in [
            ("svg", write_svg(&chart, &dir.join(format!("{name}.svg")))),
            ("png", write_png(&chart, &dir.join(format!("{name}.png")))),
        ] {
            match result {
                Ok(()) => w.files.push(dir.join(format!("{name}.{ext}"))),
                Err(e) => w.warnings.push(e.to_string()),
            }
        }
    }
    w.warnings.dedup();
    Ok(w)
}
