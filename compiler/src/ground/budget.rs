//! Grounding limits: memory for the grounder's tables, CPU time, and term depth, with
//! defaults sized to the machine; and the meter that checks them while grounding.

use cpu_time::ThreadTime;
use propnet_netlist::Cancel;
use std::time::Duration;

/// Limits on grounding work. A game that needs more fails with
/// [`super::GroundError::Budget`] naming the rule being grounded, instead of hanging or
/// running the machine out of memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Budget {
    /// Most bytes the grounder's tables may hold: terms, atoms, indexes, answers of
    /// on-demand relations, rule instances and the netlist's gates (counted from the
    /// tables' capacities; the process uses somewhat more). Default: [`default_memory`].
    pub max_memory: usize,
    /// Limit on the CPU time of grounding and building the netlist (of the thread that
    /// grounds, so the verdict does not depend on what else the machine runs). Default
    /// 300 s.
    pub max_time: Duration,
    /// Deepest ground term (a constant has depth 1). Default 40.
    pub max_term_depth: u32,
    /// Most atoms (all relations, answers of on-demand relations included). Default
    /// 100 million, so that by default memory is the limit; a GGP player lowers it to fall
    /// back to the interpreter early.
    pub max_atoms: usize,
    /// Most states the fallback for games whose relaxed reachability diverges may visit
    /// ([`super::explore`]: when grounding stops at the term-depth limit, the states
    /// reachable in play are enumerated and grounding runs again over them). 0 turns the
    /// fallback off. Default [`super::explore::MAX_STATES`].
    pub max_explored_states: usize,
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
            max_explored_states: super::explore::MAX_STATES,
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
    /// Grounding took more CPU time than [`Budget::max_time`].
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
        BudgetKind::Seconds => format!("{} s of grounding CPU time", b.max_time.as_secs_f64()),
        BudgetKind::Atoms => format!("{} atoms", b.max_atoms),
    }
}

/// The time limit of one grounding: [`Budget::max_time`] of CPU time on the thread that
/// made it (the grounder runs on one thread), or the caller's [`Cancel`] flag.
#[derive(Clone, Debug)]
pub(super) struct Deadline {
    start: ThreadTime,
    limit: Duration,
    cancel: Cancel,
}

impl Deadline {
    /// True when the thread has used more CPU time than the limit since the start, or
    /// the work was cancelled.
    pub fn passed(&self) -> bool {
        self.cancel.is_cancelled() || self.start.elapsed() > self.limit
    }
}

/// Checks a [`Budget`] while grounding.
#[derive(Clone, Debug)]
pub(super) struct Meter {
    /// The limits.
    pub budget: Budget,
    /// The time limit, started when the meter was.
    deadline: Deadline,
}

impl Meter {
    /// A meter started now, on the thread that grounds; `cancel` stops it like the time
    /// limit.
    pub fn new(budget: Budget, cancel: Cancel) -> Self {
        let deadline = Deadline {
            start: ThreadTime::now(),
            limit: budget.max_time,
            cancel,
        };
        Meter { budget, deadline }
    }

    /// The time limit.
    pub fn deadline(&self) -> Deadline {
        self.deadline.clone()
    }

    /// True when the time limit has passed.
    pub fn late(&self) -> bool {
        self.deadline.passed()
    }

    /// True when `bytes` exceed the memory budget.
    pub fn over(&self, bytes: usize) -> bool {
        bytes > self.budget.max_memory
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The time limit counts this thread's CPU time: waiting does not use it up, work does.
    #[test]
    fn deadline_counts_cpu_time_not_waiting() {
        let meter = Meter::new(
            Budget {
                max_time: Duration::from_millis(30),
                ..Budget::default()
            },
            Cancel::never(),
        );
        std::thread::sleep(Duration::from_millis(100));
        assert!(
            !meter.late(),
            "100 ms asleep used up a 30 ms CPU-time limit"
        );
        let (mut x, mut spins) = (1u64, 0u64);
        while !meter.late() {
            for _ in 0..10_000 {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
            }
            spins += 1;
            assert!(spins < 1 << 32, "the limit never passed");
        }
        assert_ne!(x, 0);
    }
}
