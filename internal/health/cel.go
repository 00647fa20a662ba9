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
	"crypto/sha256"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	"github.com/google/cel-go/ext"
	"github.com/google/cel-go/interpreter"

	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
)

// celInterruptFrequency is how many comprehension iterations run between checks of ctx.
const celInterruptFrequency = 100

// celEnv is built once: building an environment with its libraries costs far more than
// compiling a rule in it. The object is bound to self (as in Kubernetes and Flux, and the
// seeds) and to resource (as upstream Sveltos), both dyn because the object is unstructured.
var celEnv = sync.OnceValues(func() (*cel.Env, error) {
	return cel.NewEnv(
		cel.Variable("self", cel.DynType),
		cel.Variable("resource", cel.DynType),
		ext.Strings(),
		ext.Lists(),
		ext.Sets(),
		// self.?status.?succeeded.orValue(0) reads a field that may be missing.
		cel.OptionalTypes(),
		cel.CrossTypeNumericComparisons(true),
	)
})

type celRule struct {
	name    string
	program cel.Program
}

// compileCEL compiles every rule, each cached by its expression and the cost limit. A rule that
// does not compile makes the whole check a *CompileError: upstream logs it and counts the rule
// as false, which hides a typo behind "unhealthy" forever.
func compileCEL(cache *Cache, check string, rules []libv1beta1.CELRule, costLimit uint64) ([]celRule, error) {
	out := make([]celRule, 0, len(rules))
	for i := range rules {
		name := rules[i].Name
		if name == "" {
			name = fmt.Sprintf("#%d", i+1)
		}
		src := rules[i].Source()
		if strings.TrimSpace(src) == "" {
			return nil, &CompileError{Check: check, Language: LanguageCEL, Rule: name, Message: "the rule is empty: write the expression under rule or expression"}
		}
		key := cacheKey{kind: "cel", hash: sha256.Sum256([]byte(src)), cost: costLimit}
		v, err := cache.getOrCompile(key, func() (any, error) { return compileCELRule(src, costLimit) })
		if err != nil {
			return nil, forCheck(err, check, name)
		}
		out = append(out, celRule{name: name, program: v.(cel.Program)})
	}
	return out, nil
}

func compileCELRule(src string, costLimit uint64) (cel.Program, error) {
	env, err := celEnv()
	if err != nil {
		return nil, fmt.Errorf("health: building the CEL environment: %w", err)
	}
	ast, iss := env.Compile(src)
	if iss.Err() != nil {
		return nil, &CompileError{Language: LanguageCEL, Message: iss.Err().Error()}
	}
	// Only dyn can still turn out to be a bool at run time; anything else never will.
	if t := ast.OutputType(); !t.IsExactType(cel.BoolType) && !t.IsExactType(cel.DynType) {
		return nil, &CompileError{Language: LanguageCEL, Message: fmt.Sprintf("the rule returns %s, but it must return a bool", t)}
	}
	prg, err := env.Program(ast,
		cel.CostLimit(costLimit),
		cel.CostTracking(sizeCost{}),
		cel.InterruptCheckFrequency(celInterruptFrequency),
	)
	if err != nil {
		return nil, &CompileError{Language: LanguageCEL, Message: err.Error()}
	}
	return prg, nil
}

// celEvaluator applies upstream's OR: rules run in order and the first that returns true makes
// the object healthy; no rules at all is healthy too (Compile never builds one then).
//
// A rule that cannot be evaluated on this object is false for the OR, and what went wrong is
// kept for the message. What happens when no rule is true depends on what went wrong:
//   - data missing from the object (no such key, index out of bounds) is the usual shape of "not
//     ready yet" (status.succeeded appears only once a Job succeeds), so the object is
//     unhealthy, with the messages;
//   - anything else (a type error, a result that is not a bool, the cost limit) means a rule
//     is wrong, and is returned as an *EvalError naming the first such rule, so it is not
//     mistaken for an unhealthy workload.
//
// When a later rule is true, earlier failures do not block the object but are mentioned in
// the healthy Result's message.
type celEvaluator struct {
	check     string
	rules     []celRule
	costLimit uint64
}

// celActivation binds the object to self and resource without building a map per evaluation.
type celActivation struct{ obj any }

