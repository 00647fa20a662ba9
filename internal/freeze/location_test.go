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

package freeze

import (
	"context"
	"errors"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/scheme"
	"github.com/stagecoach-dev/stagecoach/internal/tenancy"
)

// TestCopiesLiveInTheControllerNamespace: copies are made in the controller's namespace, read
// back only for references to their original's namespace, and collected there and where an
// earlier release made them; a Profile's go with it.
func TestCopiesLiveInTheControllerNamespace(t *testing.T) {
	ctx := context.Background()
	s := scheme.New()
	old := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "apps", Name: "old-0123456789",
		Labels: map[string]string{OwnerLabel: "p", OwnerKindLabel: "Profile"}}}
	mine := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: Namespace(), Name: "token-0123456789"}}
	c := fake.NewClientBuilder().WithScheme(s).WithObjects(old, mine).Build()
	owner := Owner{Object: &configv1beta1.Profile{ObjectMeta: metav1.ObjectMeta{Namespace: "apps", Name: "p", UID: "u"}}, Kind: "Profile"}
	ref := Ref{"Secret", "apps", "db"}
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "apps", Name: "db"}, Data: map[string][]byte{"k": []byte("v")}}
	names, err := Ensure(ctx, c, s, owner, []Content{{Ref: ref, Object: secret}})
	if err != nil {
		t.Fatal(err)
	}
	got := &corev1.Secret{}
	if ok, err := GetCopy(ctx, c, "apps", names[ref], got, nil); !ok || err != nil || string(got.Data["k"]) != "v" {
		t.Fatalf("GetCopy for apps = %v, %v, %v", ok, err, got.Data)
	}
	if len(got.OwnerReferences) != 0 || got.Labels[OwnerNamespaceLabel] != "apps" {
		t.Errorf("a Profile's copy has owner references %v and labels %v", got.OwnerReferences, got.Labels)
	}
	if ok, _ := GetCopy(ctx, c, "other", names[ref], &corev1.Secret{}, nil); ok {
		t.Error("a reference to another namespace reads apps' copy")
	}
	// The controller's own Secret is no copy: a reference never reads it.
	if ok, _ := GetCopy(ctx, c, Namespace(), mine.Name, &corev1.Secret{}, nil); ok {
		t.Error("a reference reads the controller's own Secret")
	}
	// Kept by its spec reference, collected otherwise; the old copy is collected too.
	if err := Collect(ctx, c, owner, Keep(names)); err != nil {
		t.Fatal(err)
	}
	if err := c.Get(ctx, client.ObjectKey{Namespace: Namespace(), Name: names[ref]}, &corev1.Secret{}); err != nil {
		t.Errorf("a kept copy was collected: %v", err)
	}
	if err := c.Get(ctx, client.ObjectKeyFromObject(old), &corev1.Secret{}); err == nil {
		t.Error("a copy an earlier release made beside its original was not collected")
	}
	if err := Collect(ctx, c, owner, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.Get(ctx, client.ObjectKey{Namespace: Namespace(), Name: names[ref]}, &corev1.Secret{}); err == nil {
		t.Error("the Profile's copy outlives it")
	}
	if err := c.Get(ctx, client.ObjectKeyFromObject(mine), &corev1.Secret{}); err != nil {
		t.Errorf("the controller's own Secret was deleted: %v", err)
	}
}

