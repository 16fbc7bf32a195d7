//! The game manager: runs one GGP match with players over HTTP (and in-process ones),
//! following ggp-base's `GameServer`: START to every remote player (start clock + grace),
//! then PLAY rounds until a terminal state, then STOP with the last joint move. A reply
//! that is late (`TO`), never comes (`CE`) or is not a legal move spelled as in the rules
//! (`IL <reply>`) is recorded in `errors` and replaced by a random legal move. A START
//! answered with anything but `ready` (`NR <reply>`: the player is busy with another
//! match, or refused the rules) leaves that player out of the match: it gets no PLAY, STOP
//! or ABORT, and every move of its role is the manager's, recorded `NR`. Match ids are
//! unique per manager run ([`match_id`]), so a player still in an earlier match never
//! takes a new match's messages for its own. The referee is the compiled netlist when the game compiles, else the reference interpreter.

use super::message::canonical_move;
use super::record::{now_millis, GameMetaData, MatchRecord};
use super::spelling::Spelling;
use propnet_compiler::kif::{self, SExpr, SourceFile};
use propnet_mcts::hidden::HiddenPlayer;
use propnet_mcts::player::Player;
use propnet_netlist::rng::{choose, key, threefry2x32_20};
use propnet_netlist::{InputId, Netlist, ValidNetlist};
use propnet_runtime::machine::{GameMachine, InterpMachine, MachineError, NetMachine};
use std::time::{Duration, Instant};

/// Longest reply text an `IL` error of a record keeps (bytes); the rest is cut, with a
/// note of how much, so a player replying megabytes cannot bloat the records.
pub const MAX_RECORDED_REPLY: usize = 200;

/// Key offset of the manager's random replacement moves.
pub(crate) const MANAGER_KEY: u64 = 0x6d61_6e61_6765_7221;

/// Who plays a role.
pub enum Seat {
    /// A GGP player at this URL (`http://HOST:PORT`).
    Remote(String),
    /// Uniform random legal moves, chosen in-process (works with either referee); the seed
    /// is mixed with the match's seed, so each game of a match differs.
    Random(u64),
    /// An in-process player over the netlist (needs a compiled game).
    Local(Box<dyn Player>),
    /// An in-process player of a game with hidden information (GDL-II matches only): it
    /// is told its own moves and percepts, as a remote player is.
    Hidden(Box<dyn HiddenPlayer>),
    /// The GDL-II `random` role, played by the manager (uniform over its legal moves).
    Chance,
}

impl Seat {
    fn name(&self) -> String {
        match self {
            Seat::Remote(u) => u.clone(),
            Seat::Random(_) => "random".into(),
            Seat::Local(p) => p.label(),
            Seat::Hidden(p) => p.label(),
            Seat::Chance => "random (the manager)".into(),
        }
    }
}

/// Clocks and limits of a match.
#[derive(Clone, Debug)]
pub struct ManagerOptions {
    /// Start clock, seconds.
    pub start_clock: u64,
    /// Play clock, seconds.
    pub play_clock: u64,
    /// Extra time before a reply counts as late (ggp-base allows 1 s on PLAY).
    pub grace: Duration,
    /// Abort the match after this many joint moves.
    pub max_moves: u32,
    /// Seed of the replacement moves and random seats.
    pub seed: u64,
}

/// The game as sent to players: its sentences (case kept) and their spellings.
pub struct GameText {
    /// Game name (file stem).
    pub name: String,
    /// The sentences as read from the file.
    pub rules: Vec<SExpr>,
    /// First spelling of every symbol.
    pub spelling: Spelling,
}

impl GameText {
    /// Reads the sentences of a game file's text.
    ///
    /// # Errors
    /// The KIF reader's error (with line:column).
    pub fn new(name: &str, text: &[u8]) -> Result<Self, String> {
        let src = SourceFile::new(name, text).map_err(|e| e.to_string())?;
        let rules = kif::parse(&src).map_err(|e| e.to_string())?;
        let spelling = Spelling::from_rules(&rules);
        Ok(Self {
            name: name.to_string(),
            rules,
            spelling,
        })
    }

