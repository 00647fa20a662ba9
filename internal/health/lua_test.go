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
	"testing"

	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
)

func luaCheck(script string) *libv1beta1.ValidateHealth {
	return &libv1beta1.ValidateHealth{Name: "lua", Group: "apps", Version: "v1", Kind: "Deployment", Script: script}
}

// returning wraps a Lua expression as the result of evaluate.
func returning(expr string) string {
	return "function evaluate()\n  return " + expr + "\nend\n"
}

func TestLuaResults(t *testing.T) {
	tests := []struct {
		name   string
		script string
		want   want
	}{
		{"healthy", returning(`{healthy = true, message = "fine"}`), want{healthy: true, message: "fine"}},
		{"unhealthy", returning(`{healthy = false, message = "not yet"}`), want{message: "not yet"}},
		{"unhealthy without message", returning(`{healthy = false}`), want{message: "reported the object unhealthy without a message"}},
		{"status Healthy", returning(`{status = "Healthy"}`), want{healthy: true}},
		{"status Progressing", returning(`{status = "Progressing", message = "rolling"}`), want{message: "rolling"}},
		{"status Degraded without message", returning(`{status = "Degraded"}`), want{message: "status is Degraded"}},
		{"status Suspended", returning(`{status = "Suspended"}`), want{message: "status is Suspended"}},
		{"healthy and status agreeing", returning(`{healthy = true, status = "Healthy"}`), want{healthy: true}},
		{"neither healthy nor status", returning(`{message = "hm"}`), want{message: "hm"}},
		{"empty table", returning(`{}`), want{message: "evaluate returned neither healthy nor status"}},
		{"table with an array part", returning(`{true, healthy = true}`), want{healthy: true}},
		{"numeric message", returning(`{healthy = false, message = 42}`), want{message: "42"}},

		{"unknown status", returning(`{status = "OK"}`), want{reason: ReasonBadResult, message: `status must be one of "Healthy", "Progressing", "Degraded" or "Suspended"; evaluate returned "OK"`}},
		{"healthy and status disagreeing", returning(`{healthy = true, status = "Degraded"}`), want{reason: ReasonBadResult, message: "disagree"}},
		{"healthy as a string", returning(`{healthy = "true"}`), want{reason: ReasonBadResult, message: `healthy must be true or false; evaluate returned the string "true"`}},
		{"status as a bool", returning(`{status = true}`), want{reason: ReasonBadResult, message: "status must be a string"}},
		{"message as a table", returning(`{healthy = true, message = {}}`), want{reason: ReasonBadResult, message: "message must be a string"}},
		{"returns nothing", "function evaluate() end", want{reason: ReasonBadResult, message: "evaluate must return a table such as {healthy = true, message = \"...\"}; it returned nothing"}},
		{"returns a bool", returning(`true`), want{reason: ReasonBadResult, message: "it returned boolean"}},
		{"evaluate is not a function", "evaluate = 5", want{reason: ReasonBadResult, message: "evaluate is a number, not a function"}},
		{"evaluate defined through rawset", `rawset(_G, "evaluate", function() return {healthy = true} end)`, want{healthy: true}},
		{"evaluate defined through _G", `_G.evaluate = function() return {healthy = true} end`, want{healthy: true}},
		{"evaluate mentioned but never defined", "-- evaluate is missing", want{reason: ReasonBadResult, message: "the script defines no global function evaluate"}},

		{"runtime error with line", "function evaluate()\n  local x = obj.spec.missing.field\n  return {healthy = true}\nend", want{reason: ReasonRuntimeError, message: "Lua script failed: line 2: attempt to index"}},
		{"error()", "function evaluate()\n  error(\"replicas are wrong\")\nend", want{reason: ReasonRuntimeError, message: "line 2: replicas are wrong"}},
		{"error at top level", "error(\"early\")\nfunction evaluate() return {healthy = true} end", want{reason: ReasonRuntimeError, message: "line 1: early"}},
		{"error with a table", "function evaluate() error({}) end", want{reason: ReasonRuntimeError, message: "error raised with a table value"}},
		{"stack overflow", "local function f(n) return 1 + f(n + 1) end\nfunction evaluate() return {healthy = f(1) > 0} end", want{reason: ReasonRuntimeError, message: "stack overflow"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ev := compile(t, luaCheck(tc.script), Options{})
			res, err := evaluate(t, ev, object(t, "spec: {replicas: 2}"))
			checkOutcome(t, res, err, tc.want)
		})
	}
}

