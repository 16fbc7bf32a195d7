//! GGP over loopback (see `propnet_ggp`): the HTTP server alone, the protocol suite,
//! and full matches with `propnet match` as the game manager and `propnet player`
//! processes as players. Every server binds 127.0.0.1 on a port it picks; every process is
//! killed at the end.

mod gdl2;
mod matches;
mod protocol;
mod round_two;
mod server;
mod support;
