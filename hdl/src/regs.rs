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
/// Write: playout index base of a run: the engines run local indices `0..playouts`, the RNG
/// sees `base + index` (mod 2^32), so a job's playouts `first..first + count` are one run.
pub const PLAYOUT_BASE: u16 = 0x0005;
/// Write: record select of designs with a record buffer ([`crate::Options::records`]):
/// bits 31..16 engine, bits 15..0 record slot; [`RECORD_WINDOW`] then reads that record.
pub const RECORD_SELECT: u16 = 0x0006;
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
/// Read: netlist hash bits 31..0 ([`crate::netlist_hash`] of the netlist the design was
/// generated from; a host checks it at connect).
pub const INFO_HASH_LO: u16 = 0x001C;
/// Read: netlist hash bits 63..32.
pub const INFO_HASH_HI: u16 = 0x001D;
/// Read: [`MAGIC_VALUE`], so a host can tell a propnet design from anything else.
pub const INFO_MAGIC: u16 = 0x001E;
/// Read: record buffer depth per engine (0 = no per-playout records).
pub const INFO_RECORDS: u16 = 0x001F;
/// Read: RNG banks per role.
pub const INFO_BANKS: u16 = 0x0020;
/// Read: interleaved threads per engine (C-slow).
pub const INFO_CSLOW: u16 = 0x0021;
/// Read: record buffer overflow (1 when a run finished more playouts on one engine than
/// the buffer holds; the aggregates are still right).
pub const RECORD_OVERFLOW: u16 = 0x0022;
/// The value of [`INFO_MAGIC`]: `PNF1` in ASCII (register interface version 1).
pub const MAGIC_VALUE: u32 = 0x504E_4631;
/// Read: goal sum of role r, bits 31..0 at `GOAL_SUM_BASE + 2r`, bits 47..32 at `+ 2r + 1`.
pub const GOAL_SUM_BASE: u16 = 0x0100;
/// Write: start-state word w at `STATE_BASE + w`; bit b is latch `32w + b`.
pub const STATE_BASE: u16 = 0x1000;
/// Read: word w of the selected record ([`RECORD_SELECT`]) at `RECORD_WINDOW + w`
/// (layout: [`crate::records`]).
pub const RECORD_WINDOW: u16 = 0x2000;
