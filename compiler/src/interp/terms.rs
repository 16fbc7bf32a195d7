//! Hash-consed table of ground terms: every distinct ground term gets one [`GroundTermId`].

use crate::gdl::{Sym, Symbols};
use rustc_hash::FxHashMap;

/// Handle of a ground term in a [`TermTable`]. Two ids are equal iff the terms are equal.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GroundTermId(pub u32);

/// A ground term whose arguments are already interned.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum GroundTerm {
    /// A constant (numbers included).
    Const(Sym),
    /// A function term `(f a1 … an)`, `n` may be 0.
    Fn(Sym, Box<[GroundTermId]>),
}

/// Arena of hash-consed ground terms with their nesting depth (a constant has depth 0,
/// `(f a)` depth 1, …).
#[derive(Clone, Debug, Default)]
pub struct TermTable {
    terms: Vec<GroundTerm>,
    depth: Vec<u32>,
    map: FxHashMap<GroundTerm, GroundTermId>,
}

impl TermTable {
    /// An empty table.
    pub fn new() -> Self {
        Self::default()
    }

    /// Interns `t` (whose arguments must be ids of this table) and returns its id.
    pub fn intern(&mut self, t: GroundTerm) -> GroundTermId {
        if let Some(&id) = self.map.get(&t) {
            return id;
        }
        let d = match &t {
            GroundTerm::Const(_) => 0,
            GroundTerm::Fn(_, args) => {
                1 + args
                    .iter()
                    .map(|a| self.depth[a.0 as usize])
                    .max()
                    .unwrap_or(0)
            }
        };
        let id = GroundTermId(self.terms.len() as u32);
        self.terms.push(t.clone());
        self.depth.push(d);
        self.map.insert(t, id);
        id
    }

    /// Interns the constant `s`.
    pub fn constant(&mut self, s: Sym) -> GroundTermId {
        self.intern(GroundTerm::Const(s))
    }

    /// The id of `t` if it is already in the table (nothing is added).
    pub fn lookup(&self, t: &GroundTerm) -> Option<GroundTermId> {
        self.map.get(t).copied()
    }

    /// The term behind an id.
    pub fn get(&self, id: GroundTermId) -> &GroundTerm {
        &self.terms[id.0 as usize]
    }

    /// Nesting depth of a term (0 for a constant).
    pub fn depth(&self, id: GroundTermId) -> u32 {
        self.depth[id.0 as usize]
    }

    /// Number of interned terms.
    pub fn len(&self) -> usize {
        self.terms.len()
    }

    /// True when the table is empty.
    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }

    /// Canonical (oracle) text of a term: constants as-is, `(f a b)` with single spaces,
    /// `(f)` for a zero-argument function term.
    pub fn text(&self, syms: &Symbols, id: GroundTermId) -> String {
        let mut s = String::new();
        self.write_text(syms, id, &mut s);
        s
    }

    /// Appends the canonical text of `id` to `out`.
    pub fn write_text(&self, syms: &Symbols, id: GroundTermId, out: &mut String) {
        match self.get(id) {
            GroundTerm::Const(c) => out.push_str(syms.name(*c)),
            GroundTerm::Fn(f, args) => {
                out.push('(');
                out.push_str(syms.name(*f));
                for &a in args.iter() {
                    out.push(' ');
                    self.write_text(syms, a, out);
                }
                out.push(')');
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash_consing_and_text() {
        let mut syms = Symbols::default();
        let (f, a, b) = (syms.intern("f"), syms.intern("a"), syms.intern("b"));
        let mut t = TermTable::new();
        let ia = t.constant(a);
        let ib = t.constant(b);
        let f1 = t.intern(GroundTerm::Fn(f, vec![ia, ib].into()));
        let f2 = t.intern(GroundTerm::Fn(f, vec![ia, ib].into()));
        let f0 = t.intern(GroundTerm::Fn(f, Box::new([])));
        let fc = t.constant(f);
        assert_eq!(f1, f2);
        assert_ne!(f0, fc);
        assert_eq!(t.text(&syms, f1), "(f a b)");
        assert_eq!(t.text(&syms, f0), "(f)");
        assert_eq!(t.text(&syms, fc), "f");
        let nested = t.intern(GroundTerm::Fn(f, vec![f1].into()));
        assert_eq!(t.depth(nested), 2);
        assert_eq!(t.depth(ia), 0);
        assert_eq!(t.lookup(&GroundTerm::Fn(f, vec![ib, ia].into())), None);
    }
}
