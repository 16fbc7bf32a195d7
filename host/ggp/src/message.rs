//! GGP protocol messages (the Stanford GGP / ggp-base forms) read with the project's KIF
//! reader: `(START id role (rules…) startclock playclock)`, `(PLAY id NIL|(moves…))`,
//! `(STOP id NIL|(moves…))`, `(ABORT id)`, `(INFO)`, `(PREVIEW (rules…) clock)`. Keywords
//! are case-insensitive and any whitespace separates tokens.

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
    /// A move request; `moves` is the previous joint move (role order), `None` for `NIL`.
    Play {
        /// Match id.
        id: String,
        /// The previous joint move, or `None` at the first move.
        moves: Option<Vec<SExpr>>,
    },
    /// The match ended; `moves` is the last joint move (`None` for `NIL`).
    Stop {
        /// Match id.
        id: String,
        /// The last joint move.
        moves: Option<Vec<SExpr>>,
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
            arity(2)?;
            let id = symbol(&args[0], "match id")?;
            let moves = moves(&args[1])?;
            Ok(if keyword == "PLAY" {
                Message::Play { id, moves }
            } else {
                Message::Stop { id, moves }
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
                moves: None
            }
        );
        let Message::Stop {
            moves: Some(ms), ..
        } = parse_message(b"(Stop m1 ((MARK 1 2) NOOP))").unwrap()
        else {
            panic!("not STOP")
        };
        assert_eq!(canonical_move(&ms[0]), "(mark 1 2)");
        assert_eq!(canonical_move(&ms[1]), "noop");
        assert_eq!(parse_message(b"(info)").unwrap(), Message::Info);
    }

    #[test]
    fn malformed_messages_say_what_is_wrong() {
        for (body, want) in [
            (&b"(PLAY m1)"[..], "PLAY takes 2 arguments, found 1"),
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
