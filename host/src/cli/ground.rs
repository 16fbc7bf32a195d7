//! Grounding options every subcommand that compiles GDL shares (`--ground-memory-mib`,
//! `--ground-seconds`, `--ground-term-depth`, `--ground-atoms`, `--ground-explore-states`,
//! global flags), and the
//! progress bar shown while a long grounding runs. A subcommand with its own flag of the
//! same name (`player`, `match` as a manager) keeps its own.

use indicatif::{ProgressBar, ProgressStyle};
use propnet_compiler::ground::{Budget, CompileOptions};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

/// The grounding budget flags (global: they go before or after the subcommand).
#[derive(clap::Args, Clone, Debug, Default)]
pub struct GroundArgs {
    /// Most memory the grounder's tables may use, in MiB [default: an eighth of physical
    /// memory, at least 512 and at most 6144].
    #[arg(long, global = true, value_name = "MIB", value_parser = parse_mib)]
    pub ground_memory_mib: Option<usize>,
    /// Limit on the CPU time of grounding a game, in seconds (CPU time, so the verdict does
    /// not depend on the machine's load) [default: 300].
    #[arg(long, global = true, value_name = "SECONDS", value_parser = parse_ground_seconds)]
    pub ground_seconds: Option<f64>,
    /// Deepest ground term the grounder may build (a constant has depth 1) [default: 40].
    #[arg(long, global = true, value_name = "DEPTH", value_parser = parse_depth)]
    pub ground_term_depth: Option<u32>,
    /// Most atoms the grounder may derive [default: 100000000].
    #[arg(long, global = true, value_name = "ATOMS", value_parser = parse_atoms)]
    pub ground_atoms: Option<usize>,
    /// When the rules build ever deeper terms (the term-depth limit) although play is
    /// finite, the grounder enumerates the states play reaches with the interpreter and
    /// grounds over those: at most this many states (0: never) [default: 200000].
    #[arg(long, global = true, value_name = "STATES", value_parser = parse_states)]
    pub ground_explore_states: Option<usize>,
}

static ARGS: OnceLock<GroundArgs> = OnceLock::new();

/// Records the flags for [`options`] (called once by `main`).
pub fn set(args: GroundArgs) {
    let _ = ARGS.set(args);
}

/// The budget the flags ask for (defaults where a flag is absent).
pub fn budget() -> Budget {
    let args = ARGS.get().cloned().unwrap_or_default();
    let mut b = Budget::default();
    if let Some(m) = args.ground_memory_mib {
        b.max_memory = m << 20;
    }
    if let Some(s) = args.ground_seconds {
        b.max_time = Duration::from_secs_f64(s);
    }
    if let Some(d) = args.ground_term_depth {
        b.max_term_depth = d;
    }
    if let Some(a) = args.ground_atoms {
        b.max_atoms = a;
    }
    if let Some(n) = args.ground_explore_states {
        b.max_explored_states = n;
    }
    b
}

/// Compile options with the flags' budget and a progress bar on stderr (drawn only on a
/// terminal, and only once grounding has taken a second), with the bar to finish.
pub fn options() -> (CompileOptions, ProgressBar) {
    let bar = ProgressBar::new_spinner();
    bar.set_style(
        ProgressStyle::with_template("{spinner} {elapsed} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_spinner()),
    );
    let shown = bar.clone();
    let start = std::time::Instant::now();
    let progress = Arc::new(move |msg: &str| {
        if start.elapsed() > Duration::from_secs(1) {
            shown.set_message(msg.to_string());
            shown.tick();
        }
    });
    let opts = CompileOptions {
        budget: budget(),
        progress: Some(progress),
        ..CompileOptions::default()
    };
    (opts, bar)
}

fn parse_mib(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(m) if (1..=1 << 24).contains(&m) => Ok(m),
        _ => Err(format!(
            "`{text}` is not a memory size: expected MiB from 1 to 16777216"
        )),
    }
}

fn parse_ground_seconds(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(s) if s.is_finite() && s > 0.0 && s <= 1e7 => Ok(s),
        _ => Err(format!(
            "`{text}` is not a time limit: expected seconds, more than 0 and at most 1e7"
        )),
    }
}

fn parse_atoms(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(a) if (1..=1 << 40).contains(&a) => Ok(a),
        _ => Err(format!("`{text}` is not an atom count: expected 1 to 2^40")),
    }
}

fn parse_states(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(n) if n <= 100_000_000 => Ok(n),
        _ => Err(format!(
            "`{text}` is not a state count: expected 0 (never explore) to 100000000"
        )),
    }
}

fn parse_depth(text: &str) -> Result<u32, String> {
    match text.parse::<u32>() {
        Ok(d) if (1..=100_000).contains(&d) => Ok(d),
        _ => Err(format!(
            "`{text}` is not a term depth: expected 1 to 100000"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_reject_zero_negative_nan_and_huge_values() {
        assert_eq!(parse_mib("2048"), Ok(2048));
        for bad in ["0", "-1", "nan", "1e3", "99999999999"] {
            assert!(parse_mib(bad).is_err(), "{bad}");
        }
        assert_eq!(parse_ground_seconds("2.5"), Ok(2.5));
        for bad in ["0", "-3", "nan", "inf", "1e300", "x"] {
            assert!(parse_ground_seconds(bad).is_err(), "{bad}");
        }
        assert_eq!(parse_depth("60"), Ok(60));
        for bad in ["0", "-1", "1000000", "deep"] {
            assert!(parse_depth(bad).is_err(), "{bad}");
        }
        assert_eq!(parse_atoms("5000000"), Ok(5_000_000));
        for bad in ["0", "-1", "nan", "2e6", "99999999999999999"] {
            assert!(parse_atoms(bad).is_err(), "{bad}");
        }
    }
}
