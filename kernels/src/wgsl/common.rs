//! WGSL text shared by both layouts: Threefry-2x32-20, the 64-bit multiply-high of the
//! choice rule, the per-lane move choice, record writing, lane refilling and the entry point.

use propnet_netlist::rng::{PARITY, ROTATIONS, ROUNDS};
use std::fmt::Write as _;

/// Emits `threefry(k0, k1, c0, c1) -> u32` (word 0 of Threefry-2x32-20, unrolled from the
/// constants of [`propnet_netlist::rng`]) and `mulhi(a, b)`: the high 32 bits of the 64-bit
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

/// Goal entries per loop iteration in `finish`.
pub(crate) const UNROLL_GOALS: u32 = 8;
/// Legal entries per loop iteration in `decide` (counting and choosing).
pub(crate) const UNROLL_LEGALS: u32 = 32;
/// Entries per loop iteration of the layouts' input-clearing and latching loops.
pub(crate) const UNROLL_WIDE: u32 = 16;

/// Emits `for (var = lo; var < hi; var += unroll) { body(var); if (var + 1 < hi) { body(var
/// + 1) } … }`: `unroll` guarded copies of `body` per iteration, so a loop over `n` entries
/// takes `ceil(n / unroll)` back edges (see [`LoopBound`]). `body` gets the name of a `let`
/// holding the entry index; a `break` in it leaves the loop.
pub(crate) fn unrolled(
    o: &mut String,
    ind: &str,
    var: &str,
    lo: &str,
    hi: &str,
    unroll: u32,
    body: &dyn Fn(&str) -> String,
) {
    let _ = writeln!(
        o,
        "{ind}for ({var} = {lo}; {var} < {hi}; {var} = {var} + {unroll}u) {{"
    );
    for k in 0..unroll {
        let x = format!("{var}_{k}");
        if k == 0 {
            let _ = writeln!(o, "{ind}    {{\n{ind}        let {x} = {var};");
        } else {
            let _ = writeln!(
                o,
                "{ind}    if ({var} + {k}u < {hi}) {{\n{ind}        let {x} = {var} + {k}u;"
            );
        }
        for line in body(&x).lines() {
            let _ = writeln!(o, "{ind}        {line}");
        }
        let _ = writeln!(o, "{ind}    }}");
    }
    let _ = writeln!(o, "{ind}}}");
}

/// Emits `finish`, `decide` and `load_lane` in terms of the layout's accessors
/// (`st_get`, `st_put`, `legal_word`, `goal_word`, `set_input`).
///
/// Loops are unrolled (see [`unrolled`]) so that one playout step takes few loop back
/// edges: llvmpipe/lavapipe stops every loop of an invocation after 65,535 back edges in
/// total (see [`LoopBound`]).
pub(crate) fn write_lane_logic(o: &mut String) {
    write_finish(o);
    write_decide(o);
    write_load_lane(o);
}

/// Emits `finish(b, end)`: writes the record of lane `b` (length, end code, goals packed 4
/// per word, the state words when `prm.want_state` is set).
fn write_finish(o: &mut String) {
    o.push_str(
        "// Writes the record of lane b, which stopped with code `end` in the current state.
fn finish(b: u32, end: u32) {
    var gw = 0u;
    var v = 0u;
    var r = 0u;
    var j = 0u;
    var w = 0u;
    var word = 0u;
    let base = lane_seq[b] * prm.rec_words;
    out[base] = lane_step[b];
    out[base + 1u] = end;
    for (r = 0u; r < NUM_ROLES; r = r + 1u) {
        v = 0u;
        let ghi = tab[T_ROLE_GOAL + r + 1u];
",
    );
    unrolled(
        o,
        "        ",
        "j",
        "tab[T_ROLE_GOAL + r]",
        "ghi",
        UNROLL_GOALS,
        &|x| {
            format!(
                "if (((goal_word({x}) >> b) & 1u) != 0u) {{\n    v = tab[T_GOAL_VALUE + {x}];\n}}"
            )
        },
    );
    o.push_str(
        "        gw = gw | (v << (8u * (r & 3u)));
        if ((r & 3u) == 3u || r + 1u == NUM_ROLES) {
            out[base + 2u + (r >> 2u)] = gw;
            gw = 0u;
        }
    }
    if (prm.want_state != 0u) {
        for (w = 0u; w < STATE_WORDS; w = w + 1u) {
            word = 0u;
",
    );
    for i in 0..32 {
        let _ = writeln!(
            o,
            "            if (w * 32u + {i}u < NUM_LATCHES) {{ word = word | (((st_get(w * 32u + {i}u) >> b) & 1u) << {i}u); }}"
        );
    }
    o.push_str(
        "            out[base + 2u + GOAL_WORDS + w] = word;
        }
    }
}

",
    );
}

