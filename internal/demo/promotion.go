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

package demo

import (
	"fmt"

	"sigs.k8s.io/yaml"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
)

// promotionName is the demo's ClusterPromotion.
const promotionName = "webapp"

// The sample application's two versions, served by the sandbox's chart repository.
const (
	firstVersion  = "1.0.0"
	secondVersion = "1.1.0"
)

// promotionManifest is what the demo applies: the sample chart through dev, staging and prod,
// each cluster checked with a Lua health check, short soak delays, and a manual approval that
// holds the rollout in staging until someone lets it go to prod.
const promotionManifest = `apiVersion: config.projectsveltos.io/v1beta1
kind: ClusterPromotion
metadata:
  name: webapp
spec:
  profileSpec:
    syncMode: Continuous
    helmCharts:
    - repositoryURL:    %s
      repositoryName:   demo
      chartName:        demo/webapp
      chartVersion:     %s
      releaseName:      webapp
      releaseNamespace: webapp
      helmChartAction:  Install
    validateHealths:
    - name: webapp-available
      featureID: Helm
      group: apps
      version: v1
      kind: Deployment
      namespace: webapp
      script: |
        function evaluate()
          local hs = {healthy = false, message = "waiting for every replica to be available"}
          if obj.status and obj.status.availableReplicas == obj.spec.replicas then
            hs.healthy = true
            hs.message = "all replicas available"
          end
          return hs
        end
  stages:
  - name: dev
    clusterSelector:
      matchLabels:
        env: dev
    trigger:
      auto:
        delay: 5s
  - name: staging
    clusterSelector:
      matchLabels:
        env: staging
    trigger:
      manual:
        delay: 3s
        approved: false
  - name: prod
    clusterSelector:
      matchLabels:
        env: prod
`

// upgradePatch moves the profile to another chart version.
func upgradePatch(version string) string {
	return fmt.Sprintf(`[{"op": "replace", "path": "/spec/profileSpec/helmCharts/0/chartVersion", "value": %q}]`, version)
}

func promotion(repoURL string) (string, *configv1beta1.ClusterPromotion, error) {
	manifest := fmt.Sprintf(promotionManifest, repoURL, firstVersion)
	p := &configv1beta1.ClusterPromotion{}
	if err := yaml.UnmarshalStrict([]byte(manifest), p); err != nil {
		return "", nil, fmt.Errorf("the demo's promotion manifest: %w", err)
	}
	return manifest, p, nil
}
