//! The seats of `propnet match` as a GDL-II game manager (`--protocol gdl2`, the default
//! for a GDL-II game): `http://` players hear the GDL-II protocol, in-process players are
//! the GDL-II ones (`random`, `belief:…`, `pimc:…`), and the manager plays `random`.

use super::manage::player_url;
use super::r#match::MatchArgs;
use anyhow::bail;
use propnet_ggp::manager::{Referee, Seat};

/// One seat per player spec for the roles other than `random`, and those roles (in role
/// order; the players rotate over them).
///
/// # Errors
/// The game did not compile (the GDL-II manager referees over the netlist), a bad player
/// spec (an `mcts` player reads the true state: refused).
pub fn seats(
    args: &MatchArgs,
    referee: &Referee,
) -> anyhow::Result<(Vec<Option<Seat>>, Vec<usize>)> {
    let Referee::Net(net) = referee else {
        bail!(
            "{}: a match under the GDL-II protocol is refereed over the compiled netlist \
             (percepts, beliefs), but the game did not compile (see above); raise \
             --ground-atoms/--ground-seconds",
            args.game.display()
        );
    };
    let seated = super::r#match::seated_roles(net);
    let seats = (args.players.iter().enumerate())
        .map(|(i, spec)| {
            let seed = args.seed.wrapping_add(i as u64 * 0x1_0000_0001);
            Ok(Some(match spec.starts_with("http://") {
                true => Seat::Remote(player_url(spec)?),
                false => Seat::Hidden(super::match_hidden::make_hidden_player(
                    spec, net, &args.mcts, seed,
                )?),
            }))
        })
        .collect::<anyhow::Result<_>>()?;
    Ok((seats, seated))
}
