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

package main

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1beta1 "github.com/stagecoach-dev/stagecoach/api/cluster/v1beta1"
	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/testing/fleetv1"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
	"github.com/stagecoach-dev/stagecoach/internal/view"
)

// createNamespace creates namespace name on a managed cluster, with a ResourceQuota that allows no
// ConfigMap when blocked, and deletes it when the test ends.
func createNamespace(t *testing.T, cluster, name string, blocked bool) {
	t.Helper()
	cs := managed(t, cluster)
	if _, err := cs.CoreV1().Namespaces().Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.CoreV1().Namespaces().Delete(context.Background(), name, metav1.DeleteOptions{}) })
	if !blocked {
		return
	}
	quota := &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: "no-configmaps"},
		Spec: corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{"count/configmaps": resource.MustParse("0")}}}
	if _, err := cs.CoreV1().ResourceQuotas(name).Create(t.Context(), quota, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// liftQuota deletes the ResourceQuota createNamespace made.
func liftQuota(t *testing.T, cluster, namespace string) {
	t.Helper()
	if err := managed(t, cluster).CoreV1().ResourceQuotas(namespace).Delete(t.Context(), "no-configmaps", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
}

// noSettings fails the test if ConfigMap namespace/settings exists on a managed cluster.
func noSettings(t *testing.T, cluster, namespace string) {
	t.Helper()
	_, err := managed(t, cluster).CoreV1().ConfigMaps(namespace).Get(t.Context(), "settings", metav1.GetOptions{})
	if !apierrors.IsNotFound(err) {
		t.Errorf("%s has ConfigMap %s/settings (%v), want none", cluster, namespace, err)
	}
}

// TestRetryPromotionCommand fails a promotion's stage on two clusters whose namespace allows no
// ConfigMap (maxConsecutiveFailures: 1 makes them FailedNonRetriable, maxFailures: 0 fails the
// stage), lifts the quotas, retries one cluster with --cluster (the other stays failed, and fails
// the stage again), then the rest, and reads the same version on both.
func TestRetryPromotionCommand(t *testing.T) {
	c := testenv.Client(t)
	content := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "retryp-v1", Namespace: "default"}, Data: map[string]string{
		"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: retryp\ndata:\n  value: v1\n"}}
	if err := c.Create(t.Context(), content); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Delete(context.Background(), content) })
	createNamespace(t, "dev", "retryp", true)
	createNamespace(t, "qa", "retryp", true)
	p := &configv1beta1.ClusterPromotion{ObjectMeta: metav1.ObjectMeta{Name: "retryp"}}
	p.Spec.ProfileSpec.PolicyRefs = []configv1beta1.PolicyRef{{Kind: "ConfigMap", Namespace: "default", Name: "retryp-v1"}}
	p.Spec.ProfileSpec.MaxConsecutiveFailures = ptr.To[uint](1)
	stage := configv1beta1.Stage{Name: "both", MaxFailures: ptr.To(intstr.FromInt32(0))}
	stage.ClusterSelector.MatchExpressions = []metav1.LabelSelectorRequirement{{Key: "env", Operator: metav1.LabelSelectorOpIn, Values: []string{"dev", "qa"}}}
	p.Spec.Stages = []configv1beta1.Stage{stage}
	if err := c.Create(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { deletePromotion(t, c, p) })

	r := waitState(t, view.Failed, "promotion", "retryp")
	// The stage fails at its first failed cluster (maxFailures 0): which one comes first varies.
	if !strings.Contains(r.Message, "dev/dev") && !strings.Contains(r.Message, "qa/qa") {
		t.Errorf("failed: %s", r.Message)
	}
	if err := c.Get(t.Context(), client.ObjectKeyFromObject(p), p); err != nil {
		t.Fatal(err)
	}
	version := slices.Clone(p.Status.ProfileSpecHash)
	refused(t, map[string]string{
		"retry promotion nope":                          "ClusterPromotion nope not found",
		"retry promotion retryp --cluster prod/prod":    "cluster prod/prod has not failed in stage both of ClusterPromotion retryp: there is nothing to retry there; its failed clusters are dev/dev, qa/qa",
		"retry promotion retryp --cluster dev":          `cluster "dev": name it NAMESPACE/NAME, as stagecoach status lists it`,
		"retry run nope":                                "ClusterStagedUpdateRun nope not found",
		"retry promotion retryp --cluster qa/qa --bad=": "unknown flag: --bad",
	})
	// Someone who may read the promotion and its summaries, not change it, is told which verb they lack.
	viewer := impersonating(t, "retry-viewer", rbacv1.PolicyRule{APIGroups: []string{configv1beta1.GroupVersion.Group},
		Resources: []string{"clusterpromotions", "clustersummaries"}, Verbs: []string{"get", "list"}})
	if _, err := stagecoachAs(t.Context(), viewer, "retry", "promotion", "retryp"); err == nil ||
		!strings.Contains(err.Error(), `clusterpromotions.config.projectsveltos.io "retryp" is forbidden: User "retry-viewer" cannot patch resource "clusterpromotions"`) {
		t.Errorf("retrying without the right to: %v", err)
	}

	// The cause fixed, nothing is retried until asked: the failures are for good.
	liftQuota(t, "dev", "retryp")
	liftQuota(t, "qa", "retryp")
	out, err := stagecoach(t, "retry", "promotion", "retryp", "--cluster", "dev/dev")
	if err != nil || !strings.HasPrefix(out, "retrying stage both of ClusterPromotion retryp on version ") ||
		!strings.HasSuffix(out, ": dev/dev; its stage failure is cleared, and the failure budget counts again\n") {
		t.Fatalf("retry --cluster: %v: %q", err, out)
	}
	waitSettings(t, "dev", "retryp", "v1")
	// qa, not retried, fails the stage again, alone.
	testenv.Eventually(t, timeout, func(context.Context) error {
		r, err := statusOf(t, "promotion", "retryp")
		if err != nil {
			return err
		}
		if r.State != view.Failed || strings.Contains(r.Message, "dev/dev") || !strings.Contains(r.Message, "qa/qa") {
			return fmt.Errorf("%s: %s", r.State, r.Message)
		}
		return nil
	})
	noSettings(t, "qa", "retryp")

	if out, err := stagecoach(t, "retry", "promotion", "retryp"); err != nil || !strings.HasSuffix(out, ": qa/qa; its stage failure is cleared, and the failure budget counts again\n") {
		t.Fatalf("retry: %v: %q", err, out)
	}
	waitState(t, view.Succeeded, "promotion", "retryp")
	waitSettings(t, "qa", "retryp", "v1")
	if err := c.Get(t.Context(), client.ObjectKeyFromObject(p), p); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(p.Status.ProfileSpecHash, version) || p.Status.Retry == nil || p.Status.Retry.Stage != "both" || p.Status.Failure != nil {
		t.Errorf("after the retries: version %x (want %x), retry %+v, failure %+v", p.Status.ProfileSpecHash, version, p.Status.Retry, p.Status.Failure)
	}
	// The history tells the version succeeded, at its second retry: each retry opened the
	// failed stage again.
	if h := p.Status.History; len(h) != 1 || h[0].Outcome != configv1beta1.OutcomeSucceeded || h[0].Finished == nil || len(h[0].Stages) != 1 ||
		h[0].Stages[0].Outcome != configv1beta1.OutcomeSucceeded || h[0].Stages[0].Retries != 2 || h[0].Stages[0].Message != "" {
		t.Errorf("history after the retries: %+v", h)
	}
	refused(t, map[string]string{
		"retry promotion retryp": "stage both of ClusterPromotion retryp has no failed cluster and has not failed: there is nothing to retry",
	})
}

