//! The instruction-set path of a run, picked once per run at run time: the one place
//! where the simulator dispatches on the processor.
//!
//! A [`WithIsa`] body (a driver's whole block loop, the block stepper inlined into it) is
//! compiled twice: for any processor, and on x86-64 for AVX2 with POPCNT and BMI1/2 (wider
//! word loops, hardware popcount, and the AVX2 move choice of [`crate::avx2`]). Both
//! copies give identical results.

#[cfg(target_arch = "x86_64")]
use crate::avx2::Avx2;
use crate::options::Simd;

/// How the move choice draws and picks: the portable word code, or (x86-64 with AVX2,
/// detected at run time) its intrinsics copy. Both give identical results.
#[derive(Clone, Copy, Debug)]
pub enum Isa {
    /// Plain Rust, for any processor.
    Portable,
    /// The AVX2 copy ([`crate::avx2`]).
    #[cfg(target_arch = "x86_64")]
    Avx2(Avx2),
}

/// Code run on the instruction-set path [`dispatch`] picks. Implementations mark
/// [`WithIsa::run`] `#[inline(always)]`, so that the whole body is compiled into each
/// path's copy.
pub trait WithIsa {
    /// Runs the body on `isa`'s path.
    fn run(self, isa: Isa);
}

/// Runs `body` on the AVX2 path when `simd` is [`Simd::Auto`] and the processor has AVX2,
/// POPCNT and BMI1/2 ([`crate::avx2_available`]), else on the portable path.
pub fn dispatch<B: WithIsa>(simd: Simd, body: B) {
    #[cfg(target_arch = "x86_64")]
    if simd == Simd::Auto && crate::options::avx2_available() {
        if let Some(avx2) = Avx2::detect() {
            // SAFETY: the features `run_x86_v3` is compiled for were detected above.
            // With the `Avx2` methods and the move choice's out-of-line AVX2 copy of its
            // transpose path (`choice`), this is the simulator's only unsafe code (runtime
            // CPU dispatch).
            #[allow(unsafe_code)]
            unsafe {
                run_x86_v3(body, avx2)
            };
            return;
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = simd;
    body.run(Isa::Portable);
}

/// `body` compiled with AVX2, POPCNT and BMI1/2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,popcnt,bmi1,bmi2")]
fn run_x86_v3<B: WithIsa>(body: B, avx2: Avx2) {
    body.run(Isa::Avx2(avx2));
}
