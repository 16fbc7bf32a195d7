//! Reading other reasoners' traces: what each position of a trace claims.
//!
//! Two formats, told apart by their first non-empty line:
//! - the oracle's JSON lines (`shared/oracle/README.md`): a header with the roles, then one
//!   object per position with its state, terminal flag, legal moves and goals of every role,
//!   and the joint move played from it;
//! - gdl-perf's correctness trace (Landau's gdl-perf, `GameActionFormat`): `!R!` roles,
//!   then per position `!T!` terminal; when not terminal one `!L!` line per role (its legal
//!   moves) and one `!C!` line (the joint move); when terminal one `!G!` line (goals, one
//!   per role). `!F!` ends the test, `!E!` reports the reasoner's error. Lists are
//!   comma separated. The position after a `!G!` line starts a new playout from the
//!   initial state.
//!
//! Terms are read case-insensitively and in any spacing ([`super::terms::canonical`]).

use super::terms::canonical;
use propnet_compiler::interp::GoalValue;
use serde_json::Value;

/// The two trace formats.
#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub enum TraceFormat {
    /// The oracle's JSON lines.
    Oracle,
    /// gdl-perf's `!R!`/`!T!`/`!L!`/`!C!`/`!G!`/`!F!`/`!E!` lines.
    GdlPerf,
}

impl std::fmt::Display for TraceFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            TraceFormat::Oracle => "oracle JSON lines",
            TraceFormat::GdlPerf => "gdl-perf",
        })
    }
}

/// A trace that cannot be read, at `line:column` (both from 1).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{line}:{column}: {message}")]
pub struct Malformed {
    /// Line (from 1).
    pub line: usize,
    /// Column (from 1).
    pub column: usize,
    /// What is wrong.
    pub message: String,
}

fn bad(line: usize, column: usize, message: impl Into<String>) -> Malformed {
    Malformed {
        line,
        column,
        message: message.into(),
    }
}

/// What a trace says about one position; `None` fields are not reported by the format.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Claim {
    /// Line where the position is described (gdl-perf: its `!T!` line).
    pub line: usize,
    /// Playout (from 0).
    pub playout: u64,
    /// Joint moves since the playout's initial state.
    pub step: u64,
    /// Sorted canonical fluents (oracle only).
    pub state: Option<Vec<String>>,
    /// Terminal flag.
    pub terminal: bool,
    /// Per role: the line and its sorted canonical legal moves (gdl-perf: non-terminal only).
    pub legal: Option<Vec<(usize, Vec<String>)>>,
    /// The line and the goal values per role (gdl-perf: terminal only, one per role).
    pub goals: Option<(usize, Vec<Vec<GoalValue>>)>,
    /// The line and the canonical joint move played from here, role order.
    pub joint: Option<(usize, Vec<String>)>,
    /// GDL-II oracle traces: the line and, per role it lists (role index), the sorted
    /// percepts that role receives after the joint move.
    pub sees: Option<SeesClaim>,
}

/// A GDL-II line's percepts: its line and, per role it lists (role index), the sorted
/// percepts.
pub type SeesClaim = (usize, Vec<(usize, Vec<String>)>);

/// The end of a trace other than running out of lines.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stop {
    /// gdl-perf `!F!`: the reasoner finished its test (line).
    Finished(usize),
    /// gdl-perf `!E!`: the reasoner reported an error (line, message).
    ReasonerError(usize, String),
}

/// One item of a trace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Item {
    /// A position.
    Claim(Claim),
    /// The trace says it ends here.
    Stop(Stop),
}

/// A parsed trace: format, roles (canonical) and the items in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceFile {
    /// The format.
    pub format: TraceFormat,
    /// Line of the roles (oracle header or `!R!`).
    pub roles_line: usize,
    /// Canonical role names in the trace's order.
    pub roles: Vec<String>,
    /// The game the header names (oracle traces: its `game` field).
    pub game: Option<String>,
    /// Positions and stops, in file order.
    pub items: Vec<Item>,
    /// Lines that were skipped (gdl-perf lines of no known kind), first few with numbers.
    pub skipped: Vec<usize>,
}

