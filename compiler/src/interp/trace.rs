//! Random playouts written in the oracle's JSON Lines trace format
//! (`shared/oracle/README.md`): a header line, then one line per step with the sorted
//! state, terminal flag, legal moves, goals and the joint move chosen by SplitMix64. A
//! GDL-II game's trace has `"gdl":"II"` in its header and each line with a joint move gets
//! the percepts of every role but `random` (`"sees"`), computed before the transition;
//! `random` draws from the stream like every role.
//!
//! The writer is engine-neutral: anything that implements [`TraceEngine`] (the reference
//! interpreter through [`InterpEngine`], a compiled netlist in `propnet-host`) produces
//! the same lines through [`trace`], so a trace made through one reasoner can be compared
//! byte for byte with another's.

use super::machine::{Interp, Position, State};
use super::{GoalValue, GroundTermId, InterpError};

/// SplitMix64 (Steele, Lea, Flood: "Fast splittable pseudorandom number generators",
/// OOPSLA 2014): the oracle's move-choice stream. One stream per run, state := seed.
#[derive(Clone, Debug)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A stream seeded with `seed`.
    pub fn new(seed: u64) -> Self {
        SplitMix64 { state: seed }
    }

    /// The next 64-bit output.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// Appends `s` as a JSON string exactly as the oracle writes it (`\"`, `\\`, `\n`, `\t`,
/// `\r`, other control characters as `\u00xx`, everything else verbatim).
pub fn json_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

fn json_list<'a>(out: &mut String, items: impl IntoIterator<Item = &'a str>) {
    out.push('[');
    for (i, s) in items.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        json_string(out, s);
    }
    out.push(']');
}

fn json_goal_value(out: &mut String, v: &GoalValue) {
    match v {
        GoalValue::Int(n) => out.push_str(&n.to_string()),
        GoalValue::Text(t) => json_string(out, t),
    }
}

/// How a step line ends.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LineEnd {
    /// The playout goes on with this joint move (texts, role order).
    Joint(Vec<String>),
    /// Last line: terminal state (nothing added).
    Last,
    /// Last line: this role (index) has no legal move.
    NoLegalMove(usize),
    /// Last line: the step limit was reached.
    Truncated,
}

impl LineEnd {
    /// How an oracle trace line ends, for replaying it: the forced end of the position `v`
    /// when it has one (terminal, a role without legal moves), else the line's recorded
    /// `joint` move (texts in `roles` order; a role missing from it gets `""`), else
    /// `Truncated` when it says `"truncated": true`, else `Last`. `record` is the line
    /// parsed as JSON (format: `shared/oracle/README.md`).
    pub fn of_oracle_line(record: &serde_json::Value, roles: &[String], v: &StepView) -> Self {
        use serde_json::Value;
        if let Some(end) = v.forced_end() {
            return end;
        }
        match (&record["joint"], &record["truncated"]) {
            (Value::Object(j), _) => LineEnd::Joint(
                roles
                    .iter()
                    .map(|r| j.get(r).and_then(Value::as_str).unwrap_or("").to_string())
                    .collect(),
            ),
            (_, Value::Bool(true)) => LineEnd::Truncated,
            _ => LineEnd::Last,
        }
    }
}

/// Everything a step line reports about one position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StepView {
    /// Canonical texts of the state, sorted.
    pub state: Vec<String>,
    /// Whether the state is terminal.
    pub terminal: bool,
    /// Legal move texts per role (role order), each list sorted by byte order without
    /// duplicates: the order moves are chosen from.
    pub legal: Vec<Vec<String>>,
    /// Goal values per role: empty when none holds, several sorted when several hold.
    pub goals: Vec<Vec<GoalValue>>,
}

impl StepView {
    /// The end the oracle gives this position when not continuing: terminal, else the
    /// first role without a legal move, else `None` (the playout may go on).
    pub fn forced_end(&self) -> Option<LineEnd> {
        if self.terminal {
            return Some(LineEnd::Last);
        }
        self.legal
            .iter()
            .position(|l| l.is_empty())
            .map(LineEnd::NoLegalMove)
    }
}

/// One step line, byte-identical to the oracle's (GDL-I, or a line without percepts).
pub fn step_line(roles: &[String], playout: u64, step: u64, v: &StepView, end: &LineEnd) -> String {
    step_line_with_sees(roles, playout, step, v, end, None)
}

