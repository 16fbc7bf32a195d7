//! Subcommands of the `propnet` binary and the helpers they share.

pub mod best;
pub mod common;
pub mod r#match;
pub mod solve;
