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
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"

	lua "github.com/yuin/gopher-lua"
)

// toLValue converts unstructured content to Lua. Unlike upstream's MapToTable it keeps every
// array element, int64 ones included (upstream drops them), and handles typed values a caller
// may pass (int, []string, []map[string]any, ...) instead of dropping them. A JSON null inside
// an array becomes a hole, as nil always is in Lua.
func toLValue(L *lua.LState, v any) lua.LValue {
	switch x := v.(type) {
	case nil:
		return lua.LNil
	case map[string]any:
		tbl := L.CreateTable(0, len(x))
		for k, e := range x {
			tbl.RawSetString(k, toLValue(L, e))
		}
		return tbl
	case []any:
		tbl := L.CreateTable(len(x), 0)
		for i, e := range x {
			tbl.RawSetInt(i+1, toLValue(L, e))
		}
		return tbl
	case string:
		return lua.LString(x)
	case bool:
		return lua.LBool(x)
	case int64:
		return lua.LNumber(x)
	case float64:
		return lua.LNumber(x)
	case int:
		return lua.LNumber(x)
	case int32:
		return lua.LNumber(x)
	case float32:
		return lua.LNumber(x)
	case json.Number:
		if f, err := strconv.ParseFloat(string(x), 64); err == nil {
			return lua.LNumber(f)
		}
		return lua.LString(x)
	case []byte:
		return lua.LString(x)
	}
	return reflectToLValue(L, reflect.ValueOf(v))
}

// reflectToLValue handles the typed slices, maps and numbers the fast path does not list.
// Anything else becomes its fmt representation rather than disappearing.
func reflectToLValue(L *lua.LState, rv reflect.Value) lua.LValue {
	switch rv.Kind() {
	case reflect.Slice, reflect.Array:
		tbl := L.CreateTable(rv.Len(), 0)
		for i := range rv.Len() {
			tbl.RawSetInt(i+1, toLValue(L, rv.Index(i).Interface()))
		}
		return tbl
	case reflect.Map:
		if rv.Type().Key().Kind() != reflect.String {
			break
		}
		tbl := L.CreateTable(0, rv.Len())
		for it := rv.MapRange(); it.Next(); {
			tbl.RawSetString(it.Key().String(), toLValue(L, it.Value().Interface()))
		}
		return tbl
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return lua.LNumber(rv.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return lua.LNumber(rv.Uint())
	case reflect.Float32, reflect.Float64:
		return lua.LNumber(rv.Float())
	case reflect.Pointer, reflect.Interface:
		if rv.IsNil() {
			return lua.LNil
		}
		return toLValue(L, rv.Elem().Interface())
	}
	return lua.LString(fmt.Sprint(rv.Interface()))
}

var errLuaCycle = errors.New("cannot encode a table that contains itself")

// fromLValue converts a Lua value to JSON-ready Go. A table whose keys are exactly 1..n is an
// array; an empty table is an empty array (as upstream's json.encode has it); any other table
// is an object with its keys as strings. Integral numbers become int64 so that 3 encodes as 3,
// not 3.0.
func fromLValue(v lua.LValue, visiting map[*lua.LTable]bool) (any, error) {
	switch x := v.(type) {
	case *lua.LNilType:
		return nil, nil
	case lua.LBool:
		return bool(x), nil
	case lua.LString:
		return string(x), nil
	case lua.LNumber:
		f := float64(x)
		if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
			return int64(f), nil
		}
		return f, nil
	case *lua.LTable:
		if visiting[x] {
			return nil, errLuaCycle
		}
		visiting[x] = true
		defer delete(visiting, x)
		return tableFromLValue(x, visiting)
	}
	return nil, fmt.Errorf("cannot encode a %s", v.Type())
}

func tableFromLValue(t *lua.LTable, visiting map[*lua.LTable]bool) (any, error) {
	count := 0
	t.ForEach(func(lua.LValue, lua.LValue) { count++ })
	if n := t.MaxN(); n == count {
		arr := make([]any, 0, n)
		for i := 1; i <= n; i++ {
			e, err := fromLValue(t.RawGetInt(i), visiting)
			if err != nil {
				return nil, err
			}
			arr = append(arr, e)
		}
		return arr, nil
	}
	obj := make(map[string]any, count)
	var err error
	t.ForEach(func(k, val lua.LValue) {
		if err != nil {
			return
		}
		var e any
		if e, err = fromLValue(val, visiting); err == nil {
			obj[k.String()] = e
		}
	})
	return obj, err
}
