//! WGSL text shared by both layouts: Threefry-2x32-20, the 64-bit multiply-high of the
//! choice rule, the per-lane move choice, record writing, lane refilling and the entry point.

use propnet_compiler::rng::{PARITY, ROTATIONS, ROUNDS};
use std::fmt::Write as _;

/// Emits `threefry(k0, k1, c0, c1) -> u32` (word 0 of Threefry-2x32-20, unrolled from the
/// constants of [`propnet_compiler::rng`]) and `mulhi(a, b)`: the high 32 bits of the 64-bit
/// product, computed from 16-bit halves because WGSL has no 64-bit integers.
pub(crate) fn write_rng(o: &mut String) {
    o.push_str("fn rotl(x: u32, r: u32) -> u32 {\n    return (x << r) | (x >> (32u - r));\n}\n\n");
    let _ = writeln!(
        o,
        "// Threefry-2x32-20 (Salmon et al., SC 2011); word 0 of the output."
    );
    o.push_str("fn threefry(k0: u32, k1: u32, c0: u32, c1: u32) -> u32 {\n");
    let _ = writeln!(o, "    let k2 = {PARITY:#010x}u ^ k0 ^ k1;");
    o.push_str("    var x0 = c0 + k0;\n    var x1 = c1 + k1;\n");
    let ks = ["k0", "k1", "k2"];
    for r in 0..ROUNDS {
        let _ = writeln!(
            o,
            "    x0 = x0 + x1; x1 = rotl(x1, {}u) ^ x0;",
            ROTATIONS[r % 8]
        );
        if r % 4 == 3 {
            let s = (r + 1) / 4;
            let _ = writeln!(
                o,
                "    x0 = x0 + {}; x1 = x1 + {} + {}u;",
                ks[s % 3],
                ks[(s + 1) % 3],
                s
            );
        }
    }
    o.push_str("    return x0;\n}\n\n");
    o.push_str(
        "// High 32 bits of a * b (choice rule (x * n) >> 32), from 16-bit halves.
fn mulhi(a: u32, b: u32) -> u32 {
    let a0 = a & 0xffffu;
    let a1 = a >> 16u;
    let b0 = b & 0xffffu;
    let b1 = b >> 16u;
    let p00 = a0 * b0;
    let p01 = a0 * b1;
    let p10 = a1 * b0;
    let p11 = a1 * b1;
    let mid = (p00 >> 16u) + (p01 & 0xffffu) + (p10 & 0xffffu);
    return p11 + (p01 >> 16u) + (p10 >> 16u) + (mid >> 16u);
}

",
    );
}

