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
	"cmp"
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1beta1 "github.com/stagecoach-dev/stagecoach/api/cluster/v1beta1"
	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/view"
)

// clusterBody is one managed cluster: whether it can be reached, and what each profile or
// placement deploys to it, with the checks that say how that went.
type clusterBody struct {
	Kind, Name string
	// Connection says whether the cluster can be reached, in words.
	Connection string
	Reachable  bool
	// Paused: the cluster is taken out of rollouts. Href, when the viewer may act, is its
	// page, where pause and resume are posted.
	Paused      bool
	Href        string
	Labels      []string
	Deployments []deployment
}

// deployment is what one ClusterProfile or placement puts on the cluster.
type deployment struct {
	// Source is the ClusterProfile or the placement, and Rollout the page of the rollout that
	// drives it, if any.
	Source, Rollout, RolloutName string
	Runs                         string
	State                        view.State
	Reason                       string
	Checks                       []check
}

// check is one thing checked on the cluster: a feature deployed and its health checks, or a
// binding's condition.
type check struct {
	Name    string
	State   view.State
	Message string
	Time    time.Time
}

func (s *Server) sveltosCluster(r *http.Request) (*pageData, error) {
	ctx, namespace, name := r.Context(), r.PathValue("namespace"), r.PathValue("name")
	cl := &libv1beta1.SveltosCluster{}
	if err := s.read(ctx).Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, cl); err != nil {
		return nil, view.NotFound(err, "SveltosCluster", namespace, name)
	}
	body := &clusterBody{Kind: "SveltosCluster", Name: namespace + "/" + name, Labels: labels(cl.Labels), Paused: cl.Spec.Paused}
	if s.actsFor(ctx) {
		body.Href = sveltosClusterHref(body.Name)
	}
	body.Connection = view.WhyUnreachable(cl)
	if body.Reachable = body.Connection == ""; body.Reachable {
		body.Connection = "ready: its API server answers"
	}
	if cl.Spec.Paused {
		body.Connection = "paused: nothing is deployed to it and no stage waits for it"
	}
	var summaries configv1beta1.ClusterSummaryList
	if err := s.read(ctx).List(ctx, &summaries, client.InNamespace(namespace)); shown(err) != nil {
		return nil, err
	}
	for i := range summaries.Items {
		cs := &summaries.Items[i]
		if cs.Spec.ClusterName != name || cs.Spec.ClusterNamespace != namespace {
			continue
		}
		d, err := s.summaryDeployment(ctx, cs, cl)
		if err != nil {
			return nil, err
		}
		body.Deployments = append(body.Deployments, d)
	}
	slices.SortFunc(body.Deployments, func(a, b deployment) int { return cmp.Compare(a.Source, b.Source) })
	title := "SveltosCluster " + body.Name
	return &pageData{Title: title, Crumbs: []crumb{{Text: title}}, Body: body}, nil
}

// summaryDeployment is what the ClusterSummary's profile deploys to cluster cl.
func (s *Server) summaryDeployment(ctx context.Context, cs *configv1beta1.ClusterSummary, cl *libv1beta1.SveltosCluster) (deployment, error) {
	family, name, _ := configv1beta1.SummaryProfile(cs)
	d := deployment{Source: family.Describe(cs.Namespace, name)}
	profile := family.NewProfile()
	switch err := s.read(ctx).Get(ctx, family.Key(cs.Namespace, name), profile); {
	case apierrors.IsNotFound(err):
		d.State, d.Reason = view.Progressing, "its "+family.Kind()+" is gone: the content is being removed"
		return d, nil
	case err != nil && shown(err) == nil: // the viewer may not read Profiles: the rest of the page stands
		d.State, d.Reason = view.Progressing, err.Error()
		return d, nil
	case err != nil:
		return d, err
	}
	c := view.SummaryCluster(cs.Spec.ClusterNamespace+"/"+cs.Spec.ClusterName, cs, profile, cl)
	d.Runs, d.State, d.Reason = c.Runs, c.State, c.Reason
	if promotion := profile.GetLabels()[configv1beta1.PromotionNameLabel]; promotion != "" {
		d.Rollout, d.RolloutName = "/promotions/"+promotion, "ClusterPromotion "+promotion
	} else if !family.Namespaced { // the dashboard has no page of its own for Profiles
		d.Rollout, d.RolloutName = "/profiles/"+name, "ClusterProfile "+name
	}
	healthChecks := map[libv1beta1.FeatureID][]string{}
	for _, h := range cs.Spec.ClusterProfileSpec.ValidateHealths {
		healthChecks[h.FeatureID] = append(healthChecks[h.FeatureID], h.Name)
	}
	for _, f := range cs.Status.FeatureSummaries {
		ch := check{Name: string(f.FeatureID), State: view.Progressing, Message: strings.ToLower(string(f.Status))}
		if f.LastAppliedTime != nil {
			ch.Time = f.LastAppliedTime.Time
		}
		switch {
		case f.Status == libv1beta1.FeatureStatusProvisioned:
			ch.State, ch.Message = view.Succeeded, "deployed"
		case f.FailureMessage != nil:
			ch.State, ch.Message = view.Failed, *f.FailureMessage
		}
		if names := healthChecks[f.FeatureID]; len(names) > 0 {
			ch.Message += fmt.Sprintf("; health checks %s %s", strings.Join(names, ", "),
				map[bool]string{true: "pass", false: "must pass before the cluster counts as updated"}[ch.State == view.Succeeded])
		}
		d.Checks = append(d.Checks, ch)
	}
	if cs.Status.FailureMessage != nil {
		d.Checks = append(d.Checks, check{Name: "deployment", State: view.Failed, Message: *cs.Status.FailureMessage})
	}
	return d, nil
}

