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
	"errors"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/freeze"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
)

// TestProfileCopiesGoWithIt: a Profile's frozen copies are made in the controller's namespace,
// labelled with the Profile's namespace (a Profile cannot own objects of another namespace),
// and deleted with the Profile; nothing is written in the Profile's namespace.
func TestProfileCopiesGoWithIt(t *testing.T) {
	t.Parallel()
	const ns, name = "e2e-frozen-profile", "e2e-frozen-profile"
	c := testenv.Client(t)
	ctx := t.Context()
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Delete(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}) })
	createConfigMapIn(t, ns, "content", map[string]string{"cm.yaml": configMapManifest(ns, "deployed", "v1")})
	p := &configv1beta1.Profile{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	p.Spec.ClusterSelector.MatchLabels = map[string]string{"e2e-frozen-profile": "no-cluster"}
	p.Spec.PolicyRefs = []configv1beta1.PolicyRef{{Kind: "ConfigMap", Namespace: ns, Name: "content"}}
	if err := c.Create(ctx, p); err != nil {
		t.Fatal(err)
	}
	mine := client.MatchingLabels{freeze.OwnerLabel: name, freeze.OwnerKindLabel: "Profile", freeze.OwnerNamespaceLabel: ns}
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		var copies corev1.ConfigMapList
		if err := c.List(ctx, &copies, client.InNamespace(testenv.ChartNamespace), mine); err != nil {
			return err
		}
		if len(copies.Items) != 1 || copies.Items[0].Annotations[freeze.SourceAnnotation] != "ConfigMap "+ns+"/content" {
			return fmt.Errorf("copies in %s: %d", testenv.ChartNamespace, len(copies.Items))
		}
		return nil
	})
	var here corev1.ConfigMapList
	if err := c.List(ctx, &here, client.InNamespace(ns), client.HasLabels{freeze.OwnerLabel}); err != nil || len(here.Items) != 0 {
		t.Errorf("copies in the Profile's namespace: %d (%v)", len(here.Items), err)
	}
	if err := c.Delete(ctx, p); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		if err := c.Get(ctx, client.ObjectKeyFromObject(p), &configv1beta1.Profile{}); !apierrors.IsNotFound(err) {
			return fmt.Errorf("the Profile is still there (%v)", err)
		}
		var copies corev1.ConfigMapList
		if err := c.List(ctx, &copies, client.InNamespace(testenv.ChartNamespace), mine); err != nil {
			return err
		}
		if len(copies.Items) != 0 {
			return errors.New("the Profile's copy outlives it")
		}
		return nil
	})
}
