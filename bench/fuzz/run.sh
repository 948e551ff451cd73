#!/bin/bash
# Fuzzes mpt's passes for a given time: mpt-fuzz over the training steps in
# examples/ and test/, one process per seed (a crash or hang ends a process;
# the next seed goes on), findings saved under OUT.
#
#   bench/fuzz/run.sh [SECONDS=600] [OUT=build/fuzz] [FIRST_SEED=1]
#
# Prints each process's summary and the totals; exit code 1 when anything
# was found. Build with -DMPT_SANITIZE=address;undefined (build-asan) and set
# MPT_FUZZ=build-asan/bin/mpt-fuzz to catch memory errors too.
set -u
cd "$(dirname "$0")/../.."
seconds=${1:-600}
out=${2:-build/fuzz}
seed=${3:-1}
fuzz=${MPT_FUZZ:-build/bin/mpt-fuzz}
mkdir -p "$out"
end=$((SECONDS + seconds))
mutants=0 runs=0 found=0 crashed=0
while [ $SECONDS -lt $end ]; do
  left=$((end - SECONDS))
  log="$out/seed-$seed.log"
  "$fuzz" examples test --seed "$seed" --mutants 0 --time "$left" --out "$out" \
    --timeout 60 > "$log" 2>&1
  rc=$?
  tail -n 20 "$log" | grep -E "^mpt-fuzz: seed|^  |CRASH|HANG" || true
  m=$(sed -n 's/.* seed modules, \([0-9]*\) mutants.*/\1/p' "$log")
  r=$(sed -n 's/.*), \([0-9]*\) pass runs.*/\1/p' "$log")
  f=$(sed -n 's/^mpt-fuzz: \([0-9]*\) finding(s)/\1/p' "$log")
  mutants=$((mutants + ${m:-0})) runs=$((runs + ${r:-0})) found=$((found + ${f:-0}))
  # No summary: the process died (crash or hang, saved under $out).
  if [ -z "$f" ]; then crashed=$((crashed + 1)); fi
  seed=$((seed + 1))
done
echo "total: $mutants mutants, $runs pass runs, $found findings, $crashed processes ended by a crash or hang (see $out)"
[ $found -eq 0 ] && [ $crashed -eq 0 ]
