//! Issue #42 (round two), item 11: a late, illegal reply under load. The player's worker
//! was held up (freeing a million-node tree on a busy core: the cause is reproduced in
//! `propnet-mcts`'s `a_million_node_tree_is_never_freed_on_the_searching_thread`) while
//! the next PLAY came; at its deadline the reply was a move of an earlier state, sent
//! late. Here the worker is stalled on purpose (its rollout backend blocks for longer
//! than the play clock) and every reply must still be a legal move of the current state,
//! before the play clock ends.

use propnet_ggp::http::HttpRequest;
use propnet_ggp::log::Log;
use propnet_ggp::{Gamer, PlayerOptions};
use propnet_netlist::{Netlist, ValidNetlist};
use propnet_runtime::backend::{
    Backend, BackendError, BatchRequest, BatchResult, ReferenceBackend,
};
use propnet_runtime::factory::{BackendFactory, BackendKind, BackendRequest, Selected};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

const TICTACTOE: &str = include_str!("../../../bench-games/tictactoe.kif");

/// The longest a stalled batch waits for the switch to open.
const MAX_STALL: Duration = Duration::from_secs(20);

/// The reference backend, whose batches wait while `stall` is set (at most [`MAX_STALL`]).
struct Stalling {
    inner: ReferenceBackend,
    stall: Arc<AtomicBool>,
}

impl Backend for Stalling {
    fn describe(&self) -> String {
        "stalling reference".into()
    }
    fn netlist(&self) -> &Netlist {
        self.inner.netlist()
    }
    fn run_batch(&mut self, req: &BatchRequest) -> Result<BatchResult, BackendError> {
        let until = Instant::now() + MAX_STALL;
        while self.stall.load(Ordering::SeqCst) && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(5));
        }
        self.inner.run_batch(req)
    }
}

#[derive(Debug)]
struct StallingFactory {
    stall: Arc<AtomicBool>,
}

impl BackendFactory for StallingFactory {
    fn make(&self, _: &BackendRequest, net: ValidNetlist) -> Result<Selected, BackendError> {
        Ok(Selected {
            backend: Box::new(Stalling {
                inner: ReferenceBackend::new(net.into_netlist()),
                stall: self.stall.clone(),
            }),
            note: None,
        })
    }
    fn step_evaluator(
        &self,
        _: &ValidNetlist,
    ) -> Option<Box<dyn propnet_runtime::net_trace::StepEvaluator>> {
        None
    }
}

/// A player on the reference backend behind `stall`, margin 250 ms.
fn options(name: &str, stall: Arc<AtomicBool>, move_time: Option<Duration>) -> PlayerOptions {
    PlayerOptions {
        name: name.into(),
        backend: BackendRequest::of(BackendKind::Reference),
        backends: Arc::new(StallingFactory { stall }),
        threads: 1,
        workers: 1,
        margin: Duration::from_millis(250),
        ground: Default::default(),
        compile_wait: 1.0,
        mcts: Default::default(),
        quick_forced: false,
        factoring: true,
        move_time,
    }
}

fn post(gamer: &Gamer, msg: &str) -> (String, Duration) {
    let t = Instant::now();
    let reply = gamer.handle(HttpRequest {
        method: "POST".into(),
        path: "/".into(),
        body: msg.as_bytes().to_vec(),
        received: t,
    });
    assert_eq!(reply.status, 200, "{msg:.60}: {}", reply.body);
    (reply.body, t.elapsed())
}

#[test]
fn a_stalled_worker_still_gives_a_legal_move_of_the_current_state_in_time() {
    let stall = Arc::new(AtomicBool::new(false));
    let opts = options("late", stall.clone(), None);
    let gamer = Gamer::new(opts, Arc::new(Log::new(None).unwrap()));
    let clock = Duration::from_secs(1);
    let start = format!("(START s1 o ({TICTACTOE}) 10 1)");
    assert_eq!(post(&gamer, &start).0, "ready");
    let (r1, _) = post(&gamer, "(PLAY s1 NIL)");
    assert_eq!(r1, "noop", "x moves first");
    // the worker stalls in the search of step 2 (o to move) for longer than two clocks
    stall.store(true, Ordering::SeqCst);
    let (r2, took) = post(&gamer, "(PLAY s1 ((mark 2 2) noop))");
    assert!(took < clock, "step 2 answered after {took:?}");
    assert!(
        r2.starts_with("(mark ") && r2 != "(mark 2 2)",
        "step 2: `{r2}` is not a legal move of o"
    );
    // step 3: x to move, o's only legal move is noop; the worker is still stalled in
    // step 2 (it used to send step 2's move here, late)
    let (r3, took) = post(&gamer, &format!("(PLAY s1 (noop {r2}))"));
    assert_eq!(r3, "noop", "step 3: a legal move of the current state");
    assert!(took < clock, "step 3 answered after {took:?}");
    // step 4: o to move again, the worker still stalled: a mark on an empty cell
    let x = if r2 == "(mark 1 1)" {
        "(mark 3 3)"
    } else {
        "(mark 1 1)"
    };
    let (r4, took) = post(&gamer, &format!("(PLAY s1 ({x} noop))"));
    assert!(took < clock, "step 4 answered after {took:?}");
    assert!(
        r4.starts_with("(mark ") && ![r2.as_str(), x, "(mark 2 2)"].contains(&r4.as_str()),
        "step 4: `{r4}` is not a legal move of o (taken: (mark 2 2), {r2}, {x})"
    );
    stall.store(false, Ordering::SeqCst);
    assert_eq!(post(&gamer, "(ABORT s1)").0, "aborted");
}

/// `--move-ms`: with a search time far below the play clock, the reply leaves after the
/// search time, not at the clock's margin (time odds).
#[test]
fn a_move_time_ends_the_search_before_the_clock() {
    let stall = Arc::new(AtomicBool::new(false));
    let opts = options("quick", stall, Some(Duration::from_millis(200)));
    let gamer = Gamer::new(opts, Arc::new(Log::new(None).unwrap()));
    // a 60 s play clock: without the move time each reply would take 59.75 s
    let start = format!("(START s2 x ({TICTACTOE}) 10 60)");
    assert_eq!(post(&gamer, &start).0, "ready");
    let (r1, took) = post(&gamer, "(PLAY s2 NIL)");
    assert!(r1.starts_with("(mark "), "x moves first: `{r1}`");
    assert!(took < Duration::from_secs(20), "answered after {took:?}");
    assert_eq!(post(&gamer, "(ABORT s2)").0, "aborted");
}
