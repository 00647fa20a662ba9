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
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	fakediscovery "k8s.io/client-go/discovery/fake"
	clienttesting "k8s.io/client-go/testing"
)

func fakeDiscovery(kinds ...string) *fakediscovery.FakeDiscovery {
	list := &metav1.APIResourceList{GroupVersion: "example.dev/v1"}
	for _, k := range kinds {
		list.APIResources = append(list.APIResources, metav1.APIResource{Name: k + "s", Kind: k, Namespaced: true, Verbs: []string{"get"}})
	}
	return &fakediscovery.FakeDiscovery{Fake: &clienttesting.Fake{Resources: []*metav1.APIResourceList{list}}}
}

func TestClustersServingTheSameAPIsShareAMapper(t *testing.T) {
	a, b := &sharedMapper{discovery: fakeDiscovery("Widget")}, &sharedMapper{discovery: fakeDiscovery("Widget")}
	other := &sharedMapper{discovery: fakeDiscovery("Widget", "Gadget")}
	widget := schema.GroupKind{Group: "example.dev", Kind: "Widget"}
	for _, m := range []*sharedMapper{a, b, other} {
		if _, err := m.RESTMapping(widget, "v1"); err != nil {
			t.Fatal(err)
		}
	}
	if a.current != b.current {
		t.Error("two clusters with the same discovery hold two mappers")
	}
	if a.current == other.current {
		t.Error("clusters with different discovery share a mapper")
	}

	// A kind installed later is found after Reset.
	gadget := schema.GroupKind{Group: "example.dev", Kind: "Gadget"}
	a.discovery = fakeDiscovery("Widget", "Gadget")
	if _, err := a.RESTMapping(gadget, "v1"); err == nil {
		t.Fatal("a kind unknown to the mapper was mapped before Reset")
	}
	a.Reset()
	if _, err := a.RESTMapping(gadget, "v1"); err != nil {
		t.Fatalf("after Reset: %v", err)
	}
	if a.current != other.current {
		t.Error("after Reset, the cluster did not join the mapper of its new discovery")
	}
}
