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

package availability

import (
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// The checks read objects through the typed API: the fields they use have the same meaning in
// every served version of these kinds.
func convert(obj *unstructured.Unstructured, into any) error {
	return runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, into)
}

func replicas(r *int32) int32 {
	if r == nil {
		return 1
	}
	return *r
}

// deployment is available when its controller has seen the current spec and every desired
// replica runs the current template and is available, with no old replica left.
func deployment(obj *unstructured.Unstructured) (Result, error) {
	var d appsv1.Deployment
	if err := convert(obj, &d); err != nil {
		return Result{}, err
	}
	want, st := replicas(d.Spec.Replicas), d.Status
	switch {
	case st.ObservedGeneration != d.Generation:
		return notYet("the deployment controller has not observed generation %d yet", d.Generation), nil
	case st.UpdatedReplicas != want || st.AvailableReplicas != want || st.Replicas != want:
		return notYet("%d of %d replicas updated, %d available, %d in total", st.UpdatedReplicas, want, st.AvailableReplicas, st.Replicas), nil
	}
	return available(), nil
}

// statefulSet is available when every desired replica is available and all run the update
// revision.
func statefulSet(obj *unstructured.Unstructured) (Result, error) {
	var s appsv1.StatefulSet
	if err := convert(obj, &s); err != nil {
		return Result{}, err
	}
	want, st := replicas(s.Spec.Replicas), s.Status
	switch {
	case st.ObservedGeneration != s.Generation:
		return notYet("the statefulset controller has not observed generation %d yet", s.Generation), nil
	case st.AvailableReplicas != want:
		return notYet("%d of %d replicas available", st.AvailableReplicas, want), nil
	case st.CurrentReplicas != st.UpdatedReplicas || st.CurrentRevision != st.UpdateRevision:
		return notYet("%d replicas updated to revision %s, %d still on %s", st.UpdatedReplicas, st.UpdateRevision, st.CurrentReplicas, st.CurrentRevision), nil
	}
	return available(), nil
}

// daemonSet is available when a pod is available on every node that should run one and all
// of them run the current template.
func daemonSet(obj *unstructured.Unstructured) (Result, error) {
	var d appsv1.DaemonSet
	if err := convert(obj, &d); err != nil {
		return Result{}, err
	}
	st := d.Status
	switch {
	case st.ObservedGeneration != d.Generation:
		return notYet("the daemonset controller has not observed generation %d yet", d.Generation), nil
	case st.NumberAvailable != st.DesiredNumberScheduled:
		return notYet("%d of %d pods available", st.NumberAvailable, st.DesiredNumberScheduled), nil
	case st.CurrentNumberScheduled != st.UpdatedNumberScheduled:
		return notYet("%d of %d scheduled pods updated", st.UpdatedNumberScheduled, st.CurrentNumberScheduled), nil
	}
	return available(), nil
}

// service is available once it has an address: a cluster IP (ClusterIP, NodePort) or a load
// balancer ingress (LoadBalancer). An ExternalName service has nothing to wait for that can be
// seen from the cluster.
func service(obj *unstructured.Unstructured) (Result, error) {
	var s corev1.Service
	if err := convert(obj, &s); err != nil {
		return Result{}, err
	}
	switch s.Spec.Type {
	case "", corev1.ServiceTypeClusterIP, corev1.ServiceTypeNodePort:
		if len(s.Spec.ClusterIPs) > 0 && s.Spec.ClusterIPs[0] != "" {
			return available(), nil
		}
		return notYet("no cluster IP is assigned yet"), nil
	case corev1.ServiceTypeLoadBalancer:
		if in := s.Status.LoadBalancer.Ingress; len(in) > 0 && (in[0].IP != "" || in[0].Hostname != "") {
			return available(), nil
		}
		return notYet("the load balancer has no ingress IP or hostname yet"), nil
	}
	return notTrackable("the availability of a " + string(s.Spec.Type) + " Service cannot be tracked"), nil
}

// crd is available when its names are accepted and it is established (served).
func crd(obj *unstructured.Unstructured) (Result, error) {
	var c apiextensionsv1.CustomResourceDefinition
	if err := convert(obj, &c); err != nil {
		return Result{}, err
	}
	for _, t := range []apiextensionsv1.CustomResourceDefinitionConditionType{apiextensionsv1.NamesAccepted, apiextensionsv1.Established} {
		if !crdCondition(&c, t) {
			return notYet("condition %s is not True yet", t), nil
		}
	}
	return available(), nil
}

func crdCondition(c *apiextensionsv1.CustomResourceDefinition, t apiextensionsv1.CustomResourceDefinitionConditionType) bool {
	for _, cond := range c.Status.Conditions {
		if cond.Type == t {
			return cond.Status == apiextensionsv1.ConditionTrue
		}
	}
	return false
}

// pdb is available when the disruption controller has computed its status for the current spec
// (what k8s.io/component-helpers calls ConditionsAreUpToDate).
func pdb(obj *unstructured.Unstructured) (Result, error) {
	var p policyv1.PodDisruptionBudget
	if err := convert(obj, &p); err != nil {
		return Result{}, err
	}
	cond := apimeta.FindStatusCondition(p.Status.Conditions, policyv1.DisruptionAllowedCondition)
	upToDate := cond != nil && p.Status.ObservedGeneration == p.Generation
	if upToDate && p.Status.DisruptionsAllowed > 0 {
		upToDate = cond.Status == metav1.ConditionTrue && cond.Reason == policyv1.SufficientPodsReason
	} else if upToDate {
		upToDate = cond.Status == metav1.ConditionFalse && cond.Reason == policyv1.InsufficientPodsReason
	}
	if !upToDate {
		return notYet("the disruption controller has not computed its status for generation %d yet", p.Generation), nil
	}
	return available(), nil
}

// job is available once it has succeeded. A failed job stays unavailable: it says why.
func job(obj *unstructured.Unstructured) (Result, error) {
	var j batchv1.Job
	if err := convert(obj, &j); err != nil {
		return Result{}, err
	}
	for _, c := range j.Status.Conditions {
		if c.Status != corev1.ConditionTrue {
			continue
		}
		switch c.Type {
		case batchv1.JobComplete, batchv1.JobSuccessCriteriaMet:
			return available(), nil
		case batchv1.JobFailed:
			return notYet("the job failed (%s): %s", c.Reason, c.Message), nil
		}
	}
	completions := int32(1)
	if j.Spec.Completions != nil {
		completions = *j.Spec.Completions
	}
	if j.Spec.Suspend != nil && *j.Spec.Suspend {
		return notYet("the job is suspended"), nil
	}
	return notYet("%d of %d completions succeeded, %d pods active", j.Status.Succeeded, completions, j.Status.Active), nil
}
