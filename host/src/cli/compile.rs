//! `propnet compile GAME.kif -o game.pnet [--emit json|text|dot] [--stats]`: write the
//! netlist; with `--stats`, also report where its size comes from.

use propnet_netlist::{to_dot, to_json, to_text};
use propnet_runtime::pipeline::CompileReport;
use std::fmt::Write as _;
use std::path::PathBuf;

/// Output format of `propnet compile`.
#[derive(Copy, Clone, Debug, clap::ValueEnum)]
pub enum Emit {
    /// JSON netlist (readable back by `netlist::from_json`).
    Json,
    /// Line-oriented text netlist.
    Text,
    /// Graphviz DOT.
    Dot,
}

/// Arguments of `propnet compile`.
#[derive(clap::Args)]
pub struct CompileArgs {
    /// Game file (.kif).
    pub game: PathBuf,
    /// Output file; standard output when absent. A regular file is replaced atomically at
    /// the end; a symlink is written through, a FIFO or a character device in place.
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Emit::Json)]
    pub emit: Emit,
    /// Skip the optimization passes.
    #[arg(long)]
    pub no_optimize: bool,
    /// Also print compile times, grounding sizes and the relations that make the most
    /// gates and latches (to standard output with `-o`, else to standard error).
    #[arg(long)]
    pub stats: bool,
    /// With `--stats`: how many relations to list.
    #[arg(long, default_value_t = 15, value_parser = super::args::whole::<u32>(1, 100_000))]
    pub top: u32,
}

/// Runs `propnet compile`.
pub fn run(args: CompileArgs) -> anyhow::Result<()> {
    let output = args
        .output
        .as_deref()
        .map(propnet_output::Output::create)
        .transpose()?;
    let (net, report) = super::load(&args.game, args.no_optimize)?;
    let text = match args.emit {
        Emit::Json => to_json(&net),
        Emit::Text => to_text(&net),
        Emit::Dot => to_dot(&net),
    };
    let stats = args.stats.then(|| stats_text(&args, &report)).transpose()?;
    match (output, &args.output) {
        (Some(file), Some(p)) => {
            file.finish(&text)?;
            let s = &report.stats;
            eprintln!(
                "{}: {} logic gates, {} latches, {} inputs, depth {}; compiled in {:.3} s -> {}",
                report.path,
                s.and + s.or + s.not,
                s.latches,
                s.inputs,
                s.depth,
                report.total_time().as_secs_f64(),
                p.display()
            );
            if let Some(stats) = stats {
                write_stdout(&stats)?;
            }
        }
        _ => {
            // A terminal or a line-reading consumer expects the last line ended.
            write_stdout(&text)?;
            if !text.ends_with('\n') {
                write_stdout("\n")?;
            }
            if let Some(stats) = stats {
                eprint!("{stats}");
            }
        }
    }
    Ok(())
}

