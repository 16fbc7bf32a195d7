//! The one game-loading pipeline every subcommand uses: read → parse → check → ground →
//! optimize → validate, with timings and sizes for reports. A `.json` file is read as a
//! netlist written by `propnet compile` instead of GDL (then only optimize → validate).

use propnet_compiler::gdl::{self, Game};
use propnet_compiler::ground::{self, CompileOptions, GroundError};
use propnet_compiler::kif::SourceFile;
use propnet_netlist::passes::{self, OptimizeOptions, PassReport};
use propnet_netlist::{from_json, JsonError, Netlist, NetlistStats, ValidNetlist, ValidateError};
use std::path::Path;
use std::time::{Duration, Instant};

/// Options of [`load_netlist`].
#[derive(Clone, Debug, Default)]
pub struct PipelineOptions {
    /// Grounding limits.
    pub ground: CompileOptions,
    /// Skip the optimization passes (raw grounded netlist).
    pub no_optimize: bool,
    /// Optimization options.
    pub optimize: OptimizeOptions,
}

/// What loading a game cost and produced.
#[derive(Clone, Debug)]
pub struct CompileReport {
    /// Game file as given.
    pub path: String,
    /// Roles in order.
    pub roles: Vec<String>,
    /// Front-end warnings, formatted with file:line:column.
    pub warnings: Vec<String>,
    /// Parse + check time.
    pub parse_time: Duration,
    /// Grounding + netlist building time.
    pub ground_time: Duration,
    /// Optimization time.
    pub optimize_time: Duration,
    /// Netlist size before optimization.
    pub grounded: NetlistStats,
    /// Final netlist size.
    pub stats: NetlistStats,
    /// Pass report, when optimization ran.
    pub passes: Option<PassReport>,
    /// The grounder's report (sizes, per-relation contributions), for GDL input.
    pub grounding: Option<ground::CompileReport>,
    /// The rules as read, for GDL input: `--stats` locates relations in them without
    /// reading the file again (a FIFO gives its text once).
    pub source: Option<SourceFile>,
}

impl CompileReport {
    /// Total compile time.
    pub fn total_time(&self) -> Duration {
        self.parse_time + self.ground_time + self.optimize_time
    }

    /// What the grounder enumerated when it grounded over the states play reaches
    /// ([`ground::Explored`]); `None` for a netlist from relaxed reachability or a netlist
    /// file.
    pub fn explored(&self) -> Option<&ground::Explored> {
        self.grounding.as_ref()?.explored.as_ref()
    }
}

/// Why a game could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum PipelineError {
    /// Reading, parsing or checking failed (message has file:line:column).
    #[error(transparent)]
    Gdl(#[from] gdl::GdlError),
    /// A `.json` file that is not a valid netlist.
    #[error("{path}: {source}")]
    Netlist {
        /// The file.
        path: String,
        /// What is wrong with it.
        source: JsonError,
    },
    /// A text netlist (`propnet compile --emit text`) that does not read back.
    #[error("{path}{}{source}", if matches!(source, propnet_netlist::TextError::Syntax { .. }) { ":" } else { ": " })]
    TextNetlist {
        /// The file.
        path: String,
        /// What is wrong with it (`line:column: …`).
        source: propnet_netlist::TextError,
    },
    /// Grounding failed.
    #[error("{location}{source}")]
    Ground {
        /// `file:line:column: ` of the offending rule, or `file: `.
        location: String,
        /// The grounder's error (boxed: it carries the budget's sizes and keeps every
        /// pipeline `Result` small).
        source: Box<GroundError>,
    },
    /// The game has more roles than the playout RNG can address.
    #[error("{path}: {source}")]
    TooManyRoles {
        /// Game file.
        path: String,
        /// [`ValidateError::TooManyRoles`].
        source: ValidateError,
    },
    /// A command that needs GDL rules was given a compiled netlist.
    #[error(
        "{path} is a compiled netlist, not GDL rules: `{command}` needs the game's .kif file \
         (`run`, `compile`, `perft`, `bench`, `solve`, `best`, `hdl`, `match` with in-process \
         players, and `trace`/`verify --engine netlist` take netlists)"
    )]
    NotRules {
        /// The netlist file.
        path: String,
        /// The command (and engine) that needs rules.
        command: String,
    },
    /// A DOT drawing of a netlist ([`propnet_netlist::to_dot`]) where a game or netlist
    /// was expected.
    #[error(
        "{path} is a DOT drawing of a netlist (`propnet compile --emit dot`), which cannot be \
         read back: give the game's .kif file, or a netlist written as JSON or text"
    )]
    Drawing {
        /// The file.
        path: String,
    },
    /// The final netlist broke an invariant (a compiler bug).
    #[error("{path}: internal error: compiled netlist is invalid: {source}")]
    Invalid {
        /// Game file.
        path: String,
        /// The violated invariant.
        source: ValidateError,
    },
}

