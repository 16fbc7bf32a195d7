#!/usr/bin/env bash
# GGP player benchmark (not a test): runs `propnet player` against the in-process random
# player through `propnet match` (the game manager) on loopback and summarizes reply
# latency as a fraction of the play clock (player side and manager side, max and p99) and
# MCTS iterations and playouts per second during the play clock, from the player's log.
#
#   scripts/ggp-bench.sh GAME PLAYCLOCK GAMES [player flags…]
#   e.g. scripts/ggp-bench.sh bench-games/connectfour.kif 1 2 --backend cpu --threads 1
# MANAGER_FLAGS adds flags to `propnet match` (e.g. `--ground-atoms 1` with the player's
# `--ground-atoms 1` to measure the interpreter fallback).
#
# Needs a release build (cargo build --release -p propnet-host) and python3.
set -euo pipefail
game=$1 clock=$2 games=$3; shift 3
bin=${PROPNET:-target/release/propnet}
dir=$(mktemp -d)
"$bin" player --port 0 --log-dir "$dir/log" "$@" >"$dir/out" 2>"$dir/err" &
pid=$!
trap 'kill $pid 2>/dev/null || true; rm -rf "$dir"' EXIT
for _ in $(seq 100); do grep -q listening "$dir/out" 2>/dev/null && break; sleep 0.1; done
port=$(sed -n 's/.*:\([0-9]*\)$/\1/p' "$dir/out")
"$bin" match "$game" --players "http://127.0.0.1:$port,random" --games "$games" \
  --startclock 3 --playclock "$clock" --record-dir "$dir/rec" ${MANAGER_FLAGS:-} >/dev/null 2>&1
python3 - "$dir" "$clock" <<'PY'
import json, os, sys
d, clock = sys.argv[1], float(sys.argv[2]) * 1000
lat, mgr, its, pls, backend, first = [], [], [], [], set(), []
for f in os.listdir(d + "/log"):
    if f == "player.jsonl":
        continue
    seen = False
    for line in open(os.path.join(d, "log", f)):
        r = json.loads(line)
        if "latency_ms" in r:
            lat.append(r["latency_ms"] / clock)
            if r.get("think_ms", 0) > 0:
                if not seen:
                    first.append((r["iterations_per_s"], r["playouts_per_s"]))
                    seen = True
                its.append(r["iterations_per_s"]); pls.append(r["playouts_per_s"])
                backend.add(r.get("backend", "?"))
for f in os.listdir(d + "/rec"):
    rec = json.load(open(os.path.join(d, "rec", f)))
    for step in rec["replyMillis"][1:]:
        mgr += [m / clock for m in step if m is not None]
def q(xs, p):
    xs = sorted(xs); return xs[min(len(xs) - 1, int(len(xs) * p))] if xs else float("nan")
mean = lambda xs: sum(xs) / len(xs) if xs else float("nan")
print(f"replies {len(lat)}; latency/clock player max {max(lat):.3f} p99 {q(lat, .99):.3f}; "
      f"manager max {max(mgr):.3f} p99 {q(mgr, .99):.3f}")
print(f"searched moves {len(its)}: mean {mean(its):,.0f} iterations/s, {mean(pls):,.0f} playouts/s; "
      f"first move {mean([f[0] for f in first]):,.0f} iterations/s, {mean([f[1] for f in first]):,.0f} playouts/s; "
      f"{'; '.join(sorted(backend))}")
PY
