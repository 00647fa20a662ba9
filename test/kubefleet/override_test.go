//go:build e2e

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

package kubefleet

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
)

// jsonPatch is one JSONPatch override; value is JSON.
func jsonPatch(op, path, value string) placementv1beta1.JSONPatchOverride {
	p := placementv1beta1.JSONPatchOverride{Operator: placementv1beta1.JSONPatchOverrideOperator(op), Path: path}
	if value != "" {
		p.Value = apiextensionsv1.JSON{Raw: []byte(value)}
	}
	return p
}

// everyCluster is a clusterSelector without terms: every cluster.
func everyCluster() *placementv1beta1.ClusterSelector {
	return &placementv1beta1.ClusterSelector{ClusterSelectorTerms: []placementv1beta1.ClusterSelectorTerm{}}
}

func clustersLabelled(k, v string) *placementv1beta1.ClusterSelector {
	return &placementv1beta1.ClusterSelector{ClusterSelectorTerms: []placementv1beta1.ClusterSelectorTerm{
		{LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{k: v}}}}}
}

// resourceOverride overrides the object kind/name (core group unless apps) of ns with rules.
func resourceOverride(name, ns, group, kind, object string, rules ...placementv1beta1.OverrideRule) *placementv1beta1.ResourceOverride {
	ro := &placementv1beta1.ResourceOverride{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}}
	ro.Spec.ResourceSelectors = []placementv1beta1.ResourceSelector{{Group: group, Version: "v1", Kind: kind, Name: object}}
	ro.Spec.Policy = &placementv1beta1.OverridePolicy{OverrideRules: rules}
	return ro
}

// memberConfigMap reads a ConfigMap's data on a member.
func memberConfigMap(ctx context.Context, t *testing.T, m, ns, name string) (map[string]string, error) {
	cm, err := member(t, m).CoreV1().ConfigMaps(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", m, err)
	}
	return cm.Data, nil
}

// waitData waits until the ConfigMap ns/name on each member holds, at key, what want says.
func waitData(t *testing.T, ns, name, key string, want map[string]string) {
	t.Helper()
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		for m, v := range want {
			data, err := memberConfigMap(ctx, t, m, ns, name)
			if err != nil {
				return err
			}
			if data[key] != v {
				return fmt.Errorf("%s: %s=%q, want %q", m, key, data[key], v)
			}
		}
		return nil
	})
}

// updateOverride changes a ResourceOverride's rules and waits for its snapshot index.
func updateOverride(t *testing.T, ro *placementv1beta1.ResourceOverride, snapshot string, rules ...placementv1beta1.OverrideRule) {
	t.Helper()
	c := testenv.Client(t)
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		if err := c.Get(ctx, client.ObjectKeyFromObject(ro), ro); err != nil {
			return err
		}
		ro.Spec.Policy.OverrideRules = rules
		return c.Update(ctx, ro)
	})
	waitLatestOverrideSnapshot(t, ro.Namespace, snapshot)
}

func waitLatestOverrideSnapshot(t *testing.T, ns, name string) {
	t.Helper()
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		s := &placementv1beta1.ResourceOverrideSnapshot{}
		if err := testenv.Client(t).Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, s); err != nil {
			return err
		}
		if s.Labels[placementv1beta1.IsLatestSnapshotLabel] != "true" {
			return fmt.Errorf("%s is not the latest", name)
		}
		return nil
	})
}

