//! Propnet vs reference interpreter: for every corpus game the front end accepts and the
//! grounder compiles, random playouts (joint moves from a seeded generator) step both the
//! netlist (scalar `eval_gates` through `NetMachine`) and the interpreter, comparing the
//! state's fluents, every role's legal moves, goals and terminal at every step.

use propnet_compiler::gdl;
use propnet_compiler::ground::{compile, CompileOptions};
use propnet_compiler::interp::{GoalValue, Interp};
use propnet_compiler::playout::eval_gates;
use propnet_host::machine::NetMachine;
use propnet_tests::{files_with_ext, shared_dir, too_big, TestRng};

/// Playouts and step limit for a netlist of this many gates: small games get 20 playouts,
/// large ones fewer (never zero), so the whole test stays fast at opt-level 1.
fn effort(gates: usize) -> (usize, usize) {
    let playouts = (400_000 / (gates + 1)).clamp(2, 20);
    (playouts, 150)
}

fn compare_game(path: &std::path::Path) -> Result<usize, String> {
    if too_big(path) {
        return Ok(0);
    }
    let Ok(game) = gdl::load(path) else { return Ok(0) };
    let Ok(net) = compile(&game.program, &CompileOptions::default()) else { return Ok(0) };
    let Ok(mut interp) = Interp::new(&game.program) else { return Ok(0) };
    let m = NetMachine::new(&net);
    let (playouts, max_steps) = effort(net.gates.len());
    let mut rng = TestRng::new(0x5eed);
    let mut steps = 0;
    for p in 0..playouts {
        let mut ns = m.initial_state();
        let mut is = interp.initial_state().map_err(|e| format!("interp: {e}"))?;
        for step in 0..=max_steps {
            let at = format!("playout {p} step {step}");
            let pos = interp.evaluate(&is).map_err(|e| format!("{at}: interp: {e}"))?;
            let net_state: Vec<&str> = m.state_fluents(&ns);
            let int_state = interp.state_text(&is);
            if net_state != int_state {
                return Err(format!(
                    "{at}: state differs\n netlist: {net_state:?}\n interp:  {int_state:?}"
                ));
            }
            let net_terminal = m.is_terminal(&ns);
            if net_terminal != interp.terminal_in(&pos) {
                return Err(format!("{at}: terminal differs (netlist {net_terminal})"));
            }
            let values = eval_gates(&net, &ns, &vec![false; net.inputs.len()]);
            let legal = m.legal_moves(&ns);
            let int_goals = interp.goals_in(&pos);
            let mut joint_net = Vec::new();
            let mut joint_int = Vec::new();
            for (r, role) in net.roles.iter().enumerate() {
                let nl: Vec<&str> = legal[r].iter().map(|&i| m.move_name(i)).collect();
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
            ns = m.next_state(&ns, &joint_net);
            is = interp.next_from(&pos, &joint_int).map_err(|e| format!("{at}: interp: {e}"))?;
        }
    }
    Ok(steps)
}

#[test]
fn propnet_matches_interpreter_on_random_playouts() {
    let Some(shared) = shared_dir() else { return };
    let mut failures = Vec::new();
    let mut games = 0;
    for path in files_with_ext(&shared.join("games"), "kif") {
        match compare_game(&path) {
            Ok(0) => {}
            Ok(steps) => {
                games += 1;
                println!("{}: {steps} steps agree", path.display());
            }
            Err(e) => failures.push(format!("{}: {e}", path.display())),
        }
    }
    println!("{games} games compared");
    assert!(games > 0, "no game was compared");
    assert!(failures.is_empty(), "{} games differ:\n{}", failures.len(), failures.join("\n\n"));
}
