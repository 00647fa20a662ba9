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

import (
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// maxMessage is the API's limit on a condition message; a longer one would make the whole status
// write fail.
const maxMessage = 32768

// SetCondition sets condition t in conds for generation gen, and returns the condition it
// replaced (the zero Condition when there was none), for callers that tell transitions worth an
// Event. A transition is stamped with the wall clock.
func SetCondition(conds *[]metav1.Condition, gen int64, t string, s metav1.ConditionStatus, reason, msg string) metav1.Condition {
	return SetConditionAt(conds, metav1.Now(), gen, t, s, reason, msg)
}

// SetConditionAt is SetCondition for reconcilers with an injected clock: a transition is
// stamped with now, which later decisions (a wait counted from the transition) read back.
func SetConditionAt(conds *[]metav1.Condition, now metav1.Time, gen int64, t string, s metav1.ConditionStatus, reason, msg string) metav1.Condition {
	var prev metav1.Condition
	if c := meta.FindStatusCondition(*conds, t); c != nil {
		prev = *c
	}
	meta.SetStatusCondition(conds, metav1.Condition{
		Type: t, Status: s, Reason: reason, Message: Truncate(msg, maxMessage), ObservedGeneration: gen, LastTransitionTime: now,
	})
	return prev
}

// Truncate cuts msg to at most n bytes, marking the cut with an ellipsis.
func Truncate(msg string, n int) string {
	const ellipsis = "…"
	if len(msg) <= n {
		return msg
	}
	cut := n - len(ellipsis)
	for cut > 0 && !utf8RuneStart(msg[cut]) {
		cut--
	}
	return msg[:cut] + ellipsis
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }
