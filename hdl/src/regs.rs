//! Word addresses of the host register interface of `<prefix>_top` (16-bit address,
//! 32-bit data). The map is documented in the crate docs.

/// Write: bit 0 starts a run (pulse), bit 1 selects the start state (1 = `STATE_BASE` words,
/// 0 = the game's init). Read: status (bit 0 done, bit 1 busy).
pub const CTRL: u16 = 0x0000;
/// Read alias of [`CTRL`]: bit 0 `done`, bit 1 `busy`.
pub const STATUS: u16 = 0x0000;
/// Write: seed bits 31..0 (RNG key word 0).
pub const SEED_LO: u16 = 0x0001;
/// Write: seed bits 63..32 (RNG key word 1).
pub const SEED_HI: u16 = 0x0002;
/// Write: number of playouts of a run (indices `0..playouts`).
pub const PLAYOUTS: u16 = 0x0003;
/// Write: step limit per playout (joint moves).
pub const MAX_STEPS: u16 = 0x0004;
/// Read: playouts finished (all engines).
pub const PLAYOUTS_DONE: u16 = 0x0010;
/// Read: total joint moves, bits 31..0.
pub const STEPS_LO: u16 = 0x0011;
/// Read: total joint moves, bits 47..32.
pub const STEPS_HI: u16 = 0x0012;
/// Read: playouts that ended in a terminal state.
pub const ENDS_TERMINAL: u16 = 0x0013;
/// Read: playouts that hit the step limit.
pub const ENDS_STEP_LIMIT: u16 = 0x0014;
/// Read: playouts that stopped because a role had no legal move.
pub const ENDS_NO_LEGAL: u16 = 0x0015;
/// Read: clock cycles the run took (cycles with any engine busy), bits 31..0.
pub const CYCLES_LO: u16 = 0x0016;
/// Read: clock cycles, bits 47..32.
pub const CYCLES_HI: u16 = 0x0017;
/// Read: number of engines.
pub const INFO_ENGINES: u16 = 0x0018;
/// Read: number of roles.
pub const INFO_ROLES: u16 = 0x0019;
/// Read: number of latches.
pub const INFO_LATCHES: u16 = 0x001A;
/// Read: RNG pipeline stages.
pub const INFO_RNG_STAGES: u16 = 0x001B;
/// Read: goal sum of role r, bits 31..0 at `GOAL_SUM_BASE + 2r`, bits 47..32 at `+ 2r + 1`.
pub const GOAL_SUM_BASE: u16 = 0x0100;
/// Write: start-state word w at `STATE_BASE + w`; bit b is latch `32w + b`.
pub const STATE_BASE: u16 = 0x1000;
