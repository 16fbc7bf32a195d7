//! Well-formedness check of a [`Netlist`]: ids in range, topological order, unique
//! input/latch readers, outputs independent of inputs, sorted legal lists, a role count the
//! RNG can address. Returns the netlist's [`NetlistInfo`].

use super::info::NetlistInfo;
use super::ir::{Gate, GateId, Netlist};
use crate::rng::MAX_ROLES;

/// A violated netlist invariant.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ValidateError {
    /// An operand or output refers past the end of the arena.
    #[error("{what} refers to gate g{id}, but the netlist has only {len} gates")]
    OutOfRange {
        /// Where the reference was found.
        what: String,
        /// The bad id.
        id: u32,
        /// Arena length.
        len: usize,
    },
    /// An operand is not strictly before its user.
    #[error("gate g{gate} uses g{operand}, which is not earlier in the arena (not topological)")]
    NotTopological {
        /// The using gate.
        gate: u32,
        /// The operand.
        operand: u32,
    },
    /// A latch or input index is out of range or read by more than one gate.
    #[error("{0}")]
    BadSource(String),
    /// A legal/goal/terminal output depends on an input.
    #[error("{what} (gate g{gate}) depends on input {input}: does may not reach legal, goal or terminal")]
    OutputReadsInput {
        /// Which output.
        what: String,
        /// The output gate.
        gate: u32,
        /// Name of the input reached.
        input: String,
    },
    /// One fluent named twice among the latches, fixed and aliased fluents: the state
    /// would hold it twice, with values that may disagree.
    #[error(
        "fluent {name} is named twice, as {first} and as {second}: each fluent is one latch, \
         one fixed fluent or one aliased fluent (rename or remove one; `propnet compile` \
         writes a consistent netlist)"
    )]
    DuplicateFluent {
        /// The fluent text.
        name: String,
        /// Where it is named first (`latch l3`, `fixed fluent 2`, `aliased fluent 0`).
        first: String,
        /// Where it is named again.
        second: String,
    },
    /// More roles than the RNG counter can address.
    #[error(
        "{roles} roles: the playout RNG addresses at most {MAX_ROLES} (8 role bits in its counter)"
    )]
    TooManyRoles {
        /// Number of roles.
        roles: usize,
    },
    /// No roles: nothing could move or score (a game has at least one `role`).
    #[error("the netlist has no roles (a game has at least one)")]
    NoRoles,
    /// A role's legal list is not sorted by move text, or names an input of another role.
    #[error("role {role}: {msg}")]
    BadRole {
        /// Role name.
        role: String,
        /// What is wrong.
        msg: String,
    },
}

/// Checks every invariant listed in the [crate docs](crate) and that the netlist has at most
/// [`MAX_ROLES`] roles, and returns what the backends need to know about it. Time and
/// memory linear in the netlist.
///
/// # Errors
/// The first violated invariant found.
pub fn validate(n: &Netlist) -> Result<NetlistInfo, ValidateError> {
    check_gates(n)?;
    let len = n.gates.len();
    for (i, l) in n.latches.iter().enumerate() {
        in_range(&format!("next of latch l{i} {}", l.name), l.next, len)?;
    }
    in_range("terminal", n.terminal, len)?;
    if let Some(a) = n
        .aliased_fluents
        .iter()
        .find(|a| a.latch.index() >= n.latches.len())
    {
        return Err(ValidateError::BadSource(format!(
            "aliased fluent {} refers to latch {}, but the netlist has only {} latches",
            a.name,
            a.latch,
            n.latches.len()
        )));
    }
    check_fluent_names(n)?;
    if n.roles.is_empty() {
        return Err(ValidateError::NoRoles);
    }
    if let Some((i, x)) = n
        .inputs
        .iter()
        .enumerate()
        .find(|(_, x)| x.role.index() >= n.roles.len())
    {
        return Err(ValidateError::BadSource(format!(
            "input i{i} {} belongs to role {}, but the netlist has only {} roles",
            x.name,
            x.role.0,
            n.roles.len()
        )));
    }
    for r in 0..n.roles.len() {
        check_role(n, r)?;
    }
    if n.roles.len() > MAX_ROLES {
        return Err(ValidateError::TooManyRoles {
            roles: n.roles.len(),
        });
    }
    let info = NetlistInfo::analyse(n);
    let state_only = |what: String, gate: GateId| -> Result<(), ValidateError> {
        match info.reads_move(gate) {
            false => Ok(()),
            true => Err(ValidateError::OutputReadsInput {
                what,
                gate: gate.0,
                input: n.inputs[first_input(n, gate)].name.clone(),
            }),
        }
    };
    state_only("terminal".into(), n.terminal)?;
    for role in &n.roles {
        for lg in &role.legal {
            let input = &n.inputs[lg.input.index()].name;
            state_only(format!("legal {} {input}", role.name), lg.gate)?;
        }
        for g in &role.goals {
            state_only(format!("goal {} {}", role.name, g.value), g.gate)?;
        }
    }
    Ok(info)
}

/// `Ok` when `id` is a gate of an arena of `len` gates.
fn in_range(what: &str, id: GateId, len: usize) -> Result<(), ValidateError> {
    if id.index() >= len {
        Err(ValidateError::OutOfRange {
            what: what.to_string(),
            id: id.0,
            len,
        })
    } else {
        Ok(())
    }
}