// TestOverridesPerCluster: a RollingUpdate placement delivers one Deployment, and overrides give
// each member its own: a ResourceOverride labels it with the member's name and gives the canary
// clusters two replicas, a ClusterResourceOverride on the Namespace labels everything in it
// with the member's environment label. The bindings and the placement's status name the
// snapshots; an edit of the override rolls out to every member like a resource change.
func TestOverridesPerCluster(t *testing.T) {
	t.Parallel()
	c := testenv.Client(t)
	one := int32(1)
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ovr-each", Labels: map[string]string{"team": "a"}}}
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "ovr-each", Labels: map[string]string{"app": "web"}},
		Spec: appsv1.DeploymentSpec{Replicas: &one, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx:1.20"}}}}}}
	ro := resourceOverride("web-per-cluster", "ovr-each", "apps", "Deployment", "web",
		placementv1beta1.OverrideRule{ClusterSelector: everyCluster(), JSONPatchOverrides: []placementv1beta1.JSONPatchOverride{
			jsonPatch("add", "/metadata/labels/cluster", `"${MEMBER-CLUSTER-NAME}"`)}},
		placementv1beta1.OverrideRule{ClusterSelector: clustersLabelled("environment", "canary"), JSONPatchOverrides: []placementv1beta1.JSONPatchOverride{
			jsonPatch("replace", "/spec/replicas", "2")}})
	cro := &placementv1beta1.ClusterResourceOverride{ObjectMeta: metav1.ObjectMeta{Name: "ovr-each-env"}}
	cro.Spec.Placement = &placementv1beta1.PlacementRef{Name: "ovr-each"}
	cro.Spec.ClusterResourceSelectors = []placementv1beta1.ResourceSelectorTerm{{Version: "v1", Kind: "Namespace", Name: "ovr-each"}}
	cro.Spec.Policy = &placementv1beta1.OverridePolicy{OverrideRules: []placementv1beta1.OverrideRule{{ClusterSelector: everyCluster(),
		JSONPatchOverrides: []placementv1beta1.JSONPatchOverride{jsonPatch("add", "/metadata/labels/env", `"${MEMBER-CLUSTER-LABEL-KEY-environment}"`)}}}}
	crp := &placementv1beta1.ClusterResourcePlacement{ObjectMeta: metav1.ObjectMeta{Name: "ovr-each"}}
	crp.Spec.ResourceSelectors = []placementv1beta1.ResourceSelectorTerm{{Version: "v1", Kind: "Namespace", Name: "ovr-each"}}
	crp.Spec.Strategy.Type = placementv1beta1.RollingUpdateRolloutStrategyType
	maxUnavailable := intstr.FromInt32(1)
	crp.Spec.Strategy.RollingUpdate = &placementv1beta1.RollingUpdateConfig{MaxUnavailable: &maxUnavailable}
	createAll(t, ns, d, ro, cro, crp)

	env := map[string]string{"member1": "canary", "member2": "staging", "member3": "canary"}
	replicas := map[string]int32{"member1": 2, "member2": 1, "member3": 2}
	waitDeployments := func(label string) {
		t.Helper()
		testenv.Eventually(t, timeout, func(ctx context.Context) error {
			for _, m := range members {
				got, err := member(t, m).AppsV1().Deployments("ovr-each").Get(ctx, "web", metav1.GetOptions{})
				if err != nil {
					return fmt.Errorf("%s: %w", m, err)
				}
				if got.Labels["cluster"] != label+m || got.Labels["env"] != env[m] || *got.Spec.Replicas != replicas[m] {
					return fmt.Errorf("%s: labels %v, replicas %d", m, got.Labels, *got.Spec.Replicas)
				}
				nsOnMember, err := member(t, m).CoreV1().Namespaces().Get(ctx, "ovr-each", metav1.GetOptions{})
				if err != nil || nsOnMember.Labels["env"] != env[m] {
					return fmt.Errorf("%s: the namespace is not labelled env=%s (%v)", m, env[m], err)
				}
			}
			return nil
		})
	}
	waitDeployments("")

	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		p := &placementv1beta1.ClusterResourcePlacement{}
		if err := c.Get(ctx, client.ObjectKey{Name: "ovr-each"}, p); err != nil {
			return err
		}
		if len(p.Status.PerClusterPlacementStatuses) != 3 {
			return fmt.Errorf("%d clusters in the status", len(p.Status.PerClusterPlacementStatuses))
		}
		for _, st := range p.Status.PerClusterPlacementStatuses {
			if !slices.Equal(st.ApplicableClusterResourceOverrides, []string{"ovr-each-env-0"}) ||
				!slices.Equal(st.ApplicableResourceOverrides, []placementv1beta1.NamespacedName{{Namespace: "ovr-each", Name: "web-per-cluster-0"}}) {
				return fmt.Errorf("%s: applicable overrides %v %v", st.ClusterName, st.ApplicableClusterResourceOverrides, st.ApplicableResourceOverrides)
			}
			if c := meta.FindStatusCondition(st.Conditions, "Overridden"); c == nil || c.Reason != placementv1beta1.OverriddenSucceededReason {
				return fmt.Errorf("%s: Overridden %+v", st.ClusterName, c)
			}
		}
		if !meta.IsStatusConditionTrue(p.Status.Conditions, string(placementv1beta1.ClusterResourcePlacementOverriddenConditionType)) ||
			!meta.IsStatusConditionTrue(p.Status.Conditions, string(placementv1beta1.ClusterResourcePlacementAvailableConditionType)) {
			return fmt.Errorf("placement conditions %+v", p.Status.Conditions)
		}
		return nil
	})

	updateOverride(t, ro, "web-per-cluster-1",
		placementv1beta1.OverrideRule{ClusterSelector: everyCluster(), JSONPatchOverrides: []placementv1beta1.JSONPatchOverride{
			jsonPatch("add", "/metadata/labels/cluster", `"v2-${MEMBER-CLUSTER-NAME}"`)}},
		placementv1beta1.OverrideRule{ClusterSelector: clustersLabelled("environment", "canary"), JSONPatchOverrides: []placementv1beta1.JSONPatchOverride{
			jsonPatch("replace", "/spec/replicas", "2")}})
	waitDeployments("v2-")
	old := &placementv1beta1.ResourceOverrideSnapshot{}
	if err := c.Get(t.Context(), client.ObjectKey{Namespace: "ovr-each", Name: "web-per-cluster-0"}, old); err != nil || old.Labels[placementv1beta1.IsLatestSnapshotLabel] != "false" {
		t.Errorf("web-per-cluster-0: %v (%v)", old.Labels, err)
	}
}

