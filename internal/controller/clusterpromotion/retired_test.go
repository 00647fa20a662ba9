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

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
)

// TestRemovedStageNeverUninstalls renames a stage, then removes one. What their clusters run
// is never deleted: the renamed stage's content is handed over in place (the object keeps its
// UID), and the removed stage's content stays on its cluster.
func TestRemovedStageNeverUninstalls(t *testing.T) {
	c := testenv.Client(t)
	startController(t, nil)
	const name = "retire"
	p := devThenProd(name, nil, nil)
	create(t, p, content(name, "v1"))
	completeWith := func(stages ...string) {
		t.Helper()
		testenv.Eventually(t, timeout, func(ctx context.Context) error {
			got := &configv1beta1.ClusterPromotion{}
			if err := c.Get(ctx, client.ObjectKeyFromObject(p), got); err != nil {
				return err
			}
			var reached []string
			for _, st := range got.Status.Stages {
				reached = append(reached, st.Name)
			}
			if got.Status.ObservedGeneration != got.Generation || !completedPromotion(got) || fmt.Sprint(reached) != fmt.Sprint(stages) {
				return fmt.Errorf("stages %v, conditions %+v", reached, got.Status.Conditions)
			}
			return nil
		})
	}
	deployed := func(cluster string) *corev1.ConfigMap {
		t.Helper()
		got, err := kubernetes.NewForConfigOrDie(managed(t, cluster)).CoreV1().ConfigMaps("default").Get(t.Context(), name, metav1.GetOptions{})
		if err != nil {
			t.Fatalf("%s: %v", cluster, err)
		}
		return got
	}
	completeWith("dev", "prod")
	dev, prod := deployed("dev").UID, deployed("prod").UID

	edit(t, p, `[{"op": "replace", "path": "/spec/stages/0/name", "value": "development"}]`)
	completeWith("development", "prod")
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		if err := c.Get(ctx, client.ObjectKey{Name: name + "-dev"}, &configv1beta1.ClusterProfile{}); !apierrors.IsNotFound(err) {
			return fmt.Errorf("the renamed stage's profile is still there (%v)", err)
		}
		return nil
	})
	if deployed("dev").UID != dev {
		t.Fatal("renaming the stage deleted what dev runs")
	}

	edit(t, p, `[{"op": "remove", "path": "/spec/stages/1"}]`)
	completeWith("development")
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		retired := &configv1beta1.ClusterProfile{}
		if err := c.Get(ctx, client.ObjectKey{Name: name + "-prod"}, retired); err != nil {
			return err
		}
		if len(retired.Spec.ClusterRefs) != 1 || retired.Spec.ClusterRefs[0].Name != "prod" || retired.Spec.StopMatchingBehavior != configv1beta1.LeavePolicies {
			return fmt.Errorf("retired profile spec %+v", retired.Spec)
		}
		return nil
	})
	if deployed("prod").UID != prod || deployed("dev").UID != dev {
		t.Fatal("removing a stage deleted what its cluster runs")
	}
}
