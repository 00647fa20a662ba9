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

package v1beta1

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

func TestPolicyRefSetUnmarshal(t *testing.T) {
	cm := func(ns, name string) PolicyRef {
		return PolicyRef{Kind: "ConfigMap", Namespace: ns, Name: name, DeploymentType: DeploymentTypeRemote, Tier: 100}
	}
	secret := func(ns, name string) PolicyRef {
		return PolicyRef{Kind: "Secret", Namespace: ns, Name: name, DeploymentType: DeploymentTypeRemote, Tier: 100}
	}
	tests := []struct {
		name    string
		json    string
		want    []PolicyRef
		problem string // substring of Err(); empty means no problem
	}{
		{
			name: "list shape",
			json: `[{"kind":"ConfigMap","namespace":"default","name":"smoke","deploymentType":"Remote","tier":100}]`,
			want: []PolicyRef{cm("default", "smoke")},
		},
		{
			name: "list shape with remoteURL",
			json: `[{"remoteURL":{"url":"https://example.com/job.yaml"}}]`,
			want: []PolicyRef{{RemoteURL: &RemoteURL{URL: "https://example.com/job.yaml"}}},
		},
		{
			name: "object shape, ConfigMaps then Secrets",
			json: `{"secretRefs":[{"name":"s1"}],"configMapRefs":[{"name":"validation-job-staging","namespace":"projectsveltos"},{"name":"c2"}]}`,
			want: []PolicyRef{cm("projectsveltos", "validation-job-staging"), cm("", "c2"), secret("", "s1")},
		},
		{
			name: "empty object",
			json: `{}`,
		},
		{
			name: "empty list",
			json: `[]`,
		},
		{
			name: "null",
			json: `null`,
		},
		{
			name:    "scalar",
			json:    `"validation-job"`,
			problem: "expected a list of policy references or an object with configMapRefs and/or secretRefs, found a string",
		},
		{
			name:    "unknown key in object shape",
			json:    `{"configMapRef":[{"name":"a"}]}`,
			problem: `unknown field "configMapRef"`,
		},
		{
			name:    "list item with kind and remoteURL",
			json:    `[{"kind":"ConfigMap","name":"a","remoteURL":{"url":"https://x"}}]`,
			want:    []PolicyRef{{Kind: "ConfigMap", Name: "a", RemoteURL: &RemoteURL{URL: "https://x"}}},
			problem: "item 0: set exactly one of kind (with name) or remoteURL",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var set PolicyRefSet
			if err := json.Unmarshal([]byte(tc.json), &set); err != nil {
				t.Fatalf("UnmarshalJSON returned an error, it must never for valid JSON: %v", err)
			}
			if got := set.Refs(); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Refs() = %#v, want %#v", got, tc.want)
			}
			err := set.Err()
			switch {
			case tc.problem == "" && err != nil:
				t.Errorf("Err() = %v, want nil", err)
			case tc.problem != "" && (err == nil || !strings.Contains(err.Error(), tc.problem)):
				t.Errorf("Err() = %v, want it to contain %q", err, tc.problem)
			}
		})
	}
}

func TestPolicyRefSetRoundTrip(t *testing.T) {
	var set PolicyRefSet
	if err := json.Unmarshal([]byte(`{"configMapRefs":[{"name":"job","namespace":"ns"}]}`), &set); err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(set)
	if err != nil {
		t.Fatal(err)
	}
	const want = `[{"namespace":"ns","name":"job","kind":"ConfigMap","deploymentType":"Remote","tier":100}]`
	if string(out) != want {
		t.Errorf("Marshal = %s, want %s", out, want)
	}
	var again PolicyRefSet
	if err := json.Unmarshal(out, &again); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(again, set) {
		t.Errorf("unmarshal(marshal(x)) = %#v, want %#v", again, set)
	}

	copied := set.DeepCopy()
	if !reflect.DeepEqual(copied, &set) {
		t.Errorf("DeepCopy = %#v, want %#v", copied, &set)
	}
	copied.List[0].Name = "changed"
	if set.List[0].Name != "job" {
		t.Errorf("DeepCopy shares the list with the original")
	}

	empty, err := json.Marshal(AutoTrigger{})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(empty), "preHealthCheckDeployment") {
		t.Errorf("an unset preHealthCheckDeployment must be omitted, got %s", empty)
	}
}