/// Emits `finish`, `decide` and `load_lane` in terms of the layout's accessors
/// (`st_get`, `st_put`, `legal_word`, `goal_word`, `set_input`).
pub(crate) fn write_lane_logic(o: &mut String) {
    o.push_str(
        "// Writes the record of lane b, which stopped with code `end` in the current state.
fn finish(b: u32, end: u32) {
    var gw = 0u;
    var v = 0u;
    var r = 0u;
    var j = 0u;
    var w = 0u;
    var word = 0u;
    var i = 0u;
    let base = lane_seq[b] * prm.rec_words;
    out[base] = lane_step[b];
    out[base + 1u] = end;
    for (r = 0u; r < NUM_ROLES; r = r + 1u) {
        v = 0u;
        for (j = tab[T_ROLE_GOAL + r]; j < tab[T_ROLE_GOAL + r + 1u]; j = j + 1u) {
            if (((goal_word(j) >> b) & 1u) != 0u) {
                v = tab[T_GOAL_VALUE + j];
            }
        }
        gw = gw | (v << (8u * (r & 3u)));
        if ((r & 3u) == 3u || r + 1u == NUM_ROLES) {
            out[base + 2u + (r >> 2u)] = gw;
            gw = 0u;
        }
    }
    if (prm.want_state != 0u) {
        for (w = 0u; w < STATE_WORDS; w = w + 1u) {
            word = 0u;
            for (i = 0u; i < 32u && w * 32u + i < NUM_LATCHES; i = i + 1u) {
                word = word | (((st_get(w * 32u + i) >> b) & 1u) << i);
            }
            out[base + 2u + GOAL_WORDS + w] = word;
        }
    }
}

// One step of lane b in a state whose terminal word is t: either stops the lane (writes its
// record, returns false) or sets the chosen input of every role (returns true).
fn decide(b: u32, t: u32) -> bool {
    var end = NO_END;
    var r = 0u;
    var j = 0u;
    var cnt = 0u;
    var k = 0u;
    let bit = 1u << b;
    if ((t & bit) != 0u) {
        end = 1u;
    } else if (lane_step[b] == prm.max_steps) {
        end = 2u;
    } else {
        for (r = 0u; r < NUM_ROLES; r = r + 1u) {
            let lo = tab[T_ROLE_LEGAL + r];
            let hi = tab[T_ROLE_LEGAL + r + 1u];
            cnt = 0u;
            for (j = lo; j < hi; j = j + 1u) {
                cnt = cnt + ((legal_word(j) >> b) & 1u);
            }
            if (cnt == 0u) {
                end = 3u + r;
                break;
            }
            k = mulhi(threefry(prm.seed_lo, prm.seed_hi, lane_po[b], (lane_step[b] << 8u) | r), cnt);
            for (j = lo; j < hi; j = j + 1u) {
                if (((legal_word(j) >> b) & 1u) != 0u) {
                    if (k == 0u) {
                        set_input(tab[T_LEGAL_INPUT + j], bit);
                        break;
                    }
                    k = k - 1u;
                }
            }
        }
    }
    if (end == NO_END) {
        return true;
    }
    finish(b, end);
    return false;
}

// Starts sequence number k of this dispatch in lane b: finds its job (binary search over the
// jobs' first sequence numbers) and loads the job's start state into bit b.
fn load_lane(b: u32, k: u32) {
    var lo = 0u;
    var hi = prm.njobs;
    var l = 0u;
    while (hi - lo > 1u) {
        let mid = (lo + hi) / 2u;
        if (jobs[3u * mid] <= k) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lane_seq[b] = k;
    lane_po[b] = jobs[3u * lo + 1u] + (k - jobs[3u * lo]);
    lane_step[b] = 0u;
    let off = jobs[3u * lo + 2u];
    let bit = 1u << b;
    for (l = 0u; l < NUM_LATCHES; l = l + 1u) {
        let v = (starts[off + (l >> 5u)] >> (l & 31u)) & 1u;
        st_put(l, (st_get(l) & ~bit) | (v << b));
    }
}

",
    );
}

/// Emits the entry point `main`: claim work for empty lanes, evaluate the views (`views`
/// must define `term_w`), choose moves lane by lane, evaluate the transition (`next`, which
/// may read `go`, the mask of lanes that move) and loop until no lane has work.
pub(crate) fn write_main(o: &mut String, workgroup_size: u32, views: &str, next: &str) {
    let _ = writeln!(o, "@compute @workgroup_size({workgroup_size})");
    o.push_str(
        "fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (gid.x >= prm.ninv) {
        return;
    }
    me = gid.x;
    let c = me * CTX_WORDS;
    var live = 0u;
    var empty = ALL_LANES;
    var iter = 0u;
    var e = 0u;
    var go = 0u;
    var a = 0u;
    var b = 0u;
    var l = 0u;
    if (prm.resume != 0u) {
        live = ctx[c];
        empty = ctx[c + 1u];
        for (b = 0u; b < LANES; b = b + 1u) {
            lane_seq[b] = ctx[c + 2u + b];
            lane_po[b] = ctx[c + 2u + LANES + b];
            lane_step[b] = ctx[c + 2u + 2u * LANES + b];
        }
        for (l = 0u; l < CTX_STATE; l = l + 1u) {
            st_put(l, ctx[c + 2u + 3u * LANES + l]);
        }
    }
    loop {
        e = empty;
        while (e != 0u) {
            b = countTrailingZeros(e);
            e = e & (e - 1u);
            let k = atomicAdd(&ctr.next, 1u);
            if (k < prm.n) {
                load_lane(b, k);
                live = live | (1u << b);
            }
        }
        empty = 0u;
        if (live == 0u) {
            break;
        }
        if (iter == prm.budget) {
            // Out of steps for this dispatch: save the lanes, the host dispatches again.
            ctx[c] = live;
            ctx[c + 1u] = empty;
            for (b = 0u; b < LANES; b = b + 1u) {
                ctx[c + 2u + b] = lane_seq[b];
                ctx[c + 2u + LANES + b] = lane_po[b];
                ctx[c + 2u + 2u * LANES + b] = lane_step[b];
            }
            for (l = 0u; l < CTX_STATE; l = l + 1u) {
                ctx[c + 2u + 3u * LANES + l] = st_get(l);
            }
            atomicAdd(&ctr.pending, 1u);
            return;
        }
        iter = iter + 1u;
",
    );
    o.push_str(views);
    o.push_str(
        "        clear_inputs();
        go = 0u;
        a = live;
        while (a != 0u) {
            b = countTrailingZeros(a);
            a = a & (a - 1u);
            if (decide(b, term_w)) {
                go = go | (1u << b);
            }
        }
        if (go != 0u) {
",
    );
    o.push_str(next);
    o.push_str(
        "        }
        a = go;
        while (a != 0u) {
            b = countTrailingZeros(a);
            a = a & (a - 1u);
            lane_step[b] = lane_step[b] + 1u;
        }
        empty = live & ~go;
        live = go;
    }
    ctx[c] = 0u;
    ctx[c + 1u] = 0u;
}
",
    );
}
