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
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/deploy/manifests"
)

// Envelopes: a ClusterResourceEnvelope or ResourceEnvelope is selected and snapshotted on the
// hub like any object, so that what it carries never takes effect there (a webhook configuration,
// a quota). A binding opens it here, before anything else changes the objects it applies: the
// member cluster gets the carried objects, never the envelope. The rules on what an envelope may
// carry, and their messages, are Kubefleet's work generator's (pkg/controllers/workgenerator).
// A ConfigMap with Kubefleet's older envelope annotation is placed as the ConfigMap it is, as
// Kubefleet does since it dropped that envelope.

// expandEnvelopes replaces each envelope among objs by the objects it carries, in the order of
// their keys. A carried object's Source names its envelope and key (EnvelopeOf reads it back).
// An envelope that carries something it may not is an InputError naming the envelope: nothing
// of the binding is applied then.
func expandEnvelopes(objs []manifests.Object) ([]manifests.Object, error) {
	out := make([]manifests.Object, 0, len(objs))
	for _, o := range objs {
		gvk := o.Manifest.GroupVersionKind()
		if !placementv1beta1.IsEnvelopeKind(gvk.Group, gvk.Kind) {
			out = append(out, o)
			continue
		}
		carried, err := openEnvelope(o)
		if err != nil {
			return nil, err
		}
		out = append(out, carried...)
	}
	return out, nil
}

// openEnvelope returns the objects envelope o carries, checked as Kubefleet checks them.
func openEnvelope(o manifests.Object) ([]manifests.Object, error) {
	env := o.Manifest
	kind, ref := env.GetKind(), objRef(env.GetNamespace(), env.GetName())
	id := placementv1beta1.EnvelopeIdentifier{Name: env.GetName(), Namespace: env.GetNamespace(), Type: placementv1beta1.EnvelopeType(kind)}
	data, _, err := unstructured.NestedMap(env.Object, "data")
	if err != nil || len(data) == 0 {
		// The API server refuses such an envelope; a snapshot written by hand may still hold one.
		return nil, envelopeError(o, nil, "%s %s carries no objects: its data must map keys to objects", kind, ref)
	}
	keys := slices.Sorted(maps.Keys(data))
	out := make([]manifests.Object, 0, len(keys))
	for _, k := range keys {
		raw, err := json.Marshal(data[k])
		if err != nil {
			return nil, envelopeError(o, nil, "%s %s data %q: %v", kind, ref, k, err)
		}
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON(raw); err != nil {
			return nil, envelopeError(o, nil,
				"failed to parse the wrapped manifest data to a Kubernetes runtime object (manifestKey=%s,envelopeObjRef=%s): %v", k, ref, err)
		}
		resRef := objRef(u.GetNamespace(), u.GetName())
		switch {
		case kind == placementv1beta1.ClusterResourceEnvelopeKind && u.GetNamespace() != "":
			return nil, envelopeError(o, u, "a namespaced object %s (%s) has been wrapped in a cluster resource envelope %s", k, resRef, ref)
		case kind == placementv1beta1.ResourceEnvelopeKind && u.GetNamespace() == "":
			return nil, envelopeError(o, u, "a cluster scope object %s (%s) has been wrapped in a resource envelope %s", k, resRef, ref)
		case u.GetNamespace() != env.GetNamespace():
			return nil, envelopeError(o, u, "a namespaced object %s (%s) has been wrapped in a resource envelope from another namespace (%s)", k, resRef, ref)
		}
		out = append(out, manifests.Object{
			Manifest: u,
			Source:   fmt.Sprintf("%s %s data %q in %s", kind, envelopeRef(id), k, o.Source),
			Options:  o.Options,
		})
	}
	return out, nil
}

// envelopeError is the InputError of envelope o: the failed placement is the carried object u,
// in its envelope, or the envelope itself when u could not be read.
func envelopeError(o manifests.Object, u *unstructured.Unstructured, format string, args ...any) *InputError {
	in := NotApplied("%s (from %s)", fmt.Sprintf(format, args...), o.Source)
	env := o.Manifest
	target, envelope := env, (*placementv1beta1.EnvelopeIdentifier)(nil)
	if u != nil {
		target = u
		envelope = &placementv1beta1.EnvelopeIdentifier{Name: env.GetName(), Namespace: env.GetNamespace(), Type: placementv1beta1.EnvelopeType(env.GetKind())}
	}
	gvk := target.GroupVersionKind()
	in.Failed = []placementv1beta1.FailedResourcePlacement{{
		ResourceIdentifier: placementv1beta1.ResourceIdentifier{
			Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind, Namespace: target.GetNamespace(), Name: target.GetName(),
			Envelope: envelope,
		},
	}}
	in.Failed[0].Condition = metav1.Condition{Type: placementv1beta1.BindingAppliedCondition, Status: metav1.ConditionFalse,
		Reason: placementv1beta1.ManifestApplyFailedReason, Message: in.Message}
	return in
}

// objRef is how Kubefleet names an object in messages: namespace/name, or name alone.
func objRef(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}

// envelopeRef is an envelope as a carried object's Source names it: ResourceEnvelope's
// "namespace/name", ClusterResourceEnvelope's "name".
func envelopeRef(id placementv1beta1.EnvelopeIdentifier) string { return objRef(id.Namespace, id.Name) }

// carriedSource matches the Source of a carried object.
var carriedSource = regexp.MustCompile(`^(` + placementv1beta1.ClusterResourceEnvelopeKind + `|` +
	placementv1beta1.ResourceEnvelopeKind + `) (\S+) data "`)

// EnvelopeOf identifies the envelope o came out of, for the envelope field of failed placements;
// nil when o was selected as it is.
func EnvelopeOf(o manifests.Object) *placementv1beta1.EnvelopeIdentifier {
	m := carriedSource.FindStringSubmatch(o.Source)
	if m == nil {
		return nil
	}
	id := &placementv1beta1.EnvelopeIdentifier{Type: placementv1beta1.EnvelopeType(m[1]), Name: m[2]}
	if ns, name, ok := strings.Cut(m[2], "/"); ok {
		id.Namespace, id.Name = ns, name
	}
	return id
}
