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
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
)

func TestCompileCheckShapes(t *testing.T) {
	tests := []struct {
		name    string
		check   *libv1beta1.ValidateHealth
		message string
	}{
		{"jobCheck", &libv1beta1.ValidateHealth{Name: "j", Kind: "Job", JobCheck: &libv1beta1.JobHealthCheck{Timeout: &metav1.Duration{}}}, "jobCheck is not evaluated by scripts or CEL rules"},
		{"metric-only without script", &libv1beta1.ValidateHealth{Name: "m"}, "a check without kind or type reads no object and only evaluates metrics: it needs a Lua script"},
		{"metric-only with CEL", &libv1beta1.ValidateHealth{Name: "m", Script: returning("{healthy = true}"), EvaluateCEL: []libv1beta1.CELRule{{Name: "r", Rule: "true"}}}, "evaluateCEL rules judge an object"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Compile(tc.check, Options{})
			if !IsCompileError(err) || !containsAll(err.Error(), tc.message) {
				t.Errorf("want a CompileError containing %q, got %v", tc.message, err)
			}
		})
	}
	if _, err := Compile(nil, Options{}); err == nil {
		t.Error("Compile(nil) must fail")
	}
}

func TestExistenceCheck(t *testing.T) {
	check := &libv1beta1.ValidateHealth{Name: "exists", Version: "v1", Kind: "Secret"}
	res, err := evaluate(t, compile(t, check, Options{}), object(t, "kind: Secret"))
	checkOutcome(t, res, err, want{healthy: true})
}

func TestLuaAndCEL(t *testing.T) {
	tests := []struct {
		name     string
		lua, cel string
		want     want
	}{
		{"both pass", `{healthy = true, message = "lua says yes"}`, `true`, want{healthy: true, message: "lua says yes"}},
		{"Lua fails", `{healthy = false, message = "lua says no"}`, `true`, want{message: "lua says no"}},
		{"CEL fails", `{healthy = true}`, `false`, want{message: `no CEL rule is true: rule "a" is false`}},
		{"Lua errs", `nil`, `true`, want{reason: ReasonBadResult, message: "it returned nothing"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			check := celRules(tc.cel)
			check.Script = returning(tc.lua)
			res, err := evaluate(t, compile(t, check, Options{}), object(t, "kind: Job"))
			checkOutcome(t, res, err, tc.want)
		})
	}
}

func TestCheckObjects(t *testing.T) {
	ev := compile(t, luaCheck(returning(`{healthy = obj.status.ready, message = obj.metadata.name .. " is not ready"}`)), Options{})
	ready := object(t, "kind: Deployment\nmetadata: {name: a, namespace: ns}\nstatus: {ready: true}")
	notReady := object(t, "kind: Deployment\nmetadata: {name: b, namespace: ns}\nstatus: {ready: false}")
	broken := object(t, "kind: Deployment\nmetadata: {name: c, namespace: ns}")

	if err := CheckObjects(context.Background(), ev, []map[string]any{ready, ready}); err != nil {
		t.Errorf("all healthy: %v", err)
	}
	err := CheckObjects(context.Background(), ev, []map[string]any{ready, notReady, broken})
	var ue *UnhealthyError
	if !errors.As(err, &ue) || ue.Object != "Deployment ns/b" || err.Error() != "Deployment ns/b is not healthy: b is not ready" {
		t.Errorf("want UnhealthyError for Deployment ns/b, got %v", err)
	}
	err = CheckObjects(context.Background(), ev, []map[string]any{broken})
	if ee, ok := AsEvalError(err); !ok || ee.Reason != ReasonRuntimeError || !containsAll(err.Error(), "Deployment ns/c: Lua script failed: line 2") {
		t.Errorf("want the EvalError for Deployment ns/c, got %v", err)
	}
}

func TestObjectName(t *testing.T) {
	for obj, want := range map[string]string{
		"kind: Deployment\nmetadata: {name: a, namespace: ns}": "Deployment ns/a",
		"kind: ClusterIssuer\nmetadata: {name: a}":             "ClusterIssuer a",
		"metadata: {name: a}":                                  "a",
	} {
		if got := ObjectName(object(t, obj)); got != want {
			t.Errorf("ObjectName = %q, want %q", got, want)
		}
	}
}

func TestCache(t *testing.T) {
	cache := NewCache(2)
	compileWith := func(check *libv1beta1.ValidateHealth) error {
		_, err := Compile(check, Options{Cache: cache})
		return err
	}
	script := returning(`{healthy = true}`)
	for range 3 {
		if err := compileWith(luaCheck(script)); err != nil {
			t.Fatal(err)
		}
	}
	if cache.Len() != 1 {
		t.Errorf("one script compiled thrice: Len = %d, want 1", cache.Len())
	}

	// A compile error is cached, but each check gets its own name in it.
	bad := "function evaluate("
	errA := compileWith(&libv1beta1.ValidateHealth{Name: "a", Kind: "X", Script: bad})
	errB := compileWith(&libv1beta1.ValidateHealth{Name: "b", Kind: "X", Script: bad})
	var ceA, ceB *CompileError
	if !errors.As(errA, &ceA) || !errors.As(errB, &ceB) || ceA.Check != "a" || ceB.Check != "b" || ceA.Message != ceB.Message {
		t.Errorf("cached compile errors: %#v, %#v", errA, errB)
	}
	if cache.Len() != 2 {
		t.Errorf("Len = %d, want 2", cache.Len())
	}

	// The same CEL rule under two cost limits is two programs; the cache keeps only two.
	if err := compileWith(celRules(`true`)); err != nil {
		t.Fatal(err)
	}
	_, err := Compile(celRules(`true`), Options{Cache: cache, Limits: Limits{CELCostLimit: 5}})
	if err != nil {
		t.Fatal(err)
	}
	if cache.Len() != 2 {
		t.Errorf("bounded cache: Len = %d, want 2", cache.Len())
	}
}

// TestConcurrentEvaluation shares one Evaluator, and one cached program, across goroutines;
// run with -race.
func TestConcurrentEvaluation(t *testing.T) {
	check := celRules(refReplicasAvailable)
	check.Script = seed000DeploymentHealth
	ev := compile(t, check, Options{})
	obj := objectFile(t, "deployment.yaml")
	errs := make(chan error, 8)
	for range 8 {
		go func() {
			var err error
			for range 20 {
				var res Result
				if res, err = ev.Evaluate(context.Background(), obj); err == nil && !res.Healthy {
					err = errors.New(res.Message)
				}
				if err != nil {
					break
				}
			}
			errs <- err
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
