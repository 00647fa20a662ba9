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

package plan

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/scheme"
)

// plannable are the kinds Plan previews, by apiVersion and kind.
var plannable = map[string]bool{
	configv1beta1.GroupVersion.String() + "/" + configv1beta1.ClusterPromotionKind:             true,
	configv1beta1.GroupVersion.String() + "/" + configv1beta1.ClusterProfileKind:               true,
	configv1beta1.GroupVersion.String() + "/" + configv1beta1.ProfileKind:                      true,
	placementv1beta1.GroupVersion.String() + "/" + placementv1beta1.ClusterStagedUpdateRunKind: true,
	placementv1beta1.GroupVersion.String() + "/" + placementv1beta1.StagedUpdateRunKind:        true,
}

// Decode reads the objects Plan previews from YAML or JSON documents (a file as `kubectl
// apply -f` takes it), in order. Documents of other kinds, a ConfigMap of content say, are
// skipped; a file without any plannable object is an error.
func Decode(data []byte) ([]client.Object, error) {
	s := scheme.New()
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	var out []client.Object
	for doc := 1; ; doc++ {
		u := &unstructured.Unstructured{}
		err := dec.Decode(&u.Object)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("document %d: %w", doc, err)
		}
		if len(u.Object) == 0 || !plannable[u.GetAPIVersion()+"/"+u.GetKind()] {
			continue
		}
		typed, err := s.New(u.GroupVersionKind())
		if err != nil {
			return nil, fmt.Errorf("document %d: %w", doc, err)
		}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(u.Object, typed, true); err != nil {
			return nil, fmt.Errorf("document %d (%s %s): %w", doc, u.GetKind(), u.GetName(), err)
		}
		out = append(out, typed.(client.Object))
	}
	if len(out) == 0 {
		return nil, errors.New("no ClusterPromotion, ClusterProfile, Profile, ClusterStagedUpdateRun or StagedUpdateRun to plan")
	}
	return out, nil
}
