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

package override

import (
	"context"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/controller/patch"
	"github.com/stagecoach-dev/stagecoach/internal/scheme"
)

// TestStaleSnapshotListRetries: a reconcile whose cache has not seen the snapshot it created a
// moment ago finds that snapshot exists when it creates it again; it reads again shortly, with
// no error (which would log a stack trace and back off).
func TestStaleSnapshotListRetries(t *testing.T) {
	ro := &placementv1beta1.ResourceOverride{
		ObjectMeta: metav1.ObjectMeta{Name: "settings", Namespace: "app"},
		Spec: placementv1beta1.ResourceOverrideSpec{
			ResourceSelectors: []placementv1beta1.ResourceSelector{{Group: "", Version: "v1", Kind: "ConfigMap", Name: "settings"}},
		},
	}
	stale := false
	c := fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(ro).WithInterceptorFuncs(interceptor.Funcs{
		List: func(ctx context.Context, c client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
			if stale {
				return nil // the cache before the snapshot's creation reached it
			}
			return c.List(ctx, list, opts...)
		},
	}).Build()
	r := &kindReconciler{Reconciler: &Reconciler{client: c, recorder: events.NewFakeRecorder(10)}}
	for _, k := range kinds {
		if k.name == placementv1beta1.ResourceOverrideKind {
			r.kind = k
		}
	}
	req := ctrl.Request{NamespacedName: client.ObjectKeyFromObject(ro)}
	if _, err := r.Reconcile(t.Context(), req); err != nil {
		t.Fatal(err)
	}
	stale = true
	res, err := r.Reconcile(t.Context(), req)
	if err != nil || res.RequeueAfter != patch.RetryAfterRace {
		t.Errorf("stale list: got %+v, %v; want a requeue after %v and no error", res, err, patch.RetryAfterRace)
	}
	stale = false
	snaps := &placementv1beta1.ResourceOverrideSnapshotList{}
	if err := c.List(t.Context(), snaps); err != nil || len(snaps.Items) != 1 {
		t.Errorf("snapshots: %d, %v; want the one", len(snaps.Items), err)
	}
}
