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
	"math"
	"runtime"
	"testing"
	"time"
)

// TestLuaSandboxEscapes runs scripts that try to reach the host. Each must fail as a script
// error, and the test process must still be here to see it (os.exit would end it).
func TestLuaSandboxEscapes(t *testing.T) {
	tests := []struct {
		name, body, message string
	}{
		{"os.exit", `os.exit(1)`, "attempt to index a non-table object(nil)"},
		{"os.execute", `os.execute("touch /tmp/pwned")`, "attempt to index"},
		{"io.open", `io.open("/etc/passwd")`, "attempt to index"},
		{"require os", `require("os")`, `module "os" is not available to health scripts (available: json, math, string, strings, table)`},
		{"require io", `require("io")`, `module "io" is not available`},
		{"require a file", `require("./evil")`, `module "./evil" is not available`},
		{"dofile", `dofile("/etc/passwd")`, "attempt to call a non-function object"},
		{"loadfile", `loadfile("/etc/passwd")`, "attempt to call a non-function object"},
		{"load", `load(function() return nil end)`, "attempt to call a non-function object"},
		{"loadstring", `loadstring("return 1")()`, "attempt to call a non-function object"},
		{"debug", `debug.getinfo(1)`, "attempt to index"},
		{"package.loadlib", `package.loadlib("libc.so.6", "system")`, "attempt to index"},
		{"collectgarbage", `collectgarbage()`, "attempt to call a non-function object"},
		{"coroutine", `coroutine.create(function() end)`, "attempt to index"},
		{"string.dump", `string.dump(evaluate)`, "attempt to call a non-function object"},
		{"huge string.rep", `local s = string.rep("x", 1e12)`, "string.rep would build a string longer than 1048576 bytes"},
		{"huge rep through the string metatable", `local s = ("xy"):rep(1e9)`, "string.rep would build a string longer"},
		{"rep through getmetatable", `getmetatable("").__index.rep("x", 1e12)`, "string.rep would build a string longer"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ev := compile(t, luaCheck("function evaluate()\n"+tc.body+"\nreturn {healthy = true}\nend"), Options{})
			res, err := evaluate(t, ev, object(t, "kind: X"))
			checkOutcome(t, res, err, want{reason: ReasonRuntimeError, message: tc.message})
		})
	}
}

// TestLuaInstructionBudget checks that an endless loop is stopped by the instruction budget,
// long before the time budget. It also guards budgetContext's reliance on gopher-lua calling
// ctx.Done() once per instruction.
func TestLuaInstructionBudget(t *testing.T) {
	for _, script := range []string{
		"function evaluate()\n  while true do end\nend",
		"function evaluate()\n  while true do pcall(function() while true do end end) end\nend",
		"while true do end\nfunction evaluate() return {healthy = true} end",
		"function evaluate()\n  local t = {} while true do t[#t + 1] = {} end\nend",
	} {
		ev := compile(t, luaCheck(script), Options{Limits: Limits{LuaTimeout: time.Minute}})
		res, err := evaluate(t, ev, nil)
		checkOutcome(t, res, err, want{reason: ReasonInstructionBudget, message: "health check script exceeded its budget of 1000000 Lua instructions"})
	}
}

// TestLuaMemoryLimit checks that scripts that build huge strings or tables inside the
// instruction budget are stopped near the memory limit, with a message naming it, and that the
// process's heap does not grow by anything like what they asked for.
func TestLuaMemoryLimit(t *testing.T) {
	for name, script := range map[string]string{
		"doubling a global string": "function evaluate()\n  s = 'x' while true do s = s .. s end\nend",
		"doubling a local string":  "function evaluate()\n  local s = 'x' for i = 1, 64 do s = s .. s end\n  return {healthy = #s > 0}\nend",
		"a table of strings":       "function evaluate()\n  local t, chunk = {}, string.rep('x', 4096) for i = 1, 100000 do t[i] = chunk .. i end\nend",
		"references to one string": "function evaluate()\n  local t, big = {}, string.rep('x', 1048576) for i = 1, 100000 do t[i] = big end\n  return {healthy = #table.concat(t) > 0}\nend",
		"at top level":             "s = 'x' for i = 1, 64 do s = s .. s end\nfunction evaluate() return {healthy = true} end",
	} {
		t.Run(name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			ev := compile(t, luaCheck(script), Options{Limits: Limits{LuaTimeout: time.Minute, LuaMemory: 16 << 20}})
			res, err := evaluate(t, ev, nil)
			checkOutcome(t, res, err, want{reason: ReasonMemoryLimit, message: "health check script exceeded its memory limit of 16 MiB"})
			runtime.ReadMemStats(&after)
			if grown := int64(after.TotalAlloc - before.TotalAlloc); grown > 1<<30 {
				t.Errorf("the script allocated %d MiB before it was stopped", grown>>20)
			}
		})
	}
	// Scripts within the limit are not disturbed, however much the rest of the process allocates.
	ev := compile(t, luaCheck("function evaluate()\n  local t = {} for i = 1, 1000 do t[i] = string.rep('x', 100) end\n  return {healthy = #t == 1000}\nend"),
		Options{Limits: Limits{LuaMemory: 1 << 20}})
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		var sink []byte
		for {
			select {
			case <-stop:
				return
			default:
				sink = make([]byte, 1<<20)
				_ = sink
			}
		}
	}()
	for range 20 {
		res, err := evaluate(t, ev, nil)
		checkOutcome(t, res, err, want{healthy: true})
	}
}