fn canon(line: usize, column: usize, text: &str) -> Result<String, Malformed> {
    canonical(text).map_err(|e| bad(line, column, e.to_string()))
}

/// Reads a trace in either format (see the module docs).
///
/// # Errors
/// [`Malformed`] naming the line and column of the first unreadable line.
pub fn parse(text: &str) -> Result<TraceFile, Malformed> {
    // a byte-order mark (some Windows editors write one) is not part of the first line
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let first = text.lines().map(str::trim_start).find(|l| !l.is_empty());
    match first.and_then(|l| l.chars().next()) {
        Some('{') => parse_oracle(text),
        Some('!') => parse_gdl_perf(text),
        Some(_) => {
            let no = text.lines().position(|l| !l.trim().is_empty()).unwrap_or(0) + 1;
            Err(bad(
                no,
                1,
                "neither an oracle JSON trace (`{…}` lines) nor a gdl-perf trace (`!R!…` lines)",
            ))
        }
        None => Err(bad(1, 1, "empty trace")),
    }
}

/// A JSON value read with every object's keys checked: a key given twice in one object
/// is an error (a plain [`Value`] keeps the last silently).
struct Strict(Value);

impl<'de> serde::Deserialize<'de> for Strict {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(StrictVisitor)
    }
}

/// Builds a [`Strict`] value, refusing repeated keys.
struct StrictVisitor;

impl<'de> serde::de::Visitor<'de> for StrictVisitor {
    type Value = Strict;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E>(self, b: bool) -> Result<Strict, E> {
        Ok(Strict(Value::Bool(b)))
    }
    fn visit_i64<E>(self, n: i64) -> Result<Strict, E> {
        Ok(Strict(Value::from(n)))
    }
    fn visit_u64<E>(self, n: u64) -> Result<Strict, E> {
        Ok(Strict(Value::from(n)))
    }
    fn visit_f64<E>(self, x: f64) -> Result<Strict, E> {
        Ok(Strict(Value::from(x)))
    }
    fn visit_str<E>(self, s: &str) -> Result<Strict, E> {
        Ok(Strict(Value::String(s.to_string())))
    }
    fn visit_string<E>(self, s: String) -> Result<Strict, E> {
        Ok(Strict(Value::String(s)))
    }
    fn visit_unit<E>(self) -> Result<Strict, E> {
        Ok(Strict(Value::Null))
    }
    fn visit_none<E>(self) -> Result<Strict, E> {
        Ok(Strict(Value::Null))
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Strict, A::Error> {
        let mut out = Vec::new();
        while let Some(Strict(v)) = seq.next_element()? {
            out.push(v);
        }
        Ok(Strict(Value::Array(out)))
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Strict, A::Error> {
        let mut out = serde_json::Map::new();
        while let Some(k) = map.next_key::<String>()? {
            let Strict(v) = map.next_value()?;
            if out.contains_key(&k) {
                let shown: String = k.chars().take(60).collect();
                return Err(serde::de::Error::custom(format!(
                    "key `{shown}` given twice in one object"
                )));
            }
            out.insert(k, v);
        }
        Ok(Strict(Value::Object(out)))
    }
}

fn json_line(no: usize, line: &str) -> Result<Value, Malformed> {
    serde_json::from_str::<Strict>(line)
        .map(|s| s.0)
        .map_err(|e| bad(no, e.column().max(1), format!("not JSON: {e}")))
}

/// `v`'s JSON type with its text (at most 40 characters), as messages name a value of the
/// wrong type: `a string "50"`, `a number 5`, `a boolean true`, `null`, `a list`,
/// `an object`.
pub fn json_type(v: &Value) -> String {
    let text = |t: String| -> String {
        match t.chars().count() > 40 {
            true => format!("{}…", t.chars().take(40).collect::<String>()),
            false => t,
        }
    };
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => format!("a boolean {b}"),
        Value::Number(n) => format!("a number {}", text(n.to_string())),
        Value::String(_) => format!("a string {}", text(v.to_string())),
        Value::Array(_) => "a list".into(),
        Value::Object(_) => "an object".into(),
    }
}

fn strings(no: usize, v: &Value, what: &str) -> Result<Vec<String>, Malformed> {
    let list = v.as_array().ok_or_else(|| {
        bad(
            no,
            1,
            format!("`{what}` is {}, not a list of strings", json_type(v)),
        )
    })?;
    let mut out = Vec::with_capacity(list.len());
    for s in list {
        let s = s.as_str().ok_or_else(|| {
            bad(
                no,
                1,
                format!("`{what}` holds {}, not a string", json_type(s)),
            )
        })?;
        out.push(canon(no, 1, s)?);
    }
    Ok(out)
}

/// `v` sorted, as a set: an item listed twice (canonically: `(MARK 1 1)` and
/// `(mark 1 1)` are one) is the error, with the item.
fn sorted_set(mut v: Vec<String>) -> Result<Vec<String>, String> {
    v.sort_unstable();
    match v.windows(2).find(|w| w[0] == w[1]) {
        Some(w) => Err(w[0].clone()),
        None => Ok(v),
    }
}

/// The set `v` of trace line `no` (see [`sorted_set`]); `what` names the list in the
/// message about an item listed twice.
fn set_at(no: usize, column: usize, v: Vec<String>, what: &str) -> Result<Vec<String>, Malformed> {
    sorted_set(v).map_err(|dup| bad(no, column, format!("{what} lists {dup} twice")))
}

/// The value of `key` for each role in the object `v[field]` (role names compared
/// canonically); `roles` are those of the header on line `hno`.
fn per_role<'v>(
    no: usize,
    v: &'v Value,
    field: &str,
    (hno, roles): (usize, &[String]),
) -> Result<Vec<&'v Value>, Malformed> {
    let obj = match &v[field] {
        Value::Object(o) => o,
        Value::Null => return Err(bad(no, 1, format!("missing object `{field}`"))),
        x => {
            let msg = format!("`{field}` is {}, not an object of roles", json_type(x));
            return Err(bad(no, 1, msg));
        }
    };
    check_role_keys(no, obj, field, (hno, roles))?;
    roles
        .iter()
        .map(|r| {
            obj.iter()
                .find(|(k, _)| canonical(k).is_ok_and(|k| &k == r))
                .map(|(_, x)| x)
                .ok_or_else(|| {
                    let msg = format!(
                        "`{field}` has no entry for role {r}, which the header (line {hno}) \
                         lists among its roles {}",
                        roles.join(" ")
                    );
                    bad(no, 1, msg)
                })
        })
        .collect()
}

