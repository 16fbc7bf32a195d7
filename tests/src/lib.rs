//! Shared helpers for the integration and conformance tests in `tests/tests/`.
