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
	"fmt"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/rollout"
)

// Options bound what a description lists.
type Options struct {
	// MaxClusters is how many clusters a stage lists at most; 0 lists them all.
	MaxClusters int
}

// PromotionState is where a ClusterPromotion stands, and why, from its status alone.
func PromotionState(p *configv1beta1.ClusterPromotion) (State, string) {
	ready := meta.FindStatusCondition(p.Status.Conditions, configv1beta1.PromotionReadyCondition)
	msg := ""
	if ready != nil {
		msg = ready.Message
	}
	if c := meta.FindStatusCondition(p.Status.Conditions, configv1beta1.PromotionSuspendedCondition); c != nil && c.Status == metav1.ConditionTrue {
		return Suspended, c.Message
	}
	progressing := meta.FindStatusCondition(p.Status.Conditions, configv1beta1.PromotionProgressingCondition)
	switch {
	case p.Status.Rollback != nil && p.FailedVersion() != nil:
		// Read from the condition, so that the state and its message agree.
		if ready != nil && ready.Reason == configv1beta1.PromotionRolledBackReason {
			return RolledBack, msg
		}
		return RollingBack, msg
	case p.FailedVersion() != nil:
		return Failed, msg
	case progressing != nil && progressing.Status == metav1.ConditionFalse && progressing.Reason == configv1beta1.PromotionPromotedReason:
		if ready != nil && ready.Status == metav1.ConditionTrue {
			return Succeeded, msg
		}
		return Waiting, msg // through every stage, but a cluster has regressed since
	case progressing != nil && progressing.Status == metav1.ConditionTrue && progressing.Reason != configv1beta1.PromotionWaitingReason:
		return Progressing, msg
	case progressing == nil:
		return Pending, msg
	}
	return Waiting, msg
}

// Version names a promotion's version as people read it: the first bytes of its profile-spec
// hash, in hex; "" for none.
func Version(hash []byte) string {
	return fmt.Sprintf("%x", hash[:min(4, len(hash))])
}

// Promotion describes the ClusterPromotion name: its state, then each stage with its clusters,
// read from the stage's ClusterProfile and its ClusterSummaries. A stage no version has reached
// has no profile yet: its clusters are those its selector picks now. A stage not reached says
// what it will cover; one under way or passed, which clusters it leaves out or lets catch up.
func Promotion(ctx context.Context, c client.Reader, name string, opts Options) (*Rollout, error) {
	p := &configv1beta1.ClusterPromotion{}
	if err := c.Get(ctx, client.ObjectKey{Name: name}, p); err != nil {
		return nil, NotFound(err, "ClusterPromotion", "", name)
	}
	r := PromotionOutline(p)
	fleet, err := sveltosClusters(ctx, c)
	if err != nil {
		return nil, err
	}
	limit := p.Spec.ProfileSpec.MaxUpdate
	for i := range r.Stages {
		st := &r.Stages[i]
		profile := &configv1beta1.ClusterProfile{}
		err := c.Get(ctx, client.ObjectKey{Name: p.StageProfileName(st.Name)}, profile)
		switch {
		case apierrors.IsNotFound(err):
			// No version has reached the stage yet: the clusters its selector picks now.
			st.Clusters = selectedClusters(&p.Spec.Stages[i].ClusterSelector, fleet)
			st.Wave, _ = rollout.MaxUpdate(limit, len(st.Clusters))
		case err != nil:
			return nil, err
		default:
			if st.Clusters, err = profileClusters(ctx, c, profile, fleet); err != nil {
				return nil, err
			}
			st.Wave, _ = rollout.MaxUpdate(profile.Spec.MaxUpdate, len(st.Clusters))
		}
		if st.State == Pending {
			// What a stage not reached yet runs is an earlier version, healthy or not.
			for j := range st.Clusters {
				if st.Clusters[j].State == Succeeded {
					st.Clusters[j].State = Pending
				}
			}
			preview(st, limit)
		} else {
			outOfStep(st, stageStatus(p, st.Name))
		}
		st.finish(opts.MaxClusters)
	}
	return r, nil
}

// PromotionOutline describes the ClusterPromotion from its status alone: its state and its
// stages', without their clusters. An overview of many rollouts lists it.
func PromotionOutline(p *configv1beta1.ClusterPromotion) *Rollout {
	r := &Rollout{Kind: "ClusterPromotion", Name: p.Name, Version: Version(p.Status.ProfileSpecHash)}
	r.State, r.Message = PromotionState(p)
	current := slices.IndexFunc(p.Spec.Stages, func(s configv1beta1.Stage) bool { return s.Name == p.Status.CurrentStageName })
	for i := range p.Spec.Stages {
		st := promotionStage(p, i, current, r.State)
		st.finish(0)
		r.Stages = append(r.Stages, st)
	}
	return r
}

