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

	"helm.sh/helm/v4/pkg/postrenderer"
)

// WithPatches runs a post-renderer that patches the chart's manifests (a profile's patches),
// before the profile's extraLabels and extraAnnotations are set. hash identifies the patches:
// it counts in the release's spec hash, so changing the patches upgrades the release. The
// renderer's errors are the user's patches failing, which retrying cannot fix.
func WithPatches(r postrenderer.PostRenderer, hash string) DeployOption {
	return func(c *deployCall) {
		if r != nil {
			c.patches, c.patchesHash = r, hash
		}
	}
}

// renderer is the post-renderer of the call, nil when there is nothing to post-render.
func (c *deployCall) renderer() postrenderer.PostRenderer {
	switch {
	case c.patches == nil && c.metadata == nil:
		return nil
	case c.patches == nil:
		return c.metadata
	}
	return chain{patches: c.patches, metadata: c.metadata}
}

// hashInput is what the post-renderers add to the release's spec hash; without patches it is
// what it was before they existed, so that releases without patches are not upgraded.
func (c *deployCall) hashInput() string {
	in := c.metadata.hashInput()
	if c.patches != nil {
		in += "\x00patches\x00" + c.patchesHash
	}
	return in
}

type chain struct {
	patches  postrenderer.PostRenderer
	metadata *metadataRenderer
}

func (c chain) Run(rendered *bytes.Buffer) (*bytes.Buffer, error) {
	out, err := c.patches.Run(rendered)
	if err != nil {
		return nil, permanent(fmt.Errorf("patching the chart's manifests: %w", err))
	}
	if c.metadata == nil {
		return out, nil
	}
	return c.metadata.Run(out)
}