/// One step line, byte-identical to the oracle's; in a GDL-II trace a line with a joint
/// move also gets `sees`: the percepts per role (`sees[r]` for `roles[r]`, sorted texts)
/// of every role but one named `random`, in role order (the oracle's `"sees"` field).
pub fn step_line_with_sees(
    roles: &[String],
    playout: u64,
    step: u64,
    v: &StepView,
    end: &LineEnd,
    sees: Option<&[Vec<String>]>,
) -> String {
    let mut o = String::with_capacity(256);
    o.push_str(&format!(
        "{{\"playout\":{playout},\"step\":{step},\"state\":"
    ));
    json_list(&mut o, v.state.iter().map(String::as_str));
    o.push_str(",\"terminal\":");
    o.push_str(if v.terminal { "true" } else { "false" });
    o.push_str(",\"legal\":{");
    for (i, (r, l)) in roles.iter().zip(&v.legal).enumerate() {
        if i > 0 {
            o.push(',');
        }
        json_string(&mut o, r);
        o.push(':');
        json_list(&mut o, l.iter().map(String::as_str));
    }
    o.push_str("},\"goals\":{");
    for (i, (r, g)) in roles.iter().zip(&v.goals).enumerate() {
        if i > 0 {
            o.push(',');
        }
        json_string(&mut o, r);
        o.push(':');
        match g.as_slice() {
            [] => o.push_str("null"),
            [x] => json_goal_value(&mut o, x),
            xs => {
                o.push('[');
                for (k, x) in xs.iter().enumerate() {
                    if k > 0 {
                        o.push(',');
                    }
                    json_goal_value(&mut o, x);
                }
                o.push(']');
            }
        }
    }
    o.push('}');
    let multi: Vec<&str> = roles
        .iter()
        .zip(&v.goals)
        .filter(|(_, g)| g.len() > 1)
        .map(|(r, _)| r.as_str())
        .collect();
    if !multi.is_empty() {
        o.push_str(",\"multiple_goals\":");
        json_list(&mut o, multi);
    }
    match end {
        LineEnd::Last => {}
        LineEnd::Truncated => o.push_str(",\"truncated\":true"),
        LineEnd::NoLegalMove(r) => {
            o.push_str(",\"error\":");
            json_string(&mut o, &format!("no legal move for {}", roles[*r]));
        }
        LineEnd::Joint(ms) => {
            o.push_str(",\"joint\":{");
            for (i, (r, m)) in roles.iter().zip(ms).enumerate() {
                if i > 0 {
                    o.push(',');
                }
                json_string(&mut o, r);
                o.push(':');
                json_string(&mut o, m);
            }
            o.push('}');
            if let Some(sees) = sees {
                sees_field(&mut o, roles, sees);
            }
        }
    }
    o.push('}');
    o
}

/// Appends `,"sees":{role:[percepts],…}` for every role but `random`, in role order.
fn sees_field(o: &mut String, roles: &[String], sees: &[Vec<String>]) {
    o.push_str(",\"sees\":{");
    let mut first = true;
    for (r, ps) in roles.iter().zip(sees) {
        if r == RANDOM_ROLE {
            continue;
        }
        if !std::mem::take(&mut first) {
            o.push(',');
        }
        json_string(o, r);
        o.push(':');
        json_list(o, ps.iter().map(String::as_str));
    }
    o.push('}');
}

/// The GDL-II role that no player controls: it gets no percepts in a trace.
pub const RANDOM_ROLE: &str = "random";

/// Options of a traced run.
#[derive(Clone, Debug)]
pub struct TraceOptions {
    /// Game name for the header (the file's base name).
    pub game: String,
    /// Number of playouts.
    pub playouts: u64,
    /// SplitMix64 seed (the same `u64` seed type as every other command).
    pub seed: u64,
    /// Joint moves after which a playout is cut (`"truncated": true`).
    pub max_steps: u64,
    /// When set, stop early: after the playout during which the trace's joint moves (over
    /// all playouts) reached this count.
    pub stop_after: Option<u64>,
}

/// The header line: the oracle's, with `"oracle": ENGINE` (e.g. `propnet-interp`).
pub fn header_line(roles: &[String], engine: &str, opts: &TraceOptions) -> String {
    header_line_gdl(roles, engine, opts, false)
}

