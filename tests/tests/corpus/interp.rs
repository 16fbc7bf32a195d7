//! Propnet vs reference interpreter on one compiled game: random playouts (joint moves from
//! a seeded generator) step both the netlist (scalar, one evaluation per step through
//! [`NetStepper`]) and the interpreter, comparing the state's fluents, every role's legal
//! moves, goals and terminal at every step. Large games get fewer playouts (at least one).

use propnet_compiler::gdl::Program;
use propnet_compiler::interp::{GoalValue, Interp};
use propnet_netlist::Netlist;
use propnet_tests::{NetStepper, TestRng};

/// Steps per playout at most.
const MAX_STEPS: usize = 150;
/// Gate evaluations per game (one per step) that size the number of playouts.
const GATE_EVALS_PER_GAME: usize = 20_000_000;

/// Playouts for a netlist of this many gates: 10 for small games, fewer for large ones
/// (never zero), so the whole test stays within CI's time.
fn playouts(gates: usize) -> usize {
    (GATE_EVALS_PER_GAME / ((gates + 1) * MAX_STEPS)).clamp(1, 10)
}

/// Compares `net` (the raw grounding of `program`) with the interpreter; the number of
/// steps compared, `None` when the interpreter does not take the game, `Err` at the first
/// difference.
pub fn compare(net: &Netlist, program: &Program) -> Result<Option<usize>, String> {
    let Ok(mut interp) = Interp::new(program) else {
        return Ok(None);
    };
    let m = NetStepper::new(net);
    let max_steps = MAX_STEPS;
    let playouts = playouts(net.gates.len());
    let mut rng = TestRng::new(0x5eed);
    let mut steps = 0;
    for p in 0..playouts {
        let mut ns = net.initial_state();
        let mut is = interp.initial_state().map_err(|e| format!("interp: {e}"))?;
        for step in 0..=max_steps {
            let at = format!("playout {p} step {step}");
            let mut pos = interp
                .evaluate(&is)
                .map_err(|e| format!("{at}: interp: {e}"))?;
            let mut values = m.view(&ns);
            let net_state: Vec<&str> = net.true_fluents(&ns);
            let int_state = interp.state_text(&is);
            if net_state != int_state {
                return Err(format!(
                    "{at}: state differs\n netlist: {net_state:?}\n interp:  {int_state:?}"
                ));
            }
            let net_terminal = values[net.terminal.index()];
            if net_terminal != interp.terminal_in(&pos) {
                return Err(format!("{at}: terminal differs (netlist {net_terminal})"));
            }
            let legal = propnet_netlist::playout::legal_of(net, &values);
            let int_goals = interp.goals_in(&pos);
            let mut joint_net = Vec::new();
            let mut joint_int = Vec::new();
            for (r, role) in net.roles.iter().enumerate() {
                let nl: Vec<&str> = legal[r]
                    .iter()
                    .map(|&i| net.inputs[i.index()].name.as_str())
                    .collect();
                let il = interp.legal_in(&pos, r);
                let il_text: Vec<&str> = il.iter().map(|(t, _)| t.as_str()).collect();
                if nl != il_text {
                    return Err(format!(
                        "{at}: legal moves of {} differ\n netlist: {nl:?}\n interp:  {il_text:?}",
                        role.name
                    ));
                }
                let ng: Vec<i128> = role
                    .goals
                    .iter()
                    .filter(|g| values[g.gate.index()])
                    .map(|g| g.value as i128)
                    .collect();
                let mut ig: Vec<i128> = Vec::new();
                for g in &int_goals[r] {
                    match g {
                        GoalValue::Int(v) => ig.push(*v),
                        GoalValue::Text(t) => return Err(format!("{at}: non-numeric goal {t}")),
                    }
                }
                ig.sort_unstable();
                ig.dedup();
                if ng != ig {
                    return Err(format!(
                        "{at}: goals of {} differ: netlist {ng:?}, interp {ig:?}",
                        role.name
                    ));
                }
                if !nl.is_empty() {
                    let k = rng.below(nl.len());
                    joint_net.push(legal[r][k]);
                    joint_int.push(il[k].1);
                }
            }
            steps += 1;
            if net_terminal || joint_net.len() < net.roles.len() || step == max_steps {
                break;
            }
            ns = m.next(&mut values, &joint_net);
            is = interp
                .next_from(&mut pos, &joint_int)
                .map_err(|e| format!("{at}: interp: {e}"))?;
        }
    }
    Ok(Some(steps))
}
