//! The game manager under the GDL-II protocol (the Dresden GameController's): the
//! manager holds the true state over the compiled netlist, plays the `random` role itself
//! (uniformly over its legal moves, with the project RNG) and sends each player only what
//! its role may know: `(PLAY id turn lastmove percepts)` with its own last move and its
//! own percepts (`NIL` when none), and at the end `(STOP id turn lastmove percepts)`.
//! Everything else (START, clocks, `TO`/`CE`/`IL`/`NR` errors, replacement moves, the
//! match record) is as in [`super::manager`]. A GDL-I game can be played this way too:
//! GDL-I tells every player every move, so each player's percepts are every role's move,
//! `(did ROLE MOVE)` (GDL-II's way to write a game without hidden information), and an
//! in-process belief player sees them as the joint move (the netlist has no percepts: it
//! takes in its own move only).

use super::manager::{
    broadcast_each, judge, new_record, play_timeout, random_index, role_spellings, send_start,
    GameText, ManagerOptions, Seat, MANAGER_KEY,
};
use super::record::{now_millis, MatchRecord};
use propnet_mcts::hidden::random_role;
use propnet_netlist::playout::{goals_of, legal_of};
use propnet_netlist::scalar::ScalarNet;
use propnet_netlist::{InputId, Netlist};
use propnet_runtime::machine::NetMachine;

/// Key offset of the `random` role's draws.
const CHANCE_KEY: u64 = 0x7261_6e64_6f6d_2121;

/// What one role heard of the last step, spelled as in the rules: its own move and its
/// percepts.
#[derive(Clone, Default)]
struct Heard {
    own: Option<String>,
    percepts: Vec<String>,
}

impl Heard {
    /// `KEYWORD id turn lastmove percepts`, the GDL-II message.
    fn message(&self, keyword: &str, id: &str, turn: usize) -> String {
        let own = self.own.as_deref().unwrap_or("NIL");
        let percepts = match self.percepts.is_empty() {
            true => "NIL".to_string(),
            false => format!("({})", self.percepts.join(" ")),
        };
        format!("({keyword} {id} {turn} {own} {percepts})")
    }
}

/// Plays one GDL-II match of `net` (the compiled `game`) with `seats` in role order
/// ([`Seat::Chance`] for the `random` role; remote, random and [`Seat::Hidden`] seats for
/// the others) and returns its record.
///
/// # Errors
/// A seat count other than the role count, a [`Seat::Local`] (a perfect-information
/// player would read the hidden state), a seat other than [`Seat::Chance`] for `random`
/// or `Chance` for another role, an in-process player's backend error.
pub fn play_gdl2_match(
    net: &Netlist,
    game: &GameText,
    seats: &mut [Seat],
    id: &str,
    opts: &ManagerOptions,
) -> Result<MatchRecord, String> {
    check_seats(net, seats)?;
    let roles = net.roles.len();
    for (r, seat) in seats.iter_mut().enumerate() {
        if let Seat::Hidden(p) = seat {
            p.new_game(net, r, opts.seed);
        }
    }
    let role_names = role_spellings(game, roles);
    let mut rec = new_record(game, seats, id, opts, &role_names);
    let machine = NetMachine::new(net);
    let mut scalar = ScalarNet::new(net);
    let mut state = net.initial_state();
    push_state(&mut rec, &machine, &state, game);
    let joined = send_start(&mut rec, seats, game, &role_names, id, opts);
    let mut heard = vec![Heard::default(); roles];
    let end = loop {
        let values = scalar.view(&state);
        let legal = legal_of(net, values);
        if values[net.terminal.index()] {
            break "terminal";
        }
        if legal.iter().any(Vec::is_empty) {
            break "no legal move";
        }
        if rec.moves.len() as u32 >= opts.max_moves {
            break "move limit";
        }
        let joint = joint_move(
            net, game, seats, &joined, &heard, &legal, id, opts, &mut rec,
        )?;
        let (next, percepts) = scalar.next_with_percepts(net, &state, &joint);
        let moves = rec.moves.last().cloned().unwrap_or_default();
        for (r, seat) in seats.iter_mut().enumerate() {
            if let Seat::Hidden(p) = seat {
                p.observe(net, joint[r], &percepts[r]);
            }
            heard[r] = Heard {
                own: Some(moves[r].clone()),
                percepts: match net.gdl2 {
                    true => (percepts[r].iter())
                        .map(|&i| spelled(game, &net.roles[r].percepts[i].name))
                        .collect(),
                    false => every_move(&role_names, &moves),
                },
            };
        }
        rec.percepts
            .push(heard.iter().map(|h| h.percepts.clone()).collect());
        state = next;
        push_state(&mut rec, &machine, &state, game);
    };
    rec.goal_values = goals_of(net, scalar.view(&state));
    rec.end = end.to_string();
    rec.is_completed = end == "terminal";
    rec.is_aborted = !rec.is_completed;
    let turn = rec.moves.len();
    let last: Vec<String> = (0..roles)
        .map(|r| match rec.is_completed {
            true => heard[r].message("STOP", id, turn),
            false => format!("(ABORT {id})"),
        })
        .collect();
    broadcast_each(seats, &joined, &|r| &last[r], play_timeout(opts));
    Ok(rec)
}