    /// The rules as one space-separated text.
    pub fn rulesheet(&self) -> String {
        self.rules
            .iter()
            .map(kif::print)
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// The manager's state machine for the game.
pub enum Referee {
    /// The compiled netlist.
    Net(Box<ValidNetlist>),
    /// The reference interpreter (the game did not compile).
    Interp(Box<InterpMachine>),
}

/// What one remote reply was.
pub(crate) struct Outcome {
    reply: Option<String>,
    error: Option<&'static str>,
    millis: f64,
}

/// Longest reply read from a player, bytes: a move is a few dozen; a reply past this is
/// recorded as an illegal move (its first bytes are not a legal one) without reading the
/// rest into memory.
pub const MAX_REPLY_BYTES: u64 = 64 << 10;

/// Sends one message and waits at most `timeout` for the reply.
pub(crate) fn post(url: &str, body: &str, timeout: Duration) -> Outcome {
    let t = Instant::now();
    let receiver = url
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .to_string();
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(timeout))
        .http_status_as_error(false)
        .build()
        .into();
    let res = agent
        .post(url)
        .header("Content-Type", "text/acl")
        .header("Sender", "GAMESERVER")
        .header("Receiver", receiver.as_str())
        .send(body)
        .and_then(|mut r| {
            r.body_mut()
                .with_config()
                .limit(MAX_REPLY_BYTES)
                .read_to_string()
        });
    let millis = t.elapsed().as_secs_f64() * 1000.0;
    match res {
        Ok(text) => Outcome {
            reply: Some(text),
            error: None,
            millis,
        },
        Err(ureq::Error::BodyExceedsLimit(_)) => Outcome {
            reply: Some(format!("(a reply of more than {MAX_REPLY_BYTES} bytes)")),
            error: None,
            millis,
        },
        Err(ureq::Error::Timeout(_)) => Outcome {
            reply: None,
            error: Some("TO"),
            millis,
        },
        Err(_) => Outcome {
            reply: None,
            error: Some("CE"),
            millis,
        },
    }
}

/// Sends `bodies[i]` to every remote seat `i` at once; in-process seats get `None`.
pub(crate) fn broadcast(
    seats: &[Seat],
    bodies: &[String],
    timeout: Duration,
) -> Vec<Option<Outcome>> {
    std::thread::scope(|s| {
        let handles: Vec<_> = seats
            .iter()
            .zip(bodies)
            .map(|(seat, body)| match seat {
                Seat::Remote(url) => Some(s.spawn(move || post(url, body, timeout))),
                _ => None,
            })
            .collect();
        handles.into_iter().map(|h| h.map(join_outcome)).collect()
    })
}

/// Plays one match with `seats` (role order) and returns its record.
///
/// # Errors
/// A referee evaluation error, or an in-process seat the referee cannot serve.
pub fn play_match(
    referee: &mut Referee,
    game: &GameText,
    seats: &mut [Seat],
    id: &str,
    opts: &ManagerOptions,
) -> Result<MatchRecord, String> {
    for (r, seat) in seats.iter_mut().enumerate() {
        if let Seat::Local(p) = seat {
            p.new_game(r, opts.seed);
        }
    }
    match referee {
        Referee::Net(net) => {
            let net: &Netlist = net;
            let mut model = NetMachine::new(net);
            let mut local = |seat: &mut Seat,
                             state: &Vec<bool>,
                             role: usize,
                             legal: &[Vec<InputId>]| match seat {
                Seat::Local(p) => p.choose(net, state, role, legal).map_err(|e| e.to_string()),
                _ => Err("not an in-process seat".to_string()),
            };
            run(&mut model, game, seats, id, opts, &mut local)
        }
        Referee::Interp(model) => {
            let mut local = |_: &mut Seat, _: &_, _: usize, _: &[Vec<_>]| {
                Err("in-process search players need a compiled game; use `random` or an http:// player".to_string())
            };
            run(model.as_mut(), game, seats, id, opts, &mut local)
        }
    }
}

/// A seat's chooser for in-process players.
type LocalChooser<'a, G> = dyn FnMut(
        &mut Seat,
        &<G as GameMachine>::State,
        usize,
        &[Vec<<G as GameMachine>::Move>],
    ) -> Result<<G as GameMachine>::Move, String>
    + 'a;

