#!/usr/bin/env bash
# Device check for a machine with a real GPU (e.g. one H200, 16 cores, ~15 min lent once).
# 1. GPU == CPU == reference, bit for bit, both shader layouts (PROPNET_REQUIRE_GPU=1: no
#    skip): kernels' gpu_random and propnet-tests' gpu_vs_cpu;
# 2. GPU bench: playouts/s and state updates/s per netlist over batch sizes.
# Results (JSON + logs) go to $1, else $OUT, else ./device-check-out. Must finish well under
# 8 minutes; DEVICE_CHECK_SMALL=1 shrinks every size (for a dry run on lavapipe).
#
# The device machine has no network, so the binaries are built HERE and carried:
#   scripts/device-check.sh prepare        # release build, copies binaries to device-bin/
#   DEVICE_CHECK_SMALL=1 scripts/device-check.sh   # optional dry run here (lavapipe)
#   then on the device: run(command="scripts/device-check.sh", carry=["device-bin"])
# With device-bin/ present the script only runs those binaries (tests find bench-games/ via
# PROPNET_WORKSPACE=$PWD; the shared corpus is used when ../shared exists, else those tests
# skip). Without device-bin/ it builds with `cargo --offline` (needs a filled registry).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=device-bin
if [[ "${1:-}" == prepare ]]; then
  mkdir -p "$BIN"
  cargo build --release -p propnet-kernels --example gpu_bench
  cp target/release/examples/gpu_bench "$BIN/"
  # The test executables' paths come from cargo's JSON messages.
  for t in "propnet-kernels gpu_random" "propnet-tests gpu_vs_cpu"; do
    set -- $t
    cargo test --release --no-run -p "$1" --test "$2" --message-format=json 2>/dev/null \
      | grep -o '"executable":"[^"]*"' | cut -d'"' -f4 \
      | while read -r exe; do cp "$exe" "$BIN/$2"; done
  done
  strip "$BIN"/* 2>/dev/null || true
  ls -la "$BIN"; du -sh "$BIN"
  exit 0
fi

OUT_DIR="${1:-${OUT:-$PWD/device-check-out}}"
mkdir -p "$OUT_DIR"
export PROPNET_REQUIRE_GPU=1
export CARGO_TERM_COLOR=never
start=$(date +%s)
log() { echo "[device-check +$(( $(date +%s) - start ))s] $*" | tee -a "$OUT_DIR/device-check.log"; }

if [[ "${DEVICE_CHECK_SMALL:-0}" == 1 ]]; then
  export BENCH_BATCHES="${BENCH_BATCHES:-1024,4096}" BENCH_SIZES="${BENCH_SIZES:-200,2000}"
  export BENCH_MAX_STEPS="${BENCH_MAX_STEPS:-60}" BENCH_REPS="${BENCH_REPS:-1}"
else
  export BENCH_BATCHES="${BENCH_BATCHES:-16384,262144,2097152}" BENCH_SIZES="${BENCH_SIZES:-200,2000,20000,60000}"
  export BENCH_MAX_STEPS="${BENCH_MAX_STEPS:-200}" BENCH_REPS="${BENCH_REPS:-3}"
fi

log "adapter: $( (vulkaninfo --summary 2>/dev/null | grep -m1 deviceName) || nvidia-smi -L 2>/dev/null || echo unknown)"
if [[ -d "$BIN" ]]; then
  log "using prebuilt binaries in $BIN"
  export PROPNET_WORKSPACE="$PWD"
  TEST_RANDOM="$BIN/gpu_random"; TEST_CPU="$BIN/gpu_vs_cpu"; BENCH="$BIN/gpu_bench"
else
  log "building (release, offline)"
  cargo build --offline --release -p propnet-kernels --example gpu_bench 2>&1 | tail -n 3 | tee -a "$OUT_DIR/device-check.log"
  cargo test --offline --release --no-run -p propnet-kernels -p propnet-tests 2>&1 | tail -n 3 | tee -a "$OUT_DIR/device-check.log"
  TEST_RANDOM="cargo test --offline --release -p propnet-kernels --test gpu_random --"
  TEST_CPU="cargo test --offline --release -p propnet-tests --test gpu_vs_cpu --"
  BENCH=./target/release/examples/gpu_bench
fi

log "equality: GPU == CPU == reference"
status=pass
if ! timeout 240 $TEST_RANDOM > "$OUT_DIR/equality.log" 2>&1; then
  status=fail
fi
if ! timeout 240 $TEST_CPU --include-ignored >> "$OUT_DIR/equality.log" 2>&1; then
  status=fail
fi
tail -n 20 "$OUT_DIR/equality.log" | tee -a "$OUT_DIR/device-check.log"
log "equality: $status"

log "bench: sizes=$BENCH_SIZES batches=$BENCH_BATCHES max_steps=$BENCH_MAX_STEPS reps=$BENCH_REPS"
bench_status=pass
if ! timeout 300 "$BENCH" "$OUT_DIR/bench.json" > "$OUT_DIR/bench.log" 2>&1; then
  bench_status=fail
fi
tail -n 40 "$OUT_DIR/bench.log" | tee -a "$OUT_DIR/device-check.log"
log "bench: $bench_status"

cat > "$OUT_DIR/summary.json" <<JSON
{"equality": "$status", "bench": "$bench_status", "seconds": $(( $(date +%s) - start )), "bench_file": "bench.json"}
JSON
log "done"
[[ "$status" == pass && "$bench_status" == pass ]]
