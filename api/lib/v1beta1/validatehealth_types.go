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
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ValidateHealth is a health check run against a managed cluster. It passes only when every
// object it selects is healthy.
//
// Two spellings select the objects to check:
//
//   - By kind. name is the name of the check; group, version and kind give the object type;
//     every object of that type in namespace (all namespaces, or cluster-scoped objects, when
//     namespace is empty) whose labels pass labelFilters is checked. Finding no object fails the
//     check, except in pre- and post-delete checks. Without kind (and without type) the check
//     reads no object at all: it is a metric-only check and needs a script.
//   - By type and name. type gives the kind and name is the name of the one object to check, in
//     namespace, with group and version as above (labelFilters still apply). The check itself is
//     then called "<type>/<name>" in status and messages (see CheckName). kind may be left out or
//     set to the same value as type.
//
// An object is healthy when the Lua script says so and, if evaluateCEL is set, one of its CEL
// rules returns true. With neither a script nor CEL rules the check only requires the objects to
// exist. jobCheck replaces both.
//
// featureID says when the check runs: after that feature of the profile (Resources, Helm or
// Kustomize) has been deployed. Without featureID the check is not tied to one feature and runs
// once everything the profile deploys has been applied.
//
// +kubebuilder:validation:XValidation:rule="!has(self.jobCheck) || (!has(self.script) && !has(self.evaluateCEL))",message="jobCheck decides health on its own and cannot be combined with script or evaluateCEL: remove jobCheck, or remove script and evaluateCEL"
// +kubebuilder:validation:XValidation:rule="!has(self.type) || !has(self.kind) || self.type == self.kind",message="type and kind both give the kind of object to check and must not disagree: keep only one of them"
type ValidateHealth struct {
	// Name is the name of the check. When type is set, name is instead the name of the object
	// to check, and the check is called "<type>/<name>".
	// +kubebuilder:validation:MinLength=1
	Name string `json:"name"`

	// FeatureID is the feature after whose deployment the check runs. Optional: without it the
	// check runs once all the features of the profile have been deployed.
	// +optional
	FeatureID FeatureID `json:"featureID,omitempty"`

	// Group of the objects to check ("" for the core group).
	// +optional
	Group string `json:"group,omitempty"`

	// Version of the objects to check.
	// +optional
	Version string `json:"version,omitempty"`

	// Kind of the objects to check. Every object of this kind (in namespace, passing
	// labelFilters) is checked. Leave kind and type empty for a metric-only check.
	// +kubebuilder:validation:MaxLength=63
	// +optional
	Kind string `json:"kind,omitempty"`

	// Type is the kind of the one object to check, named by name. It is an alternative to kind
	// for checks that target a single object; when both are given they must be equal.
	// +kubebuilder:validation:MaxLength=63
	// +optional
	Type string `json:"type,omitempty"`

	// LabelFilters keeps only objects whose labels pass every filter.
	// +optional
	LabelFilters []LabelFilter `json:"labelFilters,omitempty"`

	// Namespace of the objects to check. Empty means every namespace (or cluster-scoped objects).
	// +optional
	Namespace string `json:"namespace,omitempty"`

	// MetricSource is a Prometheus-compatible endpoint queried before the script runs.
	// +optional
	MetricSource *MetricSource `json:"metricSource,omitempty"`

	// MetricQueries are run against metricSource; each result is a number made available to
	// the script in the global table "metrics" under the query's name.
	// +optional
	MetricQueries []MetricQuery `json:"metricQueries,omitempty"`

	// Script is a Lua program defining a function evaluate(). The object being checked is
	// available as the global obj and as the function's argument. evaluate returns a table
	// with either a boolean "healthy" or a string "status" (only "Healthy" passes; the others
	// are "Progressing", "Degraded" and "Suspended"), and an optional "message" explaining the
	// verdict. getResource(apiVersion, kind, namespace, name) returns a live object from the
	// managed cluster, or nil when it does not exist.
	// +optional
	Script string `json:"script,omitempty"`

	// EvaluateCEL is a list of CEL rules evaluated in order against each object; the object is
	// healthy as soon as one rule returns true. The object is bound to both "self" and
	// "resource". A rule that does not compile is reported as an error, never as false. At run
	// time a rule reading data that is missing counts as false; one that fails otherwise (a type
	// error, a non-boolean result, the cost limit) is reported as an error.
	// +optional
	EvaluateCEL []CELRule `json:"evaluateCEL,omitempty"`

	// JobCheck makes the check pass once a Job, created from a referenced ConfigMap or Secret,
	// has completed successfully. It cannot be combined with script or evaluateCEL.
	// +optional
	JobCheck *JobHealthCheck `json:"jobCheck,omitempty"`
}

