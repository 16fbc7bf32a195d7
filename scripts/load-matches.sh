#!/usr/bin/env bash
# A series of GGP matches under load (issue #42's acceptance): two `propnet player`s over
# HTTP on 127.0.0.1, `propnet match` as the game manager, and every core also kept busy by
# a busy-loop burner for the whole series. Afterwards it prints, over every PLAY reply,
# the latency against the play clock (no grace), the errors the manager recorded (late,
# illegal, no connection) and the players' largest search trees.
#
# Usage: scripts/load-matches.sh PROPNET GAME MATCHES PLAYCLOCK_S OUTDIR
#   e.g. scripts/load-matches.sh target/release/propnet bench-games/connectfour.kif 20 2 /tmp/load
# PLAYER_ARGS (environment) is added to both players' command lines, e.g.
#   PLAYER_ARGS="--playouts-per-leaf 1" grows the search trees about 16 times faster.
set -euo pipefail
if [ $# -ne 5 ]; then
  sed -n '2,11p' "$0" >&2
  exit 2
fi
propnet=$1 game=$2 matches=$3 clock=$4 out=$5
read -r -a player_args <<<"${PLAYER_ARGS:-}"
mkdir -p "$out"
pids=()
cleanup() { kill "${pids[@]}" 2>/dev/null || true; }
trap cleanup EXIT
for _ in $(seq "$(nproc)"); do
  sh -c 'while :; do :; done' &
  pids+=($!)
done
urls=()
for p in p1 p2; do
  "$propnet" player --port 0 --name "propnet-$p" --log-dir "$out/$p" "${player_args[@]}" >"$out/$p.out" 2>"$out/$p.err" &
  pids+=($!)
  for _ in $(seq 100); do
    grep -q "listening on" "$out/$p.out" 2>/dev/null && break
    sleep 0.1
  done
  urls+=("http://$(sed -n 's/^listening on //p' "$out/$p.out" | head -1)")
done
echo "players ${urls[*]}, $(nproc) burner(s), $matches match(es) of $game, play clock $clock s"
"$propnet" match "$game" --players "${urls[0]},${urls[1]}" --games "$matches" \
  --startclock 10 --playclock "$clock" --record-dir "$out/records" | tee "$out/match.out"
python3 - "$out" "$clock" <<'EOF'
import glob, json, os, sys
out, clock_ms = sys.argv[1], float(sys.argv[2]) * 1000
replies, late, errors, matches = [], 0, {}, 0
for f in sorted(glob.glob(os.path.join(out, "records", "*.json"))):
    rec = json.load(open(f))
    matches += 1
    # The first entry of reply_millis is START's; the rest are PLAYs.
    for step, (ms_row, err_row) in enumerate(zip(rec["replyMillis"][1:], rec["errors"][1:])):
        for ms, err in zip(ms_row, err_row):
            if ms is not None:
                replies.append(ms)
                late += ms > clock_ms
            if err:
                errors[err.split()[0]] = errors.get(err.split()[0], 0) + 1
nodes = []
for f in glob.glob(os.path.join(out, "p*", "*.jsonl")):
    for line in open(f):
        try:
            nodes.append(json.loads(line).get("nodes") or 0)
        except ValueError:
            pass
replies.sort()
q = lambda p: replies[min(len(replies) - 1, int(p * len(replies)))] if replies else float("nan")
print(f"{matches} matches, {len(replies)} PLAY replies: median {q(0.5):.0f} ms, "
      f"p99 {q(0.99):.0f} ms, max {max(replies, default=float('nan')):.0f} ms; "
      f"over the {clock_ms:.0f} ms clock: {late}; errors recorded: {errors or 'none'}; "
      f"largest tree {max(nodes, default=0):,} nodes")
EOF
