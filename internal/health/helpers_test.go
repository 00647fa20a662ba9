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
	"time"

	utiljson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/yaml"

	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
)

// testDeadline bounds every evaluation in the tests: a test that would hang fails instead.
const testDeadline = 10 * time.Second

// object decodes YAML the way the controller's clients do (integers as int64).
func object(t testing.TB, src string) map[string]any {
	t.Helper()
	j, err := yaml.YAMLToJSON([]byte(src))
	if err != nil {
		t.Fatalf("fixture is not YAML: %v", err)
	}
	var obj map[string]any
	if err := utiljson.Unmarshal(j, &obj); err != nil {
		t.Fatalf("fixture is not an object: %v", err)
	}
	return obj
}

func objectFile(t testing.TB, name string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return object(t, string(b))
}

// compile compiles check with a private cache, failing the test on a compile error.
func compile(t testing.TB, check *libv1beta1.ValidateHealth, opts Options) Evaluator {
	t.Helper()
	if opts.Cache == nil {
		opts.Cache = NewCache(0)
	}
	ev, err := Compile(check, opts)
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	return ev
}

// evaluate runs ev.Evaluate under testDeadline and fails the test if it does not return.
func evaluate(t testing.TB, ev Evaluator, obj map[string]any) (Result, error) {
	t.Helper()
	return evaluateCtx(t, context.Background(), ev, obj)
}

func evaluateCtx(t testing.TB, ctx context.Context, ev Evaluator, obj map[string]any) (Result, error) {
	t.Helper()
	type outcome struct {
		res Result
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := ev.Evaluate(ctx, obj)
		done <- outcome{res, err}
	}()
	select {
	case o := <-done:
		return o.res, o.err
	case <-time.After(testDeadline):
		t.Fatalf("Evaluate did not return within %s", testDeadline)
		return Result{}, nil
	}
}

// want describes the expected outcome of an evaluation.
type want struct {
	healthy bool
	message string // substring of Result.Message or of the error
	reason  string // EvalError reason; "" when no EvalError is expected
}

func checkOutcome(t *testing.T, res Result, err error, w want) {
	t.Helper()
	if w.reason != "" {
		ee, ok := AsEvalError(err)
		if !ok {
			t.Fatalf("want EvalError %s, got result %+v, error %v", w.reason, res, err)
		}
		if ee.Reason != w.reason {
			t.Errorf("reason = %s, want %s (%v)", ee.Reason, w.reason, err)
		}
		if !strings.Contains(err.Error(), w.message) {
			t.Errorf("error %q does not contain %q", err, w.message)
		}
		return
	}
	if err != nil {
		t.Fatalf("unexpected error: %v", err)
	}
	if res.Healthy != w.healthy {
		t.Errorf("Healthy = %t, want %t (message %q)", res.Healthy, w.healthy, res.Message)
	}
	if !res.Healthy && res.Message == "" {
		t.Errorf("an unhealthy result must say why")
	}
	if !strings.Contains(res.Message, w.message) {
		t.Errorf("message %q does not contain %q", res.Message, w.message)
	}
}

// fakeGetter serves objects keyed "apiVersion/kind/namespace/name" and records the reads.
type fakeGetter struct {
	objects map[string]map[string]any
	err     error
	reads   []string
}

func (f *fakeGetter) get(_ context.Context, apiVersion, kind, namespace, name string) (map[string]any, error) {
	key := strings.Join([]string{apiVersion, kind, namespace, name}, "/")
	f.reads = append(f.reads, key)
	if f.err != nil {
		return nil, f.err
	}
	return f.objects[key], nil
}

var errAPIDown = errors.New("connection refused")

func containsAll(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}
