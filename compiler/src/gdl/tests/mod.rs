//! Unit tests of lowering, checks and dependency analysis on small hand-written games.

mod check;
mod deps;
mod lower;

use super::{parse_source, Game};

/// A minimal valid game around `rules`, so each test states only what it is about.
const PRELUDE: &str = "(role a)\n";

fn game(text: &str) -> Game {
    match parse_source("g.kif", text.as_bytes()) {
        Ok(g) => g,
        Err(e) => panic!("unexpected error: {e}"),
    }
}

fn error(text: &str) -> String {
    match parse_source("g.kif", text.as_bytes()) {
        Ok(_) => panic!("accepted invalid game:\n{text}"),
        Err(e) => e.to_string(),
    }
}

fn rule_texts(g: &Game) -> Vec<String> {
    let s = &g.program.symbols;
    g.program
        .rules
        .iter()
        .map(|r| {
            let body: Vec<String> = r
                .body
                .iter()
                .map(|l| match l {
                    super::Lit::Pos(a) => s.atom_text(a),
                    super::Lit::Neg(a) => format!("(not {})", s.atom_text(a)),
                    super::Lit::Distinct(x, y) => {
                        format!("(distinct {} {})", s.term_text(x), s.term_text(y))
                    }
                    super::Lit::Equal(x, y) => format!("(= {} {})", s.term_text(x), s.term_text(y)),
                })
                .collect();
            if body.is_empty() {
                s.atom_text(&r.head)
            } else {
                format!("{} :- {}", s.atom_text(&r.head), body.join(", "))
            }
        })
        .collect()
}
