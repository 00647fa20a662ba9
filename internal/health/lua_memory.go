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
	"runtime/metrics"

	lua "github.com/yuin/gopher-lua"
)

// gopher-lua allocates on the Go heap and has no allocator hook, and Go does not account memory
// per goroutine. So the gauge measures what a script holds: the strings and tables reachable
// from its globals, the locals and upvalues of every running function, and the current frame's
// registers. Walking that is cheap for a health script, but not free, so the gauge walks only
// when the process as a whole has allocated a quarter of the limit since the last walk; others'
// allocations then cost a walk, never a false verdict. The process counter is read every
// memorySampleEvery instructions: `s = s .. s` doubles a string every few instructions, so the
// script is stopped within a small multiple of its limit.
const memorySampleEvery = 8

// Sizes charged for Lua values on top of their contents, roughly what gopher-lua allocates.
const (
	stringOverhead = 16
	tableOverhead  = 64
	entryOverhead  = 32
)

// memoryGauge stops a script whose strings and tables outgrow limit bytes.
type memoryGauge struct {
	L     *lua.LState
	limit int64

	countdown int
	walkedAt  uint64 // process allocations at the last walk
	sample    []metrics.Sample

	exceeded bool
	held     int64 // what the last walk found
}

func newMemoryGauge(L *lua.LState, limit int64) *memoryGauge {
	g := &memoryGauge{L: L, limit: limit, sample: []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}}
	g.walkedAt = g.allocated()
	return g
}

func (g *memoryGauge) allocated() uint64 {
	metrics.Read(g.sample)
	if g.sample[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return g.sample[0].Value.Uint64()
}

// over reports whether the script holds more than the limit; once it does, it stays over.
func (g *memoryGauge) over() bool {
	if g.exceeded {
		return true
	}
	if g.countdown--; g.countdown > 0 {
		return false
	}
	g.countdown = memorySampleEvery
	now := g.allocated()
	if now-g.walkedAt < uint64(g.limit/4) {
		return false
	}
	g.walkedAt = now
	g.held = heldBy(g.L, g.limit)
	g.exceeded = g.held > g.limit
	return g.exceeded
}

// heldBy estimates the bytes of the strings and tables the state can reach, stopping early once
// the estimate passes limit. A string referenced twice counts twice: the estimate errs high, as
// a bound should (a table of a thousand references to one big string is a table.concat away
// from a thousand copies).
func heldBy(L *lua.LState, limit int64) int64 {
	w := &walker{limit: limit, seen: map[any]bool{}}
	w.value(L.G.Global)
	for level := 0; w.total <= limit; level++ {
		dbg, ok := L.GetStack(level)
		if !ok {
			break
		}
		for n := 1; ; n++ {
			name, v := L.GetLocal(dbg, n)
			if name == "" {
				break
			}
			w.value(v)
		}
		if fn, err := L.GetInfo("f", dbg, lua.LNil); err == nil {
			w.value(fn)
		}
	}
	for i := 1; i <= min(L.GetTop(), 256) && w.total <= limit; i++ {
		w.value(L.Get(i))
	}
	return w.total
}

type walker struct {
	limit int64
	total int64
	seen  map[any]bool
}

func (w *walker) value(v lua.LValue) {
	if w.total > w.limit {
		return
	}
	switch v := v.(type) {
	case lua.LString:
		w.total += int64(len(v)) + stringOverhead
	case *lua.LTable:
		if w.seen[v] {
			return
		}
		w.seen[v] = true
		w.total += tableOverhead
		v.ForEach(func(k, x lua.LValue) {
			w.total += entryOverhead
			w.value(k)
			w.value(x)
		})
		if mt, ok := v.Metatable.(*lua.LTable); ok {
			w.value(mt)
		}
	case *lua.LFunction:
		if w.seen[v] {
			return
		}
		w.seen[v] = true
		for _, uv := range v.Upvalues {
			if uv != nil {
				w.value(uv.Value())
			}
		}
	}
}
