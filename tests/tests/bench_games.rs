//! Facts about the project's bench games (`bench-games/*.kif`), checked through the front
//! end, the reference interpreter and the compiled, optimized netlist: clean loading,
//! oracle trace replay, perft counts computed by the independent oracle, the Amazons
//! first-turn count and a Niu Jiao Qi ending.

use propnet_compiler::gdl::{self, Game};
use propnet_netlist::{validate, Netlist};
use propnet_runtime::machine::NetMachine;
use propnet_runtime::perft::perft;
use propnet_runtime::pipeline::{compile_game, PipelineOptions};
use propnet_tests::{read_trace, replay_interp, replay_netlist, workspace_root};
use std::sync::OnceLock;
use std::time::Duration;

const GAMES: [&str; 8] = [
    "tictactoe",
    "connectfour",
    "breakthrough",
    "niujiaoqi",
    "amazons",
    "connectfour_doodle",
    "dual_tictactoe",
    "race_to_ten",
];

/// A bench game loaded once per test binary: the front end's result, its warnings and
/// the optimized netlist.
struct Bench {
    game: Game,
    warnings: Vec<String>,
    net: Netlist,
    /// Set when the netlist was grounded over the states play reaches.
    explored: Option<propnet_compiler::ground::Explored>,
}

fn bench(name: &str) -> &'static Bench {
    static CACHE: [OnceLock<Bench>; 8] = [const { OnceLock::new() }; 8];
    let i = GAMES
        .iter()
        .position(|g| *g == name)
        .expect("bench game name");
    CACHE[i].get_or_init(|| {
        let path = workspace_root().join(format!("bench-games/{name}.kif"));
        let game = gdl::load(&path).unwrap_or_else(|e| panic!("{e}"));
        let (net, report) = compile_game(&game, Duration::ZERO, &PipelineOptions::default())
            .unwrap_or_else(|e| panic!("{e}"));
        Bench {
            game,
            explored: report.explored().cloned(),
            warnings: report.warnings,
            net: net.into_netlist(),
        }
    })
}

#[test]
fn every_bench_game_loads_without_warnings_and_validates() {
    for name in GAMES {
        let b = bench(name);
        assert!(b.warnings.is_empty(), "{name}: {:?}", b.warnings);
        validate(&b.net).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(b.net.roles.len(), 2, "{name}: two-player game");
        assert!(
            !b.net.latches.is_empty() && !b.net.inputs.is_empty(),
            "{name}"
        );
    }
}

fn replay(name: &str) {
    let b = bench(name);
    let trace = read_trace(&workspace_root().join(format!("bench-games/traces/{name}.jsonl")));
    assert!(
        trace.steps.len() > 10,
        "{name}: trace too short to mean much"
    );
    let n = replay_interp(&b.game.program, &trace)
        .unwrap_or_else(|e| panic!("{name} (interpreter): {e}"));
    assert_eq!(n, trace.steps.len());
    let n = replay_netlist(&b.net, &trace).unwrap_or_else(|e| panic!("{name} (netlist): {e}"));
    assert_eq!(n, trace.steps.len());
}

#[test]
fn tictactoe_trace_replays() {
    replay("tictactoe");
}

#[test]
fn connectfour_trace_replays() {
    replay("connectfour");
}

#[test]
fn breakthrough_trace_replays() {
    replay("breakthrough");
}

#[test]
fn niujiaoqi_trace_replays() {
    replay("niujiaoqi");
}

#[test]
fn amazons_trace_replays() {
    replay("amazons");
}

#[test]
fn connectfour_doodle_trace_replays() {
    replay("connectfour_doodle");
}

/// Race to ten counts in successor form with nothing but `terminal` to bound it: the
/// netlist is grounded over the 20 states play reaches (every other bench game grounds
/// from relaxed reachability), and replays the oracle's trace.
#[test]
fn race_to_ten_is_grounded_over_the_states_play_reaches_and_replays() {
    for name in GAMES {
        assert_eq!(
            bench(name).explored.is_some(),
            name == "race_to_ten",
            "{name}"
        );
    }
    let e = bench("race_to_ten").explored.as_ref().unwrap();
    assert_eq!((e.states, e.fluents, e.moves), (20, 13, 6));
    replay("race_to_ten");
}

fn perft_nodes(name: &str, depth: u32) -> Vec<u64> {
    perft(&bench(name).net, depth)
        .into_iter()
        .map(|l| l.nodes)
        .collect()
}

#[test]
fn tictactoe_perft() {
    assert_eq!(
        perft_nodes("tictactoe", 6),
        [9, 72, 504, 3024, 15120, 54720]
    );
}

