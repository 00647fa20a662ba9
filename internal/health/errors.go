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
	"errors"
	"fmt"
)

// Language names the language of a script or rule in errors.
type Language string

// Languages of health checks.
const (
	LanguageLua Language = "Lua"
	LanguageCEL Language = "CEL"
)

// Reasons an evaluation fails. They are CamelCase so that they can serve as condition reasons
// as they are.
const (
	// ReasonRuntimeError: the Lua script raised an error, or a CEL rule hit a type error (no
	// matching overload, division by zero, ...).
	ReasonRuntimeError = "RuntimeError"
	// ReasonBadResult: evaluate is not a function, returned something other than a table, or a
	// table whose healthy or status fields have the wrong type or value; or a CEL rule returned
	// something other than a bool.
	ReasonBadResult = "BadResult"
	// ReasonTimeout: the Lua script did not finish within Limits.LuaTimeout.
	ReasonTimeout = "Timeout"
	// ReasonInstructionBudget: the Lua script ran more than Limits.LuaInstructions instructions.
	ReasonInstructionBudget = "InstructionBudget"
	// ReasonMemoryLimit: the strings and tables a Lua script held grew past Limits.LuaMemory.
	ReasonMemoryLimit = "MemoryLimit"
	// ReasonCostLimit: a CEL rule exceeded Limits.CELCostLimit.
	ReasonCostLimit = "CostLimit"
	// ReasonGetResource: getResource could not read the managed cluster. The getter's error is
	// in the chain.
	ReasonGetResource = "GetResource"
)

// CompileError says a check cannot be evaluated as written. Retrying does not help; the check
// must be edited. Its message does not repeat the check's name: callers prefix it.
type CompileError struct {
	// Check is the name of the check (ValidateHealth.CheckName).
	Check string
	// Language is the language at fault, empty when the check's shape is.
	Language Language
	// Rule is the name of the CEL rule at fault.
	Rule string
	// Line is the line of a Lua syntax error, 0 when unknown.
	Line int
	// Message says what is wrong, in words the check's author can act on.
	Message string
}

func (e *CompileError) Error() string {
	switch {
	case e.Rule != "":
		return fmt.Sprintf("CEL rule %q does not compile: %s", e.Rule, e.Message)
	case e.Language == LanguageLua:
		return "Lua script does not compile: " + e.Message
	case e.Language != "":
		return fmt.Sprintf("%s: %s", e.Language, e.Message)
	default:
		return e.Message
	}
}

// EvalError says a compiled check failed while judging one object. Its message does not repeat
// the check's name: callers prefix it.
type EvalError struct {
	// Check is the name of the check (ValidateHealth.CheckName).
	Check    string
	Language Language
	// Rule is the name of the CEL rule at fault; with several failing rules, the first.
	Rule string
	// Reason is one of the Reason constants.
	Reason string
	// Message says what went wrong.
	Message string
	// Err is the underlying error when there is one (for example the ResourceGetter's).
	Err error
}

func (e *EvalError) Error() string { return e.Message }

func (e *EvalError) Unwrap() error { return e.Err }

// UnhealthyError is what CheckObjects returns for the first object that is not healthy.
type UnhealthyError struct {
	// Object is the object's identity, as "Kind namespace/name" (or "Kind name").
	Object string
	// Message is the Result's message.
	Message string
}

func (e *UnhealthyError) Error() string {
	return fmt.Sprintf("%s is not healthy: %s", e.Object, e.Message)
}

// IsCompileError reports whether err's chain holds a *CompileError.
func IsCompileError(err error) bool {
	var ce *CompileError
	return errors.As(err, &ce)
}

// AsEvalError returns the *EvalError in err's chain, if there is one.
func AsEvalError(err error) (*EvalError, bool) {
	var ee *EvalError
	ok := errors.As(err, &ee)
	return ee, ok
}
