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

package sveltoscluster

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/fleet"
	"github.com/stagecoach-dev/stagecoach/internal/health"
)

// Kinds of cluster checks, as failure messages name them.
const (
	readiness = "readiness"
	liveness  = "liveness"
)

// failedCheck runs the cluster's checks of one kind in order and says how the first one that
// does not pass fails ("readiness check workers: no worker node yet"), or "" when all pass. A
// check that cannot run (a kind the cluster does not serve, a Lua error) fails with the reason.
// The error is for a context that ended: nothing was learnt then.
func (r *Reconciler) failedCheck(ctx context.Context, ref fleet.ClusterRef, kind string, checks []libv1beta1.ClusterCheck) (string, error) {
	if len(checks) == 0 {
		return "", nil
	}
	remote, err := r.fleet.Get(ctx, ref)
	if err != nil {
		return fmt.Sprintf("%s checks: %v", kind, err), nil
	}
	opts := health.Options{Getter: remote.GetObject}
	for i := range checks {
		c := &checks[i]
		res, err := runCheck(ctx, remote, c, opts)
		if err != nil && ctx.Err() != nil {
			return "", ctx.Err()
		}
		switch {
		case err != nil:
			return fmt.Sprintf("%s check %s: %v", kind, c.Name, err), nil
		case !res.Healthy:
			return fmt.Sprintf("%s check %s: %s", kind, c.Name, res.Message), nil
		}
	}
	return "", nil
}

// runCheck hands every object the check's selectors choose to its condition.
func runCheck(ctx context.Context, remote *fleet.Remote, c *libv1beta1.ClusterCheck, opts health.Options) (health.Result, error) {
	cond, err := health.CompileCondition(c.Name, c.Condition, opts)
	if err != nil {
		return health.Result{}, err
	}
	var resources []map[string]any
	for i := range c.ResourceSelectors {
		objs, err := selectObjects(ctx, remote, &c.ResourceSelectors[i], opts)
		if err != nil {
			return health.Result{}, fmt.Errorf("resourceSelectors[%d]: %w", i, err)
		}
		resources = append(resources, objs...)
	}
	return cond.Evaluate(ctx, resources)
}

// selectObjects lists the objects a resource selector chooses: by kind, namespace, name and
// labels, then through its Lua or CEL filter.
func selectObjects(ctx context.Context, remote *fleet.Remote, sel *libv1beta1.ResourceSelector, opts health.Options) ([]map[string]any, error) {
	m, err := remote.Mapping(schema.GroupVersionKind{Group: sel.Group, Version: sel.Version, Kind: sel.Kind})
	if err != nil {
		return nil, err
	}
	filter, err := health.CompileSelector(sel.Kind, sel, opts)
	if err != nil {
		return nil, err
	}
	list, err := remote.Resource(m, sel.Namespace).List(ctx, metav1.ListOptions{LabelSelector: fleet.LabelSelector(sel.LabelFilters)})
	if err != nil {
		return nil, err
	}
	var out []map[string]any
	for _, item := range list.Items {
		if sel.Name != "" && item.GetName() != sel.Name {
			continue
		}
		res, err := filter.Evaluate(ctx, item.Object)
		if err != nil {
			return nil, err
		}
		if res.Healthy {
			out = append(out, item.Object)
		}
	}
	return out, nil
}
