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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// +kubebuilder:object:generate=false

// BindingObj is a ClusterResourceBinding or a ResourceBinding: code that serves both scopes
// reaches the shared spec and status through it.
type BindingObj interface {
	metav1.Object
	runtime.Object
	BindingSpec() *ResourceBindingSpec
	BindingStatus() *ResourceBindingStatus
}

// BindingSpec returns the binding's spec.
func (b *ClusterResourceBinding) BindingSpec() *ResourceBindingSpec { return &b.Spec }

// BindingStatus returns the binding's status.
func (b *ClusterResourceBinding) BindingStatus() *ResourceBindingStatus { return &b.Status }

// BindingSpec returns the binding's spec.
func (b *ResourceBinding) BindingSpec() *ResourceBindingSpec { return &b.Spec }

// BindingStatus returns the binding's status.
func (b *ResourceBinding) BindingStatus() *ResourceBindingStatus { return &b.Status }
