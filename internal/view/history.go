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

package view

import (
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
)

// History is what a promotion, or a placement's update runs, rolled out: newest first.
type History struct {
	Versions []VersionHistory `json:"versions"`
}

// VersionHistory is one version: of a promotion, a profile spec hash (in hex, as the
// stagecoach.dev/rollback annotation takes it); of a placement, the resource snapshot index an
// update run rolled out.
type VersionHistory struct {
	Version string `json:"version"`
	// Run is the update run that rolled the version out (placements only).
	Run string `json:"run,omitempty"`
	// Outcome is InProgress, Succeeded, Failed, RolledBack or Superseded.
	Outcome  string       `json:"outcome"`
	Started  *metav1.Time `json:"started"`
	Finished *metav1.Time `json:"finished"`
	// Deployed is what the version deploys (promotions only).
	Deployed []string       `json:"deployed,omitempty"`
	Stages   []StageHistory `json:"stages"`
}

// StageHistory is one stage a version reached.
type StageHistory struct {
	Name     string       `json:"name"`
	Started  *metav1.Time `json:"started"`
	Finished *metav1.Time `json:"finished"`
	Outcome  string       `json:"outcome"`
	// ApprovedBy is who approved the stage, as the API server authenticated them; empty when
	// nobody did, or nothing recorded who.
	ApprovedBy          string       `json:"approvedBy"`
	ApprovedAt          *metav1.Time `json:"approvedAt,omitempty"`
	ApprovalNeededSince *metav1.Time `json:"approvalNeededSince,omitempty"`
	Message             string       `json:"message,omitempty"`
	// Retries counts the retries that opened the stage again after it failed.
	Retries int32 `json:"retries,omitempty"`
}

// PromotionHistory reads the history of the ClusterPromotion name.
func PromotionHistory(ctx context.Context, c client.Reader, name string) (*History, error) {
	p := &configv1beta1.ClusterPromotion{}
	if err := c.Get(ctx, client.ObjectKey{Name: name}, p); err != nil {
		return nil, NotFound(err, "ClusterPromotion", "", name)
	}
	return PromotionHistoryOf(p), nil
}

// PromotionHistoryOf is the history a promotion's status keeps.
func PromotionHistoryOf(p *configv1beta1.ClusterPromotion) *History {
	h := &History{Versions: []VersionHistory{}}
	for _, v := range p.Status.History {
		vh := VersionHistory{Version: hex.EncodeToString(v.ProfileSpecHash), Outcome: v.Outcome, Started: new(v.Started),
			Finished: v.Finished, Deployed: v.Deployed, Stages: []StageHistory{}}
		for _, s := range v.Stages {
			vh.Stages = append(vh.Stages, StageHistory{Name: s.Name, Started: s.Started, Finished: s.Finished, Outcome: s.Outcome,
				ApprovedBy: s.ApprovedBy, ApprovedAt: s.ApprovedAt, ApprovalNeededSince: s.ApprovalNeededSince, Message: s.Message, Retries: s.Retries})
		}
		h.Versions = append(h.Versions, vh)
	}
	return h
}

// ApprovedByCondition is the condition of a (Cluster)ApprovalRequest's status in which the API
// server records who approved it: the chart's MutatingAdmissionPolicy writes the user who set
// Approved to True as its message, and undoes any other change of it.
const ApprovedByCondition = "stagecoach.dev/ApprovedBy"

// PlacementHistory lists the update runs of the placement namespace/name (a
// ClusterResourcePlacement when namespace is empty), newest first, as versions: each run's
// resource snapshot, outcome and stages, and who approved a stage (ApprovedByCondition of its
// approval request; empty without the chart's policy).
func PlacementHistory(ctx context.Context, c client.Reader, namespace, name string) (*History, error) {
	family := RunFamily(namespace)
	if err := c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, family.NewPlacement()); err != nil {
		return nil, NotFound(err, family.PlacementKind(), namespace, name)
	}
	list := family.NewUpdateRunList()
	if err := c.List(ctx, list, client.InNamespace(namespace)); err != nil {
		return nil, err
	}
	var runs []placementv1beta1.UpdateRunObj
	for _, r := range list.UpdateRunObjs() {
		if r.UpdateRunSpec().PlacementName == name {
			runs = append(runs, r)
		}
	}
	slices.SortFunc(runs, func(a, b placementv1beta1.UpdateRunObj) int {
		if c := b.GetCreationTimestamp().Compare(a.GetCreationTimestamp().Time); c != 0 {
			return c
		}
		return strings.Compare(a.GetName(), b.GetName())
	})
	h := &History{Versions: []VersionHistory{}}
	for _, r := range runs {
		approvers, err := runApprovers(ctx, c, family, r)
		if err != nil {
			return nil, err
		}
		h.Versions = append(h.Versions, RunVersion(r, approvers))
	}
	return h, nil
}

// runApprovers maps the approval requests of a run's stages to who approved them, as the API
// server stamped it.
func runApprovers(ctx context.Context, c client.Reader, family placementv1beta1.Family, r placementv1beta1.UpdateRunObj) (map[string]string, error) {
	out := map[string]string{}
	for _, s := range r.UpdateRunStatus().StagesStatus {
		for _, task := range slices.Concat(s.BeforeStageTaskStatus, s.AfterStageTaskStatus) {
			if task.ApprovalRequestName == "" {
				continue
			}
			req := family.NewApprovalRequest()
			err := c.Get(ctx, client.ObjectKey{Namespace: r.GetNamespace(), Name: task.ApprovalRequestName}, req)
			if apierrors.IsNotFound(err) {
				continue // deleted with its run, or not created yet
			}
			if err != nil {
				return nil, err
			}
			if cond := req.ApprovalRequestStatus().Condition(ApprovedByCondition); cond != nil && cond.Status == metav1.ConditionTrue {
				out[task.ApprovalRequestName] = cond.Message
			}
		}
	}
	return out, nil
}

