//! `propnet verify`: replays a trace written by another reasoner through one of ours and
//! reports the first position where they disagree, or how much agrees.
//!
//! Every position the trace describes ([`super::claims`]) is evaluated by the engine and
//! each reported field compared: state (oracle traces), terminal flag, every role's legal
//! moves (as sets), goal values; then the trace's joint move must be legal for us, the
//! percepts a GDL-II trace reports after it (`sees`) must be ours, and it drives the next
//! position. The trace's own choice rule does not matter.

use super::claims::{parse, Claim, Item, Malformed, Stop, TraceFile, TraceFormat};
use propnet_compiler::interp::trace::{StepView, TraceEngine};
use propnet_compiler::interp::GoalValue;
use std::fmt;

/// What differs at a divergence (`trace` = what the trace says, `ours` = the engine).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Mismatch {
    /// The role lists differ.
    Roles {
        /// The trace's roles.
        trace: Vec<String>,
        /// Ours.
        ours: Vec<String>,
    },
    /// The state's fluents differ.
    State {
        /// The trace's fluents.
        trace: Vec<String>,
        /// Ours.
        ours: Vec<String>,
    },
    /// The terminal flag differs.
    Terminal {
        /// The trace's flag.
        trace: bool,
        /// Ours.
        ours: bool,
    },
    /// A role's legal moves differ.
    Legal {
        /// The role.
        role: String,
        /// The trace's moves.
        trace: Vec<String>,
        /// Ours.
        ours: Vec<String>,
    },
    /// A role's goal values differ.
    Goals {
        /// The role.
        role: String,
        /// The trace's values.
        trace: Vec<String>,
        /// Ours.
        ours: Vec<String>,
    },
    /// A role's percepts (GDL-II `sees`) after the joint move differ.
    Sees {
        /// The role.
        role: String,
        /// The trace's percepts.
        trace: Vec<String>,
        /// Ours.
        ours: Vec<String>,
    },
    /// The trace plays a move that is not legal for us.
    IllegalMove {
        /// The role.
        role: String,
        /// The move.
        played: String,
        /// Our legal moves.
        ours: Vec<String>,
    },
}

fn only_in(a: &[String], b: &[String]) -> String {
    let v: Vec<&str> = a
        .iter()
        .filter(|x| !b.contains(x))
        .map(String::as_str)
        .collect();
    if v.is_empty() {
        "nothing".into()
    } else {
        v.join(" ")
    }
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sets = |f: &mut fmt::Formatter<'_>, what: &str, t: &[String], o: &[String]| {
            write!(
                f,
                "{what} differ: only in the trace: {}; only ours: {}",
                only_in(t, o),
                only_in(o, t)
            )
        };
        match self {
            Mismatch::Roles { trace, ours } => {
                write!(
                    f,
                    "roles differ: trace [{}], ours [{}]",
                    trace.join(" "),
                    ours.join(" ")
                )
            }
            Mismatch::State { trace, ours } => sets(f, "state fluents", trace, ours),
            Mismatch::Terminal { trace, ours } => {
                write!(f, "terminal flag differs: trace {trace}, ours {ours}")
            }
            Mismatch::Legal { role, trace, ours } => {
                sets(f, &format!("legal moves of {role}"), trace, ours)
            }
            Mismatch::Goals { role, trace, ours } => write!(
                f,
                "goals of {role} differ: trace [{}], ours [{}]",
                trace.join(" "),
                ours.join(" ")
            ),
            Mismatch::Sees { role, trace, ours } => {
                sets(f, &format!("percepts of {role}"), trace, ours)
            }
            Mismatch::IllegalMove { role, played, ours } => write!(
                f,
                "the trace plays {played} for {role}, not legal for us (ours: {})",
                ours.join(" ")
            ),
        }
    }
}

/// The first disagreement of a trace with our engine.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Divergence {
    /// Trace line (from 1) of the differing field.
    pub line: usize,
    /// Playout (from 0) and step of the position.
    pub playout: u64,
    /// Step within the playout.
    pub step: u64,
    /// What differs.
    pub what: Mismatch,
    /// Our state at that position (sorted fluents).
    pub state: Vec<String>,
}

impl fmt::Display for Divergence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "line {} (playout {}, step {}): {}\n  our state there: {}",
            self.line,
            self.playout,
            self.step,
            self.what,
            self.state.join(" ")
        )
    }
}

