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
	"time"

	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
)

// Result is the verdict on one object.
type Result struct {
	// Healthy is true when the object passes the check.
	Healthy bool
	// Message explains the verdict in the check author's words when there are some, otherwise
	// in ours. It is never empty when Healthy is false.
	Message string
}

// Evaluator judges objects against one compiled check. It is safe for concurrent use.
type Evaluator interface {
	// Evaluate judges obj, an object as read from the managed cluster (unstructured content:
	// map[string]any, []any, string, bool, int64, float64, nil). obj is nil for a metric-only
	// check. The error is a *CompileError or *EvalError when the check is at fault, or wraps
	// ctx's error when ctx ended first.
	Evaluate(ctx context.Context, obj map[string]any) (Result, error)
}

// ResourceGetter reads a live object from the managed cluster the check runs against. It
// returns (nil, nil) when the object does not exist; any error is the cluster's, not the
// script's, and is kept in the EvalError's chain. namespace is "" for cluster-scoped objects.
type ResourceGetter func(ctx context.Context, apiVersion, kind, namespace, name string) (map[string]any, error)

// Options carry what an Evaluator needs beyond the check itself.
//
// Compile is cheap once the check's programs are in the Cache, so the intended use is one
// Compile per check and managed cluster, each with that cluster's Getter and metrics.
type Options struct {
	// Getter serves getResource(apiVersion, kind, namespace, name) in Lua. Nil makes that call
	// fail with a clear error; the two-argument table lookup works regardless.
	Getter ResourceGetter

	// Secrets, when set, says which Secrets the profile's owner may read: every other Secret
	// the check sees, selected or read with getResource, has its data and stringData values
	// replaced by Redacted, so that no message of the check can carry them. Nil reads every
	// Secret as the controller does (a platform admin's profile).
	Secrets SecretAccess

	// Metrics are the results of the check's metricQueries, exposed to Lua as the global table
	// metrics (always present, possibly empty, as upstream).
	Metrics map[string]float64

	// Limits bound the work one evaluation may do. Zero fields take the defaults.
	Limits Limits

	// Cache holds compiled programs across Compile calls. Nil uses a process-wide cache.
	Cache *Cache
}

// Defaults for Limits.
const (
	// DefaultLuaTimeout bounds the wall-clock time of one Lua evaluation, getResource calls
	// included (they are reads from a live API server and normally take milliseconds).
	DefaultLuaTimeout = time.Second
	// DefaultLuaInstructions bounds the number of Lua VM instructions of one evaluation. The
	// health scripts in the seeds need a few hundred; the budget is there to stop a runaway
	// loop from allocating without end long before the timeout would.
	DefaultLuaInstructions = 1_000_000
	// DefaultLuaMemory bounds the strings and tables one Lua evaluation holds, in bytes. An
	// object converted for a script takes a few times its JSON size; etcd caps objects at 1.5 MB.
	DefaultLuaMemory = 64 << 20
	// DefaultCELCostLimit is the cost budget of one CEL rule evaluation, in cel-go cost units.
	// It is Kubernetes' per-call limit for CRD validation rules.
	DefaultCELCostLimit = 1_000_000
)

// Limits bound the work of one evaluation.
type Limits struct {
	LuaTimeout      time.Duration
	LuaInstructions int64
	// LuaMemory is in bytes.
	LuaMemory    int64
	CELCostLimit uint64
}

func (o Options) cache() *Cache {
	if o.Cache == nil {
		return defaultCache
	}
	return o.Cache
}

func (l Limits) withDefaults() Limits {
	if l.LuaTimeout <= 0 {
		l.LuaTimeout = DefaultLuaTimeout
	}
	if l.LuaInstructions <= 0 {
		l.LuaInstructions = DefaultLuaInstructions
	}
	if l.LuaMemory <= 0 {
		l.LuaMemory = DefaultLuaMemory
	}
	if l.CELCostLimit == 0 {
		l.CELCostLimit = DefaultCELCostLimit
	}
	return l
}

// Compile prepares check for evaluation: it parses the Lua script and compiles the CEL rules
// (reusing opts.Cache), and returns a *CompileError when either is wrong, so that a broken check
// is reported once and never judged as merely unhealthy.
//
// With a script and rules, an object must pass both, Lua first. With neither the check is an
// existence check and every object passes. jobCheck is not evaluated here: a check that sets it
// is rejected, so that it cannot silently pass as an existence check.
func Compile(check *libv1beta1.ValidateHealth, opts Options) (Evaluator, error) {
	if check == nil {
		return nil, errors.New("health: Compile called with a nil check")
	}
	name := check.CheckName()
	if check.JobCheck != nil {
		return nil, &CompileError{Check: name, Message: "jobCheck is not evaluated by scripts or CEL rules: run the Job and wait for it instead"}
	}
	if check.IsMetricOnly() {
		if check.Script == "" {
			return nil, &CompileError{Check: name, Message: "a check without kind or type reads no object and only evaluates metrics: it needs a Lua script"}
		}
		if len(check.EvaluateCEL) > 0 {
			return nil, &CompileError{Check: name, Language: LanguageCEL, Message: "evaluateCEL rules judge an object, and a check without kind or type reads none: set kind (or type), or move the logic to the Lua script"}
		}
	}

	cache, limits := opts.cache(), opts.Limits.withDefaults()
	ev := &evaluator{secrets: newSecretGuard(opts.Secrets)}
	if check.Script != "" {
		proto, err := compileLua(cache, name, check.Script)
		if err != nil {
			return nil, err
		}
		ev.lua = &luaEvaluator{check: name, proto: proto, getter: ev.secrets.getter(opts.Getter), metrics: opts.Metrics, limits: limits}
	}
	if len(check.EvaluateCEL) > 0 {
		rules, err := compileCEL(cache, name, check.EvaluateCEL, limits.CELCostLimit)
		if err != nil {
			return nil, err
		}
		ev.cel = &celEvaluator{check: name, rules: rules, costLimit: limits.CELCostLimit}
	}
	return ev, nil
}

// evaluator combines the two languages: Lua, then CEL, both must pass. With neither it is an
// existence check.
type evaluator struct {
	lua     *luaEvaluator
	cel     *celEvaluator
	secrets *secretGuard
}

func (e *evaluator) Evaluate(ctx context.Context, obj map[string]any) (Result, error) {
	obj = e.secrets.redact(ctx, obj)
	res := Result{Healthy: true}
	if e.lua != nil {
		r, err := e.lua.Evaluate(ctx, obj)
		if err != nil || !r.Healthy {
			return r, err
		}
		res = r
	}
	if e.cel != nil {
		r, err := e.cel.Evaluate(ctx, obj)
		if err != nil || !r.Healthy {
			return r, err
		}
		if res.Message == "" {
			res.Message = r.Message
		}
	}
	return res, nil
}
