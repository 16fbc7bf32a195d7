//! The protocol player's match engine on a sum of games (#43 item 3): dual tic-tac-toe
//! (`bench-games/dual_tictactoe.kif`, a plain and a misère board, the first board to end
//! decides) played with one tree per factor. The engine is driven as the worker drives it
//! (joint moves applied as canonical texts, a search to a deadline that publishes the best
//! move so far), on the reference backend.

use propnet_compiler::gdl;
use propnet_ggp::play::MatchPlay;
use propnet_mcts::factored::FactorSearch;
use propnet_mcts::MctsParams;
use propnet_netlist::{Netlist, ValidNetlist};
use propnet_runtime::backend::{Backend, ReferenceBackend};
use std::time::{Duration, Instant};

const DUAL: &str = include_str!("../../../bench-games/dual_tictactoe.kif");

fn dual() -> Netlist {
    let game = gdl::parse_source("dual_tictactoe.kif", DUAL.as_bytes()).unwrap();
    let (net, _) =
        propnet_runtime::pipeline::compile_game(&game, Duration::ZERO, &Default::default())
            .unwrap();
    net.into_netlist()
}

fn reference(net: &Netlist) -> Result<Vec<Box<dyn Backend>>, String> {
    ValidNetlist::new(net.clone()).map_err(|e| e.to_string())?;
    Ok(vec![Box::new(ReferenceBackend::new(net.clone()))])
}

/// x's moves, o passing, then the given joint moves (canonical texts, role order x, o).
fn engine(role: usize, joint: &[[&str; 2]]) -> MatchPlay {
    let net = dual();
    let params = MctsParams {
        seed: 11,
        ..MctsParams::default()
    };
    let factors = FactorSearch::new(&net, &mut reference, params.clone()).unwrap();
    assert_eq!(factors.len(), 2, "dual tic-tac-toe has two factors");
    let backends = reference(&net).unwrap();
    let mut e = MatchPlay::net_factored(net, backends, factors, role, params).unwrap();
    for j in joint {
        let problems = e.apply(&[j[0].to_string(), j[1].to_string()]).unwrap();
        assert!(problems.is_empty(), "{problems:?}");
    }
    e
}

/// x can win on the plain board at once, and would lose by completing its misère line:
/// the factors' trees choose the plain win, and the move published last is the reply.
#[test]
fn the_match_engine_takes_the_plain_win_by_its_factor_trees() {
    let mut e = engine(
        0,
        &[
            ["(play misere 3 1)", "pass"],
            ["pass", "(play misere 3 2)"],
            ["(play plain 1 1)", "pass"],
            ["pass", "(play plain 2 1)"],
            ["(play plain 1 2)", "pass"],
            ["pass", "(play plain 2 2)"],
        ],
    );
    let texts = e.legal_texts();
    let mut published = Vec::new();
    let deadline = Instant::now() + Duration::from_millis(600);
    let think = e
        .think(deadline, false, &mut |i| published.push(i))
        .unwrap();
    assert_eq!(think.text, "(play plain 1 3)");
    assert!(think.iterations > 0 && think.nodes > 0, "{think:?}");
    assert_eq!(think.factors, 2, "both boards' trees searched: {think:?}");
    let last = *published
        .last()
        .expect("a best move published while searching");
    assert_eq!(texts[last], think.text);
    assert!(Instant::now() < deadline + Duration::from_millis(200));
}

/// o to move, x threatening on the misère board (a line there loses for x): o takes its
/// own plain win; a forced move (pass only) is answered at once when asked, else the time
/// goes to the factor trees of the role that chooses.
#[test]
fn the_match_engine_plays_each_factor_and_forced_moves() {
    let mut e = engine(
        1,
        &[
            ["(play plain 1 1)", "pass"],
            ["pass", "(play plain 2 1)"],
            ["(play plain 1 2)", "pass"],
            ["pass", "(play plain 2 2)"],
            ["(play misere 1 1)", "pass"],
        ],
    );
    let deadline = Instant::now() + Duration::from_millis(600);
    let think = e.think(deadline, false, &mut |_| {}).unwrap();
    assert_eq!(think.text, "(play plain 2 3)");
    assert_eq!(think.factors, 2);
    // o moves, x passes: x's only move is `pass` at the next state
    let mut x = engine(0, &[["(play plain 1 1)", "pass"]]);
    assert_eq!(x.legal_texts(), vec!["pass".to_string()]);
    let think = x.think(Instant::now(), true, &mut |_| {}).unwrap();
    assert_eq!((think.text.as_str(), think.factors), ("pass", 0));
    // searched (not answered at once): o's choice, in both boards' trees
    let deadline = Instant::now() + Duration::from_millis(300);
    let think = x.think(deadline, false, &mut |_| {}).unwrap();
    assert_eq!((think.text.as_str(), think.factors), ("pass", 2));
    assert!(think.iterations > 0, "{think:?}");
}
