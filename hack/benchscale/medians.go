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
	"slices"
)

// medians is the JSON line of the median of each numeric figure of the runs, field by field
// (with an even number of runs, the mean of the middle two), with "median_of" the number of
// runs. Fields that are not numbers are kept when every run has the same value.
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
		same := true
		for _, m := range runs {
			if f, ok := m[key].(float64); ok {
				values = append(values, f)
			}
			same = same && m[key] == first
		}
		switch {
		case len(values) == len(runs):
			out[key] = median(values)
		case same:
			out[key] = first
		}
	}
	return json.Marshal(out)
}

func median(values []float64) float64 {
	s := slices.Clone(values)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return round1((s[n/2-1] + s[n/2]) / 2)
}