/// Every key of the per-role object `obj` (field `field` of line `no`) must name a
/// different role of the header on line `hno`.
fn check_role_keys(
    no: usize,
    obj: &serde_json::Map<String, Value>,
    field: &str,
    (hno, roles): (usize, &[String]),
) -> Result<(), Malformed> {
    let mut seen: Vec<(&str, &str)> = Vec::with_capacity(obj.len());
    for k in obj.keys() {
        let shown: String = k.chars().take(60).collect();
        let Some(r) = canonical(k)
            .ok()
            .and_then(|c| roles.iter().find(|r| **r == c))
        else {
            let msg = format!(
                "`{field}` has an entry for `{shown}`, which is not among the roles {} of \
                 the header (line {hno})",
                roles.join(" ")
            );
            return Err(bad(no, 1, msg));
        };
        if let Some((first, _)) = seen.iter().find(|(_, x)| *x == r.as_str()) {
            let msg = format!("`{field}` has two entries for role {r}: `{first}` and `{shown}`");
            return Err(bad(no, 1, msg));
        }
        seen.push((k, r));
    }
    Ok(())
}

fn goal_value(no: usize, v: &Value) -> Result<GoalValue, Malformed> {
    match v {
        Value::Number(n) => n
            .as_i64()
            .map(|n| GoalValue::Int(n.into()))
            .ok_or_else(|| bad(no, 1, format!("goal {n} is not an integer"))),
        // A goal term that reads as a number is one: written as a string, its type lies.
        Value::String(s) if propnet_compiler::interp::parse_integer(s.trim()).is_some() => {
            Err(bad(
                no,
                1,
                format!(
                    "goal {v} is a JSON string: a numeric goal is a JSON number ({})",
                    s.trim()
                ),
            ))
        }
        Value::String(s) => Ok(GoalValue::Text(canon(no, 1, s)?)),
        x => Err(bad(
            no,
            1,
            format!("goal is {}, not a number or a string", json_type(x)),
        )),
    }
}

