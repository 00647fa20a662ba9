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

package override

import (
	"encoding/json"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
)

func obj(t *testing.T, doc string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON([]byte(doc)); err != nil {
		t.Fatal(err)
	}
	return u
}

const (
	deploy = `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"app","labels":{"a":"b"}},"spec":{"replicas":1}}`
	ns     = `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"app"}}`
	role   = `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"reader","labels":{}},"rules":[]}`
)

func all() *placementv1beta1.ClusterSelector { return &placementv1beta1.ClusterSelector{} }

func byLabel(k, v string) *placementv1beta1.ClusterSelector {
	return &placementv1beta1.ClusterSelector{ClusterSelectorTerms: []placementv1beta1.ClusterSelectorTerm{
		{LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{k: v}}},
	}}
}

func patch(op, path, value string) placementv1beta1.JSONPatchOverride {
	p := placementv1beta1.JSONPatchOverride{Operator: placementv1beta1.JSONPatchOverrideOperator(op), Path: path}
	if value != "" {
		p.Value = apiextensionsv1.JSON{Raw: []byte(value)}
	}
	return p
}

func rule(sel *placementv1beta1.ClusterSelector, patches ...placementv1beta1.JSONPatchOverride) placementv1beta1.OverrideRule {
	return placementv1beta1.OverrideRule{ClusterSelector: sel, OverrideType: placementv1beta1.JSONPatchOverrideType, JSONPatchOverrides: patches}
}

func deleteRule(sel *placementv1beta1.ClusterSelector) placementv1beta1.OverrideRule {
	return placementv1beta1.OverrideRule{ClusterSelector: sel, OverrideType: placementv1beta1.DeleteOverrideType}
}

func ro(name string, rules ...placementv1beta1.OverrideRule) *placementv1beta1.ResourceOverrideSnapshot {
	return &placementv1beta1.ResourceOverrideSnapshot{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "app"},
		Spec: placementv1beta1.ResourceOverrideSnapshotSpec{OverrideSpec: placementv1beta1.ResourceOverrideSpec{
			ResourceSelectors: []placementv1beta1.ResourceSelector{{Group: "apps", Version: "v1", Kind: "Deployment", Name: "web"}},
			Policy:            &placementv1beta1.OverridePolicy{OverrideRules: rules},
		}},
	}
}

func cro(name string, sel placementv1beta1.ResourceSelectorTerm, rules ...placementv1beta1.OverrideRule) *placementv1beta1.ClusterResourceOverrideSnapshot {
	return &placementv1beta1.ClusterResourceOverrideSnapshot{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: placementv1beta1.ClusterResourceOverrideSnapshotSpec{OverrideSpec: placementv1beta1.ClusterResourceOverrideSpec{
			ClusterResourceSelectors: []placementv1beta1.ResourceSelectorTerm{sel},
			Policy:                   &placementv1beta1.OverridePolicy{OverrideRules: rules},
		}},
	}
}

var (
	nsTerm   = placementv1beta1.ResourceSelectorTerm{Version: "v1", Kind: "Namespace", Name: "app"}
	roleTerm = placementv1beta1.ResourceSelectorTerm{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "ClusterRole", Name: "reader"}
)