#[test]
fn connectfour_perft() {
    assert_eq!(
        perft_nodes("connectfour", 6),
        [7, 49, 343, 2401, 16807, 117649]
    );
}

/// Perft by the independent oracle (`gdl-trace --depth-counts 8`): play ends from depth 5.
#[test]
fn race_to_ten_perft() {
    assert_eq!(perft_nodes("race_to_ten", 8), [2, 4, 8, 16, 32, 57, 64, 37]);
}

#[test]
fn connectfour_doodle_perft() {
    assert_eq!(perft_nodes("connectfour_doodle", 4), [16, 256, 4096, 65536]);
}

/// The doodle pad is found: each role's nine doodles and its noop can never change the
/// outcome, its drops can; the board is one factor that matters, every pad square its own
/// factor that does not.
#[test]
fn connectfour_doodle_pad_moves_are_outcome_free() {
    use propnet_netlist::factors::{find_factors, outcome_free_moves};
    let net = &bench("connectfour_doodle").net;
    let free = outcome_free_moves(net);
    for (input, free) in net.inputs.iter().zip(&free) {
        let pad = input.name.starts_with("(doodle ") || input.name == "noop";
        assert_eq!(*free, pad, "{}", input.name);
    }
    let f = find_factors(net);
    let relevant: Vec<usize> = f.factors.iter().map(|x| usize::from(x.relevant)).collect();
    assert_eq!(relevant.iter().sum::<usize>(), 1, "{f:?}");
    assert_eq!(f.factors.len(), 1 + 18, "the board and 9 squares per role");
}

#[test]
fn dual_tictactoe_trace_replays() {
    replay("dual_tictactoe");
}

#[test]
fn dual_tictactoe_perft() {
    assert_eq!(perft_nodes("dual_tictactoe", 3), [19, 343, 5869]);
}

/// Dual tic-tac-toe is a sum: the plain and the misère board are two factors that both
/// matter, each with its nine cells per role as own moves; the passes touch neither.
#[test]
fn dual_tictactoe_is_two_factors() {
    use propnet_netlist::factors::find_factors;
    let net = &bench("dual_tictactoe").net;
    let f = find_factors(net);
    assert_eq!(f.factors.len(), 2, "{f:?}");
    for factor in &f.factors {
        assert!(factor.relevant);
        let boards: Vec<&str> = factor
            .inputs
            .iter()
            .map(|i| net.inputs[i.index()].name.split(' ').nth(1).unwrap_or(""))
            .collect();
        assert_eq!(boards.len(), 18);
        assert!(boards.iter().all(|b| *b == boards[0]), "{boards:?}");
    }
    let inert: Vec<&str> = f
        .inert
        .iter()
        .map(|i| net.inputs[i.index()].name.as_str())
        .collect();
    assert_eq!(inert, ["pass", "pass"]);
}

#[test]
fn breakthrough_perft() {
    assert_eq!(perft_nodes("breakthrough", 3), [22, 484, 11132]);
}

#[test]
fn niujiaoqi_perft() {
    assert_eq!(perft_nodes("niujiaoqi", 6), [2, 6, 21, 83, 255, 955]);
}

#[test]
fn amazons_first_turn_has_80_queen_moves_and_2176_move_shot_pairs() {
    let net = &bench("amazons").net;
    let m = NetMachine::new(net);
    let s0 = m.initial_state();
    let white = net.roles.iter().position(|r| r.name == "white").unwrap();
    let black = 1 - white;
    let legal = m.legal_moves(&s0);
    assert_eq!(legal[white].len(), 80);
    assert!(legal[white]
        .iter()
        .all(|&mv| m.move_name(mv).starts_with("(move ")));
    assert_eq!(
        legal[black]
            .iter()
            .map(|&mv| m.move_name(mv))
            .collect::<Vec<_>>(),
        ["noop"]
    );
    let mut pairs = 0;
    for &mv in &legal[white] {
        let mut joint = vec![legal[black][0]; 2];
        joint[white] = mv;
        let s1 = m.next_state(&s0, &joint);
        assert!(!m.is_terminal(&s1));
        let shots = m.legal_moves(&s1);
        assert!(shots[white]
            .iter()
            .all(|&s| m.move_name(s).starts_with("(shoot ")));
        assert!(
            !shots[white].is_empty(),
            "{} leaves no shot",
            m.move_name(mv)
        );
        assert_eq!(
            shots[black]
                .iter()
                .map(|&s| m.move_name(s))
                .collect::<Vec<_>>(),
            ["noop"]
        );
        pairs += shots[white].len();
    }
    assert_eq!(pairs, 2176);
}

