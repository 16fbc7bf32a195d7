//! General Game Playing over HTTP: the protocol player (`propnet player`) and the game
//! manager (`propnet match` with `http://` players).
//!
//! - [`message`]: the protocol's messages, read with the project's KIF reader.
//! - [`http`]: the player's HTTP server (hyper; timeouts, size limits, blocking handlers).
//! - [`gamer`]: the player; [`worker`] a match's thread; [`engine`] the model and tree.
//! - [`spelling`]: moves go back spelled as in the rules received.
//! - [`manager`]: the game manager (ggp-base `GameServer` rules); [`record`] its match
//!   record in ggp-base's JSON format.
//! - [`log`]: JSON-lines logs of every message.

pub mod engine;
pub mod gamer;
pub mod http;
pub mod log;
pub mod manager;
pub mod message;
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
