//! The ground-term arena shared by the grounder and the reference interpreter:
//! hash-consed, so two ids are equal iff the terms are equal, stored flat (one tag and
//! the child ids per term, see [`crate::intern`]), with each term's nesting depth.
//!
//! Depth: a constant has depth 0, `(f a)` depth 1, `(f (g a))` depth 2, `(f)` depth 1.

use crate::gdl::{Sym, Symbols};
use crate::intern::Tuples;

/// Handle of a ground term in a [`TermArena`]. Two ids are equal iff the terms are equal.
#[derive(
    Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, bytemuck::Pod, bytemuck::Zeroable,
)]
#[repr(transparent)]
pub struct TermId(pub u32);

/// A ground term as seen through the arena: its children are ids.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TermRef<'a> {
    /// A constant (numbers included).
    Const(Sym),
    /// A function term `(f a1 … an)`; `n` may be 0, and `(f)` differs from `f`.
    Fn(Sym, &'a [TermId]),
}

/// Hash-consed ground terms with their depths.
#[derive(Clone, Debug, Default)]
pub struct TermArena {
    tuples: Tuples,
    depth: Vec<u32>,
    /// The depth of the deepest term ever interned ([`Self::truncate`] keeps it).
    deepest: u32,
}

/// `u32` items viewed as term ids (`TermId` is a transparent `u32`).
fn ids(items: &[u32]) -> &[TermId] {
    bytemuck::cast_slice(items)
}

fn tag(sym: Sym, is_fn: bool) -> u32 {
    sym.0 << 1 | u32::from(is_fn)
}

fn raw(args: &[TermId]) -> &[u32] {
    bytemuck::cast_slice(args)
}

impl TermArena {
    /// An empty arena.
    pub fn new() -> Self {
        Self::default()
    }

    /// Interns the constant `s`.
    pub fn constant(&mut self, s: Sym) -> TermId {
        self.intern(s, false, &[])
    }

    /// Interns the function term `(f args…)` (the arguments must be ids of this arena).
    pub fn function(&mut self, f: Sym, args: &[TermId]) -> TermId {
        self.intern(f, true, args)
    }

    fn intern(&mut self, sym: Sym, is_fn: bool, args: &[TermId]) -> TermId {
        let (id, new) = self.tuples.intern(tag(sym, is_fn), raw(args));
        if new {
            let d = if is_fn {
                1 + args.iter().map(|a| self.depth(*a)).max().unwrap_or(0)
            } else {
                0
            };
            self.depth.push(d);
            self.deepest = self.deepest.max(d);
        }
        TermId(id)
    }

    /// The id of the constant `s` if it is interned (nothing is added).
    pub fn find_constant(&self, s: Sym) -> Option<TermId> {
        self.tuples.find(tag(s, false), &[]).map(TermId)
    }

    /// The id of `(f args…)` if it is interned (nothing is added).
    pub fn find_function(&self, f: Sym, args: &[TermId]) -> Option<TermId> {
        self.tuples.find(tag(f, true), raw(args)).map(TermId)
    }

    /// The term behind an id.
    pub fn get(&self, id: TermId) -> TermRef<'_> {
        let t = self.tuples.tag(id.0);
        let sym = Sym(t >> 1);
        if t & 1 == 1 {
            TermRef::Fn(sym, ids(self.tuples.items(id.0)))
        } else {
            TermRef::Const(sym)
        }
    }

    /// The arguments of a function term (empty for a constant).
    pub fn args(&self, id: TermId) -> &[TermId] {
        ids(self.tuples.items(id.0))
    }

    /// Nesting depth of a term (0 for a constant).
    pub fn depth(&self, id: TermId) -> u32 {
        self.depth[id.0 as usize]
    }

    /// The nesting depth of the deepest term ever interned, those a [`Self::truncate`]
    /// dropped included (0 when there were none): how deep the work that used the arena
    /// went, even where it was rolled back.
    pub fn deepest(&self) -> u32 {
        self.deepest
    }

    /// Number of interned terms.
    pub fn len(&self) -> usize {
        self.depth.len()
    }

    /// True when the arena is empty.
    pub fn is_empty(&self) -> bool {
        self.tuples.is_empty()
    }

    /// Forgets every term with id `len` or higher (undoes interning back to a mark; ids
    /// of forgotten terms must no longer be used).
    pub fn truncate(&mut self, len: usize) {
        self.tuples.truncate(len);
        self.depth.truncate(len);
    }

    /// Bytes held on the heap.
    pub fn heap_bytes(&self) -> usize {
        self.tuples.heap_bytes() + 4 * self.depth.capacity()
    }

    /// Canonical (oracle) text of a term: constants as-is, `(f a b)` with single spaces,
    /// `(f)` for a zero-argument function term.
    pub fn text(&self, syms: &Symbols, id: TermId) -> String {
        let mut s = String::new();
        self.write_text(syms, id, &mut s);
        s
    }

    /// Appends the canonical text of `id` to `out`.
    pub fn write_text(&self, syms: &Symbols, id: TermId, out: &mut String) {
        match self.get(id) {
            TermRef::Const(c) => out.push_str(syms.name(c)),
            TermRef::Fn(f, args) => {
                out.push('(');
                out.push_str(syms.name(f));
                for &a in args {
                    out.push(' ');
                    self.write_text(syms, a, out);
                }
                out.push(')');
            }
        }
    }

    /// Canonical text of a term cut to about `max` bytes with `…` (for error messages).
    pub fn text_cut(&self, syms: &Symbols, id: TermId, max: usize) -> String {
        let mut s = self.text(syms, id);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash_consing_depth_and_text() {
        let mut syms = Symbols::default();
        let (f, a, b) = (syms.intern("f"), syms.intern("a"), syms.intern("b"));
        let mut t = TermArena::new();
        let ia = t.constant(a);
        let ib = t.constant(b);
        let f1 = t.function(f, &[ia, ib]);
        let f2 = t.function(f, &[ia, ib]);
        let f0 = t.function(f, &[]);
        let fc = t.constant(f);
        assert_eq!(f1, f2);
        assert_ne!(f0, fc);
        assert_eq!(t.text(&syms, f1), "(f a b)");
        assert_eq!(t.text(&syms, f0), "(f)");
        assert_eq!(t.text(&syms, fc), "f");
        assert_eq!(t.get(f1), TermRef::Fn(f, &[ia, ib]));
        assert_eq!(t.get(ia), TermRef::Const(a));
        let nested = t.function(f, &[f1]);
        assert_eq!((t.depth(nested), t.depth(f0), t.depth(ia)), (2, 1, 0));
        assert_eq!(t.find_function(f, &[ib, ia]), None);
        assert_eq!(t.find_constant(b), Some(ib));
        assert_eq!(t.text_cut(&syms, nested, 4), "(f (…");
        t.truncate(2);
        assert_eq!((t.len(), t.find_function(f, &[ia, ib])), (2, None));
    }
}
