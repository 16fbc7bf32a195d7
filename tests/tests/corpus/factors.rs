//! Factored vs unfactored simulation of one compiled game ([`find_factors`]): random
//! playouts step the whole netlist and, beside it, each factor on its own, in a state whose
//! other factors' latches are random bits drawn anew each step. The factors' latches put
//! together with the shared ones must equal the whole game's state at every step (so its
//! legal moves, goals and terminal are the same), and each factor's own moves must be legal
//! exactly when they are in the whole game. The shared latches are stepped with every
//! move-dependent latch random and another joint move, and must not differ either. A false
//! factor (a latch read across factors, a move that touches a factor it is not listed
//! for) fails at the first step where it matters. The same check runs on small random
//! netlists, and so does one of outcome-free moves (two of them, played in one state, must
//! never lead to different legal moves, goals or terminal).
//!
//! Each factor game ([`factor_game`]: one factor played alone, the others' moves replaced
//! by a pseudo-noop) is checked in the same states: its legal moves are the game's without
//! the other factors' own moves, plus the pseudo-noop exactly when one of those was legal
//! (or the role's always-legal inert move, which stands for them),
//! and a joint move of it gives the game's next state on the factor's and the shared
//! latches (on all latches when nobody played the pseudo-noop), a pseudo-noop standing for
//! a random one of the moves it replaces.

