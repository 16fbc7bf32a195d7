//! Compiles a netlist into a flat, phase-split program over lane words.
//!
//! Every value lives in one slot of a word array (one bit per playout lane). Slot layout:
//! `0..L` the latches (current state), `L` the constant-false slot, `L+1..L+1+I` the
//! inputs, then one slot per instruction in program order. An *operand* is
//! `slot << 1 | negate`: `Not` gates never become instructions, they flip the negate bit of
//! their readers; single-operand `And`/`Or` gates are aliases; constants fold away.
//!
//! Instructions are n-ary `And`/`Or` over an operand range of one flat array (no per-gate
//! allocation), split in three phases so each needed gate is evaluated once per step:
//! - **core**: everything `legal` and `terminal` need, plus gates needed both by goals and
//!   by the transition; evaluated every step before inputs are set;
//! - **goal**: gates only goals need; evaluated only on steps where some lane finishes;
//! - **next**: the rest of what latch `next` functions need (reads inputs); evaluated after
//!   the joint move is set.

use crate::fold::{phase_of, Folded};
use crate::guard::guards;
/// Marks a missing guard or run ([`Run::guard`], [`Phase::second_guards`]).
pub use crate::guard::NONE;
use crate::key::{key_guards, KeyCheck};
use crate::observe::{skip_guards, ALTS};
pub use crate::operand::{slot, Operand};
use crate::sums::{add_input_sums, InputSums};
use propnet_netlist::{Gate, GateId, Netlist, NetlistInfo};

/// What the instructions of a [`Run`] are. The two-operand kinds carry their operands'
/// negations in the kind (operands ordered so a negated one comes second), so the
/// evaluator reads both plainly: `AndNot` is `a & !b`, `Nor` is `!a & !b`, `OrNot`
/// `a | !b`, `Nand` `!a | !b`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RunKind {
    /// `a & b`.
    And,
    /// `a & !b`.
    AndNot,
    /// `!a & !b`.
    Nor,
    /// `a | b`.
    Or,
    /// `a | !b`.
    OrNot,
    /// `!a | !b`.
    Nand,
    /// Anything else (n-ary), read instruction by instruction from the codes.
    Other,
    /// An `Or` of single operands and of two-operand products (`a & b`): the `And` gates
    /// that only this `Or` reads, fused into it so that they need no slot of their own
    /// (one store and one load per lane word fewer each). Read instruction by instruction:
    /// the single operands come first, then the pairs; [`Phase::negated`] holds the number
    /// of pairs, and every operand applies its own negate bit.
    OrAnd,
}

impl RunKind {
    /// The kind of a two-operand `And` (`is_or` false) or `Or` whose operands are negated
    /// as `negated` says, and whether the operands must be swapped to fit it.
    fn of_pair(is_or: bool, negated: [bool; 2]) -> (RunKind, bool) {
        let swap = negated[0] && !negated[1];
        let kind = match (is_or, negated[0] || negated[1], negated[0] && negated[1]) {
            (false, false, _) => RunKind::And,
            (false, true, false) => RunKind::AndNot,
            (false, true, true) => RunKind::Nor,
            (true, false, _) => RunKind::Or,
            (true, true, false) => RunKind::OrNot,
            (true, true, true) => RunKind::Nand,
        };
        (kind, swap)
    }
}

/// Consecutive instructions of one kind at one level of the phase: none reads a slot
/// another writes, so the evaluator runs them as one branch-free loop.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Run {
    /// What the instructions are.
    pub kind: RunKind,
    /// Number of instructions.
    pub len: u32,
    /// Guard ([`Program::guards`]; [`NONE`] for none): while every latch of it is 0 in
    /// every lane, the run is skipped and its slots set to 0 (next phase: zero guards,
    /// [`crate::guard`]; core phase: skip guards, [`crate::observe`]). A run of the core
    /// phase may have a second guard ([`Phase::second_guards`]).
    pub guard: u32,
}

