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
	"fmt"
	"path/filepath"
	"strings"

	"helm.sh/helm/v4/pkg/registry"
)

// ociArchive pulls a chart from an OCI registry. A range or an empty version is resolved
// against the repository's tags.
func (c *Cache) ociArchive(ctx context.Context, ref chartRef, creds *Credentials) ([]byte, string, error) {
	client, err := c.registryClient(ctx, creds)
	if err != nil {
		return nil, "", err
	}
	host := strings.TrimPrefix(ref.repoURL, "oci://")
	version := ref.version
	if version == "" || isVersionRange(version) {
		tags, err := client.Tags(host)
		if err != nil {
			return nil, "", ociTagsError(ref, err)
		}
		picked, err := pickVersion(tags, version)
		if err != nil || picked == "" {
			return nil, "", versionError(ref, tags, err)
		}
		version = picked
	}
	path := c.archivePath(ref, version)
	// A tag names no digest to check a copy on disk against: it is pulled once per process, and
	// the copy is used only while the registry does not answer.
	data, err := c.onceChecked(path, true, func([]byte) bool { return false }, func() ([]byte, error) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		// Tags may not hold "+": OCI references spell it "_".
		res, err := client.Pull(host+":"+strings.ReplaceAll(version, "+", "_"), registry.PullOptWithChart(true))
		if err != nil {
			return nil, ociPullError(ref, version, err)
		}
		c.log.V(1).Info("pulled chart", "chart", ref.String(), "version", version, "bytes", len(res.Chart.Data))
		return res.Chart.Data, nil
	})
	return data, path, err
}

// registryClient builds a Helm registry client for creds. It never reads the user's Helm or
// Docker login files: a controller authenticates only with what the HelmChart names.
func (c *Cache) registryClient(ctx context.Context, creds *Credentials) (*registry.Client, error) {
	opts := []registry.ClientOption{
		registry.ClientOptCredentialsFile(filepath.Join(c.dir, "registry-config.json")),
	}
	custom := creds != nil && (len(creds.CA) > 0 || creds.InsecureSkipTLSVerify)
	if p := policyFrom(ctx); p != nil && !custom {
		opts = append(opts, registry.ClientOptHTTPClient(p.httpClient()))
	}
	if creds != nil {
		if creds.PlainHTTP {
			opts = append(opts, registry.ClientOptPlainHTTP())
		}
		if creds.Username != "" {
			opts = append(opts, registry.ClientOptBasicAuth(creds.Username, creds.Password))
		}
		if creds.CacheTokens {
			opts = append(opts, registry.ClientOptEnableCache(true))
		}
		if len(creds.CA) > 0 || creds.InsecureSkipTLSVerify {
			hc, err := httpClient(ctx, creds)
			if err != nil {
				return nil, err
			}
			opts = append(opts, registry.ClientOptHTTPClient(hc))
		}
	}
	client, err := registry.NewClient(opts...)
	if err != nil {
		return nil, fmt.Errorf("registry client: %w", err)
	}
	return client, nil
}

// ociPullError tells a missing tag (the user's to fix) from an unreachable registry.
func ociPullError(ref chartRef, version string, err error) error {
	msg := err.Error()
	if strings.Contains(msg, "not found") || strings.Contains(msg, "MANIFEST_UNKNOWN") || strings.Contains(msg, "NAME_UNKNOWN") {
		return permanent(&wrapped{
			msg: fmt.Sprintf("%s: registry %s has no chart version %s: %v", ErrVersionNotFound.Error(), ref.repoURL, version, err),
			err: ErrVersionNotFound,
		})
	}
	return fmt.Errorf("registry %s did not answer: %w", ref.repoURL, err)
}

// ociTagsError tells a repository the registry does not have from an unreachable registry.
func ociTagsError(ref chartRef, err error) error {
	if msg := err.Error(); strings.Contains(msg, "NAME_UNKNOWN") || strings.Contains(msg, "not found") {
		return permanent(fmt.Errorf("%w: registry has no chart %s: %w", ErrChartNotFound, ref.repoURL, err))
	}
	return fmt.Errorf("registry %s did not answer: %w", ref.repoURL, err)
}
