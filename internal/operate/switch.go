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

package operate

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/view"
)

// SuspendPromotion sets spec.suspend of the ClusterPromotion name: no stage starts and no timer
// fires while it is set.
func SuspendPromotion(ctx context.Context, c client.Client, name string, suspend bool) (string, error) {
	p, err := Promotion(ctx, c, name)
	if err != nil {
		return "", err
	}
	if p.Spec.Suspend == suspend {
		return fmt.Sprintf("ClusterPromotion %s is already %s", p.Name, map[bool]string{true: "suspended", false: "running"}[suspend]), nil
	}
	patch := fmt.Appendf(nil, `{"spec":{"suspend":%t}}`, suspend)
	if err := c.Patch(ctx, p, client.RawPatch(types.MergePatchType, patch)); err != nil {
		return "", err
	}
	return fmt.Sprintf("%s ClusterPromotion %s", map[bool]string{true: "suspended", false: "resumed"}[suspend], p.Name), nil
}

// SetRunState sets spec.state of the update run namespace/name (a ClusterStagedUpdateRun when
// namespace is empty): Stop lets the clusters updating finish and starts no other, Run resumes.
func SetRunState(ctx context.Context, c client.Client, namespace, name string, state placementv1beta1.State) (string, error) {
	run, err := Run(ctx, c, namespace, name)
	if err != nil {
		return "", err
	}
	kind := placementv1beta1.FamilyOf(run).UpdateRunKind()
	if current := run.UpdateRunSpec().State; current == state || current == "" && state == placementv1beta1.StateRun {
		return fmt.Sprintf("%s %s already has state %s", kind, name, state), nil
	}
	if s, msg := view.RunState(run); s.Final() {
		return "", fmt.Errorf("%s %s has finished (%s: %s): it can no longer be stopped or resumed", kind, name, s, msg)
	}
	patch := fmt.Appendf(nil, `{"spec":{"state":%q}}`, state)
	if err := c.Patch(ctx, run, client.RawPatch(types.MergePatchType, patch)); err != nil {
		return "", err
	}
	done := map[placementv1beta1.State]string{placementv1beta1.StateRun: "resumed", placementv1beta1.StateStop: "stopped"}[state]
	return fmt.Sprintf("%s %s %s", done, kind, name), nil
}

// Promotion reads the ClusterPromotion name, or says why it cannot.
func Promotion(ctx context.Context, c client.Reader, name string) (*configv1beta1.ClusterPromotion, error) {
	p := &configv1beta1.ClusterPromotion{}
	if err := c.Get(ctx, client.ObjectKey{Name: name}, p); err != nil {
		return nil, view.NotFound(err, "ClusterPromotion", "", name)
	}
	return p, nil
}

// Run reads the update run namespace/name, a ClusterStagedUpdateRun when namespace is empty, or
// says why it cannot.
func Run(ctx context.Context, c client.Reader, namespace, name string) (placementv1beta1.UpdateRunObj, error) {
	family := view.RunFamily(namespace)
	run := family.NewUpdateRun()
	if err := c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, run); err != nil {
		return nil, view.NotFound(err, family.UpdateRunKind(), namespace, name)
	}
	return run, nil
}