/// One phase: instruction `k` writes slot `first_slot + k`. Instructions are levelized
/// (every operand comes from an earlier level or phase) and, within a level, grouped into
/// [`Run`]s by guard and kind.
#[derive(Clone, Debug, Default)]
pub struct Phase {
    /// Slot written by the first instruction.
    pub first_slot: usize,
    /// Per instruction: `operand_count << 1 | is_or`.
    pub codes: Vec<u32>,
    /// Operands of all instructions, concatenated in instruction order.
    pub args: Vec<Operand>,
    /// The instructions split into runs, in order; their lengths add up to the codes'.
    pub runs: Vec<Run>,
    /// Per run, a second guard skipping it like [`Run::guard`] ([`NONE`] for none); empty
    /// when no run has one. Kept apart so that the runs of every other phase stay small.
    pub second_guards: Vec<u32>,
    /// Per instruction: for [`RunKind::Other`], how many of its operands (the last ones)
    /// are negated, so the evaluator reads them without per-operand masks; for
    /// [`RunKind::OrAnd`], how many operand pairs (the last `2 * n` operands) it has.
    pub negated: Vec<u32>,
}

impl Phase {
    /// Number of instructions.
    pub fn len(&self) -> usize {
        self.codes.len()
    }
    /// True when the phase has no instruction.
    pub fn is_empty(&self) -> bool {
        self.codes.is_empty()
    }

    /// Operands of `run`, whose first instruction is instruction `k`.
    #[inline(always)]
    pub fn run_operands(&self, k: usize, run: &Run) -> usize {
        let n = run.len as usize;
        match run.kind {
            RunKind::Other | RunKind::OrAnd => {
                self.codes[k..k + n].iter().map(|c| (c >> 1) as usize).sum()
            }
            _ => 2 * n,
        }
    }
}

/// A compiled netlist, ready for the bit-parallel evaluator.
#[derive(Clone, Debug)]
pub struct Program {
    /// Number of latches (slots `0..latches`).
    pub latches: usize,
    /// Slot of input 0; input `i` is slot `input_base + i`.
    pub input_base: usize,
    /// Number of inputs.
    pub inputs: usize,
    /// Total slots.
    pub slots: usize,
    /// Gates needed for legal/terminal (and shared goal/next logic).
    pub core: Phase,
    /// Gates only goals need.
    pub goal: Phase,
    /// Gates only latch next values need.
    pub next: Phase,
    /// Gates only GDL-II percepts need (empty for GDL-I games): run after `next`, with the
    /// joint move's inputs still set, only where a caller asks for percepts, never in
    /// playouts.
    pub percept: Phase,
    /// Terminal output.
    pub terminal: Operand,
    /// Per role: (operand, input index) of each legal move in choice order.
    pub legal: Vec<Vec<(Operand, u32)>>,
    /// Per role: (operand, value) of each goal, by value descending.
    pub goals: Vec<Vec<(Operand, u8)>>,
    /// Per latch: operand giving its next value.
    pub next_state: Vec<Operand>,
    /// Per role: (operand, percept index) of each percept, in the role's percept order.
    pub percepts: Vec<Vec<(Operand, u32)>>,
    /// Latches of each zero guard of the next phase's runs (empty when the next phase is
    /// not guarded): a block whose lanes all have a guard's latches at 0 skips its runs.
    pub guards: Vec<Vec<u32>>,
    /// The key groups of the core phase's key guards ([`crate::key`]): each block step,
    /// a group that some active lane does not hold exactly one member of keeps its guards
    /// live.
    pub key_checks: Vec<KeyCheck>,
    /// Whether the simulator keeps track of the latches that are 0 in every lane of a block
    /// to skip the [`RunKind::OrAnd`] products they lead ([`crate::eval::run_skipping`]).
    pub skips_products: bool,
    /// How the simulator refills finished lanes, decided from the guards.
    pub schedule: Schedule,
    /// The next phase's input sums ([`crate::sums`]): slots the simulator fills from the
    /// inputs it set, read by wide `Or`s in place of their input operands.
    pub sums: InputSums,
}

/// How the simulator refills lanes whose playout finished (the driver, `drive`), decided
/// once when the program is compiled. Results are the same under every schedule.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Schedule {
    /// A finished lane takes the next playout at once, so lanes stay busy until the work
    /// runs out (programs without guards).
    PerLane,
    /// A block is refilled all together once its last lane has finished, so that the
    /// guards ([`Program::guards`]) of the groups no lane has reached stay dead (programs
    /// with guards but no key groups).
    Lockstep,
    /// Lanes are kept in pools re-sorted by key before every step and stepped block by
    /// block; a pool is refilled all together once every lane has finished (programs
    /// with key groups, [`Program::key_checks`]; `crate::pool`).
    Pooled,
}