/// Operands in range and earlier than their users; each latch and input read by one gate
/// at most.
fn check_gates(n: &Netlist) -> Result<(), ValidateError> {
    let len = n.gates.len();
    let mut latch_read = vec![false; n.latches.len()];
    let mut input_read = vec![false; n.inputs.len()];
    // Marks source `name` (`l3`, `i5`) of kind `kind` read by gate `gate`.
    let read_once = |read: &mut [bool], k: usize, gate: usize, kind: &str, name: String| {
        let Some(slot) = read.get_mut(k) else {
            return Err(ValidateError::BadSource(format!(
                "gate g{gate} reads {kind} {name}, out of range"
            )));
        };
        if std::mem::replace(slot, true) {
            return Err(ValidateError::BadSource(format!(
                "{kind} {name} is read by more than one gate"
            )));
        }
        Ok(())
    };
    for (i, g) in n.gates.iter().enumerate() {
        for &op in g.operands() {
            in_range(&format!("gate g{i}"), op, len)?;
            if op.index() >= i {
                return Err(ValidateError::NotTopological {
                    gate: i as u32,
                    operand: op.0,
                });
            }
        }
        match *g {
            Gate::Latch(l) => read_once(&mut latch_read, l.index(), i, "latch", l.to_string())?,
            Gate::Input(x) => read_once(&mut input_read, x.index(), i, "input", x.to_string())?,
            _ => {}
        }
    }
    Ok(())
}

/// Every fluent (latch, fixed or aliased) has its own name. Time `O(f log f)`.
fn check_fluent_names(n: &Netlist) -> Result<(), ValidateError> {
    let latches = n.latches.iter().enumerate();
    let mut names: Vec<(&str, String)> = latches
        .map(|(i, l)| (l.name.as_str(), format!("latch l{i}")))
        .chain(
            (n.fixed_fluents.iter().enumerate())
                .map(|(i, (name, _))| (name.as_str(), format!("fixed fluent {i}"))),
        )
        .chain(
            (n.aliased_fluents.iter().enumerate())
                .map(|(i, a)| (a.name.as_str(), format!("aliased fluent {i}"))),
        )
        .collect();
    // Stable: of two equal names, the first stays first (latches, fixed, aliased).
    names.sort_by(|a, b| a.0.cmp(b.0));
    match names.windows(2).find(|w| w[0].0 == w[1].0) {
        Some(w) => Err(ValidateError::DuplicateFluent {
            name: w[0].0.to_string(),
            first: w[0].1.clone(),
            second: w[1].1.clone(),
        }),
        None => Ok(()),
    }
}

/// The index of an input that gate `g` (which reads a move) depends on: the first one a
/// depth-first search from `g` meets.
fn first_input(n: &Netlist, g: GateId) -> usize {
    let mut seen = vec![false; n.gates.len()];
    let mut stack = vec![g];
    while let Some(x) = stack.pop() {
        if std::mem::replace(&mut seen[x.index()], true) {
            continue;
        }
        match n.gate(x) {
            Gate::Input(i) => return i.index(),
            gate => stack.extend(gate.operands().iter().rev()),
        }
    }
    0
}

/// Role `r`'s legal entries name in-range inputs of role `r`, strictly sorted by move text;
/// its goal values are strictly ascending and at most 100; its percepts strictly sorted by
/// text; its output gates are in range.
fn check_role(n: &Netlist, r: usize) -> Result<(), ValidateError> {
    let role = &n.roles[r];
    let bad = |msg: String| ValidateError::BadRole {
        role: role.name.clone(),
        msg,
    };
    for lg in &role.legal {
        let input = n
            .inputs
            .get(lg.input.index())
            .ok_or_else(|| bad(format!("legal names input {} out of range", lg.input)))?;
        if input.role.index() != r {
            return Err(bad(format!(
                "legal move {} is an input of another role",
                input.name
            )));
        }
        let what = format!("legal {} {}", role.name, input.name);
        in_range(&what, lg.gate, n.gates.len())?;
    }
    for w in role.legal.windows(2) {
        let (a, b) = (
            &n.inputs[w[0].input.index()].name,
            &n.inputs[w[1].input.index()].name,
        );
        if a.as_bytes() >= b.as_bytes() {
            return Err(bad(format!(
                "legal moves not strictly sorted: {a} before {b}"
            )));
        }
    }
    if role.goals.windows(2).any(|w| w[0].value >= w[1].value) {
        return Err(bad("goal values not strictly ascending".into()));
    }
    for g in &role.goals {
        if g.value > 100 {
            return Err(bad(format!("goal value {} > 100", g.value)));
        }
        let what = format!("goal {} {}", role.name, g.value);
        in_range(&what, g.gate, n.gates.len())?;
    }
    for p in &role.percepts {
        in_range(
            &format!("percept {} {}", role.name, p.name),
            p.gate,
            n.gates.len(),
        )?;
    }
    if let Some(w) = role
        .percepts
        .windows(2)
        .find(|w| w[0].name.as_bytes() >= w[1].name.as_bytes())
    {
        return Err(bad(format!(
            "percepts not strictly sorted: {} before {}",
            w[0].name, w[1].name
        )));
    }
    Ok(())
}
