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
	"strings"
	"testing"

	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
)

// workerNodes passes when a node without the control-plane label exists, as upstream's example.
const workerNodes = `
function evaluate()
  hs = {pass = false, message = "no worker node yet"}
  for _, r in ipairs(resources) do
    if not (r.metadata.labels and r.metadata.labels["node-role.kubernetes.io/control-plane"]) then
      hs.pass = true
      hs.message = nil
    end
  end
  return hs
end`

func node(name string, controlPlane bool) map[string]any {
	labels := map[string]any{}
	if controlPlane {
		labels["node-role.kubernetes.io/control-plane"] = ""
	}
	return map[string]any{"kind": "Node", "metadata": map[string]any{"name": name, "labels": labels}}
}

func TestCondition(t *testing.T) {
	tests := []struct {
		name      string
		script    string
		resources []map[string]any
		pass      bool
		message   string
	}{
		{"a worker node", workerNodes, []map[string]any{node("cp", true), node("w", false)}, true, ""},
		{"control plane only", workerNodes, []map[string]any{node("cp", true)}, false, "no worker node yet"},
		{"nothing selected", workerNodes, nil, false, "no worker node yet"},
		{"resources as the argument", "function evaluate(rs) return {pass = #rs == 2} end", []map[string]any{node("a", false), node("b", false)}, true, ""},
		{"pass false without message", "function evaluate() return {pass = false} end", nil, false, "evaluate returned pass = false without a message"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := CompileCondition("nodes", tc.script, Options{})
			if err != nil {
				t.Fatal(err)
			}
			got, err := c.Evaluate(t.Context(), tc.resources)
			if err != nil {
				t.Fatal(err)
			}
			if got.Healthy != tc.pass || got.Message != tc.message {
				t.Errorf("got %+v, want pass=%v message=%q", got, tc.pass, tc.message)
			}
		})
	}
}

func TestConditionErrors(t *testing.T) {
	if _, err := CompileCondition("broken", "function evaluate( return end", Options{}); !IsCompileError(err) {
		t.Errorf("a syntax error gave %v, want a CompileError", err)
	}
	c, err := CompileCondition("healthy", "function evaluate() return {healthy = true} end", Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Evaluate(t.Context(), nil)
	if ev, ok := AsEvalError(err); !ok || !strings.Contains(ev.Message, "evaluate must set pass to true or false") {
		t.Errorf("a result without pass gave %v", err)
	}
}

func TestSelector(t *testing.T) {
	lua := &libv1beta1.ResourceSelector{Kind: "Node", Evaluate: `function evaluate() return {matching = obj.metadata.name == "w"} end`}
	cel := &libv1beta1.ResourceSelector{Kind: "Node", EvaluateCEL: []libv1beta1.CELRule{{Name: "worker", Rule: "self.metadata.name == 'w'"}}}
	for name, sel := range map[string]*libv1beta1.ResourceSelector{"lua": lua, "cel": cel, "none": {Kind: "Node"}} {
		ev, err := CompileSelector(name, sel, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range []map[string]any{node("w", false), node("cp", true)} {
			got, err := ev.Evaluate(t.Context(), n)
			if err != nil {
				t.Fatal(err)
			}
			want := name == "none" || n["metadata"].(map[string]any)["name"] == "w"
			if got.Healthy != want {
				t.Errorf("%s selector on %v: matching=%v, want %v", name, n["metadata"], got.Healthy, want)
			}
		}
	}
}