// promotionStage is stage i of the promotion, without its clusters; current is the index of the
// stage the promotion is at, and state the promotion's.
func promotionStage(p *configv1beta1.ClusterPromotion, i, current int, state State) Stage {
	name := p.Spec.Stages[i].Name
	st := Stage{Name: name, State: Pending}
	f := p.FailedVersion()
	if rb := p.Status.Rollback; rb != nil && f != nil {
		if j := slices.Index(rb.Stages, name); j >= 0 {
			switch {
			case j < int(rb.Done):
				st.State = RolledBack
			case j == int(rb.Done):
				st.State, st.WaitingFor = RollingBack, "rolling back to the last known good version"
			default:
				st.State, st.WaitingFor = Waiting, "rolls back after "+rb.Stages[j-1]
			}
			if name == f.Stage {
				st.WaitingFor = strings.TrimPrefix(st.WaitingFor+"; ", "; ") + "failed: " + f.Message
			}
			return st
		}
	}
	status := stageStatus(p, name)
	switch {
	case f != nil && name == f.Stage:
		st.State, st.WaitingFor = Failed, f.Message
	case i < current || (i == current && state == Succeeded):
		st.State = Succeeded
	case i == current:
		st.State = state
		if state == Failed || state == RolledBack || state == RollingBack {
			st.State = Succeeded // the failure is another stage's
		}
		st.WaitingFor = waitingFor(p, status)
	}
	return st
}

// waitingFor puts in words what the current stage waits for: the stage's own description, what
// blocks it, when the next stage may start and when the stage's deadline passes.
func waitingFor(p *configv1beta1.ClusterPromotion, st *configv1beta1.StageStatus) string {
	var parts []string
	if c := meta.FindStatusCondition(p.Status.Conditions, configv1beta1.PromotionSuspendedCondition); c != nil && c.Status == metav1.ConditionTrue {
		parts = append(parts, c.Message)
	}
	if st != nil {
		if st.CurrentStatusDescription != nil && *st.CurrentStatusDescription != "" {
			parts = append(parts, *st.CurrentStatusDescription)
		}
		if st.FailureMessage != nil && *st.FailureMessage != "" {
			parts = append(parts, *st.FailureMessage)
		}
		if st.ProgressDeadlineTime != nil {
			parts = append(parts, "deadline "+st.ProgressDeadlineTime.UTC().Format(time.RFC3339))
		}
	}
	if w := p.Status.BlockingWindow; w != nil {
		parts = append(parts, fmt.Sprintf("%s window from %q to %q", strings.ToLower(w.Kind), w.From, w.To))
	}
	if t := p.Status.NextPromotionTime; t != nil {
		parts = append(parts, "next stage may start at "+t.UTC().Format(time.RFC3339))
	}
	return strings.Join(parts, "; ")
}

func stageStatus(p *configv1beta1.ClusterPromotion, name string) *configv1beta1.StageStatus {
	for i := range p.Status.Stages {
		if p.Status.Stages[i].Name == name {
			return &p.Status.Stages[i]
		}
	}
	return nil
}

// Profile describes a ClusterProfile on its own: one stage, named after it, with its clusters.
// With a namespace, it is the Profile of that namespace.
func Profile(ctx context.Context, c client.Reader, namespace, name string, opts Options) (*Rollout, error) {
	family := ProfileFamily(namespace)
	profile := family.NewProfile()
	if err := c.Get(ctx, family.Key(namespace, name), profile); err != nil {
		return nil, NotFound(err, family.Kind(), namespace, name)
	}
	r := &Rollout{Kind: family.Kind(), Namespace: family.Namespace(namespace), Name: name}
	r.State, r.Message = ProfileState(profile)
	fleet, err := sveltosClusters(ctx, c)
	if err != nil {
		return nil, err
	}
	clusters, err := profileClusters(ctx, c, profile, fleet)
	if err != nil {
		return nil, err
	}
	st := Stage{Name: name, State: r.State, Clusters: clusters}
	st.Wave, _ = rollout.MaxUpdate(profile.ProfileSpec().MaxUpdate, len(clusters))
	st.finish(opts.MaxClusters)
	r.Stages = []Stage{st}
	return r, nil
}

// ProfileFamily is the family of a profile named in namespace: a Profile there, or a
// ClusterProfile when namespace is empty.
func ProfileFamily(namespace string) configv1beta1.ProfileFamily {
	if namespace != "" {
		return configv1beta1.Profiles
	}
	return configv1beta1.ClusterProfiles
}

// ProfileState is where a ClusterProfile or Profile stands, and why, from its status alone.
func ProfileState(profile configv1beta1.ProfileObj) (State, string) {
	st := profile.ProfileStatus()
	if c := meta.FindStatusCondition(st.Conditions, configv1beta1.ProfileStalledCondition); c != nil && c.Status == metav1.ConditionTrue {
		return Failed, c.Message
	}
	if c := meta.FindStatusCondition(st.Conditions, configv1beta1.ProfileReadyCondition); c != nil {
		if c.Status == metav1.ConditionTrue {
			return Succeeded, c.Message
		}
		return Progressing, c.Message
	}
	return Progressing, ""
}