func (a celActivation) ResolveName(name string) (any, bool) {
	if name == "self" || name == "resource" {
		return a.obj, true
	}
	return nil, false
}

func (a celActivation) Parent() interpreter.Activation { return nil }

func (e *celEvaluator) Evaluate(ctx context.Context, obj map[string]any) (Result, error) {
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	if obj == nil {
		return Result{}, &EvalError{Check: e.check, Language: LanguageCEL, Reason: ReasonRuntimeError, Message: "CEL rules need an object to evaluate, and there is none"}
	}
	var notes []string
	var broken *EvalError
	for _, rule := range e.rules {
		out, _, err := rule.program.ContextEval(ctx, celActivation{obj: obj})
		if err == nil {
			b, isBool := out.Value().(bool)
			if !isBool {
				if broken == nil {
					broken = e.evalError(rule.name, ReasonBadResult, fmt.Sprintf("CEL rule %q returned the %s %s, but it must return a bool", rule.name, out.Type().TypeName(), celValueString(out.Value())), nil)
				}
				notes = append(notes, fmt.Sprintf("rule %q returned a %s, not a bool", rule.name, out.Type().TypeName()))
				continue
			}
			if b {
				msg := fmt.Sprintf("rule %q is true", rule.name)
				if len(notes) > 0 {
					msg += " (" + strings.Join(notes, "; ") + ")"
				}
				return Result{Healthy: true, Message: msg}, nil
			}
			notes = append(notes, fmt.Sprintf("rule %q is false", rule.name))
			continue
		}
		if ctx.Err() != nil {
			return Result{}, fmt.Errorf("CEL rule %q stopped: %w", rule.name, context.Cause(ctx))
		}
		notes = append(notes, fmt.Sprintf("rule %q: %v", rule.name, err))
		if broken == nil && !isMissingData(err) {
			reason, what := ReasonRuntimeError, err.Error()
			if what == "no such overload" {
				what += " (an operator or function was given values of types it does not take)"
			}
			var cancelled interpreter.EvalCancelledError
			if errors.As(err, &cancelled) && cancelled.Cause == interpreter.CostLimitExceeded {
				reason, what = ReasonCostLimit, fmt.Sprintf("it exceeded the cost limit of %d", e.costLimit)
			}
			broken = e.evalError(rule.name, reason, fmt.Sprintf("CEL rule %q failed: %s", rule.name, what), err)
		}
	}
	if broken != nil {
		if len(e.rules) > 1 {
			broken.Message += " (" + strings.Join(notes, "; ") + ")"
		}
		return Result{}, broken
	}
	return Result{Healthy: false, Message: "no CEL rule is true: " + strings.Join(notes, "; ")}, nil
}

func (e *celEvaluator) evalError(rule, reason, msg string, err error) *EvalError {
	return &EvalError{Check: e.check, Language: LanguageCEL, Rule: rule, Reason: reason, Message: msg, Err: err}
}

func celValueString(v any) string {
	if s, ok := v.(string); ok {
		return fmt.Sprintf("%q", s)
	}
	return fmt.Sprint(v)
}

// isMissingData reports whether err says the object lacks what the rule reads. cel-go gives
// these errors no type or code to test, only their text.
func isMissingData(err error) bool {
	msg := err.Error()
	for _, prefix := range []string{"no such key", "index out of bounds", "no such attribute"} {
		if strings.HasPrefix(msg, prefix) {
			return true
		}
	}
	return false
}

// sizeCost charges a call that returns a string, bytes or a list by the size of what it
// returns, as cel-go does for the overloads it knows (string concatenation, say). Without it a
// call dispatched at run time on dyn values, as every call on the object is, costs 1 however
// much it builds, and the cost limit would not bound memory: a rule could concatenate
// megabyte strings in a loop well within its budget.
type sizeCost struct{}

func (sizeCost) CallCost(_, _ string, _ []ref.Val, result ref.Val) *uint64 {
	if result == nil {
		return nil
	}
	switch result.Type() {
	case types.StringType, types.BytesType, types.ListType:
	default:
		return nil
	}
	sz, ok := result.(traits.Sizer)
	if !ok {
		return nil
	}
	n, ok := sz.Size().(types.Int)
	if !ok || n < 0 {
		return nil
	}
	cost := 1 + uint64(n)/10
	return &cost
}