/// One joint move: a PLAY to every remote seat (its own last move and percepts), the
/// in-process seats' choices, the manager's draw for `random`; records the moves, errors
/// and latencies in `rec`.
#[allow(clippy::too_many_arguments)]
fn joint_move(
    net: &Netlist,
    game: &GameText,
    seats: &mut [Seat],
    joined: &[bool],
    heard: &[Heard],
    legal: &[Vec<InputId>],
    id: &str,
    opts: &ManagerOptions,
    rec: &mut MatchRecord,
) -> Result<Vec<InputId>, String> {
    let step = rec.moves.len() as u32;
    let texts: Vec<Vec<String>> = (legal.iter())
        .map(|ms| {
            (ms.iter())
                .map(|m| spelled(game, &net.inputs[m.index()].name))
                .collect()
        })
        .collect();
    let bodies: Vec<String> = (heard.iter())
        .map(|h| h.message("PLAY", id, step as usize))
        .collect();
    let out = broadcast_each(seats, joined, &|r| &bodies[r], play_timeout(opts));
    let (mut joint, mut moves) = (Vec::new(), Vec::new());
    let (mut errors, mut millis) = (Vec::new(), Vec::new());
    for (r, seat) in seats.iter_mut().enumerate() {
        let n = legal[r].len();
        let (choice, error, ms) = match (seat, &out[r]) {
            (Seat::Remote(_), _) if !joined[r] => (None, "NR".to_string(), None),
            (Seat::Remote(_), Some(o)) => judge(o, &texts[r]),
            (Seat::Random(seed), _) => {
                let i = random_index(*seed ^ opts.seed.rotate_left(32), step, r, n);
                (Some(i), String::new(), None)
            }
            (Seat::Chance, _) => (
                Some(random_index(opts.seed ^ CHANCE_KEY, step, r, n)),
                String::new(),
                None,
            ),
            (Seat::Hidden(p), _) => {
                let m = p.choose(net, &legal[r]).map_err(|e| e.to_string())?;
                (legal[r].iter().position(|&x| x == m), String::new(), None)
            }
            (_, _) => (None, "CE".to_string(), None),
        };
        let i = choice.unwrap_or_else(|| random_index(opts.seed ^ MANAGER_KEY, step, r, n));
        joint.push(legal[r][i]);
        moves.push(texts[r][i].clone());
        errors.push(error);
        millis.push(ms);
    }
    rec.moves.push(moves);
    rec.errors.push(errors);
    rec.reply_millis.push(millis);
    Ok(joint)
}

/// Refuses seats that do not fit a GDL-II match of `net` (see [`play_gdl2_match`]).
fn check_seats(net: &Netlist, seats: &[Seat]) -> Result<(), String> {
    if seats.len() != net.roles.len() {
        return Err(format!(
            "{} seats for {} roles",
            seats.len(),
            net.roles.len()
        ));
    }
    for (r, seat) in seats.iter().enumerate() {
        let is_random = random_role(net) == Some(r);
        match seat {
            Seat::Chance if !is_random => {
                return Err(format!("role {} is not `random`", net.roles[r].name))
            }
            Seat::Chance => {}
            _ if is_random => return Err("the manager plays the `random` role".into()),
            Seat::Local(p) => {
                return Err(format!(
                    "player `{}` searches the true state, which a player of a game with \
                     hidden information cannot see; use a belief player",
                    p.label()
                ))
            }
            _ => {}
        }
    }
    Ok(())
}

/// The percepts of a GDL-I game under the GDL-II protocol: every role's move,
/// `(did ROLE MOVE)`, as GDL-I informs every player of every move (in GDL-II:
/// `(<= (sees ?r (did ?p ?m)) (role ?r) (does ?p ?m))`).
fn every_move(roles: &[String], moves: &[String]) -> Vec<String> {
    (roles.iter().zip(moves))
        .map(|(r, m)| format!("(did {r} {m})"))
        .collect()
}

/// A canonical term spelled as in the rules.
fn spelled(game: &GameText, canonical: &str) -> String {
    game.spelling.respell(canonical)
}

/// Records `state` (its true fluents, spelled as in the rules) and the time.
fn push_state(rec: &mut MatchRecord, machine: &NetMachine<'_>, state: &[bool], game: &GameText) {
    let fluents: Vec<String> = (machine.state_fluents(state).iter())
        .map(|f| spelled(game, f))
        .collect();
    rec.states.push(format!("( {} )", fluents.join(" ")));
    rec.state_times.push(now_millis());
}