/// The outcome of a replay.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Verdict {
    /// The trace's format.
    pub format: TraceFormat,
    /// Positions that agreed in every reported field.
    pub positions: usize,
    /// Joint moves replayed.
    pub joint_moves: usize,
    /// Joint moves whose percepts (GDL-II `sees`) were checked.
    pub percepts: usize,
    /// Playouts seen (begun).
    pub playouts: usize,
    /// The first divergence, if any.
    pub divergence: Option<Divergence>,
    /// The reasoner reported an error in its trace (gdl-perf `!E!`): line and message.
    pub reasoner_error: Option<(usize, String)>,
    /// Remarks that do not make the trace wrong (no `!F!`, skipped lines, a cut playout).
    pub notes: Vec<String>,
    /// The game the trace's header names, when it names one.
    pub trace_game: Option<String>,
}

impl Verdict {
    /// True when the trace agrees everywhere, reports no error and has a position.
    pub fn agrees(&self) -> bool {
        self.divergence.is_none() && self.reasoner_error.is_none() && self.positions > 0
    }

    /// One line: `agrees: N positions, M joint moves[ (percepts of every one)], P playouts
    /// (format)` or the problem.
    pub fn summary(&self) -> String {
        if let Some(d) = &self.divergence {
            return format!("diverges at {d}");
        }
        if let Some((line, msg)) = &self.reasoner_error {
            return format!("the reasoner reports an error at line {line}: {msg}");
        }
        if self.positions == 0 {
            return "the trace describes no position".into();
        }
        let n = |count: usize, noun: &str| match count {
            1 => format!("1 {noun}"),
            _ => format!("{count} {noun}s"),
        };
        let percepts = match self.percepts {
            0 => String::new(),
            k if k == self.joint_moves => " (percepts of every one)".to_string(),
            k => format!(" (percepts of {k})"),
        };
        format!(
            "agrees: {}, {}{percepts}, {} ({} trace)",
            n(self.positions, "position"),
            n(self.joint_moves, "joint move"),
            n(self.playouts, "playout"),
            self.format
        )
    }
}

