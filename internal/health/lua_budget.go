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
)

// errMemoryLimit is what budgetContext.Err returns once a script holds too much.
var errMemoryLimit = errors.New("memory limit exceeded")

// errInstructionBudget is what budgetContext.Err returns once the budget is spent; gopher-lua
// raises it as a Lua error, which runLua recognises.
var errInstructionBudget = errors.New("instruction budget exhausted")

// closedChan is returned by budgetContext.Done once the budget is spent.
var closedChan = func() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}()

// budgetContext counts Lua VM instructions. gopher-lua has no instruction hook (debug.sethook
// is not implemented), but once LState.SetContext is called its VM loop checks ctx.Done()
// before every instruction; counting those calls is an instruction counter that costs one
// decrement. When the count runs out Done returns a closed channel and Err explains why, and
// gopher-lua raises that as an error. TestLuaInstructionBudget guards this reliance on the VM
// loop: if a gopher-lua upgrade stopped calling Done per instruction, the loop there would be
// stopped by the timeout instead and the test would fail.
//
// Only the goroutine running the LState calls Done, so the counter needs no synchronisation;
// the ResourceGetter and the watchdog are given the embedded context, never this one.
type budgetContext struct {
	context.Context
	left     int64
	exceeded bool
	// memory, when set, stops the script once what it holds outgrows its limit.
	memory *memoryGauge
}

func (c *budgetContext) Done() <-chan struct{} {
	c.left--
	if c.left < 0 {
		c.exceeded = true
		return closedChan
	}
	if c.memory != nil && c.memory.over() {
		return closedChan
	}
	return c.Context.Done()
}

func (c *budgetContext) Err() error {
	switch {
	case c.exceeded:
		return errInstructionBudget
	case c.memory != nil && c.memory.exceeded:
		return errMemoryLimit
	}
	return c.Context.Err()
}
