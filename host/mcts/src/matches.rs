//! The match runner: plays games between players, rotating seats, and summarises each
//! player's score with a 95% confidence interval.

use crate::player::Player;
use propnet_netlist::rng::{choose, key, threefry2x32_20};
use propnet_netlist::{InputId, Netlist};
use propnet_runtime::backend::BackendError;
use propnet_runtime::machine::{NetMachine, State};
use serde::Serialize;

/// The seat of a role no player holds: the referee plays it (GDL-II's `random`).
pub const CHANCE_SEAT: usize = usize::MAX;

/// Mixed into a game's index to key the referee's draws for a chance role.
const CHANCE_KEY: u64 = 0x6368_616e_6365;

/// Seats as JSON: a player index, or `null` for [`CHANCE_SEAT`].
fn seats_json<S: serde::Serializer>(seats: &[usize], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(seats.iter().map(|&p| (p != CHANCE_SEAT).then_some(p)))
}

/// One played game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct GameRecord {
    /// Game index within the match.
    pub index: u64,
    /// Per role (role order), the index of the player in that seat; [`CHANCE_SEAT`] for
    /// a role the referee plays (GDL-II's `random`; `null` in JSON).
    #[serde(serialize_with = "seats_json")]
    pub seats: Vec<usize>,
    /// Joint moves, one per step: per role, the move text.
    pub moves: Vec<Vec<String>>,
    /// How many of `moves` were the game's random opening ([`random_opening`]), played
    /// before the players chose.
    pub opening: usize,
    /// Goal value per role (0..=100) at the end.
    pub goals: Vec<u8>,
    /// How the game ended: `terminal`, `no legal move`, `step limit` or `interrupted` (a
    /// [`propnet_runtime::stop`] request; such a game is not a finished one).
    pub end: String,
}

impl GameRecord {
    /// The score (goal) of player `p` in this game.
    pub fn score_of(&self, p: usize) -> Option<u8> {
        self.seats
            .iter()
            .position(|&s| s == p)
            .map(|r| self.goals[r])
    }
}

/// Seat of each role in game `g` when `players` players rotate over `roles` roles: role `r`
/// is played by player `(r + g) % players`.
pub fn seats_for(game: u64, roles: usize, players: usize) -> Vec<usize> {
    (0..roles).map(|r| (r + game as usize) % players).collect()
}

/// Joint moves for the first `plies` steps of a game, each role's move uniform among its
/// legal moves (project RNG keyed by `seed`, counter = step and role); shorter when the game
/// ends first. A match plays each opening once per seat rotation, so that deterministic
/// players meet in different positions (without one, two fixed-seed searches replay the
/// same few games) and no seat gets the better openings.
pub fn random_opening(net: &Netlist, plies: u32, seed: u64) -> Vec<Vec<InputId>> {
    let m = NetMachine::new(net);
    let mut state: State = m.initial_state();
    let mut opening = Vec::new();
    for step in 0..plies {
        let view = m.view_of(&state);
        if view.ends() {
            break;
        }
        let joint: Vec<InputId> = view
            .legal
            .iter()
            .enumerate()
            .map(|(r, ms)| {
                let x = threefry2x32_20(key(seed), [step, r as u32])[0];
                ms[choose(x, ms.len() as u32) as usize]
            })
            .collect();
        state = m.next_state(&state, &joint);
        opening.push(joint);
    }
    opening
}

/// Plays one game from the initial state; stops at a terminal state, when a role has no
/// legal move, or after `max_steps` joint moves (scoring the goals of the state reached).
/// A role seated at [`CHANCE_SEAT`] (a `random` role) moves uniformly at random, drawn by
/// the referee.
///
/// # Errors
/// A [`BackendError`] from a player's backend.
pub fn play_game(
    net: &Netlist,
    players: &mut [Box<dyn Player>],
    seats: &[usize],
    index: u64,
    max_steps: u32,
) -> Result<GameRecord, BackendError> {
    play_game_from(net, players, seats, index, max_steps, &[])
}

/// [`play_game`] whose first joint moves are `opening` (legal ones, e.g. a
/// [`random_opening`]), played before the players choose; they count toward `max_steps`.
///
/// # Errors
/// A [`BackendError`] from a player's backend.
pub fn play_game_from(
    net: &Netlist,
    players: &mut [Box<dyn Player>],
    seats: &[usize],
    index: u64,
    max_steps: u32,
    opening: &[Vec<InputId>],
) -> Result<GameRecord, BackendError> {
    let m = NetMachine::new(net);
    for (r, &p) in seats.iter().enumerate() {
        if p != CHANCE_SEAT {
            players[p].new_game(r, index);
        }
    }
    let mut state: State = m.initial_state();
    let mut moves = Vec::new();
    let end = loop {
        if m.is_terminal(&state) {
            break "terminal";
        }
        if moves.len() as u32 >= max_steps {
            break "step limit";
        }
        if propnet_runtime::stop::requested() {
            break "interrupted";
        }
        let legal = m.legal_moves(&state);
        if legal.iter().any(Vec::is_empty) {
            break "no legal move";
        }
        let joint = match opening.get(moves.len()) {
            Some(forced) => forced.clone(),
            None => {
                let mut joint = Vec::with_capacity(seats.len());
                for (r, &p) in seats.iter().enumerate() {
                    joint.push(match p {
                        CHANCE_SEAT => {
                            let step = moves.len() as u32;
                            let x = threefry2x32_20(key(index ^ CHANCE_KEY), [step, r as u32])[0];
                            legal[r][choose(x, legal[r].len() as u32) as usize]
                        }
                        _ => players[p].choose(net, &state, r, &legal)?,
                    });
                }
                joint
            }
        };
        moves.push(joint.iter().map(|&i| m.move_name(i).to_string()).collect());
        state = m.next_state(&state, &joint);
    };
    Ok(GameRecord {
        index,
        seats: seats.to_vec(),
        opening: opening.len().min(moves.len()),
        moves,
        goals: m.goals(&state),
        end: end.to_string(),
    })
}

