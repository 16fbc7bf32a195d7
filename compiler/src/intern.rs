//! A hash-consed store of tuples `(tag, [u32])` in flat arrays: every distinct tuple gets
//! one dense `u32` id, and no tuple is a heap object of its own (one tag, one offset and
//! its items in shared vectors, one `u32` in the hash table). Ground terms
//! ([`crate::terms::TermArena`]) and the grounder's atoms are such tuples.

use hashbrown::HashTable;
use std::hash::Hasher;

/// Hash-consed `(tag, items)` tuples with dense ids in insertion order.
#[derive(Clone, Debug)]
pub struct Tuples {
    tags: Vec<u32>,
    /// `starts[i]..starts[i + 1]` are the items of tuple `i`.
    starts: Vec<u32>,
    items: Vec<u32>,
    /// Tuple ids (5 bytes a slot with the control byte). Growing the table hashes the
    /// stored tuples again instead of keeping each hash: a third less memory for the
    /// largest table of a grounding, the atoms'.
    table: HashTable<u32>,
}

impl Default for Tuples {
    fn default() -> Self {
        Tuples {
            tags: Vec::new(),
            starts: vec![0],
            items: Vec::new(),
            table: HashTable::new(),
        }
    }
}

/// The hash of a tuple.
fn hash_of(tag: u32, items: &[u32]) -> u64 {
    let mut h = rustc_hash::FxHasher::default();
    h.write_u32(tag);
    h.write_usize(items.len());
    for &i in items {
        h.write_u32(i);
    }
    h.finish()
}

/// The items of tuple `i` in the flat arrays.
fn items_at<'a>(starts: &[u32], all: &'a [u32], i: usize) -> &'a [u32] {
    &all[starts[i] as usize..starts[i + 1] as usize]
}

/// Makes room for `n` more items in `v`, growing it by a quarter (not doubling, as
/// `Vec` does): the arrays of a million-atom game are the grounder's largest, and
/// doubling leaves up to half of them unused. Still amortized O(1) per item.
pub fn grow<T>(v: &mut Vec<T>, n: usize) {
    if v.capacity() - v.len() < n {
        v.reserve_exact(n.max(v.len() / 4).max(64));
    }
}

impl Tuples {
    /// The id of `(tag, items)`, and whether it is new.
    ///
    /// # Panics
    /// When the store would exceed `u32::MAX` tuples or items (callers bound their work
    /// far below that).
    pub fn intern(&mut self, tag: u32, items: &[u32]) -> (u32, bool) {
        let hash = hash_of(tag, items);
        let Tuples {
            tags,
            starts,
            items: all,
            table,
        } = self;
        let eq = |&i: &u32| {
            let i = i as usize;
            tags[i] == tag && items_at(starts, all, i) == items
        };
        if let Some(&id) = table.find(hash, eq) {
            return (id, false);
        }
        let id = u32::try_from(tags.len()).expect("fewer than 2^32 tuples");
        grow(tags, 1);
        grow(starts, 1);
        grow(all, items.len());
        tags.push(tag);
        all.extend_from_slice(items);
        starts.push(u32::try_from(all.len()).expect("fewer than 2^32 tuple items"));
        let rehash = |&i: &u32| hash_of(tags[i as usize], items_at(starts, all, i as usize));
        table.insert_unique(hash, id, rehash);
        (id, true)
    }

    /// The id of `(tag, items)` if it is stored.
    pub fn find(&self, tag: u32, items: &[u32]) -> Option<u32> {
        self.table
            .find(hash_of(tag, items), |&id| {
                self.tag(id) == tag && self.items(id) == items
            })
            .copied()
    }

    /// The tag of tuple `id`.
    pub fn tag(&self, id: u32) -> u32 {
        self.tags[id as usize]
    }

    /// The items of tuple `id`.
    pub fn items(&self, id: u32) -> &[u32] {
        let i = id as usize;
        &self.items[self.starts[i] as usize..self.starts[i + 1] as usize]
    }

    /// Number of tuples.
    pub fn len(&self) -> usize {
        self.tags.len()
    }

    /// True when nothing is stored.
    pub fn is_empty(&self) -> bool {
        self.tags.is_empty()
    }

    /// Forgets every tuple with id `len` or higher (undoes interning back to a mark).
    pub fn truncate(&mut self, len: usize) {
        if len >= self.len() {
            return;
        }
        let Tuples {
            tags,
            starts,
            items,
            table,
        } = self;
        table.retain(|&mut id| (id as usize) < len);
        tags.truncate(len);
        starts.truncate(len + 1);
        items.truncate(starts[len] as usize);
    }

    /// Heap bytes that interning `n` more tuples may allocate beyond [`Self::heap_bytes`]
    /// (an estimate from the mean tuple length): a full vector is copied into one a
    /// quarter larger and a full hash table into one twice as large, the old ones alive
    /// until the copy is done. A budget checked every `n` tuples must count this, or one
    /// growth of a table of tens of millions of tuples passes it by gigabytes.
    pub fn growth_bytes(&self, n: usize) -> usize {
        let grown = |cap: usize, len: usize, more: usize| {
            if cap - len < more {
                4 * (len + more.max(len / 4).max(64))
            } else {
                0
            }
        };
        let per = self.items.len() / self.len().max(1) + 1;
        let table = if self.table.capacity() - self.table.len() < n {
            (2 * self.table.capacity()).max(16) * (4 + 1)
        } else {
            0
        };
        grown(self.tags.capacity(), self.tags.len(), n)
            + grown(self.starts.capacity(), self.starts.len(), n)
            + grown(self.items.capacity(), self.items.len(), n * per)
            + table
    }

    /// Bytes held on the heap (capacity, not length).
    pub fn heap_bytes(&self) -> usize {
        4 * (self.tags.capacity() + self.starts.capacity() + self.items.capacity())
            + self.table.capacity() * (4 + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_tuples_share_an_id_and_truncate_forgets() {
        let mut t = Tuples::default();
        let (a, new_a) = t.intern(1, &[2, 3]);
        let (b, new_b) = t.intern(1, &[2, 3]);
        let (c, _) = t.intern(2, &[2, 3]);
        let (d, _) = t.intern(1, &[]);
        assert!(new_a && !new_b);
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_eq!(t.items(a), &[2, 3]);
        assert_eq!(t.items(d), &[] as &[u32]);
        assert_eq!((t.tag(c), t.len()), (2, 3));
        t.truncate(1);
        assert_eq!(t.len(), 1);
        assert_eq!(t.find(2, &[2, 3]), None);
        assert_eq!(t.find(1, &[2, 3]), Some(a));
        let (e, new_e) = t.intern(2, &[2, 3]);
        assert!(new_e);
        assert_eq!(e, 1);
        for i in 0..10_000u32 {
            t.intern(i % 7, &[i, i / 3]);
        }
        assert_eq!(t.find(5, &[5, 1]), Some(2 + 5));
    }
}
