#!/usr/bin/env bash
# Device check for a machine with a real GPU (e.g. one H200, 16 cores, ~15 min lent once).
# 1. GPU == CPU == reference, bit for bit, both shader layouts (PROPNET_REQUIRE_GPU=1 and
#    PROPNET_REQUIRE_SHARED=1: no skips): kernels' gpu_random and propnet-tests' gpu_vs_cpu
#    (tic-tac-toe, connect four, simultaneous connect four, breakthrough, a positive-loop game,
#    a recursive corpus game, random netlists; amazons (> 5,000 gates) too unless SMALL);
# 2. GPU bench: playouts/s, state updates/s and gate evaluations/s per game (bench-games/*.kif
#    compiled by `propnet compile`, the CLI's pipeline) and per random netlist, over batch sizes.
# Results (JSON + logs) go to $1, else $OUT, else ./device-check-out:
#   summary.json, equality.log, bench.json (one object per measurement), bench.log.
# Must finish well under 8 minutes on the device; DEVICE_CHECK_SMALL=1 shrinks every size
# (a dry run on lavapipe takes a few minutes).
#
# The device machine has no network, so everything is built HERE (release) and carried:
#   scripts/device-check.sh prepare        # release build; binaries, games and the corpus
#                                          # files the tests need go to device-bin/ (< 64 MiB)
#   DEVICE_CHECK_SMALL=1 scripts/device-check.sh   # dry run here (lavapipe)
#   then on the device: run(command="scripts/device-check.sh", carry=["device-bin"])
# With device-bin/ present the script only runs those binaries (no cargo, no network).
# Without it, it builds with `cargo --offline` (needs a filled cargo registry) and uses the
# checkout's bench-games/ and ../shared.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=device-bin
# Corpus games the equality tests read (paths under shared/games/).
CORPUS=(ggp-repository/ticTacToe.kif ggp-repository/connect4.kif
  ggp-repository/connectFourSimultaneous.kif
  ggp-base-tests/test_case_5c.kif)

# DEVICE_CHECK_PROFILE=dev builds the dev profile instead of release (a quicker dry run of
# the script itself on lavapipe; the shader runs at the same speed in either profile).
if [[ "${DEVICE_CHECK_PROFILE:-release}" == dev ]]; then
  PROFILE_FLAG=(); TARGET=target/debug
else
  PROFILE_FLAG=(--release); TARGET=target/release
fi