/// The header line (see [`header_line`]); a GDL-II trace's ends with `"gdl":"II"`.
pub fn header_line_gdl(roles: &[String], engine: &str, opts: &TraceOptions, gdl2: bool) -> String {
    let mut o = String::from("{\"game\":");
    json_string(&mut o, &opts.game);
    o.push_str(",\"roles\":");
    json_list(&mut o, roles.iter().map(String::as_str));
    o.push_str(",\"oracle\":");
    json_string(&mut o, engine);
    o.push_str(&format!(
        ",\"seed\":{},\"rng\":\"splitmix64\",\"max_steps\":{}",
        opts.seed, opts.max_steps
    ));
    o.push_str(if gdl2 { ",\"gdl\":\"II\"}" } else { "}" });
    o
}

/// A reasoner seen one position at a time, as a trace needs it: the current position's
/// [`StepView`], and the transition under a joint move chosen from that view.
pub trait TraceEngine {
    /// Evaluation errors.
    type Error;
    /// Name written in the header's `oracle` field (e.g. `propnet-interp`).
    fn name(&self) -> String;
    /// Role names in the order of the game's `role` facts.
    fn role_names(&self) -> Vec<String>;
    /// Makes the initial state the current position.
    ///
    /// # Errors
    /// Evaluation errors of the engine.
    fn restart(&mut self) -> Result<(), Self::Error>;
    /// Evaluates the current position.
    ///
    /// # Errors
    /// Evaluation errors of the engine.
    fn view(&mut self) -> Result<StepView, Self::Error>;
    /// Plays `joint` in the position last passed to [`TraceEngine::view`]: per role, the
    /// index of the chosen move in that view's `legal` list.
    ///
    /// # Errors
    /// Evaluation errors of the engine (an index out of range is a caller bug and may
    /// panic).
    fn play(&mut self, joint: &[usize]) -> Result<(), Self::Error>;
    /// Whether the game is GDL-II: the trace's header gets `"gdl":"II"` and each line with
    /// a joint move its percepts ([`TraceEngine::percepts`]). The default is `false`.
    fn gdl2(&self) -> bool {
        false
    }
    /// The percepts of every role (role order, sorted canonical texts) after `joint` (as
    /// for [`TraceEngine::play`]) in the position last passed to [`TraceEngine::view`],
    /// computed on that position, before the transition. The default has none.
    ///
    /// # Errors
    /// Evaluation errors of the engine.
    fn percepts(&mut self, joint: &[usize]) -> Result<Vec<Vec<String>>, Self::Error> {
        let _ = joint;
        Ok(Vec::new())
    }
    /// Called once after the last line of a trace (an engine that checks lazily, in
    /// batches, reports what is left here). The default does nothing.
    ///
    /// # Errors
    /// A deferred check that failed.
    fn finish(&mut self) -> Result<(), Self::Error> {
        Ok(())
    }
}

/// The reference interpreter as a [`TraceEngine`] (header name `propnet-interp`).
pub struct InterpEngine<'a> {
    interp: &'a mut Interp,
    initial: State,
    state: State,
    /// The position of the last view and its legal move terms per role.
    last: Option<(Position, Vec<Vec<GroundTermId>>)>,
    /// The joint move (indices) whose percepts were last computed, and its successor.
    after: Option<(Vec<usize>, State)>,
}

impl<'a> InterpEngine<'a> {
    /// Wraps `interp`, computing its initial state.
    ///
    /// # Errors
    /// Evaluation errors of `init`.
    pub fn new(interp: &'a mut Interp) -> Result<Self, InterpError> {
        let initial = interp.initial_state()?;
        Ok(InterpEngine {
            interp,
            state: initial.clone(),
            initial,
            last: None,
            after: None,
        })
    }
}

