//! Well-formedness check of a [`Netlist`]: ids in range, topological order, unique
//! input/latch readers, outputs independent of inputs, sorted legal lists.

use super::ir::{Gate, GateId, Netlist};

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
    /// A role's legal list is not sorted by move text, or names an input of another role.
    #[error("role {role}: {msg}")]
    BadRole {
        /// Role name.
        role: String,
        /// What is wrong.
        msg: String,
    },
}

/// Checks every invariant listed in the [module docs](super).
///
/// # Errors
/// The first violated invariant found.
pub fn validate(n: &Netlist) -> Result<(), ValidateError> {
    let len = n.gates.len();
    let check = |what: &str, id: GateId| -> Result<(), ValidateError> {
        if id.index() >= len {
            Err(ValidateError::OutOfRange {
                what: what.to_string(),
                id: id.0,
                len,
            })
        } else {
            Ok(())
        }
    };
    let mut latch_reader = vec![false; n.latches.len()];
    let mut input_reader = vec![None::<usize>; n.inputs.len()];
    for (i, g) in n.gates.iter().enumerate() {
        for &op in g.operands() {
            check(&format!("gate g{i}"), op)?;
            if op.index() >= i {
                return Err(ValidateError::NotTopological {
                    gate: i as u32,
                    operand: op.0,
                });
            }
        }
        match *g {
            Gate::Latch(l) => {
                let slot = latch_reader.get_mut(l.index()).ok_or_else(|| {
                    ValidateError::BadSource(format!("gate g{i} reads latch {l}, out of range"))
                })?;
                if *slot {
                    return Err(ValidateError::BadSource(format!(
                        "latch {l} is read by more than one gate"
                    )));
                }
                *slot = true;
            }
            Gate::Input(x) => {
                let slot = input_reader.get_mut(x.index()).ok_or_else(|| {
                    ValidateError::BadSource(format!("gate g{i} reads input {x}, out of range"))
                })?;
                if slot.is_some() {
                    return Err(ValidateError::BadSource(format!(
                        "input {x} is read by more than one gate"
                    )));
                }
                *slot = Some(i);
            }
            _ => {}
        }
    }
    for (i, l) in n.latches.iter().enumerate() {
        check(&format!("next of latch l{i} {}", l.name), l.next)?;
    }
    check("terminal", n.terminal)?;
    // Which gates depend on an input (forward pass, topological order).
    let mut reads_input: Vec<Option<u32>> = vec![None; len];
    for (i, g) in n.gates.iter().enumerate() {
        reads_input[i] = match g {
            Gate::Input(x) => Some(x.0),
            _ => g.operands().iter().find_map(|o| reads_input[o.index()]),
        };
    }
    let out_check = |what: String, gate: GateId| -> Result<(), ValidateError> {
        check(&what, gate)?;
        if let Some(x) = reads_input[gate.index()] {
            return Err(ValidateError::OutputReadsInput {
                what,
                gate: gate.0,
                input: n.inputs[x as usize].name.clone(),
            });
        }
        Ok(())
    };
    out_check("terminal".into(), n.terminal)?;
    for (r, role) in n.roles.iter().enumerate() {
        for lg in &role.legal {
            let input = n
                .inputs
                .get(lg.input.index())
                .ok_or_else(|| ValidateError::BadRole {
                    role: role.name.clone(),
                    msg: format!("legal names input {} out of range", lg.input),
                })?;
            if input.role.index() != r {
                return Err(ValidateError::BadRole {
                    role: role.name.clone(),
                    msg: format!("legal move {} is an input of another role", input.name),
                });
            }
            out_check(format!("legal {} {}", role.name, input.name), lg.gate)?;
        }
        for w in role.legal.windows(2) {
            let (a, b) = (
                &n.inputs[w[0].input.index()].name,
                &n.inputs[w[1].input.index()].name,
            );
            if a.as_bytes() >= b.as_bytes() {
                return Err(ValidateError::BadRole {
                    role: role.name.clone(),
                    msg: format!("legal moves not strictly sorted: {a} before {b}"),
                });
            }
        }
        for w in role.goals.windows(2) {
            if w[0].value >= w[1].value {
                return Err(ValidateError::BadRole {
                    role: role.name.clone(),
                    msg: "goal values not strictly ascending".into(),
                });
            }
        }
        for g in &role.goals {
            if g.value > 100 {
                return Err(ValidateError::BadRole {
                    role: role.name.clone(),
                    msg: format!("goal value {} > 100", g.value),
                });
            }
            out_check(format!("goal {} {}", role.name, g.value), g.gate)?;
        }
    }
    Ok(())
}