/// Why a replay could not finish.
#[derive(Debug, thiserror::Error)]
pub enum VerifyError {
    /// The trace is unreadable.
    #[error("{0}")]
    Malformed(#[from] Malformed),
    /// The engine failed while evaluating.
    #[error("line {line}: our engine failed: {message}")]
    Engine {
        /// Line of the position being evaluated.
        line: usize,
        /// The engine's error.
        message: String,
    },
}

fn goal_texts(g: &[GoalValue]) -> Vec<String> {
    g.iter()
        .map(|v| match v {
            GoalValue::Int(n) => n.to_string(),
            GoalValue::Text(t) => t.clone(),
        })
        .collect()
}

/// Compares one claim with our view of the same position.
fn compare(c: &Claim, v: &StepView, roles: &[String]) -> Option<(usize, Mismatch)> {
    if let Some(s) = &c.state {
        if *s != v.state {
            let (trace, ours) = (s.clone(), v.state.clone());
            return Some((c.line, Mismatch::State { trace, ours }));
        }
    }
    if c.terminal != v.terminal {
        let (trace, ours) = (c.terminal, v.terminal);
        return Some((c.line, Mismatch::Terminal { trace, ours }));
    }
    for (r, (line, moves)) in c.legal.iter().flatten().enumerate() {
        if *moves != v.legal[r] {
            let (role, trace, ours) = (roles[r].clone(), moves.clone(), v.legal[r].clone());
            return Some((*line, Mismatch::Legal { role, trace, ours }));
        }
    }
    if let Some((line, goals)) = &c.goals {
        for (r, g) in goals.iter().enumerate() {
            if *g != v.goals[r] {
                let (trace, ours) = (goal_texts(g), goal_texts(&v.goals[r]));
                let role = roles[r].clone();
                return Some((*line, Mismatch::Goals { role, trace, ours }));
            }
        }
    }
    None
}

/// Replays `text` (either format) through `engine`; see the module docs.
///
/// # Errors
/// [`VerifyError::Malformed`] for an unreadable trace (line and column), or a trace whose
/// steps do not follow each other; [`VerifyError::Engine`] when the engine fails.
pub fn verify<E: TraceEngine>(engine: &mut E, text: &str) -> Result<Verdict, VerifyError>
where
    E::Error: fmt::Display,
{
    let file = parse(text)?;
    replay(engine, &file)
}

/// Replays a parsed trace through `engine` (see [`verify`]).
///
/// # Errors
/// As [`verify`].
pub fn replay<E: TraceEngine>(engine: &mut E, file: &TraceFile) -> Result<Verdict, VerifyError>
where
    E::Error: fmt::Display,
{
    let mut out = replay_claims(engine, file)?;
    // the engine's deferred checks (the GPU's) cover the positions entered, up to a divergence
    match engine.finish() {
        Ok(()) => Ok(out),
        Err(e) if out.divergence.is_some() => {
            out.notes
                .push(format!("after the divergence, the engine failed: {e}"));
            Ok(out)
        }
        Err(e) => Err(engine_error(0)(e)),
    }
}

/// The replay of [`replay`] without the engine's closing [`TraceEngine::finish`].
fn replay_claims<E: TraceEngine>(engine: &mut E, file: &TraceFile) -> Result<Verdict, VerifyError>
where
    E::Error: fmt::Display,
{
    let roles = engine.role_names();
    let mut out = Verdict {
        format: file.format,
        positions: 0,
        joint_moves: 0,
        percepts: 0,
        playouts: 0,
        divergence: None,
        reasoner_error: None,
        notes: Vec::new(),
        trace_game: file.game.clone(),
    };
    if file.roles != roles {
        out.divergence = Some(Divergence {
            line: file.roles_line,
            playout: 0,
            step: 0,
            what: Mismatch::Roles {
                trace: file.roles.clone(),
                ours: roles,
            },
            state: Vec::new(),
        });
        return Ok(out);
    }
    // The position the previous claim's joint move leads to: (playout, step).
    let mut expect: Option<(u64, u64)> = None;
    let mut finished = false;
    for item in &file.items {
        let c = match item {
            Item::Claim(c) => c,
            Item::Stop(Stop::Finished(_)) => {
                finished = true;
                break;
            }
            Item::Stop(Stop::ReasonerError(line, msg)) => {
                out.reasoner_error = Some((*line, msg.clone()));
                break;
            }
        };
        enter_position(engine, c, expect, &mut out)?;
        let v = engine.view().map_err(engine_error(c.line))?;
        if let Some((line, what)) = compare(c, &v, &roles) {
            out.divergence = Some(divergence(c, &v, line, what));
            return Ok(out);
        }
        out.positions += 1;
        expect = None;
        let Some((line, joint)) = &c.joint else {
            continue;
        };
        match joint_indices(joint, &v, &roles) {
            Ok(idx) => {
                if let Some((line, what)) = sees_mismatch(engine, c, &idx, &roles)? {
                    out.divergence = Some(divergence(c, &v, line, what));
                    return Ok(out);
                }
                out.percepts += usize::from(c.sees.is_some());
                engine.play(&idx).map_err(engine_error(*line))?
            }
            Err(what) => {
                out.divergence = Some(divergence(c, &v, *line, what));
                return Ok(out);
            }
        }
        out.joint_moves += 1;
        expect = Some((c.playout, c.step + 1));
    }
    end_notes(&mut out, file, expect, finished);
    if engine.gdl2() && out.joint_moves > 0 && out.percepts == 0 {
        out.notes.push(
            "a GDL-II game, but the trace reports no percepts (`sees`): none were checked".into(),
        );
    }
    Ok(out)
}

/// The first role whose percepts in claim `c` (GDL-II) differ from ours after the joint
/// move `idx`, with the line; `None` when the claim reports none or all agree.
///
/// # Errors
/// [`VerifyError::Engine`] when the engine fails.
fn sees_mismatch<E: TraceEngine>(
    engine: &mut E,
    c: &Claim,
    idx: &[usize],
    roles: &[String],
) -> Result<Option<(usize, Mismatch)>, VerifyError>
where
    E::Error: fmt::Display,
{
    let Some((line, sees)) = &c.sees else {
        return Ok(None);
    };
    let ours = engine.percepts(idx).map_err(engine_error(*line))?;
    for (r, trace) in sees {
        let mine = ours.get(*r).cloned().unwrap_or_default();
        if *trace != mine {
            let role = roles[*r].clone();
            let what = Mismatch::Sees {
                role,
                trace: trace.clone(),
                ours: mine,
            };
            return Ok(Some((*line, what)));
        }
    }
    Ok(None)
}

/// The [`VerifyError::Engine`] of an engine error while evaluating trace line `line`.
fn engine_error<Er: fmt::Display>(line: usize) -> impl Fn(Er) -> VerifyError {
    move |e: Er| VerifyError::Engine {
        line,
        message: e.to_string(),
    }
}

/// Moves `engine` to the position of claim `c`: a restart at step 0 (noting a playout cut
/// short when the previous one expected another step), else the position the previous
/// joint move led to, which must be `expect` (playout, step).
///
/// # Errors
/// [`VerifyError::Malformed`] when `c` does not follow the previous claim;
/// [`VerifyError::Engine`] when the restart fails.
fn enter_position<E: TraceEngine>(
    engine: &mut E,
    c: &Claim,
    expect: Option<(u64, u64)>,
    out: &mut Verdict,
) -> Result<(), VerifyError>
where
    E::Error: fmt::Display,
{
    if c.step == 0 {
        if let Some((p, s)) = expect {
            out.notes.push(format!(
                "playout {p} is cut after step {}",
                s.saturating_sub(1)
            ));
        }
        let nth = out.playouts as u64;
        if c.playout != nth && !out.notes.iter().any(|n| n.starts_with("playout numbers")) {
            out.notes.push(format!(
                "playout numbers do not count up from 0: line {} begins playout {} where \
                 playout {nth} was due",
                c.line, c.playout
            ));
        }
        engine.restart().map_err(engine_error(c.line))?;
        out.playouts += 1;
    } else if expect != Some((c.playout, c.step)) {
        return Err(VerifyError::Malformed(Malformed {
            line: c.line,
            column: 1,
            message: format!(
                "playout {} step {} does not follow the previous line",
                c.playout, c.step
            ),
        }));
    }
    Ok(())
}

/// The divergence `what` at trace line `line` in the position of claim `c`, whose view
/// (ours) is `v`.
fn divergence(c: &Claim, v: &StepView, line: usize, what: Mismatch) -> Divergence {
    Divergence {
        line,
        playout: c.playout,
        step: c.step,
        what,
        state: v.state.clone(),
    }
}

/// Per role, the index in our legal moves `v.legal` of the trace's move in `joint`.
///
/// # Errors
/// [`Mismatch::IllegalMove`] for the first role whose move is not legal for us.
fn joint_indices(joint: &[String], v: &StepView, roles: &[String]) -> Result<Vec<usize>, Mismatch> {
    let mut idx = Vec::with_capacity(joint.len());
    for (r, m) in joint.iter().enumerate() {
        match v.legal[r].iter().position(|x| x == m) {
            Some(i) => idx.push(i),
            None => {
                return Err(Mismatch::IllegalMove {
                    role: roles[r].clone(),
                    played: m.clone(),
                    ours: v.legal[r].clone(),
                })
            }
        }
    }
    Ok(idx)
}

/// Notes at the end of a replay: a playout cut short by the end of the trace (`expect`), a
/// gdl-perf trace without its `!F!` line, and lines of no known kind skipped.
fn end_notes(out: &mut Verdict, file: &TraceFile, expect: Option<(u64, u64)>, finished: bool) {
    if let Some((p, s)) = expect {
        out.notes.push(format!(
            "the trace ends inside playout {p} (before step {s})"
        ));
    }
    if file.format == TraceFormat::GdlPerf && !finished && out.reasoner_error.is_none() {
        out.notes
            .push("no `!F!` line: the reasoner did not finish its test".into());
    }
    if let Some(first) = file.skipped.first() {
        out.notes.push(format!(
            "{} lines of no known kind skipped (first: line {first})",
            file.skipped.len()
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_summary_counts_in_the_singular_when_one() {
        let mut v = Verdict {
            format: TraceFormat::Oracle,
            positions: 1,
            joint_moves: 0,
            percepts: 0,
            playouts: 1,
            divergence: None,
            reasoner_error: None,
            notes: Vec::new(),
            trace_game: None,
        };
        assert_eq!(
            v.summary(),
            format!(
                "agrees: 1 position, 0 joint moves, 1 playout ({} trace)",
                v.format
            )
        );
        (v.positions, v.joint_moves, v.playouts) = (5, 1, 2);
        assert!(v
            .summary()
            .starts_with("agrees: 5 positions, 1 joint move, 2 playouts"));
    }
}
