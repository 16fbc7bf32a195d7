//! The belief, the information-set player and the referee on Monty Hall (written here from
//! the public rules: the host hides a car behind one of three doors, the candidate picks
//! one, the host opens another door with no car, the candidate may switch).

use super::belief::{Belief, Observation};
use super::*;
use crate::Budget;
use propnet_compiler::gdl;
use propnet_compiler::ground::{self, CompileOptions};
use propnet_netlist::scalar::ScalarNet;
use propnet_runtime::backend::ReferenceBackend;

const MONTY_HALL: &str = "
(role random) (role candidate)
(door 1) (door 2) (door 3)
(init (step 0))
(<= (legal random (hide ?d)) (true (step 0)) (door ?d))
(<= (legal candidate (choose ?d)) (true (step 0)) (door ?d))
(<= (legal random (open ?d)) (true (step 1)) (door ?d) (not (true (car ?d))) (not (true (chosen ?d))))
(<= (legal candidate noop) (true (step 1)))
(<= (legal random noop) (true (step 2)))
(<= (legal candidate noop) (true (step 2)))
(<= (legal candidate switch) (true (step 2)))
(<= (next (car ?d)) (does random (hide ?d)))
(<= (next (car ?d)) (true (car ?d)))
(<= (next (chosen ?d)) (does candidate (choose ?d)))
(<= (next (chosen ?d)) (true (chosen ?d)) (not (does candidate switch)))
(<= (next (chosen ?d)) (does candidate switch) (door ?d) (not (true (chosen ?d))) (not (true (opened ?d))))
(<= (next (opened ?d)) (does random (open ?d)))
(<= (next (opened ?d)) (true (opened ?d)))
(<= (next (step 1)) (true (step 0)))
(<= (next (step 2)) (true (step 1)))
(<= (next (step 3)) (true (step 2)))
(<= (sees candidate (opened ?d)) (does random (open ?d)))
(<= terminal (true (step 3)))
(<= win (true (chosen ?d)) (true (car ?d)))
(<= (goal candidate 100) win)
(<= (goal candidate 0) (not win))
(goal random 0)
";

fn monty_hall() -> Netlist {
    let game = gdl::parse_source("monty.kif", MONTY_HALL.as_bytes()).expect("loads");
    assert!(game.program.gdl2);
    ground::compile(&game.program, &CompileOptions::default()).expect("grounds")
}

fn input(net: &Netlist, role: u32, text: &str) -> InputId {
    let i = (net.inputs.iter()).position(|x| x.name == text && x.role.0 == role);
    InputId(i.unwrap_or_else(|| panic!("{text}")) as u32)
}

fn fluent_holds(net: &Netlist, s: &[bool], text: &str) -> bool {
    net.true_fluents(s).contains(&text)
}

/// After choosing door 1 and seeing door 2 opened, the car is behind door 3 with
/// probability 2/3 and never behind door 2: the bag must say so.
#[test]
fn the_belief_follows_bayes_on_monty_hall() {
    let net = monty_hall();
    let mut scalar = ScalarNet::new(&net);
    let mut rng = Rng::new(7);
    let mut b = Belief::new(&net, 1, 3000);
    let opened2 = net.roles[1]
        .percepts
        .iter()
        .position(|p| p.name == "(opened 2)")
        .expect("a percept");
    let steps = [
        (input(&net, 1, "(choose 1)"), vec![]),
        (input(&net, 1, "noop"), vec![opened2]),
    ];
    for (own, percepts) in steps {
        assert!(b.observe(
            &net,
            &mut scalar,
            Observation { own, percepts },
            &mut rng,
            None
        ));
    }
    let count = |t: &str| {
        (b.particles().iter())
            .filter(|s| fluent_holds(&net, s, t))
            .count() as f64
            / 3000.0
    };
    assert_eq!(count("(car 2)"), 0.0);
    assert_eq!(count("(opened 2)"), 1.0);
    assert!(
        (count("(car 3)") - 2.0 / 3.0).abs() < 0.05,
        "{}",
        count("(car 3)")
    );
    assert!(
        (count("(car 1)") - 1.0 / 3.0).abs() < 0.05,
        "{}",
        count("(car 1)")
    );
    assert_eq!(b.rebuilds, 0);
}

fn player(seed: u64, leaves: u64) -> Box<dyn HiddenPlayer> {
    let net = monty_hall();
    Box::new(BeliefPlayer::new(
        "belief".into(),
        Box::new(ReferenceBackend::new(net)),
        BeliefParams {
            particles: 64,
            leaves_per_batch: 8,
            playouts_per_leaf: 4,
            seed,
            ..BeliefParams::default()
        },
        Budget::Iterations(leaves),
    ))
}

