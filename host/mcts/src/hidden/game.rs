//! One game under hidden information: the referee holds the true state.

use super::HiddenPlayer;
use crate::matches::GameRecord;
use propnet_netlist::rng::{choose, draw};
use propnet_netlist::scalar::ScalarNet;
use propnet_netlist::{InputId, Netlist};
use propnet_runtime::backend::BackendError;

/// The role named `random` (GDL-II's chance role, played by the referee), if any.
pub fn random_role(net: &Netlist) -> Option<usize> {
    net.roles.iter().position(|r| r.name == "random")
}

/// Plays game `index` of `net`: the players in `seats` (per role, an index into `players`;
/// the `random` role's entry is ignored) choose from their legal moves; the referee draws
/// `random`'s move uniformly with the project RNG (`draw(seed, index, step, role)`), then
/// tells each player its own move and its percepts. Stops at a terminal state, when a
/// role has no legal move, or after `max_steps` joint moves.
///
/// # Errors
/// A [`BackendError`] from a player's backend.
pub fn play_hidden_game(
    net: &Netlist,
    players: &mut [Box<dyn HiddenPlayer>],
    seats: &[usize],
    index: u64,
    seed: u64,
    max_steps: u32,
) -> Result<GameRecord, BackendError> {
    let chance = random_role(net);
    let mut scalar = ScalarNet::new(net);
    for (r, &p) in seats.iter().enumerate() {
        if Some(r) != chance {
            players[p].new_game(net, r, index);
        }
    }
    let mut state = net.initial_state();
    let mut moves = Vec::new();
    let end = loop {
        let values = scalar.view(&state);
        if values[net.terminal.index()] {
            break "terminal";
        }
        if moves.len() as u32 >= max_steps {
            break "step limit";
        }
        if propnet_runtime::stop::requested() {
            break "interrupted";
        }
        let legal = propnet_netlist::playout::legal_of(net, values);
        if legal.iter().any(Vec::is_empty) {
            break "no legal move";
        }
        let step = moves.len() as u32;
        let mut joint: Vec<InputId> = Vec::with_capacity(seats.len());
        for (r, &p) in seats.iter().enumerate() {
            let m = if Some(r) == chance {
                let x = draw(seed, index as u32, step, r as u32);
                legal[r][choose(x, legal[r].len() as u32) as usize]
            } else {
                players[p].choose(net, &legal[r])?
            };
            joint.push(m);
        }
        let (next, percepts) = scalar.next_with_percepts(net, &state, &joint);
        for (r, &p) in seats.iter().enumerate() {
            if Some(r) != chance {
                players[p].observe(net, joint[r], &percepts[r]);
            }
        }
        moves.push(
            joint
                .iter()
                .map(|&i| net.inputs[i.index()].name.clone())
                .collect(),
        );
        state = next;
    };
    let values = eval_goals(net, &mut scalar, &state);
    Ok(GameRecord {
        index,
        seats: seats.to_vec(),
        opening: 0,
        moves,
        goals: values,
        end: end.to_string(),
    })
}

/// Goal value per role of `state` (largest true goal, 0 if none).
fn eval_goals(net: &Netlist, scalar: &mut ScalarNet, state: &[bool]) -> Vec<u8> {
    propnet_netlist::playout::goals_of(net, scalar.view(state))
}
