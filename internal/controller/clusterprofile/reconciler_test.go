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

package clusterprofile

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/sandbox"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
)

func TestMain(m *testing.M) {
	testenv.Main(m,
		sandbox.ClusterSpec{Name: "a", Labels: map[string]string{"env": "dev"}},
		sandbox.ClusterSpec{Name: "b", Labels: map[string]string{"env": "prod"}},
	)
}

const timeout = 30 * time.Second

func startController(t *testing.T) client.Client {
	testenv.StartManager(t, func(mgr ctrl.Manager) error {
		return NewReconciler(Options{}).SetupWithManager(mgr)
	})
	return testenv.Client(t)
}

func profile(name string, selector map[string]string) *configv1beta1.ClusterProfile {
	p := &configv1beta1.ClusterProfile{ObjectMeta: metav1.ObjectMeta{Name: name}}
	p.Spec.ClusterSelector.MatchLabels = selector
	return p
}

// summariesOf returns "namespace/cluster" of every summary of the profile, sorted, and releases
// the finalizer of those being deleted, standing in for the clustersummary controller.
func summariesOf(ctx context.Context, c client.Client, profile string) ([]string, error) {
	var list configv1beta1.ClusterSummaryList
	if err := c.List(ctx, &list, client.MatchingLabels{configv1beta1.ClusterProfileNameLabel: profile}); err != nil {
		return nil, err
	}
	var out []string
	for i := range list.Items {
		cs := &list.Items[i]
		if !cs.DeletionTimestamp.IsZero() {
			cs.Finalizers = nil
			_ = c.Update(ctx, cs)
			continue
		}
		out = append(out, cs.Spec.ClusterNamespace+"/"+cs.Spec.ClusterName)
	}
	slices.Sort(out)
	return out, nil
}

func expectSummaries(t *testing.T, c client.Client, profile string, want ...string) {
	t.Helper()
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		got, err := summariesOf(ctx, c, profile)
		if err != nil {
			return err
		}
		if !slices.Equal(got, want) {
			return fmt.Errorf("summaries of %s: %v, want %v", profile, got, want)
		}
		return nil
	})
}

func TestSelectorMatchingAndSummaries(t *testing.T) {
	c := startController(t)
	ctx := t.Context()
	p := profile("match-dev", map[string]string{"env": "dev"})
	p.Labels = map[string]string{"team": "platform"}
	if err := c.Create(ctx, p); err != nil {
		t.Fatal(err)
	}
	expectSummaries(t, c, p.Name, "a/a")

	cs := &configv1beta1.ClusterSummary{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: "a", Name: "match-dev-sveltos-a"}, cs); err != nil {
		t.Fatal(err)
	}
	if cs.Labels["team"] != "platform" || cs.Labels[configv1beta1.ClusterNameLabel] != "a" ||
		cs.Labels[configv1beta1.ClusterTypeLabel] != "Sveltos" || !metav1.IsControlledBy(cs, p) {
		t.Errorf("summary labels %v / owners %v are not as upstream", cs.Labels, cs.OwnerReferences)
	}
	if cs.Spec.ClusterType != libv1beta1.ClusterTypeSveltos || cs.Spec.ClusterProfileSpec.SyncMode != configv1beta1.SyncModeContinuous {
		t.Errorf("summary spec %+v does not carry the profile spec", cs.Spec)
	}
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		got := &configv1beta1.ClusterProfile{}
		if err := c.Get(ctx, client.ObjectKeyFromObject(p), got); err != nil {
			return err
		}
		if len(got.Status.MatchingClusterRefs) != 1 || got.Status.MatchingClusterRefs[0].Name != "a" {
			return fmt.Errorf("matchingClusters %v", got.Status.MatchingClusterRefs)
		}
		return nil
	})

	// A spec change reaches the summary; a selector change moves it to the other cluster.
	patchProfile(t, c, p.Name, func(p *configv1beta1.ClusterProfile) { p.Spec.Tier = 50 })
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		if err := c.Get(ctx, client.ObjectKeyFromObject(cs), cs); err != nil {
			return err
		}
		if cs.Spec.ClusterProfileSpec.Tier != 50 {
			return fmt.Errorf("summary tier %d, want 50", cs.Spec.ClusterProfileSpec.Tier)
		}
		return nil
	})
	patchProfile(t, c, p.Name, func(p *configv1beta1.ClusterProfile) {
		p.Spec.ClusterSelector.MatchLabels = map[string]string{"env": "prod"}
	})
	expectSummaries(t, c, p.Name, "b/b")

	// Deleting the profile deletes its summaries, then the profile itself goes.
	if err := c.Delete(ctx, p); err != nil {
		t.Fatal(err)
	}
	expectSummaries(t, c, p.Name)
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		if err := c.Get(ctx, client.ObjectKeyFromObject(p), p); !apierrors.IsNotFound(err) {
			return fmt.Errorf("profile still there: %v", err)
		}
		return nil
	})
}

