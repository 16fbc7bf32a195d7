//! Hand-written games shared by several test files.

use propnet_compiler::ground::compile_with_report;
use propnet_netlist::passes::optimize;
use propnet_netlist::Netlist;

/// A small connection game of our own whose `reach` view supports itself through the
/// symmetric adjacency (`reach 2` <- `reach 3` <- `reach 2`): a positive loop that the
/// grounder unrolls. (The corpus games with ground positive loops, the Amazons variants, are
/// too large for a fast simulation test.)
pub const POSITIVE_LOOP_GAME: &str = "
(role red) (role blue)
(init (control red))
(index 1) (index 2) (index 3) (index 4) (index 5)
(adj 1 2) (adj 2 1) (adj 2 3) (adj 3 2) (adj 3 4) (adj 4 3) (adj 4 5) (adj 5 4) (adj 1 3) (adj 3 1)
(<= (taken ?c) (true (cell ?c ?r)))
(<= (legal ?r (mark ?c)) (true (control ?r)) (index ?c) (not (taken ?c)))
(<= (legal red noop) (true (control blue)))
(<= (legal blue noop) (true (control red)))
(<= (next (cell ?c ?r)) (does ?r (mark ?c)))
(<= (next (cell ?c ?r)) (true (cell ?c ?r)))
(<= (next (control blue)) (true (control red)))
(<= (next (control red)) (true (control blue)))
(<= (reach ?r 1) (true (cell 1 ?r)))
(<= (reach ?r 5) (true (cell 5 ?r)))
(<= (reach ?r ?y) (reach ?r ?x) (adj ?x ?y) (true (cell ?y ?r)))
(<= (span ?r) (reach ?r 3) (true (cell 1 ?r)) (true (cell 5 ?r)) (true (cell 3 ?r)))
(<= (win ?r) (reach ?r 4) (true (cell 1 ?r)))
(<= (win ?r) (span ?r))
(<= open (index ?c) (not (taken ?c)))
(<= terminal (win ?r))
(<= terminal (not open))
(<= (goal ?r 100) (win ?r))
(<= (goal ?r 0) (role ?r) (not (win ?r)))
";

/// [`POSITIVE_LOOP_GAME`] grounded and optimized.
///
/// # Panics
/// When it does not compile, or the grounder reports no positive loop (the point of it).
pub fn positive_loop_game() -> Netlist {
    let g = propnet_compiler::gdl::parse_source("loop.kif", POSITIVE_LOOP_GAME.as_bytes())
        .unwrap_or_else(|e| panic!("{e}"));
    let (mut net, report) =
        compile_with_report(&g.program, &Default::default()).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        report.cyclic_sccs > 0 && report.unrolled_rounds > 0,
        "expected a positive loop: {report:?}"
    );
    optimize(&mut net, &Default::default());
    net
}