func TestLuaCompileErrors(t *testing.T) {
	tests := []struct {
		name    string
		script  string
		line    int
		message string
	}{
		{"syntax error", "function evaluate()\n  local hs = {healthy = \n  return hs\nend", 3, `Lua script does not compile: line 3, column 8, near "return": syntax error`},
		{"missing end", "function evaluate()\n  return {healthy = true}\n", 0, "unexpected end of script (is an end missing?)"},
		{"no evaluate", "local hs = {healthy = true}\nreturn hs", 0, "the script defines no function evaluate"},
		{"local evaluate", "local function evaluate() return {healthy = true} end", 0, "evaluate is declared local"},
		{"goto without a label", "function evaluate()\n  goto done\nend", 3, "Lua script does not compile: line 3: no visible label"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Compile(luaCheck(tc.script), Options{Cache: NewCache(0)})
			ce, ok := err.(*CompileError)
			if !ok {
				t.Fatalf("want *CompileError, got %T %v", err, err)
			}
			if ce.Language != LanguageLua || ce.Check != "lua" {
				t.Errorf("Language, Check = %q, %q", ce.Language, ce.Check)
			}
			if ce.Line != tc.line {
				t.Errorf("Line = %d, want %d", ce.Line, tc.line)
			}
			if !containsAll(err.Error(), tc.message) {
				t.Errorf("error %q does not contain %q", err, tc.message)
			}
		})
	}
}

