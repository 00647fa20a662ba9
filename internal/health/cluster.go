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

	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
)

// CompileSelector compiles the filters of a resource selector: its Lua evaluate, which returns
// {matching = bool}, and its CEL rules, ORed; both must pass when both are set. Result.Healthy
// says whether an object matches. A selector without filters matches every object.
func CompileSelector(name string, sel *libv1beta1.ResourceSelector, opts Options) (Evaluator, error) {
	cache, limits := opts.cache(), opts.Limits.withDefaults()
	ev := &evaluator{secrets: newSecretGuard(opts.Secrets)}
	if sel.Evaluate != "" {
		proto, err := compileLua(cache, name, sel.Evaluate)
		if err != nil {
			return nil, err
		}
		ev.lua = &luaEvaluator{check: name, proto: proto, getter: ev.secrets.getter(opts.Getter), limits: limits, verdict: "matching"}
	}
	if len(sel.EvaluateCEL) > 0 {
		rules, err := compileCEL(cache, name, sel.EvaluateCEL, limits.CELCostLimit)
		if err != nil {
			return nil, err
		}
		ev.cel = &celEvaluator{check: name, rules: rules, costLimit: limits.CELCostLimit}
	}
	return ev, nil
}

// Condition is a compiled cluster check (a SveltosCluster's readiness or liveness check): a Lua
// program whose evaluate() sees every selected object, in the global resources and as its
// argument, and returns {pass = bool, message = "..."}.
type Condition struct{ lua *luaEvaluator }

// CompileCondition compiles a cluster check's condition.
func CompileCondition(name, script string, opts Options) (*Condition, error) {
	proto, err := compileLua(opts.cache(), name, script)
	if err != nil {
		return nil, err
	}
	return &Condition{lua: &luaEvaluator{check: name, proto: proto, getter: newSecretGuard(opts.Secrets).getter(opts.Getter),
		limits: opts.Limits.withDefaults(), input: "resources", verdict: "pass"}}, nil
}

// Evaluate runs the condition on the selected objects; Result.Healthy means it passes.
func (c *Condition) Evaluate(ctx context.Context, resources []map[string]any) (Result, error) {
	list := make([]any, len(resources))
	for i, r := range resources {
		list[i] = r
	}
	return c.lua.evaluate(ctx, list)
}
