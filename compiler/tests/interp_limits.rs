//! Issue #42, round two, item 2: the reference interpreter's representation limits are
//! located errors, never a wrap. A rule with more variables than its slots number used
//! to alias variable 65,536 with variable 0 and play a wrong game; now [`Interp::new`]
//! rejects it at the rule, as the grounder does, and a rule at the limit plays right.

use propnet_compiler::gdl::{self, MAX_RULE_VARIABLES};
use propnet_compiler::interp::trace::{trace, InterpEngine, TraceOptions};
use propnet_compiler::interp::{Interp, InterpError};

/// A one-move game whose goal after the move is 100 when `big` holds, else 0; `big` is
/// one rule with `n` variables matching one fact whose arguments all differ (so it holds,
/// but would not if two of its variables shared a slot). The rule starts on line 10.
fn wide_game(n: usize) -> String {
    let vars: Vec<String> = (0..n).map(|i| format!("?v{i}")).collect();
    let args: Vec<String> = (0..n).map(|i| format!("a{i}")).collect();
    format!(
        "(role r)\n(init s)\n(<= (legal r go) (true s))\n(<= (next t) (does r go))\n\
         (<= terminal (true t))\n(<= (goal r 100) (true t) big)\n\
         (<= (goal r 0) (true t) (not big))\n(<= (goal r 50) (true s))\n(f {})\n\
         (<= big\n    (f {}))\n",
        args.join(" "),
        vars.join(" ")
    )
}

/// The goal of `r` at the end of the one playout, from the interpreter's trace.
fn final_goal(i: &mut Interp) -> String {
    let opts = TraceOptions {
        game: "wide.kif".into(),
        playouts: 1,
        seed: 1,
        max_steps: 10,
        stop_after: None,
    };
    let mut lines = Vec::new();
    let mut engine = InterpEngine::new(i).expect("initial state");
    trace(&mut engine, &opts, |l| lines.push(l.to_string())).expect("trace");
    let last = lines.last().expect("a line").clone();
    let at = last.find("\"goals\":").expect("goals") + "\"goals\":".len();
    last[at..].split('}').next().unwrap_or("").to_string() + "}"
}

/// The interpreter's error for `text`, located as the CLI prints it.
fn interp_error(text: &str) -> (InterpError, String) {
    let game = gdl::parse_source("wide.kif", text.as_bytes()).expect("valid GDL");
    let Err(e) = Interp::new(&game.program) else {
        panic!("the interpreter accepted a rule past the limit");
    };
    let located = game.source.locate(e.span(), &e);
    (e, located)
}

#[test]
fn a_rule_with_70000_variables_is_a_located_error_not_a_wrong_game() {
    let (e, located) = interp_error(&wide_game(70_000));
    match &e {
        InterpError::TooManyVariables {
            count, limit, rule, ..
        } => {
            assert_eq!((*count, *limit), (70_000, MAX_RULE_VARIABLES));
            assert_eq!(rule, "big");
        }
        other => panic!("{other}"),
    }
    assert!(located.starts_with("wide.kif:10:1:"), "{located}");
    assert!(
        located.contains("70000 variables, more than the 65535 a rule may have; split the rule"),
        "{located}"
    );
}

#[test]
fn the_variable_limit_is_exact_and_a_rule_at_it_plays_right() {
    let (e, _) = interp_error(&wide_game(MAX_RULE_VARIABLES + 1));
    assert!(
        matches!(e, InterpError::TooManyVariables { count, .. } if count == MAX_RULE_VARIABLES + 1),
        "{e}"
    );
    let text = wide_game(MAX_RULE_VARIABLES);
    let game = gdl::parse_source("wide.kif", text.as_bytes()).expect("valid GDL");
    let mut i = Interp::new(&game.program).expect("a rule at the limit is accepted");
    assert_eq!(final_goal(&mut i), "{\"r\":100}");
}

/// A chain of rules each reading the next (`p0 ← p1 ← … ← p300 ← (true s)`) nests one call
/// per rule: past [`propnet_compiler::interp::Limits::max_call_depth`] it is an error at the
/// relation's rule, where the command thread's stack used to overflow (exit 134) at
/// 400,000; within the limit it is evaluated.
#[test]
fn calls_nested_past_the_limit_are_a_located_error_not_a_stack_overflow() {
    let chain: Vec<String> = (0..300).map(|i| format!("(<= p{i} p{})", i + 1)).collect();
    let text = format!(
        "(role r)\n(init s)\n(<= (legal r go) p0)\n(<= (next t) (does r go))\n\
         (<= terminal (true t))\n(<= (goal r 100) (true t))\n(<= (goal r 0) (true s))\n{}\n\
         (<= p300 (true s))\n",
        chain.join("\n")
    );
    let game = gdl::parse_source("chain.kif", text.as_bytes()).expect("valid GDL");
    let at = |depth: u32| {
        let limits = propnet_compiler::interp::Limits {
            max_call_depth: depth,
            ..Default::default()
        };
        let mut i = Interp::with_limits(&game.program, limits).expect("prepared");
        i.initial_state().and_then(|s| i.legal_moves(&s, 0))
    };
    assert_eq!(at(400).expect("within the limit").len(), 1);
    let e = at(100).expect_err("past the limit");
    assert!(
        matches!(e, InterpError::CallDepth { limit: 100, .. }),
        "{e}"
    );
    let located = game.source.locate(e.span(), &e);
    assert!(
        located.starts_with("chain.kif:")
            && located.contains("nests more than 100 calls of relations one inside the other")
            && located.contains("in rule: (<= p"),
        "{located}"
    );
}
