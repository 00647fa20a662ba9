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

package chaos

import (
	"fmt"
	"strings"
	"time"
)

// Timeline says, for a person looking for where a trial's time went, when each stage of rollout
// r first had the version's image and when every cluster of it was settled on it, counted from
// start; and for a version rolled back, the same of the last good image coming back.
func Timeline(r *Rollout, initial, writes []Write, want Expect, start time.Time) string {
	p := replayed(r, initial, writes, want)
	since := func(m mark) string {
		if m.rev == 0 {
			return "-"
		}
		return fmt.Sprintf("%.1f", m.at.Sub(start).Seconds())
	}
	img := field{"image", want.Image}
	var out []string
	for k, s := range r.Stages {
		first, ok := p.firstSeen[k][img]
		if !ok {
			continue
		}
		var done mark
		for _, c := range s.Clusters {
			m, ok := p.settledWith[c][img]
			if !ok {
				done = mark{}
				break
			}
			if m.rev > done.rev {
				done = m
			}
		}
		out = append(out, fmt.Sprintf("%s %s–%s", s.Name, since(first), since(done)))
	}
	line := strings.Join(out, ", ")
	if fl := p.failing; fl != nil && fl.f.Rollback {
		var back []string
		for k := len(r.Stages) - 1; k >= 0; k-- {
			if fl.back[k].rev != 0 {
				back = append(back, fmt.Sprintf("%s %s–%s", r.Stages[k].Name, since(fl.back[k]), since(fl.backDone[k])))
			}
		}
		line += "; back: " + strings.Join(back, ", ")
	}
	return line + " s"
}