/// Emits `decide(b, t)`: stops lane `b` when it is terminal, at the step limit or a role
/// has no legal move (writing its record), else chooses each role's legal move with
/// Threefry and sets its input bit.
fn write_decide(o: &mut String) {
    o.push_str(
        "// One step of lane b in a state whose terminal word is t: either stops the lane (writes its
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
",
    );
    let ind = "            ";
    unrolled(o, ind, "j", "lo", "hi", UNROLL_LEGALS, &|x| {
        format!("cnt = cnt + ((legal_word({x}) >> b) & 1u);")
    });
    o.push_str(
        "            if (cnt == 0u) {
                end = 3u + r;
                break;
            }
            k = mulhi(threefry(prm.seed_lo, prm.seed_hi, lane_po[b], (lane_step[b] << 8u) | r), cnt);
",
    );
    unrolled(o, ind, "j", "lo", "hi", UNROLL_LEGALS, &|x| {
        format!(
            "if (((legal_word({x}) >> b) & 1u) != 0u) {{\n    if (k == 0u) {{\n        set_input(tab[T_LEGAL_INPUT + {x}], bit);\n        break;\n    }}\n    k = k - 1u;\n}}"
        )
    });
    o.push_str(
        "        }
    }
    if (end == NO_END) {
        return true;
    }
    finish(b, end);
    return false;
}

",
    );
}

/// Emits `load_lane(b, k)`: finds the job of sequence number `k` (binary search) and loads
/// its start state into bit `b` of the state words.
fn write_load_lane(o: &mut String) {
    o.push_str(
        "// Starts sequence number k of this dispatch in lane b: finds its job (binary search over the
// jobs' first sequence numbers) and loads the job's start state into bit b.
fn load_lane(b: u32, k: u32) {
    var lo = 0u;
    var hi = prm.njobs;
    var w = 0u;
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
    let keep = ~(1u << b);
    for (w = 0u; w < STATE_WORDS; w = w + 1u) {
        let s = starts[off + w];
",
    );
    for i in 0..32 {
        let _ = writeln!(
            o,
            "        if (w * 32u + {i}u < NUM_LATCHES) {{ st_put(w * 32u + {i}u, (st_get(w * 32u + {i}u) & keep) | (((s >> {i}u) & 1u) << b)); }}"
        );
    }
    o.push_str(
        "    }
}

",
    );
}

/// Emits the entry point `main`: claim work for empty lanes, evaluate the views (`views`
/// must define `term_w`), choose moves lane by lane, evaluate the transition (`next`, which
/// may read `go`, the mask of lanes that move) and loop until no lane has work or the step
/// budget is spent (then the lanes are saved to `ctx` for the next dispatch). `prologue` runs
/// first in every dispatch. Last, a two-iteration probe loop (trip count from `prm.probe`, so
/// no compiler can unroll it) counts in `ctr.overrun` every invocation whose loops a driver
/// cut short (llvmpipe's loop limiter, see [`LoopBound`]); the runner then redoes the dispatch
/// with a smaller budget.
pub(crate) fn write_main(
    o: &mut String,
    workgroup_size: u32,
    prologue: &str,
    views: &str,
    next: &str,
) {
    write_main_entry(o, workgroup_size, prologue);
    write_step_loop(o, views, next);
    write_main_exit(o);
}

/// The entry point's header, locals, the layout's `prologue` and the restore of saved lanes
/// on a resumed dispatch.
fn write_main_entry(o: &mut String, workgroup_size: u32, prologue: &str) {
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
    var saved = false;
    var e = 0u;
    var go = 0u;
    var a = 0u;
    var b = 0u;
    var l = 0u;
    var probe = 0u;
",
    );
    o.push_str(prologue);
    o.push_str(
        "    if (prm.resume != 0u) {
        live = ctx[c];
        empty = ctx[c + 1u];
        for (b = 0u; b < LANES; b = b + 1u) {
            lane_seq[b] = ctx[c + 2u + b];
            lane_po[b] = ctx[c + 2u + LANES + b];
            lane_step[b] = ctx[c + 2u + 2u * LANES + b];
        }
",
    );
    unrolled(o, "        ", "l", "0u", "CTX_STATE", UNROLL_WIDE, &|x| {
        format!("st_put({x}, ctx[c + 2u + 3u * LANES + {x}]);")
    });
    o.push_str("    }\n");
}