/// Loads the game at `path` and compiles it into a validated, optimized netlist (the one
/// validation of the pipeline; its [`propnet_netlist::NetlistInfo`] travels with it). A
/// netlist file ([`is_netlist_file`]: see [`propnet_netlist::to_json`]) is
/// optimized like a grounded one unless `opts.no_optimize` or it is marked
/// [`propnet_netlist::Netlist::optimized`], and its report has no warnings
/// and a zero grounding time.
///
/// # Errors
/// [`PipelineError`] with the file location of the offending rule or term;
/// `PATH: cannot read file: …` ([`gdl::GdlError::Io`]) when the file cannot be read.
pub fn load_netlist(
    path: &Path,
    opts: &PipelineOptions,
) -> Result<(ValidNetlist, CompileReport), PipelineError> {
    let t0 = Instant::now();
    // Read once: a FIFO or a device gives its bytes to one reader only.
    let bytes = gdl::read_file(path)?;
    refuse_drawing(path, &bytes)?;
    if holds_netlist(path, &bytes) {
        return load_json(path, bytes, opts);
    }
    let game = gdl::parse_source(&path.display().to_string(), &bytes)?;
    compile_game(&game, t0.elapsed(), opts)
}

/// Whether `path` holds a compiled netlist ([`propnet_netlist::to_json`], or the text form
/// of [`propnet_netlist::to_text`]) rather than GDL rules: its name ends in `.json` (any
/// case), or its text starts with `{` or with `role r0` (or `gdl II`), which no KIF file does (so
/// `propnet compile -o game.pnet` output is recognized too, in either form). An unreadable
/// file counts as rules, so that the front end reports why it cannot be read.
pub fn is_netlist_file(path: &Path) -> bool {
    holds_netlist(path, head_of(path).as_bytes())
}

/// [`is_netlist_file`] for the file at `path` whose first bytes (or all) are `bytes`.
fn holds_netlist(path: &Path, bytes: &[u8]) -> bool {
    if path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("json"))
    {
        return true;
    }
    let head = head_text(bytes);
    let head = without_bom(&head);
    head.trim_start().starts_with('{') || starts_text_netlist(head)
}

/// The first 512 of `bytes` as text (invalid UTF-8 replaced).
fn head_text(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    String::from_utf8_lossy(&bytes[..bytes.len().min(512)])
}

/// `text` without a leading byte-order mark (which some editors write, and which is no
/// whitespace to `trim_start`).
fn without_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

/// The first bytes of `path` (empty when it cannot be read: the front end says why).
fn head_of(path: &Path) -> String {
    use std::io::Read;
    let mut head = [0u8; 512];
    let n = std::fs::File::open(path)
        .and_then(|mut f| f.read(&mut head))
        .unwrap_or(0);
    String::from_utf8_lossy(&head[..n]).into_owned()
}

/// [`PipelineError::Drawing`] when the file at `path`, whose bytes are `bytes`, starts like
/// a DOT graph (`digraph`), which no KIF file or netlist does.
fn refuse_drawing(path: &Path, bytes: &[u8]) -> Result<(), PipelineError> {
    match without_bom(&head_text(bytes))
        .trim_start()
        .starts_with("digraph")
    {
        true => Err(PipelineError::Drawing {
            path: path.display().to_string(),
        }),
        false => Ok(()),
    }
}

/// Whether `text` begins like [`propnet_netlist::to_text`]'s output (`role r0 "…"`, after
/// `gdl II` for a GDL-II game), which no KIF file does (a sentence there starts with `(`, a
/// bare `role` or `gdl` atom is no sentence).
fn starts_text_netlist(text: &str) -> bool {
    let mut words = text.split_whitespace().peekable();
    if words.peek() == Some(&"gdl") {
        words.next();
        if words.next() != Some("II") {
            return false;
        }
    }
    words.next() == Some("role")
        && words.next().is_some_and(|w| {
            w.strip_prefix('r')
                .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
        })
}

