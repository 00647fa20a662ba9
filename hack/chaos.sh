#!/usr/bin/env bash
# Runs the crash trials (test/chaos) as PARALLEL independent sandbox fleets, TRIALS in all, and
# sums their verdicts into one line: "trials N, kills K, violations V", after a line counting the
# kinds of trials: "failing versions F, rollbacks R, deadlines D". Each fleet gets its own
# seed (CHAOS_SEED, or a random one, plus the fleet's number), printed so a run can be replayed.
set -euo pipefail

trials=${1:?usage: hack/chaos.sh TRIALS [PARALLEL]}
parallel=${2:-1}
seed=${CHAOS_SEED:-$((RANDOM * 32768 + RANDOM))}
bin=$(mktemp -d)/chaos.test
go test -tags e2e -c -o "$bin" ./test/chaos/
logs=$(mktemp -d /tmp/stagecoach-chaos-XXXXXX)
echo "crash trials: $trials in $parallel fleets, CHAOS_SEED=$seed, logs in $logs"

pids=()
for ((i = 0; i < parallel; i++)); do
	n=$((trials / parallel + (i < trials % parallel ? 1 : 0)))
	[ "$n" -gt 0 ] || continue
	(cd test/chaos && CHAOS_TRIALS=$n CHAOS_SEED=$((seed + i)) \
		"$bin" -test.run '^TestCrashTrials$' -test.v -test.count 1 -test.timeout 0 >"$logs/fleet-$i.log" 2>&1) &
	pids+=($!)
done
failed=0
for pid in "${pids[@]}"; do
	wait "$pid" || failed=1
done

grep -h 'trial [0-9]*:' "$logs"/fleet-*.log | sed 's/^ *trial_test.go:[0-9]*: //' || true
awk '/^failing versions [0-9]+, rollbacks [0-9]+, deadlines [0-9]+$/ { gsub(",", ""); f += $3; r += $5; d += $7 }
	END { printf "failing versions %d, rollbacks %d, deadlines %d\n", f, r, d }' "$logs"/fleet-*.log
awk '/^trials [0-9]+, kills [0-9]+, violations [0-9]+$/ { gsub(",", ""); t += $2; k += $4; v += $6; n++ }
	END { printf "trials %d, kills %d, violations %d\n", t, k, v; exit (n == 0) }' "$logs"/fleet-*.log || failed=1
if [ "$failed" -ne 0 ]; then
	echo "a fleet failed: see $logs" >&2
	grep -h -- '--- FAIL\|Error\|violation' "$logs"/fleet-*.log | head -40 >&2 || true
	exit 1
fi
