#!/usr/bin/env bash
# Device check for a machine with a real GPU (e.g. one H200, 16 cores, ~15 min lent once).
# 1. release build of the GPU tests and the bench;
# 2. GPU == CPU reference, bit for bit, both shader layouts (PROPNET_REQUIRE_GPU=1: no skip);
# 3. GPU bench: playouts/s and state updates/s per netlist over batch sizes.
# Results (JSON + logs) go to $1, else $OUT, else ./device-check-out. Must finish well under
# 8 minutes; DEVICE_CHECK_SMALL=1 shrinks every size (for a dry run on lavapipe).
set -euo pipefail
cd "$(dirname "$0")/.."
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
log "building (release)"
cargo build --release -p propnet-kernels --example gpu_bench 2>&1 | tail -n 3 | tee -a "$OUT_DIR/device-check.log"
cargo test --release --no-run -p propnet-kernels -p propnet-tests 2>&1 | tail -n 3 | tee -a "$OUT_DIR/device-check.log"

log "equality: GPU == reference"
status=pass
if ! cargo test --release -p propnet-kernels --test gpu_random > "$OUT_DIR/equality.log" 2>&1; then
  status=fail
fi
if ! cargo test --release -p propnet-tests --test gpu_vs_cpu >> "$OUT_DIR/equality.log" 2>&1; then
  status=fail
fi
tail -n 20 "$OUT_DIR/equality.log" | tee -a "$OUT_DIR/device-check.log"
log "equality: $status"

log "bench: sizes=$BENCH_SIZES batches=$BENCH_BATCHES max_steps=$BENCH_MAX_STEPS reps=$BENCH_REPS"
bench_status=pass
if ! timeout 300 ./target/release/examples/gpu_bench "$OUT_DIR/bench.json" > "$OUT_DIR/bench.log" 2>&1; then
  bench_status=fail
fi
tail -n 40 "$OUT_DIR/bench.log" | tee -a "$OUT_DIR/device-check.log"
log "bench: $bench_status"

cat > "$OUT_DIR/summary.json" <<JSON
{"equality": "$status", "bench": "$bench_status", "seconds": $(( $(date +%s) - start )), "bench_file": "bench.json"}
JSON
log "done"
[[ "$status" == pass && "$bench_status" == pass ]]
