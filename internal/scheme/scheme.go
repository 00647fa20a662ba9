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

// Package scheme assembles the runtime.Scheme with every API Stagecoach reads or writes.
package scheme

import (
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	clusterv1beta1 "github.com/stagecoach-dev/stagecoach/api/cluster/v1beta1"
	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	inventoryv1alpha1 "github.com/stagecoach-dev/stagecoach/api/inventory/v1alpha1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
)

// New returns a scheme with the Kubernetes built-in types, CRDs, both Stagecoach API families and
// Flux's sources.
func New() *runtime.Scheme {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		clientgoscheme.AddToScheme,
		apiextensionsv1.AddToScheme,
		configv1beta1.AddToScheme,
		libv1beta1.AddToScheme,
		clusterv1beta1.AddToScheme,
		placementv1beta1.AddToScheme,
		// The Cluster Inventory API's ClusterProfile, published for every registered cluster.
		inventoryv1alpha1.AddToScheme,
		// Flux sources, whose artifacts profiles deploy.
		sourcev1.AddToScheme,
	} {
		utilruntime.Must(add(s))
	}
	return s
}