/// Mean and 95% confidence half-width of a sample (Student t for small samples). As JSON:
/// `{"n", "mean", "ci95"}` with `ci95` null when n < 2 (no interval).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Estimate {
    /// Sample size.
    pub n: usize,
    /// Sample mean.
    pub mean: f64,
    /// Half-width of the 95% confidence interval for the mean (0 when n < 2).
    pub ci95: f64,
}

impl Serialize for Estimate {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut st = s.serialize_struct("Estimate", 3)?;
        st.serialize_field("n", &self.n)?;
        st.serialize_field("mean", &self.mean)?;
        st.serialize_field("ci95", &(self.n >= 2).then_some(self.ci95))?;
        st.end()
    }
}

impl Estimate {
    /// Estimate of the mean of `xs`.
    pub fn of(xs: &[f64]) -> Self {
        let n = xs.len();
        if n == 0 {
            return Self {
                n,
                mean: 0.0,
                ci95: 0.0,
            };
        }
        let mean = xs.iter().sum::<f64>() / n as f64;
        if n < 2 {
            return Self { n, mean, ci95: 0.0 };
        }
        let var = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1) as f64;
        Self {
            n,
            mean,
            ci95: t95(n - 1) * (var / n as f64).sqrt(),
        }
    }
    /// Lower end of the interval.
    pub fn low(&self) -> f64 {
        self.mean - self.ci95
    }
    /// Upper end of the interval.
    pub fn high(&self) -> f64 {
        self.mean + self.ci95
    }

    /// The estimate for people, for values bounded by `lo..=hi` (goals: 0..=100):
    /// `mean ± half-width (95% CI, n=N)`; when the interval reaches past the bounds, its
    /// ends clipped to them, `mean in [low, high] (95% CI clipped to lo..hi, n=N)`; with
    /// fewer than 2 values there is no interval, `mean (n=1, no interval)`.
    pub fn describe(&self, lo: f64, hi: f64) -> String {
        let mean = self.mean;
        match self.n {
            0 => "no games".to_string(),
            1 => format!("{mean:6.2} (n=1, no interval)"),
            n if self.low() < lo || self.high() > hi => format!(
                "{mean:6.2} in [{:.2}, {:.2}] (95% CI clipped to {lo}..{hi}, n={n})",
                self.low().max(lo),
                self.high().min(hi)
            ),
            n => format!("{mean:6.2} ± {:5.2} (95% CI, n={n})", self.ci95),
        }
    }
}

/// Two-sided 95% quantile of Student's t with `df` degrees of freedom (table, then 1.96).
fn t95(df: usize) -> f64 {
    const T: [f64; 30] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
        2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
        2.052, 2.048, 2.045, 2.042,
    ];
    match df {
        0 => f64::INFINITY,
        1..=30 => T[df - 1],
        31..=60 => 2.000,
        61..=120 => 1.980,
        _ => 1.960,
    }
}

/// Each player's score (goal 0..=100) estimate over `games`.
pub fn player_scores(games: &[GameRecord], players: usize) -> Vec<Estimate> {
    (0..players)
        .map(|p| {
            Estimate::of(
                &games
                    .iter()
                    .filter_map(|g| g.score_of(p))
                    .map(f64::from)
                    .collect::<Vec<_>>(),
            )
        })
        .collect()
}

