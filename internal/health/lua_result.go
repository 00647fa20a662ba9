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
	"fmt"

	lua "github.com/yuin/gopher-lua"
)

// luaStatuses are the values accepted in the status field, Argo CD style; only Healthy passes.
var luaStatuses = map[string]bool{"Healthy": true, "Progressing": false, "Degraded": false, "Suspended": false}

// decodeLuaResult reads what evaluate returned: a table with a boolean healthy (upstream) or a
// string status (Argo CD style, accepted by Stagecoach), and an optional message. It returns a
// non-empty problem when the value is not such a table. Fields are read directly rather than
// through a JSON round trip, so a table that also has an array part (which upstream's decoder
// chokes on) is fine.
func decodeLuaResult(v lua.LValue) (Result, string) {
	tbl, ok := v.(*lua.LTable)
	if !ok {
		got := v.Type().String()
		if v == lua.LNil {
			got = "nothing"
		}
		return Result{}, fmt.Sprintf("evaluate must return a table such as {healthy = true, message = \"...\"}; it returned %s", got)
	}

	var message string
	switch m := tbl.RawGetString("message").(type) {
	case *lua.LNilType:
	case lua.LString, lua.LNumber:
		message = m.String()
	default:
		return Result{}, fmt.Sprintf("message must be a string; evaluate returned a %s", m.Type())
	}

	healthy, hasHealthy := false, false
	switch h := tbl.RawGetString("healthy").(type) {
	case *lua.LNilType:
	case lua.LBool:
		healthy, hasHealthy = bool(h), true
	default:
		return Result{}, fmt.Sprintf("healthy must be true or false; evaluate returned the %s %s", h.Type(), quoteLua(h))
	}

	var status string
	switch s := tbl.RawGetString("status").(type) {
	case *lua.LNilType:
	case lua.LString:
		status = string(s)
		passes, known := luaStatuses[status]
		if !known {
			return Result{}, fmt.Sprintf("status must be one of \"Healthy\", \"Progressing\", \"Degraded\" or \"Suspended\"; evaluate returned %q", status)
		}
		if hasHealthy && passes != healthy {
			return Result{}, fmt.Sprintf("evaluate returned healthy = %t and status = %q, which disagree: set only one of them", healthy, status)
		}
		healthy, hasHealthy = passes, true
	default:
		return Result{}, fmt.Sprintf("status must be a string; evaluate returned a %s", s.Type())
	}

	// Neither field set: upstream reads that as unhealthy, and so do we, saying why.
	if !healthy && message == "" {
		switch {
		case status != "":
			message = "status is " + status
		case hasHealthy:
			message = "the health check script reported the object unhealthy without a message"
		default:
			message = "evaluate returned neither healthy nor status"
		}
	}
	return Result{Healthy: healthy, Message: message}, ""
}

func quoteLua(v lua.LValue) string {
	if s, ok := v.(lua.LString); ok {
		return fmt.Sprintf("%q", string(s))
	}
	return v.String()
}

// decodeLuaVerdict reads a result whose only verdict is the boolean field (a resource selector's
// "matching", a cluster condition's "pass"), with an optional message.
func decodeLuaVerdict(v lua.LValue, field string) (Result, string) {
	tbl, ok := v.(*lua.LTable)
	if !ok {
		return Result{}, fmt.Sprintf("evaluate must return a table such as {%s = true, message = \"...\"}; it returned %s", field, v.Type())
	}
	var message string
	switch m := tbl.RawGetString("message").(type) {
	case *lua.LNilType:
	case lua.LString, lua.LNumber:
		message = m.String()
	default:
		return Result{}, fmt.Sprintf("message must be a string; evaluate returned a %s", m.Type())
	}
	b, ok := tbl.RawGetString(field).(lua.LBool)
	if !ok {
		return Result{}, fmt.Sprintf("evaluate must set %s to true or false; it returned %s", field, quoteLua(tbl.RawGetString(field)))
	}
	if !b && message == "" {
		message = fmt.Sprintf("evaluate returned %s = false without a message", field)
	}
	return Result{Healthy: bool(b), Message: message}, ""
}
