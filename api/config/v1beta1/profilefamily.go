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

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
)

// ProfileObj is a ClusterProfile or a Profile: code that serves both reaches the spec and status
// through it and never branches on the concrete type; ProfileFamily picks the twin.
// +kubebuilder:object:generate=false
type ProfileObj interface {
	metav1.Object
	runtime.Object
	ProfileSpec() *Spec
	ProfileStatus() *Status
}

// ProfileObjList is a ClusterProfileList or a ProfileList.
// +kubebuilder:object:generate=false
type ProfileObjList interface {
	metav1.ListInterface
	runtime.Object
	ProfileObjs() []ProfileObj
}

// ProfileSpec returns the spec.
func (p *ClusterProfile) ProfileSpec() *Spec { return &p.Spec }

// ProfileStatus returns the status.
func (p *ClusterProfile) ProfileStatus() *Status { return &p.Status }

// ProfileSpec returns the spec.
func (p *Profile) ProfileSpec() *Spec { return &p.Spec }

// ProfileStatus returns the status.
func (p *Profile) ProfileStatus() *Status { return &p.Status }

// ProfileObjs returns the items.
func (l *ClusterProfileList) ProfileObjs() []ProfileObj {
	out := make([]ProfileObj, len(l.Items))
	for i := range l.Items {
		out[i] = &l.Items[i]
	}
	return out
}

// ProfileObjs returns the items.
func (l *ProfileList) ProfileObjs() []ProfileObj {
	out := make([]ProfileObj, len(l.Items))
	for i := range l.Items {
		out[i] = &l.Items[i]
	}
	return out
}

// ProfileFamily is ClusterProfile or its namespaced twin Profile, with the names Sveltos gives
// what each makes: the label and name of its ClusterSummaries, its finalizer.
// +kubebuilder:object:generate=false
type ProfileFamily struct {
	// Namespaced is true for Profile.
	Namespaced bool
}

var (
	// ClusterProfiles is the ClusterProfile family.
	ClusterProfiles = ProfileFamily{}
	// Profiles is the Profile family.
	Profiles = ProfileFamily{Namespaced: true}
)

// ProfileFamilies returns both, ClusterProfile first.
func ProfileFamilies() []ProfileFamily { return []ProfileFamily{ClusterProfiles, Profiles} }

// ProfileFamilyOf returns the family of a ClusterProfile or Profile.
func ProfileFamilyOf(obj any) ProfileFamily {
	switch obj.(type) {
	case *ClusterProfile, *ClusterProfileList:
		return ClusterProfiles
	case *Profile, *ProfileList:
		return Profiles
	}
	panic(fmt.Sprintf("%T is not a profile kind", obj))
}

func pickProfile[T any](f ProfileFamily, cluster, namespaced T) T {
	if f.Namespaced {
		return namespaced
	}
	return cluster
}

// Kind is ClusterProfile or Profile.
func (f ProfileFamily) Kind() string { return pickProfile(f, ClusterProfileKind, ProfileKind) }

// NameLabel is the label naming the profile on its ClusterSummaries.
func (f ProfileFamily) NameLabel() string {
	return pickProfile(f, ClusterProfileNameLabel, ProfileNameLabel)
}

// Finalizer is the profile's finalizer.
func (f ProfileFamily) Finalizer() string {
	return pickProfile(f, ClusterProfileFinalizer, ProfileFinalizer)
}

// SummaryName is the name of the profile's ClusterSummary for a SveltosCluster, as Sveltos names
// it: a Profile's carry a "p--" prefix, so that a ClusterProfile and a Profile of the same name
// never share one.
func (f ProfileFamily) SummaryName(profile, cluster string) string {
	return pickProfile(f, "", "p--") + ClusterSummaryName(profile, cluster)
}

// Namespace is the namespace a profile of this family lives in, given the namespace it names:
// none for a ClusterProfile.
func (f ProfileFamily) Namespace(namespace string) string { return pickProfile(f, "", namespace) }

// Key is the key of the profile named namespace/name.
func (f ProfileFamily) Key(namespace, name string) types.NamespacedName {
	return types.NamespacedName{Namespace: f.Namespace(namespace), Name: name}
}

// Describe names a profile for people: "ClusterProfile x" or "Profile ns/x".
func (f ProfileFamily) Describe(namespace, name string) string {
	if f.Namespaced {
		return ProfileKind + " " + namespace + "/" + name
	}
	return ClusterProfileKind + " " + name
}

// NewProfile returns an empty ClusterProfile or Profile.
func (f ProfileFamily) NewProfile() ProfileObj {
	return pickProfile[ProfileObj](f, &ClusterProfile{}, &Profile{})
}

// NewProfileList returns an empty ClusterProfileList or ProfileList.
func (f ProfileFamily) NewProfileList() ProfileObjList {
	return pickProfile[ProfileObjList](f, &ClusterProfileList{}, &ProfileList{})
}

// SummaryProfile says which profile a ClusterSummary belongs to: its family and name, from its
// controller owner or else from the label its controller sets, and false for a summary with
// neither.
func SummaryProfile(cs *ClusterSummary) (ProfileFamily, string, bool) {
	if owner := metav1.GetControllerOf(cs); owner != nil && owner.APIVersion == GroupVersion.String() {
		switch owner.Kind {
		case ProfileKind:
			return Profiles, owner.Name, true
		case ClusterProfileKind:
			return ClusterProfiles, owner.Name, true
		}
	}
	if name, ok := cs.Labels[ProfileNameLabel]; ok {
		return Profiles, name, true
	}
	name, ok := cs.Labels[ClusterProfileNameLabel]
	return ClusterProfiles, name, ok
}
