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

package tenancy

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/scheme"
)

// world is a management cluster with a ConfigMap x in namespaces a and b, a ClusterRole, a
// copy labelled as promotion p's, and promotions p (tenant t/sa) and admin (no tenant).
func world(t *testing.T) client.Client {
	t.Helper()
	s := scheme.New()
	mapper := meta.NewDefaultRESTMapper(nil)
	mapper.Add(corev1.SchemeGroupVersion.WithKind("ConfigMap"), meta.RESTScopeNamespace)
	mapper.Add(rbacv1.SchemeGroupVersion.WithKind("ClusterRole"), meta.RESTScopeRoot)
	mapper.Add(configv1beta1.GroupVersion.WithKind("ClusterPromotion"), meta.RESTScopeRoot)
	tenant := map[string]string{configv1beta1.ServiceAccountNameLabel: "sa", configv1beta1.ServiceAccountNamespaceLabel: "t"}
	return fake.NewClientBuilder().WithScheme(s).WithRESTMapper(mapper).WithObjects(
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "x"}},
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "b", Name: "x"}},
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "x-0123456789", Labels: map[string]string{"copy-of": "p"}}},
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "x-labelled", Labels: map[string]string{"copy-of": "p"}}},
		&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "admin"}},
		&configv1beta1.ClusterPromotion{ObjectMeta: metav1.ObjectMeta{Name: "p", Labels: tenant}},
		&configv1beta1.ClusterPromotion{ObjectMeta: metav1.ObjectMeta{Name: "admin"}},
	).Build()
}

// TestProfileWithoutServiceAccountIsConfined: a Profile without tenant labels reads as the
// controller, but only namespaced objects of its own namespace; anything else is refused by
// name, for good.
func TestProfileWithoutServiceAccountIsConfined(t *testing.T) {
	c := world(t)
	rd, err := New(c, nil).Readers(configv1beta1.Tenant{Namespace: "b"}, true)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := rd.Referenced().Get(ctx, client.ObjectKey{Namespace: "b", Name: "x"}, &corev1.ConfigMap{}); err != nil {
		t.Errorf("own namespace: %v", err)
	}
	for _, tc := range []struct {
		key  client.ObjectKey
		obj  client.Object
		want string
	}{
		{client.ObjectKey{Namespace: "a", Name: "x"}, &corev1.ConfigMap{}, `ConfigMap a/x is outside namespace "b"`},
		{client.ObjectKey{Namespace: "b", Name: "admin"}, &rbacv1.ClusterRole{}, `ClusterRole admin is cluster-scoped`},
	} {
		err := rd.Referenced().Get(ctx, tc.key, tc.obj)
		if !IsRefused(err) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want a refusal saying %q", tc.key, err, tc.want)
		}
	}
	if err := rd.Tenant.List(ctx, &corev1.ConfigMapList{}, client.InNamespace("b")); !IsRefused(err) {
		t.Errorf("List: %v, want a refusal", err)
	}
	if rd.Who != "" || rd.As() != "" {
		t.Errorf("Who %q: the controller reads", rd.Who)
	}
}

// TestOf: whose readers a profile gets from its labels.
func TestOf(t *testing.T) {
	c := world(t)
	tenants := New(c, nil)
	ctx := context.Background()
	profile := func(ns string, labels map[string]string) client.Object {
		return &configv1beta1.Profile{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "p", Labels: labels}}
	}
	rd, err := tenants.Of(ctx, profile("", nil), false, "", nil)
	if err != nil || rd.Tenant != client.Reader(c) || rd.Who != "" {
		t.Errorf("a platform admin's profile: %+v, %v; want the controller's reader", rd, err)
	}
	half := map[string]string{configv1beta1.ServiceAccountNameLabel: "sa"}
	if _, err := tenants.Of(ctx, profile("", half), false, "", nil); !IsRefused(err) {
		t.Errorf("half a pair of labels: %v, want a refusal", err)
	}
	other := map[string]string{configv1beta1.ServiceAccountNameLabel: "sa", configv1beta1.ServiceAccountNamespaceLabel: "a"}
	if _, err := tenants.Of(ctx, profile("b", other), true, "", nil); !IsRefused(err) || !strings.Contains(err.Error(), "own namespace") {
		t.Errorf("a Profile naming another namespace's ServiceAccount: %v, want a refusal", err)
	}
	// Without a connection to impersonate with, a tenant's read cannot happen as anyone else.
	if _, err := tenants.Of(ctx, profile("", other), false, "", nil); err == nil {
		t.Error("a tenant without a management connection was given readers")
	}
}

