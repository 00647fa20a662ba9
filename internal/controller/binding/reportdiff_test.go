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

package binding

import (
	"reflect"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/deploy/manifests"
)

// TestDiffedPlacements: a dry run's differences become Kubefleet's diffedPlacements: a missing
// resource as the whole object, a changed one field by field with the generation it has on the
// cluster; what is not a resource of the snapshot is left out, and first-seen times are kept.
func TestDiffedPlacements(t *testing.T) {
	cm := func(name string) manifests.Object {
		u := &unstructured.Unstructured{}
		u.SetAPIVersion("v1")
		u.SetKind("ConfigMap")
		u.SetNamespace("ns")
		u.SetName(name)
		return manifests.Object{Manifest: u}
	}
	ref := func(name string) manifests.ObjectRef {
		return manifests.ObjectRef{Version: "v1", Kind: "ConfigMap", Namespace: "ns", Name: name}
	}
	id := func(name string) placementv1beta1.ResourceIdentifier {
		return placementv1beta1.ResourceIdentifier{Version: "v1", Kind: "ConfigMap", Namespace: "ns", Name: name}
	}
	earlier, now := metav1.NewTime(time.Unix(100, 0)), metav1.NewTime(time.Unix(200, 0))
	diffs := []manifests.Diff{
		{Object: manifests.ObjectRef{Version: "v1", Kind: "Namespace", Name: "ns"}, Action: manifests.DiffCreate},
		{Object: ref("missing"), Action: manifests.DiffCreate},
		{Object: ref("changed"), Action: manifests.DiffUpdate, LiveGeneration: 0,
			Fields: []manifests.FieldChange{{Path: "/data/key", Live: `"a"`, Desired: `"b"`}}},
		{Object: ref("gone"), Action: manifests.DiffDelete},
	}
	previous := []placementv1beta1.DiffedResourcePlacement{{ResourceIdentifier: id("changed"), FirstDiffedObservedTime: earlier}}
	got := diffedPlacements(diffs, []manifests.Object{cm("missing"), cm("changed")}, previous, now)
	zero := int64(0)
	want := []placementv1beta1.DiffedResourcePlacement{
		{ResourceIdentifier: id("missing"), ObservationTime: now, FirstDiffedObservedTime: now,
			ObservedDiffs: []placementv1beta1.PatchDetail{{Path: "/", ValueInHub: "(the whole object)"}}},
		{ResourceIdentifier: id("changed"), ObservationTime: now, FirstDiffedObservedTime: earlier, TargetClusterObservedGeneration: &zero,
			ObservedDiffs: []placementv1beta1.PatchDetail{{Path: "/data/key", ValueInMember: `"a"`, ValueInHub: `"b"`}}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
}
