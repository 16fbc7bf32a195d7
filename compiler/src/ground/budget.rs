//! Grounding limits: memory for the grounder's tables, wall-clock time, and term depth,
//! with defaults sized to the machine; and the meter that checks them while grounding.

use std::time::{Duration, Instant};

/// Limits on grounding work. A game that needs more fails with
/// [`super::GroundError::Budget`] naming the rule being grounded, instead of hanging or
/// running the machine out of memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Budget {
    /// Most bytes the grounder's tables may hold: terms, atoms, indexes, answers of
    /// on-demand relations, rule instances and the netlist's gates (counted from the
    /// tables' capacities; the process uses somewhat more). Default: [`default_memory`].
    pub max_memory: usize,
    /// Wall-clock limit for grounding and building the netlist. Default 300 s.
    pub max_time: Duration,
    /// Deepest ground term (a constant has depth 1). Default 40.
    pub max_term_depth: u32,
    /// Most atoms (all relations, answers of on-demand relations included). Default
    /// 100 million, so that by default memory is the limit; a GGP player lowers it to fall
    /// back to the interpreter early.
    pub max_atoms: usize,
}

/// The default memory budget: an eighth of the machine's physical memory (from
/// `/proc/meminfo`; 16 GiB assumed where it cannot be read), at least 512 MiB and at
/// most 6 GiB. On a 24 GiB machine that is 3 GiB.
pub fn default_memory() -> usize {
    const MIB: usize = 1 << 20;
    let physical = physical_memory().unwrap_or(16 << 30);
    (physical / 8).clamp(512 * MIB, 6 << 30)
}

/// Physical memory in bytes, where the OS tells (Linux).
fn physical_memory() -> Option<usize> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: usize = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

impl Default for Budget {
    fn default() -> Self {
        Budget {
            max_memory: default_memory(),
            max_time: Duration::from_secs(300),
            max_term_depth: 40,
            max_atoms: 100_000_000,
        }
    }
}

/// Which budget limit was hit.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum BudgetKind {
    /// The grounder's tables outgrew [`Budget::max_memory`].
    Memory,
    /// A ground term nested deeper than [`Budget::max_term_depth`].
    TermDepth,
    /// Grounding took longer than [`Budget::max_time`].
    Seconds,
    /// More atoms than [`Budget::max_atoms`].
    Atoms,
}

impl BudgetKind {
    /// The `propnet` flag that raises this limit.
    pub fn flag(self) -> &'static str {
        match self {
            BudgetKind::Memory => "--ground-memory-mib",
            BudgetKind::TermDepth => "--ground-term-depth",
            BudgetKind::Seconds => "--ground-seconds",
            BudgetKind::Atoms => "--ground-atoms",
        }
    }
}

/// The limit that was exceeded, for messages: `3072 MiB of grounding tables`.
pub(super) fn limit_text(kind: BudgetKind, b: &Budget) -> String {
    match kind {
        BudgetKind::Memory => format!("{} MiB of grounding tables", b.max_memory >> 20),
        BudgetKind::TermDepth => format!("term depth {}", b.max_term_depth),
        BudgetKind::Seconds => format!("{} s of grounding", b.max_time.as_secs_f64()),
        BudgetKind::Atoms => format!("{} atoms", b.max_atoms),
    }
}

/// Checks a [`Budget`] while grounding.
#[derive(Clone, Debug)]
pub(super) struct Meter {
    /// The limits.
    pub budget: Budget,
    /// When grounding started.
    pub start: Instant,
}

impl Meter {
    /// A meter started now.
    pub fn new(budget: Budget) -> Self {
        Meter {
            budget,
            start: Instant::now(),
        }
    }

    /// The wall-clock deadline.
    pub fn deadline(&self) -> Instant {
        self.start
            .checked_add(self.budget.max_time)
            .unwrap_or_else(|| self.start + Duration::from_secs(365 * 24 * 3600))
    }

    /// True when the deadline has passed.
    pub fn late(&self) -> bool {
        Instant::now() > self.deadline()
    }

    /// True when `bytes` exceed the memory budget.
    pub fn over(&self, bytes: usize) -> bool {
        bytes > self.budget.max_memory
    }
}