func TestApply(t *testing.T) {
	east := Cluster{Name: "east", Labels: map[string]string{"env": "prod", "region": "us-east"}}
	for _, tc := range []struct {
		name    string
		snaps   Snapshots
		cluster Cluster
		// want holds, per object left, a JSON fragment it must contain; wantErr a fragment of
		// the error.
		want    []string
		wantErr string
	}{
		{name: "no overrides leave the objects", cluster: east, want: []string{`"replicas":1`, `"kind":"ClusterRole"`}},
		{name: "cluster name variable", cluster: east,
			snaps: Snapshots{Namespaced: []*placementv1beta1.ResourceOverrideSnapshot{ro("ro-0",
				rule(all(), patch("add", "/metadata/labels/cluster", `"${MEMBER-CLUSTER-NAME}"`)))}},
			want: []string{`"cluster":"east"`, `"kind":"ClusterRole"`}},
		{name: "label variable inside a string", cluster: east,
			snaps: Snapshots{Namespaced: []*placementv1beta1.ResourceOverrideSnapshot{ro("ro-0",
				rule(all(), patch("add", "/metadata/annotations", `{"where":"${MEMBER-CLUSTER-LABEL-KEY-region}-${MEMBER-CLUSTER-LABEL-KEY-env}"}`)))}},
			want: []string{`"where":"us-east-prod"`, `"kind":"ClusterRole"`}},
		{name: "rules apply in order, the later wins", cluster: east,
			snaps: Snapshots{Namespaced: []*placementv1beta1.ResourceOverrideSnapshot{ro("ro-0",
				rule(all(), patch("replace", "/spec/replicas", "3")),
				rule(byLabel("env", "prod"), patch("replace", "/spec/replicas", "5")))}},
			want: []string{`"replicas":5`, `"kind":"ClusterRole"`}},
		{name: "a rule whose selector does not match is skipped", cluster: east,
			snaps: Snapshots{Namespaced: []*placementv1beta1.ResourceOverrideSnapshot{ro("ro-0",
				rule(byLabel("env", "dev"), patch("replace", "/spec/replicas", "3")))}},
			want: []string{`"replicas":1`, `"kind":"ClusterRole"`}},
		{name: "a rule without clusterSelector matches no cluster", cluster: east,
			snaps: Snapshots{Namespaced: []*placementv1beta1.ResourceOverrideSnapshot{ro("ro-0",
				rule(nil, patch("replace", "/spec/replicas", "3")))}},
			want: []string{`"replicas":1`, `"kind":"ClusterRole"`}},
		{name: "delete keeps the object off the cluster", cluster: east,
			snaps: Snapshots{Namespaced: []*placementv1beta1.ResourceOverrideSnapshot{ro("ro-0", deleteRule(all()))}},
			want:  []string{`"kind":"ClusterRole"`}},
		{name: "a cluster override selects a namespaced object through its namespace", cluster: east,
			snaps: Snapshots{Cluster: []*placementv1beta1.ClusterResourceOverrideSnapshot{cro("cro-0", nsTerm,
				rule(all(), patch("add", "/metadata/labels/team", `"blue"`)))}},
			want: []string{`"team":"blue"`, `"kind":"ClusterRole"`}},
		{name: "cluster override on a cluster-scoped object, then the resource override", cluster: east,
			snaps: Snapshots{
				Cluster: []*placementv1beta1.ClusterResourceOverrideSnapshot{cro("cro-0", roleTerm,
					rule(all(), patch("add", "/metadata/labels/x", `"y"`)))},
				Namespaced: []*placementv1beta1.ResourceOverrideSnapshot{ro("ro-0",
					rule(all(), patch("replace", "/spec/replicas", "2")))}},
			want: []string{`"replicas":2`, `"x":"y"`}},
		{name: "remove", cluster: east,
			snaps: Snapshots{Namespaced: []*placementv1beta1.ResourceOverrideSnapshot{ro("ro-0",
				rule(all(), patch("remove", "/metadata/labels/a", "")))}},
			want: []string{`"spec":{"replicas":1}`, `"kind":"ClusterRole"`}},
		{name: "a path that does not exist", cluster: east,
			snaps: Snapshots{Namespaced: []*placementv1beta1.ResourceOverrideSnapshot{ro("ro-0",
				rule(all(), patch("replace", "/spec/nothere", "1")))}},
			wantErr: `ResourceOverrideSnapshot "ro-0" failed to apply on Deployment "web" in namespace "app": replace operation does not apply: doc is missing key: /spec/nothere`},
		{name: "a label the cluster lacks", cluster: east,
			snaps: Snapshots{Namespaced: []*placementv1beta1.ResourceOverrideSnapshot{ro("ro-0",
				rule(all(), patch("add", "/metadata/labels/zone", `"${MEMBER-CLUSTER-LABEL-KEY-zone}"`)))}},
			wantErr: `ResourceOverrideSnapshot "ro-0" failed to apply on Deployment "web" in namespace "app": label key zone not found on cluster east`},
		{name: "a label variable without its closing bracket", cluster: east,
			snaps: Snapshots{Namespaced: []*placementv1beta1.ResourceOverrideSnapshot{ro("ro-0",
				rule(all(), patch("add", "/metadata/labels/zone", `"${MEMBER-CLUSTER-LABEL-KEY-zone"`)))}},
			wantErr: "is missing the closing bracket `}`"},
		{name: "a status path is refused", cluster: east,
			snaps: Snapshots{Namespaced: []*placementv1beta1.ResourceOverrideSnapshot{ro("ro-0",
				rule(all(), patch("replace", "/status/x", "1")))}},
			wantErr: `ResourceOverrideSnapshot "ro-0" in namespace "app" is invalid: invalid JSONPatchOverride {op:replace path:/status/x value:1}: cannot override status fields`},
		{name: "metadata other than labels and annotations is refused", cluster: east,
			snaps: Snapshots{Cluster: []*placementv1beta1.ClusterResourceOverrideSnapshot{cro("cro-0", roleTerm,
				rule(all(), patch("replace", "/metadata/name", `"x"`)))}},
			wantErr: "cannot override metadata fields except annotations and labels"},
		{name: "property selectors are refused", cluster: east,
			snaps: Snapshots{Namespaced: []*placementv1beta1.ResourceOverrideSnapshot{ro("ro-0",
				rule(&placementv1beta1.ClusterSelector{ClusterSelectorTerms: []placementv1beta1.ClusterSelectorTerm{
					{PropertySelector: &placementv1beta1.PropertySelector{}}}}, patch("replace", "/spec/replicas", "1")))}},
			wantErr: "only labelSelector is supported"},
		{name: "delete with patches is refused", cluster: east,
			snaps: Snapshots{Namespaced: []*placementv1beta1.ResourceOverrideSnapshot{ro("ro-0",
				placementv1beta1.OverrideRule{ClusterSelector: all(), OverrideType: placementv1beta1.DeleteOverrideType,
					JSONPatchOverrides: []placementv1beta1.JSONPatchOverride{patch("add", "/spec/x", "1")}})}},
			wantErr: "JSONPatchOverrides cannot be set when the override type is Delete"},
		{name: "a JSONPatch rule without patches is refused", cluster: east,
			snaps:   Snapshots{Namespaced: []*placementv1beta1.ResourceOverrideSnapshot{ro("ro-0", rule(all()))}},
			wantErr: "JSONPatchOverrides cannot be empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := []*unstructured.Unstructured{obj(t, deploy), obj(t, role)}
			before, _ := json.Marshal(in)
			got, err := Apply(tc.snaps, tc.cluster, in)
			if after, _ := json.Marshal(in); string(after) != string(before) {
				t.Errorf("the objects given were modified")
			}
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("%d objects left, want %d", len(got), len(tc.want))
			}
			for i, w := range tc.want {
				j, _ := got[i].MarshalJSON()
				if !strings.Contains(string(j), w) {
					t.Errorf("object %d is %s, want it to contain %s", i, j, w)
				}
			}
		})
	}
}