/// The match loop over any referee state machine.
fn run<G: GameMachine>(
    model: &mut G,
    game: &GameText,
    seats: &mut [Seat],
    id: &str,
    opts: &ManagerOptions,
    local: &mut LocalChooser<'_, G>,
) -> Result<MatchRecord, String> {
    let err = |e: MachineError| e.to_string();
    let roles = model.role_count();
    if seats.len() != roles {
        return Err(format!("{} seats for {roles} roles", seats.len()));
    }
    let role_names = role_spellings(game, roles);
    let mut rec = new_record(game, seats, id, opts, &role_names);
    let mut state = model.initial_state().map_err(err)?;
    push_state(&mut rec, model, &state, &game.spelling);
    let joined = send_start(&mut rec, seats, game, &role_names, id, opts);
    let mut previous: Option<Vec<String>> = None;
    let end = loop {
        let view = model.view(&state).map_err(err)?;
        if view.terminal {
            break "terminal";
        }
        if view.legal.iter().any(Vec::is_empty) {
            break "no legal move";
        }
        if rec.moves.len() as u32 >= opts.max_moves {
            break "move limit";
        }
        let step = rec.moves.len() as u32;
        let texts: Vec<Vec<String>> = view
            .legal
            .iter()
            .map(|ms| {
                ms.iter()
                    .map(|&m| game.spelling.respell(&model.move_text(m)))
                    .collect()
            })
            .collect();
        let body = format!("(PLAY {id} {})", moves_text(previous.as_deref()));
        let out = broadcast_joined(seats, &joined, &body, play_timeout(opts));
        let mut joint = Vec::with_capacity(roles);
        let mut errors = Vec::with_capacity(roles);
        let mut millis = Vec::with_capacity(roles);
        for r in 0..roles {
            let (choice, error, ms) = match (&mut seats[r], &out[r]) {
                (Seat::Remote(_), _) if !joined[r] => (None, "NR".to_string(), None),
                (Seat::Remote(_), Some(o)) => judge(o, &texts[r]),
                (Seat::Random(seed), _) => {
                    let i =
                        random_index(*seed ^ opts.seed.rotate_left(32), step, r, texts[r].len());
                    (Some(i), String::new(), None)
                }
                (seat, _) => {
                    let m = local(seat, &state, r, &view.legal)?;
                    let i = view.legal[r].iter().position(|&x| x == m);
                    (i, String::new(), None)
                }
            };
            let i = choice
                .unwrap_or_else(|| random_index(opts.seed ^ MANAGER_KEY, step, r, texts[r].len()));
            joint.push(view.legal[r][i]);
            errors.push(error);
            millis.push(ms);
        }
        let spelled: Vec<String> = joint
            .iter()
            .map(|&m| game.spelling.respell(&model.move_text(m)))
            .collect();
        state = model.next_state(&state, &joint).map_err(err)?;
        rec.moves.push(spelled.clone());
        rec.errors.push(errors);
        rec.reply_millis.push(millis);
        push_state(&mut rec, model, &state, &game.spelling);
        previous = Some(spelled);
    };
    rec.goal_values = model.view(&state).map_err(err)?.goals;
    rec.end = end.to_string();
    rec.is_completed = end == "terminal";
    rec.is_aborted = !rec.is_completed;
    let last = if rec.is_completed {
        format!("(STOP {id} {})", moves_text(previous.as_deref()))
    } else {
        format!("(ABORT {id})")
    };
    broadcast_joined(seats, &joined, &last, play_timeout(opts));
    Ok(rec)
}

/// Sends `body` to every remote seat in the match (`joined`); the others get `None`.
fn broadcast_joined(
    seats: &[Seat],
    joined: &[bool],
    body: &str,
    timeout: Duration,
) -> Vec<Option<Outcome>> {
    broadcast_each(seats, joined, &|_| body, timeout)
}

