//! Makes legal, unique Verilog identifiers from hints, avoiding Verilog/SystemVerilog keywords.
//!
//! Generated signal names are our own (`g12`, `st`, `lg`); GDL text only ever appears in
//! comments, through [`comment`]. The namer is used for names that come from the user
//! (the module prefix) so a game called `module` or `reg` still yields valid Verilog.

use std::collections::HashSet;

/// Reserved words of Verilog-2005 and SystemVerilog-2017 (IEEE 1800-2017 Annex B), which
/// no generated identifier may equal.
pub const KEYWORDS: &[&str] = &[
    "accept_on",
    "alias",
    "always",
    "always_comb",
    "always_ff",
    "always_latch",
    "and",
    "assert",
    "assign",
    "assume",
    "automatic",
    "before",
    "begin",
    "bind",
    "bins",
    "binsof",
    "bit",
    "break",
    "buf",
    "bufif0",
    "bufif1",
    "byte",
    "case",
    "casex",
    "casez",
    "cell",
    "chandle",
    "checker",
    "class",
    "clocking",
    "cmos",
    "config",
    "const",
    "constraint",
    "context",
    "continue",
    "cover",
    "covergroup",
    "coverpoint",
    "cross",
    "deassign",
    "default",
    "defparam",
    "design",
    "disable",
    "dist",
    "do",
    "edge",
    "else",
    "end",
    "endcase",
    "endchecker",
    "endclass",
    "endclocking",
    "endconfig",
    "endfunction",
    "endgenerate",
    "endgroup",
    "endinterface",
    "endmodule",
    "endpackage",
    "endprimitive",
    "endprogram",
    "endproperty",
    "endspecify",
    "endsequence",
    "endtable",
    "endtask",
    "enum",
    "event",
    "eventually",
    "expect",
    "export",
    "extends",
    "extern",
    "final",
    "first_match",
    "for",
    "force",
    "foreach",
    "forever",
    "fork",
    "forkjoin",
    "function",
    "generate",
    "genvar",
    "global",
    "highz0",
    "highz1",
    "if",
    "iff",
    "ifnone",
    "ignore_bins",
    "illegal_bins",
    "implements",
    "implies",
    "import",
    "incdir",
    "include",
    "initial",
    "inout",
    "input",
    "inside",
    "instance",
    "int",
    "integer",
    "interconnect",
    "interface",
    "intersect",
    "join",
    "join_any",
    "join_none",
    "large",
    "let",
    "liblist",
    "library",
    "local",
    "localparam",
    "logic",
    "longint",
    "macromodule",
    "matches",
    "medium",
    "modport",
    "module",
    "nand",
    "negedge",
    "nettype",
    "new",
    "nexttime",
    "nmos",
    "nor",
    "noshowcancelled",
    "not",
    "notif0",
    "notif1",
    "null",
    "or",
    "output",
    "package",
    "packed",
    "parameter",
    "pmos",
    "posedge",
    "primitive",
    "priority",
    "program",
    "property",
    "protected",
    "pull0",
    "pull1",
    "pulldown",
    "pullup",
    "pulsestyle_ondetect",
    "pulsestyle_onevent",
    "pure",
    "rand",
    "randc",
    "randcase",
    "randsequence",
    "rcmos",
    "real",
    "realtime",
    "ref",
    "reg",
    "reject_on",
    "release",
    "repeat",
    "restrict",
    "return",
    "rnmos",
    "rpmos",
    "rtran",
    "rtranif0",
    "rtranif1",
    "s_always",
    "s_eventually",
    "s_nexttime",
    "s_until",
    "s_until_with",
    "scalared",
    "sequence",
    "shortint",
    "shortreal",
    "showcancelled",
    "signed",
    "small",
    "soft",
    "solve",
    "specify",
    "specparam",
    "static",
    "string",
    "strong",
    "strong0",
    "strong1",
    "struct",
    "super",
    "supply0",
    "supply1",
    "sync_accept_on",
    "sync_reject_on",
    "table",
    "tagged",
    "task",
    "this",
    "throughout",
    "time",
    "timeprecision",
    "timeunit",
    "tran",
    "tranif0",
    "tranif1",
    "tri",
    "tri0",
    "tri1",
    "triand",
    "trior",
    "trireg",
    "type",
    "typedef",
    "union",
    "unique",
    "unique0",
    "unsigned",
    "until",
    "until_with",
    "untyped",
    "use",
    "uwire",
    "var",
    "vectored",
    "virtual",
    "void",
    "wait",
    "wait_order",
    "wand",
    "weak",
    "weak0",
    "weak1",
    "while",
    "wildcard",
    "wire",
    "with",
    "within",
    "wor",
    "xnor",
    "xor",
];

