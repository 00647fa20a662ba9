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
	"encoding/json"
	"math"
	"reflect"
	"slices"
)

// medians is the JSON line of the median of each numeric figure of the runs, field by field
// (with an even number of runs, the mean of the middle two), with "median_of" the number of
// runs. A list of numbers of the same length in every run (shard_rss_mib) gets the median of
// each element. Other fields are kept when every run has the same value.
func medians(results []*result) ([]byte, error) {
	var runs []map[string]any
	for _, r := range results {
		data, err := json.Marshal(r)
		if err != nil {
			return nil, err
		}
		var m map[string]any
		if err := json.Unmarshal(data, &m); err != nil {
			return nil, err
		}
		runs = append(runs, m)
	}
	out := map[string]any{"median_of": len(runs)}
	for key, first := range runs[0] {
		var values []float64
		var lists [][]any
		same := true
		for _, m := range runs {
			if f, ok := m[key].(float64); ok {
				values = append(values, f)
			}
			if l, ok := m[key].([]any); ok {
				lists = append(lists, l)
			}
			same = same && reflect.DeepEqual(m[key], first)
		}
		switch {
		case len(values) == len(runs):
			out[key] = median(values)
		case len(lists) == len(runs):
			if l, ok := elementMedians(lists); ok {
				out[key] = l
			}
		case same:
			out[key] = first
		}
	}
	return json.Marshal(out)
}

// elementMedians is the median of each element of lists of numbers of the same length.
func elementMedians(lists [][]any) ([]float64, bool) {
	out := make([]float64, len(lists[0]))
	for i := range out {
		var values []float64
		for _, l := range lists {
			if len(l) != len(out) {
				return nil, false
			}
			f, ok := l[i].(float64)
			if !ok {
				return nil, false
			}
			values = append(values, f)
		}
		out[i] = median(values)
	}
	return out, true
}

func median(values []float64) float64 {
	s := slices.Clone(values)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	// Three decimals: gc_cpu_fraction is a fraction, where one decimal would lose it.
	return math.Round((s[n/2-1]+s[n/2])/2*1000) / 1000
}