// TestBadOverrideKeepsWhatMembersRun: an override that needs a label member2 lacks fails
// member2's binding with Overridden False (OverriddenFailed) and leaves member2's ConfigMap as it
// was, while the other members get the override; a patch of a path that does not exist then
// fails every binding and changes no member.
func TestBadOverrideKeepsWhatMembersRun(t *testing.T) {
	t.Parallel()
	c := testenv.Client(t)
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ovr-bad"}}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm", Namespace: "ovr-bad"}, Data: map[string]string{"key": "value1"}}
	crp := &placementv1beta1.ClusterResourcePlacement{ObjectMeta: metav1.ObjectMeta{Name: "ovr-bad"}}
	crp.Spec.ResourceSelectors = []placementv1beta1.ResourceSelectorTerm{{Version: "v1", Kind: "Namespace", Name: "ovr-bad"}}
	crp.Spec.Strategy.Type = placementv1beta1.RollingUpdateRolloutStrategyType
	all := intstr.FromString("100%")
	crp.Spec.Strategy.RollingUpdate = &placementv1beta1.RollingUpdateConfig{MaxUnavailable: &all}
	createAll(t, ns, cm, crp)
	waitData(t, "ovr-bad", "cm", "key", map[string]string{"member1": "value1", "member2": "value1", "member3": "value1"})

	ro := resourceOverride("cm-order", "ovr-bad", "", "ConfigMap", "cm",
		placementv1beta1.OverrideRule{ClusterSelector: everyCluster(), JSONPatchOverrides: []placementv1beta1.JSONPatchOverride{
			jsonPatch("replace", "/data/key", `"order-${MEMBER-CLUSTER-LABEL-KEY-order}"`)}})
	createAll(t, ro)
	waitData(t, "ovr-bad", "cm", "key", map[string]string{"member1": "order-2", "member3": "order-1"})
	overridden := func(cluster, want string) {
		t.Helper()
		testenv.Eventually(t, timeout, func(ctx context.Context) error {
			l := &placementv1beta1.ClusterResourceBindingList{}
			if err := c.List(ctx, l, client.MatchingLabels{placementv1beta1.PlacementTrackingLabel: "ovr-bad"}); err != nil {
				return err
			}
			for _, b := range l.Items {
				if b.Spec.TargetCluster != cluster {
					continue
				}
				o := meta.FindStatusCondition(b.Status.Conditions, "Overridden")
				if o == nil || o.Status != metav1.ConditionFalse || o.Reason != placementv1beta1.OverriddenFailedReason ||
					o.ObservedGeneration != b.Generation || !strings.Contains(o.Message, want) {
					return fmt.Errorf("%s: Overridden %+v", cluster, o)
				}
				return nil
			}
			return fmt.Errorf("no binding for %s", cluster)
		})
	}
	overridden("member2", `Failed to apply the override rules on the resources: ResourceOverrideSnapshot "cm-order-0" failed to apply on ConfigMap "cm" in namespace "ovr-bad": label key order not found on cluster member2`)
	if data, err := memberConfigMap(t.Context(), t, "member2", "ovr-bad", "cm"); err != nil || data["key"] != "value1" {
		t.Errorf("member2 runs %v (%v), want what it ran: value1", data, err)
	}
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		p := &placementv1beta1.ClusterResourcePlacement{}
		if err := c.Get(ctx, client.ObjectKey{Name: "ovr-bad"}, p); err != nil {
			return err
		}
		o := meta.FindStatusCondition(p.Status.Conditions, string(placementv1beta1.ClusterResourcePlacementOverriddenConditionType))
		if o == nil || o.Status != metav1.ConditionFalse || o.Reason != placementv1beta1.OverriddenFailedReason || !strings.Contains(o.Message, "member2") {
			return fmt.Errorf("the placement's Overridden condition is %+v", o)
		}
		return nil
	})

	updateOverride(t, ro, "cm-order-1", placementv1beta1.OverrideRule{ClusterSelector: everyCluster(),
		JSONPatchOverrides: []placementv1beta1.JSONPatchOverride{jsonPatch("replace", "/data/nothere", `"x"`)}})
	for _, m := range members {
		overridden(m, `ResourceOverrideSnapshot "cm-order-1" failed to apply on ConfigMap "cm" in namespace "ovr-bad": replace operation does not apply: doc is missing key: /data/nothere`)
	}
	waitData(t, "ovr-bad", "cm", "key", map[string]string{"member1": "order-2", "member2": "value1", "member3": "order-1"})

	// What Kubefleet's webhook refuses is said in a Warning Event on the override.
	invalid := &placementv1beta1.ClusterResourceOverride{ObjectMeta: metav1.ObjectMeta{Name: "ovr-bad-status"}}
	invalid.Spec.Placement = &placementv1beta1.PlacementRef{Name: "no-such-placement"}
	invalid.Spec.ClusterResourceSelectors = []placementv1beta1.ResourceSelectorTerm{{Version: "v1", Kind: "Namespace", Name: "ovr-bad"}}
	invalid.Spec.Policy = &placementv1beta1.OverridePolicy{OverrideRules: []placementv1beta1.OverrideRule{{ClusterSelector: everyCluster(),
		JSONPatchOverrides: []placementv1beta1.JSONPatchOverride{jsonPatch("replace", "/status/phase", `"x"`)}}}}
	createAll(t, invalid)
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		var list eventsv1.EventList
		if err := c.List(ctx, &list); err != nil {
			return err
		}
		for _, e := range list.Items {
			if e.Regarding.Name == invalid.Name && e.Regarding.Kind == "ClusterResourceOverride" && e.Reason == "InvalidOverride" &&
				e.Type == corev1.EventTypeWarning && strings.Contains(e.Note, "cannot override status fields") {
				return nil
			}
		}
		return fmt.Errorf("no InvalidOverride Warning event for %s", invalid.Name)
	})
	t.Log("kubectl get crb -l kubernetes-fleet.io/parent-CRP=ovr-bad:\n" + kubectl(t, "get", "crb", "-l", "kubernetes-fleet.io/parent-CRP=ovr-bad"))
}

