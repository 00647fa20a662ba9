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

package clustersummary

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
)

// clusterGate says whether the summary's cluster can be deployed to now; when it can't, the
// reason is for a person to read.
type clusterGate struct {
	ok      bool
	paused  bool
	reason  string
	cluster *libv1beta1.SveltosCluster
}

func checkCluster(ctx context.Context, c client.Reader, cs *configv1beta1.ClusterSummary) (clusterGate, error) {
	cl := &libv1beta1.SveltosCluster{}
	err := c.Get(ctx, client.ObjectKey{Namespace: cs.Spec.ClusterNamespace, Name: cs.Spec.ClusterName}, cl)
	if apierrors.IsNotFound(err) {
		return clusterGate{reason: fmt.Sprintf("SveltosCluster %s/%s does not exist", cs.Spec.ClusterNamespace, cs.Spec.ClusterName)}, nil
	}
	if err != nil {
		return clusterGate{}, err
	}
	switch {
	case cl.Spec.Paused:
		return clusterGate{paused: true, reason: "Cluster is paused", cluster: cl}, nil
	case !cl.Status.Ready:
		why := "it has not been reached yet"
		if cl.Status.FailureMessage != nil {
			why = *cl.Status.FailureMessage
		}
		return clusterGate{reason: fmt.Sprintf("cluster %s/%s is not ready: %s", cl.Namespace, cl.Name, why), cluster: cl}, nil
	}
	return clusterGate{ok: true, cluster: cl}, nil
}

// owns reports whether the summary's cluster belongs to the shard this replica serves; the
// replicas of other shards leave the summary, its deployment and its status to that shard's.
func (r *Reconciler) owns(ctx context.Context, cs *configv1beta1.ClusterSummary) (bool, error) {
	cl := &libv1beta1.SveltosCluster{}
	err := r.client.Get(ctx, client.ObjectKey{Namespace: cs.Spec.ClusterNamespace, Name: cs.Spec.ClusterName}, cl)
	if apierrors.IsNotFound(err) {
		return r.shard.Owns(nil), nil
	}
	return err == nil && r.shard.Owns(cl), err
}

// checkDependencies reports whether every profile in dependsOn is provisioned on this cluster,
// in the words Sveltos uses for status.dependencies. A ClusterProfile depends on ClusterProfiles,
// a Profile on Profiles of its namespace (which is its cluster's).
func checkDependencies(ctx context.Context, c client.Reader, cs *configv1beta1.ClusterSummary) (bool, string, error) {
	deps := cs.Spec.ClusterProfileSpec.DependsOn
	if len(deps) == 0 {
		return true, "no dependencies", nil
	}
	family, _, _ := configv1beta1.SummaryProfile(cs)
	for _, dep := range deps {
		other := &configv1beta1.ClusterSummary{}
		key := client.ObjectKey{Namespace: cs.Namespace, Name: family.SummaryName(dep, cs.Spec.ClusterName)}
		err := c.Get(ctx, key, other)
		if apierrors.IsNotFound(err) || (err == nil && !other.Provisioned()) {
			return false, fmt.Sprintf("%s %s is a dependency and it is not fully deployed yet", family.Kind(), dep), nil
		}
		if err != nil {
			return false, "", err
		}
	}
	return true, "All dependencies deployed", nil
}
