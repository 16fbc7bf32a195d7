#!/bin/sh
# gdl-perf correctness adapter for the SWI-Prolog oracle (shared/oracle/gdl-trace):
#
#   prolog-oracle-trace.sh GAME OUTFILE STATE_CHANGES
#
# Writes to OUTFILE a trace of whole random playouts (the oracle's JSON lines, seed 1)
# covering at least STATE_CHANGES joint moves; `propnet verify` and `propnet compare
# --verify --trace-cmd NAME=…/prolog-oracle-trace.sh` read it.
# The oracle is found at $PROPNET_ORACLE, else ../shared/oracle/gdl-trace beside the checkout.
set -u
if [ $# -ne 3 ]; then
  echo "usage: $0 GAME OUTFILE STATE_CHANGES" >&2
  exit 2
fi
game=$1 out=$2 n=$3
here=$(cd "$(dirname "$0")" && pwd)
oracle=${PROPNET_ORACLE:-$here/../../../shared/oracle/gdl-trace}
[ -x "$oracle" ] || { echo "oracle not found at $oracle (set PROPNET_ORACLE)" >&2; exit 1; }
# At most N playouts are needed (each makes a joint move unless the game starts terminal);
# awk stops after the playout that reaches N joint moves, which ends gdl-trace (SIGPIPE).
"$oracle" "$game" --playouts "$n" --seed 1 2> "$out.err" | awk -v n="$n" '
  { print }
  /"joint"/ { j++; next }
  NR > 1 && j >= n { exit }' > "$out"
if [ "$(wc -l < "$out")" -lt 2 ]; then
  echo "gdl-trace wrote no playout: $(tail -c 300 "$out.err")" >&2
  exit 1
fi
rm -f "$out.err"