fn oracle_goals(no: usize, v: &Value) -> Result<Vec<GoalValue>, Malformed> {
    match v {
        Value::Null => Ok(Vec::new()),
        Value::Array(xs) => xs.iter().map(|x| goal_value(no, x)).collect(),
        x => Ok(vec![goal_value(no, x)?]),
    }
}

/// The field `k` of line `no` as a count (a whole number from 0).
fn count_field(no: usize, v: &Value, k: &str) -> Result<u64, Malformed> {
    match &v[k] {
        Value::Null => Err(bad(no, 1, format!("missing number `{k}`"))),
        x => x.as_u64().ok_or_else(|| {
            let msg = format!("`{k}` is {}, not a whole number from 0", json_type(x));
            bad(no, 1, msg)
        }),
    }
}

/// The field `k` of line `no` as a boolean; `absent` when it is missing (or null).
fn bool_field(no: usize, v: &Value, k: &str, absent: Option<bool>) -> Result<bool, Malformed> {
    match (&v[k], absent) {
        (Value::Bool(b), _) => Ok(*b),
        (Value::Null, Some(b)) => Ok(b),
        (Value::Null, None) => Err(bad(no, 1, format!("missing boolean `{k}`"))),
        (x, _) => Err(bad(
            no,
            1,
            format!("`{k}` is {}, not a boolean", json_type(x)),
        )),
    }
}

/// A line's `truncated` flag must fit the line: a cut playout ends at a non-terminal
/// position without a joint move.
fn check_truncated(no: usize, v: &Value, terminal: bool) -> Result<(), Malformed> {
    let no_joint = matches!(v.get("joint"), None | Some(Value::Null));
    if !bool_field(no, v, "truncated", Some(false))? {
        if !terminal && no_joint && v.get("error").is_none() {
            return Err(bad(
                no,
                1,
                "a non-terminal position without a joint move, `truncated` or `error`: a \
                 playout cannot end here",
            ));
        }
        return Ok(());
    }
    if terminal {
        return Err(bad(
            no,
            1,
            "`truncated` is true at a terminal position: a playout that ends in a terminal \
             state is not cut",
        ));
    }
    if !no_joint {
        return Err(bad(
            no,
            1,
            "`truncated` is true but the line plays a joint move: a cut playout ends at its \
             truncated line",
        ));
    }
    Ok(())
}

fn oracle_claim(no: usize, line: &str, roles: (usize, &[String])) -> Result<Claim, Malformed> {
    let v = json_line(no, line)?;
    let legal = per_role(no, &v, "legal", roles)?
        .into_iter()
        .zip(roles.1)
        .map(|(l, r)| {
            let set = set_at(no, 1, strings(no, l, "legal")?, &format!("`legal` of {r}"))?;
            Ok((no, set))
        })
        .collect::<Result<_, Malformed>>()?;
    let goals = per_role(no, &v, "goals", roles)?
        .into_iter()
        .map(|g| oracle_goals(no, g))
        .collect::<Result<_, _>>()?;
    let joint = match v.get("joint") {
        None | Some(Value::Null) => None,
        Some(_) => {
            let ms = per_role(no, &v, "joint", roles)?
                .into_iter()
                .map(|m| {
                    let m = m.as_str().ok_or_else(|| {
                        let msg = format!("a joint move is {}, not a string", json_type(m));
                        bad(no, 1, msg)
                    })?;
                    canon(no, 1, m)
                })
                .collect::<Result<_, _>>()?;
            Some((no, ms))
        }
    };
    let terminal = bool_field(no, &v, "terminal", None)?;
    check_truncated(no, &v, terminal)?;
    Ok(Claim {
        line: no,
        playout: count_field(no, &v, "playout")?,
        step: count_field(no, &v, "step")?,
        state: Some(set_at(
            no,
            1,
            strings(no, &v["state"], "state")?,
            "`state`",
        )?),
        terminal,
        legal: Some(legal),
        goals: Some((no, goals)),
        joint,
        sees: oracle_sees(no, &v, roles.1)?,
    })
}

