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

package render

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/deploy/manifests"
)

func snapshotObject(t *testing.T, item int, y string) manifests.Object {
	t.Helper()
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(y), &u.Object); err != nil {
		t.Fatal(err)
	}
	return manifests.Object{Manifest: u, Source: fmt.Sprintf("ClusterResourceSnapshot p-0-snapshot item %d", item)}
}

const webhookEnvelope = `
apiVersion: placement.kubernetes-fleet.io/v1beta1
kind: ClusterResourceEnvelope
metadata: {name: guards}
data:
  webhook.yaml:
    apiVersion: admissionregistration.k8s.io/v1
    kind: ValidatingWebhookConfiguration
    metadata: {name: guard}
  clusterrole.yaml:
    apiVersion: rbac.authorization.k8s.io/v1
    kind: ClusterRole
    metadata: {name: pod-reader}
`

const quotaEnvelope = `
apiVersion: placement.kubernetes-fleet.io/v1beta1
kind: ResourceEnvelope
metadata: {name: limits, namespace: app}
data:
  quota.yaml:
    apiVersion: v1
    kind: ResourceQuota
    metadata: {name: quota, namespace: app}
    spec: {hard: {pods: "10"}}
`

func TestExpandEnvelopes(t *testing.T) {
	objs := []manifests.Object{
		snapshotObject(t, 1, "{apiVersion: v1, kind: Namespace, metadata: {name: app}}"),
		snapshotObject(t, 2, webhookEnvelope),
		snapshotObject(t, 3, quotaEnvelope),
		// Kubefleet no longer opens ConfigMaps with its older envelope annotation: placed as is.
		snapshotObject(t, 4, `{apiVersion: v1, kind: ConfigMap, metadata: {name: old, namespace: app,
		  annotations: {kubernetes-fleet.io/envelope-configmap: "true"}}, data: {cm.yaml: "kind: ResourceQuota"}}`),
	}
	out, err := expandEnvelopes(objs)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, o := range out {
		e := EnvelopeOf(o)
		envelope := "-"
		if e != nil {
			envelope = string(e.Type) + ":" + e.Namespace + "/" + e.Name
		}
		got = append(got, manifests.RefOf(o.Manifest).String()+" "+envelope)
	}
	want := []string{
		"Namespace app -",
		// In the order of their keys.
		"ClusterRole pod-reader ClusterResourceEnvelope:/guards",
		"ValidatingWebhookConfiguration guard ClusterResourceEnvelope:/guards",
		"ResourceQuota app/quota ResourceEnvelope:app/limits",
		"ConfigMap app/old -",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if s := out[3].Source; s != `ResourceEnvelope app/limits data "quota.yaml" in ClusterResourceSnapshot p-0-snapshot item 3` {
		t.Errorf("source %q", s)
	}
	if v, _, _ := unstructured.NestedString(out[3].Manifest.Object, "spec", "hard", "pods"); v != "10" {
		t.Errorf("the quota lost its content: %v", out[3].Manifest.Object)
	}
}

func TestBadEnvelopes(t *testing.T) {
	for _, tc := range []struct {
		name, envelope, want string
		failed               placementv1beta1.ResourceIdentifier
	}{{
		name: "namespaced object in a ClusterResourceEnvelope",
		envelope: `{apiVersion: placement.kubernetes-fleet.io/v1beta1, kind: ClusterResourceEnvelope, metadata: {name: e},
		  data: {q.yaml: {apiVersion: v1, kind: ResourceQuota, metadata: {name: q, namespace: app}}}}`,
		want: "a namespaced object q.yaml (app/q) has been wrapped in a cluster resource envelope e " +
			"(from ClusterResourceSnapshot p-0-snapshot item 1)",
		failed: placementv1beta1.ResourceIdentifier{Version: "v1", Kind: "ResourceQuota", Namespace: "app", Name: "q",
			Envelope: &placementv1beta1.EnvelopeIdentifier{Name: "e", Type: placementv1beta1.ClusterResourceEnvelopeType}},
	}, {
		name: "cluster-scoped object in a ResourceEnvelope",
		envelope: `{apiVersion: placement.kubernetes-fleet.io/v1beta1, kind: ResourceEnvelope, metadata: {name: e, namespace: app},
		  data: {r.yaml: {apiVersion: rbac.authorization.k8s.io/v1, kind: ClusterRole, metadata: {name: r}}}}`,
		want: "a cluster scope object r.yaml (r) has been wrapped in a resource envelope app/e",
		failed: placementv1beta1.ResourceIdentifier{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "ClusterRole", Name: "r",
			Envelope: &placementv1beta1.EnvelopeIdentifier{Name: "e", Namespace: "app", Type: placementv1beta1.ResourceEnvelopeType}},
	}, {
		name: "object of another namespace in a ResourceEnvelope",
		envelope: `{apiVersion: placement.kubernetes-fleet.io/v1beta1, kind: ResourceEnvelope, metadata: {name: e, namespace: app},
		  data: {q.yaml: {apiVersion: v1, kind: ResourceQuota, metadata: {name: q, namespace: other}}}}`,
		want: "a namespaced object q.yaml (other/q) has been wrapped in a resource envelope from another namespace (app/e)",
		failed: placementv1beta1.ResourceIdentifier{Version: "v1", Kind: "ResourceQuota", Namespace: "other", Name: "q",
			Envelope: &placementv1beta1.EnvelopeIdentifier{Name: "e", Namespace: "app", Type: placementv1beta1.ResourceEnvelopeType}},
	}, {
		name: "content that is not a Kubernetes object",
		envelope: `{apiVersion: placement.kubernetes-fleet.io/v1beta1, kind: ClusterResourceEnvelope, metadata: {name: e},
		  data: {x.yaml: {foo: bar}}}`,
		want:   "failed to parse the wrapped manifest data to a Kubernetes runtime object (manifestKey=x.yaml,envelopeObjRef=e): Object 'Kind' is missing",
		failed: placementv1beta1.ResourceIdentifier{Group: placementv1beta1.GroupName, Version: "v1beta1", Kind: "ClusterResourceEnvelope", Name: "e"},
	}, {
		name:     "envelope without data",
		envelope: `{apiVersion: placement.kubernetes-fleet.io/v1beta1, kind: ResourceEnvelope, metadata: {name: e, namespace: app}}`,
		want:     "ResourceEnvelope app/e carries no objects",
		failed:   placementv1beta1.ResourceIdentifier{Group: placementv1beta1.GroupName, Version: "v1beta1", Kind: "ResourceEnvelope", Namespace: "app", Name: "e"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			good := snapshotObject(t, 2, "{apiVersion: v1, kind: Namespace, metadata: {name: app}}")
			_, err := expandEnvelopes([]manifests.Object{snapshotObject(t, 1, tc.envelope), good})
			var in *InputError
			if !errors.As(err, &in) {
				t.Fatalf("got %v, want an InputError", err)
			}
			if !strings.Contains(in.Message, tc.want) || in.Reason != placementv1beta1.WorkNotAppliedReason {
				t.Errorf("got %s: %q, want %q", in.Reason, in.Message, tc.want)
			}
			if len(in.Failed) != 1 || !sameIdentifier(in.Failed[0].ResourceIdentifier, tc.failed) ||
				in.Failed[0].Condition.Status != metav1.ConditionFalse || in.Failed[0].Condition.Message != in.Message {
				t.Errorf("failed placements %+v, want %+v", in.Failed, tc.failed)
			}
		})
	}
}

func sameIdentifier(a, b placementv1beta1.ResourceIdentifier) bool {
	ea, eb := a.Envelope, b.Envelope
	a.Envelope, b.Envelope = nil, nil
	return a == b && (ea == nil) == (eb == nil) && (ea == nil || *ea == *eb)
}