// TestResourcePlacementOverride: a ResourceOverride naming a ResourcePlacement of its namespace
// changes what that placement delivers, per cluster; the ResourceBindings name its snapshot.
func TestResourcePlacementOverride(t *testing.T) {
	t.Parallel()
	c := testenv.Client(t)
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ovr-rp"}}
	nsOnly := &placementv1beta1.ClusterResourcePlacement{ObjectMeta: metav1.ObjectMeta{Name: "ovr-rp-namespace"}}
	nsOnly.Spec.ResourceSelectors = []placementv1beta1.ResourceSelectorTerm{{Version: "v1", Kind: "Namespace", Name: "ovr-rp",
		SelectionScope: placementv1beta1.NamespaceOnly}}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm", Namespace: "ovr-rp"}, Data: map[string]string{"key": "value1"}}
	rp := &placementv1beta1.ResourcePlacement{ObjectMeta: metav1.ObjectMeta{Name: "cm-rp", Namespace: "ovr-rp"}}
	rp.Spec.ResourceSelectors = []placementv1beta1.ResourceSelectorTerm{{Version: "v1", Kind: "ConfigMap", Name: "cm"}}
	ro := resourceOverride("cm-where", "ovr-rp", "", "ConfigMap", "cm", placementv1beta1.OverrideRule{ClusterSelector: everyCluster(),
		JSONPatchOverrides: []placementv1beta1.JSONPatchOverride{jsonPatch("replace", "/data/key", `"${MEMBER-CLUSTER-NAME}"`)}})
	ro.Spec.Placement = &placementv1beta1.PlacementRef{Name: "cm-rp", Scope: placementv1beta1.NamespaceScoped}
	createAll(t, ns, nsOnly, cm, ro, rp)
	waitData(t, "ovr-rp", "cm", "key", map[string]string{"member1": "member1", "member2": "member2", "member3": "member3"})
	l := &placementv1beta1.ResourceBindingList{}
	if err := c.List(t.Context(), l, client.InNamespace("ovr-rp")); err != nil {
		t.Fatal(err)
	}
	for _, b := range l.Items {
		if !slices.Equal(b.Spec.ResourceOverrideSnapshots, []placementv1beta1.NamespacedName{{Namespace: "ovr-rp", Name: "cm-where-0"}}) {
			t.Errorf("%s names %v", b.Name, b.Spec.ResourceOverrideSnapshots)
		}
	}
}

