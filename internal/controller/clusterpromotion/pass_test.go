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

package clusterpromotion

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/scheme"
)

// The unit tests of the phases build a pass on a fixed clock, run a few phases on it over a fake
// client, and check the facts the pass recorded and the conditions summarise derives from them.

// t0 is the reconcilers' clock in these tests.
var t0 = time.Date(2026, time.March, 2, 10, 0, 0, 0, time.UTC)

type fixture struct {
	r      *Reconciler
	c      client.Client
	events *events.FakeRecorder
}

func newFixture(t *testing.T, objs ...client.Object) *fixture {
	t.Helper()
	c := fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(objs...).
		WithStatusSubresource(&configv1beta1.ClusterPromotion{}, &configv1beta1.ClusterProfile{}).Build()
	f := &fixture{r: NewReconciler(Options{Client: c, Now: func() time.Time { return t0 }}), c: c, events: events.NewFakeRecorder(100)}
	f.r.recorder = f.events
	return f
}

// run runs phases on ps in order, as Reconcile does, and returns errHalt when one halted the pass.
func (f *fixture) run(t *testing.T, ps *pass, phases ...func(context.Context, *pass) error) error {
	t.Helper()
	for _, phase := range phases {
		if err := phase(t.Context(), ps); err != nil {
			return err
		}
	}
	return nil
}

// emitted drains the Events recorded so far, as "Type Reason message".
func (f *fixture) emitted() []string {
	var out []string
	for {
		select {
		case e := <-f.events.Events:
			out = append(out, e)
		default:
			return out
		}
	}
}

// promotion is the promotion "web" of stages, each picking the clusters labelled env=<name>.
func promotion(stages ...configv1beta1.Stage) *configv1beta1.ClusterPromotion {
	p := &configv1beta1.ClusterPromotion{ObjectMeta: metav1.ObjectMeta{Name: "web", UID: types.UID("web-uid"), Generation: 1}}
	p.Spec.Stages = stages
	return p
}

func stage(name string, trigger *configv1beta1.Trigger) configv1beta1.Stage {
	s := configv1beta1.Stage{Name: name, Trigger: trigger}
	s.ClusterSelector = libv1beta1.Selector{LabelSelector: metav1.LabelSelector{MatchLabels: map[string]string{"env": name}}}
	return s
}

func soakFor(d time.Duration) *configv1beta1.Trigger {
	return &configv1beta1.Trigger{Auto: &configv1beta1.AutoTrigger{Delay: &metav1.Duration{Duration: d}}}
}

func manual(approved bool) *configv1beta1.Trigger {
	return &configv1beta1.Trigger{Manual: &configv1beta1.ManualTrigger{Approved: &approved}}
}

// at puts the promotion's current version at the named stage, which started at started; the
// stages before it are done.
func at(p *configv1beta1.ClusterPromotion, name string, started time.Time) *configv1beta1.ClusterPromotion {
	p.Status.ProfileSpecHash, p.Status.StagesHash = hashes(p, nil)
	p.Status.CurrentStageName = name
	for _, s := range p.Spec.Stages {
		since := metav1.NewTime(started)
		p.Status.Stages = append(p.Status.Stages, configv1beta1.StageStatus{Name: s.Name, LastUpdateReconciledTime: &since})
		if s.Name == name {
			break
		}
	}
	return p
}

func withCondition(p *configv1beta1.ClusterPromotion, t string, s metav1.ConditionStatus, reason, msg string, since time.Time) *configv1beta1.ClusterPromotion {
	meta.SetStatusCondition(&p.Status.Conditions, metav1.Condition{Type: t, Status: s, Reason: reason, Message: msg, LastTransitionTime: metav1.NewTime(since)})
	return p
}

func condition(p *configv1beta1.ClusterPromotion, condType string) *metav1.Condition {
	return meta.FindStatusCondition(p.Status.Conditions, condType)
}

// want is a condition a test expects: a status and a reason, and words its message contains.
// The zero want expects no condition.
type want struct {
	status metav1.ConditionStatus
	reason string
	words  string
}

func checkCondition(t *testing.T, p *configv1beta1.ClusterPromotion, condType string, w want) {
	t.Helper()
	c := meta.FindStatusCondition(p.Status.Conditions, condType)
	switch {
	case w == want{} && c != nil:
		t.Errorf("%s: got %s %s %q, want none", condType, c.Status, c.Reason, c.Message)
	case w == want{}:
	case c == nil:
		t.Errorf("%s: none, want %s %s", condType, w.status, w.reason)
	case c.Status != w.status || c.Reason != w.reason || !strings.Contains(c.Message, w.words):
		t.Errorf("%s: got %s %s %q, want %s %s with %q", condType, c.Status, c.Reason, c.Message, w.status, w.reason, w.words)
	}
}

func checkEvents(t *testing.T, got []string, want ...string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("Events: got %q, want %d starting %q", got, len(want), want)
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("Event %d: got %q, want it to start with %q", i, got[i], want[i])
		}
	}
}

