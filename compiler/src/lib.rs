//! propnet compiler: GDL (KIF) text → validated GDL → reference interpreter, and
//! GDL → grounded rules → propnet [`netlist`] → optimization [`passes`].
//!
//! The shared definitions every backend must follow are here too: the counter-based
//! random generator ([`rng`]) and the playout semantics with its scalar reference
//! implementation ([`playout`]).

#![deny(missing_docs)]

pub mod gdl;
pub mod ground;
pub mod interp;
pub mod kif;
pub mod netlist;
pub mod playout;
pub mod rng;