/// The `sees` object of a GDL-II oracle line: per role it names (any role but `random`),
/// its sorted percepts.
fn oracle_sees(no: usize, v: &Value, roles: &[String]) -> Result<Option<SeesClaim>, Malformed> {
    let obj = match v.get("sees") {
        None => return Ok(None),
        Some(Value::Object(o)) => o,
        Some(x) => {
            let msg = format!("`sees` is {}, not an object of roles", json_type(x));
            return Err(bad(no, 1, msg));
        }
    };
    let mut out = Vec::with_capacity(obj.len());
    for (k, ps) in obj {
        let msg = || format!("`sees` has an entry for `{k}`, which is not a role");
        let c = canonical(k).map_err(|_| bad(no, 1, msg()))?;
        let r = (roles.iter().position(|r| *r == c)).ok_or_else(|| bad(no, 1, msg()))?;
        if out.iter().any(|(x, _)| *x == r) {
            let msg = format!("`sees` has two entries for role {c}");
            return Err(bad(no, 1, msg));
        }
        let what = format!("`sees` of {c}");
        out.push((r, set_at(no, 1, strings(no, ps, "sees")?, &what)?));
    }
    out.sort();
    Ok(Some((no, out)))
}

/// The percepts of a GDL-II trace are checked on every line that has a joint move, so such
/// a line must list them for every role but `random`; a GDL-I trace (no `"gdl":"II"` in
/// its header) and a line without a joint move have none.
fn check_sees_present(c: &Claim, gdl2: bool, roles: &[String]) -> Result<(), Malformed> {
    let line = c
        .joint
        .as_ref()
        .map(|j| j.0)
        .or(c.sees.as_ref().map(|s| s.0));
    let Some(no) = line else { return Ok(()) };
    match (&c.sees, c.joint.is_some(), gdl2) {
        (Some(_), _, false) => Err(bad(no, 1, "`sees` in a trace whose header does not say \"gdl\":\"II\"")),
        (Some(_), false, true) => Err(bad(no, 1, "`sees` on a line without a joint move (percepts come with a joint move)")),
        (None, true, true) => Err(bad(no, 1, "a GDL-II trace line with a joint move has no `sees` (its percepts could not be checked)")),
        (Some((_, seen)), true, true) => {
            let missing = (0..roles.len()).find(|&r| roles[r] != "random" && !seen.iter().any(|(x, _)| *x == r));
            match missing {
                Some(r) => Err(bad(no, 1, format!("`sees` has no entry for role {}", roles[r]))),
                None => Ok(()),
            }
        }
        _ => Ok(()),
    }
}

fn parse_oracle(text: &str) -> Result<TraceFile, Malformed> {
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l))
        .filter(|(_, l)| !l.trim().is_empty());
    let (hno, header) = lines.next().ok_or_else(|| bad(1, 1, "empty trace"))?;
    let h = json_line(hno, header)?;
    let roles = strings(hno, &h["roles"], "roles")
        .map_err(|e| bad(hno, 1, format!("header: {}", e.message)))?;
    let items: Vec<Item> = lines
        .map(|(no, l)| oracle_claim(no, l, (hno, &roles)).map(Item::Claim))
        .collect::<Result<_, _>>()?;
    let gdl2 = h.get("gdl").and_then(Value::as_str) == Some("II");
    for item in &items {
        if let Item::Claim(c) = item {
            check_sees_present(c, gdl2, &roles)?;
        }
    }
    Ok(TraceFile {
        format: TraceFormat::Oracle,
        roles_line: hno,
        roles,
        game: h.get("game").and_then(Value::as_str).map(str::to_string),
        items,
        skipped: Vec::new(),
    })
}

