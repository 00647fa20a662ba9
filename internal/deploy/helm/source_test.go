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
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/go-logr/logr/testr"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/chartrepo"
)

func TestParseChartRef(t *testing.T) {
	for _, tc := range []struct {
		name                         string
		hc                           configv1beta1.HelmChart
		wantURL, wantName, wantError string
		wantOCI                      bool
	}{
		{name: "seed form", hc: configv1beta1.HelmChart{RepositoryURL: "https://kyverno.github.io/kyverno/", RepositoryName: "kyverno", ChartName: "kyverno/kyverno"},
			wantURL: "https://kyverno.github.io/kyverno/", wantName: "kyverno"},
		{name: "bare name", hc: configv1beta1.HelmChart{RepositoryURL: "https://charts.jetstack.io", RepositoryName: "jetstack", ChartName: "cert-manager"},
			wantURL: "https://charts.jetstack.io", wantName: "cert-manager"},
		{name: "other repo prefix", hc: configv1beta1.HelmChart{RepositoryURL: "http://x/", RepositoryName: "a", ChartName: "b/app"},
			wantURL: "http://x/", wantName: "app"},
		{name: "oci joined", hc: configv1beta1.HelmChart{RepositoryURL: "oci://127.0.0.1:5000/charts", RepositoryName: "charts", ChartName: "charts/webapp"},
			wantURL: "oci://127.0.0.1:5000/charts/webapp", wantName: "webapp", wantOCI: true},
		{name: "oci full chart name", hc: configv1beta1.HelmChart{RepositoryURL: "oci://r/charts", ChartName: "oci://r/charts/vault"},
			wantURL: "oci://r/charts/vault", wantName: "vault", wantOCI: true},
		{name: "flux source", hc: configv1beta1.HelmChart{RepositoryURL: "gitrepository://flux-system/repo/charts/x"},
			wantError: "only http(s):// and oci://"},
		{name: "no chart name", hc: configv1beta1.HelmChart{RepositoryURL: "https://x"}, wantError: "chartName is required"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ref, err := parseChartRef(tc.hc)
			if tc.wantError != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantError) || !IsPermanent(err) {
					t.Fatalf("error %v, want a permanent one containing %q", err, tc.wantError)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if ref.repoURL != tc.wantURL || ref.name != tc.wantName || (ref.kind == repoOCI) != tc.wantOCI {
				t.Fatalf("got %+v, want url %s name %s oci %v", ref, tc.wantURL, tc.wantName, tc.wantOCI)
			}
		})
	}
}

func TestPickVersion(t *testing.T) {
	available := []string{"v1.19.1", "3.6.2", "3.5.2", "3.4.2", "3.7.0-rc.1", "2.0.0"}
	for _, tc := range []struct{ want, got string }{
		{"3.5.2", "3.5.2"},
		{"v1.19.1", "v1.19.1"},
		{"", "3.6.2"}, // latest stable, pre-releases skipped
		{"~3.5", "3.5.2"},
		{">=3.0.0 <3.6.0", "3.5.2"},
		{"3.x", "3.6.2"},
		{"9.9.9", ""},
	} {
		got, err := pickVersion(available, tc.want)
		if err != nil || got != tc.got {
			t.Errorf("pickVersion(%q) = %q, %v; want %q", tc.want, got, err, tc.got)
		}
	}
	if _, err := pickVersion(available, ">>nonsense"); err == nil {
		t.Error("a malformed range was accepted")
	}
}

// countingRepo serves the test charts and counts requests per path.
type countingRepo struct {
	url   string
	dir   string
	mu    sync.Mutex
	count map[string]int
}

func (r *countingRepo) hits(path string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.count[path]
}

func serveCounting(t *testing.T) *countingRepo {
	t.Helper()
	dir := t.TempDir()
	if _, err := chartrepo.PackageAll("../../../testdata/charts", dir); err != nil {
		t.Fatal(err)
	}
	r := &countingRepo{dir: dir, count: map[string]int{}}
	files := http.FileServer(http.Dir(dir))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		r.count[req.URL.Path]++
		r.mu.Unlock()
		files.ServeHTTP(w, req)
	}))
	t.Cleanup(srv.Close)
	r.url = srv.URL + "/"
	if err := chartrepo.WriteIndex(dir, r.url); err != nil {
		t.Fatal(err)
	}
	return r
}

