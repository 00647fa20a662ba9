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

package manifests

import (
	"context"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
)

// crdTimeout bounds the wait for the CRDs of a set to be served.
const crdTimeout = time.Minute

// waitForCRDs waits until every CRD among items is Established and its kinds resolve through
// the cluster's REST mapper, so that objects of those kinds can be applied next.
func (a *applier) waitForCRDs(ctx context.Context, items []*item) error {
	// CRDs whose kinds are all served already (the usual re-apply) need no wait, and no
	// discovery refresh.
	var crds []*item
	for _, it := range items {
		if it.isCRD() && it.applied != nil && !a.serves(it) {
			crds = append(crds, it)
		}
	}
	if len(crds) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, crdTimeout)
	defer cancel()
	for _, crd := range crds {
		if err := a.waitEstablished(ctx, crd); err != nil {
			return err
		}
	}
	// The mapper caches discovery: make it read again until it knows every new kind.
	err := wait.PollUntilContextCancel(ctx, 250*time.Millisecond, true, func(context.Context) (bool, error) {
		a.remote.Mapper.Reset()
		for _, crd := range crds {
			if !a.serves(crd) {
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		return fmt.Errorf("the kinds of the CustomResourceDefinitions applied are not served after %s: %w", crdTimeout, err)
	}
	return nil
}

// serves reports whether the cluster's REST mapper resolves every kind a CRD serves.
func (a *applier) serves(crd *item) bool {
	for _, gvk := range servedKinds(crd.obj) {
		if _, err := a.remote.Mapper.RESTMapping(gvk.GroupKind(), gvk.Version); err != nil {
			return false
		}
	}
	return true
}

func (a *applier) waitEstablished(ctx context.Context, crd *item) error {
	res := a.remote.Resource(crd.mapping, "")
	var last *unstructured.Unstructured
	err := wait.PollUntilContextCancel(ctx, 250*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		live, err := res.Get(ctx, crd.obj.GetName(), metav1.GetOptions{})
		if err != nil {
			return false, nil // transient: keep polling until the deadline
		}
		last = live
		return conditionTrue(live, "Established"), nil
	})
	if err != nil {
		return fmt.Errorf("CustomResourceDefinition %s is not Established after %s%s: %w",
			crd.obj.GetName(), crdTimeout, conditionMessages(last), err)
	}
	return nil
}

// servedKinds lists the group/version/kinds a CRD serves.
func servedKinds(crd *unstructured.Unstructured) []schema.GroupVersionKind {
	group, _, _ := unstructured.NestedString(crd.Object, "spec", "group")
	kind, _, _ := unstructured.NestedString(crd.Object, "spec", "names", "kind")
	versions, _, _ := unstructured.NestedSlice(crd.Object, "spec", "versions")
	var gvks []schema.GroupVersionKind
	for _, v := range versions {
		version, _ := v.(map[string]any)
		name, _ := version["name"].(string)
		if version["served"] == true && name != "" {
			gvks = append(gvks, schema.GroupVersionKind{Group: group, Version: name, Kind: kind})
		}
	}
	return gvks
}

func conditionTrue(u *unstructured.Unstructured, condType string) bool {
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, c := range conds {
		cond, _ := c.(map[string]any)
		if cond["type"] == condType {
			return cond["status"] == "True"
		}
	}
	return false
}

// conditionMessages quotes the reasons a CRD gives for not being ready, if any.
func conditionMessages(u *unstructured.Unstructured) string {
	if u == nil {
		return ""
	}
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	msg := ""
	for _, c := range conds {
		cond, _ := c.(map[string]any)
		if cond["status"] != "True" && cond["message"] != nil {
			msg += fmt.Sprintf("; %v: %v", cond["type"], cond["message"])
		}
	}
	return msg
}
