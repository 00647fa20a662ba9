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

// Package override keeps the snapshots of ClusterResourceOverrides and ResourceOverrides: a new
// snapshot, marked latest, for every change of an override's spec, at most
// OverrideSnapshotHistoryLimit kept per override, and all deleted with the override. Placements
// and update runs pick the latest snapshots; bindings name the ones their cluster gets.
package override

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/controller/patch"
)

// Event reasons.
const (
	reasonSnapshotCreated = "SnapshotCreated"
	reasonInvalid         = "InvalidOverride"
)

// Options configure the override controllers.
type Options struct {
	// Client reads and writes the management cluster; nil means the manager's client.
	Client client.Client
}

// Reconciler keeps the snapshots of overrides of both kinds. Build it with NewReconciler;
// SetupWithManager registers one controller per kind.
type Reconciler struct {
	client   client.Client
	recorder events.EventRecorder
	warnings patch.Warnings
}

// NewReconciler returns a Reconciler; SetupWithManager completes it.
func NewReconciler(opts Options) *Reconciler { return &Reconciler{client: opts.Client} }

// SetupWithManager completes the reconciler from mgr and registers its controllers.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	if r.client == nil {
		r.client = mgr.GetClient()
	}
	r.recorder = mgr.GetEventRecorder("stagecoach.dev/override-controller")
	for _, k := range kinds {
		err := ctrl.NewControllerManagedBy(mgr).
			Named(strings.ToLower(k.name)).
			For(k.newOverride()).
			Owns(k.newSnapshotObj()).
			Complete(&kindReconciler{Reconciler: r, kind: k})
		if err != nil {
			return err
		}
	}
	return nil
}

type kindReconciler struct {
	*Reconciler
	kind kind
}

func (r *kindReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	o := r.kind.newOverride()
	if err := r.client.Get(ctx, req.NamespacedName, o); err != nil {
		if apierrors.IsNotFound(err) {
			r.warnings.Forget(o.GetUID())
		}
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !o.GetDeletionTimestamp().IsZero() {
		return ctrl.Result{}, r.finalize(ctx, o)
	}
	if err := patch.AddFinalizer(ctx, r.client, o, placementv1beta1.OverrideFinalizer); err != nil {
		return ctrl.Result{}, err
	}
	spec, invalid := r.kind.spec(o)
	// The schema cannot hold every rule Kubefleet's webhook enforces; an override breaking one
	// is still snapshotted, and fails the bindings it is applied to with the same message.
	if err := invalid; err != nil {
		if r.warnings.New(o.GetUID(), reasonInvalid, err.Error()) {
			r.recorder.Eventf(o, nil, corev1.EventTypeWarning, reasonInvalid, "Validate", "%s", patch.Truncate(err.Error(), 1024))
		}
	} else {
		r.warnings.Clear(o.GetUID(), reasonInvalid)
	}
	// A snapshot that exists already was created a moment ago, unseen by the cache yet.
	return patch.RetryRace(ctx, r.ensureSnapshot(ctx, o, spec))
}

// hashOf is the hex SHA-256 of the spec's JSON, stored as bytes as Kubefleet stores it.
func hashOf(spec any) ([]byte, error) {
	j, err := json.Marshal(spec)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(j)
	return []byte(hex.EncodeToString(sum[:])), nil
}

// ensureSnapshot makes the newest snapshot hold the override's spec and be the only one marked
// latest, cutting a new index when the spec changed and deleting the oldest beyond the limit.
func (r *kindReconciler) ensureSnapshot(ctx context.Context, o client.Object, spec any) error {
	hash, err := hashOf(spec)
	if err != nil {
		return err
	}
	snaps, err := r.list(ctx, o)
	if err != nil {
		return err
	}
	next := 0
	if n := len(snaps); n > 0 {
		newest := snaps[n-1]
		if string(newest.hash) == string(hash) {
			return r.markLatest(ctx, snaps, newest.obj)
		}
		next = newest.index + 1
	}
	if err := r.markLatest(ctx, snaps, nil); err != nil {
		return err
	}
	// Room for the new one within the limit.
	for len(snaps) >= placementv1beta1.OverrideSnapshotHistoryLimit {
		if err := r.client.Delete(ctx, snaps[0].obj); client.IgnoreNotFound(err) != nil {
			return err
		}
		snaps = snaps[1:]
	}
	s := r.kind.newSnapshot(o, snapshotMeta(o, next, r.kind.name), hash)
	if err := r.client.Create(ctx, s); err != nil {
		return fmt.Errorf("creating %s %s: %w", r.kind.snapshotKind, s.GetName(), err)
	}
	r.recorder.Eventf(o, s, corev1.EventTypeNormal, reasonSnapshotCreated, "Snapshot", "Created %s %s", r.kind.snapshotKind, s.GetName())
	return nil
}

// list returns the override's snapshots by index, skipping any without a valid index.
func (r *kindReconciler) list(ctx context.Context, o client.Object) ([]snapshot, error) {
	l := r.kind.newSnapshotList()
	if err := r.client.List(ctx, l, client.InNamespace(o.GetNamespace()),
		client.MatchingLabels{placementv1beta1.OverrideTrackingLabel: o.GetName()}); err != nil {
		return nil, err
	}
	var out []snapshot
	for _, s := range r.kind.snapshots(l) {
		idx, err := strconv.Atoi(s.obj.GetLabels()[placementv1beta1.OverrideIndexLabel])
		if err != nil || idx < 0 {
			continue
		}
		s.index = idx
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b snapshot) int { return cmp.Compare(a.index, b.index) })
	return out, nil
}

// markLatest labels latest (nil for none) is-latest-snapshot=true and every other snapshot
// false.
func (r *kindReconciler) markLatest(ctx context.Context, snaps []snapshot, latest client.Object) error {
	for _, s := range snaps {
		want := strconv.FormatBool(s.obj == latest)
		if s.obj.GetLabels()[placementv1beta1.IsLatestSnapshotLabel] == want {
			continue
		}
		base := s.obj.DeepCopyObject().(client.Object)
		labels := s.obj.GetLabels()
		labels[placementv1beta1.IsLatestSnapshotLabel] = want
		s.obj.SetLabels(labels)
		if err := r.client.Patch(ctx, s.obj, client.MergeFromWithOptions(base, client.MergeFromWithOptimisticLock{})); err != nil {
			return fmt.Errorf("marking %s %s latest=%s: %w", r.kind.snapshotKind, s.obj.GetName(), want, err)
		}
	}
	return nil
}

// finalize deletes the override's snapshots, then lets it go.
func (r *kindReconciler) finalize(ctx context.Context, o client.Object) error {
	if !controllerutil.ContainsFinalizer(o, placementv1beta1.OverrideFinalizer) {
		return nil
	}
	snaps, err := r.list(ctx, o)
	if err != nil {
		return err
	}
	for _, s := range snaps {
		if err := r.client.Delete(ctx, s.obj); client.IgnoreNotFound(err) != nil {
			return err
		}
	}
	return patch.RemoveFinalizer(ctx, r.client, o, placementv1beta1.OverrideFinalizer)
}
