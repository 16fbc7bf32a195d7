use super::*;

#[test]
fn static_dynamic_recursive_and_strata() {
    let g = game(
        "(role a)\n(succ 1 2)\n(<= (less ?x ?y) (succ ?x ?y))\n\
         (<= (less ?x ?z) (succ ?x ?y) (less ?y ?z))\n\
         (<= (free ?x) (true (cell ?x)) (not (taken ?x)))\n(<= (taken ?x) (true (mark ?x)))\n\
         (<= (next (cell ?x)) (does a ?x) (free ?x))\n(<= big (not (less 2 1)))\n\
         (<= nosucc (not (succ 5 6)))",
    );
    let (s, i) = (&g.program.symbols, &g.info);
    let id = |n: &str, k| i.id(s, n, k).unwrap_or_else(|| panic!("no {n}/{k}"));
    assert!(i.stratified);
    assert!(i.is_static(id("less", 2)) && i.is_static(id("succ", 2)) && i.is_static(id("big", 0)));
    assert!(!i.is_static(id("free", 1)) && !i.is_static(id("next", 1)));
    assert!(i.recursive[id("less", 2).0 as usize]);
    assert!(!i.recursive[id("free", 1).0 as usize]);
    assert!(i.depends_on_does[id("next", 1).0 as usize]);
    assert!(!i.depends_on_does[id("free", 1).0 as usize]);
    let st = |n, k| i.stratum[id(n, k).0 as usize];
    assert_eq!(st("taken", 1), 0);
    assert_eq!(st("free", 1), 1);
    assert_eq!(st("big", 0), 1);
    assert_eq!(st("next", 1), 1);
    // SCCs come dependencies first.
    let pos = |r: crate::gdl::RelId| i.sccs.iter().position(|c| c.contains(&r)).unwrap();
    assert!(pos(id("succ", 2)) < pos(id("less", 2)));
    assert!(pos(id("taken", 1)) < pos(id("free", 1)));
    assert_eq!(i.text(s, id("less", 2)), "less/2");
    // Rule strata respect negation.
    let rule_of = |n: &str| {
        g.program
            .rules
            .iter()
            .position(|r| s.name(r.head.rel) == n)
            .unwrap()
    };
    assert!(i.rule_stratum[rule_of("free")] > i.rule_stratum[rule_of("taken")]);
    assert!(i.rule_stratum[rule_of("big")] > i.rule_stratum[rule_of("less")]);
    // Negating a relation defined by facts only (facts are stratum 0).
    assert!(i.rule_stratum[rule_of("nosucc")] > i.rule_stratum[rule_of("succ")]);
}

#[test]
fn same_name_different_arity_are_different_relations() {
    let g = game("(role a)\n(p 1)\n(p 1 2)\n(<= q (p 1))");
    let (s, i) = (&g.program.symbols, &g.info);
    let p1 = i.id(s, "p", 1).unwrap();
    let p2 = i.id(s, "p", 2).unwrap();
    assert_ne!(p1, p2);
    assert_eq!(i.rules_of[p1.0 as usize].len(), 1);
    let q = i.id(s, "q", 0).unwrap();
    assert_eq!(
        i.edges[q.0 as usize]
            .iter()
            .map(|e| e.to)
            .collect::<Vec<_>>(),
        vec![p1]
    );
}
