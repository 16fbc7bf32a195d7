//! Fact storage: per relation, the ground tuples (append-only rows plus a set) and the
//! hash indexes that the join plans asked for.

use super::plan::{IndexSpec, KeyPart, Registry};
use super::rules::RelId;
use crate::terms::{TermArena, TermId, TermRef};
use rustc_hash::{FxHashMap, FxHashSet};

/// A ground tuple (the arguments of a fact).
pub type Tuple = Box<[TermId]>;

/// One hash index over a relation's rows.
#[derive(Clone, Debug, Default)]
pub struct Index {
    /// Which parts make the key.
    pub spec: IndexSpec,
    /// Key → row numbers, increasing.
    pub map: FxHashMap<Vec<TermId>, Vec<u32>>,
}

/// The facts of one relation.
#[derive(Clone, Debug, Default)]
pub struct RelFacts {
    /// Rows in insertion order.
    pub rows: Vec<Tuple>,
    /// The same rows, for membership tests.
    pub set: FxHashSet<Tuple>,
    /// Indexes, numbered as in the [`Registry`].
    pub indexes: Vec<Index>,
}

impl RelFacts {
    /// Removes every fact (indexes stay declared).
    pub fn clear(&mut self) {
        self.rows.clear();
        self.set.clear();
        for ix in &mut self.indexes {
            ix.map.clear();
        }
    }
}

/// Facts of a set of relations (all relations have a slot; unused ones stay empty).
#[derive(Clone, Debug, Default)]
pub struct Store {
    /// Indexed by [`RelId`].
    pub rels: Vec<RelFacts>,
    /// Number of facts held.
    pub total: usize,
}

/// The key of `row` for `spec`, or `None` when the row does not have the spec's shape.
pub fn key_of(spec: &IndexSpec, row: &[TermId], terms: &TermArena) -> Option<Vec<TermId>> {
    let mut key = Vec::with_capacity(spec.parts.len());
    for part in &spec.parts {
        match *part {
            KeyPart::Whole(col) => key.push(row[col]),
            KeyPart::Shape { col, f, n } => match terms.get(row[col]) {
                TermRef::Fn(g, args) if g == f && args.len() == n => {}
                _ => return None,
            },
            KeyPart::Sub { col, f, n, j } => match terms.get(row[col]) {
                TermRef::Fn(g, args) if g == f && args.len() == n => key.push(args[j]),
                _ => return None,
            },
        }
    }
    Some(key)
}

impl Store {
    /// An empty store for `nrels` relations, with the indexes of `reg` declared for the
    /// relations where `member` holds.
    pub fn new(reg: &Registry, member: impl Fn(RelId) -> bool) -> Self {
        let rels = reg
            .specs
            .iter()
            .enumerate()
            .map(|(i, specs)| RelFacts {
                indexes: if member(RelId(i as u32)) {
                    specs
                        .iter()
                        .map(|s| Index {
                            spec: s.clone(),
                            map: FxHashMap::default(),
                        })
                        .collect()
                } else {
                    Vec::new()
                },
                ..RelFacts::default()
            })
            .collect();
        Store { rels, total: 0 }
    }

    /// The facts of `rel`.
    pub fn rel(&self, rel: RelId) -> &RelFacts {
        &self.rels[rel.0 as usize]
    }

    /// Adds a fact; returns false if it was already there.
    pub fn insert(&mut self, terms: &TermArena, rel: RelId, tuple: Tuple) -> bool {
        let rf = &mut self.rels[rel.0 as usize];
        if rf.set.contains(&tuple) {
            return false;
        }
        // Fewer than 2^32 rows: a store holds at most twice `Limits::max_facts`
        // (at most `MAX_FACTS`) before the budget check stops the evaluation.
        let row = rf.rows.len() as u32;
        for ix in &mut rf.indexes {
            if let Some(k) = key_of(&ix.spec, &tuple, terms) {
                ix.map.entry(k).or_default().push(row);
            }
        }
        rf.set.insert(tuple.clone());
        rf.rows.push(tuple);
        self.total += 1;
        true
    }

    /// Removes all facts of `rel`.
    pub fn clear_rel(&mut self, rel: RelId) {
        let rf = &mut self.rels[rel.0 as usize];
        self.total -= rf.rows.len();
        rf.clear();
    }
}
