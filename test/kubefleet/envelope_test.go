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

package kubefleet

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
)

// The envelopes of Kubefleet's "Using Envelope Objects to Place Resources", with objects that
// harm nothing: the webhook calls a service that does not exist, for namespaces nobody labels,
// and fails open.
const (
	webhookEnvelope = `
apiVersion: placement.kubernetes-fleet.io/v1beta1
kind: ClusterResourceEnvelope
metadata:
  name: envelope-webhooks
data:
  "webhook.yaml":
    apiVersion: admissionregistration.k8s.io/v1
    kind: ValidatingWebhookConfiguration
    metadata:
      name: envelope-guard
    webhooks:
    - name: guard.example.com
      failurePolicy: Ignore
      namespaceSelector:
        matchLabels:
          envelope-guard: never
      rules:
      - operations: ["CREATE"]
        apiGroups: [""]
        apiVersions: ["v1"]
        resources: ["configmaps"]
      clientConfig:
        service:
          name: no-such-guard
          namespace: envelope-app
      admissionReviewVersions: ["v1"]
      sideEffects: None
      timeoutSeconds: 1
`
	appNamespace = `
apiVersion: v1
kind: Namespace
metadata:
  name: envelope-app
`
	quotaEnvelope = `
apiVersion: placement.kubernetes-fleet.io/v1beta1
kind: ResourceEnvelope
metadata:
  name: envelope-quota
  namespace: envelope-app
data:
  "quota.yaml":
    apiVersion: v1
    kind: ResourceQuota
    metadata:
      name: envelope-quota
      namespace: envelope-app
    spec:
      hard:
        configmaps: "50"
`
	envelopePlacement = `
apiVersion: placement.kubernetes-fleet.io/v1beta1
kind: ClusterResourcePlacement
metadata:
  name: envelopes
spec:
  resourceSelectors:
  - group: placement.kubernetes-fleet.io
    kind: ClusterResourceEnvelope
    name: envelope-webhooks
    version: v1beta1
  - group: ""
    kind: Namespace
    name: envelope-app
    version: v1
  policy:
    placementType: PickAll
  strategy:
    type: RollingUpdate
`
)

// createYAML creates the object y describes and deletes it when the test ends.
func createYAML(t *testing.T, y string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(y), &u.Object); err != nil {
		t.Fatal(err)
	}
	c := testenv.Client(t)
	if err := c.Create(t.Context(), u); err != nil {
		t.Fatalf("creating %s %s: %v", u.GetKind(), u.GetName(), err)
	}
	t.Cleanup(func() { _ = c.Delete(context.Background(), u) })
	return u
}

// envelopeContents reads, on a cluster, the webhook configuration and the quota the envelopes
// carry.
func envelopeContents(ctx context.Context, cs kubernetes.Interface) (webhook, quota error) {
	_, webhook = cs.AdmissionregistrationV1().ValidatingWebhookConfigurations().Get(ctx, "envelope-guard", metav1.GetOptions{})
	_, quota = cs.CoreV1().ResourceQuotas("envelope-app").Get(ctx, "envelope-quota", metav1.GetOptions{})
	return webhook, quota
}