/// The `--stats` report: times, sizes before and after optimization, and the relations
/// that contribute most gates and latches.
fn stats_text(args: &CompileArgs, r: &CompileReport) -> anyhow::Result<String> {
    let mut out = String::new();
    let logic = |s: &propnet_netlist::NetlistStats| s.and + s.or + s.not;
    writeln!(
        out,
        "{}: parse {:.3} s, ground {:.3} s, optimize {:.3} s",
        r.path,
        r.parse_time.as_secs_f64(),
        r.ground_time.as_secs_f64(),
        r.optimize_time.as_secs_f64()
    )?;
    writeln!(
        out,
        "netlist: {} logic gates, {} edges, {} latches, {} inputs, depth {} (grounded: {} gates, {} edges, {} latches)",
        logic(&r.stats),
        r.stats.edges,
        r.stats.latches,
        r.stats.inputs,
        r.stats.depth,
        logic(&r.grounded),
        r.grounded.edges,
        r.grounded.latches
    )?;
    if let Some(passes) = &r.passes {
        write!(
            out,
            "optimize: {} rounds{}; by pass:",
            passes.iterations,
            if passes.converged {
                ""
            } else {
                " (not converged)"
            }
        )?;
        for (name, time, runs) in passes.time_by_pass() {
            write!(out, " {name} {:.3} s ({runs}×),", time.as_secs_f64())?;
        }
        out.pop();
        out.push('\n');
    }
    let Some(g) = &r.grounding else {
        return Ok(out);
    };
    writeln!(
        out,
        "grounding: {} atoms, {} rule instances, {} relations ({} static, {} of them per call: {} calls, {} answers; {} demand), tables {} MiB; find reachable atoms {:.3} s, build {:.3} s",
        g.atoms,
        g.instances,
        g.relations,
        g.static_relations,
        g.on_demand_relations,
        g.calls,
        g.answers,
        g.demand_relations,
        g.table_bytes >> 20,
        g.ground_time.as_secs_f64(),
        g.build_time.as_secs_f64()
    )?;
    writeln!(
        out,
        "grounding memory: peak {} KiB counted by the budget; {:.1} B per ground atom, {:.1} B per rule instance, {:.1} B per table entry ({} entries: terms, atoms, answers, index postings)",
        g.peak_bytes >> 10,
        g.bytes_per_atom(),
        g.bytes_per_instance(),
        g.bytes_per_entry(),
        g.table_entries
    )?;
    let t = &g.tables;
    let mib = |b: usize| b as f64 / (1 << 20) as f64;
    writeln!(
        out,
        "grounding tables at the end: atoms {:.1} MiB, terms {:.1} MiB, atom lists {:.1} MiB, indexes {:.1} MiB, per-call answers {:.1} MiB; gates made {} ({} read by no output, removed)",
        mib(t.atoms),
        mib(t.terms),
        mib(t.atom_lists),
        mib(t.indexes),
        mib(t.on_demand),
        g.gates_made,
        g.gates_unread,
    )?;
    let source = r.source.as_ref();
    if !g.filter_diagrams.is_empty() {
        write!(out, "static filters compiled to decision diagrams:")?;
        for d in &g.filter_diagrams {
            let at = source.map_or(String::new(), |src| {
                format!(" at {}", src.loc(d.span.start))
            });
            write!(
                out,
                " {}{at} ({} levels, {} edges for {:.0} assignments),",
                d.head, d.levels, d.edges, d.paths
            )?;
        }
        out.pop();
        out.push('\n');
    }
    writeln!(
        out,
        "relations by gates (grounded netlist, before optimization):"
    )?;
    writeln!(
        out,
        "{:>10} {:>10} {:>10} {:>10}  relation",
        "gates", "edges", "instances", "atoms"
    )?;
    let gates = g.by_relation.iter().filter(|s| s.gates > 0);
    for s in gates.take(args.top as usize) {
        let at = match (&source, s.span) {
            (Some(src), Some(span)) => format!("  ({})", src.loc(span.start)),
            _ => String::new(),
        };
        writeln!(
            out,
            "{:>10} {:>10} {:>10} {:>10}  {}{at}",
            s.gates, s.edges, s.instances, s.atoms, s.relation
        )?;
    }
    let mut by_atoms: Vec<_> = g.by_relation.iter().filter(|s| s.latches == 0).collect();
    by_atoms.sort_by_key(|s| std::cmp::Reverse(s.atoms));
    writeln!(
        out,
        "relations by atoms (the grounder's tables; static relations included):"
    )?;
    for s in by_atoms.iter().take(args.top as usize) {
        writeln!(out, "{:>10}  {}", s.atoms, s.relation)?;
    }
    let mut latches: Vec<_> = g.by_relation.iter().filter(|s| s.latches > 0).collect();
    latches.sort_by_key(|l| std::cmp::Reverse(l.latches));
    let groups: Vec<String> = latches
        .iter()
        .take(args.top as usize)
        .map(|s| format!("{} {}", s.relation.trim_start_matches("true "), s.latches))
        .collect();
    writeln!(out, "latches by fluent: {}", groups.join(", "))?;
    Ok(out)
}

/// Writes `text` to standard output; a failed write (a full disk, a closed pipe) is an
/// error, not a panic.
fn write_stdout(text: &str) -> anyhow::Result<()> {
    super::out::write(format_args!("{text}"), false)
}
