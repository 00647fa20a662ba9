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

package placement

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
)

// snapshotSizeLimit is how many bytes of selected resources one snapshot object holds at most,
// well under the API server's object size limit. A single larger resource gets a snapshot of its
// own.
const snapshotSizeLimit = 800 * 1024

// hashContents is the hex SHA-256 of the JSON of the whole ResourceSnapshotSpec, as Kubefleet's
// resource-hash annotation holds it.
func hashContents(contents []placementv1beta1.ResourceContent) (string, error) {
	if contents == nil {
		contents = []placementv1beta1.ResourceContent{}
	}
	data, err := json.Marshal(placementv1beta1.ResourceSnapshotSpec{SelectedResources: contents})
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:]), nil
}

// splitContents cuts contents, in order, into consecutive chunks of at most limit bytes. There is
// always one chunk, empty when there are no contents: the group's first snapshot carries the
// group's labels and annotations.
func splitContents(contents []placementv1beta1.ResourceContent, limit int) [][]placementv1beta1.ResourceContent {
	var chunks [][]placementv1beta1.ResourceContent
	cur, size := []placementv1beta1.ResourceContent{}, 0
	for _, c := range contents {
		if len(cur) > 0 && size+len(c.Raw) > limit {
			chunks = append(chunks, cur)
			cur, size = []placementv1beta1.ResourceContent{}, 0
		}
		cur = append(cur, c)
		size += len(c.Raw)
	}
	return append(chunks, cur)
}

// snapshotGroup is the snapshots of one resource index.
type snapshotGroup struct {
	index int
	// master is the group's first snapshot, the one with the hash; nil when a write was cut
	// short before it was made.
	master placementv1beta1.ResourceSnapshotObj
	all    []placementv1beta1.ResourceSnapshotObj
}

func isMaster(o client.Object) bool {
	_, ok := o.GetAnnotations()[placementv1beta1.ResourceGroupHashAnnotation]
	return ok
}

func isLatest(o client.Object) bool {
	return o.GetLabels()[placementv1beta1.IsLatestSnapshotLabel] == strconv.FormatBool(true)
}

// groupSnapshots groups snapshots by index, oldest first. Objects without a valid index label
// are not the placement's snapshots and are left out.
func groupSnapshots(snaps []placementv1beta1.ResourceSnapshotObj) []snapshotGroup {
	byIndex := map[int]*snapshotGroup{}
	for _, s := range snaps {
		idx, err := strconv.Atoi(s.GetLabels()[placementv1beta1.ResourceIndexLabel])
		if err != nil || idx < 0 {
			continue
		}
		g := byIndex[idx]
		if g == nil {
			g = &snapshotGroup{index: idx}
			byIndex[idx] = g
		}
		g.all = append(g.all, s)
		if isMaster(s) {
			g.master = s
		}
	}
	groups := make([]snapshotGroup, 0, len(byIndex))
	for _, g := range byIndex {
		groups = append(groups, *g)
	}
	slices.SortFunc(groups, func(a, b snapshotGroup) int { return a.index - b.index })
	return groups
}

// latestGroup is the group whose master is marked latest (the newest if, after a crash, several
// are), or else the newest group with a master.
func latestGroup(groups []snapshotGroup) *snapshotGroup {
	var newest *snapshotGroup
	for i := len(groups) - 1; i >= 0; i-- {
		g := &groups[i]
		if g.master == nil {
			continue
		}
		if isLatest(g.master) {
			return g
		}
		if newest == nil {
			newest = g
		}
	}
	return newest
}

// expiredGroups lists the groups to delete before a new one is added, so that with it at most
// limit groups remain: all but the newest limit-1.
func expiredGroups(groups []snapshotGroup, limit int) []snapshotGroup {
	keep := max(limit-1, 0)
	if len(groups) <= keep {
		return nil
	}
	return groups[:len(groups)-keep]
}