// TestSummariseErrorAfterStart: a pass that started a version and then failed says so in Ready,
// while Progressing keeps that the version started; Ready's change is announced.
func TestSummariseErrorAfterStart(t *testing.T) {
	for _, tc := range []struct {
		name       string
		started    bool
		readyAfter string // Ready's message before the pass
		wantEvents []string
	}{
		{name: "a new error", wantEvents: []string{"Warning Error writing: boom"}},
		{name: "the same error", readyAfter: "writing: boom"},
		{name: "the same error after a start", started: true, readyAfter: "writing: boom", wantEvents: []string{"Warning Error writing: boom"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			p := at(promotion(stage("dev", nil)), "dev", t0)
			if tc.readyAfter != "" {
				withCondition(p, configv1beta1.PromotionReadyCondition, metav1.ConditionFalse, reasonError, tc.readyAfter, t0)
			}
			ps := f.r.newPass(p)
			ps.started, ps.err = tc.started, errors.New("writing: boom")
			f.r.summarise(ps)
			checkCondition(t, p, configv1beta1.PromotionReadyCondition, want{metav1.ConditionFalse, reasonError, "writing: boom"})
			progressing := want{}
			if tc.started {
				progressing = want{metav1.ConditionTrue, reasonRolloutStarted, "starting with stage dev"}
			}
			checkCondition(t, p, configv1beta1.PromotionProgressingCondition, progressing)
			checkEvents(t, f.emitted(), tc.wantEvents...)
		})
	}
}

// TestReconcileInvalidSpec runs a whole reconcile on a promotion that cannot be acted on: the
// finalizer is added, and the status written says why nothing moves.
func TestReconcileInvalidSpec(t *testing.T) {
	p := promotion(stage("dev", nil))
	p.UID, p.Generation = "", 0
	bad := intstr.FromString("lots")
	p.Spec.Stages[0].MaxFailures = &bad
	f := newFixture(t, p)
	res, err := f.r.Reconcile(t.Context(), ctrl.Request{NamespacedName: client.ObjectKey{Name: "web"}})
	if err != nil || !res.IsZero() {
		t.Fatalf("Reconcile: %v, %+v", err, res)
	}
	got := &configv1beta1.ClusterPromotion{}
	if err := f.c.Get(t.Context(), client.ObjectKey{Name: "web"}, got); err != nil {
		t.Fatal(err)
	}
	if len(got.Finalizers) != 1 || got.Finalizers[0] != configv1beta1.ClusterPromotionFinalizer {
		t.Errorf("finalizers: %v", got.Finalizers)
	}
	const msg = `spec.stages[0].maxFailures "lots" is neither a number nor a percentage from 0% to 100%`
	checkCondition(t, got, configv1beta1.PromotionStalledCondition, want{metav1.ConditionTrue, reasonInvalidSpec, msg})
	checkCondition(t, got, configv1beta1.PromotionReadyCondition, want{metav1.ConditionFalse, reasonInvalidSpec, msg})
	checkCondition(t, got, configv1beta1.PromotionProgressingCondition, want{})
	checkEvents(t, f.emitted(), "Warning InvalidSpec "+msg)
}

// TestReconcileStartsFirstStage runs a whole reconcile on a new promotion: the first stage gets
// its ClusterProfile, and the promotion waits for the profile's controller to deploy it.
func TestReconcileStartsFirstStage(t *testing.T) {
	p := promotion(stage("dev", nil), stage("prod", nil))
	p.UID, p.Generation = "", 0
	dev := &libv1beta1.SveltosCluster{ObjectMeta: metav1.ObjectMeta{Namespace: "dev", Name: "dev", Labels: map[string]string{"env": "dev"}}}
	f := newFixture(t, p, dev)
	res, err := f.r.Reconcile(t.Context(), ctrl.Request{NamespacedName: client.ObjectKey{Name: "web"}})
	if err != nil || !res.IsZero() {
		t.Fatalf("Reconcile: %v, %+v", err, res)
	}
	got := &configv1beta1.ClusterPromotion{}
	if err := f.c.Get(t.Context(), client.ObjectKey{Name: "web"}, got); err != nil {
		t.Fatal(err)
	}
	if got.Status.CurrentStageName != "dev" || len(got.Status.ProfileSpecHash) == 0 || got.Status.ObservedGeneration != got.Generation {
		t.Errorf("status: %+v", got.Status)
	}
	profile := &configv1beta1.ClusterProfile{}
	if err := f.c.Get(t.Context(), client.ObjectKey{Name: "web-dev"}, profile); err != nil {
		t.Fatal(err)
	}
	if profile.Labels[configv1beta1.PromotionNameLabel] != "web" || len(profile.OwnerReferences) != 1 {
		t.Errorf("profile: labels %v, owners %v", profile.Labels, profile.OwnerReferences)
	}
	checkCondition(t, got, configv1beta1.PromotionReadyCondition, want{metav1.ConditionFalse, configv1beta1.PromotionWaitingReason, "stage dev: Clusters are being provisioned"})
	checkCondition(t, got, configv1beta1.PromotionProgressingCondition, want{metav1.ConditionTrue, configv1beta1.PromotionWaitingReason, "stage dev"})
	checkCondition(t, got, configv1beta1.PromotionStalledCondition, want{})
	checkEvents(t, f.emitted(), "Normal RolloutStarted rolling out profile spec", "Normal Waiting stage dev: Clusters are being provisioned")
}
