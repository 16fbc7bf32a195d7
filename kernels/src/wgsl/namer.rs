//! Identifier allocation for generated WGSL: unique names that never collide with a WGSL
//! keyword or reserved word, and comment text sanitizing for GDL names.

use std::collections::HashSet;

/// WGSL keywords, reserved words and predeclared names this generator must never emit as
/// an identifier (WGSL spec §15.2–15.3, plus predeclared types and builtins we call).
pub const RESERVED: &[&str] = &[
    // keywords
    "alias",
    "break",
    "case",
    "const",
    "const_assert",
    "continue",
    "continuing",
    "default",
    "diagnostic",
    "discard",
    "else",
    "enable",
    "false",
    "fn",
    "for",
    "if",
    "let",
    "loop",
    "override",
    "requires",
    "return",
    "struct",
    "switch",
    "true",
    "var",
    "while",
    // reserved words
    "NULL",
    "Self",
    "abstract",
    "active",
    "alignas",
    "alignof",
    "as",
    "asm",
    "asm_fragment",
    "async",
    "attribute",
    "auto",
    "await",
    "become",
    "cast",
    "catch",
    "class",
    "co_await",
    "co_return",
    "co_yield",
    "coherent",
    "column_major",
    "common",
    "compile",
    "compile_fragment",
    "concept",
    "const_cast",
    "consteval",
    "constexpr",
    "constinit",
    "crate",
    "debugger",
    "decltype",
    "delete",
    "demote",
    "demote_to_helper",
    "do",
    "dynamic_cast",
    "enum",
    "explicit",
    "export",
    "extends",
    "extern",
    "external",
    "fallthrough",
    "filter",
    "final",
    "finally",
    "friend",
    "from",
    "fxgroup",
    "get",
    "goto",
    "groupshared",
    "highp",
    "impl",
    "implements",
    "import",
    "inline",
    "instanceof",
    "interface",
    "layout",
    "lowp",
    "macro",
    "macro_rules",
    "match",
    "mediump",
    "meta",
    "mod",
    "module",
    "move",
    "mut",
    "mutable",
    "namespace",
    "new",
    "nil",
    "noexcept",
    "noinline",
    "nointerpolation",
    "non_coherent",
    "noncoherent",
    "noperspective",
    "null",
    "nullptr",
    "of",
    "operator",
    "package",
    "packoffset",
    "partition",
    "pass",
    "patch",
    "pixelfragment",
    "precise",
    "precision",
    "premerge",
    "priv",
    "protected",
    "pub",
    "public",
    "readonly",
    "ref",
    "regardless",
    "register",
    "reinterpret_cast",
    "require",
    "resource",
    "restrict",
    "self",
    "set",
    "shared",
    "sizeof",
    "smooth",
    "snorm",
    "static",
    "static_assert",
    "static_cast",
    "std",
    "subroutine",
    "super",
    "target",
    "template",
    "this",
    "thread_local",
    "throw",
    "trait",
    "try",
    "type",
    "typedef",
    "typeid",
    "typename",
    "typeof",
    "union",
    "unless",
    "unorm",
    "unsafe",
    "unsized",
    "use",
    "using",
    "varying",
    "virtual",
    "volatile",
    "wgsl",
    "where",
    "with",
    "writeonly",
    "yield",
    // predeclared types and builtin functions
    "bool",
    "f16",
    "f32",
    "i32",
    "u32",
    "vec2",
    "vec3",
    "vec4",
    "array",
    "atomic",
    "ptr",
    "sampler",
    "mat2x2",
    "mat3x3",
    "mat4x4",
    "atomicAdd",
    "countTrailingZeros",
    "select",
    "min",
    "max",
];

/// Hands out identifiers: sanitized, unique within one shader, never reserved.
#[derive(Debug, Default)]
pub struct Namer {
    taken: HashSet<String>,
}

impl Namer {
    /// A namer that already owns `fixed` (the identifiers of the shader template).
    pub fn with_fixed(fixed: &[&str]) -> Self {
        let mut n = Self::default();
        for f in fixed {
            n.taken.insert((*f).to_string());
        }
        n
    }

    /// A fresh identifier derived from `base`: characters outside `[A-Za-z0-9_]` become `_`,
    /// a leading digit or `__` prefix gets an `x` prefix, and a suffix `_N` is added if the
    /// result is reserved or already handed out.
    pub fn fresh(&mut self, base: &str) -> String {
        let mut s: String = base
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        if s.is_empty()
            || s.starts_with(|c: char| c.is_ascii_digit())
            || s.starts_with("__")
            || s == "_"
        {
            s.insert(0, 'x');
        }
        if !is_reserved(&s) && self.taken.insert(s.clone()) {
            return s;
        }
        let mut k = 1usize;
        loop {
            let cand = format!("{s}_{k}");
            if !is_reserved(&cand) && self.taken.insert(cand.clone()) {
                return cand;
            }
            k += 1;
        }
    }
}

/// True when `ident` is a WGSL keyword, reserved word or predeclared name.
pub fn is_reserved(ident: &str) -> bool {
    RESERVED.contains(&ident)
}

/// Text safe inside a WGSL `//` line comment: printable ASCII only (no line breaks, no
/// block-comment delimiters), at most 120 characters.
pub fn comment_text(s: &str) -> String {
    let mut out: String = s
        .chars()
        .map(|c| if (' '..='~').contains(&c) { c } else { '?' })
        .collect::<String>()
        .replace("/*", "/ *")
        .replace("*/", "* /");
    if out.len() > 120 {
        out.truncate(117);
        out.push_str("...");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keywords_get_suffixed_and_names_stay_unique() {
        let mut n = Namer::with_fixed(&["st"]);
        assert_eq!(n.fresh("loop"), "loop_1");
        assert_eq!(n.fresh("st"), "st_1");
        assert_eq!(n.fresh("st"), "st_2");
        assert_eq!(n.fresh("3x"), "x3x");
        assert_eq!(n.fresh("(cell 1 1)"), "_cell_1_1_");
        assert_eq!(n.fresh("__x"), "x__x");
        for w in RESERVED {
            let id = n.fresh(w);
            assert!(!is_reserved(&id), "{id}");
        }
    }

    #[test]
    fn comments_are_single_line_ascii() {
        let c = comment_text("(cell a\r\nb) */ /* é");
        assert!(!c.contains('\n') && !c.contains('\r') && !c.contains("*/") && !c.contains("/*"));
        assert!(c.is_ascii());
    }
}
