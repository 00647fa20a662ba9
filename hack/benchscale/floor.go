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
	"math"
	"strings"
	"time"
)

// promotionFloor is what the promotion cannot go faster than whatever the controller does: its
// waves, each held until its clusters' health checks pass, and the soaks between stages. A
// stage of n clusters, d of them dead, has waves of ceil(10% of n) (maxUpdate counts the
// matching clusters) and needs ceil((n-d)/wave) of them, the dead taking no slot. With a health
// check, a wave passes at the check's first run after its Deployment is Available: the check
// runs as the wave is deployed, before it is (the simulator makes it Available after
// -available-after), so the next run, a health interval later, is the first that can pass.
// Without one, a feature is provisioned right after its apply and a wave waits for nothing. The
// last wave is counted when its clusters get the version, not when they pass, and flapping
// clusters, latency and the controller's own work come on top.
func (b *bench) promotionFloor() time.Duration {
	n := b.opts.clusters
	dead := map[int]bool{}
	for _, c := range b.dead {
		dead[c.Index()] = true
	}
	var wait time.Duration
	if b.realistic() {
		wait = max(healthInterval(b.opts.controllerArgs), b.opts.availableAfter)
	}
	var floor time.Duration
	bounds := stageBounds(n)
	for s, bd := range bounds {
		size, live := bd[1]-bd[0], 0
		for i := bd[0]; i < bd[1]; i++ {
			if !dead[i] {
				live++
			}
		}
		wave := int(math.Ceil(float64(size) / 10))
		floor += time.Duration((live+wave-1)/wave) * wait
		if s < len(bounds)-1 {
			floor += b.opts.soak
		}
	}
	return max(0, floor-wait)
}

// healthInterval is the controller's --health-interval: its default, unless a -controller-arg
// sets it.
func healthInterval(args []string) time.Duration {
	d := 5 * time.Second
	for i, a := range args {
		v, ok := strings.CutPrefix(a, "--health-interval=")
		if !ok && a == "--health-interval" && i+1 < len(args) {
			v, ok = args[i+1], true
		}
		if p, err := time.ParseDuration(v); ok && err == nil {
			d = p
		}
	}
	return d
}
