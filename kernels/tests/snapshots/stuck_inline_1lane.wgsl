// propnet playout kernel: 11 gates, 2 latches, 4 inputs, 2 roles.
// layout: Inline, 1 playouts per invocation (bit-sliced lanes).
// role 0: red
// role 1: blue

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
    probe: u32,
    pad1: u32,
}

struct Counters {
    next: atomic<u32>,
    pending: atomic<u32>,
    overrun: atomic<u32>,
}

@group(0) @binding(0) var<uniform> prm: Params;
@group(0) @binding(1) var<storage, read> jobs: array<u32>;
@group(0) @binding(2) var<storage, read> starts: array<u32>;
@group(0) @binding(3) var<storage, read_write> ctr: Counters;
@group(0) @binding(4) var<storage, read_write> out: array<u32>;
@group(0) @binding(5) var<storage, read> tab: array<u32>;
@group(0) @binding(7) var<storage, read_write> ctx: array<u32>;

const LANES: u32 = 1u;
const NUM_GATES: u32 = 11u;
const NUM_LATCHES: u32 = 2u;
const NUM_INPUTS: u32 = 4u;
const NUM_ROLES: u32 = 2u;
const GOAL_WORDS: u32 = 1u;
const STATE_WORDS: u32 = 1u;
const TERMINAL: u32 = 1u;
const T_ROLE_LEGAL: u32 = 0u;
const T_LEGAL_INPUT: u32 = 3u;
const T_LEGAL_GATE: u32 = 7u;
const T_ROLE_GOAL: u32 = 11u;
const T_GOAL_VALUE: u32 = 14u;
const T_GOAL_GATE: u32 = 17u;
const T_LATCH_NEXT: u32 = 20u;
const T_PROG: u32 = 22u;
const T_PROG_NEXT: u32 = 22u;
const T_PROG_END: u32 = 22u;
const ALL_LANES: u32 = 0x00000001u;
const NO_END: u32 = 0xffffffffu;
const CTX_STATE: u32 = 2u;
const CTX_WORDS: u32 = 7u;

var<private> me: u32;
var<private> lane_seq: array<u32, 1>;
var<private> lane_po: array<u32, 1>;
var<private> lane_step: array<u32, 1>;

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
const NUM_INPUT_WORDS: u32 = 4u;
var<private> inp: array<u32, NUM_INPUT_WORDS>;
var<private> lg: array<u32, 4>;
var<private> gl: array<u32, 3>;

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
    inp = array<u32, NUM_INPUT_WORDS>();
}

