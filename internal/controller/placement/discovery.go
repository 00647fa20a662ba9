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

package placement

import (
	"slices"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"

	clusterv1beta1 "github.com/stagecoach-dev/stagecoach/api/cluster/v1beta1"
	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
)

// isFleetGroup reports whether group holds the fleet's own kinds (Kubefleet's and Sveltos's APIs,
// which Stagecoach serves, and Stagecoach's own). They describe the hub's rollouts; placing them
// on members would make members act as hubs (Kubefleet issue #632). Envelopes are the exception
// callers make: selected like any object, they are opened on the way to members.
func isFleetGroup(group string) bool {
	switch group {
	case placementv1beta1.GroupVersion.Group, clusterv1beta1.GroupVersion.Group,
		configv1beta1.GroupVersion.Group, libv1beta1.GroupVersion.Group, "stagecoach.dev":
		return true
	}
	return strings.HasSuffix(group, ".kubernetes-fleet.io") || strings.HasSuffix(group, ".projectsveltos.io") ||
		strings.HasSuffix(group, ".stagecoach.dev")
}

// skippedNamespacedResources are namespaced resources a selected Namespace does not carry:
// objects the member cluster's own controllers create (pods of workloads, replica sets,
// endpoints, leases), records (events) and views of other data (metrics).
var skippedNamespacedResources = map[schema.GroupResource]bool{
	{Group: "", Resource: "events"}:                                        true,
	{Group: "events.k8s.io", Resource: "events"}:                           true,
	{Group: "", Resource: "pods"}:                                          true,
	{Group: "", Resource: "endpoints"}:                                     true,
	{Group: "", Resource: "bindings"}:                                      true,
	{Group: "apps", Resource: "replicasets"}:                               true,
	{Group: "apps", Resource: "controllerrevisions"}:                       true,
	{Group: "discovery.k8s.io", Resource: "endpointslices"}:                true,
	{Group: "coordination.k8s.io", Resource: "leases"}:                     true,
	{Group: "authorization.k8s.io", Resource: "localsubjectaccessreviews"}: true,
}

func skipNamespacedResource(gr schema.GroupResource) bool {
	if gr == resourceEnvelopes {
		// The one fleet kind a Namespace carries to members, as in Kubefleet: the objects in it.
		return false
	}
	return skippedNamespacedResources[gr] || isFleetGroup(gr.Group) || gr.Group == "metrics.k8s.io"
}

var resourceEnvelopes = schema.GroupResource{Group: placementv1beta1.GroupName, Resource: "resourceenvelopes"}

// skipObject reports whether a selected object stays on the hub: it is being deleted, or every
// cluster makes its own (the kube-root-ca.crt ConfigMap, the default ServiceAccount and the
// tokens of service accounts), or a controller owns it on the hub.
func skipObject(o *unstructured.Unstructured) bool {
	if o.GetDeletionTimestamp() != nil {
		return true
	}
	gvk := o.GroupVersionKind()
	switch {
	case gvk.Group == "" && gvk.Kind == "ConfigMap":
		return o.GetName() == "kube-root-ca.crt"
	case gvk.Group == "" && gvk.Kind == "ServiceAccount":
		return o.GetName() == "default"
	case gvk.Group == "" && gvk.Kind == "Secret":
		t, _, _ := unstructured.NestedString(o.Object, "type")
		return t == string(corev1.SecretTypeServiceAccountToken)
	case gvk.Group == "apps" && (gvk.Kind == "ReplicaSet" || gvk.Kind == "ControllerRevision"):
		return len(o.GetOwnerReferences()) > 0
	case gvk.Group == "discovery.k8s.io" && gvk.Kind == "EndpointSlice":
		_, managed := o.GetLabels()["endpointslice.kubernetes.io/managed-by"]
		return managed
	}
	return false
}

// reservedNamespace reports whether a namespace belongs to the hub itself and is never placed.
func reservedNamespace(name string) bool {
	return name == "default" || strings.HasPrefix(name, "kube-") || strings.HasPrefix(name, "fleet-")
}

// discoveryCache remembers, for a while, which namespaced kinds the hub serves that a selected
// Namespace carries. Discovery is a dozen requests; a placement reconcile should not pay them.
type discoveryCache struct {
	client discovery.DiscoveryInterface
	ttl    time.Duration

	mu      sync.Mutex
	fetched time.Time
	kinds   []schema.GroupVersionKind
}

// namespacedKinds returns the listable namespaced kinds a Namespace carries, in their preferred
// versions, sorted.
func (d *discoveryCache) namespacedKinds(now time.Time) ([]schema.GroupVersionKind, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.kinds != nil && now.Sub(d.fetched) < d.ttl {
		return d.kinds, nil
	}
	lists, err := discovery.ServerPreferredNamespacedResources(d.client)
	// An aggregated API that is down fails its group only; the others are still good.
	if err != nil && !discovery.IsGroupDiscoveryFailedError(err) {
		return nil, err
	}
	kinds := []schema.GroupVersionKind{}
	for _, l := range lists {
		gv, err := schema.ParseGroupVersion(l.GroupVersion)
		if err != nil {
			continue
		}
		for _, res := range l.APIResources {
			if strings.Contains(res.Name, "/") || !slices.Contains(res.Verbs, "list") ||
				skipNamespacedResource(schema.GroupResource{Group: gv.Group, Resource: res.Name}) {
				continue
			}
			kinds = append(kinds, gv.WithKind(res.Kind))
		}
	}
	slices.SortFunc(kinds, func(a, b schema.GroupVersionKind) int { return strings.Compare(a.String(), b.String()) })
	d.kinds, d.fetched = kinds, now
	return kinds, nil
}

// namespaceContentKinds are the namespaced kinds watched for Namespaces whose contents are
// selected, so that an edit reaches the snapshot at once. Other kinds are caught by the resync.
var namespaceContentKinds = []schema.GroupVersionKind{
	{Version: "v1", Kind: "ConfigMap"},
	{Version: "v1", Kind: "Secret"},
	{Version: "v1", Kind: "Service"},
	{Version: "v1", Kind: "ServiceAccount"},
	{Version: "v1", Kind: "PersistentVolumeClaim"},
	{Group: "apps", Version: "v1", Kind: "Deployment"},
	{Group: "apps", Version: "v1", Kind: "StatefulSet"},
	{Group: "apps", Version: "v1", Kind: "DaemonSet"},
	{Group: "batch", Version: "v1", Kind: "Job"},
	{Group: "batch", Version: "v1", Kind: "CronJob"},
	{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "Role"},
	{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "RoleBinding"},
	{Group: "networking.k8s.io", Version: "v1", Kind: "Ingress"},
	{Group: "networking.k8s.io", Version: "v1", Kind: "NetworkPolicy"},
	placementv1beta1.GroupVersion.WithKind(placementv1beta1.ResourceEnvelopeKind),
}
