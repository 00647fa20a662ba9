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
	"fmt"
	"regexp"
	"strings"
	"time"

	lua "github.com/yuin/gopher-lua"
)

// watchdogGrace is how long Evaluate waits past the time budget before it stops waiting for a
// script. The VM stops itself at the budget; only a script stuck inside one long built-in call
// (a pathological string pattern, say) outlives it, and then its goroutine is left to finish on
// its own rather than holding up the controller.
const watchdogGrace = 100 * time.Millisecond

// luaEvaluator runs a compiled script against objects, one fresh sandboxed LState each: globals a
// script sets must not leak from one object, or cluster, to the next.
type luaEvaluator struct {
	check   string
	proto   *lua.FunctionProto
	getter  ResourceGetter
	metrics map[string]float64
	limits  Limits
	// input names the global holding what is judged, also passed to evaluate: "obj" (the
	// default) or "resources" for a cluster condition.
	input string
	// verdict, when set, is the one boolean field evaluate returns ("matching", "pass") instead
	// of a health result.
	verdict string
}

type luaOutcome struct {
	result Result
	err    error
}

func (e *luaEvaluator) Evaluate(ctx context.Context, obj map[string]any) (Result, error) {
	if obj == nil {
		return e.evaluate(ctx, nil)
	}
	return e.evaluate(ctx, obj)
}

// evaluate runs the script on input, which the script sees as the global e.input.
func (e *luaEvaluator) evaluate(ctx context.Context, input any) (Result, error) {
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	runCtx, cancel := context.WithTimeout(ctx, e.limits.LuaTimeout)
	defer cancel()
	done := make(chan luaOutcome, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- luaOutcome{err: e.evalError(ReasonRuntimeError, fmt.Sprintf("Lua script failed: internal error: %v", r), nil)}
			}
		}()
		res, err := e.run(ctx, runCtx, input)
		done <- luaOutcome{res, err}
	}()

	watchdog := time.NewTimer(e.limits.LuaTimeout + watchdogGrace)
	defer watchdog.Stop()
	select {
	case out := <-done:
		return out.result, out.err
	case <-ctx.Done():
		// The VM stops at its next instruction; give it that moment, so that a result that is
		// ready, or the script's own account of the stop, wins.
		select {
		case out := <-done:
			return out.result, out.err
		case <-time.After(watchdogGrace):
			return Result{}, fmt.Errorf("health check script stopped: %w", context.Cause(ctx))
		}
	case <-watchdog.C:
		return Result{}, e.evalError(ReasonTimeout, e.timeoutMessage()+" (it was stuck inside a built-in function)", nil)
	}
}

// run executes the script in a new state. ctx is the caller's; runCtx adds the time budget.
func (e *luaEvaluator) run(ctx, runCtx context.Context, input any) (Result, error) {
	L := newLuaState()
	defer L.Close()

	gets := &getResourceState{ctx: runCtx, getter: e.getter}
	L.SetGlobal("getResource", L.NewFunction(gets.call))
	metrics := L.CreateTable(0, len(e.metrics))
	for name, value := range e.metrics {
		metrics.RawSetString(name, lua.LNumber(value))
	}
	L.SetGlobal("metrics", metrics)
	objValue := lua.LNil
	if input != nil {
		objValue = toLValue(L, input)
	}
	name := e.input
	if name == "" {
		name = "obj"
	}
	L.SetGlobal(name, objValue)

	budget := &budgetContext{Context: runCtx, left: e.limits.LuaInstructions, memory: newMemoryGauge(L, e.limits.LuaMemory)}
	L.SetContext(budget)

	// The chunk defines evaluate (and may compute things at top level); then evaluate(obj).
	L.Push(L.NewFunctionFromProto(e.proto))
	if err := L.PCall(0, 0, nil); err != nil {
		return Result{}, e.runError(ctx, runCtx, budget, gets, err)
	}
	fn := L.GetGlobal("evaluate")
	if fn.Type() != lua.LTFunction {
		msg := "the script defines no global function evaluate"
		if fn != lua.LNil {
			msg = fmt.Sprintf("evaluate is a %s, not a function", fn.Type())
		}
		return Result{}, e.evalError(ReasonBadResult, msg, nil)
	}
	L.Push(fn)
	L.Push(objValue)
	if err := L.PCall(1, 1, nil); err != nil {
		return Result{}, e.runError(ctx, runCtx, budget, gets, err)
	}
	ret := L.Get(-1)
	L.Pop(1)
	res, msg := decodeLuaResult(ret)
	if e.verdict != "" {
		res, msg = decodeLuaVerdict(ret, e.verdict)
	}
	if msg != "" {
		return Result{}, e.evalError(ReasonBadResult, msg, nil)
	}
	return res, nil
}