impl Schedule {
    /// The schedule of a program with these guards and key groups.
    fn of(guards: &[Vec<u32>], key_checks: &[KeyCheck]) -> Schedule {
        if !key_checks.is_empty() {
            Schedule::Pooled
        } else if !guards.is_empty() {
            Schedule::Lockstep
        } else {
            Schedule::PerLane
        }
    }
}

impl Program {
    /// Compiles a netlist with its analysis (from `propnet_netlist::validate`).
    ///
    /// Steps: fold constants, `Not` and one-operand gates into operands ([`Folded`]); place
    /// the remaining `And`/`Or` gates as instructions, phase by phase in arena order, each in
    /// the phase its cones call for; resolve the outputs to operands. A gate that an output
    /// reaches only through a gate folded to a constant is still placed (the optimization
    /// passes remove such gates before this runs).
    ///
    /// # Panics
    /// If `info` was computed for another netlist.
    pub fn compile(net: &Netlist, info: &NetlistInfo) -> Program {
        Self::compile_with(net, info, Tuning::Auto)
    }

    /// [`Self::compile`], tuning the next phase as `tuning` says.
    ///
    /// # Panics
    /// If `info` was computed for another netlist.
    pub fn compile_with(net: &Netlist, info: &NetlistInfo, tuning: Tuning) -> Program {
        assert!(info.describes(net), "NetlistInfo of another netlist");
        let l = net.latches.len();
        let input_base = l + 1;
        let mut folded = Folded::new(net, l as u32, input_base);
        let operands: usize = (0..net.gates.len())
            .filter(|&i| folded.is_instruction(i))
            .map(|i| folded.ops[i].len())
            .sum();
        if tuning.pays(operands, LARGE_MIN_OPERANDS) {
            folded.fuse_products(net, info);
        }
        let mut slot_of = vec![u32::MAX; net.gates.len()];
        let mut next_slot = input_base + net.inputs.len();
        let next_guards = phase_guards(net, info, &folded, tuning, 2, 0);
        let core_guards = phase_guards(net, info, &folded, tuning, 0, next_guards.len());
        let (mut guards, next_guard_of) = (next_guards.groups, next_guards.guards_of);
        let core_guard_of = core_guards.guards_of;
        let key_checks = core_guards.key_checks;
        guards.extend(core_guards.groups);
        let mut phases: [Phase; 4] = Default::default();
        for (p, phase) in phases.iter_mut().enumerate() {
            phase.first_slot = next_slot;
            let guard_of: &[[u32; ALTS]] = match p {
                0 => &core_guard_of,
                2 => &next_guard_of,
                _ => &[],
            };
            for ((run, second), members) in levelized(net, info, &folded, p, guard_of) {
                phase.runs.push(run);
                phase.second_guards.push(second);
                let run = &run;
                for (i, swap) in members {
                    place(phase, net, &folded, &slot_of, i, swap, run.kind);
                    slot_of[i] = next_slot as u32;
                    next_slot += 1;
                }
            }
        }
        let op_of = |g: GateId| folded.operand(&slot_of, g);
        let led: usize = phases[..3].iter().map(|p| latch_led_products(p, l)).sum();
        let skips_products = tuning.pays(led, l.max(1));
        for phase in &mut phases {
            if phase.second_guards.iter().all(|&g| g == NONE) {
                phase.second_guards.clear();
            }
        }
        let [core, goal, next, percept] = phases;
        let schedule = Schedule::of(&guards, &key_checks);
        let mut prog = Program {
            latches: l,
            input_base,
            inputs: net.inputs.len(),
            slots: next_slot,
            core,
            goal,
            next,
            percept,
            terminal: op_of(net.terminal),
            legal: net
                .roles
                .iter()
                .map(|r| r.legal.iter().map(|x| (op_of(x.gate), x.input.0)).collect())
                .collect(),
            goals: net
                .roles
                .iter()
                .map(|r| {
                    r.goals
                        .iter()
                        .rev()
                        .map(|x| (op_of(x.gate), x.value))
                        .collect()
                })
                .collect(),
            next_state: net.latches.iter().map(|x| op_of(x.next)).collect(),
            percepts: net
                .roles
                .iter()
                .map(|r| {
                    (0..r.percepts.len() as u32)
                        .map(|k| (op_of(r.percepts[k as usize].gate), k))
                        .collect()
                })
                .collect(),
            guards,
            key_checks,
            skips_products,
            schedule,
            sums: InputSums {
                first_slot: input_base + net.inputs.len(),
                ..InputSums::default()
            },
        };
        add_input_sums(&mut prog, tuning);
        prog
    }

