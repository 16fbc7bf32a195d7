//! Hash indexes over one relation's derived atoms, keyed by the ground subterms at fixed
//! argument paths and kept up to date incrementally as the relation grows.

use super::terms::{AtomArena, AtomId, GTerm, RelId, TermArena, TermId};
use crate::gdl::Sym;
use rustc_hash::FxHashMap;

/// Path from an atom's argument list down into a subterm: argument index, then child
/// indexes.
pub type Path = Vec<u8>;

/// Which atoms of a relation an index covers and what its key is.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct IndexSpec {
    /// The relation.
    pub rel: RelId,
    /// Only atoms with this function symbol and arity at this path are indexed.
    pub functors: Vec<(Path, Sym, u32)>,
    /// The key: the ground subterms at these paths.
    pub grounds: Vec<Path>,
}

/// A hash index over one relation's atoms, kept up to date incrementally.
#[derive(Default)]
pub struct Index {
    /// How many atoms of the relation's list are already indexed.
    pub absorbed: usize,
    /// Key → atoms.
    pub map: FxHashMap<Box<[TermId]>, Vec<AtomId>>,
}

/// The subterm of an atom's arguments at a path, if the structure has it.
fn at_path(terms: &TermArena, args: &[TermId], path: &[u8]) -> Option<TermId> {
    let mut t = *args.get(path[0] as usize)?;
    for &p in &path[1..] {
        match terms.get(t) {
            GTerm::Fn(_, kids) => t = *kids.get(p as usize)?,
            GTerm::Const(_) => return None,
        }
    }
    Some(t)
}

impl Index {
    /// Adds the atoms `list[absorbed..]` to the index.
    pub fn catch_up(
        &mut self,
        spec: &IndexSpec,
        list: &[AtomId],
        atoms: &AtomArena,
        terms: &TermArena,
    ) {
        let mut key = Vec::with_capacity(spec.grounds.len());
        'atoms: for &a in &list[self.absorbed..] {
            let args = atoms.args(a);
            for (path, f, n) in &spec.functors {
                match at_path(terms, args, path).map(|t| terms.get(t)) {
                    Some(GTerm::Fn(g, kids)) if g == f && kids.len() as u32 == *n => {}
                    _ => continue 'atoms,
                }
            }
            key.clear();
            for path in &spec.grounds {
                match at_path(terms, args, path) {
                    Some(t) => key.push(t),
                    None => continue 'atoms,
                }
            }
            self.map.entry(key.as_slice().into()).or_default().push(a);
        }
        self.absorbed = list.len();
    }
}