// TestRetryRunCommand fails an update run at its second stage (qa's namespace allows no
// ConfigMap, and the stage allows no failure), lifts the quota, and retries the run: a new run
// resumes at that stage with the same snapshot, and the first stage's cluster is not touched.
func TestRetryRunCommand(t *testing.T) {
	c := fleetv1.Client(testenv.Client(t))
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "retryr"}}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "settings", Namespace: "retryr"}, Data: map[string]string{"value": "v1"}}
	strategy := &placementv1beta1.ClusterStagedUpdateStrategy{ObjectMeta: metav1.ObjectMeta{Name: "retryr"}}
	strategy.Spec.Stages = []placementv1beta1.StageConfig{
		{Name: "dev", LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"env": "dev"}}},
		{Name: "rest", LabelSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: "env", Operator: metav1.LabelSelectorOpIn, Values: []string{"prod", "qa"}}}}, MaxFailures: ptr.To(intstr.FromInt32(0))},
	}
	crp := &placementv1beta1.ClusterResourcePlacement{ObjectMeta: metav1.ObjectMeta{Name: "retryr"}}
	crp.Spec.ResourceSelectors = []placementv1beta1.ResourceSelectorTerm{{Group: "", Version: "v1", Kind: "Namespace", Name: "retryr"}}
	crp.Spec.Policy = &placementv1beta1.PlacementPolicy{PlacementType: placementv1beta1.PickAllPlacementType}
	crp.Spec.Strategy.Type = placementv1beta1.ExternalRolloutStrategyType
	createNamespace(t, "qa", "retryr", true)
	for _, obj := range []client.Object{ns, cm, strategy, crp} {
		if err := c.Create(t.Context(), obj); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Delete(context.Background(), obj) })
	}
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		return c.Get(ctx, client.ObjectKey{Name: "retryr-0-snapshot"}, &placementv1beta1.ClusterResourceSnapshot{})
	})
	run := &placementv1beta1.ClusterStagedUpdateRun{ObjectMeta: metav1.ObjectMeta{Name: "retryr-1"}}
	run.Spec.PlacementName, run.Spec.StagedUpdateStrategyName, run.Spec.ResourceSnapshotIndex = "retryr", "retryr", "0"
	if err := c.Create(t.Context(), run); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Delete(context.Background(), run) })
	r := waitState(t, view.Failed, "run", "retryr-1")
	if !strings.Contains(r.Message, "stage rest failed") || !strings.Contains(r.Message, "qa") {
		t.Errorf("failed: %s", r.Message)
	}
	waitSettings(t, "dev", "retryr", "v1")
	devBinding := func() placementv1beta1.BindingObj {
		t.Helper()
		var list placementv1beta1.ClusterResourceBindingList
		if err := c.List(t.Context(), &list, client.MatchingLabels{placementv1beta1.PlacementTrackingLabel: "retryr"}); err != nil {
			t.Fatal(err)
		}
		for _, b := range list.BindingObjs() {
			if b.BindingSpec().TargetCluster == "dev" {
				return b
			}
		}
		t.Fatal("dev has no binding")
		return nil
	}
	before := devBinding()
	refused(t, map[string]string{
		"retry run retryr-1 -n default": "StagedUpdateRun retryr-1 not found in namespace default",
	})

	// The quota lifted, the retry resumes at stage rest.
	liftQuota(t, "qa", "retryr")
	out, err := stagecoach(t, "retry", "run", "retryr-1")
	m := regexp.MustCompile(`^created ClusterStagedUpdateRun (retryr-1-retry-\w+): it resumes retryr-1 from stage rest with resource snapshot index 0 and the same override snapshots\n$`).FindStringSubmatch(out)
	if err != nil || m == nil {
		t.Fatalf("retry run: %v: %q", err, out)
	}
	t.Cleanup(func() {
		_ = c.Delete(context.Background(), &placementv1beta1.ClusterStagedUpdateRun{ObjectMeta: metav1.ObjectMeta{Name: m[1]}})
	})
	waitState(t, view.Succeeded, "run", m[1])
	waitSettings(t, "qa", "retryr", "v1")
	retried := &placementv1beta1.ClusterStagedUpdateRun{}
	if err := c.Get(t.Context(), client.ObjectKey{Name: m[1]}, retried); err != nil {
		t.Fatal(err)
	}
	if err := c.Get(t.Context(), client.ObjectKey{Name: "retryr-1"}, run); err != nil {
		t.Fatal(err)
	}
	if got, want := retried.Status.StagesStatus[0].StartTime, run.Status.StagesStatus[0].StartTime; got == nil || want == nil || !got.Equal(want) {
		t.Errorf("stage dev of the retry started at %v, want %v (the failed run's)", got, want)
	}
	if retried.Status.ResourceSnapshotIndexUsed != "0" {
		t.Errorf("the retry rolled out index %s, want 0", retried.Status.ResourceSnapshotIndexUsed)
	}
	if after := devBinding(); after.GetGeneration() != before.GetGeneration() {
		t.Errorf("dev's binding changed from generation %d to %d: the stage that succeeded was run again", before.GetGeneration(), after.GetGeneration())
	}
	refused(t, map[string]string{
		"retry run " + m[1]:  "ClusterStagedUpdateRun " + m[1] + " has not failed (Succeeded): only a failed run can be retried",
		"retry run retryr-1": "ClusterStagedUpdateRun retryr-1 was retried already, by " + m[1],
	})
}

