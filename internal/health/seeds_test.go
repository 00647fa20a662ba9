/*
Copyright 2026 The Stagecoach Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package health

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
)

// The health checks below are copied verbatim from the seed manifests in testdata/seeds, which
// TestSeedFixturesMatchSources keeps honest, and from examples of Sveltos' documentation.

// seed000DeploymentHealth is seed 000's validateHealths "deployment-health" script.
const seed000DeploymentHealth = `function evaluate()
  local hs = {healthy = false, message = "available replicas not matching requested replicas"}
  if obj.status and obj.status.availableReplicas ~= nil and obj.status.availableReplicas == obj.spec.replicas then
    hs.healthy = true
  end
  return hs
end
`

// seed000IssuerHealth is seed 000's postDelayHealthChecks "cert-manager-resources-health"
// script: the status form and getResource with four arguments.
const seed000IssuerHealth = `function evaluate()
  hs = {}
  hs.status = "Degraded"
  hs.message = "Missing Secret or ClusterIssuer not ready"
  local secret = getResource("v1", "Secret", "cert-manager", "cloudflare-api-token")
  local issuerReady = false
  if obj.status and obj.status.conditions then
    for _, cond in ipairs(obj.status.conditions) do
      if cond.type == "Ready" and cond.status == "True" then
        issuerReady = true
        break
      end
    end
  end
  if secret and issuerReady then
    hs.status = "Healthy"
    hs.message = "ClusterIssuer and Secret are ready"
  end
  return hs
end
`

// seed001JobSuccess is seed 001's postDelayHealthChecks CEL rule "success" (expression:, self).
const seed001JobSuccess = `self.status.succeeded >= 1 &&
self.status.conditions.filter(c, c.type == 'Complete' && c.status == 'True').size() == 1
`

// refReplicasAvailable is the CEL rule of reference/sveltos.md §9.1 (rule:, resource).
const refReplicasAvailable = `has(resource.status.availableReplicas) && resource.status.availableReplicas == resource.spec.replicas`

// refReplicasMatch is the CEL rule of reference/sveltos.md §3.2.
const refReplicasMatch = `resource.status.availableReplicas == resource.spec.replicas`

// refSmokeTestCompleted is the Lua script of reference/sveltos.md §9.1.
const refSmokeTestCompleted = `function evaluate()
  local hs = {healthy = false, message = "job not complete"}
  if obj.status and obj.status.succeeded and obj.status.succeeded >= 1 then
    hs.healthy = true
    hs.message = ""
  end
  return hs
end
`

func TestSeedFixturesMatchSources(t *testing.T) {
	sources := []struct {
		file     string
		fixtures []string
	}{
		{"000-clusterpromotion-cert-manager-rollout-auto.yaml", []string{seed000DeploymentHealth, seed000IssuerHealth}},
		{"001-clusterpromotion-core-app-rollout.yaml", []string{seed001JobSuccess}},
	}
	for _, src := range sources {
		b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "seeds", src.file))
		if err != nil {
			t.Fatal(err)
		}
		doc := unindent(string(b))
		for _, f := range src.fixtures {
			if !strings.Contains(doc, unindent(f)) {
				t.Errorf("%s no longer contains the fixture:\n%s", src.file, f)
			}
		}
	}
}

// unindent drops the YAML indentation the documents add around scripts.
func unindent(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSpace(l)
	}
	return strings.Join(lines, "\n")
}

func TestSeed000DeploymentHealth(t *testing.T) {
	check := &libv1beta1.ValidateHealth{Name: "deployment-health", FeatureID: "Helm", Group: "apps", Version: "v1", Kind: "Deployment", Namespace: "cert-manager", Script: seed000DeploymentHealth}
	ev := compile(t, check, Options{})
	for _, tc := range []struct {
		name string
		obj  string
		want want
	}{
		{"available", "spec: {replicas: 2}\nstatus: {availableReplicas: 2}", want{healthy: true}},
		{"rolling out", "spec: {replicas: 3}\nstatus: {availableReplicas: 2}", want{message: "available replicas not matching requested replicas"}},
		{"no status yet", "spec: {replicas: 2}", want{message: "available replicas not matching requested replicas"}},
		{"status without availableReplicas", "spec: {replicas: 2}\nstatus: {replicas: 2}", want{message: "available replicas not matching"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := evaluate(t, ev, object(t, tc.obj))
			checkOutcome(t, res, err, tc.want)
		})
	}
	t.Run("full Deployment", func(t *testing.T) {
		res, err := evaluate(t, ev, objectFile(t, "deployment.yaml"))
		checkOutcome(t, res, err, want{healthy: true})
	})
}

func TestSeed000IssuerHealth(t *testing.T) {
	check := &libv1beta1.ValidateHealth{Name: "cert-manager-resources-health", FeatureID: "Resources", Group: "cert-manager.io", Version: "v1", Kind: "ClusterIssuer", Namespace: "cert-manager", Script: seed000IssuerHealth}
	secret := map[string]any{"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"name": "cloudflare-api-token", "namespace": "cert-manager"}}
	ready := `
kind: ClusterIssuer
metadata: {name: cloudflare-issuer}
status:
  conditions:
  - {type: Ready, status: "True", reason: ACMEAccountRegistered}
`
	notReady := `
kind: ClusterIssuer
metadata: {name: cloudflare-issuer}
status:
  conditions:
  - {type: Ready, status: "False", reason: ErrRegisterACMEAccount}
`
	const secretKey = "v1/Secret/cert-manager/cloudflare-api-token"
	for _, tc := range []struct {
		name      string
		issuer    string
		hasSecret bool
		getErr    error
		want      want
	}{
		{"secret present, issuer ready", ready, true, nil, want{healthy: true, message: "ClusterIssuer and Secret are ready"}},
		{"secret absent, issuer ready", ready, false, nil, want{message: "Missing Secret or ClusterIssuer not ready"}},
		{"secret present, issuer not ready", notReady, true, nil, want{message: "Missing Secret or ClusterIssuer not ready"}},
		{"secret present, issuer without status", "kind: ClusterIssuer\nmetadata: {name: cloudflare-issuer}", true, nil, want{message: "Missing Secret"}},
		{"managed cluster unreachable", ready, true, errAPIDown, want{reason: ReasonGetResource, message: `getResource(v1, Secret, "cert-manager", "cloudflare-api-token") failed: connection refused`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			getter := &fakeGetter{objects: map[string]map[string]any{}, err: tc.getErr}
			if tc.hasSecret {
				getter.objects[secretKey] = secret
			}
			ev := compile(t, check, Options{Getter: getter.get})
			res, err := evaluate(t, ev, object(t, tc.issuer))
			checkOutcome(t, res, err, tc.want)
			if len(getter.reads) != 1 || getter.reads[0] != secretKey {
				t.Errorf("reads = %v, want exactly [%s]", getter.reads, secretKey)
			}
			if tc.getErr != nil && !errors.Is(err, tc.getErr) {
				t.Errorf("the getter's error is not in the chain: %v", err)
			}
		})
	}
}

func TestSeed001JobSuccess(t *testing.T) {
	check := &libv1beta1.ValidateHealth{Type: "Job", Group: "batch", Version: "v1", Name: "validation-job-stage-staging", Namespace: "default",
		EvaluateCEL: []libv1beta1.CELRule{{Name: "success", Expression: seed001JobSuccess}}}
	ev := compile(t, check, Options{})
	for _, tc := range []struct {
		name string
		obj  string
		want want
	}{
		{"complete", `
status:
  succeeded: 1
  conditions:
  - {type: SuccessCriteriaMet, status: "True"}
  - {type: Complete, status: "True"}`, want{healthy: true, message: `rule "success" is true`}},
		{"running", "status: {active: 1}", want{message: `rule "success": no such key: succeeded`}},
		{"just created", "metadata: {name: validation-job-stage-staging}", want{message: "no such key: status"}},
		{"succeeded but not Complete", `
status:
  succeeded: 1
  conditions:
  - {type: Complete, status: "False"}`, want{message: `rule "success" is false`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := evaluate(t, ev, object(t, tc.obj))
			checkOutcome(t, res, err, tc.want)
		})
	}
}

func TestReferenceChecks(t *testing.T) {
	deployment := objectFile(t, "deployment.yaml")
	progressing := object(t, "spec: {replicas: 3}\nstatus: {availableReplicas: 1}")
	fresh := object(t, "spec: {replicas: 3}")
	job := object(t, "status: {succeeded: 1}")
	tests := []struct {
		name  string
		check libv1beta1.ValidateHealth
		obj   map[string]any
		want  want
	}{
		{"§9.1 CEL, available", celCheck(refReplicasAvailable), deployment, want{healthy: true}},
		{"§9.1 CEL, progressing", celCheck(refReplicasAvailable), progressing, want{message: `rule "replicas-available" is false`}},
		{"§9.1 CEL, no status", celCheck(refReplicasAvailable), fresh, want{message: "no such key: status"}},
		{"§3.2 CEL, available", celCheck(refReplicasMatch), deployment, want{healthy: true}},
		{"§9.1 Lua, job done", libv1beta1.ValidateHealth{Name: "smoke-test-completed", Kind: "Job", Script: refSmokeTestCompleted}, job, want{healthy: true}},
		{"§9.1 Lua, job running", libv1beta1.ValidateHealth{Name: "smoke-test-completed", Kind: "Job", Script: refSmokeTestCompleted}, fresh, want{message: "job not complete"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := evaluateCtx(t, context.Background(), compile(t, &tc.check, Options{}), tc.obj)
			checkOutcome(t, res, err, tc.want)
		})
	}
}

func celCheck(rule string) libv1beta1.ValidateHealth {
	return libv1beta1.ValidateHealth{Name: "kyverno-deployments", Group: "apps", Version: "v1", Kind: "Deployment",
		EvaluateCEL: []libv1beta1.CELRule{{Name: "replicas-available", Rule: rule}}}
}
