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

package upstream

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
)

// invalidKubefleet lists the Kubefleet documents that upstream's own CRDs refuse by a CEL rule,
// which PREDICTION.md (a check of the schemas' structure) cannot see. They must be refused here too.
var invalidKubefleet = map[string]string{
	"kubefleet/026-clusterresourceplacement-crp-1.yaml": "placementType PickN without numberOfClusters",
}

// dryRunOnly are the kinds the test only validates: a MemberCluster document names a cluster
// and credentials that do not exist here, and an approval request is the controller's to make.
var dryRunOnly = map[string]bool{"MemberCluster": true, "ClusterApprovalRequest": true, "ApprovalRequest": true}

// TestKubefleetCorpus does what check.sh does for every Kubefleet document upstream's CRDs
// accept (a server-side dry run with strict field validation), then runs them: each is created
// renamed after its file, its references to placements, strategies and runs renamed alike, and
// none may end as "not supported". A placement's resources, clusters or snapshots that do not
// exist here fail as missing, which is expected: what matters is that nothing is refused.
func TestKubefleetCorpus(t *testing.T) {
	t.Parallel() // beside check.sh's dry runs, after the Sveltos documents have run
	dir := corpusDir(t)
	docs := corpusDocuments(t, dir, "kubefleet/")
	c := testenv.Client(t)
	ctx := t.Context()

	objs := make([]*unstructured.Unstructured, len(docs))
	for i, d := range docs {
		obj, err := readDocument(dir, d)
		if err != nil {
			t.Fatalf("%s: %v", d.file, err)
		}
		objs[i] = obj
	}
	names := newRenames(docs, objs)

	cannot := map[string]string{}
	var running []*applied
	for i, d := range docs {
		err := dryRun(ctx, c, objs[i])
		if why, ok := invalidKubefleet[d.file]; ok {
			if err == nil {
				t.Errorf("%s is accepted, though upstream's CRDs refuse it (%s)", d.file, why)
			}
			continue
		}
		if err != nil {
			cannot[d.file] = "rejected: " + err.Error()
			continue
		}
		if dryRunOnly[d.kind] {
			continue
		}
		run := names.rewrite(i, objs[i])
		if err := c.Create(ctx, run); err != nil {
			cannot[d.file] = "rejected once renamed: " + err.Error()
			continue
		}
		running = append(running, &applied{doc: d, obj: run})
	}
	t.Logf("%d documents, %d accepted, %d running", len(docs), len(docs)-len(cannot)-len(invalidKubefleet), len(running))

	deadline := time.Now().Add(settleTimeout)
	for _, a := range running {
		for {
			settled, msgs, err := fleetOutcome(ctx, c, a.obj)
			if err == nil && settled {
				if m := refusal(msgs); m != "" {
					cannot[a.doc.file] = m
				}
				break
			}
			if time.Now().After(deadline) {
				cannot[a.doc.file] = fmt.Sprintf("no outcome within %s: %v %s", settleTimeout, err, strings.Join(msgs, "; "))
				break
			}
			time.Sleep(500 * time.Millisecond)
		}
	}
	for _, f := range slices.Sorted(mapsKeys(cannot)) {
		t.Errorf("%s cannot run: %s", f, cannot[f])
	}
	t.Logf("%d of %d Kubefleet documents accepted and run; %d cannot", len(docs)-len(invalidKubefleet)-len(cannot),
		len(docs)-len(invalidKubefleet), len(cannot))
}

func mapsKeys(m map[string]string) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func readDocument(dir string, d document) (*unstructured.Unstructured, error) {
	data, err := os.ReadFile(filepath.Join(dir, d.file))
	if err != nil {
		return nil, err
	}
	obj := &unstructured.Unstructured{}
	if err := yaml.Unmarshal(data, &obj.Object); err != nil {
		return nil, fmt.Errorf("not YAML: %w", err)
	}
	return obj, nil
}

