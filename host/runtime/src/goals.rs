//! The goal policy for ill-formed goal outputs, and an audit that counts where it applied.
//!
//! GDL requires exactly one goal value per role in every terminal state. When a game breaks
//! that, every command and backend (the CPU simulator, the GPU kernel, the Verilog engine,
//! the reference playout, `solve`, `match`, MCTS) applies one rule, defined once in
//! [`propnet_netlist::playout::goals_of`]: **a role's goal is the highest value whose goal
//! output holds, and 0 when none holds.** The reference interpreter's trace flags such
//! states (`multiple_goals`, as the oracle does); the netlist commands report them through
//! [`audit`]: `propnet run` replays a sample of its own playouts (the same seed and
//! playout indices, so the same games as every backend plays) and prints how many of their
//! terminal states needed the rule.

use propnet_netlist::playout::{eval_gates, reference_playout, PlayoutEnd};
use propnet_netlist::Netlist;
use std::time::{Duration, Instant};

/// Counts of terminal states, among sampled playouts, where the goal policy applied.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct GoalAudit {
    /// Playouts replayed.
    pub playouts: u64,
    /// Of those, playouts that ended in a terminal state.
    pub terminal: u64,
    /// Terminal states where some role had two or more goal values (the highest counted).
    pub several_goals: u64,
    /// Terminal states where some role had no goal value (0 counted).
    pub no_goal: u64,
}

impl GoalAudit {
    /// True when the policy never had to apply in the sample.
    pub fn is_clean(&self) -> bool {
        self.several_goals == 0 && self.no_goal == 0
    }

    /// The one-line warning every command prints when the policy had to apply in the
    /// sample (`None` when it is clean).
    pub fn warning(&self) -> Option<String> {
        (!self.is_clean()).then(|| {
            format!(
                "warning: ill-formed goals in {} of {} replayed terminal states: {} with several \
                 values for a role (the highest counts), {} with none (0 counts)",
                self.several_goals + self.no_goal,
                self.terminal,
                self.several_goals,
                self.no_goal
            )
        })
    }
}

/// The sample `match`, `solve` and `best` check before they play: [`audit`] of playouts
/// `0..256` of seed 1, cut at 1000 joint moves, within 0.3 s.
pub fn audit_sample(net: &Netlist) -> GoalAudit {
    audit(net, 1, 1000, 256, Duration::from_millis(300))
}

/// Replays playouts `0..count` of `seed` from the initial state (stopping early after
/// `time`) and counts terminal states with several or no goal values for a role.
pub fn audit(net: &Netlist, seed: u64, max_steps: u32, count: u32, time: Duration) -> GoalAudit {
    let t0 = Instant::now();
    let start = net.initial_state();
    let no_inputs = vec![false; net.inputs.len()];
    let mut a = GoalAudit::default();
    for index in 0..count {
        if t0.elapsed() >= time {
            break;
        }
        let rec = reference_playout(net, &start, seed, index, max_steps);
        a.playouts += 1;
        if rec.end != PlayoutEnd::Terminal {
            continue;
        }
        a.terminal += 1;
        let state: Vec<bool> = (0..net.latches.len())
            .map(|l| rec.final_state[l / 64] >> (l % 64) & 1 == 1)
            .collect();
        let values = eval_gates(net, &state, &no_inputs);
        let held =
            |r: &propnet_netlist::Role| r.goals.iter().filter(|g| values[g.gate.index()]).count();
        // GDL-II's `random` (a chance role) has no goals that matter
        let scored = || net.roles.iter().filter(|r| r.name != "random");
        a.several_goals += u64::from(scored().any(|r| held(r) > 1));
        a.no_goal += u64::from(scored().any(|r| held(r) == 0));
    }
    a
}
