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

// Package manifests deploys sets of Kubernetes objects to a managed cluster with server-side
// apply, and keeps track of them: an inventory on the managed cluster records what each owner
// deployed, so that objects dropped from the set are pruned and a withdrawn owner's objects are
// deleted, even after the controller restarts. Objects carry their owner and tier, which settles
// conflicts between owners deploying the same object (lower tier wins, as in Sveltos).
//
// It is shared by the ClusterProfile "Resources" feature (policyRefs) and Kubefleet placements.
package manifests

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
)

// FieldManager is the server-side apply field manager of everything this package writes. It is
// the same for every owner, so an owner taking an object over replaces the previous owner's
// configuration instead of merging with it.
const FieldManager = "stagecoach"

// Marks on every deployed object. The label holds a hash of the owner (owners are free text,
// labels are not); the annotation holds the owner itself and is the one that is trusted.
const (
	OwnerLabel      = "stagecoach.dev/owner"
	TierLabel       = "stagecoach.dev/tier"
	OwnerAnnotation = "stagecoach.dev/owner"
)

// DefaultTier is the tier of an owner that states none, as Sveltos defaults it.
const DefaultTier int32 = 100

// Options are the per-source options of an object (a PolicyRef's options in Sveltos).
type Options struct {
	// SkipNamespaceCreation leaves a missing namespace missing: the object then fails to apply.
	SkipNamespaceCreation bool
	// Force deletes and recreates the object when the server refuses an update because a field
	// is immutable.
	Force bool
	// Tier, when not zero, replaces the request's tier for this object (PolicyRef.tier).
	Tier int32
}

// Object is one object to deploy and where it came from.
type Object struct {
	Manifest *unstructured.Unstructured
	// Source names where the object came from, for messages: `ConfigMap default/app`.
	Source  string
	Options Options
}

// ObjectsOf wraps manifests from one source, all with the same options.
func ObjectsOf(manifests []*unstructured.Unstructured, source string, opts Options) []Object {
	objs := make([]Object, 0, len(manifests))
	for _, m := range manifests {
		objs = append(objs, Object{Manifest: m, Source: source, Options: opts})
	}
	return objs
}

// Request is what one owner wants deployed on one cluster.
type Request struct {
	// Owner identifies the deployer of the set, e.g. `ClusterSummary dev/foo-sveltos-dev:Resources`.
	// An owner's inventory and marks are keyed by this string: keep it stable.
	Owner string
	// Tier settles conflicts with other owners: the lower tier wins. Zero means DefaultTier.
	Tier int32
	// ContinueOnConflict deploys the rest of the set when some objects belong to a winning
	// owner; without it a conflict fails the request before anything is written.
	ContinueOnConflict bool
	// Objects is the complete desired set: what the owner deployed before and is not in it is
	// pruned.
	Objects []Object
	// DryRun changes nothing on the cluster and reports in Result.Diffs what Apply would do.
	DryRun bool
	// DriftExclusions name fields that are set when an object is created but never reverted
	// afterwards, and are not reported as drift. Sveltos honours them in
	// ContinuousWithDriftDetection mode only; callers pass them in that mode.
	DriftExclusions []libv1beta1.DriftExclusion

	// The options below carry Kubefleet's applyStrategy; their zero values are what Sveltos does.

	// Adopt says when an object found on the cluster without any owner's marks is taken over.
	Adopt Adoption
	// RefuseCoOwned leaves alone, with an error, an object that others own through
	// ownerReferences.
	RefuseCoOwned bool
	// NoForce applies without taking fields over from other field managers: an apply that would
	// change a field another manager owns fails, naming the conflict.
	NoForce bool
	// KeepDrift leaves an object changed on the cluster since this owner applied it, while its
	// manifest stayed the same, as it is: its apply fails, listing the drift. A changed manifest
	// is applied as usual.
	KeepDrift bool
	// FullComparison compares every field of an object with its manifest, fields no apply sets
	// (added on the cluster, or defaulted by its API server) included: drift, the IfNoDiff
	// check and dry-run differences see them. Without it only what applying would change counts.
	FullComparison bool
	// ContentOnly leaves the owner marks Apply would add out of dry-run differences: the
	// differences are those of the content, whoever deployed the object (Kubefleet's
	// ReportDiff).
	ContentOnly bool
}