// TestEnvelopes: what a ClusterResourceEnvelope and a ResourceEnvelope carry reaches every
// member, and never takes effect on the hub, where only the envelopes are.
func TestEnvelopes(t *testing.T) {
	t.Parallel()
	c := testenv.Client(t)
	createYAML(t, webhookEnvelope)
	createYAML(t, appNamespace)
	createYAML(t, quotaEnvelope)
	createYAML(t, envelopePlacement)

	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		for _, m := range members {
			if webhook, quota := envelopeContents(ctx, member(t, m)); webhook != nil || quota != nil {
				return fmt.Errorf("%s: webhook configuration: %v; quota: %v", m, webhook, quota)
			}
		}
		return nil
	})
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		p := &placementv1beta1.ClusterResourcePlacement{}
		if err := c.Get(ctx, client.ObjectKey{Name: "envelopes"}, p); err != nil {
			return err
		}
		if !meta.IsStatusConditionTrue(p.Status.Conditions, string(placementv1beta1.ClusterResourcePlacementAvailableConditionType)) {
			return fmt.Errorf("not available: %+v", p.Status.Conditions)
		}
		// As in Kubefleet, the envelopes are the selected resources, not what they carry.
		var selected []string
		for _, r := range p.Status.SelectedResources {
			selected = append(selected, r.Kind+" "+r.Name)
		}
		want := []string{"ClusterResourceEnvelope envelope-webhooks", "Namespace envelope-app", "ResourceEnvelope envelope-quota"}
		slices.Sort(selected)
		if !slices.Equal(selected, want) {
			return fmt.Errorf("selected %v, want %v", selected, want)
		}
		return nil
	})

	snap := &placementv1beta1.ClusterResourceSnapshot{}
	if err := c.Get(t.Context(), client.ObjectKey{Name: placementv1beta1.ResourceSnapshotName("envelopes", 0)}, snap); err != nil {
		t.Fatal(err)
	}
	if n := snap.Annotations[placementv1beta1.NumberOfEnvelopedObjectsAnnotation]; n != "2" {
		t.Errorf("%s = %q, want 2", placementv1beta1.NumberOfEnvelopedObjectsAnnotation, n)
	}
	hub, err := kubernetes.NewForConfig(testenv.Fleet.Management.Config)
	if err != nil {
		t.Fatal(err)
	}
	if webhook, quota := envelopeContents(t.Context(), hub); !apierrors.IsNotFound(webhook) || !apierrors.IsNotFound(quota) {
		t.Errorf("on the hub: webhook configuration: %v; quota: %v; want both not found", webhook, quota)
	}
}

// TestBadEnvelope: an envelope that carries what it may not fails each cluster's binding in
// Kubefleet's words, naming the envelope, and what the members run stays.
func TestBadEnvelope(t *testing.T) {
	t.Parallel()
	c := testenv.Client(t)
	env := createYAML(t, `
apiVersion: placement.kubernetes-fleet.io/v1beta1
kind: ClusterResourceEnvelope
metadata:
  name: envelope-bad
data:
  "role.yaml":
    apiVersion: rbac.authorization.k8s.io/v1
    kind: ClusterRole
    metadata:
      name: envelope-reader
    rules:
    - apiGroups: [""]
      resources: ["configmaps"]
      verbs: ["get"]
`)
	createYAML(t, `
apiVersion: placement.kubernetes-fleet.io/v1beta1
kind: ClusterResourcePlacement
metadata:
  name: envelope-bad
spec:
  resourceSelectors:
  - group: placement.kubernetes-fleet.io
    kind: ClusterResourceEnvelope
    name: envelope-bad
    version: v1beta1
  policy:
    placementType: PickAll
  strategy:
    type: RollingUpdate
    rollingUpdate:
      maxUnavailable: 100%
`)
	roles := func(ctx context.Context) error {
		for _, m := range members {
			if _, err := member(t, m).RbacV1().ClusterRoles().Get(ctx, "envelope-reader", metav1.GetOptions{}); err != nil {
				return fmt.Errorf("%s: %w", m, err)
			}
		}
		return nil
	}
	testenv.Eventually(t, timeout, roles)

	// A namespaced object in a ClusterResourceEnvelope.
	_ = unstructured.SetNestedField(env.Object, map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "stray", "namespace": "default"},
	}, "data", "cm.yaml")
	if err := c.Update(t.Context(), env); err != nil {
		t.Fatal(err)
	}
	want := "a namespaced object cm.yaml (default/stray) has been wrapped in a cluster resource envelope envelope-bad"
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		p := &placementv1beta1.ClusterResourcePlacement{}
		if err := c.Get(ctx, client.ObjectKey{Name: "envelope-bad"}, p); err != nil {
			return err
		}
		if len(p.Status.PerClusterPlacementStatuses) != len(members) {
			return fmt.Errorf("%d cluster statuses", len(p.Status.PerClusterPlacementStatuses))
		}
		for _, st := range p.Status.PerClusterPlacementStatuses {
			applied := meta.FindStatusCondition(st.Conditions, string(placementv1beta1.PerClusterAppliedConditionType))
			if applied == nil || applied.Status != metav1.ConditionFalse || !strings.Contains(applied.Message, want) {
				return fmt.Errorf("%s: applied %+v", st.ClusterName, applied)
			}
			if len(st.FailedPlacements) != 1 {
				return fmt.Errorf("%s: failed placements %+v", st.ClusterName, st.FailedPlacements)
			}
			f := st.FailedPlacements[0]
			if f.Kind != "ConfigMap" || f.Name != "stray" || f.Envelope == nil || f.Envelope.Name != "envelope-bad" ||
				f.Envelope.Type != placementv1beta1.ClusterResourceEnvelopeType {
				return fmt.Errorf("%s: failed placement %+v, envelope %+v", st.ClusterName, f.ResourceIdentifier, f.Envelope)
			}
		}
		return nil
	})
	if err := roles(t.Context()); err != nil {
		t.Errorf("what the members ran is gone: %v", err)
	}

	// Fixed: the envelope now carries another ClusterRole; the one it no longer carries goes.
	if err := c.Get(t.Context(), client.ObjectKeyFromObject(env), env); err != nil {
		t.Fatal(err)
	}
	_ = unstructured.SetNestedField(env.Object, map[string]any{"role.yaml": map[string]any{
		"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": map[string]any{"name": "envelope-writer"},
	}}, "data")
	if err := c.Update(t.Context(), env); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		for _, m := range members {
			rbac := member(t, m).RbacV1().ClusterRoles()
			if _, err := rbac.Get(ctx, "envelope-writer", metav1.GetOptions{}); err != nil {
				return fmt.Errorf("%s: %w", m, err)
			}
			if _, err := rbac.Get(ctx, "envelope-reader", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				return fmt.Errorf("%s still has envelope-reader (%v)", m, err)
			}
		}
		return nil
	})

	// What the schema refuses: no entries, an entry that is not an object.
	for _, data := range []string{`{}`, `{"x.yaml": "kind: ConfigMap"}`, `{"x.yaml": [1]}`} {
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal([]byte(`{apiVersion: placement.kubernetes-fleet.io/v1beta1, kind: ClusterResourceEnvelope,
		  metadata: {name: envelope-refused}, data: `+data+`}`), &u.Object); err != nil {
			t.Fatal(err)
		}
		if err := c.Create(t.Context(), u); !apierrors.IsInvalid(err) {
			t.Errorf("data %s: got %v, want the API server to refuse it", data, err)
			_ = c.Delete(context.Background(), u)
		}
	}
}

