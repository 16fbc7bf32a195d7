//! propnet compiler, the GDL side: KIF text → validated GDL ([`kif`], [`gdl`]) → the
//! reference interpreter ([`interp`]), and GDL → grounded rules → a propnet netlist
//! ([`ground`]).
//!
//! The netlist itself, its passes, the shared RNG and the playout rule live in
//! [`propnet_netlist`], which knows nothing of GDL; every backend depends on that crate alone.

#![deny(missing_docs)]

pub mod gdl;
pub mod graph;
pub mod ground;
mod intern;
pub mod interp;
pub mod kif;
pub mod terms;
