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

// Package specmemo remembers whether a ClusterSummary carries a given version of its profile's
// spec. Deciding it compares two large specs field by field, by reflection; a pass over a stage
// asks it of every cluster of the stage, and once a stage has summaries (an upgrade, a stage
// already passed) that is most of a pass's work. The answer changes only when the summary's
// generation or the version does, so it is worked out once per pair.
package specmemo

import (
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
)

// Version identifies what summaries are compared with: a profile at one generation, and what
// else the comparison reads that the generation does not cover (a digest of the content).
type Version struct {
	Profile    types.UID
	Generation int64
	Extra      string
}

// known reports whether the version can be remembered: objects that did not come from an API
// server have no UID and no generation to tell their changes apart.
func (v Version) known() bool { return v.Profile != "" && v.Generation > 0 }

type entry struct {
	generation int64
	version    Version
	same       bool
}

// sweepEvery is how often entries not asked about since the last sweep are dropped: those of
// deleted summaries, and of profiles no pass looks at any more.
const sweepEvery = 10 * time.Minute

// Memo remembers, per summary, the last answer. The zero Memo is ready to use and safe for
// concurrent use.
type Memo struct {
	mu sync.Mutex
	// recent holds the entries asked about since the last sweep, older those of the period
	// before; a sweep drops older.
	recent, older map[types.UID]entry
	swept         time.Time
	now           func() time.Time
}

// Same reports whether cs carries version v, asking equal only when the summary or the version
// changed since the last answer about this summary, or when either cannot be told apart. A nil
// Memo always asks.
func (m *Memo) Same(cs *configv1beta1.ClusterSummary, v Version, equal func() bool) bool {
	if m == nil || cs.UID == "" || cs.Generation <= 0 || !v.known() {
		return equal()
	}
	m.mu.Lock()
	m.sweep()
	e, ok := m.recent[cs.UID]
	if !ok {
		e, ok = m.older[cs.UID]
	}
	if ok && e.generation == cs.Generation && e.version == v {
		m.recent[cs.UID] = e
		m.mu.Unlock()
		return e.same
	}
	m.mu.Unlock()
	// Outside the lock: the comparison is the slow part, and passes over other profiles run
	// at the same time.
	e = entry{generation: cs.Generation, version: v, same: equal()}
	m.mu.Lock()
	m.recent[cs.UID] = e
	m.mu.Unlock()
	return e.same
}

// sweep, under mu, starts a new period once sweepEvery has passed.
func (m *Memo) sweep() {
	now := time.Now
	if m.now != nil {
		now = m.now
	}
	t := now()
	switch {
	case m.recent == nil:
		m.recent, m.swept = map[types.UID]entry{}, t
	case t.Sub(m.swept) >= sweepEvery:
		m.older, m.recent, m.swept = m.recent, map[types.UID]entry{}, t
	}
}

// Len is how many summaries the memo holds an answer for.
func (m *Memo) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := len(m.recent)
	for uid := range m.older {
		if _, ok := m.recent[uid]; !ok {
			n++
		}
	}
	return n
}
