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

// Package availability decides whether an object applied to a cluster is available, with
// Kubefleet's rules: workloads when their replicas are up to date and available, Services when
// they have an address, CRDs when established, PodDisruptionBudgets when their status is current;
// data kinds (ConfigMaps, Secrets, RBAC, ...) at once; anything else cannot be tracked, which
// callers count as available.
package availability

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// State is the availability of one object.
type State string

const (
	// Available means the object does what it is for.
	Available State = "Available"
	// NotYetAvailable means the object is applied but not available yet; look again later.
	NotYetAvailable State = "NotYetAvailable"
	// NotTrackable means there is no rule for the object's kind. Kubefleet counts it as available.
	NotTrackable State = "NotTrackable"
)

// Result is the availability of one object and, when it is not available, what is missing, in
// words for a person: "1 of 2 replicas available".
type Result struct {
	State   State
	Message string
}

// OK reports whether the object counts as available: available or not trackable.
func (r Result) OK() bool { return r.State != NotYetAvailable }

func available() Result { return Result{State: Available} }
func notYet(f string, a ...any) Result {
	return Result{State: NotYetAvailable, Message: fmt.Sprintf(f, a...)}
}
func notTrackable(msg string) Result { return Result{State: NotTrackable, Message: msg} }
func untrackedKind(gk schema.GroupKind) Result {
	return notTrackable(fmt.Sprintf("the availability of a %s cannot be tracked", kindName(gk)))
}

// check decides the availability of a live object of one kind.
type check func(obj *unstructured.Unstructured) (Result, error)

// checks are the kinds whose availability depends on their state.
var checks = map[schema.GroupKind]check{
	{Group: "apps", Kind: "Deployment"}:                               deployment,
	{Group: "apps", Kind: "StatefulSet"}:                              statefulSet,
	{Group: "apps", Kind: "DaemonSet"}:                                daemonSet,
	{Group: "", Kind: "Service"}:                                      service,
	{Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition"}: crd,
	{Group: "policy", Kind: "PodDisruptionBudget"}:                    pdb,
	{Group: "batch", Kind: "Job"}:                                     job,
}

// dataKinds hold data or configuration and are available as soon as they exist.
var dataKinds = map[schema.GroupKind]bool{
	{Group: "", Kind: "Namespace"}:                                   true,
	{Group: "", Kind: "Secret"}:                                      true,
	{Group: "", Kind: "ConfigMap"}:                                   true,
	{Group: "", Kind: "ServiceAccount"}:                              true,
	{Group: "", Kind: "LimitRange"}:                                  true,
	{Group: "", Kind: "ResourceQuota"}:                               true,
	{Group: "rbac.authorization.k8s.io", Kind: "Role"}:               true,
	{Group: "rbac.authorization.k8s.io", Kind: "ClusterRole"}:        true,
	{Group: "rbac.authorization.k8s.io", Kind: "RoleBinding"}:        true,
	{Group: "rbac.authorization.k8s.io", Kind: "ClusterRoleBinding"}: true,
	{Group: "networking.k8s.io", Kind: "NetworkPolicy"}:              true,
	{Group: "networking.k8s.io", Kind: "IngressClass"}:               true,
	{Group: "storage.k8s.io", Kind: "CSIDriver"}:                     true,
	{Group: "storage.k8s.io", Kind: "CSINode"}:                       true,
	{Group: "storage.k8s.io", Kind: "StorageClass"}:                  true,
	{Group: "storage.k8s.io", Kind: "CSIStorageCapacity"}:            true,
	{Group: "apps", Kind: "ControllerRevision"}:                      true,
	{Group: "scheduling.k8s.io", Kind: "PriorityClass"}:              true,
}

// ForKind decides availability from the kind alone, when it can: data kinds are available and
// kinds without a rule are not trackable. It returns false for kinds that need Of, so callers
// read from the cluster only the objects whose state matters.
func ForKind(gk schema.GroupKind) (Result, bool) {
	if dataKinds[gk] {
		return available(), true
	}
	if _, ok := checks[gk]; ok {
		return Result{}, false
	}
	return untrackedKind(gk), true
}

// Of decides the availability of obj as read from the cluster it was applied to.
func Of(obj *unstructured.Unstructured) Result {
	gk := obj.GroupVersionKind().GroupKind()
	if r, ok := ForKind(gk); ok {
		return r
	}
	r, err := checks[gk](obj)
	if err != nil {
		// The server answered with something of the right kind but the wrong shape: say so
		// rather than wait for it forever.
		return notYet("its status cannot be read: %v", err)
	}
	return r
}

func kindName(gk schema.GroupKind) string {
	if gk.Group == "" {
		return gk.Kind
	}
	return gk.Kind + "." + gk.Group
}