/// True when `s` is a Verilog or SystemVerilog keyword.
pub fn is_keyword(s: &str) -> bool {
    KEYWORDS.contains(&s)
}

/// Hands out unique legal identifiers (`[A-Za-z_][A-Za-z0-9_]*`, not a keyword).
#[derive(Debug, Default)]
pub struct Namer {
    taken: HashSet<String>,
}

impl Namer {
    /// An empty namer.
    pub fn new() -> Self {
        Self::default()
    }

    /// A fresh identifier derived from `hint`: illegal characters become `_`, a leading digit
    /// or an empty hint gets a `n_` prefix, keywords and names already handed out get a
    /// numeric suffix. Never fails.
    pub fn fresh(&mut self, hint: &str) -> String {
        let mut base: String = hint
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '_' {
                    c.to_ascii_lowercase()
                } else {
                    '_'
                }
            })
            .collect();
        if base.is_empty() || base.starts_with(|c: char| c.is_ascii_digit()) {
            base.insert_str(0, "n_");
        }
        base.truncate(48);
        let mut name = base.clone();
        let mut k = 1;
        while is_keyword(&name) || self.taken.contains(&name) {
            name = format!("{base}_{k}");
            k += 1;
        }
        self.taken.insert(name.clone());
        name
    }
}

/// Text that is safe inside a `//` comment: printable ASCII only, no line breaks, at most
/// 120 characters (longer text is cut and marked with `...`).
pub fn comment(text: &str) -> String {
    let mut s: String = text
        .chars()
        .map(|c| if (' '..='~').contains(&c) { c } else { ' ' })
        .collect();
    if s.len() > 120 {
        s.truncate(117);
        s.push_str("...");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keyword_list_has_no_duplicates_and_covers_both_languages() {
        let set: HashSet<_> = KEYWORDS.iter().collect();
        assert_eq!(set.len(), KEYWORDS.len());
        assert!(is_keyword("wire") && is_keyword("always_ff") && is_keyword("logic"));
        assert!(!is_keyword("g12"));
    }

    #[test]
    fn fresh_names_are_legal_unique_and_not_keywords() {
        let mut n = Namer::new();
        assert_eq!(n.fresh("tic-tac-toe"), "tic_tac_toe");
        assert_eq!(n.fresh("module"), "module_1");
        assert_eq!(n.fresh("tic_tac_toe"), "tic_tac_toe_1");
        assert_eq!(n.fresh("3d"), "n_3d");
        assert_eq!(n.fresh(""), "n_");
        assert_eq!(n.fresh("Reg"), "reg_1");
    }

    #[test]
    fn comments_cannot_break_out() {
        assert_eq!(comment("(cell 1\n1 b)\r"), "(cell 1 1 b) ");
        assert!(comment(&"x".repeat(500)).len() <= 120);
    }
}

/// Operands per line of a long Verilog expression written by [`join_wrapped`].
const PER_LINE: usize = 32;

/// `parts` joined by `op` (e.g. `" | "`), one line as long as there are at most 64 of
/// them, else [`PER_LINE`] to a line: Verilator refuses a line of more than 40,000
/// preprocessor tokens (the sums over 4,096 engines of a top module, an `Or` over every
/// input of a game with 100 k moves).
pub(crate) fn join_wrapped(parts: &[String], op: &str) -> String {
    if parts.len() <= 2 * PER_LINE {
        return parts.join(op);
    }
    let lines: Vec<String> = parts.chunks(PER_LINE).map(|c| c.join(op)).collect();
    lines.join(&format!("{}\n    ", op.trim_end()))
}

#[cfg(test)]
mod wrap_tests {
    use super::join_wrapped;

    /// Short expressions stay on one line; long ones break after an operator, 32 operands
    /// to a line, and read the same operands in the same order.
    #[test]
    fn long_expressions_break_between_operands() {
        let few: Vec<String> = (0..64).map(|i| format!("a{i}")).collect();
        assert_eq!(join_wrapped(&few, " | "), few.join(" | "));
        let many: Vec<String> = (0..100).map(|i| format!("a{i}")).collect();
        let text = join_wrapped(&many, " + ");
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 4);
        assert!(lines[0].starts_with("a0 + a1 + ") && lines[0].ends_with("a31 +"));
        assert_eq!(lines[1].trim_start(), lines[1][4..].to_string());
        assert!(lines[3].trim_start().starts_with("a96 + ") && lines[3].ends_with("a99"));
        let flat: Vec<String> = text
            .split(['+', '\n'])
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .map(String::from)
            .collect();
        assert_eq!(flat, many);
    }
}