/// Sends `body(i)` to every remote seat `i` in the match (`joined`) at once; the others
/// get `None`.
pub(crate) fn broadcast_each<'b>(
    seats: &[Seat],
    joined: &[bool],
    body: &(dyn Fn(usize) -> &'b str + Sync),
    timeout: Duration,
) -> Vec<Option<Outcome>> {
    std::thread::scope(|s| {
        let handles: Vec<_> = seats
            .iter()
            .zip(joined)
            .enumerate()
            .map(|(i, (seat, &j))| match seat {
                Seat::Remote(url) if j => {
                    let body = body(i);
                    Some(s.spawn(move || post(url, body, timeout)))
                }
                _ => None,
            })
            .collect();
        handles.into_iter().map(|h| h.map(join_outcome)).collect()
    })
}

/// The outcome of a sending thread (`CE` if it panicked).
pub(crate) fn join_outcome(h: std::thread::ScopedJoinHandle<'_, Outcome>) -> Outcome {
    h.join().unwrap_or(Outcome {
        reply: None,
        error: Some("CE"),
        millis: 0.0,
    })
}

/// `NIL` or `(m1 … mn)`.
fn moves_text(moves: Option<&[String]>) -> String {
    moves.map_or("NIL".to_string(), |ms| format!("({})", ms.join(" ")))
}

/// How long a PLAY, STOP or ABORT reply may take: play clock + grace.
pub(crate) fn play_timeout(opts: &ManagerOptions) -> Duration {
    Duration::from_secs(opts.play_clock) + opts.grace
}

/// Sends START to every remote seat and records its errors and latencies. Returns, per
/// seat, whether it is in the match (false for a remote seat that answered other than
/// `ready`).
pub(crate) fn send_start(
    rec: &mut MatchRecord,
    seats: &[Seat],
    game: &GameText,
    role_names: &[String],
    id: &str,
    opts: &ManagerOptions,
) -> Vec<bool> {
    let rules = format!("({})", game.rulesheet());
    let starts: Vec<String> = role_names
        .iter()
        .map(|r| {
            format!(
                "(START {id} {r} {rules} {} {})",
                opts.start_clock, opts.play_clock
            )
        })
        .collect();
    let timeout = Duration::from_secs(opts.start_clock) + opts.grace;
    let out = broadcast(seats, &starts, timeout);
    rec.errors
        .push(out.iter().map(|o| start_error(o.as_ref())).collect());
    rec.reply_millis.push(
        out.iter()
            .map(|o| o.as_ref().filter(|o| o.reply.is_some()).map(|o| o.millis))
            .collect(),
    );
    out.iter()
        .map(|o| o.as_ref().is_none_or(|o| !not_ready(o)))
        .collect()
}

/// Whether a START reply came and was not `ready` (case and spaces aside).
fn not_ready(o: &Outcome) -> bool {
    o.reply
        .as_deref()
        .is_some_and(|r| !r.trim().eq_ignore_ascii_case("ready"))
}

/// The recorded error of a START reply: `""`, `TO`, `CE`, or `NR <reply>` for a reply
/// other than `ready` (cut like an `IL` reply).
fn start_error(o: Option<&Outcome>) -> String {
    match o {
        Some(o) if not_ready(o) => {
            format!("NR {}", bounded(o.reply.as_deref().unwrap_or("").trim()))
        }
        Some(o) => o.error.unwrap_or("").to_string(),
        None => String::new(),
    }
}

/// A match id unique per manager run, as ggp-base makes them: `propnet.GAME.RUN.G`, with
/// the game's name (characters other than letters, digits, `-` and `_` as `_`, at most 40),
/// `run` a tag of this run ([`run_tag`]) and `g` the game's index in the run.
pub fn match_id(game: &str, run: &str, g: u64) -> String {
    let name: String = game
        .chars()
        .take(40)
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("propnet.{name}.{run}.{g}")
}

/// A tag that differs between manager runs: the start time in milliseconds since the
/// epoch and the process id (two runs started in the same millisecond differ by pid).
pub fn run_tag() -> String {
    format!("{}-{}", now_millis(), std::process::id())
}

