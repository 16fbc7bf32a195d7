//! Factored vs unfactored simulation of one compiled game ([`find_factors`]): random
//! playouts step the whole netlist and, beside it, each factor on its own, in a state whose
//! other factors' latches are random bits drawn anew each step. The factors' latches put
//! together with the shared ones must equal the whole game's state at every step (so its
//! legal moves, goals and terminal are the same), and each factor's own moves must be legal
//! exactly when they are in the whole game. The shared latches are stepped with every
//! move-dependent latch random and another joint move, and must not differ either. A false
//! factor (a latch read across factors, a move that touches a factor it is not listed
//! for) fails at the first step where it matters.

use propnet_netlist::factors::{find_factors, Factor, Factors};
use propnet_netlist::playout::legal_of;
use propnet_netlist::scalar::ScalarNet;
use propnet_netlist::{InputId, Netlist};
use propnet_tests::TestRng;

/// Steps per playout at most.
const MAX_STEPS: usize = 150;
/// Gate evaluations per game that size the number of playouts.
const GATE_EVALS_PER_GAME: usize = 10_000_000;

/// The factors found, and the steps compared (0 for a game of fewer than two factors,
/// which has nothing to compare); `Err` at the first difference.
pub fn compare(net: &Netlist) -> Result<(Factors, usize), String> {
    let factors = find_factors(net);
    let steps = if factors.is_factored() {
        check(net, &factors)?
    } else {
        0
    };
    Ok((factors, steps))
}

/// Steps `net` whole and as `factors` (see the module docs); the steps compared, or the
/// first difference.
pub fn check(net: &Netlist, factors: &Factors) -> Result<usize, String> {
    let k = factors.factors.len();
    let playouts =
        (GATE_EVALS_PER_GAME / ((net.gates.len() + 1) * MAX_STEPS * (k + 2))).clamp(1, 10);
    let mut owner = vec![None; net.latches.len()];
    for (f, factor) in factors.factors.iter().enumerate() {
        factor
            .latches
            .iter()
            .for_each(|l| owner[l.index()] = Some(f));
    }
    let mut sim = ScalarNet::new(net);
    let mut rng = TestRng::new(0xfac7);
    let mut steps = 0;
    for p in 0..playouts {
        let mut state = net.initial_state();
        // parts[f]: factor f's latches as stepped apart (other entries unused).
        let mut parts = vec![state.clone(); k];
        let mut shared = state.clone();
        for step in 0..=MAX_STEPS {
            let at = format!("playout {p} step {step}");
            let combined: Vec<bool> = (0..net.latches.len())
                .map(|l| owner[l].map_or(shared[l], |f| parts[f][l]))
                .collect();
            if combined != state {
                let l = (0..state.len()).find(|&l| combined[l] != state[l]).unwrap();
                return Err(format!(
                    "{at}: the factors put together differ from the game at {}",
                    net.latches[l].name
                ));
            }
            let view = sim.view(&state).to_vec();
            let legal = legal_of(net, &view);
            let terminal = view[net.terminal.index()];
            let joint = random_joint(&legal, &mut rng);
            steps += 1;
            if terminal || joint.len() < net.roles.len() || step == MAX_STEPS {
                break;
            }
            let other = random_joint(&legal, &mut rng);
            shared = sim.next_state(net, &mixed(&state, &owner, None, &mut rng), &other);
            for (f, factor) in factors.factors.iter().enumerate() {
                let apart = mixed(&parts[f], &owner, Some(f), &mut rng);
                let apart = mixed_shared(&apart, &state, &owner);
                let legal_apart = legal_of(net, sim.view(&apart));
                for &i in &factor.inputs {
                    let r = net.inputs[i.index()].role.index();
                    let (a, b) = (legal[r].contains(&i), legal_apart[r].contains(&i));
                    if a != b {
                        return Err(format!(
                            "{at}: factor {} apart says {} is {}legal",
                            f + 1,
                            net.inputs[i.index()].name,
                            if b { "" } else { "not " }
                        ));
                    }
                }
                parts[f] = sim.next_state(net, &apart, &joint);
            }
            state = sim.next_state(net, &state, &joint);
        }
    }
    Ok(steps)
}

/// A joint move: a random legal move per role that has one.
fn random_joint(legal: &[Vec<InputId>], rng: &mut TestRng) -> Vec<InputId> {
    legal
        .iter()
        .filter(|l| !l.is_empty())
        .map(|l| l[rng.below(l.len())])
        .collect()
}

/// `state` with every latch outside factor `keep` (and outside the shared ones when `keep`
/// is a factor) replaced by a random bit; `keep: None` keeps only the shared latches.
fn mixed(
    state: &[bool],
    owner: &[Option<usize>],
    keep: Option<usize>,
    rng: &mut TestRng,
) -> Vec<bool> {
    (0..state.len())
        .map(|l| match owner[l] {
            None => state[l],
            Some(f) if Some(f) == keep => state[l],
            Some(_) => rng.below(2) == 1,
        })
        .collect()
}

/// `apart` with the shared latches taken from `state` (the whole game's).
fn mixed_shared(apart: &[bool], state: &[bool], owner: &[Option<usize>]) -> Vec<bool> {
    (0..state.len())
        .map(|l| {
            if owner[l].is_none() {
                state[l]
            } else {
                apart[l]
            }
        })
        .collect()
}

/// The check catches false factors: connect four and tic-tac-toe, each split into two
/// halves of its latches (in name order) and of its moves, fail it.
#[test]
fn a_false_factor_is_caught() {
    for game in ["connectfour", "tictactoe"] {
        let net = propnet_tests::compile_file(
            &propnet_tests::workspace_root().join(format!("bench-games/{game}.kif")),
        );
        let whole = find_factors(&net);
        assert!(!whole.is_factored(), "{game} is one game: {whole:?}");
        let moving = &whole.factors[0];
        let half = moving.latches.len() / 2;
        let split = |ls: &[propnet_netlist::LatchId], is: &[InputId]| Factor {
            latches: ls.to_vec(),
            inputs: is.to_vec(),
            relevant: true,
        };
        let ih = moving.inputs.len() / 2;
        let false_factors = Factors {
            factors: vec![
                split(&moving.latches[..half], &moving.inputs[..ih]),
                split(&moving.latches[half..], &moving.inputs[ih..]),
            ],
            ..whole.clone()
        };
        let err = check(&net, &false_factors).expect_err("a false factor must be caught");
        assert!(
            err.contains("differ") || err.contains("legal"),
            "{game}: {err}"
        );
    }
}
