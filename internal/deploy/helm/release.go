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

package helm

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	chart "helm.sh/helm/v4/pkg/chart/v2"
	release "helm.sh/helm/v4/pkg/release/v1"
	releaseutil "helm.sh/helm/v4/pkg/release/v1/util"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/yaml"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
)

// Action is what Deploy or Uninstall did to a release.
type Action string

// What Deploy and Uninstall may do.
const (
	ActionInstalled   Action = "Installed"
	ActionUpgraded    Action = "Upgraded"
	ActionUnchanged   Action = "Unchanged"
	ActionUninstalled Action = "Uninstalled"
)

// Release is the state of one Helm release on one managed cluster after Deploy.
type Release struct {
	Name         string
	Namespace    string
	Revision     int
	Chart        string // the chart's own name, e.g. "kyverno"
	ChartVersion string
	AppVersion   string
	// Status is Helm's release status: deployed, failed, pending-upgrade, …
	Status      string
	Description string
	// ValuesHash is the SHA-256 of the values Stagecoach passed (as Sveltos' valuesHash, it
	// prints as base64 in JSON).
	ValuesHash []byte
	// GVKs are the kinds of the rendered manifest objects, written "Kind.version.group" as
	// Sveltos prints them ("Secret.v1.", "Deployment.v1.apps"), sorted and unique.
	GVKs   []string
	Action Action
	// Manifest is the release's rendered objects (hooks aside), as Helm stores them.
	Manifest string
}

// releaseOf summarises a Helm release.
func releaseOf(rel *release.Release, valuesHash []byte, act Action) Release {
	r := Release{
		Name:       rel.Name,
		Namespace:  rel.Namespace,
		Revision:   rel.Version,
		ValuesHash: valuesHash,
		GVKs:       manifestGVKs(rel.Manifest),
		Action:     act,
		Manifest:   rel.Manifest,
	}
	if rel.Chart != nil && rel.Chart.Metadata != nil {
		r.Chart, r.ChartVersion, r.AppVersion = rel.Chart.Metadata.Name, rel.Chart.Metadata.Version, rel.Chart.Metadata.AppVersion
	}
	if rel.Info != nil {
		r.Status, r.Description = rel.Info.Status.String(), rel.Info.Description
	}
	return r
}

// manifestGVKs lists the kinds of the objects in a rendered manifest.
func manifestGVKs(manifest string) []string {
	var gvks []string
	for _, doc := range releaseutil.SplitManifests(manifest) {
		var head struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
		}
		if yaml.Unmarshal([]byte(doc), &head) != nil || head.Kind == "" {
			continue
		}
		gv, err := schema.ParseGroupVersion(head.APIVersion)
		if err != nil {
			continue
		}
		gvks = append(gvks, head.Kind+"."+gv.Version+"."+gv.Group)
	}
	slices.Sort(gvks)
	return slices.Compact(gvks)
}

// ParseValues parses a HelmChart's values (already instantiated if it was a template) into the
// map Deploy takes. Empty text means no values.
func ParseValues(text string) (map[string]any, error) {
	values := map[string]any{}
	if strings.TrimSpace(text) == "" {
		return values, nil
	}
	if err := yaml.Unmarshal([]byte(text), &values); err != nil {
		return nil, permanent(fmt.Errorf("%w: values are not a YAML mapping: %w", ErrInvalidValues, err))
	}
	return values, nil
}

// copyValues gives each Deploy its own copy of the values, in the JSON types Helm stores them
// as: callers pass one parsed map to every cluster at once, and Helm is free to change the map
// it is given.
func copyValues(values map[string]any) (map[string]any, error) {
	data, err := json.Marshal(values)
	if err != nil {
		return nil, permanent(fmt.Errorf("%w: values cannot be written as JSON: %w", ErrInvalidValues, err))
	}
	copied := map[string]any{}
	if err := json.Unmarshal(data, &copied); err != nil {
		return nil, permanent(fmt.Errorf("%w: %w", ErrInvalidValues, err))
	}
	return copied, nil
}

// ValuesHash is the SHA-256 of values in canonical JSON (map keys sorted), so that equal values
// hash equal whatever their order in the YAML or their Go number types.
func ValuesHash(values map[string]any) []byte {
	if values == nil {
		values = map[string]any{}
	}
	data, err := json.Marshal(values)
	if err != nil {
		// Values come from YAML or JSON and always marshal; keep a distinct hash if not.
		data = fmt.Appendf(nil, "%#v", values)
	}
	sum := sha256.Sum256(data)
	return sum[:]
}

// SpecHashLabel is the release label holding the hash of what Stagecoach asked for (chart,
// version, values, options): when it matches, the release is up to date.
const SpecHashLabel = "stagecoach.dev/spec-hash"

// specHash covers everything in a HelmChart that should roll the release when it changes:
// the chart and version resolved, the values and every option. It is a valid label value.
// extra is what else changes the rendered objects (labels and annotations added to them); an
// empty extra leaves the hash of a release deployed without it unchanged.
func specHash(ch *chart.Chart, values map[string]any, opts *configv1beta1.HelmOptions, extra string) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00", ch.Metadata.Name, ch.Metadata.Version)
	h.Write(ValuesHash(values))
	if opts != nil {
		data, _ := json.Marshal(opts)
		h.Write(data)
	}
	h.Write([]byte(extra))
	return hex.EncodeToString(h.Sum(nil))[:48]
}

// ownerLabelValue turns an owner into a label value. A valid label value is kept as is, so
// that conflict messages name the owner exactly; anything else is cleaned and suffixed with a
// hash of the original, so that two owners never share a value.
func ownerLabelValue(owner string) string {
	if len(validation.IsValidLabelValue(owner)) == 0 {
		return owner
	}
	clean := strings.Map(func(r rune) rune {
		if r < 128 && (r == '-' || r == '_' || r == '.' || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') || ('0' <= r && r <= '9')) {
			return r
		}
		return '.'
	}, owner)
	clean = strings.Trim(clean, "-_.")
	sum := sha256.Sum256([]byte(owner))
	suffix := hex.EncodeToString(sum[:6])
	if len(clean) > 63-len(suffix)-1 {
		clean = strings.TrimRight(clean[:63-len(suffix)-1], "-_.")
	}
	if clean == "" {
		return suffix
	}
	return clean + "-" + suffix
}
