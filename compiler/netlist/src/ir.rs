//! Netlist data types: the gate arena, latches, inputs and per-role outputs.

use serde::{Deserialize, Serialize};

/// Index of a gate in [`Netlist::gates`]. Printed as `g12`.
#[derive(
    Copy, Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
pub struct GateId(pub u32);

/// Index of a latch (base proposition) in [`Netlist::latches`]. Printed as `l3`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct LatchId(pub u32);

/// Index of an input (`does` proposition) in [`Netlist::inputs`]. Printed as `i5`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct InputId(pub u32);

/// Index of a role in [`Netlist::roles`], in the order of the game's `role` facts.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct RoleId(pub u32);

impl GateId {
    /// The arena index as `usize`.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}
impl LatchId {
    /// The latch index as `usize`.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}
impl InputId {
    /// The input index as `usize`.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}
impl RoleId {
    /// The role index as `usize`.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl std::fmt::Display for GateId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "g{}", self.0)
    }
}
impl std::fmt::Display for LatchId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "l{}", self.0)
    }
}
impl std::fmt::Display for InputId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "i{}", self.0)
    }
}

/// One combinational node. Operands always have smaller ids than the gate that uses them.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Gate {
    /// A constant.
    Const(bool),
    /// The current value of an input (`does` proposition) for this step's joint move.
    Input(InputId),
    /// The current value of a latch (base proposition, `true` fluent).
    Latch(LatchId),
    /// Logical negation.
    Not(GateId),
    /// Conjunction of any number of operands (empty = true).
    And(Vec<GateId>),
    /// Disjunction of any number of operands (empty = false).
    Or(Vec<GateId>),
}

impl Gate {
    /// `And(ops)` when `is_and`, else `Or(ops)`.
    pub fn and_or(is_and: bool, ops: Vec<GateId>) -> Gate {
        if is_and {
            Gate::And(ops)
        } else {
            Gate::Or(ops)
        }
    }

    /// The operands of this gate, in order.
    pub fn operands(&self) -> &[GateId] {
        match self {
            Gate::Not(a) => std::slice::from_ref(a),
            Gate::And(v) | Gate::Or(v) => v,
            Gate::Const(_) | Gate::Input(_) | Gate::Latch(_) => &[],
        }
    }

    /// Short kind name: `const`, `input`, `latch`, `not`, `and`, `or`.
    pub fn kind(&self) -> &'static str {
        match self {
            Gate::Const(_) => "const",
            Gate::Input(_) => "input",
            Gate::Latch(_) => "latch",
            Gate::Not(_) => "not",
            Gate::And(_) => "and",
            Gate::Or(_) => "or",
        }
    }
}

/// A base proposition: one bit of game state.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Latch {
    /// Canonical fluent text, e.g. `(cell 1 1 b)`.
    pub name: String,
    /// Value in the initial state (`init`).
    pub init: bool,
    /// Gate giving the value in the next state (`next`).
    pub next: GateId,
}

/// An input proposition: `(does role move)`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Input {
    /// The role that makes this move.
    pub role: RoleId,
    /// Canonical move text, e.g. `(mark 1 1)` or `noop`.
    pub name: String,
}

/// One legal move of a role: the input it drives and the gate that says it is legal.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Legal {
    /// The input proposition set when this move is chosen.
    pub input: InputId,
    /// True when the move is legal in the current state.
    pub gate: GateId,
}

/// One possible goal value of a role.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Goal {
    /// The goal value, 0..=100.
    pub value: u8,
    /// True when `(goal role value)` holds in the current state.
    pub gate: GateId,
}

/// One possible percept of a role (GDL-II `(sees role percept)`): after a joint move, the
/// role perceives it when the gate holds. The gate reads the state *before* the transition
/// and the joint move (inputs), and may read latches' `next` gates (a percept about the
/// state after the move), like a latch's next-state function.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Percept {
    /// Canonical percept text, e.g. `(location 2 3)` or `1`.
    pub name: String,
    /// True when the role perceives it after the joint move set on the inputs.
    pub gate: GateId,
}

