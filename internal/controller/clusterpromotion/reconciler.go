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

// Package clusterpromotion reconciles ClusterPromotions: one ClusterProfile per stage, deployed
// in order, each stage released by its trigger as internal/rollout decides.
//
// A reconcile is one pass through ordered phases (Reconciler.run), each a small function of the
// pass that records what it found and did on it; a phase may halt the pass (errHalt) when the
// promotion can go no further for now. summarise alone writes the conditions, from those facts,
// and the status is written once, when the reconcile ends.
package clusterpromotion

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/controller/enqueue"
	"github.com/stagecoach-dev/stagecoach/internal/controller/patch"
	"github.com/stagecoach-dev/stagecoach/internal/controller/specmemo"
	"github.com/stagecoach-dev/stagecoach/internal/fluxsource"
	"github.com/stagecoach-dev/stagecoach/internal/freeze"
	"github.com/stagecoach-dev/stagecoach/internal/metrics"
	"github.com/stagecoach-dev/stagecoach/internal/rollout"
	"github.com/stagecoach-dev/stagecoach/internal/tenancy"
)

// Options tune the ClusterPromotion controller. The zero value gives the defaults.
type Options struct {
	// Client reads and writes the management cluster; nil means the manager's client.
	Client client.Client
	// Now is the clock of the rollout decisions (soaks, windows, deadlines); nil means time.Now.
	Now func() time.Time
	// Tenants reads what a tenant's promotion references as its ServiceAccount; nil means one
	// made from Client, which refuses every tenant with a ServiceAccount.
	Tenants *tenancy.Tenants
	// RecordApprovers trusts the annotations approved-by.stagecoach.dev/<stage>, which the
	// chart's MutatingAdmissionPolicy stamps: without the policy anyone who may edit the
	// promotion could write them, so approvals show no approver.
	RecordApprovers bool
}

// Reconciler reconciles ClusterPromotions. NewReconciler makes one; SetupWithManager completes it.
type Reconciler struct {
	client client.Client
	// recorder receives an Event at every transition of a promotion; nil records none.
	recorder events.EventRecorder
	now      func() time.Time

	// informers hold the fleet's clusters and summaries, read in place; set up with the manager.
	informers cache.Informers
	warned    patch.Warnings
	tenants   *tenancy.Tenants
	// recordApprovers: see Options.RecordApprovers.
	recordApprovers bool
	// unreadable paces the retries of promotions whose content their tenant may not read.
	unreadable tenancy.Retries
	// specs remembers which summaries carry their stage profile's spec.
	specs specmemo.Memo
}

// NewReconciler returns a Reconciler; SetupWithManager completes it.
func NewReconciler(opts Options) *Reconciler {
	r := &Reconciler{client: opts.Client, now: opts.Now, tenants: opts.Tenants, recordApprovers: opts.RecordApprovers}
	if r.now == nil {
		r.now = time.Now
	}
	if r.tenants == nil && r.client != nil {
		r.tenants = tenancy.New(r.client, nil)
	}
	return r
}

// SetupWithManager registers the reconciler: it runs on promotion changes, on its profiles'
// changes, on any change of their ClusterSummaries, so a stage advances the moment its last
// cluster is provisioned, when one of their clusters is paused, goes down or comes back, and
// when a ConfigMap or Secret they refer to is edited.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	if r.client == nil {
		r.client = mgr.GetClient()
	}
	if r.tenants == nil {
		r.tenants = tenancy.New(r.client, nil)
	}
	r.informers = mgr.GetCache()
	r.recorder = mgr.GetEventRecorder("stagecoach.dev/clusterpromotion-controller")
	b := ctrl.NewControllerManagedBy(mgr).
		For(&configv1beta1.ClusterPromotion{}).
		Owns(&configv1beta1.ClusterProfile{}).
		Watches(&configv1beta1.ClusterSummary{}, enqueue.Paced(handler.EnqueueRequestsFromMapFunc(r.promotionOfSummary), enqueue.FleetPace)).
		Watches(&libv1beta1.SveltosCluster{}, handler.EnqueueRequestsFromMapFunc(r.promotionsOfCluster),
			builder.WithPredicates(predicate.Funcs{UpdateFunc: availabilityChanged})).
		Watches(&corev1.ConfigMap{}, handler.EnqueueRequestsFromMapFunc(r.promotionsReading("ConfigMap"))).
		WatchesMetadata(&corev1.Secret{}, handler.EnqueueRequestsFromMapFunc(r.promotionsReading("Secret")))
	// A new artifact of a Flux source the version reads starts a new version.
	for kind, obj := range fluxsource.Served(mgr.GetRESTMapper()) {
		b = b.Watches(obj, handler.EnqueueRequestsFromMapFunc(r.promotionsReading(kind)), builder.WithPredicates(fluxsource.ArtifactChanged))
	}
	return b.Named("clusterpromotion").Complete(r)
}