// TargetKind returns the kind of the objects the check reads: kind when set, otherwise type.
// It is empty for a metric-only check.
func (v *ValidateHealth) TargetKind() string {
	if v.Kind != "" {
		return v.Kind
	}
	return v.Type
}

// TargetName returns the name of the single object the check reads when it is written with
// type and name, and "" when the check selects objects by kind.
func (v *ValidateHealth) TargetName() string {
	if v.Type != "" {
		return v.Name
	}
	return ""
}

// CheckName returns the name the check is known by in status, messages and when checks are
// merged by name: name, or "<type>/<name>" when the check is written with type and name.
func (v *ValidateHealth) CheckName() string {
	if v.Type != "" {
		return v.Type + "/" + v.Name
	}
	return v.Name
}

// IsMetricOnly reports whether the check reads no object and only evaluates its script
// against metrics.
func (v *ValidateHealth) IsMetricOnly() bool {
	return v.TargetKind() == ""
}

// CELRule is a named CEL expression that returns a bool. The expression may be written under
// either key, rule or expression; exactly one must be set.
// +kubebuilder:validation:XValidation:rule="has(self.rule) != has(self.expression)",message="set exactly one of rule or expression: both hold the CEL expression, written under either key"
type CELRule struct {
	// Name identifies the rule in messages.
	Name string `json:"name"`

	// Rule is the CEL expression.
	// +kubebuilder:validation:MinLength=1
	// +optional
	Rule string `json:"rule,omitempty"`

	// Expression is the CEL expression; another spelling of rule.
	// +kubebuilder:validation:MinLength=1
	// +optional
	Expression string `json:"expression,omitempty"`
}

// Source returns the CEL expression, whichever of rule or expression holds it.
func (r *CELRule) Source() string {
	if r.Rule != "" {
		return r.Rule
	}
	return r.Expression
}

// MetricSource is a Prometheus-compatible HTTP query API.
type MetricSource struct {
	// URL is the base address of the API, for example "http://prometheus.monitoring:9090".
	// +kubebuilder:validation:MinLength=1
	URL string `json:"url"`

	// Path is appended to url to form the query endpoint.
	// +kubebuilder:default:="api/v1/query"
	// +optional
	Path string `json:"path,omitempty"`

	// SecretRef names a Secret holding credentials: a "token" key for bearer authentication, or
	// "username" and "password" keys for basic authentication.
	// +optional
	SecretRef *corev1.SecretReference `json:"secretRef,omitempty"`
}

// MetricQuery is one named query run against a MetricSource. It must return a scalar or a
// single-element vector.
type MetricQuery struct {
	// Name is the key under which the result is available to the script.
	// +kubebuilder:validation:MinLength=1
	Name string `json:"name"`

	// Query is the PromQL expression.
	// +kubebuilder:validation:MinLength=1
	Query string `json:"query"`
}

// JobHealthCheck runs a Job in the managed cluster and passes once it has succeeded.
type JobHealthCheck struct {
	// JobRef names the ConfigMap or Secret in the management cluster that holds the Job.
	JobRef PolicyRef `json:"jobRef"`

	// Timeout is how long the Job may take before the check fails.
	// +kubebuilder:default:="5m"
	// +kubebuilder:validation:Pattern=`^(0|(([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+)$`
	// +kubebuilder:validation:Type=string
	// +optional
	Timeout *metav1.Duration `json:"timeout,omitempty"`
}