// TestClusterPromotionDecodesSeedDialects decodes a ClusterPromotion written in the seed
// dialects (object-shaped preHealthCheckDeployment, a type/name health check without
// featureID, a CEL rule under "expression") the way Kubernetes clients decode objects.
func TestClusterPromotionDecodesSeedDialects(t *testing.T) {
	const manifest = `
apiVersion: config.projectsveltos.io/v1beta1
kind: ClusterPromotion
metadata:
  name: core-app-rollout
spec:
  profileSpec:
    syncMode: Continuous
  stages:
  - name: staging
    clusterSelector:
      matchLabels:
        env: staging
    trigger:
      auto:
        delay: 5m
        preHealthCheckDeployment:
          configMapRefs:
          - name: validation-job-staging
            namespace: projectsveltos
        postDelayHealthChecks:
        - type: Job
          group: batch
          version: v1
          name: validation-job-stage-staging
          namespace: default
          evaluateCEL:
          - name: success
            expression: |
              self.status.succeeded >= 1
  - name: production
    clusterSelector:
      matchLabels:
        env: production
    trigger:
      manual:
        approved: false
        preHealthCheckDeployment:
        - kind: Secret
          namespace: default
          name: smoke
`
	data, err := yaml.YAMLToJSON([]byte(manifest))
	if err != nil {
		t.Fatal(err)
	}
	var p ClusterPromotion
	if err := kjson.UnmarshalCaseSensitivePreserveInts(data, &p); err != nil {
		t.Fatalf("decoding: %v", err)
	}

	auto := p.Spec.Stage("staging").Trigger.Auto
	if err := auto.PreHealthCheckDeployment.Err(); err != nil {
		t.Errorf("staging preHealthCheckDeployment: %v", err)
	}
	refs := auto.PreHealthCheckDeployment.Refs()
	if len(refs) != 1 || refs[0].Kind != "ConfigMap" || refs[0].Name != "validation-job-staging" ||
		refs[0].Namespace != "projectsveltos" {
		t.Errorf("staging preHealthCheckDeployment refs = %+v", refs)
	}
	check := auto.PostDelayHealthChecks[0]
	if check.TargetKind() != "Job" || check.TargetName() != "validation-job-stage-staging" ||
		check.CheckName() != "Job/validation-job-stage-staging" || check.FeatureID != "" {
		t.Errorf("type/name health check read as kind %q, name %q, check %q, feature %q",
			check.TargetKind(), check.TargetName(), check.CheckName(), check.FeatureID)
	}
	if src := check.EvaluateCEL[0].Source(); !strings.HasPrefix(src, "self.status.succeeded >= 1") {
		t.Errorf("CEL source = %q", src)
	}
	if auto.Delay == nil || auto.Delay.Duration.String() != "5m0s" {
		t.Errorf("delay = %v", auto.Delay)
	}

	manual := p.Spec.Stage("production").Trigger.Manual
	refs = manual.PreHealthCheckDeployment.Refs()
	if len(refs) != 1 || refs[0].Kind != "Secret" || refs[0].Name != "smoke" {
		t.Errorf("production preHealthCheckDeployment refs = %+v", refs)
	}
	if manual.Approved == nil || *manual.Approved {
		t.Errorf("approved = %v, want false", manual.Approved)
	}
	if !manual.ResetsApproval() {
		t.Errorf("automaticReset must default to true")
	}
	manual.AutomaticReset = new(bool)
	out, err := json.Marshal(manual)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), `"automaticReset":false`) {
		t.Errorf("an explicit automaticReset: false must survive marshalling, got %s", out)
	}

	if got := p.StageProfileName("staging"); got != "core-app-rollout-staging" {
		t.Errorf("StageProfileName = %q", got)
	}
}
