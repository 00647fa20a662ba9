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

package e2e

import (
	"context"
	"fmt"
	"net"
	"os"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/operate"
	"github.com/stagecoach-dev/stagecoach/internal/registration"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
	"github.com/stagecoach-dev/stagecoach/internal/view"
)

// skipNS holds this test's cluster registrations, and, on the managed clusters, what it deploys:
// a ConfigMap named after each registration, so that two registrations of one sandbox cluster
// do not share an object.
const skipNS = "e2e-skip"

// TestPausedAndLateClustersCatchUp: a paused cluster is left out and no stage waits for it
// (nor holds a maxUpdate slot for it); a stage not reached yet shows what it will cover; a
// cluster that registers unreachable in a stage already passed is listed as catching up, and
// gets that stage's version once it answers; one that registers in a stage not reached gets
// nothing, or, once an earlier version reached the stage, that version and not the new one; one
// that has the version and stops answering holds its stage until it leaves; the paused cluster,
// resumed after its stage passed, gets that stage's version. Read from the clusters.
func TestPausedAndLateClustersCatchUp(t *testing.T) {
	t.Parallel()
	c := testenv.Client(t)
	content := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "e2e-skip", Namespace: "default",
		Annotations: map[string]string{"projectsveltos.io/template": "ok"}},
		Data: map[string]string{"cm.yaml": configMapManifest(skipNS, "skip-{{ .ClusterName }}", "v1")}}
	if err := c.Create(t.Context(), content); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Delete(context.Background(), content) })
	where := map[string]string{"a": "dev", "b": "staging", "c": "prod", "d": "qa", "late3": "qa", "late1": "prod"}
	stageOf := func(s string) map[string]string { return map[string]string{"skip-e2e": s} }
	registerTenantCluster(t, skipNS, "a", "dev", stageOf("one"))
	registerTenantCluster(t, skipNS, "b", "staging", stageOf("two"))
	registerTenantCluster(t, skipNS, "c", "prod", stageOf("two"))
	registerTenantCluster(t, skipNS, "d", "qa", stageOf("three"))
	if msg, err := operate.PauseCluster(t.Context(), c, skipNS, "b", true); err != nil ||
		msg != "paused SveltosCluster e2e-skip/b: nothing is deployed to it and no stage waits for it" {
		t.Fatalf("pausing b: %q, %v", msg, err)
	}

	one := configv1beta1.Stage{Name: "one"}
	one.ClusterSelector.MatchLabels = stageOf("one")
	two := configv1beta1.Stage{Name: "two", Trigger: &configv1beta1.Trigger{Manual: &configv1beta1.ManualTrigger{}}}
	two.ClusterSelector.MatchLabels = stageOf("two")
	three := configv1beta1.Stage{Name: "three"}
	three.ClusterSelector.MatchLabels = stageOf("three")
	p := promotion("e2e-skip", "e2e-skip", one, two, three)
	maxUpdate := intstr.FromInt32(1)
	p.Spec.ProfileSpec.MaxUpdate = &maxUpdate
	createPromotion(t, p)

	// Stage two passes without b, which holds no slot of its one-at-a-time waves.
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		got, err := getPromotion(ctx, t, p.Name)
		if err != nil {
			return err
		}
		st := findStage(got, "two")
		if got.Status.CurrentStageName != "two" || st == nil || st.CurrentStatusDescription == nil ||
			!strings.HasPrefix(*st.CurrentStatusDescription, awaitingApprovalWords) {
			return fmt.Errorf("at stage %s: %+v", got.Status.CurrentStageName, got.Status.Stages)
		}
		if !slices.Equal(st.PausedClusters, []string{"e2e-skip/b"}) || len(st.CatchingUpClusters) != 0 {
			return fmt.Errorf("stage two lists paused %v, catching up %v", st.PausedClusters, st.CatchingUpClusters)
		}
		return nil
	})
	expectSkipValue(t, where, "a", "v1")
	expectSkipValue(t, where, "c", "v1")
	expectNoSkipValue(t, where, "b")
	expectNoSkipValue(t, where, "d")

	// What status shows: b paused, stage three's one cluster in one wave of one.
	r, err := view.Promotion(t.Context(), c, p.Name, view.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if st := r.Stages[1]; !strings.Contains(st.WaitingFor, "paused, not waited for: e2e-skip/b") || st.Counts[view.Paused] != 1 {
		t.Errorf("stage two: %+v", st)
	}
	if st := r.Stages[2]; st.State != view.Pending || st.Waves != 1 || st.Total() != 1 ||
		!strings.Contains(st.WaitingFor, "not reached yet: 1 cluster, 1 wave of up to 1") {
		t.Errorf("stage three, not reached: %+v", st)
	}

	// Late: one in stage one, passed, unreachable when it registers; one in stage three, not
	// reached.
	registerTenantCluster(t, skipNS, "late3", "qa", stageOf("three"))
	dead := registerSkipCluster(t, "late1", "prod", stageOf("one"), true)
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		got, err := getPromotion(ctx, t, p.Name)
		if err != nil {
			return err
		}
		if st := findStage(got, "one"); st == nil || !slices.Equal(st.CatchingUpClusters, []string{"e2e-skip/late1"}) {
			return fmt.Errorf("stage one: %+v", st)
		}
		if got.Status.CurrentStageName != "two" {
			return fmt.Errorf("moved to stage %s", got.Status.CurrentStageName)
		}
		return nil
	})
	if err := c.Get(t.Context(), client.ObjectKey{Name: p.StageProfileName("three")}, &configv1beta1.ClusterProfile{}); !apierrors.IsNotFound(err) {
		t.Errorf("stage three has a ClusterProfile before it is reached (%v)", err)
	}
	expectNoSkipValue(t, where, "late3")
	dead.Kubeconfig = sandboxKubeconfig(t, "prod")
	if err := registration.Register(t.Context(), c, dead); err != nil {
		t.Fatal(err)
	}
	expectSkipValue(t, where, "late1", "v1")
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		got, err := getPromotion(ctx, t, p.Name)
		if err != nil {
			return err
		}
		if st := findStage(got, "one"); st == nil || len(st.CatchingUpClusters) != 0 {
			return fmt.Errorf("stage one: %+v", st)
		}
		return nil
	})

	// A cluster that has the version and stops answering holds its stage; one that leaves is
	// dropped, and the stage does not fail for it.
	leaver := registerSkipCluster(t, "leaver", "dev", stageOf("two"), false)
	where["leaver"] = "dev"
	expectSkipValue(t, where, "leaver", "v1")
	leaver.Kubeconfig = deadSkipKubeconfig(t, leaver.Kubeconfig)
	if err := registration.Register(t.Context(), c, leaver); err != nil {
		t.Fatal(err)
	}
	expectStageTwo := func(want string) {
		t.Helper()
		testenv.Eventually(t, timeout, func(ctx context.Context) error {
			got, err := getPromotion(ctx, t, p.Name)
			if err != nil {
				return err
			}
			st := findStage(got, "two")
			if got.Status.CurrentStageName != "two" || got.Status.Failure != nil || st == nil || st.CurrentStatusDescription == nil {
				return fmt.Errorf("at stage %s, failure %+v", got.Status.CurrentStageName, got.Status.Failure)
			}
			if msg := ptrString(st.FailureMessage) + " " + *st.CurrentStatusDescription; !strings.Contains(msg, want) {
				return fmt.Errorf("stage two says %q, want %q", msg, want)
			}
			return nil
		})
	}
	expectStageTwo("Cluster e2e-skip/leaver is not ready")
	if _, err := registration.Unregister(t.Context(), c, skipNS, "leaver"); err != nil {
		t.Fatal(err)
	}
	expectStageTwo(awaitingApprovalWords)

	// Approved, the promotion completes: stage three deploys to both its clusters.
	if _, err := operate.ApprovePromotion(t.Context(), c, p.Name, "two", false); err != nil {
		t.Fatal(err)
	}
	waitPromoted(t, p.Name)
	expectSkipValue(t, where, "d", "v1")
	expectSkipValue(t, where, "late3", "v1")
	expectNoSkipValue(t, where, "b")

	// b, paused when stage two passed, is listed there; resumed, it gets stage two's version.
	stageTwoLists := func(paused []string) {
		t.Helper()
		testenv.Eventually(t, timeout, func(ctx context.Context) error {
			got, err := getPromotion(ctx, t, p.Name)
			if err != nil {
				return err
			}
			if st := findStage(got, "two"); st == nil || !slices.Equal(st.PausedClusters, paused) || len(st.CatchingUpClusters) != 0 {
				return fmt.Errorf("stage two: %+v", st)
			}
			return nil
		})
	}
	stageTwoLists([]string{"e2e-skip/b"})
	if _, err := operate.PauseCluster(t.Context(), c, skipNS, "b", false); err != nil {
		t.Fatal(err)
	}
	expectSkipValue(t, where, "b", "v1")
	stageTwoLists(nil)

	// A second version: stage one gets it and stage two waits for its approval. A cluster that
	// registers now in stage three, not reached by it, gets what that stage is on: the first.
	content.Data["cm.yaml"] = configMapManifest(skipNS, "skip-{{ .ClusterName }}", "v2")
	updateConfigMap(t, content.Name, content.Data)
	expectSkipValue(t, where, "a", "v2")
	expectSkipValue(t, where, "c", "v2")
	expectStageTwo(awaitingApprovalWords)
	registerTenantCluster(t, skipNS, "late3b", "qa", stageOf("three"))
	where["late3b"] = "qa"
	expectSkipValue(t, where, "late3b", "v1")
	expectSkipValue(t, where, "d", "v1")
}