/// A gdl-perf list: comma separated, each item trimmed; empty text is the empty list.
fn gdl_list(no: usize, body: &str) -> Result<Vec<String>, Malformed> {
    if body.trim().is_empty() {
        return Ok(Vec::new());
    }
    let mut col = 4;
    let mut out = Vec::new();
    for item in body.split(',') {
        out.push(canon(no, col, item)?);
        col += item.chars().count() + 1;
    }
    Ok(out)
}

fn gdl_goals(no: usize, body: &str) -> Result<Vec<Vec<GoalValue>>, Malformed> {
    gdl_list(no, body)?
        .into_iter()
        .map(|g| {
            g.parse::<i128>()
                .map(|n| vec![GoalValue::Int(n)])
                .map_err(|_| bad(no, 4, format!("goal `{g}` is not an integer")))
        })
        .collect()
}

/// Builds gdl-perf claims line by line.
struct GdlPerf {
    roles: Option<(usize, Vec<String>)>,
    items: Vec<Item>,
    /// The position being read: its claim and whether it still wants lines.
    open: Option<Claim>,
    playout: u64,
    step: u64,
    skipped: Vec<usize>,
}

impl GdlPerf {
    fn roles_len(&self, no: usize) -> Result<usize, Malformed> {
        self.roles
            .as_ref()
            .map(|(_, r)| r.len())
            .ok_or_else(|| bad(no, 1, "position before the `!R!` roles line"))
    }

    fn close(&mut self, no: usize) -> Result<(), Malformed> {
        if let Some(c) = self.open.take() {
            return Err(bad(
                no,
                1,
                format!(
                    "the position of line {} is incomplete (a non-terminal position needs one \
                     `!L!` line per role and a `!C!` line, a terminal one a `!G!` line)",
                    c.line
                ),
            ));
        }
        Ok(())
    }

    fn line(&mut self, no: usize, line: &str) -> Result<bool, Malformed> {
        let (tag, body) = (line.get(..3).unwrap_or(""), line.get(3..).unwrap_or(""));
        match tag {
            "!R!" => {
                self.close(no)?;
                if self.roles.is_some() {
                    return Err(bad(no, 1, "a second `!R!` line"));
                }
                self.roles = Some((no, gdl_list(no, body)?));
            }
            "!T!" => {
                self.close(no)?;
                self.roles_len(no)?;
                let terminal = match body.trim().to_ascii_lowercase().as_str() {
                    "true" => true,
                    "false" => false,
                    b => return Err(bad(no, 4, format!("`{b}` is not true or false"))),
                };
                self.open = Some(Claim {
                    line: no,
                    playout: self.playout,
                    step: self.step,
                    state: None,
                    terminal,
                    legal: (!terminal).then(Vec::new),
                    goals: None,
                    joint: None,
                    sees: None,
                });
            }
            "!L!" => self.legal(no, body)?,
            "!C!" => self.joint(no, body)?,
            "!G!" => self.goals(no, body)?,
            "!F!" => {
                self.finish_terminal_start(no)?;
                self.items.push(Item::Stop(Stop::Finished(no)));
                return Ok(false);
            }
            "!E!" => {
                self.open = None;
                self.items
                    .push(Item::Stop(Stop::ReasonerError(no, body.trim().to_string())));
                return Ok(false);
            }
            _ => self.skipped.push(no),
        }
        Ok(true)
    }

    fn expect_open(&mut self, no: usize, tag: &str) -> Result<&mut Claim, Malformed> {
        self.open.as_mut().ok_or_else(|| {
            bad(
                no,
                1,
                format!("`{tag}` line outside a position (no `!T!` before)"),
            )
        })
    }

    fn legal(&mut self, no: usize, body: &str) -> Result<(), Malformed> {
        let n = self.roles_len(no)?;
        let roles = self
            .roles
            .as_ref()
            .map(|(_, r)| r.clone())
            .unwrap_or_default();
        let c = self.expect_open(no, "!L!")?;
        let legal = c
            .legal
            .as_mut()
            .ok_or_else(|| bad(no, 1, "`!L!` line in a terminal position"))?;
        if legal.len() == n {
            return Err(bad(no, 1, format!("more `!L!` lines than the {n} roles")));
        }
        let what = format!("the `!L!` line of {}", roles[legal.len()]);
        legal.push((no, set_at(no, 4, gdl_list(no, body)?, &what)?));
        Ok(())
    }

