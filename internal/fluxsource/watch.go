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

package fluxsource

import (
	"maps"

	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
)

// Served returns an empty object of each Flux source kind the cluster serves, for watches: a
// controller started where Flux is not installed watches none, and a Flux installed later is
// seen after a restart of the controller.
func Served(mapper meta.RESTMapper) map[string]client.Object {
	out := map[string]client.Object{}
	for _, kind := range Kinds {
		if _, err := mapper.RESTMapping(sourcev1.GroupVersion.WithKind(kind).GroupKind(), sourcev1.GroupVersion.Version); err == nil {
			obj, _ := newObject(kind)
			out[kind] = obj
		}
	}
	return out
}

// ArtifactChanged lets through the updates of a source that give it another artifact, or change
// the annotations that say how its files are read; its status changes often otherwise.
var ArtifactChanged = predicate.Funcs{UpdateFunc: func(e event.UpdateEvent) bool {
	before, ok1 := e.ObjectOld.(sourcev1.Source)
	after, ok2 := e.ObjectNew.(sourcev1.Source)
	if !ok1 || !ok2 {
		return true
	}
	a, b := before.GetArtifact(), after.GetArtifact()
	return (a == nil) != (b == nil) || a != nil && a.Digest != b.Digest ||
		!maps.Equal(e.ObjectOld.GetAnnotations(), e.ObjectNew.GetAnnotations())
}}
