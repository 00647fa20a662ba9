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
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"golang.org/x/sync/singleflight"
	chart "helm.sh/helm/v4/pkg/chart/v2"
	repo "helm.sh/helm/v4/pkg/repo/v1"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
)

// CacheOptions configure a Cache.
type CacheOptions struct {
	// Dir holds downloaded archives and indexes; default os.TempDir()/stagecoach-charts.
	Dir string
	// IndexTTL is how long a repository's index.yaml is trusted before it is fetched again;
	// default one minute. It bounds how late a newly published version is noticed.
	IndexTTL time.Duration
	// Sources bound where charts may come from, for tenants' and admins' profiles.
	Sources Sources
	Log     logr.Logger
}

// Cache finds and downloads charts for every cluster of the fleet: one download per
// (repository, chart, version), kept on disk, and one index.yaml fetch per repository per TTL.
// Concurrent requests for the same archive or index wait for a single fetch. A chart asked for
// by exact version costs no network once this Cache has fetched it, or checked the copy on disk
// against its repository's index: the directory may be shared with other processes, and a
// repository at a reused address (a loopback port) may serve other content under the same
// version.
type Cache struct {
	dir     string
	ttl     time.Duration
	sources Sources
	log     logr.Logger
	group   singleflight.Group
	now     func() time.Time

	mu      sync.Mutex
	indexes map[string]cachedIndex // by repository URL
	signed  sync.Map               // verifiedChart by chart, version asked and key (cosign.go)
	checked sync.Map               // archive paths fetched or checked against their source by this Cache
	away    sync.Map               // time.Time until which a repository that did not answer is not asked again, by URL
}

type cachedIndex struct {
	index   *repo.IndexFile
	fetched time.Time
}

// NewCache makes a Cache, creating its directory.
func NewCache(opts CacheOptions) (*Cache, error) {
	if opts.Dir == "" {
		opts.Dir = filepath.Join(os.TempDir(), "stagecoach-charts")
	}
	if opts.IndexTTL == 0 {
		opts.IndexTTL = time.Minute
	}
	if err := os.MkdirAll(opts.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("chart cache: %w", err)
	}
	return &Cache{dir: opts.Dir, ttl: opts.IndexTTL, sources: opts.Sources, log: opts.Log, now: time.Now, indexes: map[string]cachedIndex{}}, nil
}

// Fetch returns a freshly loaded copy of the chart hc names, downloading it if needed. creds may
// be nil.
func (c *Cache) Fetch(ctx context.Context, hc configv1beta1.HelmChart, creds *Credentials) (*chart.Chart, error) {
	ref, err := parseChartRef(hc)
	if err != nil {
		return nil, err
	}
	if ctx, err = c.admit(ctx, ref); err != nil {
		return nil, err
	}
	data, path, err := c.archive(ctx, ref, creds)
	if err != nil {
		return nil, err
	}
	ch, err := loadArchive(data, ref)
	if err != nil && path != "" {
		// A damaged file in the cache (a full disk, a stray edit) must not fail the chart for
		// good: drop it and download again, once.
		c.log.Info("dropping unreadable cached chart", "path", path, "error", err.Error())
		_ = os.Remove(path)
		if data, _, err = c.archive(ctx, ref, creds); err != nil {
			return nil, err
		}
		return loadArchive(data, ref)
	}
	return ch, err
}

// archive returns the bytes of the chart archive ref resolves to, and where they are cached.
func (c *Cache) archive(ctx context.Context, ref chartRef, creds *Credentials) ([]byte, string, error) {
	if ref.version != "" && !isVersionRange(ref.version) {
		path := c.archivePath(ref, ref.version)
		if _, ok := c.checked.Load(path); ok || c.isAway(ref.repoURL) {
			if data, err := os.ReadFile(path); err == nil {
				return data, path, nil
			}
		}
	}
	if ref.kind == repoOCI {
		return c.ociArchive(ctx, ref, creds)
	}
	idx, err := c.index(ctx, ref, creds)
	if err != nil {
		if data, path, ok := c.unreachable(ref, err); ok {
			return data, path, nil
		}
		return nil, "", err
	}
	cv, err := selectVersion(idx, ref)
	if err != nil {
		return nil, "", err
	}
	path := c.archivePath(ref, cv.Version)
	data, err := c.onceChecked(path, false, func(data []byte) bool {
		return cv.Digest != "" && verifyDigest(data, cv.Digest, ref, cv.Version) == nil
	}, func() ([]byte, error) {
		data, err := downloadChart(ctx, ref, cv, creds)
		if err != nil {
			return nil, err
		}
		if err := verifyDigest(data, cv.Digest, ref, cv.Version); err != nil {
			return nil, err
		}
		c.log.V(1).Info("downloaded chart", "chart", ref.String(), "version", cv.Version, "bytes", len(data))
		return data, nil
	})
	return data, path, err
}

