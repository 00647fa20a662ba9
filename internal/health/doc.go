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

// Package health decides whether an object in a managed cluster is healthy, as a ValidateHealth
// check describes it: with a Lua script, with CEL rules, with both (both must pass), or with
// neither (the object only has to exist).
//
// Compile turns a check into an Evaluator once; Evaluate then judges one object at a time. The
// package reads nothing by itself: the caller lists the objects to judge, and Lua's
// getResource(apiVersion, kind, namespace, name) reads through the ResourceGetter the caller
// passes in Options, so the package needs no Kubernetes client.
//
// Three outcomes are kept apart, because the controller reacts to each differently:
//
//   - Result{Healthy: false}: the check ran and the object is not healthy (yet). Wait and retry.
//   - *CompileError: the script or a rule is wrong (syntax, unknown identifier, no evaluate
//     function, ...). Retrying cannot help until the check is edited.
//   - *EvalError: the check compiled but failed on this object (a Lua runtime error, a wrong
//     return value, a time, instruction or cost budget exhausted, getResource failing). The
//     message says which; it may or may not go away with a different object.
//
// The dialects accepted are those of DESIGN.md §1: Lua scripts return {healthy = bool} or
// {status = "Healthy"|"Progressing"|"Degraded"|"Suspended"}, read obj as a global or as the
// argument of evaluate, and may call getResource with four arguments; CEL rules are written under
// rule or expression and see the object as both self and resource.
//
// Lua runs in a fresh state per object with the base library (minus dofile, loadfile, load,
// loadstring, module, collectgarbage; print does nothing), string, table and math; json and
// strings as globals and through require; upstream's base64Encode, base64Decode, getLabel,
// getAnnotation and two-argument getResource(tbl, key); metrics. No os, io, package, debug or
// coroutine. Each evaluation has a time budget (getResource calls included) and an instruction
// budget, see Limits.
//
// CEL rules are ORed as upstream: the first rule returning true makes the object healthy. Unlike
// upstream, a rule that does not compile is a CompileError, never a silent false. A rule that
// fails at run time counts as false; if no rule is true, a failure caused by data missing from the
// object (no such key, index out of bounds: typically a status not written yet) makes the object
// unhealthy with the message, while any other failure (type error, non-bool result, cost limit)
// is returned as an EvalError, because the rule, not the workload, needs fixing.
package health
