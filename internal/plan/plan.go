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

// Package plan previews a rollout before anything is applied: which clusters each stage would
// visit, in which waves (maxUpdate for ClusterProfiles and ClusterPromotions, maxConcurrency for
// staged update runs), and what each cluster would change, from a dry run against the cluster
// itself. The CLI (`stagecoach plan`) and the dashboard call it.
package plan

import (
	"context"
	"fmt"
	"reflect"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/deploy/helm"
	"github.com/stagecoach-dev/stagecoach/internal/fleet"
)

// Plan is the order in which a rollout would visit the clusters, and what it would change on
// each. Its JSON form is what `stagecoach plan -o json` prints.
type Plan struct {
	Kind      string  `json:"kind"`
	Name      string  `json:"name"`
	Namespace string  `json:"namespace,omitempty"`
	Stages    []Stage `json:"stages"`
}

// Stage is one stage of a plan. A ClusterProfile has one, named after it.
type Stage struct {
	Name string `json:"name"`
	// Waves are the clusters in the order the rollout starts them, grouped by the number it lets
	// update at once: the second wave starts as the first finishes. Clusters are named
	// "<namespace>/<name>" (SveltosClusters) or "<name>" (MemberClusters).
	Waves [][]string `json:"waves"`
	// Unavailable are the paused or unreachable clusters the stage matches, with the reason:
	// they wait, outside the waves, until they can be deployed to.
	Unavailable map[string]string `json:"unavailable,omitempty"`
	// Changes says, by cluster, what the stage would change there.
	Changes map[string]Change `json:"changes,omitempty"`
}

// Clusters lists the stage's clusters in wave order, then the unavailable ones.
func (s Stage) Clusters() []string {
	var out []string
	for _, w := range s.Waves {
		out = append(out, w...)
	}
	return append(out, sortedKeys(s.Unavailable)...)
}

// Planner previews rollouts of the management cluster it reads.
type Planner struct {
	// Client reads the management cluster.
	Client client.Client
	// Clusters connects to the managed clusters for the dry runs; nil previews no changes.
	Clusters *fleet.Cache
	// Helm dry-runs the charts; nil says so in the changes of a profile with charts.
	Helm *helm.Deployer
	// Concurrency bounds the clusters dry-run at once; zero means 8.
	Concurrency int
	// Timeout bounds each cluster's dry run; zero means 30 seconds.
	Timeout time.Duration
}

// Plan previews obj, a ClusterPromotion, ClusterProfile, Profile, ClusterStagedUpdateRun or
// StagedUpdateRun as it would be applied (a Profile without a namespace goes to "default", as
// kubectl would put it): its spec is read from obj, everything else (clusters,
// content, placements, strategies) from the management cluster and the managed clusters.
func (p *Planner) Plan(ctx context.Context, obj client.Object) (*Plan, error) {
	var (
		out *Plan
		err error
	)
	switch o := obj.(type) {
	case *configv1beta1.ClusterPromotion:
		out, err = p.promotion(ctx, o)
	case *configv1beta1.ClusterProfile:
		out, err = p.profile(ctx, o)
	case *configv1beta1.Profile:
		if o.Namespace == "" {
			o.Namespace = "default"
		}
		out, err = p.profile(ctx, o)
	case *placementv1beta1.ClusterStagedUpdateRun:
		out, err = p.updateRun(ctx, placementv1beta1.ClusterFamily, o)
	case *placementv1beta1.StagedUpdateRun:
		out, err = p.updateRun(ctx, placementv1beta1.NamespacedFamily, o)
	default:
		return nil, fmt.Errorf("cannot plan a %T: plan a ClusterPromotion, ClusterProfile, Profile, ClusterStagedUpdateRun or StagedUpdateRun", obj)
	}
	if err != nil {
		return nil, err
	}
	out.Name, out.Namespace = obj.GetName(), obj.GetNamespace()
	return out, nil
}

// Waves groups clusters, in order, into waves of at most limit (0: one wave of them all).
func Waves(clusters []string, limit int) [][]string {
	waves := [][]string{}
	if limit <= 0 {
		limit = len(clusters)
	}
	for len(clusters) > 0 {
		n := min(limit, len(clusters))
		waves = append(waves, clusters[:n:n])
		clusters = clusters[n:]
	}
	return waves
}

// Defaulted returns obj as the management cluster would store it if it were applied now: with
// the API's defaults, merged with the object there is, and validated (a server-side apply dry
// run; nothing is stored). An object the API would refuse is an error saying why.
func Defaulted(ctx context.Context, c client.Client, obj client.Object) (client.Object, error) {
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, err
	}
	u := &unstructured.Unstructured{Object: content}
	u.SetResourceVersion("")
	u.SetManagedFields(nil)
	unstructured.RemoveNestedField(u.Object, "metadata", "creationTimestamp")
	unstructured.RemoveNestedField(u.Object, "status")
	if err := c.Apply(ctx, client.ApplyConfigurationFromUnstructured(u), client.DryRunAll, client.ForceOwnership,
		client.FieldOwner("stagecoach-plan")); err != nil {
		return nil, err
	}
	out := reflect.New(reflect.TypeOf(obj).Elem()).Interface().(client.Object)
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, out); err != nil {
		return nil, err
	}
	return out, nil
}
