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

package dashboard

import (
	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/view"
)

// historyVersion is one version of a promotion's history, as its timeline draws it.
type historyVersion struct {
	view.VersionHistory
	// Short is the version as the page names it; Class colours it by its outcome.
	Short, Class string
	Stages       []historyStage
}

type historyStage struct {
	view.StageHistory
	Class string
}

// timeline is a history as the page draws it, newest first.
func timeline(h *view.History) []historyVersion {
	var out []historyVersion
	for _, v := range h.Versions {
		hv := historyVersion{VersionHistory: v, Short: v.Version[:min(8, len(v.Version))], Class: outcomeClass(v.Outcome)}
		for _, s := range v.Stages {
			hv.Stages = append(hv.Stages, historyStage{StageHistory: s, Class: outcomeClass(s.Outcome)})
		}
		out = append(out, hv)
	}
	return out
}

// outcomeClass colours an outcome as the state it is closest to.
func outcomeClass(outcome string) string {
	switch outcome {
	case configv1beta1.OutcomeSucceeded:
		return "s-succeeded"
	case configv1beta1.OutcomeFailed:
		return "s-failed"
	case configv1beta1.OutcomeRolledBack:
		return "s-rolledback"
	case configv1beta1.OutcomeInProgress:
		return "s-progressing"
	}
	return "s-pending"
}