use propnet_netlist::factors::{factor_game, find_factors, Factor, FactorGame, Factors};
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
    let moves: Vec<Option<usize>> = (0..net.inputs.len())
        .map(|i| factors.factor_of_input(InputId(i as u32)))
        .collect();
    let mut sim = ScalarNet::new(net);
    let mut games: Vec<(FactorGame, ScalarNet)> = (0..k)
        .map(|f| {
            let g = factor_game(net, factors, f);
            let s = ScalarNet::new(&g.net);
            (g, s)
        })
        .collect();
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
            for (g, gsim) in &mut games {
                let owners = (owner.as_slice(), moves.as_slice());
                check_factor_game(net, (g, gsim, &mut sim), owners, (&state, &legal), &mut rng)
                    .map_err(|e| format!("{at}: factor game {}: {e}", g.factor + 1))?;
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

/// One factor game in `state` (the game's, whose legal moves are `legal`; `moves` owns
/// each input's factor): its legal moves and a random joint move's next state against the
/// game's (see the module docs).
fn check_factor_game(
    net: &Netlist,
    (game, gsim, sim): (&FactorGame, &mut ScalarNet, &mut ScalarNet),
    (latches, moves): (&[Option<usize>], &[Option<usize>]),
    (state, legal): (&[bool], &[Vec<InputId>]),
    rng: &mut TestRng,
) -> Result<(), String> {
    let f = game.factor;
    let glegal = legal_of(&game.net, gsim.view(state));
    let mut replaced = vec![Vec::new(); net.roles.len()];
    for (r, all) in legal.iter().enumerate() {
        let (gone, mut want): (Vec<InputId>, Vec<InputId>) = all
            .iter()
            .partition(|i| moves[i.index()].is_some_and(|o| o != f));
        if !gone.is_empty() {
            let pass = game.elsewhere[r].ok_or("a role lost moves but has no pseudo-noop")?;
            if !want.contains(&pass) {
                want.push(pass);
            }
        }
        let mut got = glegal[r].clone();
        got.sort();
        want.sort();
        if got != want {
            let role = &net.roles[r].name;
            return Err(format!("{role} may play {got:?}, expected {want:?}"));
        }
        replaced[r] = gone;
    }
    let joint = random_joint(&glegal, rng);
    if joint.len() < net.roles.len() {
        return Ok(());
    }
    let mut pseudo = false;
    let whole: Vec<InputId> = joint
        .iter()
        .enumerate()
        .map(|(r, &m)| {
            if game.elsewhere[r] == Some(m) && !replaced[r].is_empty() {
                pseudo = true;
                replaced[r][rng.below(replaced[r].len())]
            } else {
                m
            }
        })
        .collect();
    let a = gsim.next_state(&game.net, state, &joint);
    let b = sim.next_state(net, state, &whole);
    let counts = |l: usize| !pseudo || latches[l].is_none_or(|o| o == f);
    match (0..a.len()).find(|&l| a[l] != b[l] && counts(l)) {
        Some(l) => Err(format!("after {joint:?}, {} differs", net.latches[l].name)),
        None => Ok(()),
    }
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

/// On small random netlists (few gates, so some split into factors), every factoring found
/// passes the check, and some netlists do factor (the property is not vacuous).
#[test]
fn random_netlists_factor_only_truly() {
    let mut factored = 0;
    for seed in 0..400u64 {
        let net = small_random_netlist(seed);
        let factors = find_factors(&net);
        if factors.is_factored() {
            factored += 1;
            check(&net, &factors).unwrap_or_else(|e| panic!("seed {seed}: {e}\n{factors:?}"));
        }
    }
    assert!(
        factored >= 50,
        "only {factored} of 400 random netlists factor"
    );
}

/// Outcome-free moves are interchangeable: on small random netlists, wherever a role has
/// two outcome-free legal moves, playing either (the other roles' moves the same) and then
/// the same random joint moves gives the same legal moves, goals and terminal at every
/// step; and some netlists have such moves (the property is not vacuous).
#[test]
fn outcome_free_moves_are_interchangeable() {
    use propnet_netlist::factors::outcome_free_moves;
    use propnet_netlist::playout::goals_of;
    let mut compared = 0;
    for seed in 0..300u64 {
        let net = small_random_netlist(seed);
        let free = outcome_free_moves(&net);
        let mut sim = ScalarNet::new(&net);
        let mut rng = TestRng::new(seed);
        let mut state = net.initial_state();
        for _ in 0..20 {
            let view = sim.view(&state).to_vec();
            let legal = legal_of(&net, &view);
            if view[net.terminal.index()] || legal.iter().any(Vec::is_empty) {
                break;
            }
            let joint = random_joint(&legal, &mut rng);
            for (r, moves) in legal.iter().enumerate() {
                let f: Vec<InputId> = moves.iter().copied().filter(|m| free[m.index()]).collect();
                if let [a, b, ..] = f[..] {
                    let (mut ja, mut jb) = (joint.clone(), joint.clone());
                    (ja[r], jb[r]) = (a, b);
                    let mut sa = sim.next_state(&net, &state, &ja);
                    let mut sb = sim.next_state(&net, &state, &jb);
                    for step in 0..10 {
                        let va = sim.view(&sa).to_vec();
                        let vb = sim.view(&sb).to_vec();
                        let same = legal_of(&net, &va) == legal_of(&net, &vb)
                            && goals_of(&net, &va) == goals_of(&net, &vb)
                            && va[net.terminal.index()] == vb[net.terminal.index()];
                        assert!(same, "seed {seed}: {a} and {b} differ {step} steps later");
                        let later = legal_of(&net, &va);
                        if later.iter().any(Vec::is_empty) {
                            break;
                        }
                        let j = random_joint(&later, &mut rng);
                        sa = sim.next_state(&net, &sa, &j);
                        sb = sim.next_state(&net, &sb, &j);
                    }
                    compared += 1;
                }
            }
            state = sim.next_state(&net, &state, &joint);
        }
    }
    assert!(
        compared >= 20,
        "only {compared} pairs of outcome-free moves compared"
    );
}

/// A random netlist of a few latches and gates (shapes vary with the seed), small enough
/// that some split into factors and some have outcome-free moves.
fn small_random_netlist(seed: u64) -> Netlist {
    use propnet_netlist::random::{random_netlist, RandomSpec};
    let spec = RandomSpec {
        percepts_per_role: 0,
        roles: 1 + (seed % 2) as usize,
        moves_per_role: 3 + (seed % 4) as usize,
        latches: 4 + (seed % 9) as usize,
        view_gates: 3 + (seed % 7) as usize,
        next_gates: 4 + (seed % 11) as usize,
        max_fanin: 2 + (seed % 3) as usize,
    };
    random_netlist(seed, &spec)
}
