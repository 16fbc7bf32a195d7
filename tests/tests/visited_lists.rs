//! The visited-list idiom (a path search that threads the list of cells it has visited,
//! as laikLee_hex's `connection/6` does): the grounder drops the list where that provably
//! cannot change which atoms hold, and keeps it where it could (a bound shorter than the
//! board, keys shared by two cells, a caller that starts from a non-empty list). Every
//! variant is small enough to ground with its lists, and in every one the netlist plays
//! exactly like the reference interpreter, so a wrong drop shows as a divergence.

use propnet_compiler::gdl;
use propnet_compiler::ground::{compile_with_report, CompileOptions};
use propnet_compiler::interp::trace::{trace, InterpEngine, TraceEngine, TraceOptions};
use propnet_compiler::interp::Interp;
use propnet_runtime::net_trace::{NetTrace, TraceBackend};

/// How a variant departs from the faithful idiom.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Variant {
    /// As laikLee_hex: lists as long as the board has cells, one key per cell.
    Faithful,
    /// Lists of at most one element: no path of two steps exists.
    ShortBound,
    /// Cells `(1 1)` and `(1 2)` share a key, so no path visits both.
    SharedKey,
    /// Red's path search starts with `(1 1)`'s key already in the list.
    NonEmptyStart,
}

/// A hex-like game on an `n`×`n` board: red joins row 1 to row `n`, blue column 1 to
/// column `n`, through `connection/6` with a visited list (written here, after the shape
/// of laikLee_hex's rules); a full board without a line is a draw.
fn game(n: usize, variant: Variant) -> String {
    let mut g = String::from("(role red) (role blue) (init (control red))\n");
    for x in 1..=n {
        for y in 1..=n {
            let key = match (variant, x, y) {
                (Variant::SharedKey, 1, 2) => "k11".to_string(),
                _ => format!("k{x}{y}"),
            };
            g += &format!("(init (cell {x} {y} blank)) (id {x} {y} {key}) (le k{x}{y})\n");
        }
        g += &format!("(equals {x} {x})\n");
        if x < n {
            g += &format!("(succ {x} {})\n", x + 1);
        }
    }
    g += "
(<= (legal ?p (mark ?x ?y)) (true (control ?p)) (true (cell ?x ?y blank)))
(<= (legal blue noop) (true (control red)))
(<= (legal red noop) (true (control blue)))
(<= (next (control blue)) (true (control red)))
(<= (next (control red)) (true (control blue)))
(<= (next (cell ?x ?y ?p)) (does ?p (mark ?x ?y)) (true (cell ?x ?y blank)))
(<= (next (cell ?x ?y ?c)) (true (cell ?x ?y ?c)) (distinct ?c blank))
(<= (next (cell ?x ?y blank)) (does ?p (mark ?j ?k)) (true (cell ?x ?y blank))
    (or (distinct ?x ?j) (distinct ?y ?k)))
(<= (neighbour ?x1 ?y1 ?x2 ?y2) (equals ?y1 ?y2) (or (succ ?x2 ?x1) (succ ?x1 ?x2)))
(<= (neighbour ?x1 ?y1 ?x2 ?y2) (succ ?y1 ?y2) (or (equals ?x1 ?x2) (succ ?x1 ?x2)))
(<= (neighbour ?x1 ?y1 ?x2 ?y2) (succ ?y2 ?y1) (or (equals ?x1 ?x2) (succ ?x2 ?x1)))
(<= (color_neighbour ?x1 ?y1 ?x2 ?y2 ?c) (neighbour ?x1 ?y1 ?x2 ?y2) (true (cell ?x2 ?y2 ?c)))
(<= (connection ?x1 ?y1 ?x2 ?y2 ?c ?l) (id ?x1 ?y1 ?id) (append_el ?id ?l ?l2)
    (connection2 ?x1 ?y1 ?x2 ?y2 ?c ?l2))
(<= (connection2 ?x1 ?y1 ?x2 ?y2 ?c ?l) (color_neighbour ?x1 ?y1 ?x2 ?y2 ?c) (islist ?l))
(<= (connection2 ?x1 ?y1 ?x2 ?y2 ?c ?l) (color_neighbour ?x1 ?y1 ?x3 ?y3 ?c)
    (connection ?x3 ?y3 ?x2 ?y2 ?c ?l) (islist ?l))
(<= (append_el ?e nil (list ?e nil)) (le ?e))
(<= (append_el ?e (list ?h ?t) (list ?h ?t2)) (le ?h) (le ?e) (distinct ?e ?h)
    (islist ?t) (append_el ?e ?t ?t2) (islist ?t2))
(islist nil)
(<= (goal ?p 100) (line ?p))
(<= (goal red 0) (line blue))
(<= (goal blue 0) (line red))
(<= (goal ?p 50) (role ?p) (not (line red)) (not (line blue)))
(<= open (true (cell ?x ?y blank)))
(<= terminal (line red))
(<= terminal (line blue))
(<= terminal (not open))
";
    let start = match variant {
        Variant::NonEmptyStart => "(list k11 nil)",
        _ => "nil",
    };
    g += &format!(
        "(<= (line red) (true (cell 1 ?y1 red)) (connection 1 ?y1 {n} ?y2 red {start}))\n\
         (<= (line blue) (true (cell ?x1 1 blue)) (connection ?x1 1 ?x2 {n} blue nil))\n"
    );
    let max_len = match variant {
        Variant::ShortBound => 1,
        _ => n * n,
    };
    for len in 1..=max_len {
        let vars: Vec<String> = (1..=len).map(|i| format!("?e{i}")).collect();
        let list = vars
            .iter()
            .rev()
            .fold("nil".to_string(), |t, v| format!("(list {v} {t})"));
        let checks: String = vars.iter().map(|v| format!(" (le {v})")).collect();
        g += &format!("(<= (islist {list}){checks})\n");
    }
    g
}