// once returns the archive at path, producing it with fetch when it is not on disk yet; callers
// asking for the same path at the same time share one fetch. For files whose copy on disk is
// trusted as it is: a chart layer named by its digest, a provenance file checked against its
// archive.
func (c *Cache) once(path string, fetch func() ([]byte, error)) ([]byte, error) {
	return c.onceChecked(path, false, func([]byte) bool { return true }, fetch)
}

// onceChecked is once for an archive whose copy on disk is used only if this Cache fetched it or
// current says it matches its source; otherwise it is fetched again. Either way the path is then
// known to be current, and an exact version is served from disk without asking (archive). With
// unchecked, a copy that could not be checked is used when the source does not answer.
func (c *Cache) onceChecked(path string, unchecked bool, current func([]byte) bool, fetch func() ([]byte, error)) ([]byte, error) {
	v, err, _ := c.group.Do("archive:"+path, func() (any, error) {
		onDisk, diskErr := os.ReadFile(path)
		if diskErr == nil {
			if _, ok := c.checked.Load(path); ok || current(onDisk) {
				c.checked.Store(path, true)
				return onDisk, nil
			}
		}
		data, err := fetch()
		if err != nil && unchecked && diskErr == nil && !IsPermanent(err) {
			c.log.Info("chart source does not answer: using the copy on disk", "path", path, "error", err.Error())
			return onDisk, nil
		}
		if err != nil {
			return nil, err
		}
		if err := writeAtomically(path, data); err != nil {
			// The chart is in hand; failing to cache it only costs a later download.
			c.log.Error(err, "caching chart archive", "path", path)
		}
		c.checked.Store(path, true)
		return data, nil
	})
	if err != nil {
		return nil, err
	}
	return v.([]byte), nil
}

// unreachable returns the copy on disk of an exact version when its repository's index cannot be
// fetched for a reason retrying may fix: a restart while the repository is away must not stop
// the deploys of charts already here.
func (c *Cache) unreachable(ref chartRef, err error) ([]byte, string, bool) {
	if ref.version == "" || isVersionRange(ref.version) || IsPermanent(err) {
		return nil, "", false
	}
	path := c.archivePath(ref, ref.version)
	data, readErr := os.ReadFile(path)
	if readErr != nil {
		return nil, "", false
	}
	c.log.Info("chart repository does not answer: using the copy on disk", "chart", ref.String(), "version", ref.version, "error", err.Error())
	// Not asked again for an index TTL: a repository that hangs would otherwise hold every
	// deploy of the chart for the client's timeout.
	c.away.Store(ref.repoURL, c.now().Add(c.ttl))
	return data, path, true
}

// isAway reports whether the repository did not answer within the last index TTL.
func (c *Cache) isAway(repoURL string) bool {
	until, ok := c.away.Load(repoURL)
	return ok && c.now().Before(until.(time.Time))
}

// index returns the repository's index, fetching it when the cached copy is older than the TTL.
func (c *Cache) index(ctx context.Context, ref chartRef, creds *Credentials) (*repo.IndexFile, error) {
	c.mu.Lock()
	cached, ok := c.indexes[ref.repoURL]
	c.mu.Unlock()
	if ok && c.now().Sub(cached.fetched) < c.ttl {
		return cached.index, nil
	}
	v, err, _ := c.group.Do("index:"+ref.repoURL, func() (any, error) {
		data, err := downloadIndex(ctx, ref, creds)
		if err != nil {
			return nil, err
		}
		path := filepath.Join(c.repoDir(ref), "index.yaml")
		if err := writeAtomically(path, data); err != nil {
			return nil, fmt.Errorf("chart cache: %w", err)
		}
		idx, err := repo.LoadIndexFile(path)
		if err != nil {
			return nil, permanent(fmt.Errorf("%w: repository %s: index.yaml is not a chart repository index: %w",
				ErrInvalidSpec, ref.repoURL, err))
		}
		c.mu.Lock()
		c.indexes[ref.repoURL] = cachedIndex{index: idx, fetched: c.now()}
		c.mu.Unlock()
		return idx, nil
	})
	if err != nil {
		return nil, err
	}
	return v.(*repo.IndexFile), nil
}

// repoDir is the cache directory of one repository: a hash, since URLs are not file names.
func (c *Cache) repoDir(ref chartRef) string {
	sum := sha256.Sum256([]byte(ref.repoURL))
	return filepath.Join(c.dir, hex.EncodeToString(sum[:8]))
}

func (c *Cache) archivePath(ref chartRef, version string) string {
	return filepath.Join(c.repoDir(ref), ref.name+"-"+version+".tgz")
}

func verifyDigest(data []byte, digest string, ref chartRef, version string) error {
	if digest == "" {
		return nil
	}
	sum := sha256.Sum256(data)
	if got := hex.EncodeToString(sum[:]); got != digest {
		return permanent(fmt.Errorf("%w: %s %s: digest %s does not match the index (%s)", ErrBadChart, ref, version, got, digest))
	}
	return nil
}

func writeAtomically(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".download-*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		_ = os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		_ = os.Remove(tmp.Name())
		return err
	}
	return nil
}
