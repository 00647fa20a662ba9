#!/usr/bin/env bash
# Measures how long the stagecoach controller takes to roll a Helm chart out to three sandbox
# clusters, and how much memory it uses doing so. Run from the repository root after `make build kube`.
set -euo pipefail
dir=$(mktemp -d)
kubectl=bin/kube/kubectl
cleanup() {
  kill "${controller:-}" "${charts:-}" 2>/dev/null || true
  bin/stagecoach sandbox down --dir "$dir/fleet" >/dev/null || true
  rm -rf "$dir"
}
trap cleanup EXIT

bin/stagecoach sandbox up --dir "$dir/fleet" >/dev/null 2>&1
bin/stagecoach sandbox charts --charts testdata/charts >"$dir/charts.url" 2>/dev/null &
charts=$!
until [ -s "$dir/charts.url" ]; do sleep 0.1; done
bin/stagecoach controller --kubeconfig "$dir/fleet/mgmt.kubeconfig" --metrics-bind-address 0 \
  --health-probe-bind-address 127.0.0.1:0 --probe-interval 2s >"$dir/controller.log" 2>&1 &
controller=$!
k() { $kubectl --kubeconfig "$dir/fleet/mgmt.kubeconfig" "$@"; }
for c in dev staging prod; do
  k wait --for=jsonpath='{.status.ready}'=true -n "$c" "sveltoscluster/$c" --timeout=60s >/dev/null
done

start=$(date +%s.%N)
k apply -f - >/dev/null <<YAML
apiVersion: config.projectsveltos.io/v1beta1
kind: ClusterProfile
metadata:
  name: measure
spec:
  clusterSelector:
    matchExpressions: [{key: env, operator: In, values: [dev, staging, prod]}]
  helmCharts:
  - repositoryURL: $(cat "$dir/charts.url")
    repositoryName: local
    chartName: local/webapp
    chartVersion: 1.0.0
    releaseName: web
    releaseNamespace: web
YAML
for c in dev staging prod; do
  until [ "$(k get clustersummary -n "$c" "measure-sveltos-$c" -o jsonpath='{.status.featureSummaries[?(@.featureID=="Helm")].status}' 2>/dev/null)" = Provisioned ]; do
    sleep 0.05
  done
done
end=$(date +%s.%N)
rss=$(awk '/VmRSS/ {print $2}' "/proc/$controller/status")
hwm=$(awk '/VmHWM/ {print $2}' "/proc/$controller/status")
printf 'chart rolled out to 3 clusters in %.2f s; controller RSS %d MiB (peak %d MiB)\n' \
  "$(echo "$end - $start" | bc)" $((rss / 1024)) $((hwm / 1024))
