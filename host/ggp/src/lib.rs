//! General Game Playing over HTTP: the protocol player (`propnet player`) and the game
//! manager (`propnet match` with `http://` players).
//!
//! - [`message`]: the protocol's messages, read with the project's KIF reader.
//! - [`http`]: the player's HTTP server (hyper; timeouts, size limits, blocking handlers).
//! - [`gamer`]: the player; [`worker`] a match's thread; [`play`] the state machine, state
//!   and search tree of a match; [`hidden`] a match under the GDL-II protocol (a belief
//!   and information-set MCTS).
//! - [`spelling`]: moves go back spelled as in the rules received.
//! - [`manager`]: the game manager (ggp-base `GameServer` rules); [`record`] its match
//!   record in ggp-base's JSON format; [`manager_gdl2`] the manager under the GDL-II
//!   protocol (it plays `random` and sends each player only its own move and percepts).
//! - [`log`]: JSON-lines logs of every message.
//!
//! Public API: [`serve_player`] with a [`Gamer`] built from [`PlayerOptions`] (whose
//! [`propnet_runtime::factory::BackendFactory`] builds the compiled game's backend: this
//! crate links no backend itself), and [`manager::play_match`].
//!
//! Depends on `propnet-runtime` (state machines, pipeline, backends by factory) and
//! `propnet-mcts` (the search); hyper, tokio and ureq are used here only.

pub mod gamer;
pub mod hidden;
pub mod http;
pub mod log;
pub mod manager;
pub mod manager_gdl2;
pub mod message;
pub mod play;
pub mod record;
pub mod spelling;
pub mod worker;

pub use gamer::{Gamer, PlayerOptions, DEFAULT_MARGIN};

use std::net::TcpListener;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// Serves the GGP protocol on `listener` with `gamer` until `stop` is set.
///
/// # Errors
/// The listener cannot be made non-blocking.
pub fn serve_player(
    listener: TcpListener,
    gamer: Arc<Gamer>,
    stop: Arc<AtomicBool>,
) -> std::io::Result<()> {
    let g = gamer.clone();
    let handler: http::Handler = Arc::new(move |req| g.handle(req));
    let g = gamer.clone();
    let log: http::ErrorLog = Arc::new(move |line| {
        g.log()
            .line("player", &line, serde_json::json!({ "error": line }))
    });
    http::serve(listener, http::ServerLimits::default(), handler, log, stop)
}
