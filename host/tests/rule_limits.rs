//! Issue #42, round two, item 2: a rule with more variables than a rule may have
//! (70,000 here) gets one located verdict from every command: `check` and `run` (the
//! grounder) and `trace` (the reference interpreter, which used to wrap its variable
//! slots and play a wrong game).

mod support;

/// A one-move game whose goal depends on one rule (line 10) with `n` variables.
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

#[test]
fn a_rule_with_70000_variables_gets_one_located_verdict_from_check_trace_and_run() {
    let game = support::file("wide-70000.kif", &wide_game(70_000));
    let path = game.to_str().unwrap();
    for cmd in ["check", "trace", "run"] {
        let o = support::run(&[cmd, path]);
        o.expect_code(1, cmd);
        for want in [
            format!("{path}:10:1: "),
            "70000 variables".to_string(),
            "more than the 65535 a rule may have; split the rule".to_string(),
        ] {
            assert!(o.err.contains(&want), "{cmd}: no {want:?} in {}", o.err);
        }
        assert!(o.out.is_empty(), "{cmd}: nothing played: {}", o.out);
    }
}