/// Loads GDL rules for a command that needs them (not a netlist); a compiled netlist is
/// refused with advice instead of a parse error at its first brace.
///
/// # Errors
/// [`gdl::GdlError`] from the front end; [`PipelineError::NotRules`] for a netlist file.
pub fn load_rules(path: &Path, command: &str) -> Result<Game, PipelineError> {
    let bytes = gdl::read_file(path)?;
    refuse_drawing(path, &bytes)?;
    if holds_netlist(path, &bytes) {
        return Err(PipelineError::NotRules {
            path: path.display().to_string(),
            command: command.to_string(),
        });
    }
    Ok(gdl::parse_source(&path.display().to_string(), &bytes)?)
}

/// The netlist branch of [`load_netlist`]: `bytes` read from `path`.
fn load_json(
    path: &Path,
    bytes: Vec<u8>,
    opts: &PipelineOptions,
) -> Result<(ValidNetlist, CompileReport), PipelineError> {
    let name = path.display().to_string();
    let t0 = Instant::now();
    let text = String::from_utf8(bytes).map_err(|e| gdl::GdlError::Io {
        path: path.to_path_buf(),
        error: std::io::Error::new(std::io::ErrorKind::InvalidData, e),
    })?;
    let text = without_bom(&text);
    let net = if starts_text_netlist(text) {
        propnet_netlist::from_text(text).map_err(|source| PipelineError::TextNetlist {
            path: name.clone(),
            source,
        })?
    } else {
        from_json(text).map_err(|source| PipelineError::Netlist {
            path: name.clone(),
            source,
        })?
    };
    let times = (t0.elapsed(), Duration::ZERO);
    optimize_and_report(net, name, Vec::new(), times, opts)
}

/// Compiles an already loaded game (see [`load_netlist`]); `parse_time` is reported as is.
///
/// # Errors
/// As [`load_netlist`], without the front-end errors.
pub fn compile_game(
    game: &Game,
    parse_time: Duration,
    opts: &PipelineOptions,
) -> Result<(ValidNetlist, CompileReport), PipelineError> {
    let name = game.source.name().to_string();
    let t1 = Instant::now();
    let (net, grounding) =
        ground::compile_with_report(&game.program, &opts.ground).map_err(|source| {
            let location = match source.span() {
                Some(span) => format!("{}: ", game.source.loc(span.start)),
                None => format!("{name}: "),
            };
            PipelineError::Ground {
                location,
                source: Box::new(source),
            }
        })?;
    let warnings = game.warnings.iter().map(|w| w.to_string()).collect();
    let (net, mut report) =
        optimize_and_report(net, name, warnings, (parse_time, t1.elapsed()), opts)?;
    report.grounding = Some(grounding);
    report.source = Some(game.source.clone());
    Ok((net, report))
}

/// The common tail of both loaders: runs the passes (unless `opts.no_optimize`), validates
/// and reports; `times` are the parse and grounding times.
fn optimize_and_report(
    mut net: Netlist,
    path: String,
    warnings: Vec<String>,
    (parse_time, ground_time): (Duration, Duration),
    opts: &PipelineOptions,
) -> Result<(ValidNetlist, CompileReport), PipelineError> {
    let grounded = net.stats();
    let t0 = Instant::now();
    // A `propnet compile` output is already at the passes' fixpoint: they would change nothing.
    let passes =
        (!opts.no_optimize && !net.optimized).then(|| passes::optimize(&mut net, &opts.optimize));
    let optimize_time = t0.elapsed();
    let net = ValidNetlist::new(net).map_err(|source| match source {
        ValidateError::TooManyRoles { .. } => PipelineError::TooManyRoles {
            path: path.clone(),
            source,
        },
        source => PipelineError::Invalid {
            path: path.clone(),
            source,
        },
    })?;
    let report = CompileReport {
        path,
        roles: net.roles.iter().map(|r| r.name.clone()).collect(),
        warnings,
        parse_time,
        ground_time,
        optimize_time,
        grounded,
        stats: net.stats(),
        passes,
        grounding: None,
        source: None,
    };
    Ok((net, report))
}

