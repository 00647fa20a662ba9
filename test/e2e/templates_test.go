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
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/operate"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
)

// waitMessage waits until the webapp release on a cluster says message, in its info ConfigMap,
// and, when image is set, until its Deployment runs that image.
func waitMessage(t *testing.T, cluster, ns, release, message, image string) {
	t.Helper()
	cs := managed(t, cluster)
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		cm, err := cs.CoreV1().ConfigMaps(ns).Get(ctx, release+"-info", metav1.GetOptions{})
		if err != nil {
			return err
		}
		if got := cm.Data["message"]; got != message {
			return fmt.Errorf("%s: release %s says %q, want %q", cluster, release, got, message)
		}
		if image == "" {
			return nil
		}
		d, err := cs.AppsV1().Deployments(ns).Get(ctx, release, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if got := d.Spec.Template.Spec.Containers[0].Image; got != image {
			return fmt.Errorf("%s: deployment %s runs %q, want %q", cluster, release, got, image)
		}
		return nil
	})
}

// messageOn reads what the webapp release on a cluster says now.
func messageOn(t *testing.T, cluster, ns, release string) string {
	t.Helper()
	cm, err := managed(t, cluster).CoreV1().ConfigMaps(ns).Get(t.Context(), release+"-info", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("%s: %v", cluster, err)
	}
	return cm.Data["message"]
}

