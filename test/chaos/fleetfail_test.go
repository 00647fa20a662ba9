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

package chaos

import (
	"context"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/testing/chaos"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
)

// fleetGood says the Kubefleet dialect's last version went through every stage: a rollback run
// goes back to the snapshot before the failing one, which must then be a good version.
var fleetGood = true

// planFleetFailure says whether the Kubefleet dialect's version v is bad: in three trials out of
// ten that follow a good one. Its Deployment names the clusters that refuse it; its content is
// left as it was, so that it is one snapshot after the good one.
func (e *env) planFleetFailure(v int) *failPlan {
	rng := e.rng(v, "fleet-failure")
	if v == 0 || !fleetGood || rng.Float64() >= 0.3 {
		return nil
	}
	return newPlan(rng, rollouts[1])
}

// refuseFailing gives every managed cluster an admission policy with which its API server
// refuses a placed Deployment naming the cluster among those it fails on, as a policy engine
// refuses what breaks a rule: the run's binding reports the apply failed.
func refuseFailing(ctx context.Context) error {
	for _, cl := range testenv.Fleet.Managed {
		c, err := client.New(cl.Config, client.Options{})
		if err != nil {
			return err
		}
		policy := fmt.Sprintf(`
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: chaos-refuse-failing}
spec:
  failurePolicy: Fail
  matchConstraints:
    namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: %[1]s}}
    resourceRules:
    - {apiGroups: [apps], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [deployments]}
  validations:
  - expression: >-
      !has(object.metadata.annotations) || !('%[2]s' in object.metadata.annotations) ||
      !object.metadata.annotations['%[2]s'].contains(' %[3]s ')
    message: %[3]s refuses this version
`, fleetNS, failsOnAnnotation, cl.Name)
		binding := `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: chaos-refuse-failing}
spec: {policyName: chaos-refuse-failing, validationActions: [Deny]}
`
		if err := apply(ctx, c, policy, binding); err != nil {
			return fmt.Errorf("%s: %w", cl.Name, err)
		}
	}
	return nil
}

// strategy is the Kubefleet dialect's strategy, in v1 as Kubefleet's docs write it: the same
// stages as the promotion, a TimedWait after dev, one cluster at a time in staging and an
// approval after it. A bad version's stage gets its failure budget and deadline, and the
// strategy its onFailure; a run copies the strategy when it starts.
func strategy(bad *failPlan) string {
	return fmt.Sprintf(`
apiVersion: placement.kubernetes-fleet.io/v1
kind: ClusterStagedUpdateStrategy
metadata: {name: chaos}
spec:
  %s
  stages:
  - name: dev
    labelSelector: {matchLabels: {env: dev}}
    afterStageTasks: [{type: TimedWait, waitTime: %s}]%s
  - name: staging
    labelSelector: {matchLabels: {env: staging}}
    maxConcurrency: 2
    afterStageTasks: [{type: Approval}]%s
  - name: prod
    labelSelector: {matchLabels: {env: prod}}%s
`, bad.onFailure(), soak, bad.budget(0), bad.budget(1), bad.budget(2))
}

// runSettled waits until update run chaos-v failed and, with rollback, its rollback run
// succeeded; then until the records show every cluster where the verdict wants it.
func (e *env) runSettled(ctx context.Context, v int, p *failPlan, want chaos.Expect) error {
	name := fmt.Sprintf("chaos-%d", v)
	err := retry(ctx, func(ctx context.Context) error {
		run := &placementv1beta1.ClusterStagedUpdateRun{}
		if err := e.c.Get(ctx, client.ObjectKey{Name: name}, run); err != nil {
			return err
		}
		if c := meta.FindStatusCondition(run.Status.Conditions, "Succeeded"); c == nil || c.Status != "False" {
			return fmt.Errorf("update run %s has not failed", name)
		}
		if !p.rollback {
			return nil
		}
		back := &placementv1beta1.ClusterStagedUpdateRun{}
		if err := e.c.Get(ctx, client.ObjectKey{Name: name + "-rollback"}, back); err != nil {
			return err
		}
		if !meta.IsStatusConditionTrue(back.Status.Conditions, "Succeeded") {
			return fmt.Errorf("rollback run %s-rollback has not succeeded", name)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("%w; %s", err, e.runState(v))
	}
	return e.converged(ctx, rollouts[1], want)
}

// snapshotHolds reports whether a snapshot's selected resources hold the image and message.
func snapshotHolds(data []byte, image, message string) bool {
	return strings.Contains(string(data), image) && strings.Contains(string(data), `"message":"`+message+`"`)
}