// Event reasons.
const (
	reasonRolloutStarted   = "RolloutStarted"
	reasonStagePromoted    = "StagePromoted"
	reasonAwaitingApproval = "AwaitingApproval"
	// reasonStageBlocked: a cluster of the stage is unreachable, or its deployment or health
	// check fails and is being retried. The Warning Event comes once per new message.
	reasonStageBlocked     = "StageBlocked"
	reasonDeploymentFailed = "DeploymentFailed"
	// reasonStageMatchesNoCluster: a stage's selector matches no cluster; it passes at once.
	reasonStageMatchesNoCluster = "StageMatchesNoCluster"
	reasonInvalidWindow         = "InvalidPromotionWindow"
	// reasonInvalidSpec: a field of the spec cannot be acted on as written; the message names it.
	reasonInvalidSpec = "InvalidSpec"
	reasonError       = "Error"
)

// errHalt ends a pass early without an error: the promotion stays where it is for now, and the
// pass says why.
var errHalt = errors.New("halted")

// outcome is what the pass did at the gate of the stage under way. The zero outcome is none: the
// pass did not reach the gate, or the gate deployed a health check.
type outcome int

const (
	// waiting: the gate is closed; the decision says why.
	waiting outcome = iota + 1
	// advanced: the stage is done and the next one started.
	advanced
	// promoted: the last stage is done, and the version with it.
	promoted
)

// pass is what one reconcile of one promotion learns, phase by phase. The phases record facts on
// it; summarise alone turns those into the conditions.
type pass struct {
	p   *configv1beta1.ClusterPromotion
	now metav1.Time

	// contents is what the version reads from the management cluster, profileHash and
	// stagesHash what identifies it, and frozen the copies of its content.
	contents                []freeze.Content
	profileHash, stagesHash []byte
	frozen                  map[freeze.Ref]string

	// idx is the index of the stage under way, stage its spec and st its status.
	idx   int
	stage *configv1beta1.Stage
	st    *configv1beta1.StageStatus
	// profile is the stage's ClusterProfile as applied, owned every profile of the promotion.
	profile *configv1beta1.ClusterProfile
	owned   []configv1beta1.ClusterProfile
	// state is where the clusters of the stage (or of the stage rolled back) stand, decision
	// what the stage's gate decided and blocked what went wrong on the stage while it waits.
	state    stageState
	decision rollout.GateDecision
	blocked  string

	// invalid is what in the spec cannot be acted on as written.
	invalid string
	// suspendedSince is set while spec.suspend holds the promotion; resumed when this pass
	// ended a suspension, which lasted suspendedFor.
	suspendedSince *metav1.Time
	resumed        bool
	suspendedFor   time.Duration
	// held is the deny window that holds a new version back.
	held *rollout.Hold
	// started is set when a new version started at the first stage in this pass.
	started bool
	// completed: the version went through every stage before this pass.
	completed bool
	// stopped: the version failed, and stays where it stopped.
	stopped bool
	// rollingBack names the stage being rolled back, whose clusters are not back yet;
	// rolledBack is set once every stage is back.
	rollingBack string
	rolledBack  bool
	// observed is set once the stage's clusters were looked at: state.failed then says whether
	// a deployment failed for good.
	observed bool
	// badWindow is why the stage's promotion window cannot be read.
	badWindow string
	outcome   outcome
	// approvedBy is set when an approval opens the stage's gate, to who the API server says
	// gave it (status.history).
	approvedBy *string
	// err is what ended the pass in error, a lost race aside.
	err error

	// requeue, when positive, is when the pass must run again even without an event.
	requeue time.Duration
}

func (ps *pass) requeueAfter(d time.Duration) {
	d = max(d, time.Millisecond)
	if ps.requeue == 0 || d < ps.requeue {
		ps.requeue = d
	}
}

