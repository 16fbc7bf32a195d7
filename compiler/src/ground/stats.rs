//! Which relations the netlist's gates and latches come from (`propnet compile --stats`):
//! every gate is attributed to the relation whose atoms were being built when it was
//! first made (shared gates count once, for their first maker), and only gates that some
//! output needs are counted; latches are grouped by the fluent's function symbol.

use super::build::BuildCounts;
use super::fixpoint::Grounder;
use crate::gdl::{RelId, Span};
use crate::terms::TermRef;
use propnet_netlist::{Gate, Netlist};

/// What one relation contributed to the netlist before optimization.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RelationStats {
    /// `name/arity`; auxiliary relations of rule splitting are named `split#N/arity`,
    /// latch groups `true (f/n)` after the fluent's function symbol.
    pub relation: String,
    /// The first rule defining it (for auxiliary relations: the rule they were cut
    /// from), when it is one of the game's.
    pub span: Option<Span>,
    /// Its reachable atoms.
    pub atoms: usize,
    /// Rule instances enumerated for it.
    pub instances: usize,
    /// Logic gates (`And`/`Or`/`Not`) it made that an output needs.
    pub gates: usize,
    /// Operands of those gates.
    pub edges: usize,
    /// Latches (for a latch group).
    pub latches: usize,
}

/// Per-relation statistics of a netlist just built (before dead gates are removed): every
/// relation that made gates or holds atoms, and the latch groups.
pub fn by_relation(g: &Grounder<'_>, net: &Netlist, counts: &BuildCounts) -> Vec<RelationStats> {
    let low = g.low;
    let mut live = vec![false; net.gates.len()];
    for l in &net.latches {
        live[l.next.index()] = true;
    }
    for r in &net.roles {
        r.legal.iter().for_each(|l| live[l.gate.index()] = true);
        r.goals.iter().for_each(|x| live[x.gate.index()] = true);
    }
    live[net.terminal.index()] = true;
    for i in (0..net.gates.len()).rev() {
        if live[i] {
            for o in net.gates[i].operands() {
                live[o.index()] = true;
            }
        }
    }
    let mut out: Vec<RelationStats> = (0..low.rels.len())
        .map(|r| RelationStats {
            relation: low.rels.text(&low.syms, RelId(r as u32)),
            span: low.rules_of[r]
                .iter()
                .map(|&k| low.rules[k].span)
                .find(|s| s.end > s.start),
            atoms: g.store.rel_atoms[r].len(),
            instances: counts.rel_instances.get(r).copied().unwrap_or(0),
            ..RelationStats::default()
        })
        .collect();
    for (i, gate) in net.gates.iter().enumerate() {
        let owner = counts.owner.get(i).copied().unwrap_or(u32::MAX) as usize;
        let logic = matches!(gate, Gate::And(_) | Gate::Or(_) | Gate::Not(_));
        if live[i] && logic && owner < out.len() {
            out[owner].gates += 1;
            out[owner].edges += gate.operands().len();
        }
    }
    out.retain(|s| s.gates > 0 || s.atoms > 0);
    out.extend(latch_groups(g));
    out.sort_by(|a, b| (b.gates, b.latches, &a.relation).cmp(&(a.gates, a.latches, &b.relation)));
    out
}

/// Latches grouped by the fluent's function symbol (`true (cell/3)`).
fn latch_groups(g: &Grounder<'_>) -> Vec<RelationStats> {
    let low = g.low;
    let mut groups: Vec<RelationStats> = Vec::new();
    for &a in g.atoms_of(low.special.true_) {
        let f = g.store.atoms.args(a)[0];
        let name = match g.store.terms.get(f) {
            TermRef::Const(s) => format!("true ({})", low.syms.name(s)),
            TermRef::Fn(s, args) => format!("true ({}/{})", low.syms.name(s), args.len()),
        };
        match groups.iter_mut().find(|x| x.relation == name) {
            Some(x) => {
                x.latches += 1;
                x.atoms += 1;
            }
            None => groups.push(RelationStats {
                relation: name,
                latches: 1,
                atoms: 1,
                ..RelationStats::default()
            }),
        }
    }
    groups
}
