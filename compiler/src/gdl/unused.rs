//! Warns about relations that rules or facts define but no rule reads: they cannot affect
//! the game, and are most often a misspelled keyword (`legl` for `legal`) or an arity slip.

use super::ast::Program;
use super::deps::RelationInfo;
use super::error::Diagnostic;
use crate::kif::SourceFile;

/// Relations the game's semantics reads without a rule body naming them.
const ROOTS: [(&str, usize); 9] = [
    ("role", 1),
    ("init", 1),
    ("next", 1),
    ("legal", 2),
    ("goal", 2),
    ("terminal", 0),
    ("base", 1),
    ("input", 2),
    ("sees", 2),
];

/// Appends a warning, at its first rule, for each relation defined but read by no rule
/// body and not one of the game's keyword relations; when it is a keyword with another
/// arity, or has a keyword's arity and a name within two edits of it (one for names of up
/// to four letters), the warning suggests the keyword.
pub fn unused_relations(
    src: &SourceFile,
    program: &Program,
    info: &RelationInfo,
    warnings: &mut Vec<Diagnostic>,
) {
    let syms = &program.symbols;
    let mut read = vec![false; info.relations.len()];
    for e in info.edges.iter().flatten() {
        read[e.to.0 as usize] = true;
    }
    for (i, key) in info.relations.iter().enumerate() {
        let name = syms.name(key.name);
        let root = ROOTS.contains(&(name, key.arity));
        let Some(&first) = info.rules_of[i].first() else {
            continue;
        };
        if root || read[i] {
            continue;
        }
        let near = |k: &str| edit_distance(k, name) <= if k.len() <= 4 { 1 } else { 2 };
        let hint = ROOTS
            .iter()
            .find(|&&(k, a)| k == name || (a == key.arity && near(k)))
            .map(|(k, a)| format!("; a misspelled `{k}` (arity {a})?"))
            .unwrap_or_default();
        warnings.push(Diagnostic {
            loc: src.loc(program.rules[first].span.start),
            message: format!(
                "relation `{}` is defined but no rule reads it: it has no effect on the game{hint}",
                key.text(syms)
            ),
        });
    }
}

/// Levenshtein distance between two short names, in characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diag = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let next = (diag + usize::from(ca != cb))
                .min(row[j] + 1)
                .min(row[j + 1] + 1);
            diag = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::edit_distance;

    #[test]
    fn edit_distances() {
        assert_eq!(edit_distance("legal", "legl"), 1);
        assert_eq!(edit_distance("goal", "gaol"), 2);
        assert_eq!(edit_distance("terminal", "terminl"), 1);
        assert_eq!(edit_distance("next", "cell"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
    }
}