// Reconcile moves one promotion on by at most one step (a stage provisioned, a gate passed, the
// next stage started) and writes its status.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (result ctrl.Result, retErr error) {
	p := &configv1beta1.ClusterPromotion{}
	if err := r.client.Get(ctx, req.NamespacedName, p); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	sw, err := patch.NewStatusWriter(r.client, p, patch.WithOptimisticLock())
	if err != nil {
		return ctrl.Result{}, err
	}
	defer sw.Write(ctx, &result, &retErr)
	if !p.DeletionTimestamp.IsZero() {
		metrics.ForgetPromotion(p.Name)
		return r.reconcileDelete(ctx, p)
	}
	if err := patch.AddFinalizer(ctx, r.client, p, configv1beta1.ClusterPromotionFinalizer); err != nil {
		return ctrl.Result{}, err
	}
	ps := r.newPass(p)
	err = r.run(ctx, ps)
	r.summarise(ps)
	p.Status.History = recordHistory(p.Status.History, &p.Status, ps.historyFacts(), ps.now)
	if err != nil {
		return ctrl.Result{}, err
	}
	return ctrl.Result{RequeueAfter: ps.requeue}, nil
}

func (r *Reconciler) newPass(p *configv1beta1.ClusterPromotion) *pass {
	return &pass{p: p, now: metav1.NewTime(r.now()), completed: completed(p)}
}

// run runs the phases in order, until one halts the pass or fails.
func (r *Reconciler) run(ctx context.Context, ps *pass) error {
	for _, phase := range []func(context.Context, *pass) error{
		r.approvalsPhase, r.validatePhase, r.suspendPhase, r.contentPhase, r.versionPhase, r.retirePhase,
		r.stagePhase, r.retryPhase, r.failurePhase, r.deployPhase, r.tidyPhase, r.observePhase, r.catchUpPhase, r.budgetPhase,
		r.gatePhase, r.actPhase,
	} {
		err := phase(ctx, ps)
		switch {
		case errors.Is(err, errHalt):
			return nil
		case err != nil:
			if !patch.LostRace(err) {
				ps.err = err
			}
			return err
		}
	}
	return nil
}

// hashes identify what restarts a promotion: the profile spec with the content it refers to,
// and each stage's name and selector (triggers are left out, so approving does not restart
// anything). A promotion that refers to no content keeps the hash of its profile spec alone.
func hashes(p *configv1beta1.ClusterPromotion, contents []freeze.Content) (profile, stages []byte) {
	type stageKey struct {
		Name     string `json:"name"`
		Selector any    `json:"clusterSelector"`
	}
	var keys []stageKey
	for _, s := range p.Spec.Stages {
		keys = append(keys, stageKey{s.Name, s.ClusterSelector})
	}
	profile = digest(p.Spec.ProfileSpec)
	if len(contents) > 0 {
		profile = digest([][]byte{profile, freeze.Digest(contents)})
	}
	return profile, digest(keys)
}

func digest(v any) []byte {
	data, _ := json.Marshal(v) // plain API structs: cannot fail
	sum := sha256.Sum256(data)
	return sum[:]
}

func (r *Reconciler) event(p *configv1beta1.ClusterPromotion, eventType, reason, format string, args ...any) {
	if r.recorder != nil {
		r.recorder.Eventf(p, nil, eventType, reason, "Promote", format, args...)
	}
}

// warnOnce emits a Warning Event unless the last one of this reason about the promotion said the
// same.
func (r *Reconciler) warnOnce(p *configv1beta1.ClusterPromotion, reason, msg string) {
	if r.warned.New(p.UID, reason, msg) {
		r.event(p, corev1.EventTypeWarning, reason, "%s", msg)
	}
}

func ceilSecond(t time.Time) time.Time {
	if down := t.Truncate(time.Second); !down.Equal(t) {
		return down.Add(time.Second)
	}
	return t
}

// stageStatus is the status of the named stage, added when it has none.
func stageStatus(p *configv1beta1.ClusterPromotion, name string) *configv1beta1.StageStatus {
	if st := findStageStatus(p, name); st != nil {
		return st
	}
	p.Status.Stages = append(p.Status.Stages, configv1beta1.StageStatus{Name: name})
	return &p.Status.Stages[len(p.Status.Stages)-1]
}

// formatHash is the short form of a version's hash that messages name.
func formatHash(h []byte) string {
	return fmt.Sprintf("%x", h[:min(4, len(h))])
}
