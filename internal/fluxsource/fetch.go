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

package fluxsource

import (
	"context"
	_ "crypto/sha256" // the digest algorithms source-controller may use
	_ "crypto/sha512"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/opencontainers/go-digest"
)

// MaxArtifactSize is the largest artifact tarball Stagecoach reads, compressed. A version keeps
// the tarball in an immutable ConfigMap, which the API server limits to 1 MiB; the rest is left
// for the copy's other fields. Larger sources are refused with a message naming this limit:
// narrow them with the source's spec.ignore, or split them.
const MaxArtifactSize = 768 << 10

// Fetcher downloads artifacts.
type Fetcher struct {
	// Client is the HTTP client; nil means one with a one-minute timeout.
	Client *http.Client
	// MaxSize bounds the tarball; 0 means MaxArtifactSize.
	MaxSize int64
}

var defaultClient = &http.Client{Timeout: time.Minute}

// TooLargeError reports an artifact above the size limit; retrying cannot fix it.
type TooLargeError struct {
	Source string
	Size   int64 // -1 when only known to exceed Limit
	Limit  int64
}

func (e *TooLargeError) Error() string {
	size := "more than " + byteSize(e.Limit)
	if e.Size >= 0 {
		size = byteSize(e.Size)
	}
	return fmt.Sprintf("the artifact of %s is %s: Stagecoach reads artifacts of at most %s (narrow the source with spec.ignore, or split it)",
		e.Source, size, byteSize(e.Limit))
}

// DigestError reports a tarball that does not match the digest its source announced.
type DigestError struct {
	Source, Want, Got string
}

func (e *DigestError) Error() string {
	return fmt.Sprintf("the artifact of %s does not match its digest %s (got %s)", e.Source, e.Want, e.Got)
}

func byteSize(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// Download fetches the artifact's tarball and checks its size and digest. source names the
// source in errors.
func (f Fetcher) Download(ctx context.Context, source string, a Artifact) ([]byte, error) {
	want, err := digest.Parse(a.Digest)
	if err != nil {
		return nil, fmt.Errorf("the artifact of %s has digest %q, which Stagecoach cannot check: %w", source, a.Digest, err)
	}
	limit := f.MaxSize
	if limit == 0 {
		limit = MaxArtifactSize
	}
	client := f.Client
	if client == nil {
		client = defaultClient
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, a.URL, nil)
	if err != nil {
		return nil, fmt.Errorf("the artifact URL of %s: %w", source, err)
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("downloading the artifact of %s: %w", source, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("downloading the artifact of %s from %s: %s", source, a.URL, resp.Status)
	}
	if resp.ContentLength > limit {
		return nil, &TooLargeError{Source: source, Size: resp.ContentLength, Limit: limit}
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, fmt.Errorf("downloading the artifact of %s: %w", source, err)
	}
	if int64(len(data)) > limit {
		return nil, &TooLargeError{Source: source, Size: -1, Limit: limit}
	}
	if got := want.Algorithm().FromBytes(data); got != want {
		return nil, &DigestError{Source: source, Want: want.String(), Got: got.String()}
	}
	return data, nil
}
