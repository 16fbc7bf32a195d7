//! Keeps the Vulkan loader quiet on machines without a display.
//!
//! Mesa's Vulkan drivers (lavapipe included) probe for a Wayland compositor when wgpu
//! creates an instance; on a headless machine libwayland then writes
//! `error: XDG_RUNTIME_DIR is invalid or not set in the environment.` straight to the
//! terminal, once per probe, although nothing is wrong.

/// When no Wayland session is reachable (no absolute `XDG_RUNTIME_DIR`) and
/// `WAYLAND_DISPLAY` is unset, points `WAYLAND_DISPLAY` at an absolute path that does not
/// exist: libwayland then fails to connect silently instead of printing the error line.
/// A machine with a display session is left untouched.
///
/// Must run before any thread starts (it changes the process environment).
pub fn quiet_wayland_probe() {
    let runtime_dir_ok =
        std::env::var_os("XDG_RUNTIME_DIR").is_some_and(|d| std::path::Path::new(&d).is_absolute());
    if !runtime_dir_ok && std::env::var_os("WAYLAND_DISPLAY").is_none() {
        std::env::set_var("WAYLAND_DISPLAY", "/nonexistent/propnet-headless/wayland-0");
    }
}