func TestEmptySelectorMatchesNothing(t *testing.T) {
	c := startController(t)
	p := profile("match-nothing", nil)
	p.Spec.ClusterRefs = nil
	if err := c.Create(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		got := &configv1beta1.ClusterProfile{}
		if err := c.Get(ctx, client.ObjectKeyFromObject(p), got); err != nil {
			return err
		}
		if !slices.Contains(got.Finalizers, configv1beta1.ClusterProfileFinalizer) {
			return fmt.Errorf("not reconciled yet")
		}
		return nil
	})
	expectSummaries(t, c, p.Name)
}

func TestClusterRefsAndDependencies(t *testing.T) {
	c := startController(t)
	ctx := t.Context()
	base := profile("dep-base", nil) // matches nothing by itself
	app := profile("dep-app", nil)
	app.Spec.ClusterRefs = append(app.Spec.ClusterRefs, libRef("b", "b"))
	app.Spec.DependsOn = []string{base.Name}
	for _, p := range []*configv1beta1.ClusterProfile{base, app} {
		if err := c.Create(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	expectSummaries(t, c, app.Name, "b/b")
	// The dependency follows its dependent to cluster b.
	expectSummaries(t, c, base.Name, "b/b")
}

func TestOneTimeKeepsTheFirstSpec(t *testing.T) {
	c := startController(t)
	p := profile("one-time", map[string]string{"env": "dev"})
	p.Spec.SyncMode = configv1beta1.SyncModeOneTime
	if err := c.Create(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	expectSummaries(t, c, p.Name, "a/a")
	patchProfile(t, c, p.Name, func(p *configv1beta1.ClusterProfile) { p.Spec.Tier = 7 })
	// Wait until the controller has seen the change (the summary's labels follow the profile's),
	// then check the spec stayed.
	patchProfile(t, c, p.Name, func(p *configv1beta1.ClusterProfile) { p.Labels = map[string]string{"seen": "yes"} })
	cs := &configv1beta1.ClusterSummary{}
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		if err := c.Get(ctx, client.ObjectKey{Namespace: "a", Name: "one-time-sveltos-a"}, cs); err != nil {
			return err
		}
		if cs.Labels["seen"] != "yes" {
			return fmt.Errorf("labels %v", cs.Labels)
		}
		return nil
	})
	if cs.Spec.ClusterProfileSpec.Tier == 7 {
		t.Error("a OneTime summary was updated")
	}
}

func libRef(namespace, name string) corev1.ObjectReference {
	return corev1.ObjectReference{APIVersion: libv1beta1.GroupVersion.String(), Kind: libv1beta1.SveltosClusterKind, Namespace: namespace, Name: name}
}

func patchProfile(t *testing.T, c client.Client, name string, mutate func(*configv1beta1.ClusterProfile)) {
	t.Helper()
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		p := &configv1beta1.ClusterProfile{}
		if err := c.Get(ctx, client.ObjectKey{Name: name}, p); err != nil {
			return err
		}
		mutate(p)
		return c.Update(ctx, p)
	})
}

