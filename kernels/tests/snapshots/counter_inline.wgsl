// propnet playout kernel: 14 gates, 2 latches, 2 inputs, 1 roles.
// layout: Inline, 32 playouts per invocation (bit-sliced lanes).
// role 0: player

struct Params {
    n: u32,
    njobs: u32,
    seed_lo: u32,
    seed_hi: u32,
    max_steps: u32,
    rec_words: u32,
    want_state: u32,
    ninv: u32,
    budget: u32,
    resume: u32,
    pad0: u32,
    pad1: u32,
}

struct Counters {
    next: atomic<u32>,
    pending: atomic<u32>,
}

@group(0) @binding(0) var<uniform> prm: Params;
@group(0) @binding(1) var<storage, read> jobs: array<u32>;
@group(0) @binding(2) var<storage, read> starts: array<u32>;
@group(0) @binding(3) var<storage, read_write> ctr: Counters;
@group(0) @binding(4) var<storage, read_write> out: array<u32>;
@group(0) @binding(5) var<storage, read> tab: array<u32>;
@group(0) @binding(7) var<storage, read_write> ctx: array<u32>;

const LANES: u32 = 32u;
const NUM_GATES: u32 = 14u;
const NUM_LATCHES: u32 = 2u;
const NUM_INPUTS: u32 = 2u;
const NUM_ROLES: u32 = 1u;
const GOAL_WORDS: u32 = 1u;
const STATE_WORDS: u32 = 1u;
const TERMINAL: u32 = 2u;
const T_ROLE_LEGAL: u32 = 0u;
const T_LEGAL_INPUT: u32 = 2u;
const T_LEGAL_GATE: u32 = 4u;
const T_ROLE_GOAL: u32 = 6u;
const T_GOAL_VALUE: u32 = 8u;
const T_GOAL_GATE: u32 = 10u;
const T_LATCH_NEXT: u32 = 12u;
const T_PROG: u32 = 14u;
const T_PROG_NEXT: u32 = 14u;
const T_PROG_END: u32 = 14u;
const ALL_LANES: u32 = 0xffffffffu;
const NO_END: u32 = 0xffffffffu;
const CTX_STATE: u32 = 2u;
const CTX_WORDS: u32 = 100u;

var<private> me: u32;
var<private> lane_seq: array<u32, 32>;
var<private> lane_po: array<u32, 32>;
var<private> lane_step: array<u32, 32>;

fn rotl(x: u32, r: u32) -> u32 {
    return (x << r) | (x >> (32u - r));
}

// Threefry-2x32-20 (Salmon et al., SC 2011); word 0 of the output.
fn threefry(k0: u32, k1: u32, c0: u32, c1: u32) -> u32 {
    let k2 = 0x1bd11bdau ^ k0 ^ k1;
    var x0 = c0 + k0;
    var x1 = c1 + k1;
    x0 = x0 + x1; x1 = rotl(x1, 13u) ^ x0;
    x0 = x0 + x1; x1 = rotl(x1, 15u) ^ x0;
    x0 = x0 + x1; x1 = rotl(x1, 26u) ^ x0;
    x0 = x0 + x1; x1 = rotl(x1, 6u) ^ x0;
    x0 = x0 + k1; x1 = x1 + k2 + 1u;
    x0 = x0 + x1; x1 = rotl(x1, 17u) ^ x0;
    x0 = x0 + x1; x1 = rotl(x1, 29u) ^ x0;
    x0 = x0 + x1; x1 = rotl(x1, 16u) ^ x0;
    x0 = x0 + x1; x1 = rotl(x1, 24u) ^ x0;
    x0 = x0 + k2; x1 = x1 + k0 + 2u;
    x0 = x0 + x1; x1 = rotl(x1, 13u) ^ x0;
    x0 = x0 + x1; x1 = rotl(x1, 15u) ^ x0;
    x0 = x0 + x1; x1 = rotl(x1, 26u) ^ x0;
    x0 = x0 + x1; x1 = rotl(x1, 6u) ^ x0;
    x0 = x0 + k0; x1 = x1 + k1 + 3u;
    x0 = x0 + x1; x1 = rotl(x1, 17u) ^ x0;
    x0 = x0 + x1; x1 = rotl(x1, 29u) ^ x0;
    x0 = x0 + x1; x1 = rotl(x1, 16u) ^ x0;
    x0 = x0 + x1; x1 = rotl(x1, 24u) ^ x0;
    x0 = x0 + k1; x1 = x1 + k2 + 4u;
    x0 = x0 + x1; x1 = rotl(x1, 13u) ^ x0;
    x0 = x0 + x1; x1 = rotl(x1, 15u) ^ x0;
    x0 = x0 + x1; x1 = rotl(x1, 26u) ^ x0;
    x0 = x0 + x1; x1 = rotl(x1, 6u) ^ x0;
    x0 = x0 + k2; x1 = x1 + k0 + 5u;
    return x0;
}

// High 32 bits of a * b (choice rule (x * n) >> 32), from 16-bit halves.
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

var<private> st: array<u32, 2>;
var<private> inp: array<u32, 2>;
var<private> lg: array<u32, 2>;
var<private> gl: array<u32, 2>;

fn st_get(l: u32) -> u32 {
    return st[l];
}

fn st_put(l: u32, w: u32) {
    st[l] = w;
}

fn legal_word(j: u32) -> u32 {
    return lg[j];
}

fn goal_word(j: u32) -> u32 {
    return gl[j];
}

fn set_input(i: u32, bit: u32) {
    inp[i] = inp[i] | bit;
}

fn clear_inputs() {
    var i = 0u;
    for (i = 0u; i < NUM_INPUTS; i = i + 1u) {
        inp[i] = 0u;
    }
}

// Writes the record of lane b, which stopped with code `end` in the current state.
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

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
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
        let g0 = st[0]; // (bit 0)
        let g1 = st[1]; // (bit 1)
        let g2 = g0 & g1;
        let g3 = ~g0;
        let g4 = 0xffffffffu;
        let g8 = ~g0;
        lg[0] = g4;
        lg[1] = g3;
        gl[0] = g3;
        gl[1] = g2;
        let term_w = g2;
        clear_inputs();
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
            let g5 = inp[0]; // does player inc
            let g6 = ~g5;
            let g7 = g0 & g6;
            let g9 = g8 & g5;
            let g10 = g7 | g9;
            let g11 = g0 & g5;
            let g12 = g1 | g11;
            let g13 = inp[1]; // does player wait
            st[0] = (g10 & go) | (st[0] & ~go);
            st[1] = (g12 & go) | (st[1] & ~go);
        }
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
