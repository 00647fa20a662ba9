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

package sveltoscluster

import (
	"errors"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/fleet"
	"github.com/stagecoach-dev/stagecoach/internal/scheme"
)

func TestObserve(t *testing.T) {
	refused := errors.New("cannot reach https://10.0.0.1:6443: connection refused")
	healthy := libv1beta1.SveltosClusterStatus{Ready: true, ConnectionStatus: libv1beta1.ConnectionHealthy, Version: "v1.36.3"}
	failing := func(n int) libv1beta1.SveltosClusterStatus {
		s := healthy
		s.FailureMessage, s.ConnectionFailures = ptr.To(refused.Error()), n
		return s
	}
	down := libv1beta1.SveltosClusterStatus{ConnectionStatus: libv1beta1.ConnectionDown, Version: "v1.36.3",
		FailureMessage: ptr.To(refused.Error()), ConnectionFailures: 3}
	for _, tc := range []struct {
		name      string
		status    libv1beta1.SveltosClusterStatus
		threshold int
		version   string
		err       error
		want      libv1beta1.SveltosClusterStatus
	}{
		{name: "first success", version: "v1.36.3", threshold: 3, want: healthy},
		{name: "one failure is explained but changes nothing else", status: healthy, threshold: 3, err: refused, want: failing(1)},
		{name: "second failure", status: failing(1), threshold: 3, err: refused, want: failing(2)},
		{name: "the threshold-th failure turns it Down", status: failing(2), threshold: 3, err: refused, want: down},
		{name: "failures past the threshold change nothing", status: down, threshold: 3, err: refused, want: down},
		{name: "one success resets", status: down, threshold: 3, version: "v1.36.3", want: healthy},
		{name: "a new version is recorded", status: healthy, threshold: 3, version: "v1.37.0",
			want: libv1beta1.SveltosClusterStatus{Ready: true, ConnectionStatus: libv1beta1.ConnectionHealthy, Version: "v1.37.0"}},
		{name: "threshold 1", status: healthy, threshold: 1, err: refused,
			want: libv1beta1.SveltosClusterStatus{ConnectionStatus: libv1beta1.ConnectionDown, Version: "v1.36.3",
				FailureMessage: ptr.To(refused.Error()), ConnectionFailures: 1}},
		{name: "never reached", threshold: 3, err: refused,
			want: libv1beta1.SveltosClusterStatus{FailureMessage: ptr.To(refused.Error()), ConnectionFailures: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status := *tc.status.DeepCopy()
			observe(&status, tc.threshold, tc.version, tc.err)
			if !equality.Semantic.DeepEqual(status, tc.want) {
				t.Errorf("got  %+v\nwant %+v", show(status), show(tc.want))
			}
		})
	}
}

func TestFailureThreshold(t *testing.T) {
	c := &libv1beta1.SveltosCluster{}
	if got := failureThreshold(c); got != DefaultFailureThreshold {
		t.Errorf("unset: %d", got)
	}
	c.Spec.ConsecutiveFailureThreshold = 5
	if got := failureThreshold(c); got != 5 {
		t.Errorf("5: %d", got)
	}
}

// TestClustersOfSecret checks which SveltosClusters a Secret event wakes up.
func TestClustersOfSecret(t *testing.T) {
	objs := []*libv1beta1.SveltosCluster{
		{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "a"}},
		{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "b"}, Spec: libv1beta1.SveltosClusterSpec{KubeconfigName: "a-sveltos-kubeconfig"}},
		{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "c"}, Spec: libv1beta1.SveltosClusterSpec{KubeconfigName: "shared"}},
		{ObjectMeta: metav1.ObjectMeta{Namespace: "other", Name: "a"}},
	}
	b := fake.NewClientBuilder().WithScheme(scheme.New()).
		WithIndex(&libv1beta1.SveltosCluster{}, fleet.KubeconfigSecretField, fleet.KubeconfigSecretIndexKeys)
	for _, o := range objs {
		b.WithObjects(o)
	}
	r := &Reconciler{client: b.Build()}
	for secret, want := range map[types.NamespacedName][]string{
		{Namespace: "a", Name: "a-sveltos-kubeconfig"}: {"a/a", "a/b"},
		{Namespace: "a", Name: "shared"}:               {"a/c"},
		{Namespace: "a", Name: "unrelated"}:            nil,
	} {
		got := r.clustersOfSecret(t.Context(), &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: secret.Namespace, Name: secret.Name}})
		var names []string
		for _, req := range got {
			names = append(names, req.String())
		}
		if len(names) != len(want) || (len(want) > 0 && !equality.Semantic.DeepEqual(names, want)) {
			t.Errorf("Secret %s woke %v, want %v", secret, names, want)
		}
	}
}

func show(s libv1beta1.SveltosClusterStatus) map[string]any {
	m := map[string]any{"ready": s.Ready, "connectionStatus": s.ConnectionStatus, "version": s.Version, "connectionFailures": s.ConnectionFailures}
	if s.FailureMessage != nil {
		m["failureMessage"] = *s.FailureMessage
	}
	return m
}