// TestResourcePlacementEnvelope: a ResourcePlacement selects a ResourceEnvelope of its namespace
// by name, and places what it carries, not the envelope.
func TestResourcePlacementEnvelope(t *testing.T) {
	t.Parallel()
	createYAML(t, `{apiVersion: v1, kind: Namespace, metadata: {name: envelope-rp}}`)
	createYAML(t, `
apiVersion: placement.kubernetes-fleet.io/v1beta1
kind: ResourceEnvelope
metadata:
  name: limits
  namespace: envelope-rp
data:
  "quota.yaml":
    apiVersion: v1
    kind: ResourceQuota
    metadata:
      name: rp-quota
      namespace: envelope-rp
    spec:
      hard:
        secrets: "20"
`)
	createYAML(t, `
apiVersion: placement.kubernetes-fleet.io/v1beta1
kind: ResourcePlacement
metadata:
  name: envelope-rp
  namespace: envelope-rp
spec:
  resourceSelectors:
  - group: placement.kubernetes-fleet.io
    kind: ResourceEnvelope
    name: limits
    version: v1beta1
  policy:
    placementType: PickAll
  strategy:
    type: RollingUpdate
`)
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		for _, m := range members {
			if _, err := member(t, m).CoreV1().ResourceQuotas("envelope-rp").Get(ctx, "rp-quota", metav1.GetOptions{}); err != nil {
				return fmt.Errorf("%s: %w", m, err)
			}
		}
		return nil
	})
	hub, err := kubernetes.NewForConfig(testenv.Fleet.Management.Config)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := hub.CoreV1().ResourceQuotas("envelope-rp").Get(t.Context(), "rp-quota", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the quota on the hub: %v, want not found", err)
	}
}
