//! Errors and warnings of the GDL front end, all located as `file:line:column`.

use std::fmt;
use std::path::PathBuf;

use crate::kif::{KifError, Loc};

/// Why a game was rejected. Every variant displays as `file:line:column: message`, where
/// the message names the offending rule (its text) and variable or relation.
#[derive(Debug, thiserror::Error)]
pub enum GdlError {
    /// The file could not be read.
    #[error("{}: cannot read file: {error}", path.display())]
    Io {
        /// The path given to [`super::load`].
        path: PathBuf,
        /// The I/O error (shown in the message, so not a `source()` too).
        error: std::io::Error,
    },
    /// Not well-formed KIF (lexer or parser error).
    #[error(transparent)]
    Syntax(#[from] KifError),
    /// Well-formed KIF but not valid GDL.
    #[error("{loc}: {violation}")]
    Invalid {
        /// Where the offending sentence or term stands.
        loc: Loc,
        /// What is wrong.
        violation: Violation,
    },
}

impl GdlError {
    /// The location, if the error has one (I/O errors have none).
    pub fn loc(&self) -> Option<&Loc> {
        match self {
            GdlError::Io { .. } => None,
            GdlError::Syntax(e) => Some(&e.loc),
            GdlError::Invalid { loc, .. } => Some(loc),
        }
    }

