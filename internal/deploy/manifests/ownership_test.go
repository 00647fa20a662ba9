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

package manifests

import (
	"errors"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func sharedConfigMap(value string) string {
	return "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: shared, namespace: tiers}\ndata: {value: " + value + "}\n"
}

// TestTiers has three owners deploy the same ConfigMap with tiers 100, 200 and 50.
func TestTiers(t *testing.T) {
	t.Parallel()
	remote := newRemote(t)
	ctx := testContext(t)
	const first, loser, winner = "ClusterSummary dev/first:Resources", "ClusterSummary dev/loser:Resources", "ClusterSummary dev/winner:Resources"
	mustApply(t, remote, Request{Owner: first, Tier: 100, Objects: objects(t, sharedConfigMap("first"), Options{})})

	// A higher tier number loses: a conflict, and nothing changes.
	res, err := Apply(ctx, remote, Request{Owner: loser, Tier: 200, Objects: objects(t, sharedConfigMap("loser"), Options{})})
	var conflict *ConflictError
	if !errors.As(err, &conflict) || IsPermanent(err) {
		t.Fatalf("error %v, want a *ConflictError", err)
	}
	if len(res.Conflicts) != 1 || res.Conflicts[0].Owner != first || res.Conflicts[0].Tier != 100 ||
		!strings.Contains(res.Conflicts[0].Message, `ConfigMap tiers/shared is deployed by "ClusterSummary dev/first:Resources" with tier 100`) {
		t.Errorf("conflicts %+v", res.Conflicts)
	}
	if got := dataOf(get(t, remote, configMaps, "tiers", "shared"))["value"]; got != "first" {
		t.Errorf("the losing owner changed the object: value %q", got)
	}
	if _, err := remote.Core.ConfigMaps(InventoryNamespace).Get(ctx, InventoryName(loser), metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("a failed conflicting apply wrote an inventory: %v", err)
	}

	// With continueOnConflict the rest of the set is deployed.
	own := "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: loser-own, namespace: tiers}\n"
	res, err = Apply(ctx, remote, Request{Owner: loser, Tier: 200, ContinueOnConflict: true, Objects: objects(t, sharedConfigMap("loser")+own, Options{})})
	if err != nil || len(res.Conflicts) != 1 {
		t.Fatalf("continueOnConflict: %v, conflicts %+v", err, res.Conflicts)
	}
	checkRefs(t, "applied with continueOnConflict", res.Applied, "ConfigMap tiers/loser-own")

	// A per-object tier overrides the request's (a policyRef's tier).
	res, err = Apply(ctx, remote, Request{Owner: loser, Tier: 200, Objects: objects(t, sharedConfigMap("loser"), Options{Tier: 100})})
	if !errors.As(err, &conflict) {
		t.Errorf("an equal per-object tier took the object over: %v", err)
	}

	// A lower tier number wins and takes the object over.
	mustApply(t, remote, Request{Owner: winner, Tier: 50, Objects: objects(t, sharedConfigMap("winner"), Options{})})
	shared := get(t, remote, configMaps, "tiers", "shared")
	if dataOf(shared)["value"] != "winner" || shared.GetAnnotations()[OwnerAnnotation] != winner || shared.GetLabels()[TierLabel] != "50" {
		t.Errorf("not taken over: data %v labels %v annotations %v", dataOf(shared), shared.GetLabels(), shared.GetAnnotations())
	}
	if _, err := Apply(ctx, remote, Request{Owner: first, Tier: 100, Objects: objects(t, sharedConfigMap("first"), Options{})}); !errors.As(err, &conflict) {
		t.Errorf("the previous owner re-applied over the winner: %v", err)
	}

	// The previous owner's withdrawal leaves the object it lost alone.
	deleted, err := Withdraw(ctx, remote, first)
	if err != nil || len(deleted) != 0 || gone(get(t, remote, configMaps, "tiers", "shared")) {
		t.Errorf("withdrawing the previous owner: deleted %v, %v", deleted, err)
	}
}

// TestWithdrawAndForget checks both stop-matching behaviours, each from a fresh connection as
// after a controller restart: only the inventory on the cluster tells what to remove.
func TestWithdrawAndForget(t *testing.T) {
	t.Parallel()
	const withdrawn, forgotten = "ClusterSummary dev/withdrawn:Resources", "ClusterSummary dev/forgotten:Resources"
	set := `
apiVersion: v1
kind: Namespace
metadata: {name: withdraw-owned}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: inside, namespace: withdraw-owned}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: outside, namespace: withdraw}
`
	mustApply(t, newRemote(t), Request{Owner: withdrawn, Objects: objects(t, set, Options{})})
	leave := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: left, namespace: withdraw}\ndata: {a: b}\n"
	mustApply(t, newRemote(t), Request{Owner: forgotten, Objects: objects(t, leave, Options{})})

	remote := newRemote(t)
	ctx := testContext(t)
	deleted, err := Withdraw(ctx, remote, withdrawn)
	if err != nil {
		t.Fatal(err)
	}
	checkRefs(t, "withdrawn", deleted, "ConfigMap withdraw-owned/inside", "ConfigMap withdraw/outside", "Namespace withdraw-owned")
	if !gone(get(t, remote, configMaps, "withdraw", "outside")) {
		t.Error("outside not deleted")
	}
	if ns, err := remote.Core.Namespaces().Get(ctx, "withdraw", metav1.GetOptions{}); err != nil || ns.DeletionTimestamp != nil {
		t.Errorf("the namespace created for an object was deleted: %v", err)
	}
	if _, err := remote.Core.ConfigMaps(InventoryNamespace).Get(ctx, InventoryName(withdrawn), metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("inventory left after withdraw: %v", err)
	}

	if err := Forget(ctx, newRemote(t), forgotten); err != nil {
		t.Fatal(err)
	}
	left := get(t, remote, configMaps, "withdraw", "left")
	if left == nil || dataOf(left)["a"] != "b" {
		t.Fatalf("forget removed the object: %v", left)
	}
	if _, ok := left.GetLabels()[OwnerLabel]; ok || left.GetAnnotations()[OwnerAnnotation] != "" {
		t.Errorf("owner marks left: labels %v annotations %v", left.GetLabels(), left.GetAnnotations())
	}
	if deleted, err := Withdraw(ctx, remote, forgotten); err != nil || len(deleted) != 0 || get(t, remote, configMaps, "withdraw", "left") == nil {
		t.Errorf("withdraw after forget deleted %v (%v)", deleted, err)
	}
}