    /// Number of instructions over all phases.
    pub fn instructions(&self) -> usize {
        self.core.len() + self.goal.len() + self.next.len()
    }

    /// Whether some run of the core phase has a skip guard ([`Run::guard`]): the simulator
    /// then tracks the live guards each step and skips the runs of the dead ones.
    pub fn core_is_guarded(&self) -> bool {
        self.core.runs.iter().any(|r| r.guard != NONE)
    }

    /// Number of `And` gates fused into their `Or` ([`RunKind::OrAnd`]) over all phases.
    pub fn fused_products(&self) -> usize {
        let phases = [&self.core, &self.goal, &self.next];
        let per_run = phases.into_iter().flat_map(|p| {
            let mut k = 0;
            p.runs.iter().map(move |r| {
                let n = &p.negated[k..k + r.len as usize];
                k += r.len as usize;
                if r.kind == RunKind::OrAnd {
                    n.iter().map(|&x| x as usize).sum()
                } else {
                    0
                }
            })
        });
        per_run.sum()
    }

    /// Operands of all three phases (the length of their operand arrays).
    pub fn operands(&self) -> usize {
        self.core.args.len() + self.goal.args.len() + self.next.args.len()
    }

    /// Which techniques for large netlists ([`Tuning`]) the program uses, in words: e.g.
    /// `83 guards, 33210 fused products, skipping`, or `untuned`.
    pub fn tuning_summary(&self) -> String {
        let mut parts = Vec::new();
        // Operands in guarded runs, and in all runs, of a phase.
        let guarded = |phase: &Phase| {
            let (mut ops, mut k) = ((0usize, 0usize), 0usize);
            for run in &phase.runs {
                let used = phase.run_operands(k, run);
                ops.1 += used;
                if run.guard != NONE {
                    ops.0 += used;
                }
                k += run.len as usize;
            }
            ops
        };
        if !self.guards.is_empty() {
            let (core, next) = (guarded(&self.core), guarded(&self.next));
            parts.push(format!(
                "{} guards on {} of {} core and {} of {} next operands",
                self.guards.len(),
                core.0,
                core.1,
                next.0,
                next.1
            ));
        }
        let fused = self.fused_products();
        if fused > 0 {
            parts.push(format!("{fused} fused products"));
        }
        if self.skips_products {
            parts.push("skipping".to_string());
        }
        if !self.sums.is_empty() {
            let inputs = self.sums.targets.len();
            parts.push(format!(
                "{} input sums of {inputs} input operands",
                self.sums.count
            ));
        }
        if parts.is_empty() {
            "untuned".to_string()
        } else {
            parts.join(", ")
        }
    }
}

/// Number of [`RunKind::OrAnd`] products of `phase` whose first operand is a plain latch
/// (those [`crate::eval::run_skipping`] can skip), for a program of `latches` latches.
fn latch_led_products(phase: &Phase, latches: usize) -> usize {
    let (mut k, mut args) = (0usize, phase.args.as_slice());
    let mut led = 0;
    let latch_limit = 2 * latches as u32;
    for run in &phase.runs {
        for (&code, &pairs) in phase.codes[k..k + run.len as usize]
            .iter()
            .zip(&phase.negated[k..])
        {
            let (ops, rest) = args.split_at((code >> 1) as usize);
            args = rest;
            if run.kind == RunKind::OrAnd {
                let products = &ops[ops.len() - 2 * pairs as usize..];
                led += products
                    .chunks_exact(2)
                    .filter(|p| p[0] & 1 == 0 && p[0] < latch_limit)
                    .count();
            }
        }
        k += run.len as usize;
    }
    led
}

