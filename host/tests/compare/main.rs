//! `propnet compare` through the built binary: hostile figures and traces (`verify`),
//! sweeps split with `--shard K/N` and merged (`shard`), and a real Slurm job array
//! (`slurm`).

mod shard;
mod slurm;
#[path = "../support/mod.rs"]
mod support;
mod verify;