// awaitingApprovalWords is the stage description of a manual gate.
const awaitingApprovalWords = "Paused: Awaiting Manual Approval"

func findStage(p *configv1beta1.ClusterPromotion, name string) *configv1beta1.StageStatus {
	for i := range p.Status.Stages {
		if p.Status.Stages[i].Name == name {
			return &p.Status.Stages[i]
		}
	}
	return nil
}

// expectSkipValue waits until the registration's ConfigMap holds value on its sandbox cluster.
func expectSkipValue(t *testing.T, where map[string]string, cluster, value string) {
	t.Helper()
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		cm, err := managed(t, where[cluster]).CoreV1().ConfigMaps(skipNS).Get(ctx, "skip-"+cluster, metav1.GetOptions{})
		if err != nil || cm.Data["value"] != value {
			return fmt.Errorf("%s: skip-%s holds %v (%v), want %s", where[cluster], cluster, cm.Data, err, value)
		}
		return nil
	})
}

// expectNoSkipValue checks that the registration's ConfigMap is not on its sandbox cluster.
func expectNoSkipValue(t *testing.T, where map[string]string, cluster string) {
	t.Helper()
	_, err := managed(t, where[cluster]).CoreV1().ConfigMaps(skipNS).Get(t.Context(), "skip-"+cluster, metav1.GetOptions{})
	if !apierrors.IsNotFound(err) {
		t.Errorf("%s: skip-%s is there (%v), want nothing", where[cluster], cluster, err)
	}
}