impl TraceEngine for InterpEngine<'_> {
    type Error = InterpError;

    fn name(&self) -> String {
        "propnet-interp".into()
    }

    fn role_names(&self) -> Vec<String> {
        self.interp.role_names().to_vec()
    }

    fn restart(&mut self) -> Result<(), InterpError> {
        self.state = self.initial.clone();
        self.last = None;
        self.after = None;
        Ok(())
    }

    fn view(&mut self) -> Result<StepView, InterpError> {
        let pos = self.interp.evaluate(&self.state)?;
        let it = &*self.interp;
        let (legal, ids): (Vec<Vec<String>>, Vec<Vec<GroundTermId>>) = (0..it.roles().len())
            .map(|r| it.legal_in(&pos, r).into_iter().unzip())
            .unzip();
        let v = StepView {
            state: it.state_text(pos.state()),
            terminal: it.terminal_in(&pos),
            legal,
            goals: it.goals_in(&pos),
        };
        self.last = Some((pos, ids));
        self.after = None;
        Ok(v)
    }

    fn play(&mut self, joint: &[usize]) -> Result<(), InterpError> {
        let (mut pos, ids) = self.last.take().expect("play follows a view");
        self.state = match self.after.take() {
            Some((j, next)) if j == joint => next,
            _ => {
                let moves: Vec<GroundTermId> = joint.iter().zip(&ids).map(|(&i, l)| l[i]).collect();
                self.interp.next_from(&mut pos, &moves)?
            }
        };
        Ok(())
    }

    fn gdl2(&self) -> bool {
        self.interp.is_gdl2()
    }

    fn percepts(&mut self, joint: &[usize]) -> Result<Vec<Vec<String>>, InterpError> {
        let (pos, ids) = self.last.as_mut().expect("percepts follow a view");
        let moves: Vec<GroundTermId> = joint.iter().zip(ids.iter()).map(|(&i, l)| l[i]).collect();
        let (next, seen) = self.interp.next_with_percepts(pos, &moves)?;
        self.after = Some((joint.to_vec(), next));
        Ok(seen
            .into_iter()
            .map(|ps| ps.into_iter().map(|(t, _)| t).collect())
            .collect())
    }
}

/// Runs `opts.playouts` random playouts through `engine` and passes every line (header
/// first, no newline) to `emit`. Moves are chosen like the oracle: per non-terminal step,
/// for each role in order, `legal[x mod len]` with `x` the next SplitMix64 output.
///
/// # Errors
/// The engine's evaluation errors.
pub fn trace<E: TraceEngine>(
    engine: &mut E,
    opts: &TraceOptions,
    mut emit: impl FnMut(&str),
) -> Result<(), E::Error> {
    let roles = engine.role_names();
    let gdl2 = engine.gdl2();
    emit(&header_line_gdl(&roles, &engine.name(), opts, gdl2));
    let mut rng = SplitMix64::new(opts.seed);
    let mut moves = 0u64;
    for p in 0..opts.playouts {
        if opts.stop_after.is_some_and(|n| moves >= n) {
            break;
        }
        engine.restart()?;
        let mut step = 0u64;
        loop {
            let v = engine.view()?;
            let mut joint = Vec::with_capacity(roles.len());
            let end = match v.forced_end() {
                Some(e) => e,
                None if step >= opts.max_steps => LineEnd::Truncated,
                None => {
                    let mut texts = Vec::with_capacity(roles.len());
                    for l in &v.legal {
                        let i = (rng.next_u64() % l.len() as u64) as usize;
                        texts.push(l[i].clone());
                        joint.push(i);
                    }
                    LineEnd::Joint(texts)
                }
            };
            let sees = match (&end, gdl2) {
                (LineEnd::Joint(_), true) => Some(engine.percepts(&joint)?),
                _ => None,
            };
            emit(&step_line_with_sees(
                &roles,
                p,
                step,
                &v,
                &end,
                sees.as_deref(),
            ));
            if !matches!(end, LineEnd::Joint(_)) {
                break;
            }
            engine.play(&joint)?;
            step += 1;
            moves += 1;
        }
    }
    engine.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix64_reference_values() {
        // First outputs for seed 0 of the published SplitMix64 reference implementation.
        let mut r = SplitMix64::new(0);
        assert_eq!(r.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(r.next_u64(), 0x6E78_9E6A_A1B9_65F4);
    }

    #[test]
    fn json_escapes_like_the_oracle() {
        let mut s = String::new();
        json_string(&mut s, "a\"b\\c\n\u{1}\u{8}é");
        assert_eq!(s, "\"a\\\"b\\\\c\\n\\u0001\\u0008é\"");
    }
}
