//! GGP protocol messages (the Stanford GGP / ggp-base forms) read with the project's KIF
//! reader: `(START id role (rules…) startclock playclock)`, `(PLAY id NIL|(moves…))`,
//! `(STOP id NIL|(moves…))`, `(ABORT id)`, `(INFO)`, `(PREVIEW (rules…) clock)`, and the
//! GDL-II forms of the Dresden GameController, `(PLAY id turn lastmove percepts)` and
//! `(STOP id turn lastmove percepts)` (a player of a game with hidden information hears
//! only its own last move and its own percepts; see [`Heard`]). Keywords are
//! case-insensitive and any whitespace separates tokens.

use propnet_compiler::gdl::lower::fold_case;
use propnet_compiler::kif::{self, SExpr, SourceFile};
use std::time::Duration;

/// Longest clock accepted, in seconds (one day); longer values are malformed.
pub const MAX_CLOCK_SECONDS: f64 = 86_400.0;

/// One message from a game manager.
#[derive(Clone, Debug, PartialEq)]
pub enum Message {
    /// A new match: its id, our role (as written), the rules, and both clocks.
    Start {
        /// Match id.
        id: String,
        /// Our role, spelled as sent.
        role: String,
        /// The game's sentences, as sent (case kept).
        rules: Vec<SExpr>,
        /// Time to the `ready` reply.
        start_clock: Duration,
        /// Time per move.
        play_clock: Duration,
    },
    /// A move request, with what the player hears of the previous step.
    Play {
        /// Match id.
        id: String,
        /// The previous joint move (GDL-I) or our own move and percepts (GDL-II).
        heard: Heard<SExpr>,
    },
    /// The match ended, with what the player hears of the last step.
    Stop {
        /// Match id.
        id: String,
        /// The last joint move (GDL-I) or our own move and percepts (GDL-II).
        heard: Heard<SExpr>,
    },
    /// The match was cancelled.
    Abort {
        /// Match id.
        id: String,
    },
    /// A status query.
    Info,
    /// The rules of a coming match, with time to look at them.
    Preview {
        /// The game's sentences.
        rules: Vec<SExpr>,
        /// Time to the `ready` reply.
        clock: Duration,
    },
}

/// What a PLAY or STOP tells the player of the step before it; `T` is a term (`SExpr` as
/// read, or its canonical text).
#[derive(Clone, Debug, PartialEq)]
pub enum Heard<T> {
    /// GDL-I (`(PLAY id moves)`): the previous joint move in role order, `None` for `NIL`
    /// (the first PLAY).
    Joint(Option<Vec<T>>),
    /// GDL-II (`(PLAY id turn lastmove percepts)`, Dresden GameController): the turn
    /// (0 at the first PLAY, one more at each later PLAY or STOP), the move the game
    /// master played for us last (`None` for `NIL`: the first PLAY; it differs from our
    /// reply when that was late or illegal) and our percepts of that step (`NIL`: none).
    Private {
        /// Turn count: 0 at the first PLAY.
        turn: u64,
        /// Our own last move as played.
        own: Option<T>,
        /// Our percepts after the last joint move.
        percepts: Vec<T>,
    },
}

impl<T> Heard<T> {
    /// The same with every term mapped by `f`.
    pub fn map<U>(self, f: impl Fn(&T) -> U) -> Heard<U> {
        match self {
            Heard::Joint(ms) => Heard::Joint(ms.map(|ms| ms.iter().map(&f).collect())),
            Heard::Private {
                turn,
                own,
                percepts,
            } => Heard::Private {
                turn,
                own: own.as_ref().map(&f),
                percepts: percepts.iter().map(&f).collect(),
            },
        }
    }

    /// True for the GDL-II form.
    pub fn is_private(&self) -> bool {
        matches!(self, Heard::Private { .. })
    }
}

impl Message {
    /// The message's keyword in upper case (`START`, `PLAY`, …).
    pub fn keyword(&self) -> &'static str {
        match self {
            Message::Start { .. } => "START",
            Message::Play { .. } => "PLAY",
            Message::Stop { .. } => "STOP",
            Message::Abort { .. } => "ABORT",
            Message::Info => "INFO",
            Message::Preview { .. } => "PREVIEW",
        }
    }

    /// The match id, for the messages that carry one.
    pub fn match_id(&self) -> Option<&str> {
        match self {
            Message::Start { id, .. }
            | Message::Play { id, .. }
            | Message::Stop { id, .. }
            | Message::Abort { id } => Some(id),
            Message::Info | Message::Preview { .. } => None,
        }
    }
}

/// Why a message could not be read. The text says what was expected.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct MessageError(pub String);

fn bad(msg: impl Into<String>) -> MessageError {
    MessageError(msg.into())
}