func (s *Server) memberCluster(r *http.Request) (*pageData, error) {
	ctx, name := r.Context(), r.PathValue("name")
	mc := &clusterv1beta1.MemberCluster{}
	if err := s.read(ctx).Get(ctx, client.ObjectKey{Name: name}, mc); err != nil {
		return nil, view.NotFound(err, "MemberCluster", "", name)
	}
	body := &clusterBody{Kind: "MemberCluster", Name: name, Labels: labels(mc.Labels), Connection: "not probed yet"}
	if c := meta.FindStatusCondition(mc.Status.Conditions, string(clusterv1beta1.ConditionTypeMemberClusterHealthy)); c != nil {
		body.Reachable = c.Status == metav1.ConditionTrue
		body.Connection = c.Message
		if body.Reachable {
			body.Connection = "ready: its API server answers"
		}
	}
	for _, family := range []placementv1beta1.Family{placementv1beta1.ClusterFamily, placementv1beta1.NamespacedFamily} {
		bindings := family.NewBindingList()
		if err := s.read(ctx).List(ctx, bindings); shown(err) != nil {
			return nil, err
		}
		for _, b := range bindings.BindingObjs() {
			if b.BindingSpec().TargetCluster == name {
				body.Deployments = append(body.Deployments, bindingDeployment(family, b))
			}
		}
	}
	slices.SortFunc(body.Deployments, func(a, b deployment) int { return cmp.Compare(a.Source, b.Source) })
	title := "MemberCluster " + name
	return &pageData{Title: title, Crumbs: []crumb{{Text: title}}, Body: body}, nil
}

// bindingDeployment is what binding b puts on its cluster, with its conditions as checks.
func bindingDeployment(family placementv1beta1.Family, b placementv1beta1.BindingObj) deployment {
	placement := b.GetLabels()[placementv1beta1.PlacementTrackingLabel]
	d := deployment{Source: family.Describe(family.PlacementKind(), b.GetNamespace(), placement), Runs: view.BindingRuns(b, placement), State: view.Progressing}
	if spec := b.BindingSpec(); spec.State != placementv1beta1.BindingStateBound {
		d.State, d.Reason = view.Pending, "binding "+strings.ToLower(string(spec.State))
	}
	for _, c := range b.BindingStatus().Conditions {
		ch := check{Name: c.Type, State: view.Progressing, Message: strings.TrimPrefix(c.Reason+": "+c.Message, ": "), Time: c.LastTransitionTime.Time}
		switch c.Status {
		case metav1.ConditionTrue:
			ch.State = view.Succeeded
		case metav1.ConditionFalse:
			ch.State = view.Failed
			d.State, d.Reason = view.Failed, c.Type+": "+c.Message
		}
		d.Checks = append(d.Checks, ch)
	}
	if d.State == view.Progressing && meta.IsStatusConditionTrue(b.BindingStatus().Conditions, placementv1beta1.BindingAvailableCondition) {
		d.State = view.Succeeded
	}
	return d
}

// labels lists a cluster's labels as "key=value", sorted.
func labels(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k, v := range m {
		out = append(out, k+"="+v)
	}
	slices.Sort(out)
	return out
}