// sveltosClusters is every SveltosCluster by "<namespace>/<name>".
func sveltosClusters(ctx context.Context, c client.Reader) (map[string]*libv1beta1.SveltosCluster, error) {
	var clusters libv1beta1.SveltosClusterList
	if err := c.List(ctx, &clusters); err != nil {
		return nil, err
	}
	byName := make(map[string]*libv1beta1.SveltosCluster, len(clusters.Items))
	for i := range clusters.Items {
		byName[clusters.Items[i].Namespace+"/"+clusters.Items[i].Name] = &clusters.Items[i]
	}
	return byName, nil
}

// profileClusters is each cluster the profile deploys to, from its ClusterSummary; byName holds
// the SveltosClusters, which say whether a cluster can be reached.
func profileClusters(ctx context.Context, c client.Reader, profile configv1beta1.ProfileObj,
	byName map[string]*libv1beta1.SveltosCluster) ([]Cluster, error) {
	family := configv1beta1.ProfileFamilyOf(profile)
	var summaries configv1beta1.ClusterSummaryList
	if err := c.List(ctx, &summaries, client.InNamespace(profile.GetNamespace()),
		client.MatchingLabels{family.NameLabel(): profile.GetName()}); err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var out []Cluster
	for i := range summaries.Items {
		cs := &summaries.Items[i]
		name := cs.Spec.ClusterNamespace + "/" + cs.Spec.ClusterName
		seen[name] = true
		out = append(out, SummaryCluster(name, cs, profile, byName[name]))
	}
	for _, ref := range profile.ProfileStatus().MatchingClusterRefs {
		if name := ref.Namespace + "/" + ref.Name; !seen[name] {
			c := unstarted(name, byName[name])
			if c.State == Pending {
				c.State, c.Reason = Progressing, "no ClusterSummary yet"
			}
			out = append(out, c)
		}
	}
	return out, nil
}

// SummaryCluster is where the cluster name stands with the profile, from its ClusterSummary;
// cl, the cluster when it is a SveltosCluster, says whether it can be reached.
func SummaryCluster(name string, cs *configv1beta1.ClusterSummary, profile configv1beta1.ProfileObj, cl *libv1beta1.SveltosCluster) Cluster {
	out := Cluster{Name: name, Runs: runs(&cs.Spec.ClusterProfileSpec)}
	if u := unstarted(name, cl); u.State != Pending {
		out.State, out.Reason = u.State, u.Reason
		return out
	}
	current := equality.Semantic.DeepEqual(cs.Spec.ClusterProfileSpec, *configv1beta1.DeployedSpec(profile))
	switch msg := cs.Failure(); {
	case current && cs.Provisioned():
		out.State = Succeeded
	case current && msg != "":
		out.State, out.Reason = Failed, msg
	default:
		out.State, out.Reason = Progressing, "deploying"
	}
	return out
}

// WhyUnreachable says why a SveltosCluster cannot be deployed to now, or "".
func WhyUnreachable(cl *libv1beta1.SveltosCluster) string {
	switch {
	case cl == nil:
		return "" // a cluster of another kind: its summary says
	case cl.Spec.Paused:
		return "paused"
	case cl.Status.ConnectionStatus == libv1beta1.ConnectionDown:
		if cl.Status.FailureMessage != nil {
			return "unreachable: " + *cl.Status.FailureMessage
		}
		return "unreachable"
	case !cl.Status.Ready:
		if cl.Status.FailureMessage != nil {
			return "not ready: " + *cl.Status.FailureMessage
		}
		return "not ready"
	}
	return ""
}

// runs says what a profile spec deploys: each Helm release with its chart version, and how
// many manifest sources.
func runs(spec *configv1beta1.Spec) string {
	var parts []string
	for _, h := range spec.HelmCharts {
		parts = append(parts, fmt.Sprintf("%s/%s %s", h.ReleaseNamespace, h.ReleaseName, h.ChartVersion))
	}
	if n := len(spec.PolicyRefs); n > 0 {
		parts = append(parts, Plural(n, "policyRef"))
	}
	if n := len(spec.KustomizationRefs); n > 0 {
		parts = append(parts, Plural(n, "kustomizationRef"))
	}
	return strings.Join(parts, ", ")
}

// Plural counts noun: "1 cluster", "3 clusters".
func Plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// NotFound words an error reading an object that does not exist as a person would look for it:
// "<kind> <name> not found [in namespace <namespace>]". Other errors are returned as they are.
func NotFound(err error, kind, namespace, name string) error {
	if !apierrors.IsNotFound(err) {
		return err
	}
	if namespace != "" {
		return fmt.Errorf("%s %s not found in namespace %s", kind, name, namespace)
	}
	return fmt.Errorf("%s %s not found", kind, name)
}
