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

package fleetsim

import (
	"context"
	"math/rand/v2"
	"time"
)

// nextLatency is the time to wait before the next answer: Latency, moved by up to Jitter either
// way. Draws are a hash of the seed and a counter, so concurrent requests need no lock.
func (f *Fleet) nextLatency() time.Duration {
	d := f.opts.Latency
	if j := f.opts.Jitter; j > 0 {
		r := splitmix(f.opts.Seed + f.draws.Add(1))
		d += time.Duration(r%uint64(2*j+1)) - j
	}
	return d
}

// splitmix is SplitMix64's output function: a cheap, well-mixed hash of x.
func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// Flap takes each of clusters down (in mode) for down out of every period, and back up for the
// rest, until ctx is done; then it leaves them up. Each cluster starts at its own point of the
// cycle, drawn from Options.Seed, so that they do not all go down at once. One goroutine serves
// them all.
func (f *Fleet) Flap(ctx context.Context, clusters []*Cluster, period, down time.Duration, mode DownMode) {
	if len(clusters) == 0 || down <= 0 || down >= period {
		return
	}
	rng := rand.New(rand.NewPCG(f.opts.Seed, 0x666c6170))
	phases := make([]time.Duration, len(clusters))
	for i := range phases {
		phases[i] = time.Duration(rng.Int64N(int64(period)))
	}
	start := time.Now()
	go func() {
		tick := time.NewTicker(min(time.Second, down/4, (period-down)/4) + time.Millisecond)
		defer tick.Stop()
		defer func() {
			for _, c := range clusters {
				c.SetDown(Up)
			}
		}()
		for {
			now := time.Since(start)
			for i, c := range clusters {
				want := Up
				if (now+phases[i])%period < down {
					want = mode
				}
				if c.DownMode() != want {
					c.SetDown(want)
				}
			}
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
}