/// The interpreter's and the netlist's traces of `playouts` random playouts (headers cut),
/// and whether the grounder dropped the list (`connection` made gates with five arguments).
fn traces(text: &str, playouts: u64) -> (Vec<String>, Vec<String>, bool) {
    let g = gdl::parse_source("visited.kif", text.as_bytes()).unwrap_or_else(|e| panic!("{e}"));
    let (net, report) = compile_with_report(&g.program, &CompileOptions::default())
        .unwrap_or_else(|e| panic!("{}", e.located(&g.source)));
    let dropped = report
        .by_relation
        .iter()
        .any(|r| r.relation == "connection/5" && r.gates > 0);
    let opts = TraceOptions {
        game: "visited.kif".into(),
        playouts,
        seed: 11,
        max_steps: 200,
        stop_after: None,
    };
    let mut interp = Interp::new(&g.program).expect("interpreter");
    let by_interp = lines(
        &mut InterpEngine::new(&mut interp).expect("initial state"),
        &opts,
    );
    let by_net = lines(
        &mut NetTrace::new(
            &net,
            TraceBackend::Cpu,
            &propnet_host::select::Backends::default(),
        )
        .expect("netlist engine"),
        &opts,
    );
    (by_interp, by_net, dropped)
}

/// The step lines of `engine`'s trace (the header, which names the engine, left out).
fn lines<E: TraceEngine>(engine: &mut E, opts: &TraceOptions) -> Vec<String>
where
    E::Error: std::fmt::Debug,
{
    let mut out = Vec::new();
    trace(engine, opts, |l| out.push(l.to_string())).expect("playouts");
    out.split_off(1)
}

/// How many playouts of a trace end with each goal vector.
fn outcomes(lines: &[String]) -> Vec<(String, usize)> {
    let mut counts = std::collections::BTreeMap::new();
    for l in lines.iter().filter(|l| l.contains("\"terminal\":true")) {
        if let Some(i) = l.find("\"goals\"") {
            let goals = l[i..].split('}').next().unwrap_or_default().to_string();
            *counts.entry(goals).or_insert(0) += 1;
        }
    }
    counts.into_iter().collect()
}

#[test]
fn the_list_is_dropped_only_where_it_cannot_matter_and_play_agrees() {
    for (variant, drops) in [
        (Variant::Faithful, true),
        (Variant::ShortBound, false),
        (Variant::SharedKey, false),
        (Variant::NonEmptyStart, false),
    ] {
        let (by_interp, by_net, dropped) = traces(&game(3, variant), 150);
        assert_eq!(dropped, drops, "{variant:?}: list dropped");
        assert_eq!(by_interp.len(), by_net.len(), "{variant:?}: trace lengths");
        for (a, b) in by_interp.iter().zip(&by_net) {
            assert_eq!(a, b, "{variant:?}: interpreter vs netlist");
        }
        let ends = outcomes(&by_net);
        eprintln!("{variant:?}: {ends:?}");
        // The bound of one element forbids every line on a 3x3 board: all draws. The
        // others are won by someone in some playouts.
        let all_draws = ends
            .iter()
            .all(|(g, _)| g.ends_with(":{\"red\":50,\"blue\":50"));
        assert_eq!(
            all_draws,
            variant == Variant::ShortBound,
            "{variant:?}: {ends:?}"
        );
    }
}

#[test]
fn the_list_is_dropped_on_a_board_too_big_to_ground_with_it() {
    // 5x5, as laikLee_hex: with the list, every simple path is an atom (the game sits on
    // the grounding budget); without it the game grounds to a few thousand gates.
    let (by_interp, by_net, dropped) = traces(&game(5, Variant::Faithful), 40);
    assert!(dropped);
    assert_eq!(by_interp, by_net);
}
