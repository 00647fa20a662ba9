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

package fleetsim

import (
	"slices"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// resourceType is one resource a virtual cluster serves: a built-in one, or one a
// CustomResourceDefinition added. Values are never changed once made (a changed CRD makes a new
// one), so they may be read without a lock.
type resourceType struct {
	group, resource          string
	kind, listKind, singular string
	// versions are the versions served; objects are stored in storageVersion and differ
	// between versions by their apiVersion only (no conversion is simulated).
	versions       []string
	storageVersion string
	namespaced     bool
	// status says the resource has a status subresource: writes to the resource keep the
	// stored status, writes to /status change nothing else.
	status     bool
	shortNames []string
	categories []string
	builtin    bool
}

func (t *resourceType) groupResource() schema.GroupResource {
	return schema.GroupResource{Group: t.group, Resource: t.resource}
}

func (t *resourceType) groupVersionKind(version string) schema.GroupVersionKind {
	return schema.GroupVersionKind{Group: t.group, Version: version, Kind: t.kind}
}

func (t *resourceType) apiVersion(version string) string {
	return schema.GroupVersion{Group: t.group, Version: version}.String()
}

func (t *resourceType) serves(version string) bool { return slices.Contains(t.versions, version) }

// Resources served by every virtual cluster, in the order discovery lists them.
var builtinTypes = []*resourceType{
	builtin("", "v1", "namespaces", "Namespace", false, true, "ns"),
	builtin("", "v1", "configmaps", "ConfigMap", true, false, "cm"),
	builtin("", "v1", "secrets", "Secret", true, false),
	builtin("", "v1", "services", "Service", true, true, "svc").inAll(),
	builtin("", "v1", "serviceaccounts", "ServiceAccount", true, false, "sa"),
	builtin("", "v1", "pods", "Pod", true, true, "po").inAll(),
	builtin("", "v1", "events", "Event", true, false, "ev"),
	builtin("apps", "v1", "deployments", "Deployment", true, true, "deploy").inAll(),
	builtin("apps", "v1", "statefulsets", "StatefulSet", true, true, "sts").inAll(),
	builtin("apps", "v1", "daemonsets", "DaemonSet", true, true, "ds").inAll(),
	builtin("apps", "v1", "replicasets", "ReplicaSet", true, true, "rs").inAll(),
	builtin("batch", "v1", "jobs", "Job", true, true).inAll(),
	builtin("policy", "v1", "poddisruptionbudgets", "PodDisruptionBudget", true, true, "pdb"),
	builtin("rbac.authorization.k8s.io", "v1", "roles", "Role", true, false),
	builtin("rbac.authorization.k8s.io", "v1", "rolebindings", "RoleBinding", true, false),
	builtin("rbac.authorization.k8s.io", "v1", "clusterroles", "ClusterRole", false, false),
	builtin("rbac.authorization.k8s.io", "v1", "clusterrolebindings", "ClusterRoleBinding", false, false),
	builtin("apiextensions.k8s.io", "v1", "customresourcedefinitions", "CustomResourceDefinition", false, true, "crd", "crds"),
}

func builtin(group, version, resource, kind string, namespaced, status bool, shortNames ...string) *resourceType {
	return &resourceType{
		group: group, resource: resource, kind: kind, listKind: kind + "List", singular: lower(kind),
		versions: []string{version}, storageVersion: version,
		namespaced: namespaced, status: status, shortNames: shortNames, builtin: true,
	}
}

func (t *resourceType) inAll() *resourceType {
	t.categories = []string{"all"}
	return t
}

var builtinByGroupResource = func() map[schema.GroupResource]*resourceType {
	m := map[schema.GroupResource]*resourceType{}
	for _, t := range builtinTypes {
		m[t.groupResource()] = t
	}
	return m
}()

// Group resources the simulator itself acts on.
var (
	namespacesResource = schema.GroupResource{Resource: "namespaces"}
	servicesResource   = schema.GroupResource{Resource: "services"}
	secretsResource    = schema.GroupResource{Resource: "secrets"}
	podsResource       = schema.GroupResource{Resource: "pods"}
	crdResource        = schema.GroupResource{Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions"}
)

// resourceType returns what the cluster serves at group/version/resource, or nil.
func (c *Cluster) resourceType(group, version, resource string) *resourceType {
	gr := schema.GroupResource{Group: group, Resource: resource}
	if t := builtinByGroupResource[gr]; t != nil {
		if t.serves(version) {
			return t
		}
		return nil
	}
	c.mu.Lock()
	var t *resourceType
	if c.data != nil {
		t = c.data.custom[gr]
	}
	c.mu.Unlock()
	if t == nil || !t.serves(version) {
		return nil
	}
	return t
}

// typeOf returns the resource type of gr while the cluster is locked.
func (d *clusterData) typeOf(gr schema.GroupResource) *resourceType {
	if t := builtinByGroupResource[gr]; t != nil {
		return t
	}
	return d.custom[gr]
}

// lower lower-cases ASCII, as Kubernetes derives singular names from kinds.
func lower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
