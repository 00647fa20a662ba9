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

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/plan"
	"github.com/stagecoach-dev/stagecoach/internal/registration"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
	"github.com/stagecoach-dev/stagecoach/internal/view"
)

// TestProfileCommands: plan previews a Profile over the clusters of its namespace only, with its
// content read from that namespace, and status and the dashboard's cluster page show it once
// applied.
func TestProfileCommands(t *testing.T) {
	c := testenv.Client(t)
	if err := registration.WaitReady(t.Context(), c, "qa", "qa", timeout); err != nil {
		t.Fatal(err)
	}
	content := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cli-profile", Namespace: "qa"}, Data: map[string]string{
		"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: cli-profile\ndata:\n  value: v1\n"}}
	if err := c.Create(t.Context(), content); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Delete(context.Background(), content) })

	p := &configv1beta1.Profile{
		TypeMeta:   metav1.TypeMeta{APIVersion: configv1beta1.GroupVersion.String(), Kind: configv1beta1.ProfileKind},
		ObjectMeta: metav1.ObjectMeta{Name: "cli", Namespace: "qa"},
	}
	// Every cluster has env; the Profile sees qa's only.
	p.Spec.ClusterSelector.MatchExpressions = []metav1.LabelSelectorRequirement{{Key: "env", Operator: metav1.LabelSelectorOpExists}}
	p.Spec.PolicyRefs = []configv1beta1.PolicyRef{{Kind: "ConfigMap", Name: "cli-profile"}}
	data, err := yaml.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "profile.yaml")
	if err := os.WriteFile(file, data, 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := stagecoach(t, "plan", "-f", file, "-o", "json")
	if err != nil {
		t.Fatalf("plan: %v\n%s", err, out)
	}
	var got plan.Plan
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if got.Kind != "Profile" || len(got.Stages) != 1 || fmt.Sprint(got.Stages[0].Waves) != "[[qa/qa]]" {
		t.Fatalf("plan %+v", got)
	}
	ch := got.Stages[0].Changes["qa/qa"]
	if ch.Error != "" || !slices.ContainsFunc(ch.Objects, func(o plan.ObjectChange) bool {
		return o.Action == "Create" && o.Object == "ConfigMap cli-profile/settings"
	}) {
		t.Errorf("qa/qa change %+v", ch)
	}

	if err := c.Create(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = c.Delete(context.Background(), p)
		testenv.Eventually(t, timeout, func(ctx context.Context) error {
			if err := c.Get(ctx, client.ObjectKeyFromObject(p), &configv1beta1.Profile{}); !apierrors.IsNotFound(err) {
				return fmt.Errorf("Profile still there (%v)", err)
			}
			return nil
		})
	})
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		out, err := stagecoachWithin(ctx, "status", "profile", "cli", "-n", "qa", "-o", "json")
		if err != nil {
			return fmt.Errorf("%v: %s", err, out)
		}
		var r view.Rollout
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			return err
		}
		if r.Kind != "Profile" || r.State != view.Succeeded || len(r.Stages) != 1 || len(r.Stages[0].Clusters) != 1 ||
			r.Stages[0].Clusters[0].Name != "qa/qa" {
			return fmt.Errorf("status %s", out)
		}
		return nil
	})

	base := serveDashboard(t, testenv.Fleet.Management.Config, c)
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/clusters/qa/qa", nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "Profile qa/cli") {
			return fmt.Errorf("cluster page: %s\n%s", resp.Status, body)
		}
		return nil
	})
}