// snapshotPhase records the selected resources as the placement's latest resource snapshot.
// A new index is cut only when their hash differs from the latest one's. This happens for every
// strategy: update runs of an External placement roll those indices out.
func (r *kindReconciler) snapshotPhase(ctx context.Context, ps *pass) error {
	contents, err := contentsOf(ps.selection.objects)
	if err != nil {
		return err
	}
	hash, err := hashContents(contents)
	if err != nil {
		return err
	}
	snaps, err := listResourceSnapshots(ctx, r.client, r.family, ps.p)
	if err != nil {
		return err
	}
	ps.snapshots = snaps
	groups := groupSnapshots(snaps)
	latest := latestGroup(groups)
	chunks := splitContents(contents, snapshotSizeLimit)
	if latest != nil && latest.master.GetAnnotations()[placementv1beta1.ResourceGroupHashAnnotation] == hash {
		ps.master, ps.index = latest.master, latest.index
		for _, g := range groups {
			if g.master != nil && g.index != latest.index && isLatest(g.master) {
				if err := r.markLatest(ctx, g.master, false); err != nil {
					return err
				}
			}
		}
		if err := r.markLatest(ctx, latest.master, true); err != nil {
			return err
		}
		// A write cut short may have left the group without some of its snapshots.
		want, _ := strconv.Atoi(latest.master.GetAnnotations()[placementv1beta1.NumberOfResourceSnapshotsAnnotation])
		if len(latest.all) < want && want == len(chunks) {
			return r.createSubSnapshots(ctx, ps.p, latest.index, chunks)
		}
		return nil
	}

	// Indices are never reused, not even those of a group whose first snapshot is missing.
	next := 0
	if n := len(groups); n > 0 {
		next = groups[n-1].index + 1
	}
	for _, g := range groups {
		if g.master != nil && isLatest(g.master) {
			if err := r.markLatest(ctx, g.master, false); err != nil {
				return err
			}
		}
	}
	for _, g := range expiredGroups(groups, int(*ps.spec.RevisionHistoryLimit)) {
		if err := r.deleteSnapshots(ctx, g.all); err != nil {
			return err
		}
	}
	// The first snapshot goes first, as in Kubefleet: it says how many snapshots the group has,
	// so a reader can tell a complete group, and a pass cut short before the others exist
	// completes the group next time (above).
	master, err := r.createMasterSnapshot(ctx, ps, next, hash, chunks)
	if err != nil {
		return err
	}
	if err := r.createSubSnapshots(ctx, ps.p, next, chunks); err != nil {
		return err
	}
	ps.master, ps.index = master, next
	ps.snapshots = append(ps.snapshots, master)
	r.recorder.Eventf(ps.p, master, corev1.EventTypeNormal, reasonResourceSnapshotCreated, "Snapshot",
		"Created resource snapshot %s: index %d, %d resources", master.GetName(), next, len(contents))
	ctrl.LoggerFrom(ctx).Info("created a resource snapshot", "snapshot", master.GetName(), "index", next, "resources", len(contents))
	return nil
}

func (r *kindReconciler) createMasterSnapshot(ctx context.Context, ps *pass, index int, hash string, chunks [][]placementv1beta1.ResourceContent) (placementv1beta1.ResourceSnapshotObj, error) {
	s := r.family.NewResourceSnapshot()
	s.SetName(placementv1beta1.ResourceSnapshotName(ps.p.GetName(), index))
	s.SetNamespace(ps.p.GetNamespace())
	s.SetLabels(map[string]string{
		placementv1beta1.IsLatestSnapshotLabel:  strconv.FormatBool(true),
		placementv1beta1.PlacementTrackingLabel: ps.p.GetName(),
		placementv1beta1.ResourceIndexLabel:     strconv.Itoa(index),
	})
	s.SetAnnotations(map[string]string{
		placementv1beta1.ResourceGroupHashAnnotation:         hash,
		placementv1beta1.NumberOfResourceSnapshotsAnnotation: strconv.Itoa(len(chunks)),
		placementv1beta1.NumberOfEnvelopedObjectsAnnotation:  strconv.Itoa(countEnvelopes(ps.selection.objects)),
	})
	s.ResourceSnapshotSpec().SelectedResources = chunks[0]
	return s, r.createOwned(ctx, ps.p, s)
}

