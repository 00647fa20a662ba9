//go:build e2e

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

package scale

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stagecoach-dev/stagecoach/internal/testing/fleetsim"
	"github.com/stagecoach-dev/stagecoach/internal/testing/scalerollout"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
)

var flapRollout = scalerollout.Rollout{Name: "flap", StageLabel: "flap-stage", Share: "50%"}

// availableCheck passes once the content's Deployment is available.
const availableCheck = `    validateHealths:
    - name: available
      featureID: Resources
      group: apps
      version: v1
      kind: Deployment
      namespace: %s-app
      script: |
        function evaluate()
          local st = obj.status
          if st ~= nil and st.availableReplicas == obj.spec.replicas then
            return {healthy = true}
          end
          return {healthy = false, message = "not available yet"}
        end
`

// TestFlappingClustersDoNotHoldTheirStage makes every cluster of the middle stage refuse
// connections one second in three, too briefly for three probes in a row to fail, so that none
// is reported down. A promotion with a health check and a soak goes through: the checks that
// run again during the soak and cannot reach a cluster are not failures (what a cluster runs is
// judged by the checks that answer, whether it is reachable by the probes). Were they failures,
// the stage would need 15 answered checks in a row across its clusters, and about one in three
// lands in a second the cluster refuses.
func TestFlappingClustersDoNotHoldTheirStage(t *testing.T) {
	rollout := fresh(flapRollout)
	sim, clusters := simulatedFleet(t, 6, rollout, nil)
	sim.Flap(t.Context(), clusters[1:4], 3*time.Second, time.Second, fleetsim.Refuse)

	promotion := rollout.Promotion()
	promotion = strings.Replace(promotion, "    policyRefs:\n", fmt.Sprintf(availableCheck, rollout.Name)+"    policyRefs:\n", 1)
	promotion = strings.ReplaceAll(promotion, "delay: 0s", "delay: 5s")
	apply(t, promotion, rollout.Content("v1"))
	testenv.Eventually(t, 3*time.Minute, func(context.Context) error {
		for _, c := range clusters {
			if !rollout.Promoted(c, "v1") {
				return fmt.Errorf("the promotion has not reached %s", c.Name())
			}
		}
		return nil
	})
}
