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

package patch_test

import (
	"context"
	"errors"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/controller/patch"
	"github.com/stagecoach-dev/stagecoach/internal/scheme"
)

func newClient(objs ...client.Object) client.Client {
	return fake.NewClientBuilder().WithScheme(scheme.New()).
		WithStatusSubresource(&configv1beta1.ClusterPromotion{}).WithObjects(objs...).Build()
}

func promotion() *configv1beta1.ClusterPromotion {
	return &configv1beta1.ClusterPromotion{ObjectMeta: metav1.ObjectMeta{Name: "p", Generation: 3}}
}

func read(t *testing.T, c client.Client) *configv1beta1.ClusterPromotion {
	t.Helper()
	p := &configv1beta1.ClusterPromotion{}
	if err := c.Get(context.Background(), client.ObjectKey{Name: "p"}, p); err != nil {
		t.Fatal(err)
	}
	return p
}

// reconcile runs a stand-in reconcile of p: change edits the status, and its error is the
// reconcile's.
func reconcile(t *testing.T, c client.Client, p *configv1beta1.ClusterPromotion, opts []patch.Option, change func(*configv1beta1.ClusterPromotion) error) (result ctrl.Result, retErr error) {
	t.Helper()
	sw, err := patch.NewStatusWriter(c, p, opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer sw.Write(context.Background(), &result, &retErr)
	return ctrl.Result{}, change(p)
}

func TestWriteObservesGenerationOnSuccessOnly(t *testing.T) {
	for _, tc := range []struct {
		name        string
		err         error
		notObserved bool
		want        int64
	}{
		{name: "success", want: 3},
		{name: "error", err: errors.New("boom"), want: 0},
		{name: "not observed", notObserved: true, want: 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newClient(promotion())
			p := read(t, c)
			sw, err := patch.NewStatusWriter(c, p, patch.WithOptimisticLock())
			if err != nil {
				t.Fatal(err)
			}
			if tc.notObserved {
				sw.NotObserved()
			}
			p.Status.CurrentStageName = "dev"
			var result ctrl.Result
			retErr := tc.err
			sw.Write(context.Background(), &result, &retErr)
			got := read(t, c)
			if got.Status.ObservedGeneration != tc.want || got.Status.CurrentStageName != "dev" {
				t.Errorf("stored status %+v, want observedGeneration %d and the stage written", got.Status, tc.want)
			}
			if !errors.Is(retErr, tc.err) {
				t.Errorf("error %v, want %v", retErr, tc.err)
			}
		})
	}
}

