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

package render

import (
	"errors"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	clusterv1beta1 "github.com/stagecoach-dev/stagecoach/api/cluster/v1beta1"
	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/deploy/manifests"
	"github.com/stagecoach-dev/stagecoach/internal/scheme"
)

// TestBindingOverrides: a binding's override snapshots are applied with its cluster's labels; a
// snapshot that is gone or a label the cluster lacks is an OverriddenFailed InputError.
func TestBindingOverrides(t *testing.T) {
	ro := &placementv1beta1.ResourceOverrideSnapshot{ObjectMeta: metav1.ObjectMeta{Name: "ro-0", Namespace: "app"}}
	ro.Spec.OverrideSpec.ResourceSelectors = []placementv1beta1.ResourceSelector{{Version: "v1", Kind: "ConfigMap", Name: "cm"}}
	ro.Spec.OverrideSpec.Policy = &placementv1beta1.OverridePolicy{OverrideRules: []placementv1beta1.OverrideRule{{
		ClusterSelector: &placementv1beta1.ClusterSelector{},
		JSONPatchOverrides: []placementv1beta1.JSONPatchOverride{{Operator: "add", Path: "/data/region",
			Value: apiextensionsv1.JSON{Raw: []byte(`"${MEMBER-CLUSTER-LABEL-KEY-region}"`)}}},
	}}}
	east := &clusterv1beta1.MemberCluster{ObjectMeta: metav1.ObjectMeta{Name: "east", Labels: map[string]string{"region": "us-east"}}}
	west := &clusterv1beta1.MemberCluster{ObjectMeta: metav1.ObjectMeta{Name: "west"}}
	c := fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(ro, east, west).Build()
	cm := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "cm", "namespace": "app"}, "data": map[string]any{"k": "v"}}}
	objs := []manifests.Object{{Manifest: cm, Source: "ClusterResourceSnapshot p-0-snapshot item 0"}}
	binding := func(cluster string, ros ...placementv1beta1.NamespacedName) placementv1beta1.BindingObj {
		b := &placementv1beta1.ClusterResourceBinding{}
		b.Spec.TargetCluster, b.Spec.ResourceOverrideSnapshots = cluster, ros
		return b
	}
	ref := placementv1beta1.NamespacedName{Namespace: "app", Name: "ro-0"}

	got, err := BindingOverrides(t.Context(), c, binding("east", ref), objs)
	if err != nil {
		t.Fatal(err)
	}
	if v, _, _ := unstructured.NestedString(got[0].Manifest.Object, "data", "region"); v != "us-east" || got[0].Source != objs[0].Source {
		t.Errorf("east gets %v from %q", got[0].Manifest.Object["data"], got[0].Source)
	}
	if _, ok := cm.Object["data"].(map[string]any)["region"]; ok {
		t.Error("the snapshot's object was modified")
	}
	if got, err := BindingOverrides(t.Context(), c, binding("east"), objs); err != nil || got[0].Manifest != cm {
		t.Errorf("without overrides: %v, %v", got, err)
	}
	for _, tc := range []struct {
		cluster string
		ref     placementv1beta1.NamespacedName
		want    string
	}{
		{"west", ref, `Failed to apply the override rules on the resources: ResourceOverrideSnapshot "ro-0" failed to apply on ConfigMap "cm" in namespace "app": label key region not found on cluster west`},
		{"east", placementv1beta1.NamespacedName{Namespace: "app", Name: "ro-9"}, "resourceOverrideSnapshot app/ro-9 is not found"},
	} {
		_, err := BindingOverrides(t.Context(), c, binding(tc.cluster, tc.ref), objs)
		var in *InputError
		if !errors.As(err, &in) || in.Reason != placementv1beta1.OverriddenFailedReason || !strings.Contains(in.Message, tc.want) {
			t.Errorf("%s: %v, want OverriddenFailed %q", tc.cluster, err, tc.want)
		}
	}
}