// TestRunJoiningAndLeavingClusters starts a run while dev and prod are picked, then, while it
// waits for approval after its first stage, makes prod leave (its label is taken off) and qa
// join: the run succeeds either way, prod gets nothing, and qa gets the run's snapshot with
// joiningClusters: StageSnapshot, nothing with the default (Kubefleet's NextRun).
func TestRunJoiningAndLeavingClusters(t *testing.T) {
	for _, policy := range []string{"", placementv1beta1.JoiningClustersStageSnapshot} {
		name := "join-" + strings.ToLower(policy)
		if policy == "" {
			name = "join-default"
		}
		t.Run(name, func(t *testing.T) { joinAndLeave(t, name, policy) })
	}
}

func joinAndLeave(t *testing.T, name, policy string) {
	c := fleetv1.Client(testenv.Client(t))
	label := func(cluster, value string) {
		t.Helper()
		v := "null"
		if value != "" {
			v = fmt.Sprintf("%q", value)
		}
		patch := fmt.Appendf(nil, `{"metadata":{"labels":{%q:%s}}}`, name, v)
		mc := &clusterv1beta1.MemberCluster{ObjectMeta: metav1.ObjectMeta{Name: cluster}}
		if err := c.Patch(t.Context(), mc, client.RawPatch(types.MergePatchType, patch)); err != nil {
			t.Fatal(err)
		}
	}
	for _, cluster := range []string{"dev", "prod", "qa"} {
		t.Cleanup(func() {
			mc := &clusterv1beta1.MemberCluster{ObjectMeta: metav1.ObjectMeta{Name: cluster}}
			_ = c.Patch(context.Background(), mc, client.RawPatch(types.MergePatchType, fmt.Appendf(nil, `{"metadata":{"labels":{%q:null}}}`, name)))
		})
	}
	label("dev", "yes")
	label("prod", "yes")
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "settings", Namespace: name}, Data: map[string]string{"value": "v1"}}
	strategy := &placementv1beta1.ClusterStagedUpdateStrategy{ObjectMeta: metav1.ObjectMeta{Name: name}}
	strategy.Spec.JoiningClusters = policy
	strategy.Spec.Stages = []placementv1beta1.StageConfig{
		{Name: "dev", LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"env": "dev"}},
			AfterStageTasks: []placementv1beta1.StageTask{{Type: placementv1beta1.StageTaskTypeApproval}}},
		{Name: "rest", LabelSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: "env", Operator: metav1.LabelSelectorOpIn, Values: []string{"prod", "qa"}}}}},
	}
	crp := &placementv1beta1.ClusterResourcePlacement{ObjectMeta: metav1.ObjectMeta{Name: name}}
	crp.Spec.ResourceSelectors = []placementv1beta1.ResourceSelectorTerm{{Group: "", Version: "v1", Kind: "Namespace", Name: name}}
	crp.Spec.Policy = &placementv1beta1.PlacementPolicy{PlacementType: placementv1beta1.PickAllPlacementType,
		Affinity: &placementv1beta1.Affinity{ClusterAffinity: &placementv1beta1.ClusterAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: &placementv1beta1.ClusterSelector{ClusterSelectorTerms: []placementv1beta1.ClusterSelectorTerm{
				{LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{name: "yes"}}}}}}}}
	crp.Spec.Strategy.Type = placementv1beta1.ExternalRolloutStrategyType
	for _, obj := range []client.Object{ns, cm, strategy, crp} {
		if err := c.Create(t.Context(), obj); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Delete(context.Background(), obj) })
	}
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		return c.Get(ctx, client.ObjectKey{Name: name + "-0-snapshot"}, &placementv1beta1.ClusterResourceSnapshot{})
	})
	run := &placementv1beta1.ClusterStagedUpdateRun{ObjectMeta: metav1.ObjectMeta{Name: name}}
	run.Spec.PlacementName, run.Spec.StagedUpdateStrategyName = name, name
	if err := c.Create(t.Context(), run); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Delete(context.Background(), run) })
	waitState(t, view.Waiting, "run", name)
	if err := c.Get(t.Context(), client.ObjectKeyFromObject(run), run); err != nil {
		t.Fatal(err)
	}
	if got := stageClusters(run, "rest"); !slices.Equal(got, []string{"prod"}) {
		t.Fatalf("stage rest has %v, want [prod]", got)
	}

	label("prod", "")
	label("qa", "yes")
	want := []string{}
	if policy == placementv1beta1.JoiningClustersStageSnapshot {
		want = []string{"qa"}
	}
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		if err := c.Get(ctx, client.ObjectKeyFromObject(run), run); err != nil {
			return err
		}
		if got := stageClusters(run, "rest"); !slices.Equal(got, want) {
			return fmt.Errorf("stage rest has %v, want %v", got, want)
		}
		return nil
	})
	if _, err := stagecoach(t, "approve", "run", name, "--stage", "dev"); err != nil {
		t.Fatal(err)
	}
	waitState(t, view.Succeeded, "run", name)
	waitSettings(t, "dev", name, "v1")
	noSettings(t, "prod", name)
	if policy == placementv1beta1.JoiningClustersStageSnapshot {
		waitSettings(t, "qa", name, "v1")
	} else {
		noSettings(t, "qa", name)
	}
}

