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

package registration

import (
	"maps"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	clusterv1beta1 "github.com/stagecoach-dev/stagecoach/api/cluster/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/scheme"
)

// TestRegisterAndUnregister registers a cluster as SveltosCluster and MemberCluster, again with
// other labels and credentials, and unregisters it.
func TestRegisterAndUnregister(t *testing.T) {
	ctx := t.Context()
	c := fake.NewClientBuilder().WithScheme(scheme.New()).Build()
	r := Cluster{Namespace: "prod", Name: "eu-1", Labels: map[string]string{"env": "prod", "tier": "one"},
		Annotations: map[string]string{libv1beta1.ShardAnnotation: "a"}, Kubeconfig: []byte("v1"),
		Member: true, Manager: "test", CreateNamespace: true}
	if err := Register(ctx, c, r); err != nil {
		t.Fatal(err)
	}
	if err := c.Get(ctx, client.ObjectKey{Name: "prod"}, &corev1.Namespace{}); err != nil {
		t.Errorf("namespace prod: %v", err)
	}
	secret := &corev1.Secret{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: "prod", Name: "eu-1-sveltos-kubeconfig"}, secret); err != nil ||
		string(secret.Data[clusterv1beta1.KubeconfigSecretKey]) != "v1" {
		t.Errorf("Secret %v (%v)", secret.Data, err)
	}
	sc := &libv1beta1.SveltosCluster{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: "prod", Name: "eu-1"}, sc); err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(sc.Labels, r.Labels) || sc.Annotations[libv1beta1.ShardAnnotation] != "a" ||
		sc.KubeconfigSecretName() != SecretName("eu-1") || sc.Spec.KubeconfigKeyName != clusterv1beta1.KubeconfigSecretKey {
		t.Errorf("SveltosCluster %+v", sc)
	}
	m := &clusterv1beta1.MemberCluster{}
	if err := c.Get(ctx, client.ObjectKey{Name: "eu-1"}, m); err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(m.Labels, r.Labels) || m.Annotations[clusterv1beta1.KubeconfigSecretAnnotation] != "prod/eu-1-sveltos-kubeconfig" ||
		m.Annotations[libv1beta1.ShardAnnotation] != "a" || m.Spec.Identity.Name != "test" {
		t.Errorf("MemberCluster %+v", m)
	}

	// Again, with other labels and credentials: the labels the manager set before and not now go.
	r.Labels, r.Kubeconfig = map[string]string{"env": "prod2"}, []byte("v2")
	if err := Register(ctx, c, r); err != nil {
		t.Fatal(err)
	}
	if err := c.Get(ctx, client.ObjectKeyFromObject(sc), sc); err != nil || !maps.Equal(sc.Labels, r.Labels) {
		t.Errorf("labels %v (%v), want env=prod2 alone", sc.Labels, err)
	}
	if err := c.Get(ctx, client.ObjectKeyFromObject(secret), secret); err != nil || string(secret.Data[clusterv1beta1.KubeconfigSecretKey]) != "v2" {
		t.Errorf("Secret %v (%v), want the new kubeconfig", secret.Data, err)
	}

	msg, err := Unregister(ctx, c, "prod", "eu-1")
	if err != nil || msg != "unregistered SveltosCluster prod/eu-1, MemberCluster eu-1 and Secret prod/eu-1-sveltos-kubeconfig" {
		t.Errorf("unregister: %v: %q", err, msg)
	}
	for _, obj := range []client.Object{sc, m, secret} {
		if err := c.Get(ctx, client.ObjectKeyFromObject(obj), obj); !apierrors.IsNotFound(err) {
			t.Errorf("%T %s still there (%v)", obj, obj.GetName(), err)
		}
	}
	if _, err := Unregister(ctx, c, "prod", "eu-1"); !apierrors.IsNotFound(err) {
		t.Errorf("unregistering again: %v, want NotFound", err)
	}
}

// TestRegisterSveltosClusterOnly leaves the MemberCluster out, and one of the same name alone
// when unregistering: it reads another cluster's kubeconfig.
func TestRegisterSveltosClusterOnly(t *testing.T) {
	ctx := t.Context()
	other := &clusterv1beta1.MemberCluster{}
	other.Name, other.Annotations = "eu-1", map[string]string{clusterv1beta1.KubeconfigSecretAnnotation: "elsewhere/eu-1-sveltos-kubeconfig"}
	c := fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(other).Build()
	if err := Register(ctx, c, Cluster{Namespace: "prod", Name: "eu-1", Kubeconfig: []byte("v1"), Manager: "test"}); err != nil {
		t.Fatal(err)
	}
	m := &clusterv1beta1.MemberCluster{}
	if err := c.Get(ctx, client.ObjectKey{Name: "eu-1"}, m); err != nil || m.Annotations[clusterv1beta1.KubeconfigSecretAnnotation] != "elsewhere/eu-1-sveltos-kubeconfig" {
		t.Errorf("the MemberCluster of another registration changed: %v (%v)", m.Annotations, err)
	}
	msg, err := Unregister(ctx, c, "prod", "eu-1")
	if err != nil || msg != "unregistered SveltosCluster prod/eu-1 and Secret prod/eu-1-sveltos-kubeconfig" {
		t.Errorf("unregister: %v: %q", err, msg)
	}
	if err := c.Get(ctx, client.ObjectKey{Name: "eu-1"}, m); err != nil {
		t.Errorf("the MemberCluster of another registration went: %v", err)
	}
}