// createSubSnapshots creates the snapshots of group index after its first one, skipping those
// that exist.
func (r *kindReconciler) createSubSnapshots(ctx context.Context, p placementv1beta1.PlacementObj, index int, chunks [][]placementv1beta1.ResourceContent) error {
	for sub := 1; sub < len(chunks); sub++ {
		s := r.family.NewResourceSnapshot()
		s.SetName(fmt.Sprintf(placementv1beta1.ResourceSnapshotNameWithSubindexFmt, p.GetName(), index, sub-1))
		s.SetNamespace(p.GetNamespace())
		s.SetLabels(map[string]string{
			placementv1beta1.PlacementTrackingLabel: p.GetName(),
			placementv1beta1.ResourceIndexLabel:     strconv.Itoa(index),
		})
		s.SetAnnotations(map[string]string{placementv1beta1.SubindexOfResourceSnapshotAnnotation: strconv.Itoa(sub - 1)})
		s.ResourceSnapshotSpec().SelectedResources = chunks[sub]
		if err := r.createOwned(ctx, p, s); err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
	}
	return nil
}

// errNameTaken says an object of the name wanted exists and belongs to someone else.
var errNameTaken = errors.New("an object of that name exists and is not owned")

// createOwned creates obj controlled by the placement. When the name is taken by an object
// that is not the placement's, it says so instead of retrying at once.
func (r *kindReconciler) createOwned(ctx context.Context, p placementv1beta1.PlacementObj, obj client.Object) error {
	if err := controllerutil.SetControllerReference(p, obj, r.client.Scheme()); err != nil {
		return err
	}
	err := r.client.Create(ctx, obj)
	if !apierrors.IsAlreadyExists(err) {
		return err
	}
	existing := obj.DeepCopyObject().(client.Object)
	if getErr := r.reader.Get(ctx, client.ObjectKeyFromObject(obj), existing); getErr == nil &&
		existing.GetLabels()[placementv1beta1.PlacementTrackingLabel] != p.GetName() {
		return fmt.Errorf("cannot create %s: %w by %s %s", obj.GetName(), errNameTaken, r.family.PlacementKind(), p.GetName())
	}
	return err
}

// markLatest sets the is-latest-snapshot label of a snapshot.
func (r *kindReconciler) markLatest(ctx context.Context, obj client.Object, latest bool) error {
	value := strconv.FormatBool(latest)
	if obj.GetLabels()[placementv1beta1.IsLatestSnapshotLabel] == value {
		return nil
	}
	patch := client.MergeFrom(obj.DeepCopyObject().(client.Object))
	labels := obj.GetLabels()
	labels[placementv1beta1.IsLatestSnapshotLabel] = value
	obj.SetLabels(labels)
	return r.client.Patch(ctx, obj, patch)
}

func (r *kindReconciler) deleteSnapshots(ctx context.Context, snaps []placementv1beta1.ResourceSnapshotObj) error {
	for _, s := range snaps {
		if err := r.client.Delete(ctx, s); client.IgnoreNotFound(err) != nil {
			return err
		}
	}
	return nil
}

// snapshotIndex returns the resource index of the snapshot called name: from the snapshots
// listed, or from the name itself for one already deleted.
func snapshotIndex(snaps []placementv1beta1.ResourceSnapshotObj, placement, name string) (int, bool) {
	for _, s := range snaps {
		if s.GetName() == name {
			idx, err := strconv.Atoi(s.GetLabels()[placementv1beta1.ResourceIndexLabel])
			return idx, err == nil
		}
	}
	rest, ok := strings.CutPrefix(name, placement+"-")
	if !ok {
		return 0, false
	}
	if rest, ok = strings.CutSuffix(rest, "-snapshot"); !ok {
		return 0, false
	}
	idx, err := strconv.Atoi(rest)
	return idx, err == nil && idx >= 0
}

// countEnvelopes is how many of the selected objects are envelopes, for the snapshot's
// number-of-enveloped-object annotation: the envelopes themselves, as Kubefleet counts them, not
// the objects they carry.
func countEnvelopes(objs []*unstructured.Unstructured) int {
	n := 0
	for _, o := range objs {
		gvk := o.GroupVersionKind()
		if placementv1beta1.IsEnvelopeKind(gvk.Group, gvk.Kind) {
			n++
		}
	}
	return n
}
