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

// Package clusterprofile reconciles ClusterProfiles and their namespaced twins, Profiles: it finds
// the clusters a profile targets and keeps one ClusterSummary per cluster, which the
// clustersummary controller deploys. One Reconciler registers a controller per
// configv1beta1.ProfileFamily; a Profile differs only in what it can see (its own namespace).
//
// A pass finds the matching clusters and their summaries, checks that the spec can be rolled
// out, freezes the content the profile reads, plans the wave maxUpdate allows, writes the
// summaries of the clusters in it, and deletes those of clusters that no longer match. The
// phases record what they learn on the pass; summarise turns it into the conditions.
package clusterprofile

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/controller/patch"
	"github.com/stagecoach-dev/stagecoach/internal/controller/specmemo"
	"github.com/stagecoach-dev/stagecoach/internal/freeze"
	"github.com/stagecoach-dev/stagecoach/internal/rollout"
	"github.com/stagecoach-dev/stagecoach/internal/tenancy"
)

// Options tune the ClusterProfile controller. The zero value gives the defaults.
type Options struct {
	// Client reads and writes the management cluster; nil means the manager's client.
	Client client.Client
	// MaxListedClusters is how many clusters each list of a profile's status names; zero means
	// DefaultMaxListedClusters.
	MaxListedClusters int
	// Tenants reads what a tenant's profile references as its ServiceAccount; nil means one
	// made from Client, which refuses every tenant with a ServiceAccount.
	Tenants *tenancy.Tenants
}

// Reconciler holds what the ClusterProfile and Profile controllers share. SetupWithManager
// registers both.
type Reconciler struct {
	client   client.Client
	recorder events.EventRecorder
	// informers hold the fleet's clusters and summaries, read in place.
	informers cache.Informers
	maxListed int
	warned    patch.Warnings
	tenants   *tenancy.Tenants
	// unreadable paces the retries of profiles whose content cannot be read.
	unreadable tenancy.Retries
	// specs remembers which summaries carry their profile's current spec.
	specs specmemo.Memo
}

// kindReconciler reconciles the profiles of one family.
type kindReconciler struct {
	*Reconciler
	family configv1beta1.ProfileFamily
}

// NewReconciler returns a Reconciler; SetupWithManager completes it.
func NewReconciler(opts Options) *Reconciler {
	r := &Reconciler{client: opts.Client, maxListed: opts.MaxListedClusters, tenants: opts.Tenants}
	if r.tenants == nil && r.client != nil {
		r.tenants = tenancy.New(r.client, nil)
	}
	return r
}

// retryAfter is how soon a profile whose summaries could not all be written is retried.
const retryAfter = 5 * time.Second

// errHalt ends a pass early without an error: the status says why, and only a change of the
// profile can help.
var errHalt = errors.New("halted")

// pass is what one reconcile of one profile learns, phase by phase.
type pass struct {
	profile configv1beta1.ProfileObj
	family  configv1beta1.ProfileFamily
	// spec and status are the profile's; a Profile's spec has every reference scoped to its
	// namespace, and ignored names the references that named another one.
	spec    *configv1beta1.Spec
	status  *configv1beta1.Status
	ignored []string
	// paused: the profile carries the paused annotation, and nothing is done.
	paused bool

	// matching are the clusters the profile targets, sorted; unavailable says why each paused
	// or unreachable cluster of the fleet cannot make progress now.
	matching    []clusterKey
	unavailable map[clusterKey]string
	// counts are the lengths of the status lists as computed whole, before they are cut; nil
	// until the matching clusters are known.
	counts *configv1beta1.ProfileClusterCounts

	// existing are the profile's summaries, also by cluster.
	existing  []*configv1beta1.ClusterSummary
	byCluster map[clusterKey]*configv1beta1.ClusterSummary

	// invalid says why the spec cannot be rolled out as written; limit is maxUpdate resolved.
	invalid string
	// unreadable says why the content the profile references could not be read (the tenant
	// may not, say); the pass is retried.
	unreadable string
	limit      int

	// frozen names the copies of the content the profile reads, and content encodes them.
	frozen  map[freeze.Ref]string
	content map[string]string
	// specs remembers which summaries run version, the profile's spec and content; set on
	// first use, once the content is known.
	specs   *specmemo.Memo
	version *specmemo.Version

	// wave is where each matching cluster stands; held: the rollout is held, and no other
	// cluster starts.
	wave rollout.Wave
	held bool
	// rolledOut: the summaries of the wave were written, and failed is complete.
	rolledOut bool
	failed    []configv1beta1.FailedCluster
	// retry: a summary is being deleted or could not be written; the pass runs again soon.
	retry bool
}