/// The information-set player switches, so it wins about 2/3 of the games (staying wins
/// 1/3; 200 games: the standard error is 0.033).
#[test]
fn the_belief_player_switches_on_monty_hall() {
    let net = monty_hall();
    let mut players = vec![player(3, 256)];
    let (mut wins, mut switches) = (0, 0);
    for g in 0..200 {
        let rec = play_hidden_game(&net, &mut players, &[0, 0], g, 11, 10).unwrap();
        assert_eq!(rec.end, "terminal");
        wins += u32::from(rec.goals[1] == 100);
        switches += u32::from(rec.moves[2][1] == "switch");
    }
    assert!(switches >= 190, "switched in {switches} of 200 games");
    assert!((115..=150).contains(&wins), "won {wins} of 200");
}

/// No peeking: games whose hidden state differs (the car) but whose observations for the
/// candidate are the same get the same replies from it.
#[test]
fn replies_depend_only_on_what_the_player_saw() {
    let net = monty_hall();
    let mut seen = std::collections::HashMap::new();
    let mut pairs = 0;
    for referee in 0..40u64 {
        // a fresh player of the same seed every game: same game index, same own draws
        let mut players = vec![player(5, 32)];
        let rec = play_hidden_game(&net, &mut players, &[0, 0], 0, referee, 10).unwrap();
        let own: Vec<String> = rec.moves.iter().map(|j| j[1].clone()).collect();
        let opened = rec.moves[1][0].clone();
        let car = rec.moves[0][0].clone();
        let key = (own[0].clone(), opened);
        match seen.get(&key) {
            Some((other_car, other_own)) if *other_car != car => {
                assert_eq!(other_own, &own, "replies differ for the same observations");
                pairs += 1;
            }
            Some(_) => {}
            None => {
                seen.insert(key, (car, own));
            }
        }
    }
    assert!(
        pairs >= 3,
        "only {pairs} pairs of games with equal observations"
    );
}

/// The determinized baseline switches on Monty Hall too, in most games (each of its UCT
/// searches sees one drawn car: a state with the car behind the chosen door says stay).
#[test]
fn the_determinized_player_mostly_switches_on_monty_hall() {
    let net = monty_hall();
    let pimc = DeterminizedPlayer::new(
        "pimc".into(),
        vec![Box::new(ReferenceBackend::new(net.clone()))],
        crate::MctsParams {
            playouts_per_leaf: 2,
            leaves_per_batch: 4,
            ..crate::MctsParams::default()
        },
        Budget::Iterations(64),
        64,
    );
    let mut players: Vec<Box<dyn HiddenPlayer>> = vec![Box::new(pimc)];
    let mut switches = 0;
    for g in 0..60 {
        let rec = play_hidden_game(&net, &mut players, &[0, 0], g, 13, 10).unwrap();
        switches += u32::from(rec.moves[2][1] == "switch");
    }
    assert!(switches >= 40, "switched in {switches} of 60 games");
}

/// Where the others have more joint moves than the belief enumerates (400 deals here),
/// it samples them; every surviving state still fits the percept.
#[test]
fn a_sampled_update_keeps_only_states_that_fit() {
    let digits: String = (0..20).map(|i| format!("(n {i}) ")).collect();
    let odd: String = (0..20)
        .filter(|i| i % 2 == 1)
        .map(|i| format!("(odd {i}) "))
        .collect();
    let src = format!(
        "(role random) (role p) {digits} {odd}
         (init (s 0))
         (<= (legal random (deal ?a ?b)) (true (s 0)) (n ?a) (n ?b))
         (<= (legal random noop) (true (s 1)))
         (<= (legal p noop) (true (s 0)))
         (<= (legal p (guess ?a)) (true (s 1)) (n ?a))
         (<= (next (card ?a)) (does random (deal ?a ?b)))
         (<= (next (other ?b)) (does random (deal ?a ?b)))
         (<= (next (card ?a)) (true (card ?a)))
         (<= (next (s 1)) (true (s 0)))
         (<= (next (s 2)) (true (s 1)))
         (<= (sees p odd) (does random (deal ?a ?b)) (odd ?a))
         (<= terminal (true (s 2)))
         (goal p 0) (goal random 0)"
    );
    let game = gdl::parse_source("deal.kif", src.as_bytes()).expect("loads");
    let net = ground::compile(&game.program, &CompileOptions::default()).expect("grounds");
    let mut scalar = ScalarNet::new(&net);
    let mut rng = Rng::new(3);
    let mut b = Belief::new(&net, 1, 500);
    let odd_percept = net.roles[1]
        .percepts
        .iter()
        .position(|p| p.name == "odd")
        .unwrap();
    let obs = Observation {
        own: input(&net, 1, "noop"),
        percepts: vec![odd_percept],
    };
    assert!(b.observe(&net, &mut scalar, obs, &mut rng, None));
    let cards: std::collections::BTreeSet<usize> = (b.particles().iter())
        .map(|s| {
            (0..20)
                .find(|i| fluent_holds(&net, s, &format!("(card {i})")))
                .unwrap()
        })
        .collect();
    assert!(cards.iter().all(|c| c % 2 == 1), "{cards:?}");
    assert!(
        cards.len() >= 8,
        "the odd cards are all kept possible: {cards:?}"
    );
}
