//! Subcommands of the `propnet` binary, one module each.

pub mod hdl;