// dryRun is check.sh for one document: its namespace created for real, then a server-side dry
// run with strict field validation.
func dryRun(ctx context.Context, c client.Client, obj *unstructured.Unstructured) error {
	if ns := obj.GetNamespace(); ns != "" {
		err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
	}
	return c.Create(ctx, obj.DeepCopy(), client.DryRunAll, client.FieldValidation(metav1.FieldValidationStrict))
}

// renames maps, per kind of referent and namespace, an object's name in the corpus to the names
// it was created under, by document index.
type renames struct {
	docs []document
	defs map[string][]int // "placement|ns|name" → indices of the documents defining it
}

func referentClass(kind string) string {
	switch kind {
	case "ClusterResourcePlacement", "ResourcePlacement":
		return "placement"
	case "ClusterStagedUpdateStrategy", "StagedUpdateStrategy":
		return "strategy"
	case "ClusterStagedUpdateRun", "StagedUpdateRun":
		return "run"
	}
	return ""
}

func newRenames(docs []document, objs []*unstructured.Unstructured) *renames {
	r := &renames{docs: docs, defs: map[string][]int{}}
	for i, o := range objs {
		if class := referentClass(o.GetKind()); class != "" {
			key := class + "|" + o.GetNamespace() + "|" + o.GetName()
			r.defs[key] = append(r.defs[key], i)
		}
	}
	return r
}

// name gives what document i's reference to a class/ns/name becomes: the name given to the
// nearest document defining it, preferring one before i (the order the documentation reads
// in), or the name unchanged when no document defines it.
func (r *renames) name(i int, class, ns, name string) string {
	defs := r.defs[class+"|"+ns+"|"+name]
	if len(defs) == 0 {
		return name
	}
	best := defs[0]
	for _, j := range defs {
		if j <= i && (best > i || j > best) {
			best = j
		}
	}
	return fileNumber(r.docs[best].file) + "-" + name
}

// rewrite renames document i after its file and points its references at the renamed objects.
// A disruption budget is named after its placement, so it takes the placement's new name.
func (r *renames) rewrite(i int, in *unstructured.Unstructured) *unstructured.Unstructured {
	obj := in.DeepCopy()
	ns := obj.GetNamespace()
	ref := func(class string, path ...string) {
		if v, ok, _ := unstructured.NestedString(obj.Object, path...); ok && v != "" {
			_ = unstructured.SetNestedField(obj.Object, r.name(i, class, ns, v), path...)
		}
	}
	switch obj.GetKind() {
	case "ClusterResourcePlacementDisruptionBudget":
		obj.SetName(r.name(i, "placement", "", obj.GetName()))
		return obj
	case "ClusterStagedUpdateRun", "StagedUpdateRun":
		ref("placement", "spec", "placementName")
		ref("strategy", "spec", "stagedRolloutStrategyName")
	case "ClusterResourcePlacementEviction":
		ref("placement", "spec", "placementName")
	case "ClusterResourceOverride", "ResourceOverride":
		ref("placement", "spec", "placement", "name")
	}
	obj.SetName(fileNumber(r.docs[i].file) + "-" + obj.GetName())
	return obj
}