if [[ "${1:-}" == prepare ]]; then
  rm -rf "$BIN"
  mkdir -p "$BIN/ws" "$BIN/games"
  cargo build "${PROFILE_FLAG[@]}" -p propnet-kernels --example gpu_bench
  cargo build "${PROFILE_FLAG[@]}" -p propnet-host --bin propnet
  cp "$TARGET/examples/gpu_bench" "$BIN/"
  # The test executables' paths come from cargo's JSON messages.
  for t in "propnet-kernels gpu_random" "propnet-tests gpu_vs_cpu"; do
    set -- $t
    exe=$(cargo test "${PROFILE_FLAG[@]}" --no-run -p "$1" --test "$2" --message-format=json 2>/dev/null \
      | grep -o '"executable":"[^"]*"' | cut -d'"' -f4 | tail -n 1)
    [[ -x "$exe" ]] || { echo "prepare: no test executable for $1 $2" >&2; exit 1; }
    cp "$exe" "$BIN/$2"
  done
  # Games for the bench, compiled here by the CLI's pipeline.
  for g in bench-games/*.kif; do
    "$TARGET/propnet" compile "$g" -o "$BIN/games/$(basename "$g" .kif).json"
  done
  # A workspace for the tests: PROPNET_WORKSPACE=$BIN/ws, shared corpus at $BIN/shared.
  cp -r bench-games "$BIN/ws/"
  for f in "${CORPUS[@]}"; do
    mkdir -p "$BIN/shared/games/$(dirname "$f")"
    cp "../shared/games/$f" "$BIN/shared/games/$f"
  done
  strip "$BIN"/gpu_bench "$BIN"/gpu_random "$BIN"/gpu_vs_cpu 2>/dev/null || true
  ls -la "$BIN"; du -sh "$BIN"
  exit 0
fi

OUT_DIR="${1:-${OUT:-$PWD/device-check-out}}"
mkdir -p "$OUT_DIR"
OUT_DIR="$(cd "$OUT_DIR" && pwd)"
export PROPNET_REQUIRE_GPU=1
export CARGO_TERM_COLOR=never
start=$(date +%s)
log() { echo "[device-check +$(( $(date +%s) - start ))s] $*" | tee -a "$OUT_DIR/device-check.log"; }

SMALL="${DEVICE_CHECK_SMALL:-0}"
if [[ "$SMALL" == 1 ]]; then
  export BENCH_BATCHES="${BENCH_BATCHES:-256,1024}" BENCH_SIZES="${BENCH_SIZES:-200}"
  export BENCH_MAX_STEPS="${BENCH_MAX_STEPS:-60}" BENCH_REPS="${BENCH_REPS:-1}"
  # Five games only (tic-tac-toe, connect four, simultaneous connect four, breakthrough, the
  # positive-loop game) and no random netlists; lavapipe time limits.
  IGNORED=""; FILTER=(tictactoe connect_four breakthrough positive_loop); T_RANDOM=0; T_CPU=900
  T_BENCH=600
else
  export BENCH_BATCHES="${BENCH_BATCHES:-16384,262144,2097152}" BENCH_SIZES="${BENCH_SIZES:-200,2000,20000,60000}"
  export BENCH_MAX_STEPS="${BENCH_MAX_STEPS:-200}" BENCH_REPS="${BENCH_REPS:-3}"
  IGNORED="--include-ignored"; FILTER=(); T_RANDOM=120; T_CPU=180; T_BENCH=150
fi

log "adapter: $( (vulkaninfo --summary 2>/dev/null | grep -m1 deviceName) || nvidia-smi -L 2>/dev/null || echo unknown)"
if [[ -d "$BIN" ]]; then
  log "using prebuilt release binaries in $BIN"
  export PROPNET_WORKSPACE="$PWD/$BIN/ws" PROPNET_REQUIRE_SHARED=1
  TEST_RANDOM=("$BIN/gpu_random"); TEST_CPU=("$BIN/gpu_vs_cpu"); BENCH="$BIN/gpu_bench"
  mapfile -t GAMES < <(ls -Sr "$BIN"/games/*.json)  # small netlists first
else
  log "building (${PROFILE_FLAG[*]:-dev}, offline)"
  cargo build --offline "${PROFILE_FLAG[@]}" -p propnet-kernels --example gpu_bench -p propnet-host --bin propnet 2>&1 | tail -n 3 | tee -a "$OUT_DIR/device-check.log"
  cargo test --offline "${PROFILE_FLAG[@]}" --no-run -p propnet-kernels -p propnet-tests 2>&1 | tail -n 3 | tee -a "$OUT_DIR/device-check.log"
  TEST_RANDOM=(cargo test --offline "${PROFILE_FLAG[@]}" -p propnet-kernels --test gpu_random --)
  TEST_CPU=(cargo test --offline "${PROFILE_FLAG[@]}" -p propnet-tests --test gpu_vs_cpu --)
  BENCH="./$TARGET/examples/gpu_bench"
  mkdir -p "$OUT_DIR/games"
  for g in bench-games/*.kif; do
    "./$TARGET/propnet" compile "$g" -o "$OUT_DIR/games/$(basename "$g" .kif).json" >/dev/null
  done
  mapfile -t GAMES < <(ls -Sr "$OUT_DIR"/games/*.json)
fi

log "equality: GPU == CPU == reference"
status=pass
: > "$OUT_DIR/equality.log"
if [[ "$T_RANDOM" -gt 0 ]] && ! timeout "$T_RANDOM" "${TEST_RANDOM[@]}" >> "$OUT_DIR/equality.log" 2>&1; then
  status=fail
fi
if ! timeout "$T_CPU" "${TEST_CPU[@]}" $IGNORED "${FILTER[@]}" >> "$OUT_DIR/equality.log" 2>&1; then
  status=fail
fi
grep -E "^test |test result" "$OUT_DIR/equality.log" | tee -a "$OUT_DIR/device-check.log"
log "equality: $status"

log "bench: games=${#GAMES[@]} sizes=$BENCH_SIZES batches=$BENCH_BATCHES max_steps=$BENCH_MAX_STEPS reps=$BENCH_REPS"
bench_status=pass
if ! timeout "$T_BENCH" "$BENCH" "$OUT_DIR/bench.json" "${GAMES[@]}" > "$OUT_DIR/bench.log" 2>&1; then
  bench_status=fail
fi
grep -v XDG_RUNTIME "$OUT_DIR/bench.log" | tail -n 60 | tee -a "$OUT_DIR/device-check.log"
[[ -s "$OUT_DIR/bench.json" ]] || { bench_status=fail; echo "[]" > "$OUT_DIR/bench.json"; }
log "bench: $bench_status"

adapter=$(grep -o '"adapter":"[^"]*"' "$OUT_DIR/bench.json" | head -n 1 | cut -d'"' -f4 || true)
cat > "$OUT_DIR/summary.json" <<JSON
{"equality": "$status", "bench": "$bench_status", "small": $SMALL, "adapter": "${adapter:-unknown}", "seconds": $(( $(date +%s) - start )), "equality_log": "equality.log", "bench_file": "bench.json"}
JSON
log "done: equality $status, bench $bench_status"
[[ "$status" == pass && "$bench_status" == pass ]]
