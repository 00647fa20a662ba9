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

package testenv

import (
	"sync/atomic"
	"time"
)

// Clock is a clock for controllers under test: real time shifted by what Advance added, so that
// a test ends a soak or a wait by moving the clock on instead of sleeping through it, and a
// slow machine cannot make the wait end early or late. Pass its Now as the controllers' clock.
type Clock struct{ offset atomic.Int64 }

// Now returns the shifted time.
func (c *Clock) Now() time.Time { return time.Now().Add(time.Duration(c.offset.Load())) }

// Advance moves the clock on by d.
func (c *Clock) Advance(d time.Duration) { c.offset.Add(int64(d)) }