/// Appends instruction gate `i` (of a run of `kind`; its two operands swapped when `swap`)
/// to `phase`: its code, operands and [`Phase::negated`] entry.
fn place(
    phase: &mut Phase,
    net: &Netlist,
    folded: &Folded,
    slot_of: &[u32],
    i: usize,
    swap: bool,
    kind: RunKind,
) {
    let is_or = matches!(net.gates[i], Gate::Or(_));
    let (ops, pairs) = folded.expanded(i);
    phase
        .codes
        .push(((ops.len() as u32) << 1) | u32::from(is_or));
    let start = phase.args.len();
    phase
        .args
        .extend(ops.iter().map(|&o| folded.operand(slot_of, o)));
    if kind == RunKind::OrAnd {
        // A plain latch first in each pair, so that a block where it is 0 everywhere
        // skips the pair (`eval::run_skipping`).
        let latch = |o: Operand| o & 1 == 0 && slot(o) < folded.latches;
        let n = phase.args.len();
        for pair in phase.args[n - 2 * pairs..].chunks_exact_mut(2) {
            if !latch(pair[0]) && latch(pair[1]) {
                pair.swap(0, 1);
            }
        }
        phase.negated.push(pairs as u32);
        return;
    }
    if swap {
        phase.args.swap(start, start + 1);
    }
    // Plain operands first, negated ones last (stable).
    phase.args[start..].sort_by_key(|&o| o & 1);
    let negs = phase.args[start..].iter().filter(|&&o| o & 1 == 1).count();
    phase.negated.push(negs as u32);
}

/// Operands (of the next phase, for guards; of the whole program, for fused products) below
/// which a technique for large netlists does not pay for its checks: the slots of such a
/// program stay in the cache anyway.
const LARGE_MIN_OPERANDS: usize = 16_384;

/// Whether [`Program::compile_with`] uses the techniques for large netlists, none of which
/// changes results:
/// - zero guards on the next phase ([`crate::guard`]) and skip guards on the core phase
///   ([`crate::observe`]; a guarded program is run in lockstep blocks, lanes refilled
///   together);
/// - two-operand `And` gates fused into the one `Or` that reads them ([`RunKind::OrAnd`]);
/// - products skipped in blocks where their latch is 0 in every lane
///   ([`crate::eval::run_skipping`], [`Program::skips_products`]);
/// - input sums for the next phase's wide `Or`s ([`crate::sums`], [`Program::sums`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Tuning {
    /// Where the cost model says they pay. Guards, per phase: at least 16,384 operands,
    /// half of them in guarded instructions (hex 9×9's next phase: 94 k of 102 k; chess's
    /// core: 5.27 M of 5.45 M), counting only guards that cover at least
    /// [`MIN_GUARD_OPERANDS`]. Fusion: at least
    /// 16,384 operands in the program. Skipping: at least one product led by a latch per
    /// latch. Input sums: `Or`s of at least [`crate::sums::AUTO_MIN_INPUTS`] plain inputs of
    /// roles of at least [`crate::sums::AUTO_MIN_ROLE_MOVES`] legal entries.
    Auto,
    /// Wherever they apply (for tests).
    Always,
    /// Never.
    Never,
}

impl Tuning {
    /// Whether the technique applies to a program whose measure is `size`, given the
    /// threshold `auto` uses.
    fn pays(self, size: usize, threshold: usize) -> bool {
        match self {
            Tuning::Auto => size >= threshold,
            Tuning::Always => size > 0,
            Tuning::Never => false,
        }
    }
}

/// The guards of one phase ([`phase_guards`]).
struct PhaseGuards {
    /// Latches of each guard, numbered from the `first` that [`phase_guards`] was given.
    groups: Vec<Vec<u32>>,
    /// Per gate: its guards ([`NONE`] where absent; empty when the phase is unguarded).
    guards_of: Vec<[u32; ALTS]>,
    /// The key groups among the guards ([`crate::key`]).
    key_checks: Vec<KeyCheck>,
}

impl PhaseGuards {
    /// Number of guards.
    fn len(&self) -> u32 {
        self.groups.len() as u32
    }
}

