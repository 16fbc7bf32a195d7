//! GDL layer: the normalized program ([`ast`]) built from KIF s-expressions ([`lower`],
//! [`dnf`]), its relation dependency analysis ([`deps`]), and the checks that make it
//! valid GDL ([`check`]: safety, stratification, `does`/`next`/`init` placement, arities,
//! goal values). Entry points: [`load`] and [`parse_source`].

pub mod ast;
mod call_bound;
pub mod check;
pub mod deps;
pub mod dnf;
pub mod error;
pub mod gdl2;
mod load;
pub mod lower;
mod unused;

pub use ast::*;
pub use deps::{RelId, RelKey, RelationInfo};
pub use error::{Diagnostic, GdlError, Violation};
pub use load::{load, parse_source, read_file, read_limited, read_terms, Game, MAX_INPUT_BYTES};

/// Most distinct variables one rule may have. The grounder and the reference interpreter
/// number a rule's variables in 16 bits; both reject a rule with more, located at the rule
/// (never numbering two variables alike), so every command gives such a game one verdict.
pub const MAX_RULE_VARIABLES: usize = u16::MAX as usize;

/// A goal value as every command reads it: the text of a constant made of ASCII digits
/// only (leading zeros allowed), whose value is at most 100. `None` for anything else
/// (`+50`, `-1`, `0x10`, `101`, `win`): such a goal makes the game invalid.
pub fn goal_value(text: &str) -> Option<u8> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let digits = text.trim_start_matches('0');
    match digits.len() {
        0 => Some(0),
        1..=3 => digits.parse::<u8>().ok().filter(|v| *v <= 100),
        _ => None,
    }
}

#[cfg(test)]
mod tests;
