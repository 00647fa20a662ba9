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
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	repo "helm.sh/helm/v4/pkg/repo/v1"
)

// maxDownload bounds an index or chart download; real charts are a few hundred kilobytes and
// the biggest public indexes a few tens of megabytes.
const maxDownload = 128 << 20

// Credentials authenticate to a chart repository or registry. The deployer builds them from
// HelmChart.registryCredentialsConfig.
type Credentials struct {
	Username, Password string
	// CA is a PEM bundle trusted in addition to the system roots.
	CA                    []byte
	InsecureSkipTLSVerify bool
	PlainHTTP             bool
	// PassCredentialsAll sends Username/Password to chart URLs on other hosts than the index.
	PassCredentialsAll bool
	// CacheTokens keeps the tokens an OCI registry hands out for the registry client's later
	// requests (options.enableClientCache, Helm's registry client cache), instead of asking
	// for a token again at every request of a pull.
	CacheTokens bool
}

// defaultHTTP serves repositories that need no TLS settings of their own, so that connections
// are reused across clusters.
var defaultHTTP = &http.Client{Timeout: 2 * time.Minute}

// httpClient returns the client for creds under the source policy of ctx; a custom TLS setup
// gets a short-lived client.
func httpClient(ctx context.Context, creds *Credentials) (*http.Client, error) {
	p := policyFrom(ctx)
	if creds == nil || (len(creds.CA) == 0 && !creds.InsecureSkipTLSVerify) {
		return p.httpClient(), nil
	}
	cfg := &tls.Config{InsecureSkipVerify: creds.InsecureSkipTLSVerify} //nolint:gosec // the user asked for it
	if len(creds.CA) > 0 {
		pool, err := x509.SystemCertPool()
		if err != nil {
			pool = x509.NewCertPool()
		}
		if !pool.AppendCertsFromPEM(creds.CA) {
			return nil, permanent(fmt.Errorf("%w: the repository CA bundle holds no PEM certificate", ErrInvalidSpec))
		}
		cfg.RootCAs = pool
	}
	tr := p.transport()
	tr.TLSClientConfig = cfg
	tr.DisableKeepAlives = true
	hc := &http.Client{Timeout: 2 * time.Minute, Transport: tr}
	if p != nil {
		hc.CheckRedirect = p.checkRedirect
	}
	return hc, nil
}

// downloadIndex fetches <repoURL>/index.yaml.
func downloadIndex(ctx context.Context, ref chartRef, creds *Credentials) ([]byte, error) {
	u := strings.TrimSuffix(ref.repoURL, "/") + "/index.yaml"
	return get(ctx, ref.repoURL, u, creds, true)
}

// downloadChart fetches the archive of one index entry; its URL may be relative to the repository.
func downloadChart(ctx context.Context, ref chartRef, cv *repo.ChartVersion, creds *Credentials) ([]byte, error) {
	if len(cv.URLs) == 0 {
		return nil, permanent(fmt.Errorf("%w: %s %s: the index lists no download URL", ErrBadChart, ref, cv.Version))
	}
	u, err := repo.ResolveReferenceURL(ref.repoURL, cv.URLs[0])
	if err != nil {
		return nil, permanent(fmt.Errorf("%w: %s %s: download URL %q: %w", ErrBadChart, ref, cv.Version, cv.URLs[0], err))
	}
	return get(ctx, ref.repoURL, u, creds, sameHost(ref.repoURL, u))
}

// get downloads u. Network failures and server errors are transient; a 4xx answer means the
// URL or the credentials are wrong, which retrying does not fix.
func get(ctx context.Context, repoURL, u string, creds *Credentials, sendCreds bool) ([]byte, error) {
	if err := policyFrom(ctx).check(ctx, u); err != nil {
		return nil, err
	}
	client, err := httpClient(ctx, creds)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, permanent(fmt.Errorf("%w: repository %s: %w", ErrInvalidSpec, repoURL, err))
	}
	if creds != nil && creds.Username != "" && (sendCreds || creds.PassCredentialsAll) {
		req.SetBasicAuth(creds.Username, creds.Password)
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("repository %s did not answer: %w", repoURL, err)
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		err := fmt.Errorf("repository %s answered %s for %s", repoURL, resp.Status, u)
		if resp.StatusCode >= 400 && resp.StatusCode < 500 &&
			resp.StatusCode != http.StatusTooManyRequests && resp.StatusCode != http.StatusRequestTimeout {
			return nil, permanent(err)
		}
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxDownload+1))
	if err != nil {
		return nil, fmt.Errorf("repository %s: reading %s: %w", repoURL, u, err)
	}
	if len(data) > maxDownload {
		return nil, permanent(fmt.Errorf("%w: %s is larger than %d MiB", ErrBadChart, u, maxDownload>>20))
	}
	return data, nil
}

func sameHost(a, b string) bool {
	ua, err1 := url.Parse(a)
	ub, err2 := url.Parse(b)
	return err1 == nil && err2 == nil && ua.Host == ub.Host
}
