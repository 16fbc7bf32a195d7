//! Replays the oracle's golden random-playout traces (`shared/traces/**/*.jsonl`, format in
//! `shared/oracle/README.md`) through the compiled netlist: at every line the state's
//! fluents, terminal, every role's legal moves and goal values must match, and the line's
//! joint move drives the next state.

use std::collections::BTreeSet;

use propnet_compiler::gdl;
use propnet_compiler::ground::{compile, CompileOptions};
use propnet_compiler::netlist::Netlist;
use propnet_compiler::playout::eval_gates;
use propnet_host::machine::NetMachine;
use propnet_tests::{files_with_ext, shared_dir, too_big};
use serde_json::Value;

/// At most this many gate evaluations per game, to keep the test fast at opt-level 1;
/// large games replay fewer lines (at least 50).
const GATE_EVALS_PER_GAME: usize = 100_000_000;

fn goal_set(v: &Value) -> Result<BTreeSet<u8>, String> {
    let one = |x: &Value| x.as_u64().filter(|&g| g <= 100).map(|g| g as u8).ok_or(format!("goal {x}"));
    match v {
        Value::Null => Ok(BTreeSet::new()),
        Value::Array(a) => a.iter().map(one).collect(),
        x => Ok(BTreeSet::from([one(x)?])),
    }
}

fn strings(v: &Value) -> Vec<&str> {
    v.as_array().map(|a| a.iter().filter_map(Value::as_str).collect()).unwrap_or_default()
}

fn replay(net: &Netlist, text: &str) -> Result<usize, String> {
    let m = NetMachine::new(net);
    let max_lines = (GATE_EVALS_PER_GAME / (2 * net.gates.len() + 1)).max(50);
    let mut lines = text.lines();
    let header: Value = serde_json::from_str(lines.next().ok_or("empty trace")?).map_err(|e| e.to_string())?;
    let roles = strings(&header["roles"]);
    let net_roles: Vec<&str> = net.roles.iter().map(|r| r.name.as_str()).collect();
    if roles != net_roles {
        return Err(format!("roles differ: trace {roles:?}, netlist {net_roles:?}"));
    }
    let mut state = m.initial_state();
    let mut checked = 0;
    for line in lines.take(max_lines) {
        let v: Value = serde_json::from_str(line).map_err(|e| e.to_string())?;
        let at = format!("playout {} step {}", v["playout"], v["step"]);
        if v["step"] == 0 {
            state = m.initial_state();
        }
        let want: Vec<&str> = strings(&v["state"]);
        let got = m.state_fluents(&state);
        if got != want {
            return Err(format!("{at}: state differs\n netlist: {got:?}\n trace:   {want:?}"));
        }
        if m.is_terminal(&state) != v["terminal"].as_bool().unwrap_or(false) {
            return Err(format!("{at}: terminal differs"));
        }
        let values = eval_gates(net, &state, &vec![false; net.inputs.len()]);
        let legal = m.legal_moves(&state);
        let mut joint = Vec::new();
        for (r, role) in net.roles.iter().enumerate() {
            let got: Vec<&str> = legal[r].iter().map(|&i| m.move_name(i)).collect();
            let want = strings(&v["legal"][&role.name]);
            if got != want {
                return Err(format!("{at}: legal of {} differs\n netlist: {got:?}\n trace:   {want:?}", role.name));
            }
            let got: BTreeSet<u8> =
                role.goals.iter().filter(|g| values[g.gate.index()]).map(|g| g.value).collect();
            let want = goal_set(&v["goals"][&role.name]).map_err(|e| format!("{at}: {e}"))?;
            if got != want {
                return Err(format!("{at}: goals of {} differ: netlist {got:?}, trace {want:?}", role.name));
            }
            if let Some(mv) = v["joint"][&role.name].as_str() {
                let input = legal[r]
                    .iter()
                    .copied()
                    .find(|&i| m.move_name(i) == mv)
                    .ok_or(format!("{at}: trace move {mv} of {} is not legal in the netlist", role.name))?;
                joint.push(input);
            }
        }
        checked += 1;
        if joint.len() == net.roles.len() {
            state = m.next_state(&state, &joint);
        }
    }
    Ok(checked)
}

#[test]
fn oracle_traces_replay_through_the_netlist() {
    let Some(shared) = shared_dir() else { return };
    let traces = shared.join("traces");
    let mut failures = Vec::new();
    let mut games = 0;
    for trace in files_with_ext(&traces, "jsonl") {
        let rel = trace.strip_prefix(&traces).unwrap().with_extension("kif");
        if too_big(&rel) {
            continue;
        }
        let Ok(game) = gdl::load(&shared.join("games").join(&rel)) else { continue };
        let Ok(net) = compile(&game.program, &CompileOptions::default()) else { continue };
        let text = std::fs::read_to_string(&trace).unwrap();
        match replay(&net, &text) {
            Ok(n) => {
                games += 1;
                println!("{}: {n} lines agree", rel.display());
            }
            Err(e) => failures.push(format!("{}: {e}", rel.display())),
        }
    }
    println!("{games} games replayed");
    assert!(games > 0, "no trace was replayed");
    assert!(failures.is_empty(), "{} games differ:\n{}", failures.len(), failures.join("\n\n"));
}