#[test]
fn niujiaoqi_smothered_red_loses() {
    let net = &bench("niujiaoqi").net;
    let m = NetMachine::new(net);
    let fluents = [
        "(red 0)",
        "(blue 1)",
        "(blue 2)",
        "(control red)",
        "(ply 10)",
    ];
    let state = net.state_of(&fluents).unwrap();
    assert!(m.is_terminal(&state));
    let red = net.roles.iter().position(|r| r.name == "red").unwrap();
    let blue = net.roles.iter().position(|r| r.name == "blue").unwrap();
    let goals = m.goals(&state);
    assert_eq!((goals[red], goals[blue]), (0, 100));
    // One step away the same position is not yet decided: red on 0, blue on 1 and 3.
    let open = [
        "(red 0)",
        "(blue 1)",
        "(blue 3)",
        "(control red)",
        "(ply 10)",
    ];
    let state: Vec<bool> = net
        .latches
        .iter()
        .map(|l| open.contains(&l.name.as_str()))
        .collect();
    assert!(!m.is_terminal(&state));
    assert_eq!(m.goals(&state), vec![50, 50]);
}

/// The 9×9 sudoku whose units are a static relation over nine cells (`once`, the public
/// ggp-repository sudoku's shape): its two-blank puzzle replays the oracle's trace, which
/// ends solved in 2 of its 60 playouts and wrong in the others.
#[test]
fn sudoku_once_trace_replays() {
    let path = workspace_root().join("bench-games/sudoku_once.kif");
    let game = gdl::load(&path).unwrap_or_else(|e| panic!("{e}"));
    let (net, report) = compile_game(&game, Duration::ZERO, &PipelineOptions::default())
        .unwrap_or_else(|e| panic!("{e}"));
    let ground = report.grounding.as_ref().expect("a grounder report");
    assert_eq!(ground.filter_diagrams.len(), 3, "row, column and box");
    let net = net.into_netlist();
    let trace = read_trace(&workspace_root().join("bench-games/traces/sudoku_once.jsonl"));
    let solved = trace
        .steps
        .iter()
        .filter(|s| s.terminal && s.goals == [vec![100]])
        .count();
    assert_eq!(solved, 2, "both endings in the trace");
    let n = replay_interp(&game.program, &trace).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(n, trace.steps.len());
    let n = replay_netlist(&net, &trace).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(n, trace.steps.len());
}

/// The same rules on an empty grid (729 moves, no givens): 9⁹ bindings per unit for a
/// relaxed join, compiled in well under a second through the units' decision diagrams;
/// the netlist scores a solved grid 100 and the same grid with two cells swapped 0.
#[test]
fn sudoku_once_on_an_empty_grid_compiles_and_scores_solved_grids() {
    let text = std::fs::read_to_string(workspace_root().join("bench-games/sudoku_once.kif"))
        .expect("the bench game");
    let empty: String = text
        .lines()
        .filter(|l| !l.starts_with("(init"))
        .map(|l| format!("{l}\n"))
        .collect();
    let dir = std::env::temp_dir().join(format!("propnet-sudoku-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("sudoku_empty.kif");
    std::fs::write(&path, empty).unwrap();
    let game = gdl::load(&path).unwrap_or_else(|e| panic!("{e}"));
    std::fs::remove_dir_all(&dir).ok();
    let (net, report) = compile_game(&game, Duration::ZERO, &PipelineOptions::default())
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(report.grounding.as_ref().unwrap().filter_diagrams.len(), 3);
    let net = net.into_netlist();
    assert_eq!((net.inputs.len(), net.latches.len()), (729, 729));
    // A solved grid: row r, column c holds (3r + r/3 + c) mod 9 + 1 (0-based r, c).
    let digit = |r: usize, c: usize| (r * 3 + r / 3 + c) % 9 + 1;
    let grid = |swap: bool| -> Vec<String> {
        let mut cells = Vec::new();
        for r in 0..9 {
            for c in 0..9 {
                let d = match (swap, r, c) {
                    (true, 0, 0) => digit(0, 1),
                    (true, 0, 1) => digit(0, 0),
                    _ => digit(r, c),
                };
                cells.push(format!("(cell {} {} {d})", r + 1, c + 1));
            }
        }
        cells
    };
    let m = NetMachine::new(&net);
    for (swap, want) in [(false, 100), (true, 0)] {
        let fluents = grid(swap);
        let refs: Vec<&str> = fluents.iter().map(String::as_str).collect();
        let state = net.state_of(&refs).unwrap();
        assert!(m.is_terminal(&state));
        assert_eq!(m.goals(&state), vec![want], "swapped: {swap}");
    }
}