// stageClusters lists the clusters the run's stage names.
func stageClusters(run *placementv1beta1.ClusterStagedUpdateRun, stage string) []string {
	out := []string{}
	for _, st := range run.Status.StagesStatus {
		if st.StageName != stage {
			continue
		}
		for _, c := range st.Clusters {
			out = append(out, c.ClusterName)
		}
		out = append(out, st.NotStartedClusters...)
	}
	return out
}

// TestRunClusterJoiningAfterItsStage: with joiningClusters: StageSnapshot, a cluster that joins
// once its stage has passed gets the run's snapshot at once, while the run still waits before its
// next stage, and the run goes on as before.
func TestRunClusterJoiningAfterItsStage(t *testing.T) {
	const name = "join-late"
	c := fleetv1.Client(testenv.Client(t))
	label := func(cluster, value string) {
		t.Helper()
		v := "null"
		if value != "" {
			v = fmt.Sprintf("%q", value)
		}
		mc := &clusterv1beta1.MemberCluster{ObjectMeta: metav1.ObjectMeta{Name: cluster}}
		if err := c.Patch(t.Context(), mc, client.RawPatch(types.MergePatchType, fmt.Appendf(nil, `{"metadata":{"labels":{%q:%s}}}`, name, v))); err != nil {
			t.Fatal(err)
		}
	}
	for _, cluster := range []string{"dev", "prod", "qa"} {
		t.Cleanup(func() {
			mc := &clusterv1beta1.MemberCluster{ObjectMeta: metav1.ObjectMeta{Name: cluster}}
			_ = c.Patch(context.Background(), mc, client.RawPatch(types.MergePatchType, fmt.Appendf(nil, `{"metadata":{"labels":{%q:null}}}`, name)))
		})
	}
	label("dev", "yes")
	label("prod", "yes")
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "settings", Namespace: name}, Data: map[string]string{"value": "v1"}}
	strategy := &placementv1beta1.ClusterStagedUpdateStrategy{ObjectMeta: metav1.ObjectMeta{Name: name}}
	strategy.Spec.JoiningClusters = placementv1beta1.JoiningClustersStageSnapshot
	strategy.Spec.Stages = []placementv1beta1.StageConfig{
		{Name: "one", LabelSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: "env", Operator: metav1.LabelSelectorOpIn, Values: []string{"dev", "qa"}}}}},
		{Name: "two", LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}},
			BeforeStageTasks: []placementv1beta1.StageTask{{Type: placementv1beta1.StageTaskTypeApproval}}},
	}
	crp := &placementv1beta1.ClusterResourcePlacement{ObjectMeta: metav1.ObjectMeta{Name: name}}
	crp.Spec.ResourceSelectors = []placementv1beta1.ResourceSelectorTerm{{Group: "", Version: "v1", Kind: "Namespace", Name: name}}
	crp.Spec.Policy = &placementv1beta1.PlacementPolicy{PlacementType: placementv1beta1.PickAllPlacementType,
		Affinity: &placementv1beta1.Affinity{ClusterAffinity: &placementv1beta1.ClusterAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: &placementv1beta1.ClusterSelector{ClusterSelectorTerms: []placementv1beta1.ClusterSelectorTerm{
				{LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{name: "yes"}}}}}}}}
	crp.Spec.Strategy.Type = placementv1beta1.ExternalRolloutStrategyType
	for _, obj := range []client.Object{ns, cm, strategy, crp} {
		if err := c.Create(t.Context(), obj); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Delete(context.Background(), obj) })
	}
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		return c.Get(ctx, client.ObjectKey{Name: name + "-0-snapshot"}, &placementv1beta1.ClusterResourceSnapshot{})
	})
	run := &placementv1beta1.ClusterStagedUpdateRun{ObjectMeta: metav1.ObjectMeta{Name: name}}
	run.Spec.PlacementName, run.Spec.StagedUpdateStrategyName = name, name
	if err := c.Create(t.Context(), run); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Delete(context.Background(), run) })
	r := waitState(t, view.Waiting, "run", name)
	if r.Stages[0].State != view.Succeeded || !strings.Contains(r.Stages[1].WaitingFor, "approval request "+name+"-before-two") {
		t.Fatalf("status run: %+v", r)
	}
	waitSettings(t, "dev", name, "v1")

	label("qa", "yes")
	waitSettings(t, "qa", name, "v1")
	if r, err := statusOf(t, "run", name); err != nil || r.State != view.Waiting {
		t.Errorf("after qa joined, the run is %v (%v), want still waiting before stage two", r, err)
	}
	if _, err := stagecoach(t, "approve", "run", name, "--stage", "two"); err != nil {
		t.Fatal(err)
	}
	waitState(t, view.Succeeded, "run", name)
	waitSettings(t, "prod", name, "v1")
}
