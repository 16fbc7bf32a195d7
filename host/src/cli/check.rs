//! `propnet check GAME.kif`: load and check a game, ground it as `compile` would (so that
//! `check` gives the verdict every compiling command gives), print a summary and the
//! warnings.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::Result;
use propnet_compiler::gdl::Game;
use propnet_netlist::factors::find_factors;
use propnet_netlist::Netlist;
use propnet_runtime::machine::NetMachine;
use propnet_runtime::pipeline::{compile_game, PipelineOptions};

/// Arguments of `propnet check`.
#[derive(clap::Args)]
pub struct CheckArgs {
    /// The GDL game (KIF) to check.
    pub game: PathBuf,
    /// Also list the static and dynamic relations by name.
    #[arg(long)]
    pub relations: bool,
    /// Fail (exit non-zero) if there are warnings.
    #[arg(long)]
    pub deny_warnings: bool,
    /// Check the rules only, without grounding them: faster on big games, but a game the
    /// grounder rejects (a goal value out of 0..=100 from a static relation, a grounding
    /// budget exceeded) then passes `check` and fails `compile`, `run` and the others.
    #[arg(long, conflicts_with = "factors")]
    pub no_ground: bool,
    /// Also compile (optimize) the game and list its factors: independent subgames, the
    /// latches they share, and the moves that touch several or none (see
    /// `propnet_netlist::factors`).
    #[arg(long)]
    pub factors: bool,
}

/// Loads the game; prints roles, relation and rule counts, static/dynamic relations and
/// warnings. Errors (unreadable file, syntax, invalid GDL) are returned located.
pub fn run(args: CheckArgs) -> Result<()> {
    let game = propnet_runtime::pipeline::load_rules(&args.game, "check")?;
    let (grounded, initial, net) = if args.no_ground {
        (
            "grounding: not checked (--no-ground)".to_string(),
            Vec::new(),
            None,
        )
    } else {
        let (text, warnings, net) = ground(&game, args.factors)?;
        (text, warnings, Some(net))
    };
    let mut warnings: Vec<String> = game.warnings.iter().map(ToString::to_string).collect();
    warnings.extend(initial);
    out!("{}", summary(&game, args.relations, warnings.len()))?;
    outln!("{grounded}")?;
    for w in &warnings {
        outln!("{w}")?;
    }
    if let Some(net) = net.filter(|_| args.factors) {
        out!("{}", super::factors::describe(&net, &find_factors(&net)))?;
    }
    if args.deny_warnings && !warnings.is_empty() {
        let n = warnings.len() as u64;
        anyhow::bail!("{} and --deny-warnings", super::plural(n, "warning"));
    }
    Ok(())
}

/// Grounds `game` as `compile` does (same budget flags; the optimization passes only when
/// `optimize`, which `--factors` asks for) and says how big its netlist is, with the
/// warnings about its initial state ([`initial_state_warnings`]) and the netlist; the
/// grounder's errors are `compile`'s, located.
fn ground(game: &Game, optimize: bool) -> Result<(String, Vec<String>, Netlist)> {
    let (ground, bar) = super::ground::options();
    let opts = PipelineOptions {
        no_optimize: !optimize,
        ground,
        ..Default::default()
    };
    let compiled = compile_game(game, Duration::ZERO, &opts);
    bar.finish_and_clear();
    let (net, report) = compiled?;
    let g = &report.grounded;
    let warnings = initial_state_warnings(&net, game.source.name());
    let mut text = format!(
        "grounding: ok in {:.3} s; {} logic gates, {} latches, {} inputs before optimization \
         (`propnet compile --stats` optimizes and says more)",
        report.ground_time.as_secs_f64(),
        g.and + g.or + g.not,
        g.latches,
        g.inputs
    );
    if let Some(e) = report.explored() {
        text.push_str(&format!("\ngrounding: {}", e.note()));
    }
    Ok((text, warnings, net.into_netlist()))
}

/// Warnings about the initial state of the grounded game `net` (of file `name`): it is
/// terminal (every playout has length 0), or a role has no legal move in it while it is
/// not terminal (every playout ends there, as an ill-formed game).
fn initial_state_warnings(net: &Netlist, name: &str) -> Vec<String> {
    let m = NetMachine::new(net);
    let s = m.initial_state();
    if m.is_terminal(&s) {
        return vec![format!(
            "{name}: warning: the initial state is terminal: every game ends before its first move"
        )];
    }
    let stuck: Vec<&str> = m
        .legal_moves(&s)
        .iter()
        .zip(&net.roles)
        .filter(|(l, _)| l.is_empty())
        .map(|(_, r)| r.name.as_str())
        .collect();
    match stuck.as_slice() {
        [] => Vec::new(),
        roles => vec![format!(
            "{name}: warning: in the initial state, which is not terminal, {} no legal move: \
             every game ends there (is a `legal` rule misspelled or its condition never true?)",
            match roles {
                [one] => format!("role {one} has"),
                many => format!("roles {} have", many.join(", ")),
            }
        )],
    }
}

/// The text summary of a loaded game.
fn summary(game: &Game, list_relations: bool, warnings: usize) -> String {
    use std::fmt::Write;
    let (p, info) = (&game.program, &game.info);
    let syms = &p.symbols;
    let mut out = String::new();
    let roles: Vec<&str> = p.roles.iter().map(|&r| syms.name(r)).collect();
    let _ = writeln!(out, "{}: ok", game.source.name());
    let _ = writeln!(out, "roles ({}): {}", roles.len(), roles.join(" "));
    let sentences: std::collections::BTreeSet<_> = p.rules.iter().map(|r| r.span.start).collect();
    let facts = p.rules.iter().filter(|r| r.body.is_empty()).count();
    let _ = writeln!(
        out,
        "rules: {} ({} facts, {} rules after `or` expansion) from {} sentences",
        p.rules.len(),
        facts,
        p.rules.len() - facts,
        sentences.len()
    );
    let ids = || (0..info.relations.len()).map(|i| propnet_compiler::gdl::RelId(i as u32));
    let (stat, dynm): (Vec<_>, Vec<_>) = ids().partition(|&r| info.is_static(r));
    let recursive = ids().filter(|r| info.recursive[r.0 as usize]).count();
    let max_stratum = info.stratum.iter().max().copied().unwrap_or(0);
    let _ = writeln!(
        out,
        "relations: {} ({} static, {} dynamic, {} recursive); negation: {}",
        info.relations.len(),
        stat.len(),
        dynm.len(),
        recursive,
        if info.stratified {
            match max_stratum {
                0 => "stratified, 1 stratum".to_string(),
                m => format!("stratified, {} strata", m + 1),
            }
        } else {
            "locally stratified (rule strata)".to_string()
        }
    );
    if list_relations {
        for (label, set) in [("static", &stat), ("dynamic", &dynm)] {
            let mut names: Vec<String> = set.iter().map(|&r| info.text(syms, r)).collect();
            names.sort();
            let _ = writeln!(out, "{label}: {}", names.join(" "));
        }
    }
    let _ = writeln!(out, "warnings: {warnings}");
    out
}
