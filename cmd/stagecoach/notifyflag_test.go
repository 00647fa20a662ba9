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
	"testing"

	"k8s.io/apimachinery/pkg/types"
)

// TestNotifyConfigFlag: --notify-config takes NAMESPACE/NAME and nothing else.
func TestNotifyConfigFlag(t *testing.T) {
	for in, want := range map[string]string{"ops/endpoints": "ops/endpoints", "endpoints": "", "/x": "", "ops/": "", "a/b/c": ""} {
		var key types.NamespacedName
		err := (namespacedName{&key}).Set(in)
		got := (namespacedName{&key}).String()
		if got != want || (err != nil) != (want == "") {
			t.Errorf("--notify-config=%s: %q, %v", in, got, err)
		}
	}
}
