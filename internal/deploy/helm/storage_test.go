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

package helm

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"testing"

	chart "helm.sh/helm/v4/pkg/chart/v2"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
	rcommon "helm.sh/helm/v4/pkg/release/common"
	rspb "helm.sh/helm/v4/pkg/release/v1"
	"helm.sh/helm/v4/pkg/storage/driver"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
)

func testRelease(name string, version int, status rcommon.Status) *rspb.Release {
	return &rspb.Release{
		Name: name, Namespace: "apps", Version: version,
		Info:     &rspb.Info{Status: status, Description: "test"},
		Chart:    &chart.Chart{Metadata: &chart.Metadata{Name: "webapp", Version: "1.0.0", APIVersion: chart.APIVersionV2}},
		Config:   map[string]any{"message": "hello"},
		Manifest: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\n",
		Labels:   map[string]string{"team": "web"},
	}
}

// TestReleaseStoreAsHelms: what releaseStore writes, Helm's own Secrets driver reads back
// whole, and the Secret has the type and labels Helm's driver gives its own.
func TestReleaseStoreAsHelms(t *testing.T) {
	ctx := context.Background()
	secrets := fake.NewClientset().CoreV1().Secrets("apps")
	ours, helms := newReleaseStore(secrets), driver.NewSecrets(secrets)

	rel := testRelease("web", 1, rcommon.StatusDeployed)
	if err := ours.Create("sh.helm.release.v1.web.v1", rel); err != nil {
		t.Fatal(err)
	}
	if err := ours.Create("sh.helm.release.v1.web.v1", rel); !errors.Is(err, driver.ErrReleaseExists) {
		t.Fatalf("creating it again: got %v, want ErrReleaseExists", err)
	}
	if err := helms.Create("sh.helm.release.v1.other.v1", testRelease("other", 1, rcommon.StatusDeployed)); err != nil {
		t.Fatal(err)
	}

	got, err := helms.Get("sh.helm.release.v1.web.v1")
	if err != nil {
		t.Fatal(err)
	}
	back := got.(*rspb.Release)
	if back.Name != "web" || back.Version != 1 || back.Manifest != rel.Manifest || back.Config["message"] != "hello" ||
		back.Chart.Metadata.Version != "1.0.0" || back.Info.Status != rcommon.StatusDeployed {
		t.Fatalf("Helm's driver read back %+v", back)
	}

	mine, err := secrets.Get(ctx, "sh.helm.release.v1.web.v1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	theirs, err := secrets.Get(ctx, "sh.helm.release.v1.other.v1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if mine.Type != theirs.Type {
		t.Errorf("type %q, Helm's driver writes %q", mine.Type, theirs.Type)
	}
	keys := func(m map[string]string) map[string]bool {
		out := map[string]bool{}
		for k := range m {
			out[k] = true
		}
		return out
	}
	if !maps.Equal(keys(mine.Labels), keys(theirs.Labels)) {
		t.Errorf("labels %v, Helm's driver writes %v", mine.Labels, theirs.Labels)
	}
	if mine.Labels["owner"] != "helm" || mine.Labels["status"] != "deployed" || mine.Labels["version"] != "1" || mine.Labels["team"] != "web" {
		t.Errorf("labels %v", mine.Labels)
	}

	// Superseding it, as an upgrade does: Helm's driver queries it by status.
	rel.Info.Status = rcommon.StatusSuperseded
	if err := ours.Update("sh.helm.release.v1.web.v1", rel); err != nil {
		t.Fatal(err)
	}
	found, err := helms.Query(map[string]string{"name": "web", "owner": "helm", "status": "superseded"})
	if err != nil || len(found) != 1 {
		t.Fatalf("querying the superseded release: %v, %v", found, err)
	}
	mine, err = secrets.Get(ctx, "sh.helm.release.v1.web.v1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := mine.Labels["modifiedAt"]; !ok {
		t.Error("an updated release has no modifiedAt label")
	}
}

// discardSecrets takes every Secret created and keeps none, so that a benchmark measures what
// writes it.
type discardSecrets struct{ typedcorev1.SecretInterface }

func (discardSecrets) Create(_ context.Context, s *corev1.Secret, _ metav1.CreateOptions) (*corev1.Secret, error) {
	return s, nil
}

// BenchmarkReleaseWrite: a release of the webapp chart written by Helm's Secrets driver and by
// releaseStore.
func BenchmarkReleaseWrite(b *testing.B) {
	ch, err := loader.Load("../../../testdata/charts/webapp")
	if err != nil {
		b.Fatal(err)
	}
	rel := testRelease("web", 1, rcommon.StatusDeployed)
	rel.Chart = ch
	for _, d := range []struct {
		name   string
		driver func(typedcorev1.SecretInterface) driver.Driver
	}{
		{"helm", func(s typedcorev1.SecretInterface) driver.Driver { return driver.NewSecrets(s) }},
		{"stagecoach", func(s typedcorev1.SecretInterface) driver.Driver { return newReleaseStore(s) }},
	} {
		b.Run(d.name, func(b *testing.B) {
			w := d.driver(discardSecrets{})
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				if err := w.Create(fmt.Sprintf("sh.helm.release.v1.web.v%d", i), rel); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
