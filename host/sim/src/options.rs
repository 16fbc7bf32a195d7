//! The options of the CPU backend: threads, lane width and instruction-set path.

/// Options of the CPU backend.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CpuOptions {
    /// Worker threads; 0 = one per core (rayon's default).
    pub threads: usize,
    /// Lanes per block, one of [`SUPPORTED_LANES`] (`64 * W` for `W` words per slot), or
    /// [`CpuOptions::TUNED_LANES`]: measured on the first batches ([`crate::tune`]).
    pub lane_width: usize,
    /// Which instruction-set path steps the blocks.
    pub simd: Simd,
}

/// The instruction-set path of the CPU simulator. Both paths give bit-identical playouts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Simd {
    /// The AVX2 (with POPCNT and BMI1/2) path where the processor has it (detected at run
    /// time), else the portable one.
    #[default]
    Auto,
    /// The portable path on every processor (conformance tests run it on AVX2 machines
    /// too).
    Portable,
}

/// True when this processor runs the AVX2 path under [`Simd::Auto`]: x86-64 with AVX2,
/// POPCNT, BMI1 and BMI2.
pub fn avx2_available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::is_x86_feature_detected!("avx2")
            && std::is_x86_feature_detected!("popcnt")
            && std::is_x86_feature_detected!("bmi1")
            && std::is_x86_feature_detected!("bmi2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Lane widths the simulator is built for. Wider blocks (4,096 lanes, 64 words) are left
/// out: the accumulator of an operand run no longer fits the registers (BENCHMARKS.md,
/// "CPU simulator figures moved from module docs (#39)").
pub const SUPPORTED_LANES: [usize; 6] = [64, 128, 256, 512, 1024, 2048];

impl CpuOptions {
    /// The lane width of flat throughput runs (`propnet run`, `bench`, `compare`): the
    /// first batches measure 512, 1,024 and 2,048 lanes per block and the fastest is kept
    /// ([`crate::tune`]). MCTS keeps the default 256, which its leaf batches fill.
    pub const TUNED_LANES: usize = 0;
}

impl Default for CpuOptions {
    fn default() -> Self {
        CpuOptions {
            threads: 0,
            lane_width: 256,
            simd: Simd::Auto,
        }
    }
}
