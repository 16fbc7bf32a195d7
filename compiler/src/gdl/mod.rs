//! GDL layer: the normalized program ([`ast`]) built from KIF s-expressions ([`lower`],
//! [`dnf`]), its relation dependency analysis ([`deps`]), and the checks that make it
//! valid GDL ([`check`]: safety, stratification, `does`/`next`/`init` placement, arities,
//! goal values). Entry points: [`load`] and [`parse_source`].

pub mod ast;
pub mod check;
pub mod deps;
pub mod dnf;
pub mod error;
mod load;
pub mod lower;

pub use ast::*;
pub use deps::{RelId, RelKey, RelationInfo};
pub use error::{Diagnostic, GdlError, Violation};
pub use load::{load, parse_source, read_terms, Game};

#[cfg(test)]
mod tests;
