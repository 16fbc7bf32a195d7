//! Human-readable text form of a netlist (cranelift-style), written by [`to_text`] and read
//! by [`from_text`]; used by the pass filetests and for debugging. One item per line, `;`
//! starts a comment, names are double-quoted (`\"` and `\\` escaped):
//!
//! ```text
//! gdl II
//! role r0 "white"
//! latch l0 "(cell 1 1 b)" init 1
//! input i0 r0 "(mark 1 1)"
//! fixed "(step 1)" 0
//! alias "(control black)" not l0
//! g0 = const 0
//! g1 = latch l0
//! g2 = input i0
//! g3 = and g1 g2
//! g4 = not g3
//! g5 = or
//! next l0 g4
//! legal r0 i0 g1
//! goal r0 100 g5
//! percept r0 "(seen 1)" g3
//! terminal g4
//! ```
//!
//! Roles, latches, inputs and gates are numbered in order from 0 and must be written so;
//! legal, goal and percept lines (GDL-II `sees`, only in games that have them) keep their
//! order. The first line, `gdl II`, is written only for a GDL-II game
//! ([`Netlist::gdl2`]). The parser validates the result.

use super::ir::{
    AliasedFluent, Gate, GateId, Goal, Input, InputId, Latch, LatchId, Legal, Netlist, Percept,
    Role, RoleId,
};
use super::validate::{validate, ValidateError};
use std::fmt::Write;

/// Writes `net` in the text form (the inverse of [`from_text`]).
pub fn to_text(net: &Netlist) -> String {
    let mut s = String::new();
    if net.gdl2 {
        s.push_str("gdl II\n");
    }
    for (i, r) in net.roles.iter().enumerate() {
        let _ = writeln!(s, "role r{i} {}", quote(&r.name));
    }
    for (i, l) in net.latches.iter().enumerate() {
        let _ = writeln!(s, "latch l{i} {} init {}", quote(&l.name), l.init as u8);
    }
    for (i, x) in net.inputs.iter().enumerate() {
        let _ = writeln!(s, "input i{i} r{} {}", x.role.0, quote(&x.name));
    }
    for (name, v) in &net.fixed_fluents {
        let _ = writeln!(s, "fixed {} {}", quote(name), *v as u8);
    }
    for a in &net.aliased_fluents {
        let not = if a.negated { "not " } else { "" };
        let _ = writeln!(s, "alias {} {not}{}", quote(&a.name), a.latch);
    }
    for (i, g) in net.gates.iter().enumerate() {
        let _ = write!(s, "g{i} = ");
        let _ = match g {
            Gate::Const(v) => write!(s, "const {}", *v as u8),
            Gate::Input(x) => write!(s, "input {x}"),
            Gate::Latch(l) => write!(s, "latch {l}"),
            Gate::Not(a) => write!(s, "not {a}"),
            Gate::And(ops) | Gate::Or(ops) => {
                let _ = write!(s, "{}", g.kind());
                ops.iter().try_for_each(|o| write!(s, " {o}"))
            }
        };
        s.push('\n');
    }
    for (i, l) in net.latches.iter().enumerate() {
        let _ = writeln!(s, "next l{i} {}", l.next);
    }
    for (r, role) in net.roles.iter().enumerate() {
        for l in &role.legal {
            let _ = writeln!(s, "legal r{r} {} {}", l.input, l.gate);
        }
        for g in &role.goals {
            let _ = writeln!(s, "goal r{r} {} {}", g.value, g.gate);
        }
        for p in &role.percepts {
            let _ = writeln!(s, "percept r{r} {} {}", quote(&p.name), p.gate);
        }
    }
    let _ = writeln!(s, "terminal {}", net.terminal);
    s
}

fn quote(name: &str) -> String {
    format!("\"{}\"", name.replace('\\', "\\\\").replace('"', "\\\""))
}

/// An error reading the text form.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TextError {
    /// A line does not follow the syntax; `line` and `column` count from 1.
    #[error("{line}:{column}: {msg}: `{token}`")]
    Syntax {
        /// Line number.
        line: usize,
        /// Column of the offending token (in characters).
        column: usize,
        /// What was expected.
        msg: String,
        /// The offending token (empty at end of line).
        token: String,
    },
    /// The text parsed but the netlist breaks an invariant.
    #[error("invalid netlist: {0}")]
    Invalid(#[from] ValidateError),
}

/// One token of a line: its text (unquoted for strings), column, and whether it was quoted.
struct Tok {
    text: String,
    col: usize,
    quoted: bool,
}

