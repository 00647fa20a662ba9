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

package fleetsim

import (
	"encoding/base64"
	"fmt"
	"maps"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// namespaceNameLabel is the label an API server puts on every namespace.
const namespaceNameLabel = "kubernetes.io/metadata.name"

// setDefaults sets the fields an API server (or its allocators) sets on some built-in kinds,
// where clients or status readers depend on them. Defaulting of the Kubernetes types in general
// (strategy, revisionHistoryLimit, …) is not simulated. obj's top-level and metadata maps are its
// own; nested maps may be shared with stored objects and are copied before any change.
func setDefaults(d *clusterData, rt *resourceType, old, obj *unstructured.Unstructured) {
	switch rt.groupResource() {
	case namespacesResource:
		labels := obj.GetLabels()
		if labels == nil {
			labels = map[string]string{}
		}
		labels[namespaceNameLabel] = obj.GetName()
		obj.SetLabels(labels)
		if old == nil {
			spec := ownMap(obj.Object, "spec")
			if _, ok := spec["finalizers"]; !ok {
				spec["finalizers"] = []any{"kubernetes"}
			}
			obj.Object["status"] = map[string]any{"phase": "Active"}
		}
	case servicesResource:
		defaultService(d, old, obj)
	case secretsResource:
		foldStringData(obj)
	case podsResource:
		if old == nil {
			obj.Object["status"] = map[string]any{"phase": "Pending", "qosClass": "BestEffort"}
		}
	case crdResource:
		setCRDStatus(old, obj)
	}
}

// ownMap returns obj[key] as a map obj alone holds, making or copying it as needed.
func ownMap(obj map[string]any, key string) map[string]any {
	m, _ := obj[key].(map[string]any)
	m = maps.Clone(m)
	if m == nil {
		m = map[string]any{}
	}
	obj[key] = m
	return m
}

// defaultService allocates a cluster IP to a new Service, and keeps it on updates that leave it
// out, as the API server's allocator does.
func defaultService(d *clusterData, old, obj *unstructured.Unstructured) {
	spec := ownMap(obj.Object, "spec")
	if spec["type"] == nil || spec["type"] == "" {
		spec["type"] = "ClusterIP"
	}
	if spec["type"] == "ExternalName" {
		return
	}
	if ip, _ := spec["clusterIP"].(string); ip != "" {
		if spec["clusterIPs"] == nil {
			spec["clusterIPs"] = []any{ip}
		}
		return
	}
	if old != nil {
		oldSpec, _ := old.Object["spec"].(map[string]any)
		for _, f := range []string{"clusterIP", "clusterIPs", "ipFamilies", "ipFamilyPolicy"} {
			if v, ok := oldSpec[f]; ok {
				spec[f] = v
			}
		}
		if spec["clusterIP"] != nil {
			return
		}
	}
	d.serviceIPs++
	n := d.serviceIPs + 10 // 10.96.0.1 is the API server's, .10 the DNS service's, in clusters made by kubeadm
	ip := fmt.Sprintf("10.96.%d.%d", (n>>8)&0xff, n&0xff)
	spec["clusterIP"], spec["clusterIPs"] = ip, []any{ip}
	spec["ipFamilies"], spec["ipFamilyPolicy"] = []any{"IPv4"}, "SingleStack"
	if spec["sessionAffinity"] == nil {
		spec["sessionAffinity"] = "None"
	}
}

// foldStringData moves a Secret's stringData into data, which is all an API server stores.
func foldStringData(obj *unstructured.Unstructured) {
	if obj.Object["type"] == nil {
		obj.Object["type"] = "Opaque"
	}
	stringData, ok := obj.Object["stringData"].(map[string]any)
	delete(obj.Object, "stringData")
	if !ok {
		return
	}
	data := ownMap(obj.Object, "data")
	for k, v := range stringData {
		s, _ := v.(string)
		data[k] = base64.StdEncoding.EncodeToString([]byte(s))
	}
}
