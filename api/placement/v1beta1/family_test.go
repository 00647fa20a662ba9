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
	"reflect"
	"testing"
)

// TestFamilyKindsMatchTypes checks that every kind name a family gives is the Go type of the
// object it makes, and that FamilyOf maps each object back to its family.
func TestFamilyKindsMatchTypes(t *testing.T) {
	for _, f := range Families() {
		for kind, obj := range map[string]any{
			f.PlacementKind():        f.NewPlacement(),
			f.ResourceSnapshotKind(): f.NewResourceSnapshot(),
			f.PolicySnapshotKind():   f.NewPolicySnapshot(),
			f.BindingKind():          f.NewBinding(),
			f.UpdateStrategyKind():   f.NewUpdateStrategy(),
			f.UpdateRunKind():        f.NewUpdateRun(),
			f.ApprovalRequestKind():  f.NewApprovalRequest(),
		} {
			if got := reflect.TypeOf(obj).Elem().Name(); got != kind {
				t.Errorf("family %+v: kind %s makes a %s", f, kind, got)
			}
			if FamilyOf(obj) != f {
				t.Errorf("FamilyOf(%s) = %+v, want %+v", kind, FamilyOf(obj), f)
			}
		}
		for kind, list := range map[string]any{
			f.PlacementKind():        f.NewPlacementList(),
			f.ResourceSnapshotKind(): f.NewResourceSnapshotList(),
			f.PolicySnapshotKind():   f.NewPolicySnapshotList(),
			f.BindingKind():          f.NewBindingList(),
			f.UpdateRunKind():        f.NewUpdateRunList(),
		} {
			if got := reflect.TypeOf(list).Elem().Name(); got != kind+"List" {
				t.Errorf("family %+v: kind %s makes a %s", f, kind, got)
			}
		}
	}
}

// TestListItemsAreTheItems checks that the list accessors hand out the items themselves, so a
// change through one is a change to the list.
func TestListItemsAreTheItems(t *testing.T) {
	l := &ResourceBindingList{Items: []ResourceBinding{{}, {}}}
	objs := l.BindingObjs()
	objs[1].BindingSpec().TargetCluster = "member-2"
	if len(objs) != 2 || l.Items[1].Spec.TargetCluster != "member-2" {
		t.Fatalf("BindingObjs does not alias the items: %+v", l.Items)
	}
}

func TestDescribeAndKey(t *testing.T) {
	if got := ClusterFamily.Describe("ClusterResourcePlacement", "ignored", "web"); got != "ClusterResourcePlacement web" {
		t.Errorf("cluster: %q", got)
	}
	if got := NamespacedFamily.Describe("ResourcePlacement", "team-a", "web"); got != "ResourcePlacement team-a/web" {
		t.Errorf("namespaced: %q", got)
	}
	if k := ClusterFamily.Key("team-a", "web"); k.Namespace != "" || k.Name != "web" {
		t.Errorf("cluster key: %v", k)
	}
	if k := NamespacedFamily.Key("team-a", "web"); k.Namespace != "team-a" {
		t.Errorf("namespaced key: %v", k)
	}
}