func webapp(repoURL, version string) configv1beta1.HelmChart {
	return configv1beta1.HelmChart{RepositoryURL: repoURL, RepositoryName: "local", ChartName: "local/webapp",
		ChartVersion: version, ReleaseName: "web", ReleaseNamespace: "web"}
}

// TestCacheFetchesOnce: many concurrent requests for one chart cost one index and one archive
// download, and an exact version already on disk costs none.
func TestCacheFetchesOnce(t *testing.T) {
	repo := serveCounting(t)
	cache, err := NewCache(CacheOptions{Dir: t.TempDir(), Log: testr.New(t)})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var failures atomic.Int32
	for range 8 {
		wg.Go(func() {
			ch, err := cache.Fetch(context.Background(), webapp(repo.url, "1.1.0"), nil)
			if err != nil || ch.Metadata.Version != "1.1.0" {
				t.Errorf("fetch: %v", err)
				failures.Add(1)
			}
		})
	}
	wg.Wait()
	if got := repo.hits("/index.yaml"); got != 1 {
		t.Errorf("index.yaml fetched %d times, want 1", got)
	}
	if got := repo.hits("/webapp-1.1.0.tgz"); got != 1 {
		t.Errorf("archive fetched %d times, want 1", got)
	}
	// A range needs the index, which is still fresh; the archive is on disk.
	if ch, err := cache.Fetch(context.Background(), webapp(repo.url, "~1.0"), nil); err != nil || ch.Metadata.Version != "1.0.0" {
		t.Fatalf("range fetch: %v", err)
	}
	if got := repo.hits("/index.yaml"); got != 1 {
		t.Errorf("index.yaml fetched %d times within its TTL, want 1", got)
	}
	if ch, err := cache.Fetch(context.Background(), webapp(repo.url, ""), nil); err != nil || ch.Metadata.Version != "2.0.0" {
		t.Fatalf("latest: %v, %v", ch, err)
	}
}

func TestCacheErrors(t *testing.T) {
	repo := serveCounting(t)
	cache, err := NewCache(CacheOptions{Dir: t.TempDir(), Log: testr.New(t)})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	_, err = cache.Fetch(ctx, webapp(repo.url, "9.9.9"), nil)
	if !errors.Is(err, ErrVersionNotFound) || !IsPermanent(err) || !strings.Contains(err.Error(), "available: 2.0.0, 1.1.0, 1.0.0") {
		t.Errorf("missing version: %v", err)
	}

	missing := webapp(repo.url, "1.0.0")
	missing.ChartName = "local/nginx"
	_, err = cache.Fetch(ctx, missing, nil)
	if !errors.Is(err, ErrChartNotFound) || !IsPermanent(err) || !strings.Contains(err.Error(), "cert-manager, kyverno, tested, webapp") {
		t.Errorf("missing chart: %v", err)
	}

	_, err = cache.Fetch(ctx, webapp("http://127.0.0.1:1/charts/", "1.0.0"), nil)
	if err == nil || IsPermanent(err) || !strings.Contains(err.Error(), "repository http://127.0.0.1:1/charts/ did not answer") {
		t.Errorf("unreachable repository: %v", err)
	}

	_, err = cache.Fetch(ctx, webapp(repo.url+"nothing-here/", "1.0.0"), nil)
	if err == nil || !IsPermanent(err) || !strings.Contains(err.Error(), "404") {
		t.Errorf("repository without index: %v", err)
	}
}