/// The guards of phase `p`'s instructions, numbered from `first` in the order of the
/// groups that guard some instruction, and the guards of each gate; none (and every gate
/// [`NONE`]) where `tuning` says so. The next phase (2) uses zero guards
/// ([`crate::guard::guards`]), the core phase (0) skip guards
/// ([`crate::observe::skip_guards`]) and key guards ([`crate::key::key_guards`]; a gate
/// with one keeps it first, then its best skip guard).
fn phase_guards(
    net: &Netlist,
    info: &NetlistInfo,
    folded: &Folded,
    tuning: Tuning,
    p: usize,
    first: u32,
) -> PhaseGuards {
    let none = PhaseGuards {
        groups: Vec::new(),
        guards_of: Vec::new(),
        key_checks: Vec::new(),
    };
    let in_phase =
        |i: usize| folded.is_instruction(i) && phase_of(info, GateId(i as u32)) == Some(p);
    let members: Vec<usize> = info
        .ids()
        .map(|g| g.index())
        .filter(|&i| in_phase(i))
        .collect();
    let width = |i: usize| folded.width(i);
    let total: usize = members.iter().map(|&i| width(i)).sum();
    if !tuning.pays(total, LARGE_MIN_OPERANDS) {
        return none;
    }
    // Per guard: its key group, or NONE.
    let mut key_of: Vec<u32>;
    let mut key_groups: Vec<Vec<u32>> = Vec::new();
    let (mut groups, mut guards_of) = if p == 0 {
        let mut g = skip_guards(net, in_phase);
        key_of = vec![NONE; g.groups.len()];
        let keys = key_guards(net, in_phase);
        let base = g.groups.len() as u32;
        for (i, &[k1, k2]) in keys.guard_of.iter().enumerate() {
            if k1 != NONE {
                let second = if k2 == NONE {
                    g.guards_of[i][0]
                } else {
                    base + k2
                };
                g.guards_of[i] = [base + k1, second];
            }
        }
        for (q, set) in keys.sets {
            g.groups.push(set);
            key_of.push(q);
        }
        key_groups = keys.groups;
        (g.groups, g.guards_of)
    } else {
        let g = guards(net);
        key_of = vec![NONE; g.groups.len()];
        let of = g.group_of.iter().map(|&x| [x, NONE]).collect();
        (g.groups, of)
    };
    if tuning == Tuning::Auto && p == 0 {
        drop_small_guards(&members, &width, groups.len(), &mut guards_of);
    }
    let guarded: usize = members
        .iter()
        .filter(|&&i| guards_of[i][0] != NONE)
        .map(|&i| width(i))
        .sum();
    if tuning == Tuning::Auto && 2 * guarded < total {
        return none;
    }
    let mut renumber = vec![NONE; groups.len()];
    let mut used: Vec<Vec<u32>> = Vec::new();
    let mut key_checks: Vec<KeyCheck> = key_groups
        .into_iter()
        .map(|members| KeyCheck {
            members,
            guards: Vec::new(),
        })
        .collect();
    let mut out = vec![[NONE; ALTS]; net.gates.len()];
    for &i in &members {
        for (slot, &group) in out[i].iter_mut().zip(&guards_of[i]) {
            if group == NONE {
                continue;
            }
            let g = group as usize;
            if renumber[g] == NONE {
                renumber[g] = first + used.len() as u32;
                used.push(std::mem::take(&mut groups[g]));
                if let Some(check) = key_checks.get_mut(key_of[g] as usize) {
                    check.guards.push(renumber[g]);
                }
            }
            *slot = renumber[g];
        }
    }
    key_checks.retain(|c| !c.guards.is_empty());
    PhaseGuards {
        groups: used,
        guards_of: out,
        key_checks,
    }
}

/// Fewest operands a guard must cover to be kept ([`Tuning::Auto`]): each guard splits the
/// runs of every level it appears in, and a block checks it every step: many small guards
/// cost more than they skip (BENCHMARKS.md, "CPU simulator figures moved from module docs
/// (#39)").
const MIN_GUARD_OPERANDS: usize = 256;

/// Removes from `guards_of` (per gate, indexed by gate) the guards whose `members` cover
/// fewer than [`MIN_GUARD_OPERANDS`] operands (`width` per gate), keeping each gate's
/// remaining guards first.
fn drop_small_guards(
    members: &[usize],
    width: &impl Fn(usize) -> usize,
    groups: usize,
    guards_of: &mut [[u32; ALTS]],
) {
    let mut covered = vec![0usize; groups];
    for &i in members {
        for &g in guards_of[i].iter().filter(|&&g| g != NONE) {
            covered[g as usize] += width(i);
        }
    }
    for &i in members {
        let kept: Vec<u32> = guards_of[i]
            .iter()
            .copied()
            .filter(|&g| g != NONE && covered[g as usize] >= MIN_GUARD_OPERANDS)
            .collect();
        guards_of[i] = [NONE; ALTS];
        guards_of[i][..kept.len()].copy_from_slice(&kept);
    }
}

/// A run with its second guard ([`Phase::second_guards`]) and its gates, each with whether
/// its two operands are swapped to fit the run's kind.
type LeveledRun = ((Run, u32), Vec<(usize, bool)>);

