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

package chartrepo

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"helm.sh/helm/v4/pkg/chart/common"
	"helm.sh/helm/v4/pkg/chart/common/util"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
	"helm.sh/helm/v4/pkg/engine"
	repo "helm.sh/helm/v4/pkg/repo/v1"
)

const chartsDir = "../../testdata/charts"

func TestServeIndexesEveryVersion(t *testing.T) {
	url, stop, err := Serve(context.Background(), chartsDir)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	if !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.HasSuffix(url, "/") {
		t.Fatalf("url %q, want http://127.0.0.1:PORT/", url)
	}
	idx := fetchIndex(t, url)
	want := map[string][]string{
		"webapp":       {"1.0.0", "1.1.0", "2.0.0"},
		"kyverno":      {"3.4.2", "3.5.2", "3.6.2"},
		"cert-manager": {"v1.19.1"},
	}
	for name, versions := range want {
		var got []string
		for _, cv := range idx.Entries[name] {
			got = append(got, cv.Version)
			if name == "kyverno" && cv.Version == "3.5.2" && cv.AppVersion != "v1.15.2" {
				t.Errorf("kyverno 3.5.2 appVersion %q, want v1.15.2", cv.AppVersion)
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, versions) {
			t.Errorf("%s versions %v, want %v", name, got, versions)
		}
	}
	archive := get(t, url+"webapp-1.1.0.tgz")
	ch, err := loader.LoadArchive(strings.NewReader(string(archive)))
	if err != nil {
		t.Fatal(err)
	}
	if ch.Metadata.Version != "1.1.0" || ch.Metadata.AppVersion != "1.1.0" {
		t.Errorf("archive metadata %s/%s, want 1.1.0/1.1.0", ch.Metadata.Version, ch.Metadata.AppVersion)
	}
	for _, f := range ch.Files {
		if f.Name == VersionsFile {
			t.Errorf("%s was packaged into the chart", VersionsFile)
		}
	}
}

func TestServeStops(t *testing.T) {
	url, stop, err := Serve(context.Background(), chartsDir)
	if err != nil {
		t.Fatal(err)
	}
	stop()
	if resp, err := http.Get(url + "index.yaml"); err == nil {
		_ = resp.Body.Close()
		t.Fatal("the repository still answers after stop")
	}
}

// TestChartsRender renders every test chart with its defaults, and checks that each schema
// rejects a boolean where an integer replica count belongs (seed 002's failure scenario).
func TestChartsRender(t *testing.T) {
	out := t.TempDir()
	archives, err := PackageAll(chartsDir, out)
	if err != nil {
		t.Fatal(err)
	}
	bad := map[string]map[string]any{
		"webapp":       {"replicas": true},
		"kyverno":      {"admissionController": map[string]any{"replicas": true}},
		"cert-manager": {"replicaCount": true},
		"tested":       {"replicas": true},
	}
	for _, archive := range archives {
		t.Run(filepath.Base(archive), func(t *testing.T) {
			ch, err := loader.Load(archive)
			if err != nil {
				t.Fatal(err)
			}
			opts := common.ReleaseOptions{Name: "test", Namespace: "ns", Revision: 1, IsInstall: true}
			vals, err := util.ToRenderValues(ch, nil, opts, nil)
			if err != nil {
				t.Fatal(err)
			}
			files, err := engine.Render(ch, vals)
			if err != nil {
				t.Fatal(err)
			}
			if len(files) == 0 {
				t.Fatal("rendered nothing")
			}
			_, err = util.ToRenderValues(ch, bad[ch.Metadata.Name], opts, nil)
			if err == nil || !strings.Contains(err.Error(), "integer") {
				t.Fatalf("schema accepted %v: %v", bad[ch.Metadata.Name], err)
			}
		})
	}
}

func TestPackageAllNeedsCharts(t *testing.T) {
	if _, err := PackageAll(t.TempDir(), t.TempDir()); err == nil {
		t.Fatal("PackageAll of an empty directory succeeded")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "Chart.yaml"), []byte("apiVersion: v2\nname: x\nversion: 1.0.0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, VersionsFile), []byte("versions: []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := PackageAll(dir, t.TempDir()); err == nil || !strings.Contains(err.Error(), "no versions") {
		t.Fatalf("want an error about an empty versions list, got %v", err)
	}
}

func fetchIndex(t *testing.T, url string) *repo.IndexFile {
	t.Helper()
	path := filepath.Join(t.TempDir(), "index.yaml")
	if err := os.WriteFile(path, get(t, url+"index.yaml"), 0o644); err != nil {
		t.Fatal(err)
	}
	idx, err := repo.LoadIndexFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return idx
}

func get(t *testing.T, url string) []byte {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", url, resp.Status)
	}
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
