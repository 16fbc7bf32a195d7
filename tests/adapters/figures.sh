#!/bin/sh
# A gdl-perf reasoner that reports whatever figures it is told, for the tests of the
# checks `propnet compare` makes of external results (issue #42 item 4):
#
#   figures.sh MS STATES ROLLOUTS PAUSE [LINE…] GAME OUTFILE SECONDS
#
# Sleeps PAUSE seconds, then writes millisecondsTaken=MS, numStateChanges=STATES,
# numRollouts=ROLLOUTS and each further LINE (e.g. a key given twice) to OUTFILE.
set -u
ms=$1 states=$2 rollouts=$3 pause=$4
shift 4
extra=
while [ $# -gt 3 ]; do
  extra="$extra$1
"
  shift
done
out=$2
sleep "$pause"
printf 'version=figures 1\nmillisecondsTaken=%s\nnumStateChanges=%s\nnumRollouts=%s\n%s' \
  "$ms" "$states" "$rollouts" "$extra" > "$out"
