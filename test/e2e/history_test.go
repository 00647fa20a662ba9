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

package e2e

import (
	"context"
	"fmt"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/scheme"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
)

// approver is a client that acts as user, who may read and patch the test's promotions.
func approver(t *testing.T, user string) client.Client {
	t.Helper()
	admin := testenv.Client(t)
	name := "e2e-history-" + user
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name}, Rules: []rbacv1.PolicyRule{{
		APIGroups: []string{"config.projectsveltos.io"}, Resources: []string{"clusterpromotions"}, Verbs: []string{"get", "list", "patch", "update"},
	}}}
	binding := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: name},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: name},
		Subjects: []rbacv1.Subject{{Kind: "User", APIGroup: rbacv1.GroupName, Name: user}}}
	for _, o := range []client.Object{role, binding} {
		if err := admin.Create(t.Context(), o); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = admin.Delete(context.Background(), o) })
	}
	cfg := rest.CopyConfig(testenv.Fleet.Management.Config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: user, Groups: []string{"system:authenticated"}}
	c, err := client.New(cfg, client.Options{Scheme: scheme.New()})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// stamp is who the API server says approved the stage.
func stamp(t *testing.T, p *configv1beta1.ClusterPromotion, stage string) string {
	t.Helper()
	got, err := getPromotion(t.Context(), t, p.Name)
	if err != nil {
		t.Fatal(err)
	}
	return got.Annotations[configv1beta1.ApprovedByAnnotationPrefix+stage]
}

// waitAwaitingApproval waits until the newest version waits for an approval at stage.
func waitAwaitingApproval(t *testing.T, name, stage string, versions int) {
	t.Helper()
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		got, err := getPromotion(ctx, t, name)
		if err != nil {
			return err
		}
		h := got.Status.History
		if len(h) != versions || len(h[0].Stages) == 0 || h[0].Stages[0].Name != stage || h[0].Stages[0].ApprovalNeededSince == nil {
			return fmt.Errorf("history %+v", h)
		}
		return nil
	})
}