    /// The GDL violation, if this is one.
    pub fn violation(&self) -> Option<&Violation> {
        match self {
            GdlError::Invalid { violation, .. } => Some(violation),
            _ => None,
        }
    }
}

/// A way in which a program breaks the rules of GDL. `rule` fields hold the text of the
/// offending sentence (canonical spacing, case as written, long sentences shortened).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Violation {
    /// A top-level expression that is not a fact or rule (a variable, a bare `<=`, …).
    #[error("`{text}` is not a sentence (expected a fact or `(<= head body…)`)")]
    NotASentence {
        /// The expression.
        text: String,
    },
    /// A relation or function name that is not a symbol (a variable, a list, `<=`).
    #[error("{what} name must be a symbol, found `{found}` in `{text}`")]
    BadName {
        /// `relation` or `function`.
        what: &'static str,
        /// The offending name.
        found: String,
        /// The enclosing expression.
        text: String,
    },
    /// `()` used as a term or sentence.
    #[error("empty list `()` in `{text}`")]
    EmptyList {
        /// The enclosing expression.
        text: String,
    },
    /// A keyword (`not`, `distinct`, `<=`, `true`, `does`, …) with the wrong number of
    /// arguments.
    #[error("`{keyword}` takes {expected} argument{}, found {found} in `{text}`",
        if *expected == 1 { "" } else { "s" })]
    KeywordArity {
        /// The keyword.
        keyword: String,
        /// Arguments it takes.
        expected: usize,
        /// Arguments written.
        found: usize,
        /// The offending expression.
        text: String,
    },
    /// A connective (`not`, `or`, `distinct`, `<=`) where an atom is required (rule head,
    /// fact, term).
    #[error("`{keyword}` cannot stand here ({place}) in `{text}`")]
    MisplacedConnective {
        /// The connective.
        keyword: String,
        /// `rule head`, `fact` or `term`.
        place: &'static str,
        /// The offending expression.
        text: String,
    },
    /// Expanding `or` to disjunctive normal form would give too many rules.
    #[error("`or` expands to more than {limit} rules in `{rule}`")]
    OrTooLarge {
        /// The limit.
        limit: usize,
        /// The rule.
        rule: String,
    },
    /// The `or` expansions of the whole file would give too many rules.
    #[error(
        "`or` expansions come to more than {limit} rules in all at `{rule}` (every rule \
         with an `or` becomes one rule per alternative): write the disjunctions as helper \
         relations, one rule per alternative, e.g. `(<= h a) (<= h b)` for `(or a b)`"
    )]
    OrTotalTooLarge {
        /// The limit.
        limit: usize,
        /// The rule whose expansion passed it.
        rule: String,
    },
    /// A rule body longer than the readers support.
    #[error(
        "rule body has {literals} literals, more than the {limit} a rule may have here; \
         split it into helper relations of at most {limit} literals each, in `{rule}`"
    )]
    BodyTooLong {
        /// The limit.
        limit: usize,
        /// Literals in the body.
        literals: usize,
        /// The rule.
        rule: String,
    },
    /// A variable of the head, of a `not` or of a `distinct`/equality is not bound by a
    /// positive literal of the body.
    #[error(
        "unsafe variable {var} (in {place}, not bound by a positive literal) in rule `{rule}`"
    )]
    UnsafeVariable {
        /// The variable, with its `?`.
        var: String,
        /// `the head`, `a not`, `a distinct` or `a (not (distinct …))`.
        place: &'static str,
        /// The rule.
        rule: String,
    },
    /// Negation through recursion that is not even stratified rule by rule.
    #[error("unstratified negation: `{negated}` depends on `{head}`, which this rule defines through `(not {negated})`, in rule `{rule}`")]
    NegativeCycle {
        /// The relation of the rule head (`name/arity`).
        head: String,
        /// The negated relation on the cycle (`name/arity`).
        negated: String,
        /// A rule on the cycle.
        rule: String,
    },
    /// `does` reaches `legal`, `terminal`, `goal` or `init` through a chain of rules.
    #[error("`{target}` depends on `does` (through {chain}) in rule `{rule}`")]
    DoesReaches {
        /// The keyword relation reached (`legal`, `goal`, …).
        target: String,
        /// The dependency chain, e.g. `legal/2 -> p/1 -> does/2`.
        chain: String,
        /// The rule of `target` on the chain.
        rule: String,
    },
    /// `init` depends on `true` (it is evaluated before any state exists).
    #[error("`init` depends on `true` (through {chain}), but the initial state is computed with no state, in rule `{rule}`")]
    InitReadsTrue {
        /// The dependency chain, e.g. `init/1 -> s/1 -> true/1`.
        chain: String,
        /// The rule of `init` on the chain.
        rule: String,
    },
    /// `next`, `init` (or `base`/`input`) … used in a rule body; `true`/`does` in a head.
    #[error("`{keyword}` cannot be used in a rule {place}, in rule `{rule}`")]
    KeywordPlacement {
        /// The keyword.
        keyword: String,
        /// `body` or `head`.
        place: &'static str,
        /// The rule.
        rule: String,
    },
    /// GDL-II: `sees` in a rule body (also under `not`/`or`); percepts are not part of the
    /// state, so only rule heads may define them.
    #[error("`{atom}` in a rule body: GDL-II allows `sees` only in rule heads (percepts are sent to players, not part of the state), in rule `{rule}`")]
    SeesInBody {
        /// The `sees` atom.
        atom: String,
        /// The rule.
        rule: String,
    },
    /// A `role` sentence that is not a fact with a constant argument, or a duplicate role.
    #[error("{problem} in `{rule}`")]
    BadRole {
        /// What is wrong.
        problem: &'static str,
        /// The sentence.
        rule: String,
    },
    /// A ground goal value that is not an integer 0..=100.
    #[error("goal value `{value}` is not an integer from 0 to 100 in rule `{rule}`")]
    BadGoalValue {
        /// The value as written (lower case).
        value: String,
        /// The rule.
        rule: String,
    },
    /// More `role` facts than the playout RNG can address; located at the first one over.
    #[error("role number {} is one too many: at most {limit} roles (the playout RNG holds the role in 8 bits), in `{rule}`", limit + 1)]
    TooManyRoles {
        /// The most roles a game may have ([`propnet_netlist::rng::MAX_ROLES`]).
        limit: usize,
        /// The first `role` fact over the limit.
        rule: String,
    },
    /// No `role` fact at all.
    #[error("the game has no `role` facts")]
    NoRoles,
}

/// A warning: something legal but suspicious (arity conflicts, undefined relations,
/// recursion-restriction violations, negation that is only locally stratified).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// Where.
    pub loc: Loc,
    /// What.
    pub message: String,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: warning: {}", self.loc, self.message)
    }
}
