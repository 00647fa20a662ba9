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

package freeze

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/scheme"
)

// TestProfilesOfOneNameKeepTheirCopies: two Profiles of the same name in two namespaces each
// collect their own copies only.
func TestProfilesOfOneNameKeepTheirCopies(t *testing.T) {
	ctx := context.Background()
	s := scheme.New()
	c := fake.NewClientBuilder().WithScheme(s).Build()
	ownerIn := func(ns string) Owner {
		return Owner{Object: &configv1beta1.Profile{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web", UID: types.UID("uid-" + ns)}}, Kind: "Profile"}
	}
	names := map[string]string{}
	for _, ns := range []string{"a", "b"} {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "content"}, Data: map[string]string{"k": ns}}
		got, err := Ensure(ctx, c, s, ownerIn(ns), []Content{{Ref: Ref{"ConfigMap", ns, "content"}, Object: cm}})
		if err != nil {
			t.Fatal(err)
		}
		names[ns] = got[Ref{"ConfigMap", ns, "content"}]
	}
	// a keeps nothing: its copy goes, b's stays.
	if err := Collect(ctx, c, ownerIn("a"), map[Ref]bool{}); err != nil {
		t.Fatal(err)
	}
	if err := c.Get(ctx, client.ObjectKey{Namespace: Namespace(), Name: names["b"]}, &corev1.ConfigMap{}); err != nil {
		t.Errorf("Profile b/web's copy: %v", err)
	}
	if err := c.Get(ctx, client.ObjectKey{Namespace: Namespace(), Name: names["a"]}, &corev1.ConfigMap{}); err == nil {
		t.Error("Profile a/web's copy was not collected")
	}
}
