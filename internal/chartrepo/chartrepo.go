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

// Package chartrepo is a local Helm chart repository for tests and the demo: it packages chart
// source directories (several versions from one directory if asked) and serves them with an
// index.yaml over HTTP on loopback, so that no test ever reaches a public repository.
package chartrepo

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	chart "helm.sh/helm/v4/pkg/chart/v2"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
	chartutil "helm.sh/helm/v4/pkg/chart/v2/util"
	repo "helm.sh/helm/v4/pkg/repo/v1"
	"sigs.k8s.io/yaml"
)

// VersionsFile names the file that, beside a Chart.yaml, lists the versions to build from that
// directory. Without it the directory is packaged once, at the version its Chart.yaml says.
//
//	versions:
//	- version: 3.5.2
//	  appVersion: v1.15.2
const VersionsFile = "versions.yaml"

// Version is one build of a chart directory; empty fields keep the Chart.yaml values.
type Version struct {
	Version    string `json:"version"`
	AppVersion string `json:"appVersion,omitempty"`
}

// Package builds srcDir as version v into outDir and returns the archive's path
// (outDir/<name>-<version>.tgz). Chart.yaml's version and appVersion are overridden; every
// occurrence of them in templates comes from .Chart, so one source serves every version.
func Package(srcDir, outDir string, v Version) (string, error) {
	ch, err := loader.LoadDir(srcDir)
	if err != nil {
		return "", fmt.Errorf("loading chart %s: %w", srcDir, err)
	}
	if v.Version != "" {
		ch.Metadata.Version = v.Version
	}
	if v.AppVersion != "" {
		ch.Metadata.AppVersion = v.AppVersion
	}
	dropVersionsFile(ch)
	path, err := chartutil.Save(ch, outDir)
	if err != nil {
		return "", fmt.Errorf("packaging chart %s %s: %w", srcDir, ch.Metadata.Version, err)
	}
	return path, nil
}

func dropVersionsFile(ch *chart.Chart) {
	kept := ch.Files[:0]
	for _, f := range ch.Files {
		if f.Name != VersionsFile {
			kept = append(kept, f)
		}
	}
	ch.Files = kept
}

// PackageAll packages every chart directory under srcDir (each directory holding a
// Chart.yaml, not looking inside a chart for more) into outDir, every version its
// versions.yaml lists.
func PackageAll(srcDir, outDir string) ([]string, error) {
	var archives []string
	err := filepath.WalkDir(srcDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if _, err := os.Stat(filepath.Join(path, chartutil.ChartfileName)); err != nil {
			return nil
		}
		versions, err := readVersions(path)
		if err != nil {
			return err
		}
		for _, v := range versions {
			archive, err := Package(path, outDir, v)
			if err != nil {
				return err
			}
			archives = append(archives, archive)
		}
		return filepath.SkipDir // a chart's subdirectories (charts/, templates/) are its own
	})
	if err == nil && len(archives) == 0 {
		err = fmt.Errorf("no chart (directory with a Chart.yaml) under %s", srcDir)
	}
	return archives, err
}

func readVersions(chartDir string) ([]Version, error) {
	data, err := os.ReadFile(filepath.Join(chartDir, VersionsFile))
	if errors.Is(err, fs.ErrNotExist) {
		return []Version{{}}, nil
	}
	if err != nil {
		return nil, err
	}
	var file struct {
		Versions []Version `json:"versions"`
	}
	if err := yaml.UnmarshalStrict(data, &file); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(chartDir, VersionsFile), err)
	}
	if len(file.Versions) == 0 {
		return nil, fmt.Errorf("%s lists no versions", filepath.Join(chartDir, VersionsFile))
	}
	return file.Versions, nil
}

// WriteIndex writes outDir/index.yaml for the archives in outDir, with download URLs under
// baseURL.
func WriteIndex(outDir, baseURL string) error {
	idx, err := repo.IndexDirectory(outDir, baseURL)
	if err != nil {
		return fmt.Errorf("indexing %s: %w", outDir, err)
	}
	idx.SortEntries()
	return idx.WriteFile(filepath.Join(outDir, "index.yaml"), 0o644)
}

// Serve packages every chart under dir into a temporary directory and serves it as a chart
// repository on 127.0.0.1 with a random port. It returns the repository URL (ending in "/")
// and stop, which shuts the server down and removes the packages; ctx ending stops it too.
func Serve(ctx context.Context, dir string) (url string, stop func(), err error) {
	return ServeOn(ctx, dir, "127.0.0.1:0")
}

// ServeOn is Serve on the given listen address.
func ServeOn(ctx context.Context, dir, addr string) (url string, stop func(), err error) {
	out, err := os.MkdirTemp("", "stagecoach-chartrepo-")
	if err != nil {
		return "", nil, err
	}
	cleanup := func() { _ = os.RemoveAll(out) }
	if _, err := PackageAll(dir, out); err != nil {
		cleanup()
		return "", nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		cleanup()
		return "", nil, err
	}
	url = "http://" + ln.Addr().String() + "/"
	if err := WriteIndex(out, url); err != nil {
		_ = ln.Close()
		cleanup()
		return "", nil, err
	}
	srv := &http.Server{Handler: http.FileServer(http.Dir(out)), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	stopCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		<-stopCtx.Done()
		shutdown, cancelShutdown := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancelShutdown()
		_ = srv.Shutdown(shutdown)
		cleanup()
		close(done)
	}()
	return url, func() { cancel(); <-done }, nil
}
