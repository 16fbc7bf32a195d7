//! The grounder's tables: ground terms ([`TermArena`]), derived atoms ([`AtomArena`], a
//! relation and its argument ids, hash-consed in flat arrays), each relation's atoms in
//! derivation order, and hash indexes over them ([`Index`]) keyed by the ground subterms
//! at fixed argument paths, kept up to date incrementally. Nothing here is a heap object
//! per atom: atoms, index keys and postings all live in shared vectors.

use crate::gdl::{RelId, Sym};
use crate::intern::{grow, Tuples};
use crate::terms::{TermArena, TermId, TermRef};

/// Handle of a ground atom in an [`AtomArena`].
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct AtomId(pub u32);

impl AtomId {
    /// The arena index as `usize`.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// The derived ground atoms. An atom is interned only when it is derived, so membership
/// means "derived" (reachable, for dynamic relations).
#[derive(Default)]
pub struct AtomArena {
    tuples: Tuples,
}

fn raw(args: &[TermId]) -> &[u32] {
    bytemuck::cast_slice(args)
}

impl AtomArena {
    /// Interns an atom; returns its id and whether it is new.
    pub fn intern(&mut self, rel: RelId, args: &[TermId]) -> (AtomId, bool) {
        let (id, new) = self.tuples.intern(rel.0, raw(args));
        (AtomId(id), new)
    }

    /// The id of an atom if it was derived.
    pub fn find(&self, rel: RelId, args: &[TermId]) -> Option<AtomId> {
        self.tuples.find(rel.0, raw(args)).map(AtomId)
    }

    /// Relation of an atom.
    pub fn rel(&self, a: AtomId) -> RelId {
        RelId(self.tuples.tag(a.0))
    }

    /// Arguments of an atom.
    pub fn args(&self, a: AtomId) -> &[TermId] {
        bytemuck::cast_slice(self.tuples.items(a.0))
    }

    /// Number of atoms.
    pub fn len(&self) -> usize {
        self.tuples.len()
    }

    /// Forgets every atom with id `len` or higher.
    pub fn truncate(&mut self, len: usize) {
        self.tuples.truncate(len);
    }

    /// Bytes held on the heap.
    pub fn heap_bytes(&self) -> usize {
        self.tuples.heap_bytes()
    }
}

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

const END: u32 = u32::MAX;

/// A hash index over one relation's atoms: key → the atoms with that key, in
/// derivation order (a linked list through flat arrays per key).
#[derive(Default)]
pub struct Index {
    /// How many atoms of the relation's list are already indexed.
    pub absorbed: usize,
    keys: Tuples,
    /// Per key: first and last posting.
    first: Vec<u32>,
    last: Vec<u32>,
    /// Per posting: its atom and the next posting of the same key.
    atom: Vec<AtomId>,
    next: Vec<u32>,
}

/// The subterm of an atom's arguments at a path, if the structure has it.
fn at_path(terms: &TermArena, args: &[TermId], path: &[u8]) -> Option<TermId> {
    let mut t = *args.get(path[0] as usize)?;
    for &p in &path[1..] {
        t = *terms.args(t).get(p as usize)?;
    }
    Some(t)
}

/// The atoms of one key of an [`Index`], in derivation order.
#[derive(Clone)]
pub struct Postings<'a> {
    index: &'a Index,
    at: u32,
}