// TestOverrideRollsOutWithinMaxUnavailable: an override change is rolled out like a resource
// change. One that leaves the Deployment unschedulable reaches one cluster, which then is
// unavailable, and maxUnavailable 1 holds the other two back; the override fixed, every cluster
// gets the fix.
func TestOverrideRollsOutWithinMaxUnavailable(t *testing.T) {
	t.Parallel()
	c := testenv.Client(t)
	one := int32(1)
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ovr-max"}}
	// Recreate: the unschedulable new pod replaces the old one, so the Deployment is unavailable.
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "ovr-max"},
		Spec: appsv1.DeploymentSpec{Replicas: &one, Strategy: appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx:1.20"}}}}}}
	crp := &placementv1beta1.ClusterResourcePlacement{ObjectMeta: metav1.ObjectMeta{Name: "ovr-max"}}
	crp.Spec.ResourceSelectors = []placementv1beta1.ResourceSelectorTerm{{Version: "v1", Kind: "Namespace", Name: "ovr-max"}}
	crp.Spec.Strategy.Type = placementv1beta1.RollingUpdateRolloutStrategyType
	maxUnavailable, zero := intstr.FromInt32(1), intstr.FromInt32(0)
	crp.Spec.Strategy.RollingUpdate = &placementv1beta1.RollingUpdateConfig{MaxUnavailable: &maxUnavailable, MaxSurge: &zero}
	createAll(t, ns, d, crp)
	// deployments reports, per member, the Deployment's zone nodeSelector and whether it is available.
	deployments := func(ctx context.Context) (map[string]string, error) {
		out := map[string]string{}
		for _, m := range members {
			got, err := member(t, m).AppsV1().Deployments("ovr-max").Get(ctx, "web", metav1.GetOptions{})
			if err != nil {
				return nil, fmt.Errorf("%s: %w", m, err)
			}
			out[m] = fmt.Sprintf("%v/%v", got.Spec.Template.Spec.NodeSelector["zone"], deploymentAvailable(got))
		}
		return out, nil
	}
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		got, err := deployments(ctx)
		if err == nil && (got["member1"] != "/true" || got["member2"] != "/true" || got["member3"] != "/true") {
			err = fmt.Errorf("deployments %v, want available everywhere", got)
		}
		return err
	})

	// Every binding reports its cluster available: a binding not available yet may be updated
	// at once, as in Kubefleet, since that makes nothing less available.
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		p := &placementv1beta1.ClusterResourcePlacement{}
		if err := c.Get(ctx, client.ObjectKey{Name: "ovr-max"}, p); err != nil {
			return err
		}
		if !meta.IsStatusConditionTrue(p.Status.Conditions, string(placementv1beta1.ClusterResourcePlacementAvailableConditionType)) {
			return fmt.Errorf("not available: %+v", p.Status.Conditions)
		}
		return nil
	})

	ro := resourceOverride("web-zone", "ovr-max", "apps", "Deployment", "web", placementv1beta1.OverrideRule{ClusterSelector: everyCluster(),
		JSONPatchOverrides: []placementv1beta1.JSONPatchOverride{jsonPatch("add", "/spec/template/spec/nodeSelector", `{"zone":"nowhere"}`)}})
	createAll(t, ro)
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		got, err := deployments(ctx)
		if err != nil {
			return err
		}
		changed := 0
		for _, v := range got {
			if strings.HasPrefix(v, "nowhere/") {
				changed++
			}
		}
		if changed != 1 {
			return fmt.Errorf("deployments %v, want the override on exactly one cluster", got)
		}
		l := &placementv1beta1.ClusterResourceBindingList{}
		if err := c.List(ctx, l, client.MatchingLabels{placementv1beta1.PlacementTrackingLabel: "ovr-max"}); err != nil {
			return err
		}
		held := 0
		for _, b := range l.Items {
			if s := meta.FindStatusCondition(b.Status.Conditions, placementv1beta1.BindingRolloutStartedCondition); s != nil &&
				s.Status == metav1.ConditionFalse && s.Reason == placementv1beta1.RolloutNotStartedYetReason {
				held++
			}
		}
		if held != 2 {
			return fmt.Errorf("%d bindings held back, want 2", held)
		}
		return nil
	})

	updateOverride(t, ro, "web-zone-1", placementv1beta1.OverrideRule{ClusterSelector: everyCluster(),
		JSONPatchOverrides: []placementv1beta1.JSONPatchOverride{jsonPatch("add", "/metadata/labels", `{"zone":"fixed"}`)}})
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		got, err := deployments(ctx)
		if err == nil && (got["member1"] != "/true" || got["member2"] != "/true" || got["member3"] != "/true") {
			err = fmt.Errorf("deployments %v, want available everywhere", got)
		}
		return err
	})
}