// TestCacheBadArchives: a damaged file in the cache is downloaded again; an archive that does
// not match the index's digest is a permanent error.
func TestCacheBadArchives(t *testing.T) {
	repo := serveCounting(t)
	cache, err := NewCache(CacheOptions{Dir: t.TempDir(), Log: testr.New(t)})
	if err != nil {
		t.Fatal(err)
	}
	ref, _ := parseChartRef(webapp(repo.url, "1.0.0"))
	path := cache.archivePath(ref, "1.0.0")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("not a tarball"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := cache.Fetch(context.Background(), webapp(repo.url, "1.0.0"), nil); err != nil {
		t.Fatalf("a damaged cached archive was not replaced: %v", err)
	}
	if got := repo.hits("/webapp-1.0.0.tgz"); got != 1 {
		t.Errorf("archive downloaded %d times, want 1", got)
	}

	if err := os.WriteFile(filepath.Join(repo.dir, "webapp-1.1.0.tgz"), []byte("tampered"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = cache.Fetch(context.Background(), webapp(repo.url, "1.1.0"), nil)
	if !errors.Is(err, ErrBadChart) || !IsPermanent(err) || !strings.Contains(err.Error(), "does not match the index") {
		t.Fatalf("tampered archive: %v", err)
	}
}

// TestCacheChecksCopiesOnDisk: a copy on disk that this Cache did not fetch (another process's,
// from a repository that had the same address) is used only if it matches the index; a stale one
// is downloaded again, and then served without the network.
func TestCacheChecksCopiesOnDisk(t *testing.T) {
	repo := serveCounting(t)
	dir := t.TempDir()
	first, err := NewCache(CacheOptions{Dir: dir, Log: testr.New(t)})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := first.Fetch(ctx, webapp(repo.url, "1.0.0"), nil); err != nil {
		t.Fatal(err)
	}
	// Another process's copy of 1.0.0, from an earlier repository at the same address.
	ref, _ := parseChartRef(webapp(repo.url, "1.0.0"))
	stale, err := os.ReadFile(filepath.Join(repo.dir, "webapp-1.1.0.tgz"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(first.archivePath(ref, "1.0.0"), stale, 0o644); err != nil {
		t.Fatal(err)
	}
	second, err := NewCache(CacheOptions{Dir: dir, Log: testr.New(t)})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		ch, err := second.Fetch(ctx, webapp(repo.url, "1.0.0"), nil)
		if err != nil || ch.Metadata.Version != "1.0.0" {
			t.Fatalf("fetch over a stale copy: %v, %v", ch, err)
		}
	}
	if got := repo.hits("/webapp-1.0.0.tgz"); got != 2 {
		t.Errorf("archive downloaded %d times, want 2 (once per Cache)", got)
	}
	if got := repo.hits("/index.yaml"); got != 2 {
		t.Errorf("index.yaml fetched %d times, want 2 (once per Cache)", got)
	}

	// A repository that does not answer: an exact version on disk is still served, a range is not.
	away := webapp("http://127.0.0.1:1/charts/", "1.0.0")
	awayRef, _ := parseChartRef(away)
	good, err := os.ReadFile(filepath.Join(repo.dir, "webapp-1.0.0.tgz"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(second.archivePath(awayRef, "1.0.0")), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(second.archivePath(awayRef, "1.0.0"), good, 0o644); err != nil {
		t.Fatal(err)
	}
	if ch, err := second.Fetch(ctx, away, nil); err != nil || ch.Metadata.Version != "1.0.0" {
		t.Fatalf("exact version on disk, repository away: %v, %v", ch, err)
	}
	if !second.isAway(away.RepositoryURL) {
		t.Error("a repository that did not answer is asked again at the next fetch")
	}
	away.ChartVersion = "~1.0"
	if _, err := second.Fetch(ctx, away, nil); err == nil || !strings.Contains(err.Error(), "did not answer") {
		t.Fatalf("range, repository away: %v", err)
	}
}

// TestCacheOCI pulls charts from a plain-HTTP OCI registry: exact versions, ranges, the latest,
// and clear errors for a missing version or chart.
func TestCacheOCI(t *testing.T) {
	url, stop, err := chartrepo.ServeOCI(t.Context(), "../../../testdata/charts")
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	cache, err := NewCache(CacheOptions{Dir: t.TempDir(), Log: testr.New(t)})
	if err != nil {
		t.Fatal(err)
	}
	plain := &Credentials{PlainHTTP: true}
	for version, want := range map[string]string{"1.1.0": "1.1.0", "~1.0": "1.0.0", "": "2.0.0"} {
		hc := configv1beta1.HelmChart{RepositoryURL: url, RepositoryName: "charts", ChartName: "charts/webapp", ChartVersion: version}
		ch, err := cache.Fetch(t.Context(), hc, plain)
		if err != nil || ch.Metadata.Version != want {
			t.Fatalf("version %q: %v, %v; want %s", version, ch, err, want)
		}
	}
	hc := configv1beta1.HelmChart{RepositoryURL: url, RepositoryName: "charts", ChartName: "charts/webapp", ChartVersion: "9.9.9"}
	if _, err := cache.Fetch(t.Context(), hc, plain); !errors.Is(err, ErrVersionNotFound) || !IsPermanent(err) {
		t.Errorf("missing version: %v", err)
	}
	hc = configv1beta1.HelmChart{RepositoryURL: url, ChartName: "nginx", ChartVersion: ">=1.0.0"}
	if _, err := cache.Fetch(t.Context(), hc, plain); !errors.Is(err, ErrChartNotFound) || !IsPermanent(err) {
		t.Errorf("missing chart: %v", err)
	}
}