// TestPausedClustersAreReported: with maxUpdate, a paused cluster takes no slot and the profile
// status says it is waiting.
func TestPausedClustersAreReported(t *testing.T) {
	c := startController(t)
	ctx := t.Context()
	cl := &libv1beta1.SveltosCluster{}
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		if err := c.Get(ctx, client.ObjectKey{Namespace: "b", Name: "b"}, cl); err != nil {
			return err
		}
		cl.Spec.Paused = true
		return c.Update(ctx, cl)
	})
	t.Cleanup(func() {
		testenv.Eventually(t, timeout, func(ctx context.Context) error {
			if err := c.Get(ctx, client.ObjectKey{Namespace: "b", Name: "b"}, cl); err != nil {
				return err
			}
			cl.Spec.Paused = false
			return c.Update(ctx, cl)
		})
	})
	// No probe runs in this test: mark a ready as the SveltosCluster controller would.
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		a := &libv1beta1.SveltosCluster{}
		if err := c.Get(ctx, client.ObjectKey{Namespace: "a", Name: "a"}, a); err != nil {
			return err
		}
		a.Status.Ready = true
		return c.Status().Update(ctx, a)
	})
	p := profile("paused-wave", nil)
	p.Spec.ClusterSelector.MatchExpressions = []metav1.LabelSelectorRequirement{{Key: "env", Operator: metav1.LabelSelectorOpExists}}
	one := intstr.FromInt32(1)
	p.Spec.MaxUpdate = &one
	if err := c.Create(ctx, p); err != nil {
		t.Fatal(err)
	}
	expectSummaries(t, c, p.Name, "a/a")
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		got := &configv1beta1.ClusterProfile{}
		if err := c.Get(ctx, client.ObjectKeyFromObject(p), got); err != nil {
			return err
		}
		for _, f := range got.Status.FailedClusters {
			if f.ClusterRef.Name == "b" && f.FailureMessage == "not updated yet: the cluster is paused" {
				return nil
			}
		}
		return fmt.Errorf("failedClusters %+v", got.Status.FailedClusters)
	})
}

// setReady sets a cluster's readiness as the SveltosCluster controller's probe would (no probe
// runs in these tests).
func setClusterReady(t *testing.T, c client.Client, name string, ready bool, msg string) {
	t.Helper()
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		cl := &libv1beta1.SveltosCluster{}
		if err := c.Get(ctx, client.ObjectKey{Namespace: name, Name: name}, cl); err != nil {
			return err
		}
		cl.Status.Ready, cl.Status.FailureMessage = ready, nil
		if msg != "" {
			cl.Status.FailureMessage = &msg
		}
		return c.Status().Update(ctx, cl)
	})
}

func getProfile(ctx context.Context, c client.Client, name string) (*configv1beta1.ClusterProfile, error) {
	got := &configv1beta1.ClusterProfile{}
	return got, c.Get(ctx, client.ObjectKey{Name: name}, got)
}

// TestUnreachableUpdatingClusterKeepsItsSlot: with maxUpdate 1, the cluster being updated
// becomes unreachable. It keeps the slot, so no other cluster starts: what it runs is unknown.
func TestUnreachableUpdatingClusterKeepsItsSlot(t *testing.T) {
	c := startController(t)
	setClusterReady(t, c, "a", true, "")
	setClusterReady(t, c, "b", true, "")
	t.Cleanup(func() { setClusterReady(t, c, "a", true, "") })
	p := profile("held-slot", nil)
	p.Spec.ClusterSelector.MatchExpressions = []metav1.LabelSelectorRequirement{{Key: "env", Operator: metav1.LabelSelectorOpExists}}
	one := intstr.FromInt32(1)
	p.Spec.MaxUpdate = &one
	if err := c.Create(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	expectSummaries(t, c, p.Name, "a/a") // a is updating: no summary controller runs here

	setClusterReady(t, c, "a", false, "connection refused")
	const held = "the cluster became not ready: connection refused while updating: it keeps its update slot until it is updated"
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		got, err := getProfile(ctx, c, p.Name)
		if err != nil {
			return err
		}
		if !slices.ContainsFunc(got.Status.FailedClusters, func(f configv1beta1.FailedCluster) bool { return f.ClusterRef.Name == "a" && f.FailureMessage == held }) {
			return fmt.Errorf("failedClusters %+v", got.Status.FailedClusters)
		}
		if u := got.Status.UpdatingClusters.Clusters; len(u) != 1 || u[0].Name != "a" {
			return fmt.Errorf("updatingClusters %+v", u)
		}
		return nil
	})
	if got, err := summariesOf(t.Context(), c, p.Name); err != nil || !slices.Equal(got, []string{"a/a"}) {
		t.Fatalf("summaries %v (%v): b started while a held the only slot", got, err)
	}
}

