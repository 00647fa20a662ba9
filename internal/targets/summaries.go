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

package targets

import (
	"context"

	"sigs.k8s.io/controller-runtime/pkg/client"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
)

// summaryClusterIndex indexes ClusterSummaries by their cluster (summaryClusterKey), so that a
// cluster's change finds its few summaries without scanning every summary of its namespace.
const summaryClusterIndex = "stagecoach.dev/cluster"

func summaryClusterKey(clusterType libv1beta1.ClusterType, namespace, name string) string {
	return string(clusterType) + "/" + namespace + "/" + name
}

// IndexSummariesByCluster registers the index SummariesOfCluster lists by with a manager's cache.
func IndexSummariesByCluster(ctx context.Context, indexer client.FieldIndexer) error {
	return indexer.IndexField(ctx, &configv1beta1.ClusterSummary{}, summaryClusterIndex, func(obj client.Object) []string {
		spec := &obj.(*configv1beta1.ClusterSummary).Spec
		return []string{summaryClusterKey(spec.ClusterType, spec.ClusterNamespace, spec.ClusterName)}
	})
}

// SummariesOfCluster lists, from a cache with the index IndexSummariesByCluster registers, the
// ClusterSummaries on a cluster of the given type, namespace and name.
func SummariesOfCluster(ctx context.Context, c client.Reader, list *configv1beta1.ClusterSummaryList,
	clusterType libv1beta1.ClusterType, namespace, name string, opts ...client.ListOption) error {
	return c.List(ctx, list, append(opts, client.MatchingFields{summaryClusterIndex: summaryClusterKey(clusterType, namespace, name)})...)
}