/// Each player's mean score per complete seat rotation (the games of index
/// `k·players .. (k+1)·players`, which play every seat once), estimated over the
/// rotations: in a match whose rotations share their chance draws (a GDL-II match: one
/// deal per rotation) this is the duplicate format's paired estimate, free of the deals'
/// luck, so its interval is tighter than [`player_scores`]'. Rotations missing a game are
/// left out.
pub fn rotation_scores(games: &[GameRecord], players: usize) -> Vec<Estimate> {
    let players = players.max(1);
    let mut rotations: std::collections::BTreeMap<u64, Vec<&GameRecord>> = Default::default();
    for g in games {
        rotations
            .entry(g.index / players as u64)
            .or_default()
            .push(g);
    }
    (0..players)
        .map(|p| {
            let means: Vec<f64> = (rotations.values())
                .filter(|r| r.len() == players)
                .map(|r| {
                    let s: Vec<f64> = r
                        .iter()
                        .filter_map(|g| g.score_of(p))
                        .map(f64::from)
                        .collect();
                    s.iter().sum::<f64>() / s.len().max(1) as f64
                })
                .collect();
            Estimate::of(&means)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rotation_scores_pair_the_games_of_a_rotation() {
        let game = |index: u64, seats: Vec<usize>, goals: Vec<u8>| GameRecord {
            index,
            seats,
            opening: 0,
            moves: Vec::new(),
            goals,
            end: "terminal".into(),
        };
        // two deals: the first won by whoever sits first, the second drawn; the last
        // rotation lacks its second game
        let games = [
            game(0, vec![0, 1], vec![100, 0]),
            game(1, vec![1, 0], vec![100, 0]),
            game(2, vec![0, 1], vec![50, 50]),
            game(3, vec![1, 0], vec![50, 50]),
            game(4, vec![0, 1], vec![100, 0]),
        ];
        let r = rotation_scores(&games, 2);
        assert_eq!((r[0].n, r[0].mean, r[0].ci95), (2, 50.0, 0.0));
        assert_eq!((r[1].n, r[1].mean), (2, 50.0));
        let plain = player_scores(&games, 2);
        assert!(plain[0].ci95 > 10.0 && plain[0].n == 5);
    }

    #[test]
    fn estimate_uses_student_t_and_seats_rotate() {
        let e = Estimate::of(&[0.0, 100.0, 50.0, 50.0]);
        assert_eq!(e.mean, 50.0);
        // s = sqrt(5000/3), t(3) = 3.182, half-width = t·s/2.
        assert!((e.ci95 - 3.182 * (5000.0f64 / 3.0).sqrt() / 2.0).abs() < 1e-9);
        assert!(e.low() < 0.0 && e.high() > 100.0);
        assert_eq!(Estimate::of(&[70.0]).ci95, 0.0);
        let json = |e: Estimate| serde_json::to_value(e).expect("serializes");
        assert_eq!(json(Estimate::of(&[70.0]))["ci95"], serde_json::Value::Null);
        assert!(json(Estimate::of(&[70.0, 30.0]))["ci95"].is_f64());
        assert_eq!(seats_for(0, 2, 2), vec![0, 1]);
        assert_eq!(seats_for(1, 2, 2), vec![1, 0]);
        assert_eq!(seats_for(2, 3, 3), vec![2, 0, 1]);
    }

    /// A random opening is legal, reproducible from its seed, stops where the game ends,
    /// and is what the game record starts with.
    #[test]
    fn random_openings_are_legal_reproducible_and_played_first() {
        let net = propnet_runtime::fixtures::tictactoe();
        let m = NetMachine::new(&net);
        let long = random_opening(&net, 20, 7);
        assert!(long.len() <= 9, "tictactoe ends within 9 joint moves");
        let mut state = m.initial_state();
        for joint in &long {
            let legal = m.legal_moves(&state);
            assert!(joint.iter().zip(&legal).all(|(mv, l)| l.contains(mv)));
            state = m.next_state(&state, joint);
        }
        assert!(m.view_of(&state).ends(), "a long opening stops at the end");
        assert_eq!(random_opening(&net, 20, 7), long);
        let openings: std::collections::HashSet<_> =
            (0..20).map(|seed| random_opening(&net, 3, seed)).collect();
        assert!(openings.len() > 10, "seeds give different openings");
        let mut players: Vec<Box<dyn Player>> = vec![
            Box::new(crate::player::RandomPlayer::new(1)),
            Box::new(crate::player::RandomPlayer::new(2)),
        ];
        let opening = random_opening(&net, 3, 11);
        let rec = play_game_from(&net, &mut players, &[0, 1], 0, 100, &opening).unwrap();
        assert_eq!(rec.opening, 3);
        let names: Vec<Vec<String>> = opening
            .iter()
            .map(|j| j.iter().map(|&i| m.move_name(i).to_string()).collect())
            .collect();
        assert_eq!(&rec.moves[..3], &names[..]);
    }

    #[test]
    fn describe_gives_no_interval_below_two_games_and_clips_to_the_goal_range() {
        let e = Estimate::of(&[0.0, 100.0, 50.0, 50.0]);
        assert_eq!(
            e.describe(0.0, 100.0),
            " 50.00 in [0.00, 100.00] (95% CI clipped to 0..100, n=4)"
        );
        assert_eq!(
            Estimate::of(&[100.0]).describe(0.0, 100.0),
            "100.00 (n=1, no interval)"
        );
        assert_eq!(
            Estimate::of(&[0.0, 100.0]).describe(0.0, 100.0),
            " 50.00 in [0.00, 100.00] (95% CI clipped to 0..100, n=2)"
        );
        let narrow = Estimate::of(&[40.0, 50.0, 60.0, 50.0]);
        assert_eq!(
            narrow.describe(0.0, 100.0),
            format!(" 50.00 ± {:5.2} (95% CI, n=4)", narrow.ci95)
        );
        assert_eq!(Estimate::of(&[]).describe(0.0, 100.0), "no games");
    }
}
