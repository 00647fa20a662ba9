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
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/Masterminds/semver/v3"
	chart "helm.sh/helm/v4/pkg/chart/v2"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
	repo "helm.sh/helm/v4/pkg/repo/v1"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
)

// repoKind is where a chart comes from.
type repoKind int

const (
	repoHTTP repoKind = iota // a classic chart repository with an index.yaml
	repoOCI                  // an OCI registry
)

// chartRef is a HelmChart reduced to what is needed to find its archive.
type chartRef struct {
	kind    repoKind
	repoURL string // http(s) repository URL, or the oci:// reference of the chart without tag
	name    string // chart name inside the repository
	version string // as written: exact, a semver range, or empty for the latest stable
}

func (r chartRef) String() string {
	if r.kind == repoOCI {
		return r.repoURL
	}
	return strings.TrimSuffix(r.repoURL, "/") + "/" + r.name
}

// parseChartRef reads the repository, chart name and version of hc. chartName is accepted both
// as "<repositoryName>/<chart>" (the form Sveltos documents) and as the bare chart name; an
// oci:// chartName is a complete reference.
func parseChartRef(hc configv1beta1.HelmChart) (chartRef, error) {
	url := strings.TrimSpace(hc.RepositoryURL)
	name := strings.TrimSpace(hc.ChartName)
	ref := chartRef{version: strings.TrimSpace(hc.ChartVersion)}
	switch {
	case strings.HasPrefix(url, "http://"), strings.HasPrefix(url, "https://"):
		ref.kind, ref.repoURL = repoHTTP, url
		ref.name = stripRepoName(name, hc.RepositoryName)
		if strings.Contains(ref.name, "/") {
			// "otherrepo/chart": helm's CLI form; the part before the slash names a repository.
			ref.name = ref.name[strings.LastIndex(ref.name, "/")+1:]
		}
	case strings.HasPrefix(url, "oci://"):
		ref.kind = repoOCI
		if strings.HasPrefix(name, "oci://") {
			ref.repoURL = name
		} else {
			ref.repoURL = strings.TrimSuffix(url, "/") + "/" + stripRepoName(name, hc.RepositoryName)
		}
		ref.name = ref.repoURL[strings.LastIndex(ref.repoURL, "/")+1:]
	default:
		return ref, permanent(fmt.Errorf("%w: repositoryURL %q: only http(s):// and oci:// repositories are supported",
			ErrInvalidSpec, hc.RepositoryURL))
	}
	if ref.name == "" {
		return ref, permanent(fmt.Errorf("%w: chartName is required for repository %s", ErrInvalidSpec, url))
	}
	return ref, nil
}

func stripRepoName(chartName, repoName string) string {
	if repoName != "" {
		return strings.TrimPrefix(chartName, repoName+"/")
	}
	return chartName
}

// isVersionRange tells a constraint ("^1.2", ">=1, <2", "1.x") from an exact version.
func isVersionRange(v string) bool {
	if strings.ContainsAny(v, "^~<>=!*|") || strings.Contains(v, " - ") {
		return true
	}
	core, _, _ := strings.Cut(v, "-")
	core, _, _ = strings.Cut(core, "+")
	return strings.ContainsAny(core, "xX")
}

// selectVersion picks the version of chart name that want asks for from an index: an exact
// match first (so "v1.19.1" and "1.19.1" are both honoured as written), then the highest version
// satisfying want, where an empty want means the highest stable version.
func selectVersion(idx *repo.IndexFile, ref chartRef) (*repo.ChartVersion, error) {
	versions, ok := idx.Entries[ref.name]
	if !ok || len(versions) == 0 {
		return nil, permanent(fmt.Errorf("%w: repository %s has no chart %q%s",
			ErrChartNotFound, ref.repoURL, ref.name, listSome(" (it has: %s)", slices.Sorted(maps.Keys(idx.Entries)))))
	}
	available := make([]string, 0, len(versions))
	for _, v := range versions {
		available = append(available, v.Version)
	}
	best, err := pickVersion(available, ref.version)
	if err != nil {
		return nil, versionError(ref, available, err)
	}
	for _, v := range versions {
		if v.Version == best {
			return v, nil
		}
	}
	return nil, versionError(ref, available, nil)
}

// pickVersion chooses among available version strings; shared by index and OCI tag lookups.
func pickVersion(available []string, want string) (string, error) {
	if want != "" && !isVersionRange(want) {
		if slices.Contains(available, want) {
			return want, nil
		}
	}
	constraint := "*" // stable versions only, as helm does
	if want != "" {
		constraint = want
	}
	c, err := semver.NewConstraint(constraint)
	if err != nil {
		return "", fmt.Errorf("chartVersion %q is neither a version nor a semver range: %w", want, err)
	}
	var best *semver.Version
	var bestRaw string
	for _, raw := range available {
		v, err := semver.NewVersion(raw)
		if err != nil || !c.Check(v) {
			continue
		}
		if best == nil || v.GreaterThan(best) {
			best, bestRaw = v, raw
		}
	}
	if best == nil {
		return "", nil
	}
	return bestRaw, nil
}

func versionError(ref chartRef, available []string, cause error) error {
	sortVersionsDesc(available)
	want := ref.version
	if want == "" {
		want = "(latest stable)"
	}
	msg := fmt.Sprintf("%s: chart %s has no version %s%s", ErrVersionNotFound.Error(), ref, want,
		listSome("; available: %s", available))
	if cause != nil {
		msg += ": " + cause.Error()
	}
	return permanent(&wrapped{msg: msg, err: ErrVersionNotFound})
}

// wrapped is an error with a message of its own that still matches a sentinel with errors.Is.
type wrapped struct {
	msg string
	err error
}

func (w *wrapped) Error() string { return w.msg }
func (w *wrapped) Unwrap() error { return w.err }

// listSome formats at most eight items, newest first, into format ("" when there are none).
func listSome(format string, items []string) string {
	if len(items) == 0 {
		return ""
	}
	const most = 8
	shown := strings.Join(items[:min(len(items), most)], ", ")
	if len(items) > most {
		shown += fmt.Sprintf(", … (%d in all)", len(items))
	}
	return fmt.Sprintf(format, shown)
}

func sortVersionsDesc(vs []string) {
	slices.SortStableFunc(vs, func(a, b string) int {
		va, ea := semver.NewVersion(a)
		vb, eb := semver.NewVersion(b)
		if ea != nil || eb != nil {
			return strings.Compare(b, a)
		}
		return vb.Compare(va)
	})
}

// loadArchive turns archive bytes into a chart. Every caller gets its own copy: Helm mutates
// charts while installing (dependency processing, reused values), so a loaded chart is never
// shared between clusters.
func loadArchive(data []byte, ref chartRef) (*chart.Chart, error) {
	ch, err := loader.LoadArchive(bytes.NewReader(data))
	if err != nil {
		return nil, permanent(fmt.Errorf("%w: %s: %w", ErrBadChart, ref, err))
	}
	if err := ch.Validate(); err != nil {
		return nil, permanent(fmt.Errorf("%w: %s: %w", ErrBadChart, ref, err))
	}
	return ch, nil
}
