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

package render

import "testing"

func TestMergeValues(t *testing.T) {
	got := mergeValues(map[string]any{"image": map[string]any{"repo": "nginx", "tag": "1"}, "replicas": 1},
		map[string]any{"image": map[string]any{"tag": "2"}, "service": "ClusterIP"})
	img := got["image"].(map[string]any)
	if img["repo"] != "nginx" || img["tag"] != "2" || got["replicas"] != 1 || got["service"] != "ClusterIP" {
		t.Errorf("mergeValues = %v", got)
	}
}
