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

package v1beta1

// PatchSelector picks the objects a patch or a drift exclusion applies to. Every field that is
// set must match; an empty selector matches every object.
type PatchSelector struct {
	// Version of the objects' API group.
	// +optional
	Version string `json:"version,omitempty"`

	// Group of the objects ("" for the core group).
	// +optional
	Group string `json:"group,omitempty"`

	// Kind of the objects.
	// +optional
	Kind string `json:"kind,omitempty"`

	// Namespace of the objects.
	// +optional
	Namespace string `json:"namespace,omitempty"`

	// Name of the objects.
	// +optional
	Name string `json:"name,omitempty"`

	// AnnotationSelector is a label-selector expression (for example "team=payments,!legacy")
	// evaluated against the objects' annotations.
	// +optional
	AnnotationSelector string `json:"annotationSelector,omitempty"`

	// LabelSelector is a label-selector expression evaluated against the objects' labels.
	// +optional
	LabelSelector string `json:"labelSelector,omitempty"`
}

// Patch changes objects before they are deployed.
type Patch struct {
	// Patch is a strategic-merge patch (a partial object) or a JSON 6902 patch (a list of
	// operations). It may be a Go template, instantiated per cluster before use.
	Patch string `json:"patch"`

	// Target selects the objects to patch. Without it, a strategic-merge patch applies to the
	// object whose kind and name the patch itself carries.
	// +optional
	Target *PatchSelector `json:"target,omitempty"`
}

// DriftExclusion lists fields whose changes in a managed cluster are not treated as drift
// (syncMode ContinuousWithDriftDetection) and are not overwritten.
type DriftExclusion struct {
	// Paths are JSON 6902 paths (for example "/spec/replicas") to ignore.
	Paths []string `json:"paths"`

	// Target selects the objects the paths apply to; without it they apply to every object.
	// +optional
	Target *PatchSelector `json:"target,omitempty"`
}