// Adoption says when an object that exists on the cluster, deployed by no owner, is taken over.
type Adoption string

const (
	// AdoptAlways takes such an object over; the zero value.
	AdoptAlways Adoption = ""
	// AdoptIfNoDiff takes it over only if applying the manifest would change nothing.
	AdoptIfNoDiff Adoption = "IfNoDiff"
	// AdoptNever leaves it alone, with an error.
	AdoptNever Adoption = "Never"
)

// ObjectRef identifies a deployed object.
type ObjectRef struct {
	Group     string `json:"group,omitempty"`
	Version   string `json:"version"`
	Kind      string `json:"kind"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
}

// RefOf returns the reference of an object.
func RefOf(u *unstructured.Unstructured) ObjectRef {
	gvk := u.GroupVersionKind()
	return ObjectRef{Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind, Namespace: u.GetNamespace(), Name: u.GetName()}
}

// GroupVersionKind of the object.
func (r ObjectRef) GroupVersionKind() schema.GroupVersionKind {
	return schema.GroupVersionKind{Group: r.Group, Version: r.Version, Kind: r.Kind}
}

// GVK is the object's kind as Sveltos lists it in deployedGVKs: `Kind.version.group`, with an
// empty group for the core group (`Secret.v1.`).
func (r ObjectRef) GVK() string { return r.Kind + "." + r.Version + "." + r.Group }

// String names the object for people: `Deployment default/app`, `ClusterIssuer letsencrypt`.
func (r ObjectRef) String() string {
	if r.Namespace == "" {
		return r.Kind + " " + r.Name
	}
	return r.Kind + " " + r.Namespace + "/" + r.Name
}

// key identifies the object whatever API version it is read in.
func (r ObjectRef) key() string {
	return r.Group + "/" + r.Kind + "/" + r.Namespace + "/" + r.Name
}

// Result reports what Apply did, or with DryRun would do.
type Result struct {
	// Applied lists the objects applied, in the order they were: Namespaces, CRDs, the rest.
	Applied []ObjectRef
	// Pruned lists the objects deleted because they left the set.
	Pruned []ObjectRef
	// Conflicts lists the objects left alone because another owner with a winning tier has them.
	Conflicts []Conflict
	// Diffs, with DryRun only, says per object what Apply would do.
	Diffs []Diff
	// DeployedGVKs are the kinds deployed, `Kind.version.group`, in the order of the set (empty
	// with DryRun).
	DeployedGVKs []string
}

// Conflict is an object another owner deploys and wins.
type Conflict struct {
	Object ObjectRef
	// Owner and Tier are the other owner's.
	Owner   string
	Tier    int32
	Message string
}

// DiffAction is what Apply would do to one object. The values are those of Sveltos' DryRun
// reports.
type DiffAction string

// The actions a dry run reports.
const (
	DiffCreate   DiffAction = "Create"
	DiffUpdate   DiffAction = "Update"
	DiffDelete   DiffAction = "Delete"
	DiffConflict DiffAction = "Conflict"
)

// Diff is what Apply would do to one object. Objects Apply would leave as they are have none.
type Diff struct {
	Object ObjectRef
	Action DiffAction
	// Changes lists, for an Update, the changed fields from live to desired, one per line:
	// `+ path: value`, `- path: value`, `~ path: old -> new`. Secret values are redacted.
	Changes []string
	// Fields are the same changes with their paths and values apart.
	Fields  []FieldChange
	Message string
	// LiveGeneration is the object's generation on the cluster; zero when it is not there.
	LiveGeneration int64
}

// FieldChange is one field that differs between an object on the cluster and what applying
// its manifest gives.
type FieldChange struct {
	// Path is the field's JSON pointer: /spec/replicas.
	Path string
	// Live and Desired are the field's values, JSON-encoded (shortened, and "(redacted)" for
	// Secret data), on the cluster and as applied; empty where the field is absent.
	Live, Desired string
	// Text is the change as Diff.Changes words it.
	Text string
}

func (d Diff) String() string {
	s := fmt.Sprintf("%s %s", d.Action, d.Object)
	if d.Message != "" {
		s += ": " + d.Message
	}
	return s
}