/// The outputs of one role.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Role {
    /// Role name as written in the `role` fact (lower case).
    pub name: String,
    /// Possible moves, sorted by the move text in byte order (the choice order).
    pub legal: Vec<Legal>,
    /// Possible goal values, sorted by value ascending, one entry per value.
    pub goals: Vec<Goal>,
    /// Possible percepts (GDL-II games only; empty otherwise), sorted by percept text in
    /// byte order, one entry per text. Absent from JSON when empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub percepts: Vec<Percept>,
}

/// A whole propnet: gates, state, inputs and named outputs.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Netlist {
    /// The gate arena, in topological order.
    pub gates: Vec<Gate>,
    /// Base propositions, sorted by fluent text in byte order.
    pub latches: Vec<Latch>,
    /// Input propositions (`does`), grouped by role.
    pub inputs: Vec<Input>,
    /// Roles in the order of the game's `role` facts.
    pub roles: Vec<Role>,
    /// True in terminal states.
    pub terminal: GateId,
    /// Fluents removed by optimization because they never change, with their constant value
    /// (see `passes::drop_constant_latches`). Sorted by fluent text; disjoint from the latch
    /// names. Together with the latches they make up the full game state
    /// ([`Netlist::true_fluents`]).
    #[serde(default)]
    pub fixed_fluents: Vec<(String, bool)>,
    /// Fluents removed by optimization because they always equal a latch or its complement
    /// (see `passes::merge_latches`). Sorted by fluent text; disjoint from the latch and fixed
    /// fluent names. Part of the full game state ([`Netlist::true_fluents`]).
    #[serde(default)]
    pub aliased_fluents: Vec<AliasedFluent>,
    /// Set by `passes::optimize` when its passes reached their fixpoint: running them again
    /// changes nothing, so a loader of this netlist (a `propnet compile` output) skips them.
    /// Absent from JSON when false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub optimized: bool,
    /// The game is GDL-II (Thielscher 2010: a `random` role, `sees` percepts): its roles'
    /// `percepts` are its percepts, and traces of it report them. Set from the rules (a
    /// game that mentions `sees`), so a GDL-II game whose percepts are never reachable
    /// is still one. Absent from JSON when false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub gdl2: bool,
}

/// Why [`Netlist::state_of`] cannot build a state.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum StateError {
    /// The name is not a fluent of this netlist.
    #[error("`{0}` is not a base proposition of this game")]
    Unknown(String),
    /// The fluents cannot all hold together, nor can the others be all false, in any state.
    #[error("not a state of this game: {0}")]
    Unrepresentable(String),
}

/// A fluent whose value is always that of a latch, or its complement: it needs no latch of
/// its own.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AliasedFluent {
    /// Canonical fluent text.
    pub name: String,
    /// The latch whose value it has.
    pub latch: LatchId,
    /// True when the fluent holds exactly when the latch does not.
    pub negated: bool,
}

/// Counts that describe a netlist's size, as printed by `propnet run` and the benches.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct NetlistStats {
    /// Number of `And` gates.
    pub and: usize,
    /// Number of `Or` gates.
    pub or: usize,
    /// Number of `Not` gates.
    pub not: usize,
    /// Number of `Const` gates.
    pub constants: usize,
    /// Number of latches (base propositions).
    pub latches: usize,
    /// Number of inputs (`does` propositions).
    pub inputs: usize,
    /// Sum of operand counts over all `And`/`Or`/`Not` gates (edges).
    pub edges: usize,
    /// Longest path, in gates, from a latch/input/constant to any gate.
    pub depth: usize,
}

impl Netlist {
    /// Appends a gate and returns its id. The caller keeps the topological invariant.
    pub fn push(&mut self, gate: Gate) -> GateId {
        let id = GateId(self.gates.len() as u32);
        self.gates.push(gate);
        id
    }

    /// The gate with this id. Panics if out of range (a validated netlist never is).
    pub fn gate(&self, id: GateId) -> &Gate {
        &self.gates[id.index()]
    }

    /// Number of logic gates (`And`, `Or`, `Not`): the work per step of a simulator.
    pub fn logic_gate_count(&self) -> usize {
        self.gates
            .iter()
            .filter(|g| matches!(g, Gate::And(_) | Gate::Or(_) | Gate::Not(_)))
            .count()
    }

