//! Synthesis report: placeholder replaced below.
