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

package main

import (
	"context"
	"fmt"
)

// profileChunkSeconds is the length of each CPU profile taken during a phase: short, so that a
// phase's profiles end soon after it does and the next phase's can start.
const profileChunkSeconds = 5

// profilePhase, with -profile, takes back-to-back CPU profiles of the default shard's controller
// named <name>-<n>.pprof until the returned function is called, which waits for the last one:
// `go tool pprof bin/stagecoach <dir>/<name>-*.pprof` reads them as one profile of the phase.
func (b *bench) profilePhase(ctx context.Context, name string) (stop func()) {
	if !b.opts.profile {
		return func() {}
	}
	pprof := b.ctrl.pprof()
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for n := 1; ctx.Err() == nil; n++ {
			b.profileFrom(context.WithoutCancel(ctx), pprof, fmt.Sprintf("profile?seconds=%d", profileChunkSeconds), fmt.Sprintf("%s-%d.pprof", name, n))
		}
	}()
	return func() {
		cancel()
		<-done
	}
}