// TestHistoryRecordsVersionsAndApprovers: a promotion goes through two versions, each approved
// at qa by an impersonated user; status.history shows both, newest first, with their stages and
// who approved, as the API server authenticated them. A client cannot forge the approver: an
// approval that also writes the stamp as "bob" is stamped with its real user, and a change of
// the stamp alone, or its removal, is undone.
func TestHistoryRecordsVersionsAndApprovers(t *testing.T) {
	t.Parallel()
	const name, ns = "e2e-history", "e2e-history"
	alice, carol := approver(t, "e2e-history-alice"), approver(t, "e2e-history-carol")
	createConfigMap(t, name, map[string]string{"cm.yaml": configMapManifest(ns, "settings", "v1")})
	p := promotion(name, name,
		stage("qa", "qa", &configv1beta1.Trigger{Manual: &configv1beta1.ManualTrigger{}}),
		stage("production", "prod", nil))
	createPromotion(t, p)
	waitAwaitingApproval(t, name, "qa", 1)

	// Alice approves, and writes herself down as bob.
	forged := fmt.Sprintf(`{"metadata":{"annotations":{%q:"bob"}},"spec":{"stages":[%s,%s]}}`, configv1beta1.ApprovedByAnnotationPrefix+"qa",
		`{"name":"qa","clusterSelector":{"matchLabels":{"env":"qa"}},"trigger":{"manual":{"approved":true}}}`,
		`{"name":"production","clusterSelector":{"matchLabels":{"env":"prod"}}}`)
	if err := alice.Patch(t.Context(), p.DeepCopy(), client.RawPatch(types.MergePatchType, []byte(forged))); err != nil {
		t.Fatal(err)
	}
	if by := stamp(t, p, "qa"); by != "e2e-history-alice" {
		t.Fatalf("the approval is stamped %q, want e2e-history-alice", by)
	}
	// The stamp alone, changed or removed, by alice or an admin: undone.
	for _, c := range []client.Client{alice, testenv.Client(t)} {
		for _, patch := range []string{
			fmt.Sprintf(`{"metadata":{"annotations":{%q:"bob"}}}`, configv1beta1.ApprovedByAnnotationPrefix+"qa"),
			fmt.Sprintf(`{"metadata":{"annotations":{%q:null}}}`, configv1beta1.ApprovedByAnnotationPrefix+"qa"),
			fmt.Sprintf(`{"metadata":{"annotations":{%q:"bob"}}}`, configv1beta1.ApprovedByAnnotationPrefix+"production"),
		} {
			if err := c.Patch(t.Context(), p.DeepCopy(), client.RawPatch(types.MergePatchType, []byte(patch))); err != nil {
				t.Fatal(err)
			}
			if by := stamp(t, p, "qa"); by != "e2e-history-alice" {
				t.Fatalf("after %s the approval is stamped %q, want e2e-history-alice", patch, by)
			}
			if by := stamp(t, p, "production"); by != "" {
				t.Fatalf("after %s production is stamped %q, though nobody approved it", patch, by)
			}
		}
	}
	expectFeature(t, p.Name+"-production", "prod", libv1beta1.FeatureResources, libv1beta1.FeatureStatusProvisioned)
	waitHistory(t, name, func(h []configv1beta1.VersionRecord) error {
		return expectVersion(h, 1, 0, configv1beta1.OutcomeSucceeded, "e2e-history-alice")
	})

	// A second version, approved by carol with the seed's JSON patch.
	updateConfigMap(t, name, map[string]string{"cm.yaml": configMapManifest(ns, "settings", "v2")})
	waitAwaitingApproval(t, name, "qa", 2)
	approve := []byte(`[{"op": "replace", "path": "/spec/stages/0/trigger/manual/approved", "value": true}]`)
	if err := carol.Patch(t.Context(), p.DeepCopy(), client.RawPatch(types.JSONPatchType, approve)); err != nil {
		t.Fatal(err)
	}
	h := waitHistory(t, name, func(h []configv1beta1.VersionRecord) error {
		if err := expectVersion(h, 2, 0, configv1beta1.OutcomeSucceeded, "e2e-history-carol"); err != nil {
			return err
		}
		return expectVersion(h, 2, 1, configv1beta1.OutcomeSucceeded, "e2e-history-alice")
	})
	got, err := getPromotion(t.Context(), t, name)
	if err != nil {
		t.Fatal(err)
	}
	if string(h[0].ProfileSpecHash) != string(got.Status.ProfileSpecHash) || len(h[0].Deployed) != 1 || h[0].Deployed[0] != "ConfigMap default/"+name {
		t.Errorf("the newest version is %x deploying %v, want %x deploying ConfigMap default/%s", h[0].ProfileSpecHash, h[0].Deployed, got.Status.ProfileSpecHash, name)
	}
}

// waitHistory waits until the promotion's history passes check, and returns it.
func waitHistory(t *testing.T, name string, check func([]configv1beta1.VersionRecord) error) []configv1beta1.VersionRecord {
	t.Helper()
	var h []configv1beta1.VersionRecord
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		got, err := getPromotion(ctx, t, name)
		if err != nil {
			return err
		}
		h = got.Status.History
		return check(h)
	})
	return h
}

// expectVersion checks version i of a history of n: its outcome, qa approved by approver and
// then production, each passed.
func expectVersion(h []configv1beta1.VersionRecord, n, i int, outcome, approver string) error {
	if len(h) != n {
		return fmt.Errorf("history has %d versions, want %d: %+v", len(h), n, h)
	}
	v := h[i]
	if v.Outcome != outcome || v.Finished == nil || len(v.Stages) != 2 {
		return fmt.Errorf("version %d: %+v", i, v)
	}
	qa, prod := v.Stages[0], v.Stages[1]
	if qa.Name != "qa" || qa.Outcome != configv1beta1.OutcomeSucceeded || qa.ApprovedBy != approver || qa.ApprovedAt == nil ||
		qa.ApprovalNeededSince == nil || qa.Started == nil || qa.Finished == nil || qa.ApprovedAt.Before(qa.ApprovalNeededSince) {
		return fmt.Errorf("version %d, stage qa: %+v", i, qa)
	}
	if prod.Name != "production" || prod.Outcome != configv1beta1.OutcomeSucceeded || prod.ApprovedBy != "" || prod.Started == nil || prod.Finished == nil {
		return fmt.Errorf("version %d, stage production: %+v", i, prod)
	}
	return nil
}
