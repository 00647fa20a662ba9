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

package clustersummary

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
)

// withMetadata adds the profile's extraLabels and extraAnnotations to the parts of a feature's
// hash when there are any, so that the hash of a profile without them stays what it was.
func withMetadata(spec *configv1beta1.Spec, parts ...any) []any {
	if len(spec.ExtraLabels) == 0 && len(spec.ExtraAnnotations) == 0 {
		return parts
	}
	return append(parts, spec.ExtraLabels, spec.ExtraAnnotations)
}

// hashOf digests a feature's configuration and the content it reads, so that a change to either
// shows as a new hash. Sveltos reports these hashes base64-encoded.
func hashOf(parts ...any) []byte {
	h := sha256.New()
	for _, p := range parts {
		data, err := json.Marshal(p)
		if err != nil {
			// Every part is a plain API struct or map; marshalling cannot fail.
			panic(fmt.Sprintf("hashing %T: %v", p, err))
		}
		h.Write(data)
		h.Write([]byte{0})
	}
	return h.Sum(nil)
}
