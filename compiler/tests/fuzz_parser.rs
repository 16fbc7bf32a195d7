//! Property tests of the front end (the CI fuzz target): no input makes it panic, and
//! printing then parsing s-expressions round-trips. Case counts are bounded so the whole
//! file runs in a few seconds.

use propnet_compiler::gdl::{parse_source, Span};
use propnet_compiler::kif::{self, SExpr, SourceFile};
use proptest::prelude::*;

fn sexpr() -> impl Strategy<Value = SExpr> {
    let atom = prop_oneof![
        "[a-zA-Z0-9_+-][a-zA-Z0-9_+<=?-]{0,5}",
        "\\?[a-zA-Z0-9_]{1,4}",
        Just("<=".to_string()),
        "\"[a-z ();]{0,4}\"",
    ]
    .prop_map(|text| SExpr::Atom {
        text,
        span: Span::default(),
    });
    atom.prop_recursive(6, 64, 5, |inner| {
        prop::collection::vec(inner, 0..5).prop_map(|items| SExpr::List {
            items,
            span: Span::default(),
        })
    })
}

/// Token soup over GDL's vocabulary: mostly balanced, reaching lowering and the checks.
fn gdl_soup() -> impl Strategy<Value = String> {
    let vocab = prop::sample::select(vec![
        "(",
        "(",
        "(",
        ")",
        ")",
        ")",
        "<=",
        "not",
        "or",
        "distinct",
        "true",
        "does",
        "role",
        "goal",
        "legal",
        "next",
        "init",
        "terminal",
        "?x",
        "?y",
        "a",
        "b",
        "1",
        "100",
        "101",
        "(role a)",
        "(p ?x)",
        "(true (cell ?x))",
        "(does a ?x)",
        "and",
        "; c\n",
        "\r\n",
        "\t",
    ]);
    prop::collection::vec(vocab, 0..60).prop_map(|ts| ts.join(" "))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..256)) {
        let r = parse_source("fuzz.kif", &bytes);
        if let Err(e) = r {
            // Every error but I/O is located in this file.
            let loc = e.loc().expect("located error");
            prop_assert_eq!(&*loc.file, "fuzz.kif");
            prop_assert!(loc.line >= 1 && loc.col >= 1);
        }
    }

    #[test]
    fn gdl_token_soup_never_panics(text in gdl_soup()) {
        if let Err(e) = parse_source("soup.kif", text.as_bytes()) {
            let loc = e.loc().expect("located error");
            let lines = text.split(['\n', '\r']).count() as u32;
            prop_assert!(loc.line >= 1 && loc.line <= lines.max(1), "{} for {:?}", e, text);
        }
    }

    #[test]
    fn print_parse_print_round_trips(es in prop::collection::vec(sexpr(), 0..6)) {
        let text = kif::print_all(&es);
        let src = SourceFile::new("rt.kif", text.as_bytes()).unwrap();
        let parsed = kif::parse(&src).unwrap();
        prop_assert_eq!(kif::print_all(&parsed), text);
        prop_assert_eq!(parsed.len(), es.len());
        for (p, e) in parsed.iter().zip(&es) {
            // Spans cover exactly the printed text of each expression.
            prop_assert_eq!(src.slice(p.span()), kif::print(e));
        }
    }
}