func TestLuaObjectAndArguments(t *testing.T) {
	obj := object(t, `
kind: Service
metadata:
  name: web
  labels: {app: web}
  annotations: {owner: team-a}
spec:
  ports: [80, 443]
  weights: [0.5, 1.5]
  flags: [true, false]
  names: [a, b, c]
  nested: [[1, 2], [3]]
  rules: [{host: a.example}, {host: b.example}]
  enabled: true
`)
	obj["spec"].(map[string]any)["typed"] = []string{"x", "y"}
	obj["spec"].(map[string]any)["count"] = 7 // an int, as a typed caller might pass

	tests := []struct {
		name, body string
	}{
		{"obj is the argument", `return {healthy = o.metadata.name == "web"}`},
		{"obj is a global", `return {healthy = obj.metadata.name == "web" and obj == o}`},
		{"int64 array elements are kept", `return {healthy = #o.spec.ports == 2 and o.spec.ports[1] == 80 and o.spec.ports[2] == 443}`},
		{"float arrays", `return {healthy = o.spec.weights[2] == 1.5}`},
		{"bool arrays", `return {healthy = o.spec.flags[1] == true and o.spec.flags[2] == false}`},
		{"string arrays", `return {healthy = table.concat(o.spec.names, ",") == "a,b,c"}`},
		{"nested arrays", `return {healthy = o.spec.nested[1][2] == 2 and #o.spec.nested[2] == 1}`},
		{"arrays of maps", `return {healthy = o.spec.rules[2].host == "b.example"}`},
		{"typed slices", `return {healthy = o.spec.typed[2] == "y"}`},
		{"typed numbers", `return {healthy = o.spec.count == 7}`},
		{"bools", `return {healthy = o.spec.enabled}`},
		{"ipairs over an array", `local n = 0 for _, p in ipairs(o.spec.ports) do n = n + p end return {healthy = n == 523}`},
		{"getLabel", `return {healthy = getLabel(o, "app") == "web" and getLabel(o, "nope") == nil}`},
		{"getAnnotation", `return {healthy = getAnnotation(o, "owner") == "team-a"}`},
		{"getResource as a table lookup", `return {healthy = getResource(o.metadata.labels, "app") == "web" and getResource(o, "nope") == nil}`},
		{"metrics is an empty table", `return {healthy = type(metrics) == "table" and next(metrics) == nil}`},
		{"print is harmless", `print("debugging", o.kind) return {healthy = true}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ev := compile(t, luaCheck("function evaluate(o)\n"+tc.body+"\nend"), Options{})
			res, err := evaluate(t, ev, obj)
			checkOutcome(t, res, err, want{healthy: true})
		})
	}
}

func TestLuaModules(t *testing.T) {
	tests := []struct {
		name, body string
	}{
		{"json global", `local s = json.encode({a = 1, b = {true, "x"}}) local v = json.decode(s) return {healthy = v.a == 1 and v.b[2] == "x"}`},
		{"require json", `local j = require("json") return {healthy = j.encode({1, 2, 3}) == "[1,2,3]"}`},
		{"json decode error", `local v, err = json.decode("{") return {healthy = v == nil and err ~= nil}`},
		{"json encode of a cycle", `local t = {} t.self = t local v, err = json.encode(t) return {healthy = v == nil and string.find(err, "contains itself") ~= nil}`},
		{"json yaml", `local v = json.fromYAML("a: [1, 2]") return {healthy = v.a[2] == 2 and json.toYAML({b = "c"}) == "b: c\n"}`},
		{"json of obj", `local v = json.decode(json.encode(obj)) return {healthy = v.spec.replicas == 2}`},
		{"strings global", `return {healthy = strings.hasPrefix("cert-manager", "cert") and strings.hasSuffix("abc", "bc") and strings.contains("abc", "b")}`},
		{"require strings", `local s = require("strings") local p = s.split("a,b,c", ",") return {healthy = #p == 3 and p[3] == "c"}`},
		{"strings upstream names", `return {healthy = strings.HasPrefix("abc", "a") and strings.ToUpper("a") == "A" and strings.TrimSpace(" a ") == "a" and strings.Split("a.b", ".")[2] == "b"}`},
		{"strings case and trim", `return {healthy = strings.lower("AbC") == "abc" and strings.upper("x") == "X" and strings.trim("  x ") == "x" and strings.trim("--x--", "-") == "x"}`},
		{"strings join and replace", `return {healthy = strings.join({"a", "b"}, "-") == "a-b" and strings.replace("aaa", "a", "b") == "bbb"}`},
		{"require string table math", `return {healthy = require("string").upper("a") == "A" and require("math").max(1, 2) == 2 and require("table").concat({"x"}) == "x"}`},
		{"base64", `local e = base64Encode("hello") local d = base64Decode(e) return {healthy = e == "aGVsbG8=" and d == "hello"}`},
		{"base64 of an empty string", `local v, err = base64Decode("") return {healthy = v == nil and err == "provided string is empty"}`},
		{"string methods", `local s = "Ready=True" return {healthy = s:sub(1, 5) == "Ready" and s:find("True") == 7 and ("x"):rep(3) == "xxx"}`},
		{"pcall", `local ok, err = pcall(function() error("x") end) return {healthy = not ok}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ev := compile(t, luaCheck("function evaluate()\n"+tc.body+"\nend"), Options{})
			res, err := evaluate(t, ev, object(t, "spec: {replicas: 2}"))
			checkOutcome(t, res, err, want{healthy: true})
		})
	}
}

func TestLuaMetricOnly(t *testing.T) {
	check := &libv1beta1.ValidateHealth{Name: "error-rate", Script: returning(`{healthy = obj == nil and metrics.errors < 0.01, message = "error rate " .. metrics.errors}`)}
	for _, tc := range []struct {
		rate float64
		want want
	}{
		{0.001, want{healthy: true}},
		{0.2, want{message: "error rate 0.2"}},
	} {
		ev := compile(t, check, Options{Metrics: map[string]float64{"errors": tc.rate}})
		res, err := evaluate(t, ev, nil)
		checkOutcome(t, res, err, tc.want)
	}
}

func TestLuaGetResourceErrors(t *testing.T) {
	tests := []struct {
		name   string
		script string
		opts   Options
		want   want
	}{
		{"wrong number of arguments", returning(`{healthy = getResource("v1", "Secret", "ns") ~= nil}`), Options{Getter: (&fakeGetter{}).get},
			want{reason: ReasonRuntimeError, message: "getResource takes (apiVersion, kind, namespace, name)"}},
		{"no getter", returning(`{healthy = getResource("v1", "Secret", "ns", "s") ~= nil}`), Options{},
			want{reason: ReasonGetResource, message: "has no access to a managed cluster"}},
		{"cluster-scoped with nil namespace", returning(`{healthy = getResource("v1", "Namespace", nil, "default") ~= nil}`),
			Options{Getter: (&fakeGetter{objects: map[string]map[string]any{"v1/Namespace//default": {"kind": "Namespace"}}}).get},
			want{healthy: true}},
		{"failure caught by pcall", returning(`{healthy = not pcall(getResource, "v1", "Secret", "ns", "s")}`), Options{Getter: (&fakeGetter{err: errAPIDown}).get},
			want{healthy: true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.Cache = NewCache(0)
			ev := compile(t, luaCheck(tc.script), tc.opts)
			res, err := evaluate(t, ev, object(t, "kind: X"))
			checkOutcome(t, res, err, tc.want)
		})
	}
}