    fn joint(&mut self, no: usize, body: &str) -> Result<(), Malformed> {
        let n = self.roles_len(no)?;
        let moves = gdl_list(no, body)?;
        let mut c = self
            .open
            .take()
            .ok_or_else(|| bad(no, 1, "`!C!` line outside a position"))?;
        let got = c.legal.as_ref().map_or(0, Vec::len);
        if c.terminal || got != n {
            return Err(bad(
                no,
                1,
                format!("`!C!` line after {got} `!L!` lines; the position needs {n}"),
            ));
        }
        if moves.len() != n {
            return Err(bad(no, 4, format!("{} moves for {n} roles", moves.len())));
        }
        c.joint = Some((no, moves));
        self.items.push(Item::Claim(c));
        self.step += 1;
        Ok(())
    }

    fn goals(&mut self, no: usize, body: &str) -> Result<(), Malformed> {
        let n = self.roles_len(no)?;
        let goals = gdl_goals(no, body)?;
        let mut c = self
            .open
            .take()
            .ok_or_else(|| bad(no, 1, "`!G!` line outside a position"))?;
        if !c.terminal {
            return Err(bad(no, 1, "`!G!` line in a non-terminal position"));
        }
        if goals.len() != n {
            return Err(bad(no, 4, format!("{} goals for {n} roles", goals.len())));
        }
        c.goals = Some((no, goals));
        self.items.push(Item::Claim(c));
        self.playout += 1;
        self.step = 0;
        Ok(())
    }

    /// `!T!true` then `!F!` (the initial state is terminal): a position without goals.
    fn finish_terminal_start(&mut self, no: usize) -> Result<(), Malformed> {
        match self.open.take() {
            Some(c) if c.terminal => {
                self.items.push(Item::Claim(c));
                Ok(())
            }
            Some(c) => {
                self.open = Some(c);
                self.close(no)
            }
            None => Ok(()),
        }
    }
}