impl Iterator for Postings<'_> {
    type Item = AtomId;
    fn next(&mut self) -> Option<AtomId> {
        if self.at == END {
            return None;
        }
        let p = self.at as usize;
        self.at = self.index.next[p];
        Some(self.index.atom[p])
    }
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
        let mut key: Vec<u32> = Vec::with_capacity(spec.grounds.len());
        'atoms: for &a in &list[self.absorbed..] {
            let args = atoms.args(a);
            for (path, f, n) in &spec.functors {
                match at_path(terms, args, path).map(|t| terms.get(t)) {
                    Some(TermRef::Fn(g, kids)) if g == *f && kids.len() as u32 == *n => {}
                    _ => continue 'atoms,
                }
            }
            key.clear();
            for path in &spec.grounds {
                match at_path(terms, args, path) {
                    Some(t) => key.push(t.0),
                    None => continue 'atoms,
                }
            }
            self.push(&key, a);
        }
        self.absorbed = list.len();
    }

    fn push(&mut self, key: &[u32], a: AtomId) {
        let (k, new) = self.keys.intern(0, key);
        let p = self.atom.len() as u32;
        grow(&mut self.atom, 1);
        grow(&mut self.next, 1);
        self.atom.push(a);
        self.next.push(END);
        if new {
            grow(&mut self.first, 1);
            grow(&mut self.last, 1);
            self.first.push(p);
            self.last.push(p);
        } else {
            let k = k as usize;
            self.next[self.last[k] as usize] = p;
            self.last[k] = p;
        }
    }

    /// The atoms whose key is `key`.
    pub fn get(&self, key: &[TermId]) -> Postings<'_> {
        let at = match self.keys.find(0, raw(key)) {
            Some(k) => self.first[k as usize],
            None => END,
        };
        Postings { index: self, at }
    }

    /// Atoms indexed (one posting each).
    pub fn postings(&self) -> usize {
        self.atom.len()
    }

    /// Empties the index (to be caught up again from the start).
    pub fn clear(&mut self) {
        *self = Index::default();
    }

    /// Bytes held on the heap.
    pub fn heap_bytes(&self) -> usize {
        self.keys.heap_bytes()
            + 4 * (self.first.capacity()
                + self.last.capacity()
                + self.atom.capacity()
                + self.next.capacity())
    }
}

/// Terms, atoms and per-relation atom lists: what the joins read.
#[derive(Default)]
pub struct Store {
    /// Ground terms.
    pub terms: TermArena,
    /// Derived atoms (exact ones for materialized static relations, reachable ones for
    /// dynamic and demand relations).
    pub atoms: AtomArena,
    /// Per relation: its atoms in derivation order.
    pub rel_atoms: Vec<Vec<AtomId>>,
    /// Per atom: the rule that first derived it (for messages and statistics).
    pub origin: Vec<u32>,
    /// Sum of the capacities of `rel_atoms`, kept by [`Store::add`] (the only place they
    /// grow): summing them at every memory check is quadratic in the relations.
    rel_capacity: usize,
}

/// A point to roll a [`Store`] back to.
#[derive(Copy, Clone, Debug)]
pub struct Mark {
    terms: usize,
    atoms: usize,
}

impl Store {
    /// An empty store for `nrels` relations.
    pub fn new(nrels: usize) -> Self {
        Store {
            rel_atoms: vec![Vec::new(); nrels],
            ..Store::default()
        }
    }

    /// Adds an atom (derived by rule `rule`); returns its id and whether it is new.
    pub fn add(&mut self, rel: RelId, args: &[TermId], rule: usize) -> (AtomId, bool) {
        let (id, new) = self.atoms.intern(rel, args);
        if new {
            let list = &mut self.rel_atoms[rel.0 as usize];
            let before = list.capacity();
            grow(list, 1);
            list.push(id);
            self.rel_capacity += list.capacity() - before;
            grow(&mut self.origin, 1);
            self.origin.push(rule as u32);
        }
        (id, new)
    }

    /// The current sizes, to roll back to with [`Store::rollback`].
    pub fn mark(&self) -> Mark {
        Mark {
            terms: self.terms.len(),
            atoms: self.atoms.len(),
        }
    }

    /// Forgets every term and atom made since `mark`; `rels` are the only relations that
    /// gained atoms since then.
    pub fn rollback(&mut self, mark: Mark, rels: &[RelId]) {
        for r in rels {
            let list = &mut self.rel_atoms[r.0 as usize];
            let keep = list.iter().take_while(|a| a.index() < mark.atoms).count();
            list.truncate(keep);
        }
        self.atoms.truncate(mark.atoms);
        self.origin.truncate(mark.atoms);
        self.terms.truncate(mark.terms);
    }

    /// Bytes held on the heap.
    pub fn heap_bytes(&self) -> usize {
        self.terms.heap_bytes() + self.atoms.heap_bytes() + self.lists_bytes()
    }

    /// Bytes held by the per-relation atom lists and the per-atom origins.
    pub fn lists_bytes(&self) -> usize {
        4 * (self.origin.capacity() + self.rel_capacity)
    }
}
