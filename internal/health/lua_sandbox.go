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
	"encoding/base64"
	"fmt"
	"sort"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// maxRepLen caps the length of a string built by string.rep: strings.Repeat would otherwise
// allocate whatever a script asks for, in one Go call the instruction budget cannot interrupt.
const maxRepLen = 1 << 20

// removedGlobals are base-library functions a health script must not have: they read files or
// compile code at run time (dofile, loadfile, load, loadstring, require, module), force a full
// Go garbage collection (collectgarbage), or dump VM internals (_printregs). require is replaced
// by one that only knows the preloaded modules.
var removedGlobals = []string{"dofile", "loadfile", "load", "loadstring", "require", "module", "collectgarbage", "_printregs"}

// newLuaState returns an LState holding only what health scripts may use: the base library
// without the functions above, string, table and math. os, io, package, debug, coroutine and
// channel are never opened.
func newLuaState() *lua.LState {
	L := lua.NewState(lua.Options{
		SkipOpenLibs: true,
		// Start small and grow: the default registry is 5,120 slots (80 KiB) allocated up front
		// for every state, far more than a health script uses, and a fresh state is made for
		// each object.
		RegistrySize:        256,
		RegistryMaxSize:     256 * 1024,
		RegistryGrowStep:    256,
		CallStackSize:       256,
		MinimizeStackMemory: true,
	})
	for _, lib := range []struct {
		name string
		open lua.LGFunction
	}{
		{lua.BaseLibName, lua.OpenBase},
		{lua.TabLibName, lua.OpenTable},
		{lua.StringLibName, lua.OpenString},
		{lua.MathLibName, lua.OpenMath},
	} {
		L.Push(L.NewFunction(lib.open))
		L.Push(lua.LString(lib.name))
		L.Call(1, 0)
	}
	for _, name := range removedGlobals {
		L.SetGlobal(name, lua.LNil)
	}
	// print would write to the controller's stdout; keep scripts that print while debugging
	// working, silently.
	L.SetGlobal("print", L.NewFunction(func(*lua.LState) int { return 0 }))
	if str, ok := L.GetGlobal(lua.StringLibName).(*lua.LTable); ok {
		str.RawSetString("rep", L.NewFunction(luaStringRep))
		str.RawSetString("dump", lua.LNil)
	}

	jsonMod, stringsMod := lazyModule(L, jsonFuncs), lazyModule(L, stringsFuncs)
	// Upstream preloads json and strings for require; scripts written for Stagecoach may also use
	// them as globals.
	L.SetGlobal("json", jsonMod)
	L.SetGlobal("strings", stringsMod)
	modules := map[string]lua.LValue{
		"json":    jsonMod,
		"strings": stringsMod,
		"string":  L.GetGlobal(lua.StringLibName),
		"table":   L.GetGlobal(lua.TabLibName),
		"math":    L.GetGlobal(lua.MathLibName),
	}
	L.SetGlobal("require", L.NewFunction(func(L *lua.LState) int {
		name := L.CheckString(1)
		mod, ok := modules[name]
		if !ok {
			L.RaiseError("module %q is not available to health scripts (available: %s)", name, moduleNames(modules))
		}
		L.Push(mod)
		return 1
	}))

	L.SetGlobal("base64Encode", L.NewFunction(luaBase64Encode))
	L.SetGlobal("base64Decode", L.NewFunction(luaBase64Decode))
	L.SetGlobal("getLabel", L.NewFunction(metadataLookup("labels")))
	L.SetGlobal("getAnnotation", L.NewFunction(metadataLookup("annotations")))
	return L
}

// lazyModule returns a module table that fills itself with funcs the first time a missing key
// is read. Most scripts never touch json or strings, and filling their ~45 entries took about a
// quarter of the time to make a fresh state. (Until then pairs() over the module sees nothing.)
func lazyModule(L *lua.LState, funcs map[string]lua.LGFunction) *lua.LTable {
	mod, mt := L.NewTable(), L.NewTable()
	mt.RawSetString("__index", L.NewFunction(func(L *lua.LState) int {
		L.SetMetatable(mod, lua.LNil)
		for name, fn := range funcs {
			if mod.RawGetString(name) == lua.LNil {
				mod.RawSetString(name, L.NewFunction(fn))
			}
		}
		L.Push(mod.RawGet(L.Get(2)))
		return 1
	}))
	L.SetMetatable(mod, mt)
	return mod
}

func moduleNames(modules map[string]lua.LValue) string {
	names := make([]string, 0, len(modules))
	for name := range modules {
		names = append(names, name)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

func luaStringRep(L *lua.LState) int {
	s := L.CheckString(1)
	n := L.CheckInt(2)
	if n <= 0 || s == "" {
		L.Push(lua.LString(""))
		return 1
	}
	if n > maxRepLen/len(s) {
		L.RaiseError("string.rep would build a string longer than %d bytes", maxRepLen)
	}
	L.Push(lua.LString(strings.Repeat(s, n)))
	return 1
}

// luaBase64Encode and luaBase64Decode behave as upstream's: on an empty string or bad input
// they return nil and a message rather than raising an error.
func luaBase64Encode(L *lua.LState) int {
	s := L.CheckString(1)
	if s == "" {
		L.Push(lua.LNil)
		L.Push(lua.LString("provided string is empty"))
		return 2
	}
	L.Push(lua.LString(base64.StdEncoding.EncodeToString([]byte(s))))
	return 1
}

func luaBase64Decode(L *lua.LState) int {
	s := L.CheckString(1)
	if s == "" {
		L.Push(lua.LNil)
		L.Push(lua.LString("provided string is empty"))
		return 2
	}
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		L.Push(lua.LNil)
		L.Push(lua.LString(fmt.Sprintf("decoding failed: %v", err)))
		return 2
	}
	L.Push(lua.LString(b))
	return 1
}

// metadataLookup implements upstream's getLabel(tbl, key) and getAnnotation(tbl, key): the
// string at tbl.metadata[field][key], or nil.
func metadataLookup(field string) lua.LGFunction {
	return func(L *lua.LState) int {
		if L.GetTop() != 2 {
			L.Push(lua.LNil)
			L.Push(lua.LString("expected 2 arguments (table, key)"))
			return 2
		}
		tbl := L.CheckTable(1)
		key := L.CheckString(2)
		value := lua.LNil
		if md, ok := tbl.RawGetString("metadata").(*lua.LTable); ok {
			if m, ok := md.RawGetString(field).(*lua.LTable); ok {
				if s, ok := m.RawGetString(key).(lua.LString); ok {
					value = s
				}
			}
		}
		L.Push(value)
		return 1
	}
}
