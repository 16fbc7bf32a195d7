//! A flag that another thread raises to stop long work early: grounding gives up with an
//! error, the optimization passes stop between two passes (the netlist stays valid).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// A shared stop flag; the default ([`Cancel::never`]) is never raised. Clones share
/// the flag.
#[derive(Clone, Debug, Default)]
pub struct Cancel(Option<Arc<AtomicBool>>);

impl Cancel {
    /// A flag not raised yet.
    pub fn new() -> Self {
        Cancel(Some(Arc::new(AtomicBool::new(false))))
    }

    /// A flag that cannot be raised (what work without a caller to stop it uses).
    pub fn never() -> Self {
        Cancel(None)
    }

    /// Raises the flag: work that checks it stops soon after.
    pub fn cancel(&self) {
        if let Some(f) = &self.0 {
            f.store(true, Ordering::Relaxed);
        }
    }

    /// Whether the flag was raised.
    pub fn is_cancelled(&self) -> bool {
        self.0.as_ref().is_some_and(|f| f.load(Ordering::Relaxed))
    }
}

/// Two flags are equal when they are the same flag (or both can never be raised).
impl PartialEq for Cancel {
    fn eq(&self, other: &Self) -> bool {
        match (&self.0, &other.0) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            (None, None) => true,
            _ => false,
        }
    }
}

impl Eq for Cancel {}

#[cfg(test)]
mod tests {
    use super::Cancel;

    #[test]
    fn clones_share_the_flag_and_never_stays_down() {
        let c = Cancel::new();
        let d = c.clone();
        assert!(!d.is_cancelled());
        c.cancel();
        assert!(d.is_cancelled());
        assert_eq!(c, d);
        assert_ne!(c, Cancel::new());
        let n = Cancel::never();
        n.cancel();
        assert!(!n.is_cancelled());
    }
}
