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
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
)

func celRules(rules ...string) *libv1beta1.ValidateHealth {
	check := &libv1beta1.ValidateHealth{Name: "cel", Group: "batch", Version: "v1", Kind: "Job"}
	for i, r := range rules {
		check.EvaluateCEL = append(check.EvaluateCEL, libv1beta1.CELRule{Name: string(rune('a' + i)), Rule: r})
	}
	return check
}

const celJob = `
metadata: {name: smoke, namespace: default, labels: {app: smoke}}
spec: {completions: 1, items: [3, 1, 2]}
status:
  succeeded: 1
  conditions:
  - {type: Complete, status: "True"}
`

func TestCELRules(t *testing.T) {
	tests := []struct {
		name  string
		check *libv1beta1.ValidateHealth
		want  want
	}{
		{"self", celRules(`self.status.succeeded == 1`), want{healthy: true}},
		{"resource", celRules(`resource.status.succeeded == 1`), want{healthy: true}},
		{"self and resource are the same object", celRules(`self == resource`), want{healthy: true}},
		{"expression key", &libv1beta1.ValidateHealth{Name: "e", Kind: "Job", EvaluateCEL: []libv1beta1.CELRule{{Name: "x", Expression: `self.status.succeeded >= 1`}}}, want{healthy: true}},
		{"macros", celRules(`self.status.conditions.exists(c, c.type == 'Complete') && self.spec.items.all(i, i > 0) && has(self.metadata.labels.app)`), want{healthy: true}},
		{"strings extension", celRules(`self.metadata.name.upperAscii() == 'SMOKE' && 'a,b'.split(',').size() == 2`), want{healthy: true}},
		{"lists extension", celRules(`self.spec.items.sort() == [1, 2, 3]`), want{healthy: true}},
		{"optional field", celRules(`self.?status.?failed.orValue(0) == 0`), want{healthy: true}},

		{"OR: first true wins", celRules(`true`, `self.nope == 1`), want{healthy: true, message: `rule "a" is true`}},
		{"OR: a later rule passes", celRules(`self.status.succeeded == 2`, `self.status.succeeded == 1`), want{healthy: true, message: `rule "b" is true (rule "a" is false)`}},
		{"OR: missing data then true", celRules(`self.status.active == 1`, `self.status.succeeded == 1`), want{healthy: true, message: `rule "a": no such key: active`}},
		{"OR: a broken rule then true", celRules(`self.metadata.name > 1`, `true`), want{healthy: true, message: `rule "a": no such overload`}},
		{"OR: all false", celRules(`false`, `self.status.succeeded == 2`), want{message: `no CEL rule is true: rule "a" is false; rule "b" is false`}},
		{"OR: false and missing data", celRules(`false`, `self.status.active > 0`), want{message: `rule "a" is false; rule "b": no such key: active`}},
		{"missing index", celRules(`self.status.conditions[3].type == 'Complete'`), want{message: "index out of bounds: 3"}},

		{"runtime type error", celRules(`self.metadata.name > 1`), want{reason: ReasonRuntimeError, message: `CEL rule "a" failed: no such overload`}},
		{"type error after a false rule", celRules(`false`, `self.metadata.name > 1`), want{reason: ReasonRuntimeError, message: `CEL rule "b" failed: no such overload (an operator or function was given values of types it does not take) (rule "a" is false; rule "b": no such overload)`}},
		{"division by zero", celRules(`self.status.succeeded / 0 == 1`), want{reason: ReasonRuntimeError, message: "division by zero"}},
		{"non-bool result", celRules(`self.metadata.name`), want{reason: ReasonBadResult, message: `CEL rule "a" returned the string "smoke", but it must return a bool`}},
		{"non-bool number", celRules(`self.status.succeeded`), want{reason: ReasonBadResult, message: "returned the int 1"}},
	}
	obj := object(t, celJob)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := evaluate(t, compile(t, tc.check, Options{}), obj)
			checkOutcome(t, res, err, tc.want)
		})
	}
}

// TestCELNumbersFromJSON checks that rules also work on objects decoded with encoding/json,
// where every number is a float64.
func TestCELNumbersFromJSON(t *testing.T) {
	var obj map[string]any
	if err := json.Unmarshal([]byte(`{"spec":{"replicas":2},"status":{"availableReplicas":2,"succeeded":1}}`), &obj); err != nil {
		t.Fatal(err)
	}
	for _, rule := range []string{refReplicasAvailable, `self.status.succeeded >= 1`, `self.status.succeeded == 1`} {
		res, err := evaluate(t, compile(t, celRules(rule), Options{}), obj)
		checkOutcome(t, res, err, want{healthy: true})
	}
}