// runError explains why the script stopped.
func (e *luaEvaluator) runError(ctx, runCtx context.Context, budget *budgetContext, gets *getResourceState, err error) error {
	msg := luaErrorMessage(err)
	switch {
	case budget.memory.exceeded:
		return e.evalError(ReasonMemoryLimit, fmt.Sprintf("health check script exceeded its memory limit of %d MiB: "+
			"its strings and tables held about %d MiB", e.limits.LuaMemory>>20, budget.memory.held>>20), nil)
	case budget.exceeded:
		return e.evalError(ReasonInstructionBudget, fmt.Sprintf("health check script exceeded its budget of %d Lua instructions (is there an endless loop?)", e.limits.LuaInstructions), nil)
	case ctx.Err() != nil:
		return fmt.Errorf("health check script stopped: %w", context.Cause(ctx))
	case runCtx.Err() != nil:
		m := e.timeoutMessage()
		if gets.pending != "" {
			m += fmt.Sprintf(" (getResource(%s) was still waiting for the managed cluster)", gets.pending)
		}
		return e.evalError(ReasonTimeout, m, nil)
	case gets.err != nil && strings.Contains(msg, gets.errMessage):
		return e.evalError(ReasonGetResource, "Lua script failed: "+msg, gets.err)
	}
	return e.evalError(ReasonRuntimeError, "Lua script failed: "+msg, err)
}

func (e *luaEvaluator) timeoutMessage() string {
	return fmt.Sprintf("health check script did not finish within %s", e.limits.LuaTimeout)
}

func (e *luaEvaluator) evalError(reason, msg string, err error) *EvalError {
	return &EvalError{Check: e.check, Language: LanguageLua, Reason: reason, Message: msg, Err: err}
}

// luaPosition matches the position gopher-lua puts in front of runtime errors: "script:12: ".
var luaPosition = regexp.MustCompile(`^` + luaChunkName + `:(\d+): ?`)

// luaErrorMessage returns the error's message without gopher-lua's stack traceback and with its
// position written "line 12: ".
func luaErrorMessage(err error) string {
	var ae *lua.ApiError
	if !errors.As(err, &ae) {
		return err.Error()
	}
	msg := ae.Object.String()
	if ae.Object.Type() == lua.LTTable {
		msg = "error raised with a table value"
	}
	return luaPosition.ReplaceAllString(msg, "line $1: ")
}

// errNoGetter is the getResource failure when Options carried no ResourceGetter.
var errNoGetter = errors.New("this evaluation has no access to a managed cluster")

// getResourceState serves getResource for one evaluation and remembers a failing read, so that
// the getter's error can be kept in the EvalError's chain.
type getResourceState struct {
	ctx        context.Context
	getter     ResourceGetter
	pending    string // the read in flight, for the timeout message
	err        error  // the last failed read
	errMessage string // what was raised for it
}

// call is getResource. With four arguments (apiVersion, kind, namespace, name) it reads the
// managed cluster and returns the object or nil; with two (table, key) it is upstream's table
// lookup, tbl[key] or nil.
func (g *getResourceState) call(L *lua.LState) int {
	switch L.GetTop() {
	case 2:
		tbl := L.CheckTable(1)
		L.Push(tbl.RawGetString(L.CheckString(2)))
		return 1
	case 4:
	default:
		L.RaiseError("getResource takes (apiVersion, kind, namespace, name) to read an object from the managed cluster, or (table, key) to look a key up; it was given %d arguments", L.GetTop())
		return 0
	}
	apiVersion, kind := L.CheckString(1), L.CheckString(2)
	namespace := L.OptString(3, "")
	name := L.CheckString(4)
	what := fmt.Sprintf("%s, %s, %q, %q", apiVersion, kind, namespace, name)
	if g.getter == nil {
		g.err = errNoGetter
		g.errMessage = fmt.Sprintf("getResource(%s) failed: %v", what, errNoGetter)
		L.RaiseError("%s", g.errMessage)
		return 0
	}
	g.pending = what
	obj, err := g.getter(g.ctx, apiVersion, kind, namespace, name)
	if err != nil {
		// pending stays set: if the time budget cut the read short, the timeout message names it.
		g.err = err
		g.errMessage = fmt.Sprintf("getResource(%s) failed: %v", what, err)
		L.RaiseError("%s", g.errMessage)
		return 0
	}
	g.pending = ""
	if obj == nil {
		L.Push(lua.LNil)
	} else {
		L.Push(toLValue(L, obj))
	}
	return 1
}