fn tokenize(line: &str, ln: usize) -> Result<Vec<Tok>, TextError> {
    let chars: Vec<char> = line.chars().collect();
    let mut toks = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == ';' {
            break;
        } else if c.is_whitespace() {
            i += 1;
        } else if c == '"' {
            let col = i + 1;
            let mut text = String::new();
            i += 1;
            loop {
                match chars.get(i) {
                    None => {
                        return Err(TextError::Syntax {
                            line: ln,
                            column: col,
                            msg: "unterminated string".into(),
                            token: chars[col - 1..].iter().collect(),
                        })
                    }
                    Some('"') => break,
                    Some('\\') if i + 1 < chars.len() => {
                        text.push(chars[i + 1]);
                        i += 1;
                    }
                    Some(&ch) => text.push(ch),
                }
                i += 1;
            }
            toks.push(Tok {
                text,
                col,
                quoted: true,
            });
            i += 1;
        } else {
            let start = i;
            while i < chars.len() && !chars[i].is_whitespace() && chars[i] != ';' && chars[i] != '"'
            {
                i += 1;
            }
            toks.push(Tok {
                text: chars[start..i].iter().collect(),
                col: start + 1,
                quoted: false,
            });
        }
    }
    Ok(toks)
}

/// Cursor over one line's tokens with typed readers that report line:column on error.
struct Line {
    toks: Vec<Tok>,
    pos: usize,
    ln: usize,
    end_col: usize,
}

impl Line {
    fn err(&self, msg: impl Into<String>) -> TextError {
        let (column, token) = match self.toks.get(self.pos) {
            Some(t) => (t.col, t.text.clone()),
            None => (self.end_col, String::new()),
        };
        TextError::Syntax {
            line: self.ln,
            column,
            msg: msg.into(),
            token,
        }
    }
    fn word(&mut self, what: &str) -> Result<&str, TextError> {
        match self.toks.get(self.pos) {
            Some(t) if !t.quoted => {
                self.pos += 1;
                Ok(&self.toks[self.pos - 1].text)
            }
            _ => Err(self.err(format!("expected {what}"))),
        }
    }
    fn keyword(&mut self, kw: &str) -> Result<(), TextError> {
        match self.toks.get(self.pos) {
            Some(t) if !t.quoted && t.text == kw => {
                self.pos += 1;
                Ok(())
            }
            _ => Err(self.err(format!("expected `{kw}`"))),
        }
    }
    fn string(&mut self) -> Result<String, TextError> {
        match self.toks.get(self.pos) {
            Some(t) if t.quoted => {
                self.pos += 1;
                Ok(t.text.clone())
            }
            _ => Err(self.err("expected a quoted name")),
        }
    }
    /// A number with prefix `p` (`g12`, `l3`) or none (`p` empty).
    fn num(&mut self, p: &str, what: &str) -> Result<u32, TextError> {
        let v = self
            .toks
            .get(self.pos)
            .filter(|t| !t.quoted)
            .and_then(|t| t.text.strip_prefix(p))
            .and_then(|d| {
                if d.bytes().all(|b| b.is_ascii_digit()) {
                    d.parse::<u32>().ok()
                } else {
                    None
                }
            });
        match v {
            Some(v) => {
                self.pos += 1;
                Ok(v)
            }
            None => Err(self.err(format!("expected {what}"))),
        }
    }
    fn bit(&mut self) -> Result<bool, TextError> {
        match self.num("", "0 or 1")? {
            0 => Ok(false),
            1 => Ok(true),
            _ => {
                self.pos -= 1;
                Err(self.err("expected 0 or 1"))
            }
        }
    }
    /// Checks a declaration's own index is the next one.
    fn index(&mut self, p: &str, what: &str, expected: usize) -> Result<(), TextError> {
        let v = self.num(p, what)?;
        if v as usize != expected {
            self.pos -= 1;
            return Err(self.err(format!(
                "expected {p}{expected} (items are numbered in order)"
            )));
        }
        Ok(())
    }
    fn done(&self) -> Result<(), TextError> {
        if self.pos < self.toks.len() {
            return Err(self.err("unexpected token"));
        }
        Ok(())
    }
}

/// Reads the text form written by [`to_text`].
///
/// # Errors
/// [`TextError::Syntax`] with line and column for malformed lines, misnumbered items, an
/// operand that is not an earlier gate, an output line naming no gate, a `next` or
/// `terminal` line given twice, legal, goal or percept lines out of order or repeated, a latch
/// without `next` line or a missing `terminal`; [`TextError::Invalid`] when the result
/// fails [`validate`].
pub fn from_text(src: &str) -> Result<Netlist, TextError> {
    // A byte-order mark (some editors write one) is skipped; columns count after it.
    let src = src.strip_prefix('\u{feff}').unwrap_or(src);
    let mut r = Reader::default();
    let mut last_line = 0;
    for (i, raw) in src.lines().enumerate() {
        let ln = i + 1;
        last_line = ln;
        let toks = tokenize(raw, ln)?;
        if toks.is_empty() {
            continue;
        }
        let mut l = Line {
            toks,
            pos: 0,
            ln,
            end_col: raw.chars().count() + 1,
        };
        r.line(&mut l)?;
        l.done()?;
    }
    let Reader {
        mut net,
        next,
        terminal,
        outputs,
    } = r;
    if let Some((_, at)) = outputs
        .into_iter()
        .find(|(g, _)| g.index() >= net.gates.len())
    {
        return Err(at);
    }
    let missing = |msg: String| TextError::Syntax {
        line: last_line + 1,
        column: 1,
        msg,
        token: String::new(),
    };
    for (i, n) in next.into_iter().enumerate() {
        net.latches[i].next = n.ok_or_else(|| missing(format!("no `next l{i}` line")))?.0;
    }
    net.terminal = terminal
        .ok_or_else(|| missing("no `terminal` line".into()))?
        .0;
    validate(&net)?;
    Ok(net)
}

