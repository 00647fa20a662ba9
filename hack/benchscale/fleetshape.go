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
	"fmt"
	"math"

	"golang.org/x/sync/errgroup"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/yaml"

	"github.com/stagecoach-dev/stagecoach/internal/testing/fleetsim"
)

// The shape of the fleet: which clusters are dead, which flap and which serve more APIs. Picks
// are evenly spaced, so that a run is the same every time and each stage gets its share.

// stageBounds are the index ranges [lo, hi) of the stages, in order (see stageOf).
func stageBounds(n int) [][2]int {
	var bounds [][2]int
	lo := 0
	for i := 0; i <= n; i++ {
		if i == n || (i > lo && stageOf(i, n) != stageOf(lo, n)) {
			bounds = append(bounds, [2]int{lo, i})
			lo = i
		}
	}
	return bounds
}

// deadIndexes picks percent of each stage's clusters, at least one in each stage that has two
// or more, never all of a stage: a rollout must go past the clusters it lost. The zero profile
// keeps the earlier placement, all in the last stage.
func deadIndexes(n int, percent float64, everyStage bool) map[int]bool {
	dead := map[int]bool{}
	count := int(math.Round(float64(n) * percent / 100))
	if !everyStage || count == 0 {
		for i := n - count; i < n; i++ {
			dead[i] = true
		}
		return dead
	}
	for _, b := range stageBounds(n) {
		size := b[1] - b[0]
		k := min(size-1, max(1, int(math.Round(float64(size)*percent/100))))
		for j := range k {
			dead[b[0]+(2*j+1)*size/(2*k)] = true
		}
	}
	return dead
}

// everyNth picks percent of the n clusters, one every 100/percent from offset, skipping those
// in skip.
func everyNth(n int, percent float64, offset int, skip map[int]bool) []int {
	if percent <= 0 {
		return nil
	}
	stride := max(1, int(math.Round(100/percent)))
	var picked []int
	for i := offset % stride; i < n; i += stride {
		if !skip[i] {
			picked = append(picked, i)
		}
	}
	return picked
}

// extraAPIVariants is how many different sets of extra APIs the clusters that have some serve:
// each set is a discovery, and so a REST mapper, of its own.
const extraAPIVariants = 4

// addExtraAPIs creates, through each cluster's API, CustomResourceDefinitions of one of the
// variants, so that their discovery differs from the rest of the fleet's.
func addExtraAPIs(ctx context.Context, clusters []*fleetsim.Cluster) error {
	crds := schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(32)
	for i, c := range clusters {
		g.Go(func() error {
			cfg, err := clientcmd.RESTConfigFromKubeConfig(c.Kubeconfig())
			if err != nil {
				return err
			}
			dyn, err := dynamic.NewForConfig(cfg)
			if err != nil {
				return err
			}
			for _, kind := range []string{"Widget", "Gadget"} {
				crd, err := extraCRD(i%extraAPIVariants, kind)
				if err == nil {
					_, err = dyn.Resource(crds).Create(gctx, crd, metav1.CreateOptions{})
				}
				if err != nil {
					return fmt.Errorf("adding APIs to %s: %w", c.Name(), err)
				}
			}
			return nil
		})
	}
	return g.Wait()
}

func extraCRD(variant int, kind string) (*unstructured.Unstructured, error) {
	group := fmt.Sprintf("v%d.extras.bench.stagecoach.dev", variant)
	plural := map[string]string{"Widget": "widgets", "Gadget": "gadgets"}[kind]
	doc := fmt.Sprintf(`apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: %[1]s.%[2]s}
spec:
  group: %[2]s
  scope: Namespaced
  names: {plural: %[1]s, singular: %[3]s, kind: %[4]s}
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
`, plural, group, map[string]string{"Widget": "widget", "Gadget": "gadget"}[kind], kind)
	obj := &unstructured.Unstructured{}
	return obj, yaml.Unmarshal([]byte(doc), &obj.Object)
}
