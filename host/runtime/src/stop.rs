//! A process-wide stop request: the CLI sets it on SIGINT/SIGTERM, and long loops (the
//! measured playouts of `run`, MCTS searches, match games, perft depths, the solver) end
//! at their next check, so the command can report what it has so far.
//!
//! Only code that asked for it ([`set_graceful`]) is stopped this way; the CLI's signal
//! handler ends any other command at once (exit status 130).

use std::sync::atomic::{AtomicBool, Ordering};

static STOP: AtomicBool = AtomicBool::new(false);
static GRACEFUL: AtomicBool = AtomicBool::new(false);

/// Asks every loop that checks [`requested`] to stop.
pub fn request() {
    STOP.store(true, Ordering::SeqCst);
}

/// True once a stop was requested.
pub fn requested() -> bool {
    STOP.load(Ordering::Relaxed)
}

/// Declares that the running command checks [`requested`] and reports partial results.
pub fn set_graceful(on: bool) {
    GRACEFUL.store(on, Ordering::SeqCst);
}

/// True when the running command handles a stop request itself.
pub fn graceful() -> bool {
    GRACEFUL.load(Ordering::SeqCst)
}