// RunVersion is the version an update run rolled out, with its stages; approvers maps the
// names of its approval requests to who approved them.
func RunVersion(r placementv1beta1.UpdateRunObj, approvers map[string]string) VersionHistory {
	st := r.UpdateRunStatus()
	v := VersionHistory{Version: st.ResourceSnapshotIndexUsed, Run: r.GetName(), Stages: []StageHistory{}}
	if v.Version == "" {
		v.Version = r.UpdateRunSpec().ResourceSnapshotIndex
	}
	state, msg := RunState(r)
	switch state {
	case Succeeded:
		v.Outcome = configv1beta1.OutcomeSucceeded
	case Failed:
		v.Outcome = configv1beta1.OutcomeFailed
	default:
		v.Outcome = configv1beta1.OutcomeInProgress
	}
	for _, s := range st.StagesStatus {
		if s.StartTime == nil {
			continue // not reached
		}
		sh := StageHistory{Name: s.StageName, Started: s.StartTime, Finished: s.EndTime, Outcome: configv1beta1.OutcomeInProgress}
		if c := meta.FindStatusCondition(s.Conditions, string(placementv1beta1.StageUpdatingConditionSucceeded)); c != nil {
			switch c.Status {
			case metav1.ConditionTrue:
				sh.Outcome = configv1beta1.OutcomeSucceeded
			case metav1.ConditionFalse:
				sh.Outcome, sh.Message = configv1beta1.OutcomeFailed, c.Message
				sh.Finished = new(c.LastTransitionTime)
			}
		}
		for _, task := range slices.Concat(s.BeforeStageTaskStatus, s.AfterStageTaskStatus) {
			if c := meta.FindStatusCondition(task.Conditions, string(placementv1beta1.StageTaskConditionApprovalRequestCreated)); c != nil && c.Status == metav1.ConditionTrue {
				sh.ApprovalNeededSince = new(c.LastTransitionTime)
			}
			if c := meta.FindStatusCondition(task.Conditions, string(placementv1beta1.StageTaskConditionApprovalRequestApproved)); c != nil && c.Status == metav1.ConditionTrue {
				sh.ApprovedAt = new(c.LastTransitionTime)
				sh.ApprovedBy = approvers[task.ApprovalRequestName]
			}
		}
		v.Stages = append(v.Stages, sh)
		if v.Started == nil {
			v.Started = s.StartTime
		}
		if s.EndTime != nil {
			v.Finished = s.EndTime
		}
	}
	if v.Outcome == configv1beta1.OutcomeInProgress {
		v.Finished = nil
	} else if c := meta.FindStatusCondition(st.Conditions, string(placementv1beta1.StagedUpdateRunConditionSucceeded)); c != nil {
		v.Finished = new(c.LastTransitionTime)
	}
	if v.Outcome == configv1beta1.OutcomeFailed && len(v.Stages) > 0 && v.Stages[len(v.Stages)-1].Message == "" {
		v.Stages[len(v.Stages)-1].Message = msg
	}
	return v
}

// WriteHistoryText writes a history for people: one block per version, newest first, with a
// line per stage.
func WriteHistoryText(w io.Writer, h *History) error {
	if len(h.Versions) == 0 {
		_, err := fmt.Fprintln(w, "no versions yet")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for i, v := range h.Versions {
		if i > 0 {
			fmt.Fprintln(tw)
		}
		name := "Version " + v.Version
		if v.Run != "" {
			name = "Run " + v.Run + ", resource snapshot " + v.Version
		}
		fmt.Fprintf(tw, "%s: %s\t%s\t%s\n", name, v.Outcome, stamp(v.Started), stamp(v.Finished))
		if len(v.Deployed) > 0 {
			fmt.Fprintf(tw, "  deploys %s\n", strings.Join(v.Deployed, ", "))
		}
		for _, s := range v.Stages {
			line := fmt.Sprintf("  %s\t%s\t%s\t%s", s.Name, s.Outcome, stamp(s.Started), stamp(s.Finished))
			switch {
			case s.ApprovedBy != "":
				line += "\tapproved by " + s.ApprovedBy + " at " + stamp(s.ApprovedAt)
			case s.ApprovedAt != nil:
				line += "\tapproved at " + stamp(s.ApprovedAt)
			case s.ApprovalNeededSince != nil:
				line += "\tawaiting approval since " + stamp(s.ApprovalNeededSince)
			}
			if s.Retries > 0 {
				line += "\tretried " + Plural(int(s.Retries), "time")
			}
			if s.Message != "" && s.Outcome != configv1beta1.OutcomeSucceeded {
				line += "\t" + s.Message
			}
			fmt.Fprintln(tw, line)
		}
	}
	return tw.Flush()
}

// stamp is a time as history lists it, "-" for none.
func stamp(t *metav1.Time) string {
	if t == nil {
		return "-"
	}
	return t.UTC().Format(time.RFC3339)
}
