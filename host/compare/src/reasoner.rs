//! Reasoner specs of `propnet compare --reasoners`: the built-in ones and external
//! commands.

use super::external::{ExternalCommand, ExternalError};
use std::fmt;

/// Most threads `cpu:K` accepts.
pub const MAX_THREADS: usize = 1024;

/// One reasoner to measure.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reasoner {
    /// The reference GDL interpreter.
    Interp,
    /// The scalar netlist backend.
    Reference,
    /// The bit-parallel CPU backend; `None` threads = `cpu:all`.
    Cpu(Option<usize>),
    /// The GPU backend.
    Gpu,
    /// An external command (gdl-perf convention).
    External(ExternalCommand),
}

/// A spec that does not name a reasoner.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SpecError {
    /// Not a known form.
    #[error(
        "unknown reasoner `{0}`: expected interp, reference, cpu:1, cpu:all, cpu:K, gpu or \
         ext:NAME=COMMAND"
    )]
    Unknown(String),
    /// `cpu:K` with K not in 1..=MAX_THREADS.
    #[error("`{0}`: the thread count must be a whole number from 1 to {MAX_THREADS} (or `all`)")]
    Threads(String),
    /// `ext:` without `NAME=COMMAND`, or a name that is empty or not a plain word.
    #[error(
        "`{0}`: an external reasoner is ext:NAME=COMMAND, NAME made of letters, digits, `-`, `_`, `.`"
    )]
    External(String),
    /// The command does not split into words.
    #[error(transparent)]
    Command(#[from] ExternalError),
    /// Two reasoners with the same label.
    #[error("reasoner `{0}` is given twice")]
    Duplicate(String),
}

impl Reasoner {
    /// Parses one spec: `interp`, `reference` (or `ref`), `cpu:1`, `cpu:all`, `cpu:K`,
    /// `gpu`, `ext:NAME=COMMAND`.
    ///
    /// # Errors
    /// [`SpecError`] naming the spec.
    pub fn parse(spec: &str) -> Result<Self, SpecError> {
        let s = spec.trim();
        if let Some(rest) = s.strip_prefix("ext:") {
            return Self::external(spec, rest);
        }
        match s.to_ascii_lowercase().as_str() {
            "interp" => Ok(Reasoner::Interp),
            "reference" | "ref" => Ok(Reasoner::Reference),
            "gpu" => Ok(Reasoner::Gpu),
            "cpu" | "cpu:all" => Ok(Reasoner::Cpu(None)),
            l => match l.strip_prefix("cpu:") {
                Some(k) => match k.parse::<usize>() {
                    Ok(k) if (1..=MAX_THREADS).contains(&k) => Ok(Reasoner::Cpu(Some(k))),
                    _ => Err(SpecError::Threads(spec.to_string())),
                },
                None => Err(SpecError::Unknown(spec.to_string())),
            },
        }
    }

    /// `NAME=COMMAND` (the part after `ext:`, or the value of `--ext`).
    ///
    /// # Errors
    /// [`SpecError::External`] or [`SpecError::Command`].
    pub fn external(spec: &str, name_command: &str) -> Result<Self, SpecError> {
        let (name, command) = name_command
            .split_once('=')
            .ok_or_else(|| SpecError::External(spec.to_string()))?;
        let name = name.trim();
        let plain = |c: char| c.is_ascii_alphanumeric() || "-_.".contains(c);
        if name.is_empty() || !name.chars().all(plain) {
            return Err(SpecError::External(spec.to_string()));
        }
        Ok(Reasoner::External(ExternalCommand::parse(name, command)?))
    }

    /// Parses a comma separated list (see [`Reasoner::parse`]).
    ///
    /// # Errors
    /// The first spec's [`SpecError`].
    pub fn parse_list(list: &str) -> Result<Vec<Self>, SpecError> {
        list.split(',')
            .filter(|s| !s.trim().is_empty())
            .map(Self::parse)
            .collect()
    }

    /// The label in tables and files: `interp`, `reference`, `cpu:1`, `cpu:all`, `gpu`, or
    /// the external's NAME.
    pub fn label(&self) -> String {
        match self {
            Reasoner::Interp => "interp".into(),
            Reasoner::Reference => "reference".into(),
            Reasoner::Cpu(Some(k)) => format!("cpu:{k}"),
            Reasoner::Cpu(None) => "cpu:all".into(),
            Reasoner::Gpu => "gpu".into(),
            Reasoner::External(c) => c.name.clone(),
        }
    }

    /// `interp`, `netlist` or `external`.
    pub fn kind(&self) -> &'static str {
        match self {
            Reasoner::Interp => "interp",
            Reasoner::External(_) => "external",
            _ => "netlist",
        }
    }

    /// True for the reasoners that run the compiled netlist.
    pub fn uses_netlist(&self) -> bool {
        self.kind() == "netlist"
    }
}

impl fmt::Display for Reasoner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.label())
    }
}

/// Checks that no two reasoners share a label.
///
/// # Errors
/// [`SpecError::Duplicate`] with the label.
pub fn check_unique(list: &[Reasoner]) -> Result<(), SpecError> {
    let mut seen = std::collections::HashSet::new();
    for r in list {
        if !seen.insert(r.label()) {
            return Err(SpecError::Duplicate(r.label()));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse_and_bad_ones_say_why() {
        let l = Reasoner::parse_list("interp, ref,cpu:1,cpu:all,CPU:4,gpu").unwrap();
        assert_eq!(
            l,
            [
                Reasoner::Interp,
                Reasoner::Reference,
                Reasoner::Cpu(Some(1)),
                Reasoner::Cpu(None),
                Reasoner::Cpu(Some(4)),
                Reasoner::Gpu
            ]
        );
        let e = Reasoner::parse("ext:pl=sh 'my adapter.sh' --fast").unwrap();
        let Reasoner::External(c) = &e else {
            panic!("external")
        };
        assert_eq!(c.argv, ["sh", "my adapter.sh", "--fast"]);
        assert_eq!(e.label(), "pl");
        for bad in ["cpu:0", "cpu:-1", "cpu:1e3", "cpu:99999", "cpu:nan"] {
            assert!(
                matches!(Reasoner::parse(bad), Err(SpecError::Threads(_))),
                "{bad}"
            );
        }
        assert!(matches!(Reasoner::parse("tpu"), Err(SpecError::Unknown(_))));
        assert!(matches!(
            Reasoner::parse("ext:foo"),
            Err(SpecError::External(_))
        ));
        assert!(matches!(
            Reasoner::parse("ext:a b=x"),
            Err(SpecError::External(_))
        ));
        assert!(matches!(
            Reasoner::parse("ext:a="),
            Err(SpecError::Command(_))
        ));
        let dup = Reasoner::parse_list("cpu:1,cpu:1").unwrap();
        assert!(matches!(check_unique(&dup), Err(SpecError::Duplicate(_))));
    }
}