fn parse_gdl_perf(text: &str) -> Result<TraceFile, Malformed> {
    let mut p = GdlPerf {
        roles: None,
        items: Vec::new(),
        open: None,
        playout: 0,
        step: 0,
        skipped: Vec::new(),
    };
    let mut last = 0;
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        last = i + 1;
        if line.is_empty() {
            continue;
        }
        if !p.line(i + 1, line)? {
            break;
        }
    }
    // A trace cut inside a position (the reasoner was killed) keeps what was complete.
    p.open = None;
    let (roles_line, roles) = p
        .roles
        .ok_or_else(|| bad(last.max(1), 1, "no `!R!` roles line"))?;
    Ok(TraceFile {
        format: TraceFormat::GdlPerf,
        roles_line,
        roles,
        game: None,
        items: p.items,
        skipped: p.skipped,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gdl_perf_positions_and_playouts() {
        let t = "!R!X,o\n!T!false\n!L!( MARK 1 1 ),(mark 1 2)\n!L!noop\n!C!(mark 1 2),NOOP\n\
                 !T!true\n!G!100,0\n!T!false\n!L!(mark 1 1)\n!L!noop\n!C!(mark 1 1),noop\n!F!\n";
        let f = parse(t).unwrap();
        assert_eq!(f.format, TraceFormat::GdlPerf);
        assert_eq!(f.roles, ["x", "o"]);
        let claims: Vec<&Claim> = f
            .items
            .iter()
            .filter_map(|i| match i {
                Item::Claim(c) => Some(c),
                Item::Stop(_) => None,
            })
            .collect();
        assert_eq!(claims.len(), 3);
        assert_eq!(
            claims[0].legal.as_ref().unwrap()[0].1,
            ["(mark 1 1)", "(mark 1 2)"]
        );
        assert_eq!(claims[0].joint.as_ref().unwrap().1, ["(mark 1 2)", "noop"]);
        assert_eq!(
            (claims[1].playout, claims[1].step, claims[1].line),
            (0, 1, 6)
        );
        assert_eq!(
            claims[1].goals.as_ref().unwrap().1[0],
            [GoalValue::Int(100)]
        );
        assert_eq!((claims[2].playout, claims[2].step), (1, 0));
        assert_eq!(f.items.last(), Some(&Item::Stop(Stop::Finished(12))));
    }

    /// A byte-order mark before the first line is read past, in both formats.
    #[test]
    fn a_byte_order_mark_is_not_part_of_the_trace() {
        let perf = "!R!x,o\n!T!true\n!G!100,0\n!F!\n";
        let bom = format!("\u{feff}{perf}");
        assert_eq!(parse(&bom).unwrap().roles, parse(perf).unwrap().roles);
        let oracle = "{\"roles\":[\"x\"]}\n{\"playout\":0,\"step\":0,\"state\":[],\
                      \"terminal\":true,\"legal\":{\"x\":[]},\"goals\":{\"x\":100}}\n";
        let f = parse(&format!("\u{feff}{oracle}")).unwrap();
        assert_eq!((f.format, f.items.len()), (TraceFormat::Oracle, 1));
    }

    #[test]
    fn malformed_traces_name_line_and_column() {
        let e = parse("!R!x\n!T!maybe\n").unwrap_err();
        assert_eq!((e.line, e.column), (2, 4), "{e}");
        let e = parse("!R!x\n!T!false\n!C!a\n").unwrap_err();
        assert_eq!(e.line, 3, "{e}");
        let e = parse("!R!x,o\n!T!false\n!L!a\n!L!(b\n").unwrap_err();
        assert_eq!((e.line, e.column), (4, 4), "{e}");
        let e = parse("{\"roles\":[\"x\"]}\n{\"playout\":0,").unwrap_err();
        assert_eq!(e.line, 2, "{e}");
        assert!(parse("hello\nworld\n").is_err());
        assert!(parse("\n\n").is_err());
    }

    #[test]
    fn a_role_the_header_lists_but_a_line_lacks_names_the_header() {
        let t = "{\"roles\":[\"x\",\"y\"]}\n\
                 {\"playout\":0,\"step\":0,\"state\":[],\"terminal\":false,\
                  \"legal\":{\"x\":[\"a\"]},\"goals\":{\"x\":null}}\n";
        let e = parse(t).unwrap_err();
        assert_eq!(e.line, 2, "{e}");
        let want = "`legal` has no entry for role y, which the header (line 1) lists among its \
                    roles x y";
        assert!(e.to_string().contains(want), "{e}");
    }

    #[test]
    fn oracle_lines_are_read_with_goal_forms() {
        let t = "{\"game\":\"g\",\"roles\":[\"x\"]}\n\
                 {\"playout\":0,\"step\":0,\"state\":[\"(c B)\",\"(a)\"],\"terminal\":false,\
                  \"legal\":{\"x\":[\"b\",\"a\"]},\"goals\":{\"x\":null},\"joint\":{\"x\":\"A\"}}\n\
                 {\"playout\":0,\"step\":1,\"state\":[],\"terminal\":true,\"legal\":{\"x\":[]},\
                  \"goals\":{\"x\":[0,100]}}\n";
        let f = parse(t).unwrap();
        let Item::Claim(c) = &f.items[0] else {
            panic!("claim")
        };
        assert_eq!(c.state.as_ref().unwrap(), &["(a)", "(c b)"]);
        assert_eq!(c.legal.as_ref().unwrap()[0].1, ["a", "b"]);
        assert_eq!(c.joint.as_ref().unwrap().1, ["a"]);
        assert_eq!(c.goals.as_ref().unwrap().1, [Vec::<GoalValue>::new()]);
        let Item::Claim(c) = &f.items[1] else {
            panic!("claim")
        };
        assert_eq!(
            c.goals.as_ref().unwrap().1,
            [vec![GoalValue::Int(0), GoalValue::Int(100)]]
        );
    }
}