// registerSkipCluster registers the sandbox cluster as skipNS/name; dead points its kubeconfig
// at a loopback port nothing listens on. It does not wait for the cluster.
func registerSkipCluster(t *testing.T, name, sandboxCluster string, labels map[string]string, dead bool) registration.Cluster {
	t.Helper()
	kubeconfig := sandboxKubeconfig(t, sandboxCluster)
	if dead {
		kubeconfig = deadSkipKubeconfig(t, kubeconfig)
	}
	c := testenv.Client(t)
	reg := registration.Cluster{Namespace: skipNS, Name: name, Labels: labels, Kubeconfig: kubeconfig, Manager: "e2e-profile", CreateNamespace: true}
	if err := registration.Register(t.Context(), c, reg); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if _, err := registration.Unregister(context.Background(), c, skipNS, name); client.IgnoreNotFound(err) != nil {
			t.Errorf("unregistering %s/%s: %v", skipNS, name, err)
		}
	})
	return reg
}

// deadSkipKubeconfig is kubeconfig with its server moved to a loopback port nothing listens on.
func deadSkipKubeconfig(t *testing.T, kubeconfig []byte) []byte {
	t.Helper()
	cfg, err := clientcmd.Load(kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	for _, cl := range cfg.Clusters {
		cl.Server = "https://" + addr
	}
	out, err := clientcmd.Write(*cfg)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func ptrString(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func sandboxKubeconfig(t *testing.T, name string) []byte {
	t.Helper()
	for _, c := range testenv.Fleet.Managed {
		if c.Name == name {
			out, err := os.ReadFile(c.Kubeconfig)
			if err != nil {
				t.Fatal(err)
			}
			return out
		}
	}
	t.Fatalf("no sandbox cluster %s", name)
	return nil
}