    /// Size statistics.
    pub fn stats(&self) -> NetlistStats {
        let mut s = NetlistStats {
            latches: self.latches.len(),
            inputs: self.inputs.len(),
            ..Default::default()
        };
        let mut level = vec![0usize; self.gates.len()];
        for (i, g) in self.gates.iter().enumerate() {
            match g {
                Gate::And(v) => {
                    s.and += 1;
                    s.edges += v.len();
                }
                Gate::Or(v) => {
                    s.or += 1;
                    s.edges += v.len();
                }
                Gate::Not(_) => {
                    s.not += 1;
                    s.edges += 1;
                }
                Gate::Const(_) => s.constants += 1,
                Gate::Input(_) | Gate::Latch(_) => {}
            }
            let ops = g.operands();
            if !ops.is_empty() {
                level[i] = 1 + ops
                    .iter()
                    .map(|o| level.get(o.index()).copied().unwrap_or(0))
                    .max()
                    .unwrap_or(0);
            }
            s.depth = s.depth.max(level[i]);
        }
        s
    }

    /// Names of the fluents that hold in the state whose latch values are `latches` (one bool
    /// per latch), including the true [`Netlist::fixed_fluents`] and
    /// [`Netlist::aliased_fluents`]: the full game state, sorted
    /// by fluent text in byte order. Panics if `latches.len() != self.latches.len()`.
    pub fn true_fluents(&self, latches: &[bool]) -> Vec<&str> {
        assert_eq!(latches.len(), self.latches.len(), "one value per latch");
        let mut names: Vec<&str> = self
            .latches
            .iter()
            .zip(latches)
            .filter(|(_, &v)| v)
            .map(|(l, _)| l.name.as_str())
            .chain(
                self.fixed_fluents
                    .iter()
                    .filter(|(_, v)| *v)
                    .map(|(n, _)| n.as_str()),
            )
            .chain(
                self.aliased_fluents
                    .iter()
                    .filter(|a| latches[a.latch.index()] != a.negated)
                    .map(|a| a.name.as_str()),
            )
            .collect();
        names.sort_unstable();
        names
    }

    /// The latch values of the state in which exactly the fluents `fluents` hold (the
    /// inverse of [`Netlist::true_fluents`]). A fixed fluent may be named when it is true; an
    /// aliased fluent sets its latch.
    ///
    /// # Errors
    /// [`StateError::Unknown`] for a name that is no fluent of the netlist,
    /// [`StateError::Unrepresentable`] for a set the netlist cannot hold (a false fixed
    /// fluent, or a latch and a fluent aliased to it that disagree).
    pub fn state_of(&self, fluents: &[&str]) -> Result<Vec<bool>, StateError> {
        let mut state = vec![false; self.latches.len()];
        for &f in fluents {
            if let Some(i) = self.latches.iter().position(|l| l.name == f) {
                state[i] = true;
            } else if let Some(a) = self.aliased_fluents.iter().find(|a| a.name == f) {
                state[a.latch.index()] |= !a.negated;
            } else if !self.fixed_fluents.iter().any(|(n, _)| n == f) {
                return Err(StateError::Unknown(f.to_string()));
            }
        }
        let listed = |name: &str| fluents.contains(&name);
        let wrong = self
            .fixed_fluents
            .iter()
            .find(|(n, v)| !v && listed(n))
            .map(|(n, _)| format!("{n} never holds in this game"))
            .or_else(|| {
                self.aliased_fluents
                    .iter()
                    .find(|a| listed(&a.name) != (state[a.latch.index()] != a.negated))
                    .map(|a| {
                        let latch = &self.latches[a.latch.index()].name;
                        let how = if a.negated {
                            "the complement of"
                        } else {
                            "equal to"
                        };
                        format!("{} is always {how} {latch} in this game", a.name)
                    })
            });
        match wrong {
            Some(why) => Err(StateError::Unrepresentable(why)),
            None => Ok(state),
        }
    }

    /// Initial state as one bool per latch.
    pub fn initial_state(&self) -> Vec<bool> {
        self.latches.iter().map(|l| l.init).collect()
    }
}