/// Remote players given the same URL (`urls` per role, `None` for in-process seats; a
/// trailing `/` and letter case aside): `(first role, other role, url)` for each repeat. A
/// GGP player plays one match at a time, so such a player would answer `busy` for one of
/// its roles.
pub fn repeated_urls(urls: &[Option<&str>]) -> Vec<(usize, usize, String)> {
    let key = |u: &str| u.trim_end_matches('/').to_ascii_lowercase();
    let mut repeats = Vec::new();
    for (j, b) in urls.iter().enumerate() {
        let Some(ub) = b else { continue };
        let first = urls[..j]
            .iter()
            .position(|a| a.is_some_and(|ua| key(ua) == key(ub)));
        if let Some(i) = first {
            repeats.push((i, j, ub.to_string()));
        }
    }
    repeats
}

/// Judges a remote reply against the legal moves (spelled as in the rules, compared as
/// text like ggp-base): the legal index, the error code, and the latency when a reply came.
pub(crate) fn judge(o: &Outcome, legal: &[String]) -> (Option<usize>, String, Option<f64>) {
    let Some(reply) = &o.reply else {
        return (None, o.error.unwrap_or("CE").to_string(), None);
    };
    let parsed = SourceFile::new("reply", reply.as_bytes())
        .ok()
        .and_then(|src| kif::parse(&src).ok());
    let text = match parsed.as_deref() {
        Some([e]) => kif::print(e),
        _ => reply.trim().to_string(),
    };
    let late = o.error == Some("TO");
    match legal.iter().position(|m| *m == text) {
        Some(i) if !late => (Some(i), String::new(), Some(o.millis)),
        _ => (None, format!("IL {}", bounded(&text)), Some(o.millis)),
    }
}

/// `text`, or its first [`MAX_RECORDED_REPLY`] bytes (at a character boundary) and
/// `… [N more bytes cut]`.
fn bounded(text: &str) -> String {
    if text.len() <= MAX_RECORDED_REPLY {
        return text.to_string();
    }
    let mut cut = MAX_RECORDED_REPLY;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}… [{} more bytes cut]", &text[..cut], text.len() - cut)
}

/// A random index below `n` from the project RNG.
pub(crate) fn random_index(seed: u64, step: u32, role: usize, n: usize) -> usize {
    let x = threefry2x32_20(key(seed), [step, role as u32])[0];
    choose(x, n as u32) as usize
}

/// Role names as spelled in the rules, in role order.
pub(crate) fn role_spellings(game: &GameText, roles: usize) -> Vec<String> {
    let mut names = Vec::new();
    for e in &game.rules {
        if let SExpr::List { items, .. } = e {
            if let [SExpr::Atom { text: k, .. }, SExpr::Atom { text: r, .. }] = items.as_slice() {
                if k.eq_ignore_ascii_case("role")
                    && !names.iter().any(|n: &String| n.eq_ignore_ascii_case(r))
                {
                    names.push(r.clone());
                }
            }
        }
    }
    names.resize(roles.max(names.len()), String::new());
    names
}

pub(crate) fn new_record(
    game: &GameText,
    seats: &[Seat],
    id: &str,
    opts: &ManagerOptions,
    roles: &[String],
) -> MatchRecord {
    MatchRecord {
        match_id: id.to_string(),
        random_token: format!("{:016x}", opts.seed),
        start_time: now_millis(),
        game_meta_url: String::new(),
        game_meta_data: GameMetaData {
            game_name: game.name.clone(),
            rulesheet: game.rulesheet(),
            role_names: roles.to_vec(),
            num_roles: roles.len(),
        },
        is_completed: false,
        is_aborted: false,
        states: Vec::new(),
        moves: Vec::new(),
        state_times: Vec::new(),
        errors: Vec::new(),
        goal_values: Vec::new(),
        preview_clock: -1,
        start_clock: opts.start_clock,
        play_clock: opts.play_clock,
        player_names_from_host: seats.iter().map(Seat::name).collect(),
        scrambled: false,
        reply_millis: Vec::new(),
        end: String::new(),
        percepts: Vec::new(),
    }
}

fn push_state<G: GameMachine>(
    rec: &mut MatchRecord,
    model: &G,
    state: &G::State,
    spelling: &Spelling,
) {
    let fluents: Vec<String> = model
        .state_fluents(state)
        .iter()
        .map(|f| spelling.respell(f))
        .collect();
    rec.states.push(format!("( {} )", fluents.join(" ")));
    rec.state_times.push(now_millis());
}