// Writes the record of lane b, which stopped with code `end` in the current state.
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
        for (j = tab[T_ROLE_GOAL + r]; j < ghi; j = j + 8u) {
            {
                let j_0 = j;
                if (((goal_word(j_0) >> b) & 1u) != 0u) {
                    v = tab[T_GOAL_VALUE + j_0];
                }
            }
            if (j + 1u < ghi) {
                let j_1 = j + 1u;
                if (((goal_word(j_1) >> b) & 1u) != 0u) {
                    v = tab[T_GOAL_VALUE + j_1];
                }
            }
            if (j + 2u < ghi) {
                let j_2 = j + 2u;
                if (((goal_word(j_2) >> b) & 1u) != 0u) {
                    v = tab[T_GOAL_VALUE + j_2];
                }
            }
            if (j + 3u < ghi) {
                let j_3 = j + 3u;
                if (((goal_word(j_3) >> b) & 1u) != 0u) {
                    v = tab[T_GOAL_VALUE + j_3];
                }
            }
            if (j + 4u < ghi) {
                let j_4 = j + 4u;
                if (((goal_word(j_4) >> b) & 1u) != 0u) {
                    v = tab[T_GOAL_VALUE + j_4];
                }
            }
            if (j + 5u < ghi) {
                let j_5 = j + 5u;
                if (((goal_word(j_5) >> b) & 1u) != 0u) {
                    v = tab[T_GOAL_VALUE + j_5];
                }
            }
            if (j + 6u < ghi) {
                let j_6 = j + 6u;
                if (((goal_word(j_6) >> b) & 1u) != 0u) {
                    v = tab[T_GOAL_VALUE + j_6];
                }
            }
            if (j + 7u < ghi) {
                let j_7 = j + 7u;
                if (((goal_word(j_7) >> b) & 1u) != 0u) {
                    v = tab[T_GOAL_VALUE + j_7];
                }
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
            if (w * 32u + 0u < NUM_LATCHES) { word = word | (((st_get(w * 32u + 0u) >> b) & 1u) << 0u); }
            if (w * 32u + 1u < NUM_LATCHES) { word = word | (((st_get(w * 32u + 1u) >> b) & 1u) << 1u); }
            if (w * 32u + 2u < NUM_LATCHES) { word = word | (((st_get(w * 32u + 2u) >> b) & 1u) << 2u); }
            if (w * 32u + 3u < NUM_LATCHES) { word = word | (((st_get(w * 32u + 3u) >> b) & 1u) << 3u); }
            if (w * 32u + 4u < NUM_LATCHES) { word = word | (((st_get(w * 32u + 4u) >> b) & 1u) << 4u); }
            if (w * 32u + 5u < NUM_LATCHES) { word = word | (((st_get(w * 32u + 5u) >> b) & 1u) << 5u); }
            if (w * 32u + 6u < NUM_LATCHES) { word = word | (((st_get(w * 32u + 6u) >> b) & 1u) << 6u); }
            if (w * 32u + 7u < NUM_LATCHES) { word = word | (((st_get(w * 32u + 7u) >> b) & 1u) << 7u); }
            if (w * 32u + 8u < NUM_LATCHES) { word = word | (((st_get(w * 32u + 8u) >> b) & 1u) << 8u); }
            if (w * 32u + 9u < NUM_LATCHES) { word = word | (((st_get(w * 32u + 9u) >> b) & 1u) << 9u); }
            if (w * 32u + 10u < NUM_LATCHES) { word = word | (((st_get(w * 32u + 10u) >> b) & 1u) << 10u); }
            if (w * 32u + 11u < NUM_LATCHES) { word = word | (((st_get(w * 32u + 11u) >> b) & 1u) << 11u); }
            if (w * 32u + 12u < NUM_LATCHES) { word = word | (((st_get(w * 32u + 12u) >> b) & 1u) << 12u); }
            if (w * 32u + 13u < NUM_LATCHES) { word = word | (((st_get(w * 32u + 13u) >> b) & 1u) << 13u); }
            if (w * 32u + 14u < NUM_LATCHES) { word = word | (((st_get(w * 32u + 14u) >> b) & 1u) << 14u); }
            if (w * 32u + 15u < NUM_LATCHES) { word = word | (((st_get(w * 32u + 15u) >> b) & 1u) << 15u); }
            if (w * 32u + 16u < NUM_LATCHES) { word = word | (((st_get(w * 32u + 16u) >> b) & 1u) << 16u); }
            if (w * 32u + 17u < NUM_LATCHES) { word = word | (((st_get(w * 32u + 17u) >> b) & 1u) << 17u); }
            if (w * 32u + 18u < NUM_LATCHES) { word = word | (((st_get(w * 32u + 18u) >> b) & 1u) << 18u); }
            if (w * 32u + 19u < NUM_LATCHES) { word = word | (((st_get(w * 32u + 19u) >> b) & 1u) << 19u); }
            if (w * 32u + 20u < NUM_LATCHES) { word = word | (((st_get(w * 32u + 20u) >> b) & 1u) << 20u); }
            if (w * 32u + 21u < NUM_LATCHES) { word = word | (((st_get(w * 32u + 21u) >> b) & 1u) << 21u); }
            if (w * 32u + 22u < NUM_LATCHES) { word = word | (((st_get(w * 32u + 22u) >> b) & 1u) << 22u); }
            if (w * 32u + 23u < NUM_LATCHES) { word = word | (((st_get(w * 32u + 23u) >> b) & 1u) << 23u); }
            if (w * 32u + 24u < NUM_LATCHES) { word = word | (((st_get(w * 32u + 24u) >> b) & 1u) << 24u); }
            if (w * 32u + 25u < NUM_LATCHES) { word = word | (((st_get(w * 32u + 25u) >> b) & 1u) << 25u); }
            if (w * 32u + 26u < NUM_LATCHES) { word = word | (((st_get(w * 32u + 26u) >> b) & 1u) << 26u); }
            if (w * 32u + 27u < NUM_LATCHES) { word = word | (((st_get(w * 32u + 27u) >> b) & 1u) << 27u); }
            if (w * 32u + 28u < NUM_LATCHES) { word = word | (((st_get(w * 32u + 28u) >> b) & 1u) << 28u); }
            if (w * 32u + 29u < NUM_LATCHES) { word = word | (((st_get(w * 32u + 29u) >> b) & 1u) << 29u); }
            if (w * 32u + 30u < NUM_LATCHES) { word = word | (((st_get(w * 32u + 30u) >> b) & 1u) << 30u); }
            if (w * 32u + 31u < NUM_LATCHES) { word = word | (((st_get(w * 32u + 31u) >> b) & 1u) << 31u); }
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
            for (j = lo; j < hi; j = j + 32u) {
                {
                    let j_0 = j;
                    cnt = cnt + ((legal_word(j_0) >> b) & 1u);
                }
                if (j + 1u < hi) {
                    let j_1 = j + 1u;
                    cnt = cnt + ((legal_word(j_1) >> b) & 1u);
                }
                if (j + 2u < hi) {
                    let j_2 = j + 2u;
                    cnt = cnt + ((legal_word(j_2) >> b) & 1u);
                }
                if (j + 3u < hi) {
                    let j_3 = j + 3u;
                    cnt = cnt + ((legal_word(j_3) >> b) & 1u);
                }
                if (j + 4u < hi) {
                    let j_4 = j + 4u;
                    cnt = cnt + ((legal_word(j_4) >> b) & 1u);
                }
                if (j + 5u < hi) {
                    let j_5 = j + 5u;
                    cnt = cnt + ((legal_word(j_5) >> b) & 1u);
                }
                if (j + 6u < hi) {
                    let j_6 = j + 6u;
                    cnt = cnt + ((legal_word(j_6) >> b) & 1u);
                }
                if (j + 7u < hi) {
                    let j_7 = j + 7u;
                    cnt = cnt + ((legal_word(j_7) >> b) & 1u);
                }
                if (j + 8u < hi) {
                    let j_8 = j + 8u;
                    cnt = cnt + ((legal_word(j_8) >> b) & 1u);
                }
                if (j + 9u < hi) {
                    let j_9 = j + 9u;
                    cnt = cnt + ((legal_word(j_9) >> b) & 1u);
                }
                if (j + 10u < hi) {
                    let j_10 = j + 10u;
                    cnt = cnt + ((legal_word(j_10) >> b) & 1u);
                }
                if (j + 11u < hi) {
                    let j_11 = j + 11u;
                    cnt = cnt + ((legal_word(j_11) >> b) & 1u);
                }
                if (j + 12u < hi) {
                    let j_12 = j + 12u;
                    cnt = cnt + ((legal_word(j_12) >> b) & 1u);
                }
                if (j + 13u < hi) {
                    let j_13 = j + 13u;
                    cnt = cnt + ((legal_word(j_13) >> b) & 1u);
                }
                if (j + 14u < hi) {
                    let j_14 = j + 14u;
                    cnt = cnt + ((legal_word(j_14) >> b) & 1u);
                }
                if (j + 15u < hi) {
                    let j_15 = j + 15u;
                    cnt = cnt + ((legal_word(j_15) >> b) & 1u);
                }
                if (j + 16u < hi) {
                    let j_16 = j + 16u;
                    cnt = cnt + ((legal_word(j_16) >> b) & 1u);
                }
                if (j + 17u < hi) {
                    let j_17 = j + 17u;
                    cnt = cnt + ((legal_word(j_17) >> b) & 1u);
                }
                if (j + 18u < hi) {
                    let j_18 = j + 18u;
                    cnt = cnt + ((legal_word(j_18) >> b) & 1u);
                }
                if (j + 19u < hi) {
                    let j_19 = j + 19u;
                    cnt = cnt + ((legal_word(j_19) >> b) & 1u);
                }
                if (j + 20u < hi) {
                    let j_20 = j + 20u;
                    cnt = cnt + ((legal_word(j_20) >> b) & 1u);
                }
                if (j + 21u < hi) {
                    let j_21 = j + 21u;
                    cnt = cnt + ((legal_word(j_21) >> b) & 1u);
                }
                if (j + 22u < hi) {
                    let j_22 = j + 22u;
                    cnt = cnt + ((legal_word(j_22) >> b) & 1u);
                }
                if (j + 23u < hi) {
                    let j_23 = j + 23u;
                    cnt = cnt + ((legal_word(j_23) >> b) & 1u);
                }
                if (j + 24u < hi) {
                    let j_24 = j + 24u;
                    cnt = cnt + ((legal_word(j_24) >> b) & 1u);
                }
                if (j + 25u < hi) {
                    let j_25 = j + 25u;
                    cnt = cnt + ((legal_word(j_25) >> b) & 1u);
                }
                if (j + 26u < hi) {
                    let j_26 = j + 26u;
                    cnt = cnt + ((legal_word(j_26) >> b) & 1u);
                }
                if (j + 27u < hi) {
                    let j_27 = j + 27u;
                    cnt = cnt + ((legal_word(j_27) >> b) & 1u);
                }
                if (j + 28u < hi) {
                    let j_28 = j + 28u;
                    cnt = cnt + ((legal_word(j_28) >> b) & 1u);
                }
                if (j + 29u < hi) {
                    let j_29 = j + 29u;
                    cnt = cnt + ((legal_word(j_29) >> b) & 1u);
                }
                if (j + 30u < hi) {
                    let j_30 = j + 30u;
                    cnt = cnt + ((legal_word(j_30) >> b) & 1u);
                }
                if (j + 31u < hi) {
                    let j_31 = j + 31u;
                    cnt = cnt + ((legal_word(j_31) >> b) & 1u);
                }
            }
            if (cnt == 0u) {
                end = 3u + r;
                break;
            }
            k = mulhi(threefry(prm.seed_lo, prm.seed_hi, lane_po[b], (lane_step[b] << 8u) | r), cnt);
            for (j = lo; j < hi; j = j + 32u) {
                {
                    let j_0 = j;
                    if (((legal_word(j_0) >> b) & 1u) != 0u) {
                        if (k == 0u) {
                            set_input(tab[T_LEGAL_INPUT + j_0], bit);
                            break;
                        }
                        k = k - 1u;
                    }
                }
                if (j + 1u < hi) {
                    let j_1 = j + 1u;
                    if (((legal_word(j_1) >> b) & 1u) != 0u) {
                        if (k == 0u) {
                            set_input(tab[T_LEGAL_INPUT + j_1], bit);
                            break;
                        }
                        k = k - 1u;
                    }
                }
                if (j + 2u < hi) {
                    let j_2 = j + 2u;
                    if (((legal_word(j_2) >> b) & 1u) != 0u) {
                        if (k == 0u) {
                            set_input(tab[T_LEGAL_INPUT + j_2], bit);
                            break;
                        }
                        k = k - 1u;
                    }
                }
                if (j + 3u < hi) {
                    let j_3 = j + 3u;
                    if (((legal_word(j_3) >> b) & 1u) != 0u) {
                        if (k == 0u) {
                            set_input(tab[T_LEGAL_INPUT + j_3], bit);
                            break;
                        }
                        k = k - 1u;
                    }
                }
                if (j + 4u < hi) {
                    let j_4 = j + 4u;
                    if (((legal_word(j_4) >> b) & 1u) != 0u) {
                        if (k == 0u) {
                            set_input(tab[T_LEGAL_INPUT + j_4], bit);
                            break;
                        }
                        k = k - 1u;
                    }
                }
                if (j + 5u < hi) {
                    let j_5 = j + 5u;
                    if (((legal_word(j_5) >> b) & 1u) != 0u) {
                        if (k == 0u) {
                            set_input(tab[T_LEGAL_INPUT + j_5], bit);
                            break;
                        }
                        k = k - 1u;
                    }
                }
                if (j + 6u < hi) {
                    let j_6 = j + 6u;
                    if (((legal_word(j_6) >> b) & 1u) != 0u) {
                        if (k == 0u) {
                            set_input(tab[T_LEGAL_INPUT + j_6], bit);
                            break;
                        }
                        k = k - 1u;
                    }
                }
                if (j + 7u < hi) {
                    let j_7 = j + 7u;
                    if (((legal_word(j_7) >> b) & 1u) != 0u) {
                        if (k == 0u) {
                            set_input(tab[T_LEGAL_INPUT + j_7], bit);
                            break;
                        }
                        k = k - 1u;
                    }
                }
                if (j + 8u < hi) {
                    let j_8 = j + 8u;
                    if (((legal_word(j_8) >> b) & 1u) != 0u) {
                        if (k == 0u) {
                            set_input(tab[T_LEGAL_INPUT + j_8], bit);
                            break;
                        }
                        k = k - 1u;
                    }
                }
                if (j + 9u < hi) {
                    let j_9 = j + 9u;
                    if (((legal_word(j_9) >> b) & 1u) != 0u) {
                        if (k == 0u) {
                            set_input(tab[T_LEGAL_INPUT + j_9], bit);
                            break;
                        }
                        k = k - 1u;
                    }
                }
                if (j + 10u < hi) {
                    let j_10 = j + 10u;
                    if (((legal_word(j_10) >> b) & 1u) != 0u) {
                        if (k == 0u) {
                            set_input(tab[T_LEGAL_INPUT + j_10], bit);
                            break;
                        }
                        k = k - 1u;
                    }
                }
                if (j + 11u < hi) {
                    let j_11 = j + 11u;
                    if (((legal_word(j_11) >> b) & 1u) != 0u) {
                        if (k == 0u) {
                            set_input(tab[T_LEGAL_INPUT + j_11], bit);
                            break;
                        }
                        k = k - 1u;
                    }
                }
                if (j + 12u < hi) {
                    let j_12 = j + 12u;
                    if (((legal_word(j_12) >> b) & 1u) != 0u) {
                        if (k == 0u) {
                            set_input(tab[T_LEGAL_INPUT + j_12], bit);
                            break;
                        }
                        k = k - 1u;
                    }
                }
                if (j + 13u < hi) {
                    let j_13 = j + 13u;
                    if (((legal_word(j_13) >> b) & 1u) != 0u) {
                        if (k == 0u) {
                            set_input(tab[T_LEGAL_INPUT + j_13], bit);
                            break;
                        }
                        k = k - 1u;
                    }
                }
                if (j + 14u < hi) {
                    let j_14 = j + 14u;
                    if (((legal_word(j_14) >> b) & 1u) != 0u) {
                        if (k == 0u) {
                            set_input(tab[T_LEGAL_INPUT + j_14], bit);
                            break;
                        }
                        k = k - 1u;
                    }
                }
                if (j + 15u < hi) {
                    let j_15 = j + 15u;
                    if (((legal_word(j_15) >> b) & 1u) != 0u) {
                        if (k == 0u) {
                            set_input(tab[T_LEGAL_INPUT + j_15], bit);
                            break;
                        }
                        k = k - 1u;
                    }
                }
                if (j + 16u < hi) {
                    let j_16 = j + 16u;
                    if (((legal_word(j_16) >> b) & 1u) != 0u) {
                        if (k == 0u) {
                            set_input(tab[T_LEGAL_INPUT + j_16], bit);
                            break;
                        }
                        k = k - 1u;
                    }
                }
                if (j + 17u < hi) {
                    let j_17 = j + 17u;
                    if (((legal_word(j_17) >> b) & 1u) != 0u) {
                        if (k == 0u) {
                            set_input(tab[T_LEGAL_INPUT + j_17], bit);
                            break;
                        }
                        k = k - 1u;
                    }
                }
                if (j + 18u < hi) {
                    let j_18 = j + 18u;
                    if (((legal_word(j_18) >> b) & 1u) != 0u) {
                        if (k == 0u) {
                            set_input(tab[T_LEGAL_INPUT + j_18], bit);
                            break;
                        }
                        k = k - 1u;
                    }
                }
                if (j + 19u < hi) {
                    let j_19 = j + 19u;
                    if (((legal_word(j_19) >> b) & 1u) != 0u) {
                        if (k == 0u) {
                            set_input(tab[T_LEGAL_INPUT + j_19], bit);
                            break;
                        }
                        k = k - 1u;
                    }
                }
                if (j + 20u < hi) {
                    let j_20 = j + 20u;
                    if (((legal_word(j_20) >> b) & 1u) != 0u) {
                        if (k == 0u) {
                            set_input(tab[T_LEGAL_INPUT + j_20], bit);
                            break;
                        }
                        k = k - 1u;
                    }
                }
                if (j + 21u < hi) {
                    let j_21 = j + 21u;
                    if (((legal_word(j_21) >> b) & 1u) != 0u) {
                        if (k == 0u) {
                            set_input(tab[T_LEGAL_INPUT + j_21], bit);
                            break;
                        }
                        k = k - 1u;
                    }
                }
                if (j + 22u < hi) {
                    let j_22 = j + 22u;
                    if (((legal_word(j_22) >> b) & 1u) != 0u) {
                        if (k == 0u) {
                            set_input(tab[T_LEGAL_INPUT + j_22], bit);
                            break;
                        }
                        k = k - 1u;
                    }
                }
                if (j + 23u < hi) {
                    let j_23 = j + 23u;
                    if (((legal_word(j_23) >> b) & 1u) != 0u) {
                        if (k == 0u) {
                            set_input(tab[T_LEGAL_INPUT + j_23], bit);
                            break;
                        }
                        k = k - 1u;
                    }
                }
                if (j + 24u < hi) {
                    let j_24 = j + 24u;
                    if (((legal_word(j_24) >> b) & 1u) != 0u) {
                        if (k == 0u) {
                            set_input(tab[T_LEGAL_INPUT + j_24], bit);
                            break;
                        }
                        k = k - 1u;
                    }
                }
                if (j + 25u < hi) {
                    let j_25 = j + 25u;
                    if (((legal_word(j_25) >> b) & 1u) != 0u) {
                        if (k == 0u) {
                            set_input(tab[T_LEGAL_INPUT + j_25], bit);
                            break;
                        }
                        k = k - 1u;
                    }
                }
                if (j + 26u < hi) {
                    let j_26 = j + 26u;
                    if (((legal_word(j_26) >> b) & 1u) != 0u) {
                        if (k == 0u) {
                            set_input(tab[T_LEGAL_INPUT + j_26], bit);
                            break;
                        }
                        k = k - 1u;
                    }
                }
                if (j + 27u < hi) {
                    let j_27 = j + 27u;
                    if (((legal_word(j_27) >> b) & 1u) != 0u) {
                        if (k == 0u) {
                            set_input(tab[T_LEGAL_INPUT + j_27], bit);
                            break;
                        }
                        k = k - 1u;
                    }
                }
                if (j + 28u < hi) {
                    let j_28 = j + 28u;
                    if (((legal_word(j_28) >> b) & 1u) != 0u) {
                        if (k == 0u) {
                            set_input(tab[T_LEGAL_INPUT + j_28], bit);
                            break;
                        }
                        k = k - 1u;
                    }
                }
                if (j + 29u < hi) {
                    let j_29 = j + 29u;
                    if (((legal_word(j_29) >> b) & 1u) != 0u) {
                        if (k == 0u) {
                            set_input(tab[T_LEGAL_INPUT + j_29], bit);
                            break;
                        }
                        k = k - 1u;
                    }
                }
                if (j + 30u < hi) {
                    let j_30 = j + 30u;
                    if (((legal_word(j_30) >> b) & 1u) != 0u) {
                        if (k == 0u) {
                            set_input(tab[T_LEGAL_INPUT + j_30], bit);
                            break;
                        }
                        k = k - 1u;
                    }
                }
                if (j + 31u < hi) {
                    let j_31 = j + 31u;
                    if (((legal_word(j_31) >> b) & 1u) != 0u) {
                        if (k == 0u) {
                            set_input(tab[T_LEGAL_INPUT + j_31], bit);
                            break;
                        }
                        k = k - 1u;
                    }
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
        if (w * 32u + 0u < NUM_LATCHES) { st_put(w * 32u + 0u, (st_get(w * 32u + 0u) & keep) | (((s >> 0u) & 1u) << b)); }
        if (w * 32u + 1u < NUM_LATCHES) { st_put(w * 32u + 1u, (st_get(w * 32u + 1u) & keep) | (((s >> 1u) & 1u) << b)); }
        if (w * 32u + 2u < NUM_LATCHES) { st_put(w * 32u + 2u, (st_get(w * 32u + 2u) & keep) | (((s >> 2u) & 1u) << b)); }
        if (w * 32u + 3u < NUM_LATCHES) { st_put(w * 32u + 3u, (st_get(w * 32u + 3u) & keep) | (((s >> 3u) & 1u) << b)); }
        if (w * 32u + 4u < NUM_LATCHES) { st_put(w * 32u + 4u, (st_get(w * 32u + 4u) & keep) | (((s >> 4u) & 1u) << b)); }
        if (w * 32u + 5u < NUM_LATCHES) { st_put(w * 32u + 5u, (st_get(w * 32u + 5u) & keep) | (((s >> 5u) & 1u) << b)); }
        if (w * 32u + 6u < NUM_LATCHES) { st_put(w * 32u + 6u, (st_get(w * 32u + 6u) & keep) | (((s >> 6u) & 1u) << b)); }
        if (w * 32u + 7u < NUM_LATCHES) { st_put(w * 32u + 7u, (st_get(w * 32u + 7u) & keep) | (((s >> 7u) & 1u) << b)); }
        if (w * 32u + 8u < NUM_LATCHES) { st_put(w * 32u + 8u, (st_get(w * 32u + 8u) & keep) | (((s >> 8u) & 1u) << b)); }
        if (w * 32u + 9u < NUM_LATCHES) { st_put(w * 32u + 9u, (st_get(w * 32u + 9u) & keep) | (((s >> 9u) & 1u) << b)); }
        if (w * 32u + 10u < NUM_LATCHES) { st_put(w * 32u + 10u, (st_get(w * 32u + 10u) & keep) | (((s >> 10u) & 1u) << b)); }
        if (w * 32u + 11u < NUM_LATCHES) { st_put(w * 32u + 11u, (st_get(w * 32u + 11u) & keep) | (((s >> 11u) & 1u) << b)); }
        if (w * 32u + 12u < NUM_LATCHES) { st_put(w * 32u + 12u, (st_get(w * 32u + 12u) & keep) | (((s >> 12u) & 1u) << b)); }
        if (w * 32u + 13u < NUM_LATCHES) { st_put(w * 32u + 13u, (st_get(w * 32u + 13u) & keep) | (((s >> 13u) & 1u) << b)); }
        if (w * 32u + 14u < NUM_LATCHES) { st_put(w * 32u + 14u, (st_get(w * 32u + 14u) & keep) | (((s >> 14u) & 1u) << b)); }
        if (w * 32u + 15u < NUM_LATCHES) { st_put(w * 32u + 15u, (st_get(w * 32u + 15u) & keep) | (((s >> 15u) & 1u) << b)); }
        if (w * 32u + 16u < NUM_LATCHES) { st_put(w * 32u + 16u, (st_get(w * 32u + 16u) & keep) | (((s >> 16u) & 1u) << b)); }
        if (w * 32u + 17u < NUM_LATCHES) { st_put(w * 32u + 17u, (st_get(w * 32u + 17u) & keep) | (((s >> 17u) & 1u) << b)); }
        if (w * 32u + 18u < NUM_LATCHES) { st_put(w * 32u + 18u, (st_get(w * 32u + 18u) & keep) | (((s >> 18u) & 1u) << b)); }
        if (w * 32u + 19u < NUM_LATCHES) { st_put(w * 32u + 19u, (st_get(w * 32u + 19u) & keep) | (((s >> 19u) & 1u) << b)); }
        if (w * 32u + 20u < NUM_LATCHES) { st_put(w * 32u + 20u, (st_get(w * 32u + 20u) & keep) | (((s >> 20u) & 1u) << b)); }
        if (w * 32u + 21u < NUM_LATCHES) { st_put(w * 32u + 21u, (st_get(w * 32u + 21u) & keep) | (((s >> 21u) & 1u) << b)); }
        if (w * 32u + 22u < NUM_LATCHES) { st_put(w * 32u + 22u, (st_get(w * 32u + 22u) & keep) | (((s >> 22u) & 1u) << b)); }
        if (w * 32u + 23u < NUM_LATCHES) { st_put(w * 32u + 23u, (st_get(w * 32u + 23u) & keep) | (((s >> 23u) & 1u) << b)); }
        if (w * 32u + 24u < NUM_LATCHES) { st_put(w * 32u + 24u, (st_get(w * 32u + 24u) & keep) | (((s >> 24u) & 1u) << b)); }
        if (w * 32u + 25u < NUM_LATCHES) { st_put(w * 32u + 25u, (st_get(w * 32u + 25u) & keep) | (((s >> 25u) & 1u) << b)); }
        if (w * 32u + 26u < NUM_LATCHES) { st_put(w * 32u + 26u, (st_get(w * 32u + 26u) & keep) | (((s >> 26u) & 1u) << b)); }
        if (w * 32u + 27u < NUM_LATCHES) { st_put(w * 32u + 27u, (st_get(w * 32u + 27u) & keep) | (((s >> 27u) & 1u) << b)); }
        if (w * 32u + 28u < NUM_LATCHES) { st_put(w * 32u + 28u, (st_get(w * 32u + 28u) & keep) | (((s >> 28u) & 1u) << b)); }
        if (w * 32u + 29u < NUM_LATCHES) { st_put(w * 32u + 29u, (st_get(w * 32u + 29u) & keep) | (((s >> 29u) & 1u) << b)); }
        if (w * 32u + 30u < NUM_LATCHES) { st_put(w * 32u + 30u, (st_get(w * 32u + 30u) & keep) | (((s >> 30u) & 1u) << b)); }
        if (w * 32u + 31u < NUM_LATCHES) { st_put(w * 32u + 31u, (st_get(w * 32u + 31u) & keep) | (((s >> 31u) & 1u) << b)); }
    }
}

@compute @workgroup_size(32)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
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
    if (prm.resume != 0u) {
        live = ctx[c];
        empty = ctx[c + 1u];
        for (b = 0u; b < LANES; b = b + 1u) {
            lane_seq[b] = ctx[c + 2u + b];
            lane_po[b] = ctx[c + 2u + LANES + b];
            lane_step[b] = ctx[c + 2u + 2u * LANES + b];
        }
        for (l = 0u; l < CTX_STATE; l = l + 16u) {
            {
                let l_0 = l;
                st_put(l_0, ctx[c + 2u + 3u * LANES + l_0]);
            }
            if (l + 1u < CTX_STATE) {
                let l_1 = l + 1u;
                st_put(l_1, ctx[c + 2u + 3u * LANES + l_1]);
            }
            if (l + 2u < CTX_STATE) {
                let l_2 = l + 2u;
                st_put(l_2, ctx[c + 2u + 3u * LANES + l_2]);
            }
            if (l + 3u < CTX_STATE) {
                let l_3 = l + 3u;
                st_put(l_3, ctx[c + 2u + 3u * LANES + l_3]);
            }
            if (l + 4u < CTX_STATE) {
                let l_4 = l + 4u;
                st_put(l_4, ctx[c + 2u + 3u * LANES + l_4]);
            }
            if (l + 5u < CTX_STATE) {
                let l_5 = l + 5u;
                st_put(l_5, ctx[c + 2u + 3u * LANES + l_5]);
            }
            if (l + 6u < CTX_STATE) {
                let l_6 = l + 6u;
                st_put(l_6, ctx[c + 2u + 3u * LANES + l_6]);
            }
            if (l + 7u < CTX_STATE) {
                let l_7 = l + 7u;
                st_put(l_7, ctx[c + 2u + 3u * LANES + l_7]);
            }
            if (l + 8u < CTX_STATE) {
                let l_8 = l + 8u;
                st_put(l_8, ctx[c + 2u + 3u * LANES + l_8]);
            }
            if (l + 9u < CTX_STATE) {
                let l_9 = l + 9u;
                st_put(l_9, ctx[c + 2u + 3u * LANES + l_9]);
            }
            if (l + 10u < CTX_STATE) {
                let l_10 = l + 10u;
                st_put(l_10, ctx[c + 2u + 3u * LANES + l_10]);
            }
            if (l + 11u < CTX_STATE) {
                let l_11 = l + 11u;
                st_put(l_11, ctx[c + 2u + 3u * LANES + l_11]);
            }
            if (l + 12u < CTX_STATE) {
                let l_12 = l + 12u;
                st_put(l_12, ctx[c + 2u + 3u * LANES + l_12]);
            }
            if (l + 13u < CTX_STATE) {
                let l_13 = l + 13u;
                st_put(l_13, ctx[c + 2u + 3u * LANES + l_13]);
            }
            if (l + 14u < CTX_STATE) {
                let l_14 = l + 14u;
                st_put(l_14, ctx[c + 2u + 3u * LANES + l_14]);
            }
            if (l + 15u < CTX_STATE) {
                let l_15 = l + 15u;
                st_put(l_15, ctx[c + 2u + 3u * LANES + l_15]);
            }
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
            // Out of steps for this dispatch: the lanes are saved below.
            saved = true;
            break;
        }
        iter = iter + 1u;
        let g0 = st[0]; // lock
        let g1 = st[1]; // done
        let g2 = ~g0;
        let g3 = 0xffffffffu;
        let g4 = 0u;
        lg[0] = g3;
        lg[1] = g3;
        lg[2] = g3;
        lg[3] = g2;
        gl[0] = g3;
        gl[1] = g1;
        gl[2] = g4;
        let term_w = g1;
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
            let g5 = inp[0]; // does red close
            let g6 = inp[2]; // does red stop
            let g7 = g0 | g5;
            let g8 = g1 | g6;
            let g9 = inp[1]; // does red pass
            let g10 = inp[3]; // does blue move
            st[0] = (g7 & go) | (st[0] & ~go);
            st[1] = (g8 & go) | (st[1] & ~go);
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
    if (saved) {
        // The host dispatches again with prm.resume = 1.
        ctx[c] = live;
        ctx[c + 1u] = empty;
        for (b = 0u; b < LANES; b = b + 1u) {
            ctx[c + 2u + b] = lane_seq[b];
            ctx[c + 2u + LANES + b] = lane_po[b];
            ctx[c + 2u + 2u * LANES + b] = lane_step[b];
        }
        for (l = 0u; l < CTX_STATE; l = l + 16u) {
            {
                let l_0 = l;
                ctx[c + 2u + 3u * LANES + l_0] = st_get(l_0);
            }
            if (l + 1u < CTX_STATE) {
                let l_1 = l + 1u;
                ctx[c + 2u + 3u * LANES + l_1] = st_get(l_1);
            }
            if (l + 2u < CTX_STATE) {
                let l_2 = l + 2u;
                ctx[c + 2u + 3u * LANES + l_2] = st_get(l_2);
            }
            if (l + 3u < CTX_STATE) {
                let l_3 = l + 3u;
                ctx[c + 2u + 3u * LANES + l_3] = st_get(l_3);
            }
            if (l + 4u < CTX_STATE) {
                let l_4 = l + 4u;
                ctx[c + 2u + 3u * LANES + l_4] = st_get(l_4);
            }
            if (l + 5u < CTX_STATE) {
                let l_5 = l + 5u;
                ctx[c + 2u + 3u * LANES + l_5] = st_get(l_5);
            }
            if (l + 6u < CTX_STATE) {
                let l_6 = l + 6u;
                ctx[c + 2u + 3u * LANES + l_6] = st_get(l_6);
            }
            if (l + 7u < CTX_STATE) {
                let l_7 = l + 7u;
                ctx[c + 2u + 3u * LANES + l_7] = st_get(l_7);
            }
            if (l + 8u < CTX_STATE) {
                let l_8 = l + 8u;
                ctx[c + 2u + 3u * LANES + l_8] = st_get(l_8);
            }
            if (l + 9u < CTX_STATE) {
                let l_9 = l + 9u;
                ctx[c + 2u + 3u * LANES + l_9] = st_get(l_9);
            }
            if (l + 10u < CTX_STATE) {
                let l_10 = l + 10u;
                ctx[c + 2u + 3u * LANES + l_10] = st_get(l_10);
            }
            if (l + 11u < CTX_STATE) {
                let l_11 = l + 11u;
                ctx[c + 2u + 3u * LANES + l_11] = st_get(l_11);
            }
            if (l + 12u < CTX_STATE) {
                let l_12 = l + 12u;
                ctx[c + 2u + 3u * LANES + l_12] = st_get(l_12);
            }
            if (l + 13u < CTX_STATE) {
                let l_13 = l + 13u;
                ctx[c + 2u + 3u * LANES + l_13] = st_get(l_13);
            }
            if (l + 14u < CTX_STATE) {
                let l_14 = l + 14u;
                ctx[c + 2u + 3u * LANES + l_14] = st_get(l_14);
            }
            if (l + 15u < CTX_STATE) {
                let l_15 = l + 15u;
                ctx[c + 2u + 3u * LANES + l_15] = st_get(l_15);
            }
        }
        atomicAdd(&ctr.pending, 1u);
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
