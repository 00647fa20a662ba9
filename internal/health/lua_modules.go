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
	"encoding/json"
	"strings"

	lua "github.com/yuin/gopher-lua"
	"sigs.k8s.io/yaml"
)

// jsonFuncs is the json module: encode and decode as upstream's (errors are returned as
// nil, message rather than raised), plus upstream's fromYAML and toYAML.
var jsonFuncs = map[string]lua.LGFunction{
	"encode": func(L *lua.LState) int {
		b, err := encodeLua(L.CheckAny(1))
		return pushStringOrError(L, string(b), err)
	},
	"decode": func(L *lua.LState) int {
		return pushDecoded(L, []byte(L.CheckString(1)), nil)
	},
	"toYAML": func(L *lua.LState) int {
		b, err := encodeLua(L.CheckAny(1))
		if err == nil {
			b, err = yaml.JSONToYAML(b)
		}
		return pushStringOrError(L, string(b), err)
	},
	"fromYAML": func(L *lua.LState) int {
		b, err := yaml.YAMLToJSON([]byte(L.CheckString(1)))
		return pushDecoded(L, b, err)
	},
}

func encodeLua(v lua.LValue) ([]byte, error) {
	goValue, err := fromLValue(v, map[*lua.LTable]bool{})
	if err != nil {
		return nil, err
	}
	return json.Marshal(goValue)
}

func pushDecoded(L *lua.LState, data []byte, err error) int {
	var v any
	if err == nil {
		err = json.Unmarshal(data, &v)
	}
	if err != nil {
		L.Push(lua.LNil)
		L.Push(lua.LString(err.Error()))
		return 2
	}
	L.Push(toLValue(L, v))
	return 1
}

func pushStringOrError(L *lua.LState, s string, err error) int {
	if err != nil {
		L.Push(lua.LNil)
		L.Push(lua.LString(err.Error()))
		return 2
	}
	L.Push(lua.LString(s))
	return 1
}

// stringsFuncs is the strings module. It has upstream's Go-style names (strings.HasPrefix, as
// in projectsveltos/lua-utils) and lower-camel-case ones (strings.hasPrefix), so that scripts
// written for either read naturally.
var stringsFuncs = func() map[string]lua.LGFunction {
	str2bool := func(f func(s, t string) bool) lua.LGFunction {
		return func(L *lua.LState) int {
			L.Push(lua.LBool(f(L.CheckString(1), L.CheckString(2))))
			return 1
		}
	}
	str2str := func(f func(s, t string) string) lua.LGFunction {
		return func(L *lua.LState) int {
			L.Push(lua.LString(f(L.CheckString(1), L.CheckString(2))))
			return 1
		}
	}
	str1str := func(f func(s string) string) lua.LGFunction {
		return func(L *lua.LState) int {
			L.Push(lua.LString(f(L.CheckString(1))))
			return 1
		}
	}
	split := func(L *lua.LState) int {
		return pushStrings(L, strings.Split(L.CheckString(1), L.CheckString(2)))
	}
	join := func(L *lua.LState) int {
		tbl := L.CheckTable(1)
		sep := L.OptString(2, "")
		parts := make([]string, 0, tbl.Len())
		for i := 1; i <= tbl.Len(); i++ {
			parts = append(parts, lua.LVAsString(tbl.RawGetInt(i)))
		}
		L.Push(lua.LString(strings.Join(parts, sep)))
		return 1
	}
	// trim(s) trims white space; trim(s, cutset) trims the characters in cutset, like Go's
	// strings.Trim (which upstream's Trim is).
	trim := func(L *lua.LState) int {
		s := L.CheckString(1)
		if L.GetTop() < 2 {
			L.Push(lua.LString(strings.TrimSpace(s)))
		} else {
			L.Push(lua.LString(strings.Trim(s, L.CheckString(2))))
		}
		return 1
	}
	replace := func(L *lua.LState) int {
		L.Push(lua.LString(strings.Replace(L.CheckString(1), L.CheckString(2), L.CheckString(3), L.OptInt(4, -1))))
		return 1
	}
	fields := func(L *lua.LState) int { return pushStrings(L, strings.Fields(L.CheckString(1))) }
	index := func(L *lua.LState) int {
		L.Push(lua.LNumber(strings.Index(L.CheckString(1), L.CheckString(2))))
		return 1
	}

	return map[string]lua.LGFunction{
		"split": split, "Split": split,
		"join": join, "Join": join,
		"hasPrefix": str2bool(strings.HasPrefix), "HasPrefix": str2bool(strings.HasPrefix),
		"hasSuffix": str2bool(strings.HasSuffix), "HasSuffix": str2bool(strings.HasSuffix),
		"contains": str2bool(strings.Contains), "Contains": str2bool(strings.Contains),
		"equalFold": str2bool(strings.EqualFold), "EqualFold": str2bool(strings.EqualFold),
		"trim": trim, "Trim": str2str(strings.Trim),
		"trimSpace": str1str(strings.TrimSpace), "TrimSpace": str1str(strings.TrimSpace),
		"trimPrefix": str2str(strings.TrimPrefix), "TrimPrefix": str2str(strings.TrimPrefix),
		"trimSuffix": str2str(strings.TrimSuffix), "TrimSuffix": str2str(strings.TrimSuffix),
		"lower": str1str(strings.ToLower), "ToLower": str1str(strings.ToLower),
		"upper": str1str(strings.ToUpper), "ToUpper": str1str(strings.ToUpper),
		"replace": replace, "Replace": replace,
		"fields": fields, "Fields": fields,
		"index": index, "Index": index,
	}
}()

func pushStrings(L *lua.LState, parts []string) int {
	tbl := L.CreateTable(len(parts), 0)
	for _, p := range parts {
		tbl.Append(lua.LString(p))
	}
	L.Push(tbl)
	return 1
}