// TestZeroMaxUpdateIsRefused: maxUpdate 0 or "0%" would never update a cluster. The profile
// says so in its conditions and an Event, and what is deployed stays as it is.
func TestZeroMaxUpdateIsRefused(t *testing.T) {
	c := startController(t)
	p := profile("zero-max-update", map[string]string{"env": "dev"})
	if err := c.Create(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	expectSummaries(t, c, p.Name, "a/a")
	for _, v := range []intstr.IntOrString{intstr.FromInt32(0), intstr.FromString("0%")} {
		patchProfile(t, c, p.Name, func(p *configv1beta1.ClusterProfile) { p.Spec.MaxUpdate = &v })
		testenv.Eventually(t, timeout, func(ctx context.Context) error {
			got, err := getProfile(ctx, c, p.Name)
			if err != nil {
				return err
			}
			stalled := meta.FindStatusCondition(got.Status.Conditions, configv1beta1.ProfileStalledCondition)
			if got.Status.ObservedGeneration != got.Generation || stalled == nil || stalled.Status != metav1.ConditionTrue ||
				!strings.HasPrefix(stalled.Message, "spec.maxUpdate: maxUpdate ") || !strings.Contains(stalled.Message, v.String()) ||
				!strings.Contains(stalled.Message, "would never update a cluster") {
				return fmt.Errorf("conditions %+v", got.Status.Conditions)
			}
			return nil
		})
	}
	got, err := getProfile(t.Context(), c, p.Name)
	if err != nil {
		t.Fatal(err)
	}
	if events, err := testenv.Events(t.Context(), c, got, reasonInvalidSpec); err != nil || len(events) != 2 {
		t.Errorf("want one %s Event per message, got %d (%v)", reasonInvalidSpec, len(events), err)
	}
	cs := &configv1beta1.ClusterSummary{}
	if err := c.Get(t.Context(), client.ObjectKey{Namespace: "a", Name: p.Name + "-sveltos-a"}, cs); err != nil || !cs.DeletionTimestamp.IsZero() {
		t.Fatalf("the deployed summary is gone (%v)", err)
	}
	if cs.Spec.ClusterProfileSpec.MaxUpdate != nil {
		t.Errorf("the summary got the refused spec")
	}
}

// TestUnsupportedFieldsAreRefused: fields Stagecoach does not implement are not ignored. The
// profile stalls with a message naming the field, and what it deployed stays as it is.
func TestUnsupportedFieldsAreRefused(t *testing.T) {
	c := startController(t)
	p := profile("refused-fields", map[string]string{"env": "dev"})
	if err := c.Create(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	expectSummaries(t, c, p.Name, "a/a")
	check := []libv1beta1.ValidateHealth{{Name: "x", Version: "v1", Kind: "ConfigMap"}}
	for field, set := range map[string]func(*configv1beta1.ClusterProfile){
		"spec.setRefs":          func(p *configv1beta1.ClusterProfile) { p.Spec.SetRefs = []string{"prod"} },
		"spec.preDeleteChecks":  func(p *configv1beta1.ClusterProfile) { p.Spec.PreDeleteChecks = check },
		"spec.postDeleteChecks": func(p *configv1beta1.ClusterProfile) { p.Spec.PostDeleteChecks = check },
	} {
		patchProfile(t, c, p.Name, func(p *configv1beta1.ClusterProfile) {
			p.Spec.SetRefs, p.Spec.PreDeleteChecks, p.Spec.PostDeleteChecks = nil, nil, nil
			set(p)
		})
		testenv.Eventually(t, timeout, func(ctx context.Context) error {
			got, err := getProfile(ctx, c, p.Name)
			if err != nil {
				return err
			}
			stalled := meta.FindStatusCondition(got.Status.Conditions, configv1beta1.ProfileStalledCondition)
			if got.Status.ObservedGeneration != got.Generation || stalled == nil || stalled.Status != metav1.ConditionTrue ||
				!strings.HasPrefix(stalled.Message, field+": ") {
				return fmt.Errorf("%s: conditions %+v", field, got.Status.Conditions)
			}
			return nil
		})
	}
	got, err := getProfile(t.Context(), c, p.Name)
	if err != nil {
		t.Fatal(err)
	}
	testenv.ExpectEvent(t, timeout, c, got, reasonInvalidSpec)
	cs := &configv1beta1.ClusterSummary{}
	if err := c.Get(t.Context(), client.ObjectKey{Namespace: "a", Name: p.Name + "-sveltos-a"}, cs); err != nil || !cs.DeletionTimestamp.IsZero() {
		t.Fatalf("the deployed summary is gone (%v)", err)
	}
	if spec := cs.Spec.ClusterProfileSpec; len(spec.SetRefs) > 0 || len(spec.PreDeleteChecks) > 0 || len(spec.PostDeleteChecks) > 0 {
		t.Errorf("the summary got a refused spec")
	}
}