#[cfg(test)]
mod tests {
    use super::*;
    use propnet_netlist::to_json;

    fn temp_file(name: &str, text: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("propnet-pipeline-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let path = dir.join(name);
        std::fs::write(&path, text).expect("write temp file");
        path
    }

    #[test]
    fn json_netlists_load_through_the_same_pipeline() {
        let net = crate::fixtures::tictactoe();
        let path = temp_file("ttt.json", &to_json(&net));
        let raw = PipelineOptions {
            no_optimize: true,
            ..Default::default()
        };
        let (same, report) = load_netlist(&path, &raw).unwrap();
        assert_eq!(to_json(&same), to_json(&net));
        assert!(report.passes.is_none() && report.warnings.is_empty());
        assert_eq!(report.roles, ["xplayer", "oplayer"].map(String::from));
        let (opt, report) = load_netlist(&path, &PipelineOptions::default()).unwrap();
        assert!(report.passes.is_some());
        let size = |n: &Netlist| n.logic_gate_count() + n.stats().edges;
        assert!(size(&opt) <= size(&net), "gates plus edges grew");
        assert_eq!(opt.roles.len(), net.roles.len());
        // What `propnet compile` writes is at the passes' fixpoint: loading it again skips them.
        assert!(opt.optimized && !net.optimized);
        let compiled = temp_file("ttt-opt.json", &to_json(&opt));
        let (again, report) = load_netlist(&compiled, &PipelineOptions::default()).unwrap();
        assert!(report.passes.is_none());
        assert_eq!(to_json(&again), to_json(&opt));
        let mut rerun = (*again).clone();
        let passes = propnet_netlist::passes::optimize(&mut rerun, &Default::default());
        assert!(passes.steps.iter().all(|s| !s.changed), "fixpoint changed");
    }

    #[test]
    fn netlists_are_recognized_by_content_whatever_their_name() {
        let net = crate::fixtures::tictactoe();
        for name in ["ttt.pnet", "TTT.JSON", "ttt"] {
            let path = temp_file(name, &format!("\n  {}", to_json(&net)));
            assert!(is_netlist_file(&path), "{name}");
            let (loaded, _) = load_netlist(&path, &PipelineOptions::default()).unwrap();
            assert_eq!(loaded.roles.len(), 2, "{name}");
            let e = load_rules(&path, "check").unwrap_err();
            assert!(e.to_string().contains("is a compiled netlist"), "{e}");
        }
        // the text form, GDL-I and GDL-II (`gdl II` first)
        let mut gdl2 = net.clone();
        gdl2.gdl2 = true;
        for (name, n) in [("ttt.txt", &net), ("ttt2.pnet", &gdl2)] {
            let path = temp_file(name, &propnet_netlist::to_text(n));
            assert!(is_netlist_file(&path), "{name}");
            let (loaded, _) = load_netlist(&path, &PipelineOptions::default()).unwrap();
            assert_eq!(loaded.gdl2, n.gdl2, "{name}");
        }
        assert!(!starts_text_netlist("gdl III\nrole r0 \"x\""));
        let rules = temp_file("ttt.kif", "; a comment\n(role x)");
        assert!(!is_netlist_file(&rules));
        assert!(!is_netlist_file(Path::new("/no/such/file.kif")));
        let dot = temp_file("ttt.dot", &propnet_netlist::to_dot(&net));
        for e in [
            load_netlist(&dot, &PipelineOptions::default()).unwrap_err(),
            load_rules(&dot, "check").unwrap_err(),
        ] {
            assert!(
                e.to_string().contains("is a DOT drawing of a netlist"),
                "{e}"
            );
        }
    }

    #[test]
    fn unreadable_and_malformed_files_name_the_path() {
        let missing = std::env::temp_dir().join("propnet-no-such-dir/game.json");
        let e = load_netlist(&missing, &PipelineOptions::default()).unwrap_err();
        assert!(
            e.to_string()
                .starts_with(&format!("{}: cannot read file: ", missing.display())),
            "{e}"
        );
        let bad = temp_file("bad.json", "{\"roles\": 3}");
        let e = load_netlist(&bad, &PipelineOptions::default()).unwrap_err();
        assert!(
            e.to_string()
                .starts_with(&format!("{}: netlist JSON: ", bad.display())),
            "{e}"
        );
    }
}
