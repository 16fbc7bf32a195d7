//! Subcommands of the `propnet` binary, one file each.

pub mod trace;
