//! JSON form of a netlist via serde: what `propnet compile -o game.pnet` writes and the
//! backends load. [`from_json`] validates what it reads.

use super::ir::Netlist;
use super::validate::{validate, ValidateError};

/// An error reading a JSON netlist.
#[derive(Debug, thiserror::Error)]
pub enum JsonError {
    /// Not JSON, or not the netlist's shape (the message has line and column).
    #[error("netlist JSON: {0}")]
    Syntax(#[from] serde_json::Error),
    /// Well-formed JSON describing a netlist that breaks an invariant.
    #[error("invalid netlist: {0}")]
    Invalid(#[from] ValidateError),
}

/// The netlist as compact JSON.
pub fn to_json(net: &Netlist) -> String {
    serde_json::to_string(net).expect("a netlist always serializes")
}

/// Reads a netlist written by [`to_json`] (after a byte-order mark, if any) and checks it
/// with [`validate`].
///
/// # Errors
/// [`JsonError::Syntax`] for malformed JSON, [`JsonError::Invalid`] for a broken invariant.
pub fn from_json(src: &str) -> Result<Netlist, JsonError> {
    // A byte-order mark (some editors write one) is no JSON whitespace.
    let src = src.strip_prefix('\u{feff}').unwrap_or(src);
    let net: Netlist = serde_json::from_str(src)?;
    validate(&net)?;
    Ok(net)
}
