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

package patch

import "testing"

func TestWarnings(t *testing.T) {
	var w Warnings
	steps := []struct {
		do   func() bool
		want bool
		what string
	}{
		{func() bool { return w.New("a", "Blocked", "down") }, true, "a first message is new"},
		{func() bool { return w.New("a", "Blocked", "down") }, false, "the same message again is not"},
		{func() bool { return w.New("b", "Blocked", "down") }, true, "another object has its own memory"},
		{func() bool { return w.New("a", "Invalid", "down") }, true, "so has another reason"},
		{func() bool { return w.New("a", "Blocked", "still down") }, true, "a new message is new"},
		{func() bool { w.Clear("a", "Blocked"); return w.New("a", "Blocked", "still down") }, true, "after Clear, the message is news again"},
		{func() bool { w.Forget("a"); return w.New("a", "Invalid", "down") }, true, "Forget drops every reason"},
		{func() bool { return w.New("b", "Blocked", "down") }, false, "and only for that object"},
	}
	for _, s := range steps {
		if got := s.do(); got != s.want {
			t.Errorf("%s: got %v", s.what, got)
		}
	}
}