// TestTemplatedPromotion promotes one chart whose values are a template of the cluster's labels:
// each cluster's release and Deployment get the cluster's own value. A policyRefs ConfigMap
// annotated as a template deploys an object named after each cluster.
func TestTemplatedPromotion(t *testing.T) {
	t.Parallel()
	const ns = "e2e-tpl-promo"
	createConfigMap(t, "e2e-tpl-promo", map[string]string{"cm.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: "for-{{ .ClusterName }}"
  namespace: e2e-tpl-promo
data:
  env: "{{ index .Cluster.metadata.labels "env" }}"
`})
	c := testenv.Client(t)
	annotate := &corev1.ConfigMap{}
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		if err := c.Get(ctx, client.ObjectKey{Namespace: "default", Name: "e2e-tpl-promo"}, annotate); err != nil {
			return err
		}
		annotate.Annotations = map[string]string{"projectsveltos.io/template": "ok"}
		return c.Update(ctx, annotate)
	})

	chart := webapp(t, "web", ns, "1.0.0")
	chart.Values = `message: "env={{ .Cluster.metadata.labels.env }}"
image: "registry.example/webapp:{{ .Cluster.metadata.labels.env }}"
`
	p := &configv1beta1.ClusterPromotion{ObjectMeta: metav1.ObjectMeta{Name: "e2e-tpl-promo"}}
	p.Spec.ProfileSpec.HelmCharts = []configv1beta1.HelmChart{chart}
	p.Spec.ProfileSpec.PolicyRefs = []configv1beta1.PolicyRef{configMapRef("e2e-tpl-promo")}
	delay := &metav1.Duration{Duration: time.Second}
	p.Spec.Stages = []configv1beta1.Stage{
		stage("dev", "dev", &configv1beta1.Trigger{Auto: &configv1beta1.AutoTrigger{Delay: delay}}),
		stage("staging", "staging", &configv1beta1.Trigger{Auto: &configv1beta1.AutoTrigger{Delay: delay}}),
	}
	createPromotion(t, p)

	expectAllProvisioned(t, waitPromoted(t, p.Name))
	for _, env := range []string{"dev", "staging"} {
		waitMessage(t, env, ns, "web", "env="+env, "registry.example/webapp:"+env)
		cm, err := managed(t, env).CoreV1().ConfigMaps(ns).Get(t.Context(), "for-"+env, metav1.GetOptions{})
		if err != nil {
			t.Fatalf("%s: the templated policyRef's object: %v", env, err)
		}
		if cm.Data["env"] != env {
			t.Errorf("%s: for-%s says env %q", env, env, cm.Data["env"])
		}
	}
}

// TestTemplateInputWaitsAtTheGate: a templateResourceRefs ConfigMap is part of the version. Once
// the first version went through, an edit of the ConfigMap reaches the first stage, and the
// stage behind a manual gate keeps the old rendering until the approval.
func TestTemplateInputWaitsAtTheGate(t *testing.T) {
	t.Parallel()
	const ns, name = "e2e-tpl-gate", "e2e-tpl-gate"
	createConfigMap(t, name, map[string]string{"color": "blue"})
	chart := webapp(t, "web", ns, "1.0.0")
	chart.Values = `message: '{{ (getResource "settings").data.color }} on {{ .ClusterName }}'`
	p := &configv1beta1.ClusterPromotion{ObjectMeta: metav1.ObjectMeta{Name: name}}
	p.Spec.ProfileSpec.HelmCharts = []configv1beta1.HelmChart{chart}
	p.Spec.ProfileSpec.TemplateResourceRefs = []configv1beta1.TemplateResourceRef{{
		Identifier: "settings", Resource: corev1.ObjectReference{Kind: "ConfigMap", Namespace: "default", Name: name},
	}}
	p.Spec.Stages = []configv1beta1.Stage{
		stage("first", "qa", &configv1beta1.Trigger{Manual: &configv1beta1.ManualTrigger{Approved: ptr(false)}}),
		stage("second", "prod", nil),
	}
	createPromotion(t, p)

	waitMessage(t, "qa", ns, "web", "blue on qa", "")
	waitStage(t, name, "first", "Paused: Awaiting Manual Approval")
	approve(t, name, 0)
	waitMessage(t, "prod", ns, "web", "blue on prod", "")
	expectAllProvisioned(t, waitPromoted(t, name))

	updateConfigMap(t, name, map[string]string{"color": "red"})
	waitMessage(t, "qa", ns, "web", "red on qa", "")
	waitStage(t, name, "first", "Paused: Awaiting Manual Approval")
	if got := messageOn(t, "prod", ns, "web"); got != "blue on prod" {
		t.Fatalf("while the first stage awaits approval, prod says %q, want the old rendering", got)
	}
	approve(t, name, 0)
	waitMessage(t, "prod", ns, "web", "red on prod", "")
	expectAllProvisioned(t, waitPromoted(t, name))

	// A rollback deploys the inputs of the last known good version again, whatever the
	// ConfigMap says now.
	updateConfigMap(t, name, map[string]string{"color": "green"})
	waitMessage(t, "qa", ns, "web", "green on qa", "")
	waitStage(t, name, "first", "Paused: Awaiting Manual Approval")
	if _, err := operate.RollbackPromotion(t.Context(), testenv.Client(t), name); err != nil {
		t.Fatal(err)
	}
	waitMessage(t, "qa", ns, "web", "red on qa", "")
	if got := messageOn(t, "prod", ns, "web"); got != "red on prod" {
		t.Errorf("after the rollback prod says %q", got)
	}
}

// TestClusterLabelsAreReadLive: .Cluster is read when the template runs; relabelling a cluster
// renders its summaries again at once.
func TestClusterLabelsAreReadLive(t *testing.T) {
	t.Parallel()
	const ns, label = "e2e-tpl-live", "e2e-tpl-live"
	p := sveltosProfile("e2e-tpl-live", map[string]string{"env": "dev"})
	chart := webapp(t, "web", ns, "1.0.0")
	chart.Values = `message: 'tier {{ index .Cluster.metadata.labels "` + label + `" | default "none" }}'`
	p.Spec.HelmCharts = []configv1beta1.HelmChart{chart}
	createProfile(t, p)
	waitMessage(t, "dev", ns, "web", "tier none", "")

	c := testenv.Client(t)
	cluster := &libv1beta1.SveltosCluster{ObjectMeta: metav1.ObjectMeta{Namespace: "dev", Name: "dev"}}
	setLabel := func(value string) {
		t.Helper()
		v := "null"
		if value != "" {
			v = fmt.Sprintf("%q", value)
		}
		patch := fmt.Appendf(nil, `{"metadata":{"labels":{%q:%s}}}`, label, v)
		if err := c.Patch(context.Background(), cluster, client.RawPatch(types.MergePatchType, patch)); err != nil {
			t.Fatal(err)
		}
	}
	setLabel("gold")
	t.Cleanup(func() { setLabel("") })
	waitMessage(t, "dev", ns, "web", "tier gold", "")
}

// TestTemplateErrorKeepsWhatIsDeployed: a template that fails names its own line, fails the
// feature for good, and the release deployed before stays as it was.
func TestTemplateErrorKeepsWhatIsDeployed(t *testing.T) {
	t.Parallel()
	const ns = "e2e-tpl-bad"
	p := sveltosProfile("e2e-tpl-bad", map[string]string{"env": "staging"})
	chart := webapp(t, "web", ns, "1.0.0")
	chart.Values = "message: '{{ .Cluster.metadata.labels.env }}'\n"
	p.Spec.HelmCharts = []configv1beta1.HelmChart{chart}
	createProfile(t, p)
	waitMessage(t, "staging", ns, "web", "staging", "")

	updateProfile(t, p.Name, func(p *configv1beta1.ClusterProfile) {
		p.Spec.HelmCharts[0].Values = "replicas: 1\nmessage: '{{ .Cluster.metadata.labels.tier }}'\n"
	})
	cs := expectFeature(t, p.Name, "staging", libv1beta1.FeatureHelm, libv1beta1.FeatureStatusFailedNonRetriable)
	if msg := failureMessage(cs, libv1beta1.FeatureHelm); !strings.Contains(msg, "chart web values:2:") || !strings.Contains(msg, `map has no entry for key "tier"`) {
		t.Errorf("failure message %q should be the template's own, with its line", msg)
	}
	if got := messageOn(t, "staging", ns, "web"); got != "staging" {
		t.Errorf("the release changed to %q after a failed template", got)
	}

	// A templateResourceRefs object that does not exist is reported, and retried until it does.
	updateProfile(t, p.Name, func(p *configv1beta1.ClusterProfile) {
		p.Spec.HelmCharts[0].Values = `message: '{{ (getResource "late").data.word }}'`
		p.Spec.TemplateResourceRefs = []configv1beta1.TemplateResourceRef{{
			Identifier: "late", Resource: corev1.ObjectReference{Kind: "ConfigMap", Namespace: "default", Name: "e2e-tpl-bad-late"}}}
	})
	cs = expectFeature(t, p.Name, "staging", libv1beta1.FeatureHelm, libv1beta1.FeatureStatusFailed)
	if msg := failureMessage(cs, libv1beta1.FeatureHelm); !strings.Contains(msg, `templateResourceRefs "late": ConfigMap default/e2e-tpl-bad-late does not exist`) {
		t.Errorf("failure message %q should name the missing object", msg)
	}
	createConfigMap(t, "e2e-tpl-bad-late", map[string]string{"word": "arrived"})
	waitMessage(t, "staging", ns, "web", "arrived", "")
}

// TestTemplateReadsAnyKind: a templateResourceRefs object of a kind other than ConfigMap and
// Secret (a Deployment of the management cluster) is kept, frozen, in a Secret of its own and
// read back by the template; an edit reaches the cluster on the next read.
func TestTemplateReadsAnyKind(t *testing.T) {
	t.Parallel()
	const ns, name = "e2e-tpl-kind", "e2e-tpl-kind"
	c := testenv.Client(t)
	labels := map[string]string{"app": name}
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"}, Spec: appsv1.DeploymentSpec{
		Replicas: ptr(int32(2)), Selector: &metav1.LabelSelector{MatchLabels: labels},
		Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "registry.example/app:1"}}}},
	}}
	if err := c.Create(t.Context(), d); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Delete(context.Background(), d) })

	p := sveltosProfile(name, map[string]string{"env": "qa"})
	chart := webapp(t, "web", ns, "1.0.0")
	chart.Values = `message: 'replicas {{ .MgmtResources.app.spec.replicas }}'`
	p.Spec.HelmCharts = []configv1beta1.HelmChart{chart}
	p.Spec.TemplateResourceRefs = []configv1beta1.TemplateResourceRef{{Identifier: "app", IgnoreStatusChanges: true,
		Resource: corev1.ObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "default", Name: name}}}
	createProfile(t, p)
	waitMessage(t, "qa", ns, "web", "replicas 2", "")

	var copies corev1.SecretList
	if err := c.List(t.Context(), &copies, client.InNamespace(testenv.ChartNamespace), client.MatchingLabels{"stagecoach.dev/frozen-for": name}); err != nil {
		t.Fatal(err)
	}
	if len(copies.Items) != 1 || copies.Items[0].Type != "stagecoach.dev/frozen-object" {
		t.Fatalf("frozen copies of the Deployment: %+v", copies.Items)
	}

	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		cur := &appsv1.Deployment{}
		if err := c.Get(ctx, client.ObjectKeyFromObject(d), cur); err != nil {
			return err
		}
		cur.Spec.Replicas = ptr(int32(5))
		return c.Update(ctx, cur)
	})
	waitMessage(t, "qa", ns, "web", "replicas 5", "")
}
