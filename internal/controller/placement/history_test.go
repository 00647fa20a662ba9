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

package placement

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"k8s.io/utils/ptr"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
)

// TestRevisionHistoryLimit keeps the newest revisionHistoryLimit snapshot groups.
func TestRevisionHistoryLimit(t *testing.T) {
	c := startController(t)
	namespace(t, c, "history-ns", map[string]string{"cm": "0"})
	p := crp("history", selectNamespace("history-ns"), nil, placementv1beta1.ExternalRolloutStrategyType)
	p.Spec.RevisionHistoryLimit = ptr.To[int32](2)
	create(t, c, p)
	cleanUp(t, c, p)
	expect := func(want ...string) {
		t.Helper()
		testenv.Eventually(t, timeout, func(ctx context.Context) error {
			ss, err := crs(ctx, c, "history")
			if err != nil {
				return err
			}
			var got []string
			for _, name := range slices.Sorted(maps.Keys(ss)) {
				got = append(got, name+"="+ss[name].Labels[placementv1beta1.IsLatestSnapshotLabel])
			}
			if !slices.Equal(got, want) {
				return fmt.Errorf("snapshots %v, want %v", got, want)
			}
			return nil
		})
	}
	expect("history-0-snapshot=true")
	editConfigMap(t, c, "history-ns", "cm", "1")
	expect("history-0-snapshot=false", "history-1-snapshot=true")
	editConfigMap(t, c, "history-ns", "cm", "2")
	expect("history-1-snapshot=false", "history-2-snapshot=true")
	editConfigMap(t, c, "history-ns", "cm", "3")
	expect("history-2-snapshot=false", "history-3-snapshot=true")
}

// TestLargeSelectionIsSplit: resources over 800 KiB are spread over sub-snapshots.
func TestLargeSelectionIsSplit(t *testing.T) {
	c := startController(t)
	big := strings.Repeat("x", 600*1024)
	namespace(t, c, "large-ns", map[string]string{"a": big, "b": big})
	p := crp("large", selectNamespace("large-ns"), nil, placementv1beta1.ExternalRolloutStrategyType)
	create(t, c, p)
	cleanUp(t, c, p)
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		ss, err := crs(ctx, c, "large")
		if err != nil {
			return err
		}
		master, sub := ss["large-0-snapshot"], ss["large-0-0"]
		if len(ss) != 2 || master == nil || sub == nil {
			return fmt.Errorf("snapshots %v", slices.Sorted(maps.Keys(ss)))
		}
		if master.Annotations[placementv1beta1.NumberOfResourceSnapshotsAnnotation] != "2" ||
			sub.Annotations[placementv1beta1.SubindexOfResourceSnapshotAnnotation] != "0" {
			return fmt.Errorf("annotations %v / %v", master.Annotations, sub.Annotations)
		}
		if _, ok := sub.Labels[placementv1beta1.IsLatestSnapshotLabel]; ok || sub.Labels[placementv1beta1.ResourceIndexLabel] != "0" {
			return fmt.Errorf("sub-snapshot labels %v", sub.Labels)
		}
		if n := len(master.Spec.SelectedResources) + len(sub.Spec.SelectedResources); n != 3 {
			return fmt.Errorf("%d resources, want the namespace and two ConfigMaps", n)
		}
		return nil
	})
}