// TestEarlierCopiesLeftToGarbageCollection: a copy an earlier release made beside its original,
// which the controller may no longer delete or patch, is left to garbage collection with its
// owner; Collect and Release go on with the others.
func TestEarlierCopiesLeftToGarbageCollection(t *testing.T) {
	ctx := context.Background()
	s := scheme.New()
	labels := map[string]string{OwnerLabel: "p", OwnerKindLabel: "ClusterPromotion"}
	old := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "apps", Name: "old-0123456789", Labels: labels}}
	current := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: Namespace(), Name: "new-0123456789", Labels: labels}}
	forbidden := func(obj client.Object) error {
		if obj.GetNamespace() != Namespace() {
			return apierrors.NewForbidden(schema.GroupResource{Resource: "secrets"}, obj.GetName(), errors.New("outside the controller's namespace"))
		}
		return nil
	}
	c := fake.NewClientBuilder().WithScheme(s).WithObjects(old, current).WithInterceptorFuncs(interceptor.Funcs{
		Delete: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.DeleteOption) error {
			if err := forbidden(obj); err != nil {
				return err
			}
			return c.Delete(ctx, obj, opts...)
		},
		Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
			if err := forbidden(obj); err != nil {
				return err
			}
			return c.Patch(ctx, obj, patch, opts...)
		},
	}).Build()
	owner := Owner{Object: &configv1beta1.ClusterPromotion{ObjectMeta: metav1.ObjectMeta{Name: "p", UID: "u"}}, Kind: "ClusterPromotion"}
	if err := Release(ctx, c, owner); err != nil {
		t.Fatalf("Release: %v", err)
	}
	if err := Collect(ctx, c, owner, nil); err != nil {
		t.Fatalf("Collect: %v", err)
	}
	if err := c.Get(ctx, client.ObjectKeyFromObject(old), &corev1.Secret{}); err != nil {
		t.Errorf("the earlier copy: %v", err)
	}
}

// forbidden reads nothing: the tenant may not read the controller's namespace, nor the copy's
// name in its original's.
type forbidden struct{}

func (forbidden) Get(_ context.Context, key client.ObjectKey, _ client.Object, _ ...client.GetOption) error {
	return apierrors.NewForbidden(schema.GroupResource{Resource: "secrets"}, key.Name, errors.New("tenant"))
}

func (forbidden) List(context.Context, client.ObjectList, ...client.ListOption) error {
	return apierrors.NewForbidden(schema.GroupResource{Resource: "secrets"}, "", errors.New("tenant"))
}

// TestReadFindsNamedCopiesForTheirPromotion: a tenant's stage profile names its promotion's
// copies by their original's namespace; Read finds them in the controller's namespace, as the
// controller, and leaves them unfrozen; another promotion's copy is read as the tenant, who
// may not.
func TestReadFindsNamedCopiesForTheirPromotion(t *testing.T) {
	ctx := context.Background()
	s := scheme.New()
	c := fake.NewClientBuilder().WithScheme(s).Build()
	promotion := Owner{Object: &configv1beta1.ClusterPromotion{ObjectMeta: metav1.ObjectMeta{Name: "p", UID: "u"}}, Kind: "ClusterPromotion"}
	ref := Ref{"Secret", "kube-system", "values"}
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "values"}, Data: map[string][]byte{"k": []byte("v")}}
	names, err := Ensure(ctx, c, s, promotion, []Content{{Ref: ref, Object: secret}})
	if err != nil {
		t.Fatal(err)
	}
	named := Ref{"Secret", "kube-system", names[ref]}
	rd := tenancy.Readers{Controller: c, Tenant: forbidden{}, Who: "ServiceAccount t/sa", Copies: PromotionCopies("p")}
	got, err := Read(ctx, rd, []Ref{named})
	if err != nil || len(got) != 1 || got[0].Object == nil || string(got[0].Object.(*corev1.Secret).Data["k"]) != "v" {
		t.Fatalf("Read of the promotion's copy: %+v, %v", got, err)
	}
	if again, err := Ensure(ctx, c, s, promotion, got); err != nil || len(again) != 0 {
		t.Errorf("a copy named by a spec was copied again: %v, %v", again, err)
	}
	rd.Copies = PromotionCopies("q")
	if _, err := Read(ctx, rd, []Ref{named}); !apierrors.IsForbidden(err) {
		t.Errorf("Read of another promotion's copy: %v, want the tenant's refusal", err)
	}
}
