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

package placement

import (
	"cmp"
	"encoding/json"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
)

// Annotations the hub's own machinery writes, which mean nothing on a member cluster.
const (
	lastAppliedAnnotation        = "kubectl.kubernetes.io/last-applied-configuration"
	deploymentRevisionAnnotation = "deployment.kubernetes.io/revision"
)

// normalize returns a copy of obj as it is to be applied on member clusters: without what the
// hub's API server and controllers set (identity, versions, owners, status) and without the
// fields that are allocated per cluster (a Service's cluster IPs and node ports, the selector a
// Job gets from its controller). Labels, annotations, finalizers and the rest of the spec stay:
// a Namespace keeps spec.finalizers, as in Kubefleet.
func normalize(obj *unstructured.Unstructured) *unstructured.Unstructured {
	out := obj.DeepCopy()
	for _, f := range []string{"uid", "resourceVersion", "generation", "creationTimestamp", "managedFields",
		"ownerReferences", "selfLink", "deletionTimestamp", "deletionGracePeriodSeconds"} {
		unstructured.RemoveNestedField(out.Object, "metadata", f)
	}
	if annotations := out.GetAnnotations(); annotations != nil {
		delete(annotations, lastAppliedAnnotation)
		delete(annotations, deploymentRevisionAnnotation)
		if len(annotations) == 0 {
			unstructured.RemoveNestedField(out.Object, "metadata", "annotations")
		} else {
			out.SetAnnotations(annotations)
		}
	}
	unstructured.RemoveNestedField(out.Object, "status")

	gvk := out.GroupVersionKind()
	switch {
	case gvk.Group == "" && gvk.Kind == "Service":
		normalizeService(out)
	case gvk.Group == "batch" && gvk.Kind == "Job":
		normalizeJob(out)
	}
	return out
}

// normalizeService drops what the API server allocates per cluster. A headless Service keeps
// clusterIP None, which is a choice, not an allocation.
func normalizeService(svc *unstructured.Unstructured) {
	if ip, _, _ := unstructured.NestedString(svc.Object, "spec", "clusterIP"); ip != "None" {
		unstructured.RemoveNestedField(svc.Object, "spec", "clusterIP")
		unstructured.RemoveNestedField(svc.Object, "spec", "clusterIPs")
	}
	unstructured.RemoveNestedField(svc.Object, "spec", "healthCheckNodePort")
	ports, found, _ := unstructured.NestedSlice(svc.Object, "spec", "ports")
	if !found {
		return
	}
	for _, p := range ports {
		if m, ok := p.(map[string]any); ok {
			delete(m, "nodePort")
		}
	}
	_ = unstructured.SetNestedSlice(svc.Object, ports, "spec", "ports")
}

// normalizeJob drops the selector and labels the Job controller generates from the hub Job's
// uid, unless the user set the selector by hand; the member cluster generates its own.
func normalizeJob(job *unstructured.Unstructured) {
	if manual, _, _ := unstructured.NestedBool(job.Object, "spec", "manualSelector"); manual {
		return
	}
	unstructured.RemoveNestedField(job.Object, "spec", "selector")
	unstructured.RemoveNestedField(job.Object, "spec", "template", "metadata", "creationTimestamp")
	labels, found, _ := unstructured.NestedStringMap(job.Object, "spec", "template", "metadata", "labels")
	if !found {
		return
	}
	for _, k := range []string{"controller-uid", "batch.kubernetes.io/controller-uid", "job-name", "batch.kubernetes.io/job-name"} {
		delete(labels, k)
	}
	if len(labels) == 0 {
		unstructured.RemoveNestedField(job.Object, "spec", "template", "metadata", "labels")
		return
	}
	_ = unstructured.SetNestedStringMap(job.Object, labels, "spec", "template", "metadata", "labels")
}

// applyOrder ranks kinds so that what others depend on comes first (a Namespace before what is
// in it, a ServiceAccount before the workload using it), as Kubefleet orders snapshots. Kinds not
// listed come last.
var applyOrder = map[string]int{}

func init() {
	for i, k := range []string{
		"PriorityClass", "Namespace", "NetworkPolicy", "ResourceQuota", "LimitRange", "PodDisruptionBudget",
		"ServiceAccount", "Secret", "ConfigMap", "StorageClass", "PersistentVolume", "PersistentVolumeClaim",
		"CustomResourceDefinition", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding", "Service",
		"DaemonSet", "Pod", "ReplicationController", "ReplicaSet", "Deployment", "HorizontalPodAutoscaler",
		"StatefulSet", "Job", "CronJob", "IngressClass", "Ingress", "APIService",
		"MutatingWebhookConfiguration", "ValidatingWebhookConfiguration",
	} {
		applyOrder[k] = i
	}
}

func kindRank(kind string) int {
	if r, ok := applyOrder[kind]; ok {
		return r
	}
	return len(applyOrder)
}

// sortObjects orders objects deterministically: by kind rank, then apiVersion and kind, then
// namespace and name. The order is part of the snapshot hash, so it must never depend on the
// order the API server listed things in.
func sortObjects(objs []*unstructured.Unstructured) {
	slices.SortFunc(objs, func(a, b *unstructured.Unstructured) int {
		return cmp.Or(
			cmp.Compare(kindRank(a.GetKind()), kindRank(b.GetKind())),
			cmp.Compare(a.GetAPIVersion(), b.GetAPIVersion()),
			cmp.Compare(a.GetKind(), b.GetKind()),
			cmp.Compare(a.GetNamespace(), b.GetNamespace()),
			cmp.Compare(a.GetName(), b.GetName()),
		)
	})
}

// contentsOf encodes the objects, in order, as snapshot contents. encoding/json sorts map keys,
// so equal objects always give equal bytes.
func contentsOf(objs []*unstructured.Unstructured) ([]placementv1beta1.ResourceContent, error) {
	out := make([]placementv1beta1.ResourceContent, 0, len(objs))
	for _, o := range objs {
		raw, err := json.Marshal(o.Object)
		if err != nil {
			return nil, err
		}
		out = append(out, placementv1beta1.ResourceContent{RawExtension: runtime.RawExtension{Raw: raw}})
	}
	return out, nil
}

// identifierOf names an object for PlacementStatus.SelectedResources.
func identifierOf(o *unstructured.Unstructured) placementv1beta1.ResourceIdentifier {
	gvk := o.GroupVersionKind()
	return placementv1beta1.ResourceIdentifier{
		Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind, Namespace: o.GetNamespace(), Name: o.GetName(),
	}
}

// identifiersOfContents names the objects of snapshot contents; contents that do not decode
// are left out (they were written by this controller, so that does not happen).
func identifiersOfContents(contents []placementv1beta1.ResourceContent) []placementv1beta1.ResourceIdentifier {
	out := make([]placementv1beta1.ResourceIdentifier, 0, len(contents))
	for _, c := range contents {
		o := &unstructured.Unstructured{}
		if err := o.UnmarshalJSON(c.Raw); err != nil {
			continue
		}
		out = append(out, identifierOf(o))
	}
	return out
}