/// The netlist read so far, and the `next` and `terminal` references that are resolved at
/// the end (a latch's `next` line may come before or after its gate).
#[derive(Default)]
struct Reader {
    net: Netlist,
    /// Per latch: its `next` gate and the line that gave it.
    next: Vec<Option<(GateId, usize)>>,
    /// The `terminal` gate and its line.
    terminal: Option<(GateId, usize)>,
    /// Gates named by `next`, `legal`, `goal`, `percept` and `terminal` lines, which may come before
    /// the gate lines: checked to exist at the end, reported at their token.
    outputs: Vec<(GateId, TextError)>,
}

impl Reader {
    /// The gate an output line names; recorded with its position, to be checked to exist
    /// once every gate line is read.
    fn output(&mut self, l: &mut Line) -> Result<GateId, TextError> {
        let at = l.err("no gate line defines this gate");
        let gate = GateId(l.num("g", "gate id")?);
        self.outputs.push((gate, at));
        Ok(gate)
    }

    /// Reads one non-empty line (all but its end check).
    fn line(&mut self, l: &mut Line) -> Result<(), TextError> {
        let head = l.word("a line kind")?.to_string();
        match head.as_str() {
            "role" => self.role(l),
            "latch" => self.latch(l),
            "input" => self.input(l),
            "fixed" => {
                let name = l.string()?;
                let v = l.bit()?;
                self.net.fixed_fluents.push((name, v));
                Ok(())
            }
            "alias" => self.alias(l),
            "next" => self.next(l),
            "legal" => self.legal(l),
            "goal" => self.goal(l),
            "percept" => self.percept(l),
            "gdl" => {
                l.keyword("II")?;
                self.net.gdl2 = true;
                Ok(())
            }
            "terminal" => self.terminal(l),
            h if h.starts_with('g') => {
                l.pos = 0;
                l.index("g", "gate id", self.net.gates.len())?;
                l.keyword("=")?;
                let g = gate(l, self.net.gates.len())?;
                self.net.gates.push(g);
                Ok(())
            }
            _ => {
                l.pos = 0;
                Err(l.err("unknown line kind"))
            }
        }
    }

    /// `role rN "name"`: declares the next role.
    fn role(&mut self, l: &mut Line) -> Result<(), TextError> {
        l.index("r", "role id", self.net.roles.len())?;
        let name = l.string()?;
        self.net.roles.push(Role {
            name,
            ..Role::default()
        });
        Ok(())
    }

    /// `latch lN "name" init B`: declares the next latch (its `next` gate comes from a
    /// `next` line).
    fn latch(&mut self, l: &mut Line) -> Result<(), TextError> {
        l.index("l", "latch id", self.net.latches.len())?;
        let name = l.string()?;
        l.keyword("init")?;
        let init = l.bit()?;
        self.net.latches.push(Latch {
            name,
            init,
            next: GateId(0),
        });
        self.next.push(None);
        Ok(())
    }

    /// `input iN rR "name"`: declares the next input, a move of a declared role.
    fn input(&mut self, l: &mut Line) -> Result<(), TextError> {
        l.index("i", "input id", self.net.inputs.len())?;
        let role = l.num("r", "role id")?;
        if role as usize >= self.net.roles.len() {
            l.pos -= 1;
            return Err(l.err("role not declared"));
        }
        let name = l.string()?;
        self.net.inputs.push(Input {
            role: RoleId(role),
            name,
        });
        Ok(())
    }

    /// `alias "name" [not] lN`: a fluent that is a declared latch or its negation.
    fn alias(&mut self, l: &mut Line) -> Result<(), TextError> {
        let name = l.string()?;
        let negated = l.keyword("not").is_ok();
        let latch = l.num("l", "latch id")?;
        if latch as usize >= self.net.latches.len() {
            l.pos -= 1;
            return Err(l.err("latch not declared"));
        }
        self.net.aliased_fluents.push(AliasedFluent {
            name,
            latch: LatchId(latch),
            negated,
        });
        Ok(())
    }