// TestLuaTimeout disables the instruction budget to let the time budget stop the loop.
func TestLuaTimeout(t *testing.T) {
	ev := compile(t, luaCheck("function evaluate()\n  while true do end\nend"), Options{Limits: Limits{LuaInstructions: math.MaxInt64}})
	res, err := evaluate(t, ev, nil)
	checkOutcome(t, res, err, want{reason: ReasonTimeout, message: "health check script did not finish within 1s"})

	ev = compile(t, luaCheck("function evaluate()\n  while true do end\nend"), Options{Limits: Limits{LuaInstructions: math.MaxInt64, LuaTimeout: 50 * time.Millisecond}})
	res, err = evaluate(t, ev, nil)
	checkOutcome(t, res, err, want{reason: ReasonTimeout, message: "health check script did not finish within 50ms"})
}

// TestLuaSlowGetter checks the time budget covers getResource, and says so.
func TestLuaSlowGetter(t *testing.T) {
	script := returning(`{healthy = getResource("v1", "Secret", "ns", "s") ~= nil}`)

	waitsForCtx := func(ctx context.Context, _, _, _, _ string) (map[string]any, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	ev := compile(t, luaCheck(script), Options{Getter: waitsForCtx, Limits: Limits{LuaTimeout: 50 * time.Millisecond}})
	res, err := evaluate(t, ev, nil)
	checkOutcome(t, res, err, want{reason: ReasonTimeout, message: `did not finish within 50ms (getResource(v1, Secret, "ns", "s") was still waiting for the managed cluster)`})

	// A getter that ignores its context: the watchdog gives up on it.
	release := make(chan struct{})
	defer close(release)
	ignoresCtx := func(context.Context, string, string, string, string) (map[string]any, error) {
		<-release
		return nil, nil
	}
	ev = compile(t, luaCheck(script), Options{Getter: ignoresCtx, Limits: Limits{LuaTimeout: 50 * time.Millisecond}})
	res, err = evaluate(t, ev, nil)
	checkOutcome(t, res, err, want{reason: ReasonTimeout, message: "did not finish within 50ms (it was stuck inside a built-in function)"})
}

// TestLuaCallerCancels checks that the caller's cancellation is reported as such, not blamed on
// the script.
func TestLuaCallerCancels(t *testing.T) {
	ev := compile(t, luaCheck("function evaluate()\n  while true do end\nend"), Options{Limits: Limits{LuaInstructions: math.MaxInt64, LuaTimeout: time.Minute}})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	_, err := evaluateCtx(t, ctx, ev, nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("want context.Canceled, got %v", err)
	}
	if _, ok := AsEvalError(err); ok {
		t.Errorf("a cancellation must not be an EvalError: %v", err)
	}

	_, err = evaluateCtx(t, ctx, ev, nil) // already cancelled
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("want context.Canceled, got %v", err)
	}
}

// TestLuaStateIsolation checks that globals set by one evaluation are gone in the next.
func TestLuaStateIsolation(t *testing.T) {
	ev := compile(t, luaCheck(`function evaluate()
  local seen = leaked
  leaked = true
  return {healthy = seen == nil, message = "a global leaked from an earlier evaluation"}
end`), Options{})
	for range 3 {
		res, err := evaluate(t, ev, nil)
		checkOutcome(t, res, err, want{healthy: true})
	}
}
