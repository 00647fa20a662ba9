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
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/freeze"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
)

// TestContentEditStartsANewVersion edits the ConfigMap a completed promotion deploys: the edit is
// a new version, which reaches dev first; prod keeps the content it has while dev soaks, and gets
// the edit only when the rollout reaches it. The copies of old content go once nothing uses them.
func TestContentEditStartsANewVersion(t *testing.T) {
	c := testenv.Client(t)
	clock := &testenv.Clock{}
	startController(t, clock)
	const name = "content-edit"
	const soakTime = time.Hour
	p := devThenProd(name, soak(soakTime), nil)
	cm := create(t, p, content(name, "v1"))
	valueOn := func(cluster, want string) {
		t.Helper()
		cms := kubernetes.NewForConfigOrDie(managed(t, cluster)).CoreV1().ConfigMaps("default")
		testenv.Eventually(t, timeout, func(ctx context.Context) error {
			got, err := cms.Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			if got.Data["value"] != want {
				return fmt.Errorf("%s has %q, want %q", cluster, got.Data["value"], want)
			}
			return nil
		})
	}
	devSoaks := func() {
		t.Helper()
		testenv.Eventually(t, timeout, func(ctx context.Context) error {
			got := &configv1beta1.ClusterPromotion{}
			if err := c.Get(ctx, client.ObjectKeyFromObject(p), got); err != nil {
				return err
			}
			if got.Status.CurrentStageName != "dev" || len(got.Status.Stages) != 1 || got.Status.Stages[0].LastSuccessfulAppliedTime == nil {
				return fmt.Errorf("dev not soaking: %s %+v", got.Status.CurrentStageName, got.Status.Stages)
			}
			return nil
		})
	}
	complete := func() {
		t.Helper()
		clock.Advance(soakTime + time.Second)
		poke(t, p)
		testenv.Eventually(t, timeout, func(ctx context.Context) error {
			got := &configv1beta1.ClusterPromotion{}
			if err := c.Get(ctx, client.ObjectKeyFromObject(p), got); err != nil {
				return err
			}
			if got.Status.CurrentStageName != "prod" || !completedPromotion(got) {
				return fmt.Errorf("not complete: %s %+v", got.Status.CurrentStageName, got.Status.Conditions)
			}
			return nil
		})
	}
	devSoaks()
	complete()
	valueOn("prod", "v1")

	cm.Data = content(name, "v2")
	if err := c.Update(t.Context(), cm); err != nil {
		t.Fatal(err)
	}
	valueOn("dev", "v2")
	devSoaks()
	valueOn("prod", "v1") // prod keeps the content of the version it has
	complete()
	valueOn("prod", "v2")

	// Only the copy of the current content is left.
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		var copies corev1.ConfigMapList
		if err := c.List(ctx, &copies, client.MatchingLabels{freeze.OwnerLabel: name}); err != nil {
			return err
		}
		if len(copies.Items) != 1 || copies.Items[0].Data["cm.yaml"] != content(name, "v2")["cm.yaml"] {
			return fmt.Errorf("%d copies", len(copies.Items))
		}
		return nil
	})
}
