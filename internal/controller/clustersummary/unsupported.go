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
