//! Interns ground terms and ground atoms into arenas with typed handles (hash-consed, so
//! equal terms have equal ids).

use crate::gdl::{Sym, Symbols};
use rustc_hash::FxHashMap;

/// Handle of a ground term in a [`TermArena`].
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TermId(pub u32);

/// Handle of a relation (name and arity) in [`Relations`](super::rules::Relations).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RelId(pub u32);

/// Handle of a ground atom in an [`AtomArena`].
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct AtomId(pub u32);

impl AtomId {
    /// The arena index as `usize`.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// A ground term whose children are already interned.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum GTerm {
    /// A constant.
    Const(Sym),
    /// A function term `(f t1 … tn)`.
    Fn(Sym, Box<[TermId]>),
}

/// Hash-consed ground terms; each term also records its nesting depth (constants: 1).
#[derive(Default)]
pub struct TermArena {
    terms: Vec<GTerm>,
    depth: Vec<u32>,
    map: FxHashMap<GTerm, TermId>,
}

impl TermArena {
    /// The id of `t`, interning it if new.
    pub fn intern(&mut self, t: GTerm) -> TermId {
        if let Some(&id) = self.map.get(&t) {
            return id;
        }
        let d = match &t {
            GTerm::Const(_) => 1,
            GTerm::Fn(_, args) => {
                1 + args
                    .iter()
                    .map(|a| self.depth[a.0 as usize])
                    .max()
                    .unwrap_or(0)
            }
        };
        let id = TermId(self.terms.len() as u32);
        self.terms.push(t.clone());
        self.depth.push(d);
        self.map.insert(t, id);
        id
    }

    /// The id of `t` if it was interned (never inserts).
    pub fn find(&self, t: &GTerm) -> Option<TermId> {
        self.map.get(t).copied()
    }

    /// The term behind an id.
    pub fn get(&self, id: TermId) -> &GTerm {
        &self.terms[id.0 as usize]
    }

    /// Nesting depth of a term (a constant has depth 1).
    pub fn depth(&self, id: TermId) -> u32 {
        self.depth[id.0 as usize]
    }

    /// Number of interned terms.
    pub fn len(&self) -> usize {
        self.terms.len()
    }

    /// True when no term is interned.
    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }

    /// Appends the canonical text of a term (the oracle's format) to `out`.
    pub fn write(&self, syms: &Symbols, out: &mut String, id: TermId) {
        match self.get(id) {
            GTerm::Const(s) => out.push_str(syms.name(*s)),
            GTerm::Fn(f, args) => {
                out.push('(');
                out.push_str(syms.name(*f));
                for &a in args.iter() {
                    out.push(' ');
                    self.write(syms, out, a);
                }
                out.push(')');
            }
        }
    }

    /// Canonical text of a term, cut to about `max` bytes with `…` (for error messages).
    pub fn text(&self, syms: &Symbols, id: TermId, max: usize) -> String {
        let mut s = String::new();
        self.write(syms, &mut s, id);
        if s.len() > max {
            let mut cut = max;
            while !s.is_char_boundary(cut) {
                cut -= 1;
            }
            s.truncate(cut);
            s.push('…');
        }
        s
    }
}

/// The derived ground atoms: a relation and its ground arguments. An atom is interned
/// only when it is derived, so membership in the arena means "reachable".
#[derive(Default)]
pub struct AtomArena {
    atoms: Vec<(RelId, Box<[TermId]>)>,
    /// Key: the relation id followed by the argument ids.
    map: FxHashMap<Box<[u32]>, AtomId>,
}

/// Calls `f` with `[rel, args…]` as one slice, on the stack for short atoms.
fn with_key<R>(rel: RelId, args: &[TermId], f: impl FnOnce(&[u32]) -> R) -> R {
    const SHORT: usize = 15;
    if args.len() <= SHORT {
        let mut buf = [0u32; SHORT + 1];
        buf[0] = rel.0;
        for (b, a) in buf[1..].iter_mut().zip(args) {
            *b = a.0;
        }
        f(&buf[..=args.len()])
    } else {
        let v: Vec<u32> = std::iter::once(rel.0)
            .chain(args.iter().map(|a| a.0))
            .collect();
        f(&v)
    }
}

impl AtomArena {
    /// Interns an atom; returns its id and whether it is new.
    pub fn intern(&mut self, rel: RelId, args: &[TermId]) -> (AtomId, bool) {
        if let Some(id) = self.find(rel, args) {
            return (id, false);
        }
        let id = AtomId(self.atoms.len() as u32);
        self.atoms.push((rel, args.into()));
        with_key(rel, args, |k| self.map.insert(k.into(), id));
        (id, true)
    }

    /// The id of an atom if it was derived.
    pub fn find(&self, rel: RelId, args: &[TermId]) -> Option<AtomId> {
        with_key(rel, args, |k| self.map.get(k).copied())
    }

    /// Relation of an atom.
    pub fn rel(&self, a: AtomId) -> RelId {
        self.atoms[a.index()].0
    }

    /// Arguments of an atom.
    pub fn args(&self, a: AtomId) -> &[TermId] {
        &self.atoms[a.index()].1
    }

    /// Number of atoms.
    pub fn len(&self) -> usize {
        self.atoms.len()
    }

    /// True when there are no atoms.
    pub fn is_empty(&self) -> bool {
        self.atoms.is_empty()
    }
}