/// The instruction gates of phase `p` in evaluation order, as runs: by level (1 + the
/// deepest operand instruction of the same phase; operands from earlier phases and leaves
/// are level 0), then by guard (`guard_of`, per gate; none when empty), then by
/// [`RunKind`], arena order within. Each gate comes with whether its
/// two operands are swapped to fit its kind.
fn levelized(
    net: &Netlist,
    info: &NetlistInfo,
    folded: &Folded,
    p: usize,
    guard_of: &[[u32; ALTS]],
) -> Vec<LeveledRun> {
    let mut level = vec![0u32; net.gates.len()];
    let mut members: Vec<(u32, [u32; ALTS], RunKind, usize, bool)> = Vec::new();
    for g in info.ids() {
        let i = g.index();
        if !folded.is_instruction(i) || phase_of(info, g) != Some(p) {
            continue;
        }
        let (ops, pairs) = folded.expanded(i);
        let deepest = ops
            .iter()
            .filter_map(|o| folded.instruction_of(*o))
            .map(|b| level[b])
            .max()
            .unwrap_or(0);
        level[i] = deepest + 1;
        let (kind, swap) = if pairs > 0 {
            (RunKind::OrAnd, false)
        } else if ops.len() == 2 {
            let is_or = matches!(net.gates[i], Gate::Or(_));
            RunKind::of_pair(is_or, [folded.negated(ops[0]), folded.negated(ops[1])])
        } else {
            (RunKind::Other, false)
        };
        let guards = guard_of.get(i).copied().unwrap_or([NONE; ALTS]);
        members.push((level[i], guards, kind, i, swap));
    }
    members.sort_by_key(|&(l, g, k, _, _)| (l, g, k));
    let mut out: Vec<LeveledRun> = Vec::new();
    for (l, guards, kind, i, swap) in members {
        match out.last_mut() {
            Some(((run, second), gates))
                if run.kind == kind && [run.guard, *second] == guards && level[gates[0].0] == l =>
            {
                run.len += 1;
                gates.push((i, swap));
            }
            _ => out.push((
                (
                    Run {
                        kind,
                        len: 1,
                        guard: guards[0],
                    },
                    guards[1],
                ),
                vec![(i, swap)],
            )),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use propnet_netlist::random::{random_netlist, RandomSpec};

    /// Each logic gate becomes at most one instruction (Not gates none), every operand
    /// reads an earlier slot, and phases are laid out back to back.
    #[test]
    fn instructions_are_few_and_ordered() {
        let (mut fused, mut summed) = (0, 0);
        for seed in 0..20 {
            let net = random_netlist(
                seed,
                &RandomSpec {
                    roles: 1 + seed as usize % 3,
                    ..Default::default()
                },
            );
            let info = propnet_netlist::validate(&net).unwrap();
            let p = Program::compile_with(&net, &info, Tuning::Always);
            let and_or = net
                .gates
                .iter()
                .filter(|g| matches!(g, Gate::And(_) | Gate::Or(_)))
                .count();
            assert!(
                p.instructions() <= and_or,
                "seed {seed}: {} > {and_or}",
                p.instructions()
            );
            assert_eq!(p.goal.first_slot, p.core.first_slot + p.core.len());
            assert_eq!(p.next.first_slot, p.goal.first_slot + p.goal.len());
            assert_eq!(p.slots, p.next.first_slot + p.next.len());
            assert_eq!(p.sums.first_slot, p.input_base + p.inputs);
            assert_eq!(p.core.first_slot, p.sums.first_slot + p.sums.count);
            summed += p.sums.count;
            for ph in [&p.core, &p.goal, &p.next] {
                let total: u32 = ph.runs.iter().map(|r| r.len).sum();
                assert_eq!(
                    total as usize,
                    ph.len(),
                    "seed {seed}: runs cover the phase"
                );
                let (mut k, mut args) = (0usize, ph.args.as_slice());
                for run in &ph.runs {
                    let start = ph.first_slot + k;
                    for &code in &ph.codes[k..k + run.len as usize] {
                        let (ops, rest) = args.split_at((code >> 1) as usize);
                        args = rest;
                        let negs = [ops[0] & 1, ops[1 % ops.len()] & 1];
                        let want = match run.kind {
                            RunKind::And => Some((4, [0, 0])),
                            RunKind::AndNot => Some((4, [0, 1])),
                            RunKind::Nor => Some((4, [1, 1])),
                            RunKind::Or => Some((5, [0, 0])),
                            RunKind::OrNot => Some((5, [0, 1])),
                            RunKind::Nand => Some((5, [1, 1])),
                            RunKind::Other | RunKind::OrAnd => None,
                        };
                        assert!(
                            want.is_none_or(|w| w == (code, negs)),
                            "seed {seed}: run kind"
                        );
                        assert!(
                            ops.iter().all(|&o| slot(o) < start),
                            "seed {seed}: a run reads only slots before it"
                        );
                    }
                    k += run.len as usize;
                }
                let kinds = ph.runs.iter().flat_map(|r| (0..r.len).map(move |_| r.kind));
                let mut args = ph.args.as_slice();
                for (k, (&code, kind)) in ph.codes.iter().zip(kinds).enumerate() {
                    let (ops, rest) = args.split_at((code >> 1) as usize);
                    args = rest;
                    if kind == RunKind::OrAnd {
                        let pairs = ph.negated[k] as usize;
                        assert!(code & 1 == 1 && pairs >= 1 && 2 * pairs <= ops.len());
                        fused += pairs;
                    }
                    // An `Or` of inputs only reads its input sum alone.
                    let sums = p.sums.first_slot..p.sums.first_slot + p.sums.count;
                    assert!(
                        ops.len() >= 2 || sums.contains(&slot(ops[0])),
                        "seed {seed}: trivial gates are aliases"
                    );
                    assert!(
                        ops.iter().all(|&o| slot(o) < ph.first_slot + k),
                        "seed {seed}: operand not earlier"
                    );
                }
                // Goal-only instructions are never read by the core or next phases.
                if !std::ptr::eq(ph, &p.goal) {
                    let goal = p.goal.first_slot..p.next.first_slot;
                    assert!(
                        ph.args.iter().all(|&o| !goal.contains(&slot(o))),
                        "seed {seed}"
                    );
                }
            }
        }
        assert!(fused > 0, "no And gate was fused into its Or");
        assert!(summed > 0, "no Or of inputs got an input sum");
    }

    /// Fusion keeps every gate with another reader (here: the output and a second `Or`)
    /// an instruction, and fuses the one a single `Or` reads, its latch operand first.
    #[test]
    fn fuses_only_single_reader_products() {
        use propnet_netlist::{Goal, Input, InputId, Latch, LatchId, Legal, Role, RoleId};
        let g = GateId;
        let latch = |name: &str, next| Latch {
            name: name.into(),
            init: false,
            next: g(next),
        };
        let net = Netlist {
            gates: vec![
                Gate::Latch(LatchId(0)),
                Gate::Latch(LatchId(1)),
                Gate::Latch(LatchId(2)),
                Gate::Input(InputId(0)),
                Gate::And(vec![g(3), g(0)]),      // 4: read once, by 6
                Gate::And(vec![g(1), g(2)]),      // 5: read by 6, 7 and latch c
                Gate::Or(vec![g(4), g(5), g(2)]), // 6
                Gate::Or(vec![g(5), g(0)]),       // 7
                Gate::Const(true),
            ],
            latches: vec![latch("a", 6), latch("b", 7), latch("c", 5)],
            inputs: vec![Input {
                role: RoleId(0),
                name: "x".into(),
            }],
            roles: vec![Role {
                percepts: Vec::new(),
                name: "r".into(),
                legal: vec![Legal {
                    input: InputId(0),
                    gate: g(8),
                }],
                goals: vec![Goal {
                    value: 100,
                    gate: g(0),
                }],
            }],
            terminal: g(0),
            ..Default::default()
        };
        let info = propnet_netlist::validate(&net).unwrap();
        assert!(
            Program::compile(&net, &info)
                .next
                .runs
                .iter()
                .all(|r| r.kind != RunKind::OrAnd),
            "a small program is not fused unless asked"
        );
        let p = Program::compile_with(&net, &info, Tuning::Always);
        assert!(p.skips_products);
        let next = &p.next;
        assert_eq!(
            next.len(),
            3,
            "twice, or1 and or2 are instructions; once is fused"
        );
        let k = next
            .runs
            .iter()
            .position(|r| r.kind == RunKind::OrAnd)
            .unwrap();
        let start: usize = next.runs[..k].iter().map(|r| r.len as usize).sum();
        let before: usize = next.codes[..start].iter().map(|c| (c >> 1) as usize).sum();
        let ops = &next.args[before..before + (next.codes[start] >> 1) as usize];
        assert_eq!(next.negated[start], 1);
        assert_eq!(ops.len(), 4, "two single operands and one pair");
        assert_eq!(slot(ops[2]), 0, "latch a comes first in its pair");
    }
}
