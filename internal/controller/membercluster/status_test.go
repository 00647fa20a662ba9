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

package membercluster

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	clusterv1beta1 "github.com/stagecoach-dev/stagecoach/api/cluster/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/fleet"
	"github.com/stagecoach-dev/stagecoach/internal/scheme"
	"github.com/stagecoach-dev/stagecoach/internal/shard"
)

func TestObserve(t *testing.T) {
	refused := &fleet.ClusterError{Reason: fleet.ReasonUnreachable, Message: "cannot reach https://10.0.0.1:6443: connection refused"}
	for _, tc := range []struct {
		name     string
		before   conds
		failures int
		err      *fleet.ClusterError
		want     conds
	}{
		{name: "first success", want: conds{"True/Reachable", "True/Reachable"}},
		{name: "first failure of a new cluster", failures: 1, err: refused, want: conds{"Unknown/Unreachable", "False/Unreachable"}},
		{name: "a joined cluster stays joined below the threshold", before: conds{"True/Reachable", "True/Reachable"},
			failures: 2, err: refused, want: conds{"True/Reachable", "False/Unreachable"}},
		{name: "the threshold-th failure leaves", before: conds{"True/Reachable", "False/Unreachable"},
			failures: 3, err: refused, want: conds{"False/Unreachable", "False/Unreachable"}},
		{name: "a left cluster stays left after a restart resets the count", before: conds{"False/Unreachable", "False/Unreachable"},
			failures: 1, err: refused, want: conds{"False/Unreachable", "False/Unreachable"}},
		{name: "one success rejoins", before: conds{"False/Unreachable", "False/Unreachable"}, want: conds{"True/Reachable", "True/Reachable"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &clusterv1beta1.MemberCluster{ObjectMeta: metav1.ObjectMeta{Name: "m", Generation: 4}}
			setConds(c, tc.before)
			observe(c, 3, tc.failures, "v1.36.3", tc.err)
			if got := getConds(c); got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
			if v := c.Status.Properties[clusterv1beta1.K8sVersionProperty].Value; tc.err == nil && v != "v1.36.3" {
				t.Errorf("version property %q", v)
			}
			joined := meta.FindStatusCondition(c.Status.Conditions, "Joined")
			switch {
			case joined.ObservedGeneration != 4:
				t.Errorf("observedGeneration %d, want 4", joined.ObservedGeneration)
			case joined.Status == metav1.ConditionTrue && joined.Message != "The API server answers (Kubernetes v1.36.3)" && tc.err == nil:
				t.Errorf("Joined message %q", joined.Message)
			case joined.Status != metav1.ConditionTrue && joined.Message != refused.Message:
				t.Errorf("Joined message %q, want the failure", joined.Message)
			}
		})
	}
}

// conds are the Joined and Healthy conditions of a MemberCluster, each as "Status/Reason".
type conds struct{ joined, healthy string }

func setConds(c *clusterv1beta1.MemberCluster, cs conds) {
	for typ, v := range map[string]string{"Joined": cs.joined, "Healthy": cs.healthy} {
		if v == "" {
			continue
		}
		status, reason, _ := strings.Cut(v, "/")
		msg := "The API server answers (Kubernetes v1.36.3)"
		if status != "True" {
			msg = "cannot reach https://10.0.0.1:6443: connection refused"
		}
		meta.SetStatusCondition(&c.Status.Conditions, metav1.Condition{Type: typ, Status: metav1.ConditionStatus(status), Reason: reason, Message: msg})
	}
}

func getConds(c *clusterv1beta1.MemberCluster) conds {
	str := func(typ string) string {
		if cond := meta.FindStatusCondition(c.Status.Conditions, typ); cond != nil {
			return string(cond.Status) + "/" + cond.Reason
		}
		return ""
	}
	return conds{str("Joined"), str("Healthy")}
}

// TestClustersOfSecret checks which MemberClusters a Secret event wakes up.
func TestClustersOfSecret(t *testing.T) {
	annotated := func(name, secret string) *clusterv1beta1.MemberCluster {
		return &clusterv1beta1.MemberCluster{ObjectMeta: metav1.ObjectMeta{Name: name,
			Annotations: map[string]string{clusterv1beta1.KubeconfigSecretAnnotation: secret}}}
	}
	c := fake.NewClientBuilder().WithScheme(scheme.New()).
		WithIndex(&clusterv1beta1.MemberCluster{}, fleet.KubeconfigSecretField, fleet.KubeconfigSecretIndexKeys).
		WithObjects(annotated("m1", "fleet/m1"), annotated("m2", "fleet/shared"), annotated("m3", "fleet/shared"),
			&clusterv1beta1.MemberCluster{ObjectMeta: metav1.ObjectMeta{Name: "bare"}}).Build()
	r := &Reconciler{client: c}
	for secret, want := range map[string]int{"m1": 1, "shared": 2, "other": 0} {
		got := r.clustersOfSecret(t.Context(), &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "fleet", Name: secret}})
		if len(got) != want {
			t.Errorf("Secret fleet/%s woke %v, want %d clusters", secret, got, want)
		}
	}
}

func TestProbeInterval(t *testing.T) {
	r := &Reconciler{probe: fleet.ProbeOptions{ProbeInterval: 10 * time.Second}.WithDefaults(), census: &shard.Census{}}
	for hb, want := range map[int32]time.Duration{0: 10 * time.Second, 3: 3 * time.Second, 60: 10 * time.Second} {
		c := &clusterv1beta1.MemberCluster{Spec: clusterv1beta1.MemberClusterSpec{HeartbeatPeriodSeconds: hb}}
		if got := r.probeInterval(c, false); got != want {
			t.Errorf("heartbeatPeriodSeconds %d: probed every %v, want %v", hb, got, want)
		}
	}
}