/// Parses one message (any bytes). The body must be exactly one list.
///
/// # Errors
/// A [`MessageError`] for KIF syntax errors (with line:column), an unknown keyword, a wrong
/// number of arguments, a non-symbol id or role, a rules or moves argument that is not a
/// list, or a clock that is not a number of seconds in `0..=86400`.
pub fn parse_message(body: &[u8]) -> Result<Message, MessageError> {
    let src = SourceFile::new("message", body).map_err(|e| bad(e.to_string()))?;
    let mut top = kif::parse(&src).map_err(|e| bad(e.to_string()))?;
    if top.len() != 1 {
        return Err(bad(format!(
            "expected one message list, found {} top-level expressions",
            top.len()
        )));
    }
    let SExpr::List { items, .. } = top.remove(0) else {
        return Err(bad("expected a message list `( KEYWORD … )`"));
    };
    let Some(keyword) = items.first().and_then(SExpr::as_atom) else {
        return Err(bad("a message starts with a keyword symbol"));
    };
    let keyword = keyword.to_ascii_uppercase();
    let args = &items[1..];
    let arity = |n: usize| {
        if args.len() == n {
            Ok(())
        } else {
            Err(bad(format!(
                "{keyword} takes {n} argument{}, found {}",
                if n == 1 { "" } else { "s" },
                args.len()
            )))
        }
    };
    match keyword.as_str() {
        "START" => {
            arity(5)?;
            Ok(Message::Start {
                id: symbol(&args[0], "match id")?,
                role: symbol(&args[1], "role")?,
                rules: list(&args[2], "rules")?,
                start_clock: clock(&args[3], "start clock")?,
                play_clock: clock(&args[4], "play clock")?,
            })
        }
        "PLAY" | "STOP" => {
            let heard = match args.len() {
                2 => Heard::Joint(moves(&args[1])?),
                4 => Heard::Private {
                    turn: turn(&args[1])?,
                    own: nil_or(&args[2]),
                    percepts: moves(&args[3])?.unwrap_or_default(),
                },
                n => {
                    return Err(bad(format!(
                        "{keyword} takes 2 arguments (GDL-I: id moves) or 4 (GDL-II: id turn \
                         lastmove percepts), found {n}"
                    )))
                }
            };
            let id = symbol(&args[0], "match id")?;
            Ok(if keyword == "PLAY" {
                Message::Play { id, heard }
            } else {
                Message::Stop { id, heard }
            })
        }
        "ABORT" => {
            arity(1)?;
            Ok(Message::Abort {
                id: symbol(&args[0], "match id")?,
            })
        }
        "INFO" => {
            arity(0)?;
            Ok(Message::Info)
        }
        "PREVIEW" => {
            arity(2)?;
            Ok(Message::Preview {
                rules: list(&args[0], "rules")?,
                clock: clock(&args[1], "preview clock")?,
            })
        }
        _ => Err(bad(format!(
            "unknown message keyword `{keyword}` (expected START, PLAY, STOP, ABORT, INFO or PREVIEW)"
        ))),
    }
}

fn symbol(e: &SExpr, what: &str) -> Result<String, MessageError> {
    match e.as_atom() {
        Some(t) if !t.starts_with('?') => Ok(t.to_string()),
        _ => Err(bad(format!(
            "the {what} must be a symbol, found `{}`",
            kif::print(e)
        ))),
    }
}

fn list(e: &SExpr, what: &str) -> Result<Vec<SExpr>, MessageError> {
    match e {
        SExpr::List { items, .. } => Ok(items.clone()),
        SExpr::Atom { text, .. } => Err(bad(format!("the {what} must be a list, found `{text}`"))),
    }
}

fn moves(e: &SExpr) -> Result<Option<Vec<SExpr>>, MessageError> {
    match e {
        SExpr::Atom { text, .. } if text.eq_ignore_ascii_case("nil") => Ok(None),
        SExpr::List { items, .. } => Ok(Some(items.clone())),
        SExpr::Atom { text, .. } => Err(bad(format!(
            "the moves must be NIL or a list of moves, found `{text}`"
        ))),
    }
}

/// `None` for the atom `NIL` (any case), else the term.
fn nil_or(e: &SExpr) -> Option<SExpr> {
    match e.as_atom() {
        Some(t) if t.eq_ignore_ascii_case("nil") => None,
        _ => Some(e.clone()),
    }
}

/// A GDL-II turn count: a whole number below 2^32.
fn turn(e: &SExpr) -> Result<u64, MessageError> {
    e.as_atom()
        .and_then(|t| t.parse::<u32>().ok())
        .map(u64::from)
        .ok_or_else(|| {
            bad(format!(
                "the turn must be a whole number (0 at the first PLAY), found `{}`",
                kif::print(e)
            ))
        })
}

