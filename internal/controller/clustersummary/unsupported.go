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
	"errors"
	"strings"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
)

// unsupported names the fields of a spec that would change what is deployed but that
// Stagecoach does not implement. Deploying without them would deploy something else than the
// user asked for, so the features fail with this message instead.
func unsupported(spec *configv1beta1.Spec) error {
	var what []string
	if len(spec.Patches) > 0 || len(spec.PatchesFrom) > 0 {
		what = append(what, "patches")
	}
	if len(spec.TemplateResourceRefs) > 0 {
		what = append(what, "templateResourceRefs")
	}
	for _, hc := range spec.HelmCharts {
		if strings.Contains(hc.Values, "{{") {
			what = append(what, "Go templates in helmCharts values")
			break
		}
	}
	if len(what) == 0 {
		return nil
	}
	return permanent(errors.New(strings.Join(what, ", ") + " are not supported by Stagecoach yet; remove them from the profile"))
}