    /// `next lN gM`: the gate a declared latch takes at the next step (once per latch).
    fn next(&mut self, l: &mut Line) -> Result<(), TextError> {
        let id = l.num("l", "latch id")? as usize;
        if id >= self.next.len() {
            l.pos -= 1;
            return Err(l.err("latch not declared"));
        }
        let gate = self.output(l)?;
        if let Some((_, first)) = self.next[id] {
            l.pos = 0;
            return Err(l.err(format!(
                "a second `next l{id}` line (the first is line {first})"
            )));
        }
        self.next[id] = Some((gate, l.ln));
        Ok(())
    }

    /// `legal rR iN gM`: the gate saying input `iN` is legal for role `rR` (a role's legal
    /// lines in strictly ascending input order).
    fn legal(&mut self, l: &mut Line) -> Result<(), TextError> {
        let r = role_ref(l, &self.net)?;
        let input = InputId(l.num("i", "input id")?);
        if self.net.roles[r]
            .legal
            .last()
            .is_some_and(|x| x.input >= input)
        {
            l.pos -= 1;
            return Err(l.err("a role's legal lines go in input order, each input once"));
        }
        let gate = self.output(l)?;
        self.net.roles[r].legal.push(Legal { input, gate });
        Ok(())
    }

    /// `goal rR V gM`: the gate saying role `rR` scores `V` (0..=255; a role's goal lines in
    /// strictly ascending value order).
    fn goal(&mut self, l: &mut Line) -> Result<(), TextError> {
        let r = role_ref(l, &self.net)?;
        let value = l.num("", "goal value")?;
        let value = u8::try_from(value).map_err(|_| {
            l.pos -= 1;
            l.err("goal value out of range")
        })?;
        if self.net.roles[r]
            .goals
            .last()
            .is_some_and(|x| x.value >= value)
        {
            l.pos -= 1;
            return Err(l.err("a role's goal lines go in ascending value order, each value once"));
        }
        let gate = self.output(l)?;
        self.net.roles[r].goals.push(Goal { value, gate });
        Ok(())
    }

    /// `percept rR "text" gM`: the gate saying role `rR` perceives `text` after the joint
    /// move (GDL-II; a role's percept lines in strictly ascending text order).
    fn percept(&mut self, l: &mut Line) -> Result<(), TextError> {
        let r = role_ref(l, &self.net)?;
        let name = l.string()?;
        if self.net.roles[r]
            .percepts
            .last()
            .is_some_and(|x| x.name.as_bytes() >= name.as_bytes())
        {
            l.pos -= 1;
            return Err(l.err("a role's percept lines go in ascending text order, each text once"));
        }
        let gate = self.output(l)?;
        self.net.roles[r].percepts.push(Percept { name, gate });
        Ok(())
    }

    /// `terminal gM`: the terminal gate (once).
    fn terminal(&mut self, l: &mut Line) -> Result<(), TextError> {
        let gate = self.output(l)?;
        if let Some((_, first)) = self.terminal {
            l.pos = 0;
            return Err(l.err(format!(
                "a second `terminal` line (the first is line {first})"
            )));
        }
        self.terminal = Some((gate, l.ln));
        Ok(())
    }
}

/// The gate of gate line `gN =` (`n` = N), after the `=`.
fn gate(l: &mut Line, n: usize) -> Result<Gate, TextError> {
    let kind = l.word("a gate kind")?.to_string();
    let operand = |l: &mut Line| {
        let op = l.num("g", "gate id")?;
        if op as usize >= n {
            l.pos -= 1;
            return Err(l.err(format!("operand of g{n} is not an earlier gate (operands are defined on lines before their gate)")));
        }
        Ok(GateId(op))
    };
    Ok(match kind.as_str() {
        "const" => Gate::Const(l.bit()?),
        "input" => Gate::Input(InputId(l.num("i", "input id")?)),
        "latch" => Gate::Latch(LatchId(l.num("l", "latch id")?)),
        "not" => Gate::Not(operand(l)?),
        k @ ("and" | "or") => {
            let is_and = k == "and";
            let mut ops = Vec::new();
            while l.pos < l.toks.len() {
                ops.push(operand(l)?);
            }
            if is_and {
                Gate::And(ops)
            } else {
                Gate::Or(ops)
            }
        }
        _ => {
            l.pos -= 1;
            return Err(l.err("unknown gate kind (const, input, latch, not, and, or)"));
        }
    })
}

fn role_ref(l: &mut Line, net: &Netlist) -> Result<usize, TextError> {
    let r = l.num("r", "role id")? as usize;
    if r >= net.roles.len() {
        l.pos -= 1;
        return Err(l.err("role not declared"));
    }
    Ok(r)
}
