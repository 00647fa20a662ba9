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

package chart_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"helm.sh/helm/v4/pkg/action"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
	"helm.sh/helm/v4/pkg/kube"
	appsv1 "k8s.io/api/apps/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/stagecoach-dev/stagecoach/config/crd"
	"github.com/stagecoach-dev/stagecoach/internal/sandbox"
	"github.com/stagecoach-dev/stagecoach/internal/scheme"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
)

// The chart is installed into a cluster of the sandbox with kwok nodes, which run its pods.
func TestMain(m *testing.M) {
	testenv.Main(m, sandbox.ClusterSpec{Name: "hub"})
}

const namespace = "stagecoach-system"

// TestInstallAndUpgrade installs the chart with Helm, waits for the controller Deployment to be
// available, upgrades it with other values, and uninstalls it: the CRDs stay, as Helm keeps
// what crds/ installed, and the ClusterProfile CRD is kept too. A ClusterProfile CRD another
// manager installed is left alone.
func TestInstallAndUpgrade(t *testing.T) {
	hub := testenv.Fleet.Managed[0]
	c, err := client.New(hub.Config, client.Options{Scheme: scheme.New()})
	if err != nil {
		t.Fatal(err)
	}
	if err := apiextensionsv1.AddToScheme(c.Scheme()); err != nil {
		t.Fatal(err)
	}
	getter := genericclioptions.NewConfigFlags(false)
	getter.KubeConfig = &hub.Kubeconfig
	ns := namespace
	getter.Namespace = &ns
	cfg := action.NewConfiguration()
	if err := cfg.Init(getter, namespace, "secret"); err != nil {
		t.Fatal(err)
	}
	ch, err := loader.Load(chartDir)
	if err != nil {
		t.Fatal(err)
	}

	// Another cluster manager installed the Cluster Inventory API already: the chart keeps its CRD.
	inventoryCRD := existingInventoryCRD(t, c)

	install := action.NewInstall(cfg)
	install.ReleaseName, install.Namespace, install.CreateNamespace = "stagecoach", namespace, true
	install.WaitStrategy, install.Timeout = kube.HookOnlyStrategy, time.Minute
	if _, err := install.RunWithContext(t.Context(), ch, map[string]any{"image": map[string]any{"tag": "v0.0.0-test"}}); err != nil {
		t.Fatalf("helm install: %v", err)
	}
	available(t, c, 2, "--zap-log-level=info")
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := c.Get(t.Context(), client.ObjectKey{Name: "clusterpromotions.config.projectsveltos.io"}, crd); err != nil {
		t.Errorf("the chart's CRDs are not installed: %v", err)
	}

	after := &apiextensionsv1.CustomResourceDefinition{}
	if err := c.Get(t.Context(), client.ObjectKeyFromObject(inventoryCRD), after); err != nil {
		t.Fatal(err)
	}
	if len(after.Annotations) != 1 || after.Annotations["example.com/installed-by"] != "another-cluster-manager" {
		t.Errorf("installing the chart changed the existing ClusterProfile CRD: %v", after.Annotations)
	}

	upgrade := action.NewUpgrade(cfg)
	upgrade.Namespace, upgrade.WaitStrategy, upgrade.Timeout = namespace, kube.HookOnlyStrategy, time.Minute
	values := map[string]any{"replicas": 1, "controller": map[string]any{"logLevel": "debug"}}
	if _, err := upgrade.RunWithContext(t.Context(), "stagecoach", ch, values); err != nil {
		t.Fatalf("helm upgrade: %v", err)
	}
	available(t, c, 1, "--zap-log-level=debug")

	// Without another manager's CRD, the release installs its own, and keeps it on uninstall.
	if err := c.Delete(t.Context(), inventoryCRD); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, time.Minute, func(ctx context.Context) error {
		if err := c.Get(ctx, client.ObjectKeyFromObject(inventoryCRD), after); !apierrors.IsNotFound(err) {
			return fmt.Errorf("the CRD is still there (%v)", err)
		}
		return nil
	})
	if _, err := upgrade.RunWithContext(t.Context(), "stagecoach", ch, values); err != nil {
		t.Fatalf("helm upgrade: %v", err)
	}
	if err := c.Get(t.Context(), client.ObjectKeyFromObject(inventoryCRD), after); err != nil {
		t.Fatalf("the chart did not install the ClusterProfile CRD: %v", err)
	} else if after.Annotations["meta.helm.sh/release-name"] != "stagecoach" || after.Annotations["helm.sh/resource-policy"] != "keep" {
		t.Errorf("ClusterProfile CRD annotations %v", after.Annotations)
	}

	uninstall := action.NewUninstall(cfg)
	uninstall.WaitStrategy, uninstall.Timeout = kube.HookOnlyStrategy, time.Minute
	if _, err := uninstall.Run("stagecoach"); err != nil {
		t.Fatalf("helm uninstall: %v", err)
	}
	if err := c.Get(t.Context(), client.ObjectKey{Name: "clusterpromotions.config.projectsveltos.io"}, crd); err != nil {
		t.Errorf("uninstalling removed the CRDs: %v", err)
	}
	if err := c.Get(t.Context(), client.ObjectKeyFromObject(inventoryCRD), after); err != nil {
		t.Errorf("uninstalling removed the ClusterProfile CRD: %v", err)
	}
}

// existingInventoryCRD installs the Cluster Inventory API's ClusterProfile CRD as another
// cluster manager would, marked so that a replacement shows.
func existingInventoryCRD(t *testing.T, c client.Client) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	data, err := crd.Files.ReadFile("multicluster.x-k8s.io_clusterprofiles.yaml")
	if err != nil {
		t.Fatal(err)
	}
	obj := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.Unmarshal(data, obj); err != nil {
		t.Fatal(err)
	}
	obj.Annotations = map[string]string{"example.com/installed-by": "another-cluster-manager"}
	if err := c.Create(t.Context(), obj); err != nil {
		t.Fatal(err)
	}
	return obj
}

// available waits until the controller Deployment runs replicas pods with arg.
func available(t *testing.T, c client.Client, replicas int32, arg string) {
	t.Helper()
	testenv.Eventually(t, 2*time.Minute, func(ctx context.Context) error {
		d := &appsv1.Deployment{}
		if err := c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: "stagecoach"}, d); err != nil {
			return err
		}
		if !slices.Contains(d.Spec.Template.Spec.Containers[0].Args, arg) {
			return fmt.Errorf("args %v lack %s", d.Spec.Template.Spec.Containers[0].Args, arg)
		}
		st := d.Status
		if st.ObservedGeneration != d.Generation || st.UpdatedReplicas != replicas || st.AvailableReplicas != replicas || st.Replicas != replicas {
			return fmt.Errorf("Deployment status %+v, want %d replicas updated and available", st, replicas)
		}
		return nil
	})
}