/// Canonical (case-folded) text of a reply, for logs and tests.
pub fn canonical_reply(reply: &str) -> Option<String> {
    let src = SourceFile::new("reply", reply.as_bytes()).ok()?;
    match kif::parse(&src).ok()?.as_slice() {
        [e] => Some(canonical_move(e)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply(text: String) -> Outcome {
        Outcome {
            reply: Some(text),
            error: None,
            millis: 1.0,
        }
    }

    /// A player on 127.0.0.1 answering one request with `body`; the thread serves that one
    /// request only and gives up after 10 s without one (waiting for the connection and
    /// reading it are both bounded), so joining it never hangs.
    fn one_reply_server(body: Vec<u8>) -> (String, std::thread::JoinHandle<()>) {
        use std::io::{Read, Write};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind loopback");
        let url = format!("http://{}/", listener.local_addr().expect("address"));
        listener.set_nonblocking(true).expect("non-blocking accept");
        let thread = std::thread::spawn(move || {
            let until = Instant::now() + Duration::from_secs(10);
            let mut conn = loop {
                match listener.accept() {
                    Ok((conn, _)) => break conn,
                    Err(_) if Instant::now() < until => {
                        std::thread::sleep(Duration::from_millis(5))
                    }
                    Err(_) => return,
                }
            };
            let _ = conn.set_nonblocking(false);
            let _ = conn.set_read_timeout(Some(Duration::from_secs(5)));
            let mut request = [0u8; 4096];
            let _ = conn.read(&mut request);
            let head = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: text/acl\r\nContent-Length: {}\r\n\r\n",
                body.len()
            );
            let _ = conn.write_all(head.as_bytes());
            let _ = conn.write_all(&body);
        });
        (url, thread)
    }

    #[test]
    fn a_reply_past_the_size_limit_is_an_illegal_move_not_read_whole() {
        let big = vec![b'a'; MAX_REPLY_BYTES as usize + 1];
        let (url, thread) = one_reply_server(big);
        let out = post(&url, "(PLAY m nil)", Duration::from_secs(10));
        let _ = thread.join();
        assert_eq!(out.error, None);
        let text = out.reply.expect("a reply");
        assert!(text.contains("more than 65536 bytes"), "{text:.80}");
        let (choice, error, _) = judge(&reply(text), &["(mark 1 1)".to_string()]);
        assert_eq!(choice, None);
        assert!(error.starts_with("IL (a reply of more than"), "{error}");
        // a reply within the limit is read as sent
        let (url, thread) = one_reply_server(b"(mark 1 1)".to_vec());
        let out = post(&url, "(PLAY m nil)", Duration::from_secs(10));
        let _ = thread.join();
        assert_eq!(out.reply.as_deref(), Some("(mark 1 1)"));
    }

    #[test]
    fn a_huge_illegal_reply_is_recorded_cut_to_a_bounded_length() {
        let legal = vec!["(mark 1 1)".to_string()];
        let huge = format!("({})", "a ".repeat(2_500_000));
        let (choice, error, _) = judge(&reply(huge.clone()), &legal);
        assert_eq!(choice, None);
        assert!(error.starts_with("IL (a a a"), "{error:.80}");
        assert!(
            error.len() < MAX_RECORDED_REPLY + 60,
            "recorded {} bytes",
            error.len()
        );
        assert!(error.ends_with(" more bytes cut]"), "{error}");
        // a short illegal reply is kept whole; a legal one is no error
        let (_, error, _) = judge(&reply("(mark 9 9)".into()), &legal);
        assert_eq!(error, "IL (mark 9 9)");
        let (choice, error, _) = judge(&reply("(mark 1 1)".into()), &legal);
        assert_eq!((choice, error.as_str()), (Some(0), ""));
        // cutting never splits a character
        let wide = "é".repeat(MAX_RECORDED_REPLY);
        let (_, error, _) = judge(&reply(wide), &legal);
        assert!(
            error.ends_with(&format!("[{} more bytes cut]", MAX_RECORDED_REPLY)),
            "{error}"
        );
    }
}