func TestMatches(t *testing.T) {
	c := Cluster{Name: "c", Labels: map[string]string{"env": "prod"}}
	for _, tc := range []struct {
		name string
		sel  *placementv1beta1.ClusterSelector
		want bool
	}{
		{"nil selector matches nothing", nil, false},
		{"no terms match everything", all(), true},
		{"a matching term", byLabel("env", "prod"), true},
		{"no matching term", byLabel("env", "dev"), false},
		{"a term without label selector matches nothing", &placementv1beta1.ClusterSelector{ClusterSelectorTerms: []placementv1beta1.ClusterSelectorTerm{{}}}, false},
		{"terms are ORed", &placementv1beta1.ClusterSelector{ClusterSelectorTerms: append(byLabel("env", "dev").ClusterSelectorTerms, byLabel("env", "prod").ClusterSelectorTerms...)}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Matches(placementv1beta1.OverrideRule{ClusterSelector: tc.sel}, c)
			if err != nil || got != tc.want {
				t.Fatalf("Matches = %v, %v; want %v", got, err, tc.want)
			}
		})
	}
}

func TestApplicableAndForCluster(t *testing.T) {
	objs := []*unstructured.Unstructured{obj(t, ns), obj(t, deploy)}
	named := func(s *placementv1beta1.ResourceOverrideSnapshot, ref *placementv1beta1.PlacementRef) *placementv1beta1.ResourceOverrideSnapshot {
		s.Spec.OverrideSpec.Placement = ref
		return s
	}
	ros := []*placementv1beta1.ResourceOverrideSnapshot{
		ro("ro-b", rule(byLabel("env", "prod"), patch("replace", "/spec/replicas", "3"))),
		named(ro("ro-a", rule(all(), patch("replace", "/spec/replicas", "3"))), &placementv1beta1.PlacementRef{Name: "crp"}),
		named(ro("ro-other", rule(all(), patch("replace", "/spec/replicas", "3"))), &placementv1beta1.PlacementRef{Name: "other"}),
		named(ro("ro-rp", rule(all(), patch("replace", "/spec/replicas", "3"))), &placementv1beta1.PlacementRef{Name: "crp", Scope: placementv1beta1.NamespaceScoped}),
	}
	ros[0].Spec.OverrideSpec.ResourceSelectors[0].Name = "web"
	cros := []*placementv1beta1.ClusterResourceOverrideSnapshot{
		cro("cro-ns", nsTerm, rule(nil, patch("add", "/metadata/labels/x", `"y"`))),
		cro("cro-role", roleTerm, rule(all(), patch("add", "/metadata/labels/x", `"y"`))),
	}
	s := Applicable("crp", objs, cros, ros)
	if len(s.Cluster) != 1 || s.Cluster[0].Name != "cro-ns" {
		t.Errorf("cluster overrides %v, want cro-ns only (the ClusterRole is not placed)", s.Cluster)
	}
	if len(s.Namespaced) != 2 {
		t.Fatalf("resource overrides %d, want ro-b and ro-a", len(s.Namespaced))
	}
	if rp := Applicable(PlacementKey("app", "crp"), objs, nil, ros); len(rp.Namespaced) != 2 || rp.Namespaced[1].Name != "ro-rp" {
		t.Errorf("for the ResourcePlacement app/crp: %v, want ro-b and ro-rp", rp.Namespaced)
	}

	prod, err := s.ForCluster(Cluster{Name: "p", Labels: map[string]string{"env": "prod"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(prod.Cluster) != 0 || len(prod.Namespaced) != 2 || prod.Namespaced[0].Name != "ro-a" {
		t.Errorf("prod gets %+v, want ro-a then ro-b and no cluster override (its rule selects no cluster)", prod)
	}
	dev, _ := s.ForCluster(Cluster{Name: "d", Labels: map[string]string{"env": "dev"}})
	if !dev.Equal(nil, []placementv1beta1.NamespacedName{{Namespace: "app", Name: "ro-a"}}) {
		t.Errorf("dev gets %+v, want ro-a only", dev)
	}
}

func TestValidateClusterSelectors(t *testing.T) {
	for _, tc := range []struct {
		name    string
		sel     []placementv1beta1.ResourceSelectorTerm
		wantErr string
	}{
		{name: "by name", sel: []placementv1beta1.ResourceSelectorTerm{nsTerm, roleTerm}},
		{name: "a label selector", sel: []placementv1beta1.ResourceSelectorTerm{{Version: "v1", Kind: "Namespace", LabelSelector: &metav1.LabelSelector{}}},
			wantErr: "label selector is not supported for resource selection"},
		{name: "no name", sel: []placementv1beta1.ResourceSelectorTerm{{Version: "v1", Kind: "Namespace"}},
			wantErr: "resource name is required for resource selection"},
		{name: "twice", sel: []placementv1beta1.ResourceSelectorTerm{nsTerm, nsTerm}, wantErr: "already exists, and must be unique"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := ValidateClusterSelectors(tc.sel)
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Fatalf("error %v, want %q", err, tc.wantErr)
			}
		})
	}
}