// fleetOutcome tells whether a Kubefleet document has reached an outcome, and the messages of
// its status and, for a placement, of its bindings.
func fleetOutcome(ctx context.Context, c client.Client, obj *unstructured.Unstructured) (bool, []string, error) {
	live := &unstructured.Unstructured{}
	live.SetGroupVersionKind(obj.GroupVersionKind())
	if err := c.Get(ctx, client.ObjectKeyFromObject(obj), live); err != nil {
		return false, nil, err
	}
	conds, err := conditionsOf(live)
	if err != nil {
		return false, nil, err
	}
	var msgs []string
	for _, cd := range conds {
		msgs = append(msgs, cd.Message)
	}
	switch live.GetKind() {
	case "ClusterResourcePlacement", "ResourcePlacement":
		if !hasTypeSuffix(conds, "Scheduled", live.GetGeneration()) {
			return false, msgs, nil
		}
		bound, bmsgs, err := bindingsSettled(ctx, c, live)
		return bound, append(msgs, bmsgs...), err
	case "ClusterStagedUpdateRun", "StagedUpdateRun":
		return hasTypeSuffix(conds, "Initialized", 0), msgs, nil
	case "ClusterResourcePlacementEviction":
		return hasTypeSuffix(conds, "Valid", 0), msgs, nil
	case "ClusterResourceOverride", "ResourceOverride":
		return overrideSnapshotted(ctx, c, live)
	}
	// Strategies and budgets have no status: being accepted is their outcome.
	return true, msgs, nil
}

func conditionsOf(obj *unstructured.Unstructured) ([]metav1.Condition, error) {
	var st struct {
		Conditions []metav1.Condition `json:"conditions"`
	}
	err := fromUnstructured(obj.Object["status"], &st)
	return st.Conditions, err
}

// hasTypeSuffix: a condition whose type ends in suffix, observed at generation gen (0: any).
func hasTypeSuffix(conds []metav1.Condition, suffix string, gen int64) bool {
	for _, cd := range conds {
		if strings.HasSuffix(cd.Type, suffix) && (gen == 0 || cd.ObservedGeneration == gen) {
			return true
		}
	}
	return false
}

// bindingsSettled: every binding of the placement is settled once it is not Bound, has been
// applied or not, or says why not.
func bindingsSettled(ctx context.Context, c client.Client, p *unstructured.Unstructured) (bool, []string, error) {
	sel := client.MatchingLabels{placementv1beta1.PlacementTrackingLabel: p.GetName()}
	var bindings []placementv1beta1.BindingObj
	if p.GetNamespace() == "" {
		var l placementv1beta1.ClusterResourceBindingList
		if err := c.List(ctx, &l, sel); err != nil {
			return false, nil, err
		}
		for i := range l.Items {
			bindings = append(bindings, &l.Items[i])
		}
	} else {
		var l placementv1beta1.ResourceBindingList
		if err := c.List(ctx, &l, sel, client.InNamespace(p.GetNamespace())); err != nil {
			return false, nil, err
		}
		for i := range l.Items {
			bindings = append(bindings, &l.Items[i])
		}
	}
	var msgs []string
	settled := true
	for _, b := range bindings {
		conds := b.BindingStatus().Conditions
		for _, cd := range conds {
			msgs = append(msgs, cd.Message)
		}
		if b.BindingSpec().State != placementv1beta1.BindingStateBound {
			continue
		}
		applied := false
		for _, cd := range conds {
			if cd.Type == placementv1beta1.BindingAppliedCondition || cd.Status == metav1.ConditionFalse {
				applied = true
			}
		}
		settled = settled && applied
	}
	return settled, msgs, nil
}

// overrideSnapshotted: an override's outcome is its first snapshot.
func overrideSnapshotted(ctx context.Context, c client.Client, o *unstructured.Unstructured) (bool, []string, error) {
	list := &unstructured.UnstructuredList{}
	list.SetAPIVersion(placementv1beta1.GroupVersion.String())
	list.SetKind(o.GetKind() + "SnapshotList")
	opts := []client.ListOption{client.MatchingLabels{overrideTrackingLabel: o.GetName()}}
	if ns := o.GetNamespace(); ns != "" {
		opts = append(opts, client.InNamespace(ns))
	}
	if err := c.List(ctx, list, opts...); err != nil {
		return false, nil, err
	}
	return len(list.Items) > 0, []string{"snapshots: " + strconv.Itoa(len(list.Items))}, nil
}

// overrideTrackingLabel names, on an override snapshot, the override it was taken of.
const overrideTrackingLabel = placementv1beta1.FleetPrefix + "parent-resource-override"
