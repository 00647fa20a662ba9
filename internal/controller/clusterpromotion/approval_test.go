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

package clusterpromotion_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
)

// faults makes the controllers' writes to ClusterPromotions fail on demand, as a crash at that
// instant would leave them: the writes before it done, this one and those after it not.
type faults struct {
	// resets fails the spec patches that set an approval back to false.
	resets atomic.Bool
	// moves fails, this many times, the status writes that move a promotion to stage "prod".
	moves atomic.Int32
}

var errCrash = errors.New("injected: the controller died here")

func (f *faults) tweak(o *ctrl.Options) {
	o.NewClient = func(cfg *rest.Config, opts client.Options) (client.Client, error) {
		c, err := client.New(cfg, opts)
		return &faultyClient{Client: c, f: f}, err
	}
}

type faultyClient struct {
	client.Client
	f *faults
}

func (c *faultyClient) Patch(ctx context.Context, obj client.Object, p client.Patch, opts ...client.PatchOption) error {
	if _, ok := obj.(*configv1beta1.ClusterPromotion); ok && p.Type() == types.JSONPatchType && c.f.resets.Load() {
		return errCrash
	}
	return c.Client.Patch(ctx, obj, p, opts...)
}

func (c *faultyClient) Status() client.SubResourceWriter {
	return &faultyStatus{SubResourceWriter: c.Client.Status(), f: c.f}
}

type faultyStatus struct {
	client.SubResourceWriter
	f *faults
}

func (s *faultyStatus) Patch(ctx context.Context, obj client.Object, p client.Patch, opts ...client.SubResourcePatchOption) error {
	if cp, ok := obj.(*configv1beta1.ClusterPromotion); ok && cp.Status.CurrentStageName == "prod" && s.f.moves.Add(-1) >= 0 {
		return errCrash
	}
	return s.SubResourceWriter.Patch(ctx, obj, p, opts...)
}

// approvalPromotion is dev then prod, each behind a manual approval.
func approvalPromotion(t *testing.T, name string) *configv1beta1.ClusterPromotion {
	t.Helper()
	manual := func() *configv1beta1.Trigger {
		return &configv1beta1.Trigger{Manual: &configv1beta1.ManualTrigger{Approved: new(bool)}}
	}
	p := devThenProd(name, manual(), manual())
	create(t, p, content(name, "v1"))
	return p
}

func approve(t *testing.T, p *configv1beta1.ClusterPromotion, stage int) {
	t.Helper()
	edit(t, p, fmt.Sprintf(`[{"op": "replace", "path": "/spec/stages/%d/trigger/manual/approved", "value": true}]`, stage))
}

// newVersion edits the profile spec: the rollout starts again at dev.
func newVersion(t *testing.T, p *configv1beta1.ClusterPromotion, tier int32) {
	t.Helper()
	edit(t, p, fmt.Sprintf(`[{"op": "add", "path": "/spec/profileSpec/tier", "value": %d}]`, tier))
}

// awaits waits until the promotion, on the version whose profileSpec sets tier, waits for the
// approval of stage and no approval is being reset.
func awaits(t *testing.T, name, stage string, tier int32) *configv1beta1.ClusterPromotion {
	t.Helper()
	var got *configv1beta1.ClusterPromotion
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		p := &configv1beta1.ClusterPromotion{}
		if err := testenv.Client(t).Get(ctx, client.ObjectKey{Name: name}, p); err != nil {
			return err
		}
		if len(p.Status.Stages) == 0 {
			return fmt.Errorf("no stage started")
		}
		st := p.Status.Stages[len(p.Status.Stages)-1]
		switch {
		case p.Spec.ProfileSpec.Tier != tier || p.Status.ObservedGeneration != p.Generation:
			return fmt.Errorf("version with tier %d not observed yet (tier %d, generation %d, observed %d)", tier, p.Spec.ProfileSpec.Tier, p.Generation, p.Status.ObservedGeneration)
		case p.Status.CurrentStageName != stage || st.CurrentStatusDescription == nil ||
			!strings.HasPrefix(*st.CurrentStatusDescription, "Paused: Awaiting Manual Approval"):
			return fmt.Errorf("not waiting on %s's approval: %s %+v", stage, p.Status.CurrentStageName, st)
		case len(p.Status.ConsumedApprovals) > 0:
			return fmt.Errorf("approvals %v being reset", p.Status.ConsumedApprovals)
		}
		got = p
		return nil
	})
	return got
}

func approvedStages(p *configv1beta1.ClusterPromotion) []string {
	var out []string
	for _, s := range p.Spec.Stages {
		if a := s.Trigger.Manual.Approved; a != nil && *a {
			out = append(out, s.Name)
		}
	}
	return out
}

func startWithFaults(t *testing.T) *faults {
	f := &faults{}
	startController(t, nil, f.tweak)
	return f
}

// TestApprovalIsForOneVersion approves prod (whose approval completes the promotion) while the
// rollout of one version is still in dev, then starts a new version: the approval was for the
// version before, and the new one waits in prod for an approval of its own.
func TestApprovalIsForOneVersion(t *testing.T) {
	startWithFaults(t)
	p := approvalPromotion(t, "approval-version")
	awaits(t, p.Name, "dev", 100)
	approve(t, p, 1) // prod, ahead of time
	newVersion(t, p, 10)
	got := awaits(t, p.Name, "dev", 10)
	if a := approvedStages(got); len(a) != 0 {
		t.Fatalf("approvals %v survived the new version", a)
	}
	approve(t, p, 0)
	got = awaits(t, p.Name, "prod", 10)
	if a := approvedStages(got); len(a) != 0 {
		t.Fatalf("approvals %v not reset", a)
	}
}

// TestApprovalSurvivesACrash fails the controller's writes around an approved gate, as a crash
// at that instant would: an approval is never lost, and never used twice.
func TestApprovalSurvivesACrash(t *testing.T) {
	f := startWithFaults(t)
	p := approvalPromotion(t, "approval-crash")
	awaits(t, p.Name, "dev", 100)

	t.Run("the move to the next stage fails", func(t *testing.T) {
		f.moves.Store(1)
		approve(t, p, 0)
		awaits(t, p.Name, "prod", 100) // the approval was kept for the retry
		if f.moves.Load() >= 0 {
			t.Fatal("no write failed: the test proves nothing")
		}
	})

	t.Run("the approval's reset fails, and a new version is started", func(t *testing.T) {
		f.resets.Store(true)
		approve(t, p, 1)
		testenv.Eventually(t, timeout, func(ctx context.Context) error {
			got := &configv1beta1.ClusterPromotion{}
			if err := testenv.Client(t).Get(ctx, client.ObjectKeyFromObject(p), got); err != nil {
				return err
			}
			if len(got.Status.ConsumedApprovals) != 1 || got.Status.ConsumedApprovals[0] != "prod" {
				return fmt.Errorf("prod's approval not used yet: %+v", got.Status)
			}
			return nil
		})
		newVersion(t, p, 20)
		f.resets.Store(false)
		awaits(t, p.Name, "dev", 20)
		approve(t, p, 0)
		// prod's approval was used by the version before: the new one waits for another.
		got := awaits(t, p.Name, "prod", 20)
		if a := approvedStages(got); len(a) != 0 {
			t.Fatalf("approvals %v not reset", a)
		}
	})
}