// A reconcile that read the object before the controller's own last write (a cache behind it)
// must not write its stale view over the newer one: it runs again instead, without an error.
func TestStaleReadNeverOverwrites(t *testing.T) {
	c := newClient(promotion())
	stale := read(t, c)
	fresh := read(t, c)
	lock := []patch.Option{patch.WithOptimisticLock()}
	if _, err := reconcile(t, c, fresh, lock, func(p *configv1beta1.ClusterPromotion) error {
		p.Status.CurrentStageName = "prod"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	result, err := reconcile(t, c, stale.DeepCopy(), lock, func(p *configv1beta1.ClusterPromotion) error {
		p.Status.CurrentStageName = "dev"
		return nil
	})
	if err != nil || result.RequeueAfter != patch.RetryAfterRace {
		t.Errorf("stale reconcile returned %+v, %v; want a retry after %s and no error", result, err, patch.RetryAfterRace)
	}
	if got := read(t, c).Status.CurrentStageName; got != "prod" {
		t.Errorf("stage %q stored, want the newer write's %q", got, "prod")
	}

	// Without the lock the last write wins, as for statuses that are no state machine.
	if _, err := reconcile(t, c, stale.DeepCopy(), nil, func(p *configv1beta1.ClusterPromotion) error {
		p.Status.CurrentStageName = "dev"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if got := read(t, c).Status.CurrentStageName; got != "dev" {
		t.Errorf("stage %q stored without the lock, want %q", got, "dev")
	}
}

// A finalizer patched during the reconcile moves the object on: the status written after it
// goes on top of it, and carries nothing but the status.
func TestWriteAfterFinalizer(t *testing.T) {
	c := newClient(promotion())
	p := read(t, c)
	_, err := reconcile(t, c, p, []patch.Option{patch.WithOptimisticLock()}, func(p *configv1beta1.ClusterPromotion) error {
		if err := patch.AddFinalizer(context.Background(), c, p, "stagecoach.dev/test"); err != nil {
			return err
		}
		p.Labels = map[string]string{"not": "written"}
		p.Status.CurrentStageName = "dev"
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	got := read(t, c)
	if len(got.Finalizers) != 1 || got.Status.CurrentStageName != "dev" || got.Labels != nil {
		t.Errorf("stored finalizers %v, stage %q, labels %v; want the finalizer and the stage, no labels", got.Finalizers, got.Status.CurrentStageName, got.Labels)
	}
	if err := patch.RemoveFinalizer(context.Background(), c, got, "stagecoach.dev/test"); err != nil {
		t.Fatal(err)
	}
	if got := read(t, c); len(got.Finalizers) != 0 {
		t.Errorf("finalizers %v after removal", got.Finalizers)
	}
}

// Flush stores the status at once, before the reconcile acts, and the final write goes on top of
// it with the lock: what it stored is what a process killed after it leaves.
func TestFlushStoresBeforeTheEnd(t *testing.T) {
	c := newClient(promotion())
	p := read(t, c)
	sw, err := patch.NewStatusWriter(c, p, patch.WithOptimisticLock())
	if err != nil {
		t.Fatal(err)
	}
	p.Status.CurrentStageName = "staging"
	p.Status.Stages = []configv1beta1.StageStatus{{Name: "staging"}}
	// A reconcile holds pointers into its status across the flush.
	stage := &p.Status.Stages[0]
	if err := sw.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := read(t, c).Status; got.CurrentStageName != "staging" || got.ObservedGeneration != 0 {
		t.Errorf("flushed status %+v, want the stage and no observedGeneration yet", got)
	}
	p.Status.CurrentStageName = "prod"
	msg := "done"
	stage.FailureMessage = &msg
	var result ctrl.Result
	var retErr error
	if !sw.Write(context.Background(), &result, &retErr) || retErr != nil {
		t.Fatalf("final write: %v", retErr)
	}
	if got := read(t, c).Status; got.CurrentStageName != "prod" || got.ObservedGeneration != 3 ||
		len(got.Stages) != 1 || got.Stages[0].FailureMessage == nil {
		t.Errorf("stored status %+v, want the final write, with what was written through a pointer, on top of the flushed one", got)
	}
}

func TestRaceBecomesRetry(t *testing.T) {
	gr := schema.GroupResource{Group: "config.projectsveltos.io", Resource: "clusterprofiles"}
	for _, err := range []error{apierrors.NewConflict(gr, "x", errors.New("stale")), apierrors.NewAlreadyExists(gr, "x")} {
		c := newClient(promotion())
		result, got := reconcile(t, c, read(t, c), nil, func(*configv1beta1.ClusterPromotion) error {
			return errors.Join(errors.New("while creating"), err)
		})
		if got != nil || result.RequeueAfter != patch.RetryAfterRace {
			t.Errorf("%v: got %+v, %v; want a retry and no error", err, result, got)
		}
	}
}

func TestUnchangedStatusIsNotWritten(t *testing.T) {
	c := newClient(promotion())
	p := read(t, c)
	p.Status.ObservedGeneration = 3
	if err := c.Status().Update(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	p = read(t, c)
	rv := p.ResourceVersion
	if _, err := reconcile(t, c, p, nil, func(*configv1beta1.ClusterPromotion) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if got := read(t, c).ResourceVersion; got != rv {
		t.Errorf("resourceVersion %s after a reconcile that changed nothing, want %s", got, rv)
	}
}

func TestSetCondition(t *testing.T) {
	var conds []metav1.Condition
	at := metav1.NewTime(time.Now().Add(-time.Hour).Truncate(time.Second))
	prev := patch.SetConditionAt(&conds, at, 2, "Ready", metav1.ConditionFalse, "Waiting", "waiting")
	if prev.Type != "" || len(conds) != 1 || !conds[0].LastTransitionTime.Equal(&at) || conds[0].ObservedGeneration != 2 {
		t.Fatalf("first set: previous %+v, conditions %+v", prev, conds)
	}
	prev = patch.SetCondition(&conds, 3, "Ready", metav1.ConditionFalse, "Waiting", string(make([]byte, 40000)))
	if prev.Reason != "Waiting" || !conds[0].LastTransitionTime.Equal(&at) || len(conds[0].Message) > 32768 {
		t.Errorf("same status: previous %+v, transition %v (want it kept), message of %d bytes", prev, conds[0].LastTransitionTime, len(conds[0].Message))
	}
}
