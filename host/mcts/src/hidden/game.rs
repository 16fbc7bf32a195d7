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
    let (end, goals) = loop {
        let values = scalar.view(&state);
        let end = if values[net.terminal.index()] {
            Some("terminal")
        } else if moves.len() as u32 >= max_steps {
            Some("step limit")
        } else if propnet_runtime::stop::requested() {
            Some("interrupted")
        } else {
            None
        };
        let legal = propnet_netlist::playout::legal_of(net, values);
        let end = end.or_else(|| legal.iter().any(Vec::is_empty).then_some("no legal move"));
        if let Some(end) = end {
            break (end, propnet_netlist::playout::goals_of(net, values));
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
    Ok(GameRecord {
        index,
        seats: seats.to_vec(),
        opening: 0,
        moves,
        goals,
        end: end.to_string(),
    })
}
