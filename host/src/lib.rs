//! The library half of the `propnet` binary: backend selection ([`select`]), the one
//! place that knows every backend (the CPU simulator of `propnet-sim`, the GPU of
//! `propnet-kernels`, the FPGA host of `propnet-fpga`, the reference of
//! `propnet-runtime`) and builds them by [`propnet_runtime::factory::BackendKind`]. The
//! subcommands (`src/cli/`, in the binary) and the tests use it; the GGP player and
//! `compare` receive it as a [`propnet_runtime::factory::BackendFactory`].

pub mod select;
