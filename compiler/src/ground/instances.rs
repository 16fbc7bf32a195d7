//! Enumerates the ground rule instances of the dynamic relations over the reachable atoms:
//! static literals are evaluated away, dynamic ones become the instance's body.

use super::fixpoint::Grounder;
use super::join::{find_term, Mode, Stop};
use super::terms::AtomId;
use super::{BudgetKind, GroundError};
use rustc_hash::FxHashSet;

/// Ground rule instances, stored flat: instance `i` has head `heads[i]` and body literals
/// `lits[starts[i]..starts[i + 1]]`, each `atom << 1 | negated`, sorted and deduplicated.
#[derive(Default, Debug)]
pub struct Instances {
    /// Head atom per instance.
    pub heads: Vec<AtomId>,
    /// Body start per instance, plus one final entry.
    pub starts: Vec<u32>,
    /// Concatenated bodies.
    pub lits: Vec<u32>,
}

impl Instances {
    /// Number of instances.
    pub fn len(&self) -> usize {
        self.heads.len()
    }
    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.heads.is_empty()
    }
    /// Body of instance `i`.
    pub fn body(&self, i: usize) -> &[u32] {
        &self.lits[self.starts[i] as usize..self.starts[i + 1] as usize]
    }
}

/// Enumerates the instances of every non-synthetic rule whose head relation is dynamic
/// and needed by the outputs.
///
/// # Errors
/// [`GroundError::Budget`] when the instance count or the time budget is exceeded.
pub fn enumerate(g: &mut Grounder<'_>) -> Result<Instances, GroundError> {
    let low = g.low;
    let mut needed = vec![false; low.rels.len()];
    for comp in &low.rel_sccs {
        for r in comp {
            needed[r.0 as usize] = true;
        }
    }
    let mut out = Instances {
        starts: vec![0],
        ..Default::default()
    };
    let mut seen: FxHashSet<(AtomId, Box<[u32]>)> = FxHashSet::default();
    for (k, rule) in low.rules.iter().enumerate() {
        let h = rule.head.rel.0 as usize;
        if rule.synthetic || low.is_static[h] || !needed[h] {
            continue;
        }
        let steps = g.prepare(rule, None);
        let mut found: Vec<(Vec<Option<crate::ground::terms::TermId>>, Vec<u32>)> = Vec::new();
        let max = g.budget.max_instances;
        let total = out.len();
        let r = g.run_join(rule, &steps, Mode::Record, &mut |binds, body| {
            found.push((binds.to_vec(), body.to_vec()));
            total + found.len() <= max
        });
        match r {
            Err(Stop::Time) => return Err(g.time_error(rule.head.rel)),
            Err(Stop::Callback) => {
                let span = rule.span;
                return Err(g.budget_error(
                    BudgetKind::Instances,
                    rule.head.rel,
                    format!(
                        "rule at bytes {}..{} alone has more than {max} instances",
                        span.start, span.end
                    ),
                ));
            }
            Ok(()) => {}
        }
        let mut args = Vec::with_capacity(rule.head.args.len());
        for (n, (binds, mut body)) in found.into_iter().enumerate() {
            g.check_clock(n, rule.head.rel)?;
            args.clear();
            for p in &rule.head.args {
                args.push(
                    find_term(&g.terms, p, &binds).expect("the head was derived by the fixpoint"),
                );
            }
            let head = g
                .atoms
                .find(rule.head.rel, &args)
                .expect("the head atom is reachable");
            body.sort_unstable();
            body.dedup();
            // p and not p in one body: the instance can never fire.
            if body.windows(2).any(|w| w[0] >> 1 == w[1] >> 1) {
                continue;
            }
            if !seen.insert((head, body.as_slice().into())) {
                continue;
            }
            out.heads.push(head);
            out.lits.extend_from_slice(&body);
            out.starts.push(out.lits.len() as u32);
        }
        let _ = k;
    }
    Ok(out)
}