fn clock(e: &SExpr, what: &str) -> Result<Duration, MessageError> {
    let text = e.as_atom().unwrap_or("");
    let secs: f64 = text.parse().map_err(|_| {
        bad(format!(
            "the {what} must be a number of seconds, found `{}`",
            kif::print(e)
        ))
    })?;
    if !(0.0..=MAX_CLOCK_SECONDS).contains(&secs) {
        return Err(bad(format!(
            "the {what} must be between 0 and {MAX_CLOCK_SECONDS} seconds, found `{text}`"
        )));
    }
    Ok(Duration::from_secs_f64(secs))
}

/// Canonical text of a move term as the models name moves: case folded, single spaces,
/// `(mark 1 2)` or `noop`.
pub fn canonical_move(e: &SExpr) -> String {
    let mut out = String::new();
    super::spelling::write_with(&mut out, e, &|t, o| o.push_str(&fold_case(t)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_parse_in_any_case_and_spacing() {
        let m =
            parse_message(b" ( start  m1 XPLAYER ((role xplayer) (init (c 1)))\n 10 2 ) ").unwrap();
        let Message::Start {
            id,
            role,
            rules,
            start_clock,
            play_clock,
        } = m
        else {
            panic!("not START")
        };
        assert_eq!((id.as_str(), role.as_str()), ("m1", "XPLAYER"));
        assert_eq!(rules.len(), 2);
        assert_eq!(start_clock, Duration::from_secs(10));
        assert_eq!(play_clock, Duration::from_secs(2));
        assert_eq!(
            parse_message(b"(PLAY m1 nil)").unwrap(),
            Message::Play {
                id: "m1".into(),
                heard: Heard::Joint(None)
            }
        );
        let Message::Stop {
            heard: Heard::Joint(Some(ms)),
            ..
        } = parse_message(b"(Stop m1 ((MARK 1 2) NOOP))").unwrap()
        else {
            panic!("not STOP")
        };
        assert_eq!(canonical_move(&ms[0]), "(mark 1 2)");
        assert_eq!(canonical_move(&ms[1]), "noop");
        assert_eq!(parse_message(b"(info)").unwrap(), Message::Info);
    }

    #[test]
    fn gdl2_messages_carry_the_turn_our_move_and_our_percepts() {
        let canon = |m: Message| match m {
            Message::Play { heard, .. } | Message::Stop { heard, .. } => heard.map(canonical_move),
            other => panic!("not PLAY or STOP: {other:?}"),
        };
        assert_eq!(
            canon(parse_message(b"(PLAY m1 0 NIL NIL)").unwrap()),
            Heard::Private {
                turn: 0,
                own: None,
                percepts: vec![]
            }
        );
        assert_eq!(
            canon(parse_message(b"(play M1 3 (MOVE A 1) ((CARD 7) Win))").unwrap()),
            Heard::Private {
                turn: 3,
                own: Some("(move a 1)".into()),
                percepts: vec!["(card 7)".into(), "win".into()]
            }
        );
        let stop = parse_message(b"(STOP m1 4 noop ())").unwrap();
        assert_eq!(stop.keyword(), "STOP");
        assert!(matches!(
            canon(stop),
            Heard::Private { turn: 4, own: Some(ref o), ref percepts } if o == "noop" && percepts.is_empty()
        ));
    }

    #[test]
    fn malformed_messages_say_what_is_wrong() {
        for (body, want) in [
            (
                &b"(PLAY m1)"[..],
                "PLAY takes 2 arguments (GDL-I: id moves) or 4",
            ),
            (
                b"(STOP m1 0 NIL)",
                "STOP takes 2 arguments (GDL-I: id moves) or 4",
            ),
            (b"(PLAY m1 -1 NIL NIL)", "turn must be a whole number"),
            (b"(PLAY m1 (1) NIL NIL)", "turn must be a whole number"),
            (b"(PLAY m1 1 noop seen)", "NIL or a list"),
            (b"(DANCE)", "unknown message keyword `DANCE`"),
            (b"(START m r (x) -1 2)", "between 0 and"),
            (b"(START m r (x) nan 2)", "between 0 and"),
            (b"(START m r (x) 1e999 2)", "between 0 and"),
            (b"(START m r x 1 2)", "rules must be a list"),
            (b"(PLAY (m) NIL)", "match id must be a symbol"),
            (b"(PLAY m1 NIL", "end of file inside this list"),
            (b"", "found 0 top-level"),
            (b"PLAY", "expected a message list"),
            (b"(INFO) (INFO)", "found 2 top-level"),
            (b"(\xff)", "invalid UTF-8"),
            (b"((PLAY) m NIL)", "starts with a keyword"),
            (b"(PLAY m1 X)", "NIL or a list"),
        ] {
            let e = parse_message(body).unwrap_err();
            assert!(e.0.contains(want), "{body:?}: {e}");
        }
    }
}