/// The main loop: refill empty lanes, stop at the step budget, evaluate the `views`, choose
/// moves, evaluate `next` and advance the lanes that go on.
fn write_step_loop(o: &mut String, views: &str, next: &str) {
    o.push_str(
        "    loop {
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
            // Out of steps for this dispatch: the lanes are saved below.
            saved = true;
            break;
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
",
    );
}

/// After the loop: save the lanes when the budget ran out, then the overrun probe.
fn write_main_exit(o: &mut String) {
    o.push_str(
        "    if (saved) {
        // The host dispatches again with prm.resume = 1.
        ctx[c] = live;
        ctx[c + 1u] = empty;
        for (b = 0u; b < LANES; b = b + 1u) {
            ctx[c + 2u + b] = lane_seq[b];
            ctx[c + 2u + LANES + b] = lane_po[b];
            ctx[c + 2u + 2u * LANES + b] = lane_step[b];
        }
",
    );
    unrolled(o, "        ", "l", "0u", "CTX_STATE", UNROLL_WIDE, &|x| {
        format!("ctx[c + 2u + 3u * LANES + {x}] = st_get({x});")
    });
    o.push_str(
        "        atomicAdd(&ctr.pending, 1u);
    } else {
        ctx[c] = 0u;
        ctx[c + 1u] = 0u;
    }
    loop {
        probe = probe + 1u;
        if (probe >= prm.probe) {
            break;
        }
    }
    if (probe != prm.probe) {
        atomicAdd(&ctr.overrun, 1u);
    }
}
",
    );
}

/// Upper bounds on the loop back edges one invocation of a generated kernel takes, for
/// drivers that cap them. llvmpipe (Mesa's gallivm, used by lavapipe) keeps one counter per
/// invocation group, set to 65,535 at entry and decremented at every back edge of every loop
/// (`lp_exec_endloop`); when it reaches zero every loop exits at its next back edge, so the
/// shader silently computes garbage. Its SIMD code also runs both sides of every `if`
/// (masked), so every loop in the text is entered whether or not its branch is taken, and a
/// per-invocation loop runs as often as its longest invocation in the group. Each loop entry
/// costs its iterations plus one. `kernels/examples/loop_limit.rs` measures the cap.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct LoopBound {
    /// Back edges of one main-loop iteration (one playout step of every lane, including
    /// refilling and finishing every lane).
    pub per_step: u64,
    /// Back edges once per dispatch (restore, save, probe), excluding steps.
    pub per_dispatch: u64,
}

/// Back edges of `unrolled` over `n` entries, entered once.
pub(crate) fn unrolled_cost(n: u64, unroll: u32) -> u64 {
    n.div_ceil(u64::from(unroll)) + 1
}

/// The [`LoopBound`] of the code in this module for a netlist with `legal[r]` legal entries
/// and `goals[r]` goal entries per role, `latches`, `lanes` and `ctx_state` state words saved
/// in `ctx`, plus the layout's own per-step cost (`views`, `clear_inputs`, `next`).
pub(crate) fn loop_bound(
    legal: &[usize],
    goals: &[usize],
    latches: usize,
    lanes: u32,
    ctx_state: usize,
    layout_per_step: u64,
) -> LoopBound {
    let lanes = u64::from(lanes);
    let roles = legal.len() as u64;
    let state_words = (latches as u64).div_ceil(32);
    let finish = roles
        + 1
        + goals
            .iter()
            .map(|&g| unrolled_cost(g as u64, UNROLL_GOALS))
            .sum::<u64>()
        + state_words
        + 1;
    let decide = roles
        + 1
        + legal
            .iter()
            .map(|&n| 2 * unrolled_cost(n as u64, UNROLL_LEGALS))
            .sum::<u64>()
        + finish;
    // Binary search over at most 2^32 jobs, then the state words.
    let load_lane = 34 + state_words + 1;
    let lane_loop = lanes + 1;
    let per_step = 1
        + lane_loop
        + lanes * load_lane
        + lane_loop
        + lanes * decide
        + lane_loop
        + layout_per_step;
    let ctx = unrolled_cost(ctx_state as u64, UNROLL_WIDE);
    LoopBound {
        per_step,
        per_dispatch: 2 * (lane_loop + ctx) + 1 + 2 + 8,
    }
}