// Reconcile keeps one ClusterSummary per matching cluster for a profile, rolling a change out to
// them as the profile's strategy allows, and writes the profile's status.
func (r *kindReconciler) Reconcile(ctx context.Context, req ctrl.Request) (result ctrl.Result, retErr error) {
	profile := r.family.NewProfile()
	if err := r.client.Get(ctx, req.NamespacedName, profile); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	sw, err := patch.NewStatusWriter(r.client, profile, patch.WithOptimisticLock())
	if err != nil {
		return ctrl.Result{}, err
	}
	defer sw.Write(ctx, &result, &retErr)

	if !profile.GetDeletionTimestamp().IsZero() {
		return r.reconcileDelete(ctx, profile)
	}
	if err := patch.AddFinalizer(ctx, r.client, profile, r.family.Finalizer()); err != nil {
		return ctrl.Result{}, err
	}

	ps := &pass{profile: profile, family: r.family, spec: profile.ProfileSpec(), status: profile.ProfileStatus(), specs: &r.specs}
	if r.family.Namespaced {
		// Scoped in memory only, after the last write of the object itself (the finalizer), whose
		// answer would bring the spec back as stored.
		ps.ignored = ps.spec.ScopeToNamespace(profile.GetNamespace())
	}
	err = r.runPhases(ctx, ps)
	// The conditions say what the pass learnt, however far it got.
	r.summarise(ps)
	switch {
	case errors.Is(err, errHalt):
		if ps.paused {
			sw.NotObserved()
		}
		return ctrl.Result{}, nil
	case ps.unreadable != "":
		// The content may become readable without any event here (a RoleBinding granted).
		return ctrl.Result{RequeueAfter: r.unreadable.Next(profile.GetUID())}, nil
	case err != nil:
		return ctrl.Result{}, err
	case ps.retry:
		// Summaries being deleted and failed writes are retried on a timer; a summary's own
		// progress wakes the profile through the watch on summaries.
		return ctrl.Result{RequeueAfter: retryAfter}, nil
	case freeze.Polled(freeze.SpecRefs(profile.ProfileSpec())):
		// Objects of kinds no watch covers are read again on a timer.
		return ctrl.Result{RequeueAfter: freeze.PollInterval}, nil
	}
	return ctrl.Result{}, nil
}

// runPhases runs the phases of a pass in order, until one fails or halts.
func (r *Reconciler) runPhases(ctx context.Context, ps *pass) error {
	for _, phase := range []func(context.Context, *pass) error{
		r.pausePhase, r.scopePhase, r.matchPhase, r.summariesPhase, r.validatePhase, r.freezePhase,
		r.planPhase, r.writePhase, r.waitingPhase, r.stalePhase, r.collectPhase,
	} {
		if err := phase(ctx, ps); err != nil {
			return err
		}
	}
	return nil
}

// pausePhase halts the pass of a paused profile: it is suspended, and nothing moves.
func (r *Reconciler) pausePhase(_ context.Context, ps *pass) error {
	st := ps.status
	if _, paused := ps.profile.GetAnnotations()[configv1beta1.ProfilePausedAnnotation]; paused {
		st.ReconciliationSuspended = true
		st.SuspensionReason = ptrTo("the profile carries the " + configv1beta1.ProfilePausedAnnotation + " annotation")
		ps.paused = true
		return errHalt
	}
	st.ReconciliationSuspended, st.SuspensionReason = false, nil
	return nil
}

// scopePhase says, once per message, that a Profile's references to other namespaces are read
// from its own namespace instead, as Sveltos reads them.
func (r *Reconciler) scopePhase(_ context.Context, ps *pass) error {
	if len(ps.ignored) == 0 {
		r.warned.Clear(ps.profile.GetUID(), reasonNamespaceIgnored)
		return nil
	}
	if msg := namespaceNote(ps); r.warned.New(ps.profile.GetUID(), reasonNamespaceIgnored, msg) {
		r.recorder.Eventf(ps.profile, nil, corev1.EventTypeWarning, reasonNamespaceIgnored, "Validate", "%s", msg)
	}
	return nil
}

// namespaceNote says which references of a Profile named another namespace, and what was read.
func namespaceNote(ps *pass) string {
	if len(ps.ignored) == 0 {
		return ""
	}
	return fmt.Sprintf("a Profile sees only its own namespace %q: %s refer to namespace %q instead",
		ps.profile.GetNamespace(), strings.Join(ps.ignored, ", "), ps.profile.GetNamespace())
}

// reconcileDelete deletes every summary and lets the finalizer go once they are all gone, with
// the profile's frozen copies: a Profile's, in the controller's namespace, have no owner
// reference for garbage collection to follow.
func (r *kindReconciler) reconcileDelete(ctx context.Context, profile configv1beta1.ProfileObj) (ctrl.Result, error) {
	r.warned.Forget(profile.GetUID())
	r.unreadable.Reset(profile.GetUID())
	remaining, err := r.deleteStaleSummaries(ctx, r.family, profile, nil)
	if err != nil || remaining {
		return ctrl.Result{RequeueAfter: retryAfter}, err
	}
	if err := freeze.Collect(ctx, r.client, owner(profile), nil); err != nil {
		return ctrl.Result{}, err
	}
	return ctrl.Result{}, patch.RemoveFinalizer(ctx, r.client, profile, r.family.Finalizer())
}

// failedCluster records a failure, keeping the time of an identical earlier one so that a
// failure that persists doesn't rewrite the status on every retry.
func failedCluster(previous []configv1beta1.FailedCluster, k clusterKey, err error) configv1beta1.FailedCluster {
	f := configv1beta1.FailedCluster{ClusterRef: k.Ref(), FailureMessage: err.Error()}
	for _, p := range previous {
		if p.ClusterRef == f.ClusterRef && p.FailureMessage == f.FailureMessage {
			f.LastFailureTime = p.LastFailureTime
			return f
		}
	}
	now := metav1.Now()
	f.LastFailureTime = &now
	return f
}

func ptrTo[T any](v T) *T { return &v }