func TestCELCompileErrors(t *testing.T) {
	tests := []struct {
		name    string
		check   *libv1beta1.ValidateHealth
		rule    string
		message string
	}{
		{"syntax error", celRules(`self.status.succeeded >=`), "a", "Syntax error"},
		{"undeclared variable", celRules(`object.status.succeeded == 1`), "a", "undeclared reference to 'object'"},
		{"unknown function", celRules(`self.status.conditions.frobnicate()`), "a", "undeclared reference to 'frobnicate'"},
		{"one bad rule among good ones", celRules(`true`, `self.x ==`), "b", `CEL rule "b" does not compile`},
		{"not a bool", celRules(`'abc'`), "a", "the rule returns string, but it must return a bool"},
		{"arithmetic is not a bool", celRules(`1 + 2`), "a", "the rule returns int"},
		{"empty rule", &libv1beta1.ValidateHealth{Name: "e", Kind: "Job", EvaluateCEL: []libv1beta1.CELRule{{Name: "x", Rule: " "}}}, "x", "the rule is empty"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Compile(tc.check, Options{Cache: NewCache(0)})
			var ce *CompileError
			if !errors.As(err, &ce) {
				t.Fatalf("want *CompileError, got %T %v", err, err)
			}
			if ce.Rule != tc.rule || ce.Language != LanguageCEL || ce.Check != tc.check.CheckName() {
				t.Errorf("Rule, Language, Check = %q, %q, %q", ce.Rule, ce.Language, ce.Check)
			}
			if !containsAll(err.Error(), tc.message) {
				t.Errorf("error %q does not contain %q", err, tc.message)
			}
		})
	}
}

// TestCELSizeIsCharged checks that a rule building a large value from the object is stopped by
// the cost limit: cel-go charges string and list operations by size, so the default limit also
// bounds memory.
func TestCELSizeIsCharged(t *testing.T) {
	items := make([]any, 1000)
	for i := range items {
		items[i] = int64(i)
	}
	obj := map[string]any{"spec": map[string]any{"items": items, "big": strings.Repeat("x", 1<<20)}}
	for _, rule := range []string{
		`self.spec.items.map(x, self.spec.big + self.spec.big).size() > 0`,
		`self.spec.items.map(x, self.spec.items.map(y, self.spec.big)).size() > 0`,
	} {
		res, err := evaluate(t, compile(t, celRules(rule), Options{}), obj)
		checkOutcome(t, res, err, want{reason: ReasonCostLimit, message: "it exceeded the cost limit of 1000000"})
	}
}

func TestCELCostLimit(t *testing.T) {
	items := make([]any, 200)
	for i := range items {
		items[i] = int64(i)
	}
	obj := map[string]any{"spec": map[string]any{"items": items}}
	rule := `self.spec.items.all(x, self.spec.items.all(y, x + y >= 0))` // 40,000 steps

	res, err := evaluate(t, compile(t, celRules(rule), Options{Limits: Limits{CELCostLimit: 10_000}}), obj)
	checkOutcome(t, res, err, want{reason: ReasonCostLimit, message: `CEL rule "a" failed: it exceeded the cost limit of 10000`})

	res, err = evaluate(t, compile(t, celRules(rule), Options{}), obj)
	checkOutcome(t, res, err, want{healthy: true})
}

func TestCELCallerCancels(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := evaluateCtx(t, ctx, compile(t, celRules(`true`), Options{}), map[string]any{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("want context.Canceled, got %v", err)
	}

	// Cancelled in the middle of a long comprehension: cel-go checks ctx every 100 iterations.
	items := make([]any, 3000)
	for i := range items {
		items[i] = int64(i)
	}
	obj := map[string]any{"items": items}
	ev := compile(t, celRules(`self.items.all(x, self.items.all(y, x + y >= 0))`), Options{Limits: Limits{CELCostLimit: 1 << 62}})
	ctx, cancel = context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	_, err = evaluateCtx(t, ctx, ev, obj)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("want context.DeadlineExceeded, got %v", err)
	}
	if _, ok := AsEvalError(err); ok {
		t.Errorf("a cancellation must not be an EvalError: %v", err)
	}
}

func TestCELWithoutObject(t *testing.T) {
	_, err := evaluate(t, compile(t, celRules(`true`), Options{}), nil)
	checkOutcome(t, Result{}, err, want{reason: ReasonRuntimeError, message: "CEL rules need an object"})
}
