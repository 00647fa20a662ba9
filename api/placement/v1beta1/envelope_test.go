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

package v1beta1

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
)

// TestEnvelopesRegistered: the envelope kinds are in the scheme, under their kind names.
func TestEnvelopesRegistered(t *testing.T) {
	s := runtime.NewScheme()
	if err := AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	for kind, obj := range map[string]runtime.Object{
		ClusterResourceEnvelopeKind: &ClusterResourceEnvelope{}, ResourceEnvelopeKind: &ResourceEnvelope{},
	} {
		gvks, _, err := s.ObjectKinds(obj)
		if err != nil || len(gvks) != 1 || gvks[0] != GroupVersion.WithKind(kind) || !IsEnvelopeKind(gvks[0].Group, gvks[0].Kind) {
			t.Errorf("%s: %v %v", kind, gvks, err)
		}
	}
	if IsEnvelopeKind(GroupName, ClusterResourcePlacementKind) || IsEnvelopeKind("", ResourceEnvelopeKind) {
		t.Error("IsEnvelopeKind takes other kinds for envelopes")
	}
}
