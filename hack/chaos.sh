#!/usr/bin/env bash
# Runs the crash trials (test/chaos) as PARALLEL independent sandbox fleets, TRIALS in all, and
# sums what they did. Each fleet gets its own seed (CHAOS_SEED, or a random one, plus the fleet's
# number), printed so that a run can be replayed. CHAOS_WAVE (default 5) is the staging wave's size.
#
# Summary lines: every fleet prints, at its end, one line
#   chaos-summary key=value key=value ...
# with a whole number per key (trials, violations, kills, leader_kills, both_kills, outages,
# down_clusters, ...; a trial kind adds its own keys). This script adds the values of each key
# over the fleets and prints one such line for the whole run, then
#   trials N, kills K, violations V
# It fails when a fleet fails or V > 0.
set -euo pipefail

trials=${1:?usage: hack/chaos.sh TRIALS [PARALLEL]}
parallel=${2:-1}
seed=${CHAOS_SEED:-$((RANDOM * 32768 + RANDOM))}
export CHAOS_WAVE=${CHAOS_WAVE:-5}
# The trials run bin/stagecoach, the binary users run, on the Kubernetes components of bin/kube.
# make chaos has built both; run directly, the script builds them.
if [ -z "${MAKELEVEL:-}" ]; then
	make --no-print-directory build kube
fi
export STAGECOACH_BIN=${STAGECOACH_BIN:-$PWD/bin/stagecoach}
bin=$(mktemp -d)/chaos.test
go test -tags e2e -c -o "$bin" ./test/chaos/
logs=$(mktemp -d /tmp/stagecoach-chaos-XXXXXX)
echo "crash trials: $trials in $parallel fleets, CHAOS_SEED=$seed, CHAOS_WAVE=$CHAOS_WAVE, logs in $logs"

start=$SECONDS
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
awk -v secs=$((SECONDS - start)) '/^chaos-summary( [a-z_]+=[0-9]+)*$/ {
		n++
		for (i = 2; i <= NF; i++) { split($i, kv, "="); if (!(kv[1] in sum)) keys[++k] = kv[1]; sum[kv[1]] += kv[2] }
	}
	END {
		if (n == 0) exit 1
		line = "chaos-summary"
		for (i = 1; i <= k; i++) line = line " " keys[i] "=" sum[keys[i]]
		print line
		printf "trials %d, kills %d, violations %d (%d min %d s)\n", sum["trials"], sum["kills"], sum["violations"], secs / 60, secs % 60
		exit (sum["violations"] > 0)
	}' "$logs"/fleet-*.log || failed=1
if [ "$failed" -ne 0 ]; then
	echo "a fleet failed or found violations: see $logs" >&2
	grep -h -- '--- FAIL\|Error\|violation' "$logs"/fleet-*.log | head -40 >&2 || true
	exit 1
fi