// failing reads nothing.
type failing struct{ err error }

func (f failing) Get(context.Context, client.ObjectKey, client.Object, ...client.GetOption) error {
	return f.err
}

func (f failing) List(context.Context, client.ObjectList, ...client.ListOption) error { return f.err }

// TestReferencedReadsOwnCopiesAsController: a copy carrying the profile's copy labels is the
// controller's to read; anything else the spec names is read as the tenant.
func TestReferencedReadsOwnCopiesAsController(t *testing.T) {
	c := world(t)
	denied := errors.New("forbidden")
	rd := Readers{Controller: c, Tenant: failing{denied}, Who: "ServiceAccount t/sa", Copies: map[string]string{"copy-of": "p"}}
	ctx := context.Background()
	if err := rd.Referenced().Get(ctx, client.ObjectKey{Namespace: "a", Name: "x-0123456789"}, &corev1.ConfigMap{}); err != nil {
		t.Errorf("own copy: %v", err)
	}
	if err := rd.Referenced().Get(ctx, client.ObjectKey{Namespace: "a", Name: "x"}, &corev1.ConfigMap{}); !errors.Is(err, denied) {
		t.Errorf("original: %v, want the tenant's answer", err)
	}
	// A name no copy has is the tenant's to read, whatever its labels.
	if err := rd.Referenced().Get(ctx, client.ObjectKey{Namespace: "a", Name: "x-labelled"}, &corev1.ConfigMap{}); !errors.Is(err, denied) {
		t.Errorf("a labelled object not named as a copy: %v, want the tenant's answer", err)
	}
	rd.Copies = map[string]string{"copy-of": "q"}
	if err := rd.Referenced().Get(ctx, client.ObjectKey{Namespace: "a", Name: "x-0123456789"}, &corev1.ConfigMap{}); !errors.Is(err, denied) {
		t.Errorf("another owner's copy: %v, want the tenant's answer", err)
	}
	if got := rd.As(); got != " as ServiceAccount t/sa" {
		t.Errorf("As() = %q", got)
	}
}

// TestOfCopiesOfTheSameTenantsPromotion: a stage profile reads its promotion's copies as the
// controller only when the promotion is the same tenant's.
func TestOfCopiesOfTheSameTenantsPromotion(t *testing.T) {
	c := world(t)
	tenants := New(c, nil)
	copies := map[string]string{"copy-of": "p"}
	admin := &configv1beta1.ClusterProfile{ObjectMeta: metav1.ObjectMeta{Name: "stage"}}
	rd, err := tenants.Of(context.Background(), admin, false, "p", copies)
	if err != nil || rd.Copies != nil {
		t.Errorf("an admin's profile under a tenant's promotion: copies %v (%v), want none", rd.Copies, err)
	}
	rd, err = tenants.Of(context.Background(), admin, false, "admin", copies)
	if err != nil || rd.Copies == nil {
		t.Errorf("an admin's profile under an admin's promotion: copies %v (%v)", rd.Copies, err)
	}
}

// TestRetries: the wait doubles from two seconds to a minute, and starts over once reset.
func TestRetries(t *testing.T) {
	var r Retries
	var got []time.Duration
	for range 8 {
		got = append(got, r.Next("a"))
	}
	want := []time.Duration{2 * time.Second, 4 * time.Second, 8 * time.Second, 16 * time.Second, 32 * time.Second,
		time.Minute, time.Minute, time.Minute}
	if !slices.Equal(got, want) {
		t.Errorf("waits %v, want %v", got, want)
	}
	if r.Next("b") != 2*time.Second {
		t.Error("another object shares the count")
	}
	r.Reset("a")
	if r.Next("a") != 2*time.Second {
		t.Error("a reset object does not start over")
	}
}
