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
	"fmt"
	"reflect"
	"strings"

	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// validate checks what an API server checks of every object (names, labels, annotations) and a
// few rules of built-in kinds that deployers meet: workloads need a selector matching their
// template and containers, a Deployment's selector is immutable, so is the data of an immutable
// ConfigMap or Secret. Everything else a real API server validates is accepted.
func validate(rt *resourceType, old, obj *unstructured.Unstructured) field.ErrorList {
	meta := field.NewPath("metadata")
	errs := validateName(rt, obj.GetName(), meta.Child("name"))
	errs = append(errs, metav1validation.ValidateLabels(obj.GetLabels(), meta.Child("labels"))...)
	errs = append(errs, apivalidation.ValidateAnnotations(obj.GetAnnotations(), meta.Child("annotations"))...)
	switch rt.kind {
	case "Deployment", "StatefulSet", "DaemonSet", "ReplicaSet":
		if rt.group == "apps" {
			errs = append(errs, validateWorkload(old, obj)...)
		}
	case "Job":
		if rt.group == "batch" {
			errs = append(errs, requireContainers(obj.Object, "spec", "template", "spec", "containers")...)
		}
	case "Pod":
		if rt.group == "" {
			errs = append(errs, requireContainers(obj.Object, "spec", "containers")...)
		}
	case "ConfigMap", "Secret":
		if rt.group == "" && old != nil {
			errs = append(errs, validateImmutableData(old, obj)...)
		}
	case "CustomResourceDefinition":
		if rt.group == crdResource.Group {
			errs = append(errs, validateCRD(obj)...)
		}
	}
	return errs
}

func validateName(rt *resourceType, name string, path *field.Path) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(path, "name or generateName is required")}
	}
	var msgs []string
	switch rt.groupResource() {
	case namespacesResource, servicesResource:
		msgs = validation.IsDNS1123Label(name)
	default:
		if rt.group == "rbac.authorization.k8s.io" {
			msgs = pathSegmentName(name)
		} else {
			msgs = validation.IsDNS1123Subdomain(name)
		}
	}
	var errs field.ErrorList
	for _, msg := range msgs {
		errs = append(errs, field.Invalid(path, name, msg))
	}
	return errs
}

func validateWorkload(old, obj *unstructured.Unstructured) field.ErrorList {
	spec := field.NewPath("spec")
	var errs field.ErrorList
	raw, found, _ := unstructured.NestedMap(obj.Object, "spec", "selector")
	var selector metav1.LabelSelector
	switch {
	case !found:
		errs = append(errs, field.Required(spec.Child("selector"), ""))
	case runtime.DefaultUnstructuredConverter.FromUnstructured(raw, &selector) != nil:
		errs = append(errs, field.Invalid(spec.Child("selector"), raw, "not a label selector"))
	default:
		sel, err := metav1.LabelSelectorAsSelector(&selector)
		templateLabels, _, _ := unstructured.NestedStringMap(obj.Object, "spec", "template", "metadata", "labels")
		switch {
		case err != nil:
			errs = append(errs, field.Invalid(spec.Child("selector"), raw, err.Error()))
		case sel.Empty():
			errs = append(errs, field.Invalid(spec.Child("selector"), raw, "empty selector is invalid for deployment"))
		case !sel.Matches(labels.Set(templateLabels)):
			errs = append(errs, field.Invalid(spec.Child("template", "metadata", "labels"), templateLabels, "`selector` does not match template `labels`"))
		}
	}
	errs = append(errs, requireContainers(obj.Object, "spec", "template", "spec", "containers")...)
	if old != nil {
		oldSelector, _, _ := unstructured.NestedFieldNoCopy(old.Object, "spec", "selector")
		if found && !reflect.DeepEqual(oldSelector, raw) {
			errs = append(errs, field.Invalid(spec.Child("selector"), raw, "field is immutable"))
		}
	}
	return errs
}

func requireContainers(obj map[string]any, path ...string) field.ErrorList {
	containers, _, _ := unstructured.NestedSlice(obj, path...)
	if len(containers) == 0 {
		return field.ErrorList{field.Required(field.NewPath(path[0], path[1:]...), "")}
	}
	return nil
}

// validateImmutableData refuses changes to the data of a ConfigMap or Secret marked immutable,
// and unmarking it.
func validateImmutableData(old, obj *unstructured.Unstructured) field.ErrorList {
	if immutable, _, _ := unstructured.NestedBool(old.Object, "immutable"); !immutable {
		return nil
	}
	var errs field.ErrorList
	if immutable, _, _ := unstructured.NestedBool(obj.Object, "immutable"); !immutable {
		errs = append(errs, field.Forbidden(field.NewPath("immutable"), "field is immutable when `immutable` is set"))
	}
	for _, f := range []string{"data", "binaryData"} {
		if !reflect.DeepEqual(old.Object[f], obj.Object[f]) {
			errs = append(errs, field.Forbidden(field.NewPath(f), "field is immutable when `immutable` is set"))
		}
	}
	return errs
}

// pathSegmentName checks a name that only has to fit in a URL path segment, as RBAC objects'
// names do.
func pathSegmentName(name string) []string {
	switch {
	case name == "." || name == "..":
		return []string{fmt.Sprintf("may not be '%s'", name)}
	case strings.ContainsAny(name, "/%"):
		return []string{"may not contain '/' or '%'"}
	}
	return nil
}
