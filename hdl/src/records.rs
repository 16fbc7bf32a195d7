//! Per-playout records read over the host bus, for designs built with a record buffer
//! ([`crate::Options::records`]): the layout of one record and its decoding into a
//! [`PlayoutRecord`].
//!
//! Each engine writes a record into its own buffer when a playout's goals leave the goal
//! pipeline (in finishing order; slot `n` holds the engine's `n`-th finished playout of the
//! run). A record of a netlist with `R` roles and `L` latches is [`record_bits`] bits, least
//! significant first:
//!
//! | bits | field |
//! |------|-------|
//! | `0 .. L` | final state, bit `l` = latch `l` |
//! | `L .. L+R` | no-legal-move flag of role `r` at bit `L + r` |
//! | `L+R` | ended by the step limit |
//! | `L+R+1` | ended in a terminal state |
//! | `L+R+2 .. L+R+34` | length (joint moves) |
//! | `L+R+34 .. L+R+66` | local playout index (the RNG's index is it + the run's base) |
//! | `L+R+66 ..` | goal of role `r` in byte `r` |
//!
//! and is read as [`record_words`] 32-bit words at [`crate::regs::RECORD_WINDOW`] after
//! writing `engine << 16 | slot` to [`crate::regs::RECORD_SELECT`].

use crate::Error;
use propnet_netlist::playout::{pack_state, PlayoutEnd, PlayoutRecord};

/// Bits of one record of a netlist with `roles` roles and `latches` latches.
pub fn record_bits(roles: usize, latches: usize) -> usize {
    latches + roles + 66 + 8 * roles
}

/// 32-bit words of one record.
pub fn record_words(roles: usize, latches: usize) -> usize {
    record_bits(roles, latches).div_ceil(32)
}

/// Bit `i` of a little-endian word vector.
fn bit(words: &[u32], i: usize) -> bool {
    words.get(i / 32).is_some_and(|w| w >> (i % 32) & 1 == 1)
}

/// `n` ≤ 32 bits from bit `lo`.
fn field(words: &[u32], lo: usize, n: usize) -> u32 {
    (0..n).fold(0, |acc, b| acc | (u32::from(bit(words, lo + b)) << b))
}

/// Decodes one record read as [`record_words`] words; `base` is the run's playout base
/// (added to the local index, mod 2^32).
///
/// # Errors
/// [`Error::Parse`] when the word count is wrong or a record that did not end terminal or by
/// the step limit has no role without legal moves.
pub fn decode(
    words: &[u32],
    roles: usize,
    latches: usize,
    base: u32,
) -> Result<PlayoutRecord, Error> {
    let bad = |why: &str| Error::Parse {
        what: format!("playout record ({why})"),
        line: format!("{words:08x?}"),
    };
    if words.len() != record_words(roles, latches) {
        return Err(bad("wrong word count"));
    }
    let (l, r) = (latches, roles);
    let state: Vec<bool> = (0..l).map(|i| bit(words, i)).collect();
    let end = if bit(words, l + r + 1) {
        PlayoutEnd::Terminal
    } else if bit(words, l + r) {
        PlayoutEnd::StepLimit
    } else {
        let role = (0..r)
            .find(|&i| bit(words, l + i))
            .ok_or_else(|| bad("no end kind"))?;
        PlayoutEnd::NoLegalMove(role as u32)
    };
    let goals = (0..r)
        .map(|i| field(words, l + r + 66 + 8 * i, 8) as u8)
        .collect();
    Ok(PlayoutRecord {
        index: field(words, l + r + 34, 32).wrapping_add(base),
        length: field(words, l + r + 2, 32),
        end,
        goals,
        final_state: pack_state(&state),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_every_field() {
        let (r, l) = (2, 40);
        let mut words = vec![0u32; record_words(r, l)];
        let mut set = |i: usize, v: u32, n: usize| {
            for b in 0..n {
                if v >> b & 1 == 1 {
                    words[(i + b) / 32] |= 1 << ((i + b) % 32);
                }
            }
        };
        set(3, 1, 1); // latch 3
        set(39, 1, 1); // latch 39
        set(l + 1, 1, 1); // role 1 has no legal move
        set(l + r + 2, 17, 32); // length
        set(l + r + 34, 5, 32); // local index
        set(l + r + 66, 100, 8);
        set(l + r + 74, 50, 8);
        let rec = decode(&words, r, l, u32::MAX).unwrap();
        assert_eq!(rec.index, 4);
        assert_eq!(rec.length, 17);
        assert_eq!(rec.end, PlayoutEnd::NoLegalMove(1));
        assert_eq!(rec.goals, vec![100, 50]);
        let mut state = vec![false; l];
        state[3] = true;
        state[39] = true;
        assert_eq!(rec.final_state, pack_state(&state));
        assert!(decode(&words[1..], r, l, 0).is_err());
        let mut none = words.clone();
        none[1] &= !(1 << (l + 1 - 32));
        assert!(decode(&none, r, l, 0).is_err());
    }
}
