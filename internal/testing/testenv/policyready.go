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

package testenv

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
)

// waitForMutatingPolicies waits until the API server can apply the chart's approver policies to
// the kinds they match. It learns a custom resource's schema from its OpenAPI a while after the
// CRD is created, and until then answers every request a mutating policy matches with 503
// ("Resource kind … not found. There can be a delay …"): a test that wrote a ClusterPromotion
// at once would be refused.
func waitForMutatingPolicies(ctx context.Context, c client.Client) error {
	probe := &configv1beta1.ClusterPromotion{ObjectMeta: metav1.ObjectMeta{Name: "testenv-policy-probe"}}
	if err := untilPolicyApplies(ctx, "ClusterPromotion", func() error {
		return c.Create(ctx, probe.DeepCopy(), client.DryRunAll)
	}); err != nil {
		return err
	}
	car := &placementv1beta1.ClusterApprovalRequest{ObjectMeta: metav1.ObjectMeta{Name: "testenv-policy-probe"},
		Spec: placementv1beta1.ApprovalRequestSpec{TargetUpdateRun: "testenv-policy-probe", TargetStage: "probe"}}
	if err := c.Create(ctx, car); meta.IsNoMatchError(err) {
		return nil // a fleet without Kubefleet's kinds
	} else if client.IgnoreAlreadyExists(err) != nil {
		return err
	}
	defer func() { _ = c.Delete(context.Background(), car) }()
	return untilPolicyApplies(ctx, "ClusterApprovalRequest", func() error {
		if err := c.Get(ctx, client.ObjectKeyFromObject(car), car); err != nil {
			return err
		}
		return c.Status().Update(ctx, car, client.DryRunAll)
	})
}

// untilPolicyApplies polls request until its answer is anything but 503; any other error is
// not the policy's to report here.
func untilPolicyApplies(ctx context.Context, kind string, request func() error) error {
	var last error
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 3*time.Minute, true, func(context.Context) (bool, error) {
		last = request()
		return !apierrors.IsServiceUnavailable(last), nil
	})
	if err != nil {
		return fmt.Errorf("the API server does not apply the approver policies to %s yet: %v", kind, last)
	}
	return nil
}
