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

package fleet

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/stagecoach-dev/stagecoach/internal/scheme"
)

// TestRenewedKubeconfigIsPreferred: a renewed copy in the controller's namespace is used while
// the cluster's own kubeconfig is the one it was made from; an edit of the cluster's Secret wins.
func TestRenewedKubeconfigIsPreferred(t *testing.T) {
	ctx := context.Background()
	ref := ClusterRef{Kind: KindSveltosCluster, Namespace: "ns", Name: "prod"}
	own := kubeconfigSecret("ns", "prod-sveltos-kubeconfig", []byte("original"))
	loc := RenewedKubeconfig("stagecoach-system", ref)
	if loc.Name != "ns.prod-renewed-kubeconfig" {
		t.Errorf("renewed kubeconfig name %q", loc.Name)
	}
	renewed := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: loc.Namespace, Name: loc.Name,
		Annotations: map[string]string{RenewedFromAnnotation: KubeconfigDigest([]byte("original"))}},
		Data: map[string][]byte{RenewedKey: []byte("renewed")}}
	c := fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(renewed).Build()
	ownLoc := KubeconfigSecret{Namespace: "ns", Name: own.Name, Key: "kubeconfig"}
	_, data, got, err := preferRenewed(ctx, c, "stagecoach-system", ref, own, []byte("original"), ownLoc)
	if err != nil || string(data) != "renewed" || got != loc {
		t.Errorf("unchanged kubeconfig: read %q from %v (%v), want the renewed copy", data, got, err)
	}
	_, data, got, err = preferRenewed(ctx, c, "stagecoach-system", ref, own, []byte("edited"), ownLoc)
	if err != nil || string(data) != "edited" || got != ownLoc {
		t.Errorf("edited kubeconfig: read %q from %v (%v), want the cluster's own", data, got, err)
	}
	member := ClusterRef{Kind: KindMemberCluster, Name: "prod"}
	if _, data, _, _ = preferRenewed(ctx, c, "stagecoach-system", member, own, []byte("original"), ownLoc); string(data) != "original" {
		t.Error("a MemberCluster reads a renewed SveltosCluster kubeconfig")
	}
}
