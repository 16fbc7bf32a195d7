//! GDL layer: the normalized program ([`ast`]) built from KIF s-expressions, and the
//! checks that make it valid GDL (safety, stratification, `does`/`next`/`init` placement,
//! arities, goal values).

pub mod ast;

pub use ast::*;
